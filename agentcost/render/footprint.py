"""The per-tool footprint section of ``agentcost estimate --explain`` (:mod:`agentcost.loop.footprint`):
a table of the tool definitions by dollars (the top ones; every one with ``--verbose`` and in JSON),
the request's tool prefix split into the definitions and the rest, and the active-set check.

A :class:`FootprintReport` is an explained report (``ExplainedReport``) plus its
:class:`~agentcost.loop.footprint.Footprint`: its JSON is the explained report's with a
``tool_footprint`` object. No arithmetic here: every figure is a field of the footprint.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from rich.console import Group, RenderableType
from rich.text import Text

from agentcost.infra.text import markdown, markdown_code, plain, rich
from agentcost.render.fit import Cell, Col, FitTable
from agentcost.render.output import renderers_for, with_section
from agentcost.report import fmt
from agentcost.report.sections import Footprint, FootprintReport, ToolFootprint

if TYPE_CHECKING:  # the JSON's one definition (report/sections_json.py), also its JSON Schema
    from agentcost.report.sections_json import ToolFootprintJson

TOP_TOOLS = 10
"""Tools the terminal and Markdown tables show, most dollars first (``--verbose`` and JSON: all)."""

USD_METHOD = (
    "the run priced again with every tool definition removed from the tool prefix (calls and results "
    "kept): the difference is definitions_usd, shared among the tools by their tokens over the run"
)


# --- text shared by the formats ----------------------------------------------------------------------


def title_text(fp: Footprint) -> str:
    """The table's title: what its dollars are a share of."""
    return f"Tool definitions, most $ first ($ share: of the {fmt.usd(fp.definitions_usd)} they cost)"


def prefix_line(fp: Footprint) -> str:
    """``request 1: 3,267 tool-prefix tokens = 3,255 in 40 definitions + 12 in no single tool (...)``."""
    n = len(fp.tools)
    defs = f"{n} definition{'' if n == 1 else 's'}"
    sent = f"sent in {fp.requests} request{'' if fp.requests == 1 else 's'}"
    if fp.residual_tokens == 0:
        return f"request 1: {fmt.tokens(fp.prefix_tokens)} tool-prefix tokens, all in the {defs}; {sent}"
    return (
        f"request 1: {fmt.tokens(fp.prefix_tokens)} tool-prefix tokens = {fmt.tokens(fp.tools_tokens)} "
        f"in {defs} + {fmt.tokens(fp.residual_tokens)} in no single tool ({fp.residual_parts}); {sent}"
    )


def dollars_line(fp: Footprint) -> str:
    return (
        f"the definitions cost {fmt.usd(fp.definitions_usd)} over the run "
        f"({fmt.usd(fp.run_usd)} with them, {fmt.usd(fp.without_usd)} re-estimated without them); "
        "each tool's $ is its share by tokens over the run"
    )


def active_line(fp: Footprint, show: Callable[[str], str] = plain) -> str | None:
    """The flag when the active tools exceed the maker's advice (None: within it, or no advice)."""
    a = fp.active
    if a is None or not a.exceeded:
        return None
    g = a.guidance
    return (
        f"{a.active} active tools in every request, more than the model maker's function-calling "
        f"guide advises ({show(g.value.advice)}; {show(g.cite)}): trim the list (include/exclude "
        "on a tools file) or defer tools where the model has tool search"
    )


def _rows(tools: tuple[ToolFootprint, ...], show: Callable[[str], str]) -> list[list[str]]:
    usd = fmt.usd_series([t.usd for t in tools])
    return [
        [
            show(t.name) + (" (deferred)" if t.deferred else ""),
            fmt.tokens(t.tokens),
            fmt.tokens(t.run_tokens),
            str(t.calls),
            fmt.tokens(t.result_tokens),
            cost,
        ]
        for t, cost in zip(tools, usd, strict=True)
    ]


def _more(fp: Footprint, shown: int, where: str = "with --verbose and in JSON") -> str | None:
    rest = len(fp.tools) - shown
    return None if rest <= 0 else f"and {rest} more (all of them {where})"


# --- renderers ---------------------------------------------------------------------------------------


def _rich(fp: Footprint, top: int | None = TOP_TOOLS) -> RenderableType:
    tools = fp.tools if top is None else fp.tools[:top]
    rows: list[list[Cell]] = [[rich(c) if i == 0 else c for i, c in enumerate(r)] for r in _rows(tools, str)]
    table = FitTable(
        [
            Col("tool", justify="left", text=True),
            Col("tok/request"),
            Col("tok/run", drop=2),
            Col("calls", drop=3),
            Col("results", drop=1),
            Col("$ share"),
        ],
        rows,
        title=Text(title_text(fp), style="table.title"),
    )
    parts: list[RenderableType] = [table]
    more = _more(fp, len(tools))
    if more:
        parts.append(Text(more))
    parts += [rich(prefix_line(fp)), rich(dollars_line(fp))]
    flag = active_line(fp)
    if flag:
        parts.append(rich("Warning: " + flag, "yellow"))
    return Group(*parts)


def render_footprint_markdown(fp: Footprint) -> str:
    lines = [f"##### {markdown(title_text(fp))}", ""]
    header = ["tool", "tokens/request", "tokens/run", "calls", "result tokens", "$ share"]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|---|" + "---:|" * (len(header) - 1))
    shown = fp.tools[:TOP_TOOLS]
    code: Callable[[str], str] = lambda s: markdown_code(s, table=True)  # noqa: E731
    lines += ["| " + " | ".join(r) + " |" for r in _rows(shown, code)]
    lines.append("")
    more = _more(fp, len(shown), "in --format json")
    if more:
        lines += [markdown(more), ""]
    lines += [f"- {markdown(prefix_line(fp))}", f"- {markdown(dollars_line(fp))}"]
    flag = active_line(fp, markdown)
    if flag:
        lines.append(f"- **Warning**: {flag}")
    return "\n".join(lines) + "\n"


def footprint_dict(fp: Footprint) -> ToolFootprintJson:
    a = fp.active
    return {
        "request_1": {
            "tool_prefix_tokens": fp.prefix_tokens,
            "tools_tokens": fp.tools_tokens,
            "residual_tokens": fp.residual_tokens,
            "residual": fp.residual_parts,
        },
        "requests": fp.requests,
        "run_usd": fmt.exact(fp.run_usd),
        "without_definitions_usd": fmt.exact(fp.without_usd),
        "definitions_usd": fmt.exact(fp.definitions_usd),
        "usd_method": USD_METHOD,
        "active_tools": None
        if a is None
        else {
            "active": a.active,
            "max_active": a.guidance.value.max_active,
            "advice": a.guidance.value.advice,
            "exceeded": a.exceeded,
            "url": a.guidance.url,
            "read": a.guidance.read.isoformat(),
            "note": a.guidance.note,
        },
        "tools": [
            {
                "name": t.name,
                "tokens_per_request": t.tokens,
                "deferred": t.deferred,
                "requests": t.requests,
                "run_tokens": t.run_tokens,
                "calls": t.calls,
                "result_tokens": t.result_tokens,
                "usd_share": fmt.exact(t.usd),
            }
            for t in fp.tools
        ],
    }


def _renderers() -> tuple[type, Any]:
    base = with_section(
        lambda r: r.report,
        "tool_footprint",
        lambda r: r.footprint,
        lambda x: dict(footprint_dict(x)),
        _rich,
        render_footprint_markdown,
    )

    def verbose(report: FootprintReport) -> RenderableType:  # every tool, not the top ones
        inner = renderers_for(report.report)
        own = inner.verbose or inner.rich
        return Group(own(report.report), Text(""), _rich(report.footprint, top=None))

    return FootprintReport, replace(base, verbose=verbose)


RENDERERS = _renderers()
