"""McpFootprint (``agentcost mcp footprint``) -> tables laid out at the terminal's width (60 columns
and up), Markdown, CSV and the JSON body (:class:`agentcost.report.mcp_json.McpFootprintJson`).
No arithmetic here: every figure is a field or property of :mod:`agentcost.report.mcp`; numbers
become text only through ``fmt``. Registered with ``agentcost.render.output`` through ``RENDERERS``.
"""

from __future__ import annotations

import io
from decimal import Decimal

from rich.console import Group, RenderableType
from rich.text import Text

from agentcost.infra.text import CsvWriter, display_name, markdown, markdown_code, rich
from agentcost.render.fit import SECTION, Col, FitTable
from agentcost.render.output import Renderers
from agentcost.report.fmt import exact, signed_usd, tokens, usd
from agentcost.report.mcp import McpFootprint, ModelFootprint, RunCost, ServerFootprint, footprint_gates
from agentcost.report.mcp_json import (
    McpFootprintJson,
    McpModelJson,
    McpRunJson,
    McpServerJson,
    McpServerModelJson,
)
from agentcost.report.schemagen import one_of

TOP_TOOLS = 5
"""The largest definitions named under the tables (every one with --verbose and in JSON)."""


# -- words, shared by the formats --------------------------------------------------------------


def headline(r: McpFootprint) -> str:
    """The answer, first: how many tools, and how many tokens they add to every request per model."""
    servers = len(r.servers)
    known = (
        f"{len(r.listed)} of {servers} servers" if r.unknown else f"{servers} server{'s' * (servers != 1)}"
    )
    sizes = ", ".join(
        f"{tokens(m.prefix_tokens)}{'*' if m.approximate else ''}{' tokens' * (i == 0)} on {m.model}"
        for i, m in enumerate(r.models)
    )
    lead = (
        f"MCP tools of {display_name(r.config)}: {r.tool_count} tools on {known}, in every request: {sizes}."
    )
    # a gate's verdict first, the one the exit code carries: "Over --max-tokens: ..." / "Within budget: ..."
    verdicts = [g.message.removeprefix(f"{r.config}: ") for g in footprint_gates(r)]
    return " ".join([*(v[:1].upper() + v[1:] + "." for v in verdicts), lead])


def _run_line(m: ModelFootprint, run: RunCost, scenario: str) -> str:
    deferred = ""
    if run.deferred_usd is not None and run.deferred_added_usd is not None:
        change = signed_usd(run.deferred_added_usd)
        deferred = f"; {usd(run.deferred_usd)} with them deferred (tool search, {change})"
    elif run.tool_search is None:
        deferred = f"; {m.model} has no documented tool search to defer them"
    return (
        f"A run of {display_name(scenario)} on {m.model} ({run.requests} requests):"
        f" {usd(run.scenario_usd)} as written, {usd(run.with_tools_usd)} with these tools"
        f" ({signed_usd(run.added_usd)}){deferred}."
    )


def _largest(r: McpFootprint, m: ModelFootprint) -> str | None:
    ranked = sorted(
        (
            (t.tokens, t.name, s.name)
            for s in r.listed
            for sm in s.models
            if sm.model == m.model
            for t in sm.tools
        ),
        key=lambda x: (-x[0], x[1]),
    )
    if len(ranked) <= 1:
        return None
    shown = ", ".join(f"{display_name(name, 40)} {tokens(n)}" for n, name, _ in ranked[:TOP_TOOLS])
    return f"Largest definitions on {m.model}: {shown} tokens."


def _unknown_line(s: ServerFootprint) -> str:
    return f"{display_name(s.name, 40)}: {s.status}; its tools are not counted."


def _notes(r: McpFootprint) -> list[str]:
    lines = []
    for m in r.models:
        if m.run is not None and r.scenario is not None:
            lines.append(_run_line(m, m.run, r.scenario))
    lines.append(
        f"Prices: {r.prices_label}. Per request: the definitions as input of one request, uncached"
        " and read from the cache; total: every listed tool, with the provider's one-off framing."
    )
    if any(m.approximate for m in r.models):
        lines.append("Token counts marked * are approximate: the model's tokenizer is not public.")
    return lines


# -- table ---------------------------------------------------------------------------------------


def _model_table(r: McpFootprint, m: ModelFootprint) -> FitTable:
    star = "*" if m.approximate else ""
    rows: list[list[str | Text] | None] = []
    for s in r.servers:
        own = next((x for x in s.models if x.model == m.model), None)
        if own is None:
            rows.append([rich(display_name(s.name)), "-", "-", "-", "-"])
            continue
        rows.append(
            [
                rich(display_name(s.name)),
                tokens(s.tool_count),
                tokens(own.tokens) + star,
                usd(own.request_usd),
                usd(own.cached_request_usd),
            ]
        )
    rows.append(SECTION)
    rows.append(
        [
            "total",
            tokens(r.tool_count),
            tokens(m.prefix_tokens) + star,
            usd(m.request_usd),
            usd(m.cached_request_usd),
        ]
    )
    columns = [
        Col("server", text=True, justify="left", min_width=10),
        Col("tools"),
        Col("tokens"),
        Col("per request", "request"),
        Col("cache read", "cached", drop=1),
    ]
    return FitTable(columns, rows, title=rich(f"{m.model} ({m.provider})"))


def render_mcp_table(r: McpFootprint, *, verbose: bool = False) -> RenderableType:
    parts: list[RenderableType] = [rich(headline(r))]
    for m in r.models:
        parts.append(_model_table(r, m))
        if verbose:
            parts.append(_tools_table(r, m))
        else:
            largest = _largest(r, m)
            if largest is not None:
                parts.append(rich(largest))
    for line in _notes(r):
        parts.append(rich(line))
    if verbose:
        for s in r.servers:
            env = ", ".join(s.env_names) if s.env_names else "none"
            where = s.tools_file or "-"
            parts.append(
                rich(f"{s.name}: {s.transport}, tools from {s.source or '-'} ({where}); env set: {env}")
            )
    return Group(*parts)


def _tools_table(r: McpFootprint, m: ModelFootprint) -> FitTable:
    star = "*" if m.approximate else ""
    rows: list[list[str | Text] | None] = []
    for s in r.listed:
        for sm in s.models:
            if sm.model != m.model:
                continue
            rows.extend(
                [rich(display_name(s.name)), rich(display_name(t.name)), tokens(t.tokens) + star]
                for t in sm.tools
            )
    columns = [
        Col("server", text=True, justify="left", min_width=8),
        Col("tool", text=True, justify="left", min_width=12),
        Col("tokens"),
    ]
    return FitTable(columns, rows, title=rich(f"every tool on {m.model}"))


# -- Markdown ------------------------------------------------------------------------------------


def render_mcp_markdown(r: McpFootprint) -> str:
    out = [f"### {markdown(headline(r))}", ""]
    for m in r.models:
        star = "\\*" if m.approximate else ""
        out += [
            f"**{markdown_code(m.model)}** ({markdown(m.provider)})",
            "",
            "| server | tools | tokens | per request | cache read |",
            "|---|--:|--:|--:|--:|",
        ]
        for s in r.servers:
            own = next((x for x in s.models if x.model == m.model), None)
            name = markdown_code(s.name, table=True)
            if own is None:
                out.append(f"| {name} | - | - | - | - |")
                continue
            out.append(
                f"| {name} | {tokens(s.tool_count)} | {tokens(own.tokens)}{star} | {usd(own.request_usd)}"
                f" | {usd(own.cached_request_usd)} |"
            )
        out.append(
            f"| total | {tokens(r.tool_count)} | {tokens(m.prefix_tokens)}{star}"
            f" | {usd(m.request_usd)} | {usd(m.cached_request_usd)} |"
        )
        out.append("")
    for line in [*_notes(r), *(_unknown_line(s) for s in r.unknown)]:
        out.append(markdown(line) + "  ")
    return "\n".join(out) + "\n"


# -- CSV and JSON --------------------------------------------------------------------------------


def render_mcp_csv(r: McpFootprint) -> str:
    out = io.StringIO()
    writer = CsvWriter(out)
    writer.writerow(["server", "tool", "model", "tokens", "request_usd", "cached_request_usd"])
    for s in r.listed:
        for sm in s.models:
            writer.writerow(
                [s.name, "", sm.model, sm.tokens, exact(sm.request_usd), _exact(sm.cached_request_usd)]
            )
            for t in sm.tools:
                writer.writerow([s.name, t.name, sm.model, t.tokens, "", ""])
    return out.getvalue()


def _exact(d: Decimal | None) -> str | None:
    return None if d is None else exact(d)


def mcp_dict(r: McpFootprint) -> McpFootprintJson:
    return {
        "config": r.config,
        "layout": one_of(("mcpServers", "servers"), r.layout, "layout"),
        "as_of": r.as_of,
        "prices": r.prices_label,
        "scenario": r.scenario,
        "tool_count": r.tool_count,
        "servers": [_server_json(s) for s in r.servers],
        "models": [_model_json(m) for m in r.models],
        "max_tokens": r.max_tokens,
        "budget_usd": None if r.budget_usd is None else exact(r.budget_usd),
    }


def _server_json(s: ServerFootprint) -> McpServerJson:
    models: list[McpServerModelJson] = [
        {
            "model": sm.model,
            "tokens": sm.tokens,
            "request_usd": exact(sm.request_usd),
            "cached_request_usd": _exact(sm.cached_request_usd),
            "tools": [{"name": t.name, "tokens": t.tokens} for t in sm.tools],
        }
        for sm in s.models
    ]
    return {
        "name": s.name,
        "transport": one_of(("stdio", "http", "sse"), s.transport, "transport"),
        "source": None if s.source is None else one_of(("file", "launch", "cache"), s.source, "source"),
        "tools_file": s.tools_file,
        "status": s.status,
        "env": list(s.env_names),
        "tool_count": s.tool_count,
        "models": models,
    }


def _model_json(m: ModelFootprint) -> McpModelJson:
    run: McpRunJson | None = None
    if m.run is not None:
        run = {
            "requests": m.run.requests,
            "scenario_usd": exact(m.run.scenario_usd),
            "with_tools_usd": exact(m.run.with_tools_usd),
            "added_usd": exact(m.run.added_usd),
            "deferred_usd": _exact(m.run.deferred_usd),
            "deferred_added_usd": _exact(m.run.deferred_added_usd),
            "tool_search_source": m.run.tool_search,
        }
    return {
        "model": m.model,
        "model_id": m.model_id,
        "provider": m.provider,
        "approximate": m.approximate,
        "counter": m.counter,
        "prefix_tokens": m.prefix_tokens,
        "definitions_tokens": m.definitions_tokens,
        "request_usd": exact(m.request_usd),
        "cached_request_usd": _exact(m.cached_request_usd),
        "gate_usd": exact(m.gate_usd),
        "run": run,
    }


RENDERERS = (
    McpFootprint,
    Renderers(
        kind="mcp_footprint",
        body=mcp_dict,
        rich=render_mcp_table,
        verbose=lambda r: render_mcp_table(r, verbose=True),
        markdown=render_mcp_markdown,
        csv=render_mcp_csv,
        total=lambda r: max(m.gate_usd for m in r.models),
        chart=None,
        warnings=lambda r: [_unknown_line(s) for s in r.unknown],
    ),
)
