"""``agentcost mcp serve``: agentcost as an MCP server over stdio, built with the official MCP Python
SDK (``mcp.server.mcpserver.MCPServer``, mcp 2.3.0, read 2026-12-07; the ``mcp`` extra).

Each tool runs the CLI's own pipeline in this process (the library functions of
:mod:`agentcost.api`, :mod:`agentcost.report.prices`, :mod:`agentcost.mcp.footprint`), never the CLI
in a subprocess, and returns the JSON report the matching command prints with ``--format json``,
byte for byte. Bad input is an MCP tool error (``isError``) whose text is the CLI's one line; a bug
is the SDK's generic tool error (its traceback goes to the server's standard error, the client's
log, never into the result). Paths are relative to the server's working directory and read within
the CLI's default bounds (:mod:`agentcost.infra.policy`; every call a fresh run, as one CLI
command is). ``footprint`` never launches a server: it reads the tools/list files and the cache; ``caps``
simulates as ``agentcost caps`` does (same default runs and seed, so the same figures).

A tool is one entry of :data:`TOOLS` (name -> function): the function's signature and docstring are
its input schema and description.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from agentcost.errors import InputError

SERVER_NAME = "agentcost"


@contextmanager
def _one_run() -> Iterator[None]:
    """One tool call as one CLI run: the files read before no longer count as its inputs, and bad
    input becomes the SDK's tool error with the CLI's one line."""
    from mcp.server.mcpserver.exceptions import ToolError

    from agentcost.infra import files

    files.forget_reads()
    try:
        yield
    except InputError as err:
        raise ToolError(str(err)) from None


def estimate(
    scenario: str,
    as_of: str | None = None,
    model: str | None = None,
    budget_usd: str | None = None,
    overrides: list[str] | None = None,
) -> str:
    """Estimate one run of a scenario file: `agentcost estimate SCENARIO --format json`.

    scenario: a scenario YAML path (relative to the server's directory); as_of: the price date (ISO,
    default today, UTC); model: replaces the scenario's model; budget_usd: replaces its budget;
    overrides: PATH=VALUE texts as --set takes.
    """
    from agentcost import api

    with _one_run():
        return api.estimate(
            scenario, as_of=as_of, model=model, budget_usd=budget_usd, overrides=tuple(overrides or ())
        ).to_json()


def compare(scenario: str, models: list[str], as_of: str | None = None) -> str:
    """One scenario on several models, cheapest first: `agentcost compare SCENARIO -m ... --format json`.

    models: model names, provider/model or globs as -m takes.
    """
    from agentcost import api

    with _one_run():
        return api.compare(scenario, models, as_of=as_of).to_json()


def prices(model: str, as_of: str | None = None) -> str:
    """Which rates apply to a model and where each comes from: `agentcost prices MODEL --format json`."""
    from agentcost.loop.options import parse_as_of
    from agentcost.render.prices import render_price_sheet_json
    from agentcost.report.prices import price_sheet

    with _one_run():
        return render_price_sheet_json(price_sheet(model, as_of=parse_as_of(as_of)))


def footprint(
    config: str,
    models: list[str] | None = None,
    as_of: str | None = None,
    scenario: str | None = None,
    tools_lists: dict[str, str] | None = None,
) -> str:
    """Tokens and dollars an MCP client config's servers add to every request: `agentcost mcp
    footprint CONFIG -m MODEL --format json` (never --launch: tool lists from tools_lists, NAME ->
    tools/list file, or from the cache a CLI --launch wrote).
    """
    from agentcost.loop.options import has_time, parse_as_of
    from agentcost.mcp.footprint import build_footprint
    from agentcost.render.output import Format, render_text
    from agentcost.report.mcp import footprint_gates

    with _one_run():
        loaded = None
        if scenario is not None:
            from agentcost.scenario.load import read_scenario

            loaded = read_scenario(Path(scenario))
        report = build_footprint(
            Path(config),
            models=tuple(models or ()),
            scenario=loaded,
            scenario_name=scenario,
            tools_lists={name: Path(file) for name, file in (tools_lists or {}).items()},
            as_of=parse_as_of(as_of),
            at_time=has_time(as_of),
        )
        return render_text(report, Format.json, gates=footprint_gates(report))


def caps(
    scenario: str,
    at: str | None = None,
    runs: int | None = None,
    seed: int | None = None,
    margin: str | None = None,
    as_of: str | None = None,
    model: str | None = None,
) -> str:
    """Runtime caps (max_turns, max_budget_usd, max_tokens) from the simulated runs' tail, with the
    settings for the Claude Agent SDK, the OpenAI Agents SDK and LangGraph: `agentcost caps SCENARIO
    --at p99 --format json`.

    at: the percentile (p50-p99.9) or max (default p99); runs: simulated runs (default 10,000);
    seed: the draws' seed (default 0); margin: percent added before rounding up ("20"); as_of: the
    price date (ISO); model: replaces the scenario's model.
    """
    from agentcost import api

    with _one_run():
        return api.caps(
            scenario, at=at, runs=runs, seed=seed, margin=margin, as_of=as_of, model=model
        ).to_json()


TOOLS: dict[str, Callable[..., str]] = {
    "estimate": estimate,
    "compare": compare,
    "prices": prices,
    "footprint": footprint,
    "caps": caps,
}
"""The server's tools, by name (their order in tools/list)."""


def build_server() -> Any:
    """The MCP server with :data:`TOOLS` (an ``MCPServer``; not started)."""
    from mcp.server.mcpserver import MCPServer

    from agentcost import __version__

    server = MCPServer(SERVER_NAME, version=__version__, log_level="WARNING")
    for name, function in TOOLS.items():
        server.add_tool(function, name=name, structured_output=False)
    return server


def run() -> None:
    """Serve on standard input and output until the client closes them. The SDK takes the process's
    own standard output (file descriptor 1) for the protocol, so the CLI's guard around
    ``sys.stdout`` (:class:`agentcost.infra.writes.GuardedStdout`, which hides the binary buffer) is
    set aside while it serves. The cyclic garbage collector, which the command line pauses for a
    command (:func:`agentcost.cli.main`), runs while the server does: it serves for as long as its
    client, and the SDK's tasks and streams may well hold cycles."""
    import gc
    import sys

    gc.enable()
    guarded = sys.stdout
    sys.stdout = sys.__stdout__
    try:
        build_server().run("stdio")
    finally:
        sys.stdout = guarded
