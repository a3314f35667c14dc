"""``agentcost mcp``: what MCP servers' tool definitions cost (``footprint``), and agentcost as an MCP
server (``serve``). A Typer group of two commands (docs/mcp.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agentcost.cli.options import AsOfOpt, FormatOpt, OutputOpt, VerboseOpt, parse_budget, path_arg
from agentcost.cli.output import Output, emit, fail
from agentcost.errors import InputError
from agentcost.render.formats import Format

DEFAULT_TIMEOUT = 30.0
"""Seconds a launched server has to answer initialize and tools/list (``--timeout``)."""
MAX_TIMEOUT = 600.0

MCP_HELP = "Count and price the tool definitions of MCP servers (footprint), or serve agentcost over MCP."
"""The group's help: its first paragraph is its line in ``agentcost --help`` (cli/core.py COMMANDS)."""


def register(app: typer.Typer) -> None:
    """Add the ``mcp`` group to ``app``."""
    group = typer.Typer(
        name="mcp",
        help=MCP_HELP,
        no_args_is_help=True,
        add_completion=False,
        context_settings={"help_option_names": ["-h", "--help"]},
        rich_markup_mode=None,
    )
    group.command(
        "footprint",
        epilog="Example: agentcost mcp footprint .mcp.json --launch -m claude-sonnet-4-5 --max-tokens 20000",
    )(footprint)
    group.command("serve", epilog="Example (Claude Code): claude mcp add agentcost -- agentcost mcp serve")(
        serve
    )
    app.add_typer(group, name="mcp")


def _tools_lists(values: list[str] | None) -> dict[str, Path]:
    out: dict[str, Path] = {}
    for value in values or ():
        name, eq, file = value.partition("=")
        if not eq or not name or not file:
            raise InputError(
                f"expected NAME=FILE, got {value!r}",
                key="--tools-list",
                hint="e.g. --tools-list github=tools.json",
            )
        if name in out:
            raise InputError(f"server {name!r} given twice", key="--tools-list")
        out[name] = path_arg(file)
    return out


def footprint(
    config: Annotated[
        Path,
        typer.Argument(
            metavar="CONFIG",
            help="An MCP client config: .mcp.json, claude_desktop_config.json, .cursor/mcp.json,"
            " .vscode/mcp.json.",
            parser=path_arg,
        ),
    ],
    model: Annotated[
        list[str] | None,
        typer.Option("--model", "-m", metavar="MODEL", help="A model to count and price on; repeatable."),
    ] = None,
    scenario: Annotated[
        Path | None,
        typer.Option(
            "--scenario",
            metavar="FILE",
            help="Also price a run of this scenario with the servers' tools added (and deferred).",
            parser=path_arg,
        ),
    ] = None,
    tools_list: Annotated[
        list[str] | None,
        typer.Option(
            "--tools-list",
            metavar="NAME=FILE",
            help="Server NAME's tools/list result, from FILE; repeatable.",
        ),
    ] = None,
    launch: Annotated[
        bool,
        typer.Option(
            "--launch",
            help="Start each stdio server (never a remote one) to ask for its tools; the answer is"
            " cached. Never done without this flag, in CI or not.",
        ),
    ] = False,
    timeout: Annotated[
        float,
        typer.Option("--timeout", metavar="S", help="Seconds a launched server has to list its tools."),
    ] = DEFAULT_TIMEOUT,
    cache_dir: Annotated[
        Path | None,
        typer.Option(
            "--cache-dir",
            metavar="DIR",
            help="Where launched tool lists are kept and read (default: mcp/ in agentcost's cache).",
            parser=path_arg,
        ),
    ] = None,
    max_tokens: Annotated[
        int | None,
        typer.Option(
            "--max-tokens",
            metavar="N",
            min=1,
            help="Gate: exit 1 when the definitions are over N tokens per request on a model.",
        ),
    ] = None,
    budget: Annotated[
        str | None,
        typer.Option(
            "--budget",
            metavar="USD",
            help="Gate: exit 1 when a model's figure is over USD: per run with --scenario, else per request.",
        ),
    ] = None,
    format_: FormatOpt = Format.table,
    output: OutputOpt = None,
    as_of: AsOfOpt = None,
    verbose: VerboseOpt = False,
) -> None:
    """Count and price the tool definitions an MCP client config's servers add to every request.

    Each server's tools/list comes from --tools-list, from the cache a previous --launch wrote, or
    with --launch from the server itself (stdio servers only; the process is always ended). The
    tokens are counted as a scenario's tools are, per model; the dollars are per request, and with
    --scenario per run, with the tools loaded up front and deferred behind tool search. Exit 1 when
    --max-tokens or --budget is exceeded.
    """
    from agentcost.loop.options import has_time, parse_as_of
    from agentcost.mcp.footprint import build_footprint
    from agentcost.report.mcp import footprint_gates

    out = Output(format_, output, False, False, False, verbose=verbose)
    try:
        if not 0 < timeout <= MAX_TIMEOUT:
            raise InputError(f"must be above 0 and at most {MAX_TIMEOUT:g} seconds", key="--timeout")
        when = parse_as_of(as_of)
        limit = parse_budget(budget)
        files = _tools_lists(tools_list)
        loaded = None
        if scenario is not None:
            from agentcost.scenario.load import read_scenario

            loaded = read_scenario(scenario)
        report = build_footprint(
            config,
            models=tuple(model or ()),
            scenario=loaded,
            scenario_name=None if scenario is None else str(scenario),
            tools_lists=files,
            launch=launch,
            timeout=timeout,
            cache_dir=cache_dir,
            as_of=when,
            at_time=has_time(as_of),
            max_tokens=max_tokens,
            budget_usd=limit,
        )
        emit(report, footprint_gates(report), out)
    except InputError as err:
        raise fail(err, "as_of", "model") from None


def serve() -> None:
    """Serve agentcost over MCP (stdio): tools estimate, compare, prices and footprint.

    For an MCP client (Claude Code, Claude Desktop, Cursor, VS Code) to call: each tool returns the
    JSON report the CLI prints with --format json, and bad input as a tool error of one line. Relative
    paths are read from the server's working directory. Needs the mcp extra.
    """
    from agentcost.mcp.launch import sdk_missing

    missing = sdk_missing()
    if missing is not None:
        raise fail(InputError(missing.message))
    from agentcost.mcp.serve import run

    run()
