"""ReplayReport -> every output format: Rich tables, Markdown, CSV, JSON fields.

Registered with ``agentcost.render.output`` through ``RENDERERS``; the JSON body is built as
:class:`agentcost.report.replay_json.ReplayJson`, from which its schema is generated. Formatting
only: every figure comes from :mod:`agentcost.replay.trace`. ``--quiet`` prints the replayed total
in dollars.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from decimal import Decimal
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from agentcost.infra.text import CsvWriter, display_name, markdown_code, plain, rich
from agentcost.infra.text import markdown as escape_md
from agentcost.render.fit import SECTION, Col, FitTable
from agentcost.render.output import Renderers
from agentcost.report import fmt
from agentcost.report.fmt import ARROW, exact
from agentcost.report.replay import ReplayReport, ReplayRequest
from agentcost.report.replay_json import GAP_LABELS, PRICED_FROM, REPORTED_KINDS, TOTALS_PRICED_FROM
from agentcost.report.schemagen import one_of

if TYPE_CHECKING:  # the JSON's one definition (report/replay_json.py), also its JSON Schema
    from agentcost.report.replay_json import ReplayJson

HEADERS = ("#", "line", "tool", "in (ours)", "in (reported)", "error", "out (ours)",
           "out (reported)", "result", "priced from", "cost", "running")  # fmt: skip


def _signed_percent(d: Decimal | None) -> str:
    if d is None:
        return "-"
    text = fmt.percent(d, 2)
    return text if text.startswith("-") else "+" + text


def _row(r: ReplayRequest) -> list[str]:
    return [
        str(r.index),
        "-" if r.line is None else str(r.line),
        display_name(r.tool) if r.tool else "-",
        fmt.tokens(r.counted_input),
        fmt.tokens(r.reported_input),
        _signed_percent(r.input_error),
        fmt.tokens(r.counted_output),
        fmt.tokens(r.reported_output),
        fmt.tokens(r.result_tokens),
        "reported, out counted" if r.output_snapshot else r.priced_from,
        fmt.usd(r.cost_usd),
        fmt.usd(r.running_usd),
    ]


def _total_row(report: ReplayReport) -> list[str]:
    t = report.totals
    return [
        "",
        "",
        "total",
        fmt.tokens(t.counted_input),
        fmt.tokens(t.reported_input),
        _signed_percent(t.input_error),
        fmt.tokens(t.counted_output),
        fmt.tokens(t.reported_output),
        "",
        t.priced_from.replace("reported ", ""),
        fmt.usd(t.cost_usd),
        "",
    ]


def _compared(report: ReplayReport, ours: int, theirs: int | None, error: Decimal | None) -> str:
    """Our count beside the figure compared with it, named for what it is (``reported_kind``)."""
    if report.reported_kind == "none":
        return f"ours {fmt.tokens(ours)}; no usage reported to compare with"
    if report.reported_kind == "local_count":
        return (
            f"ours {fmt.tokens(ours)}, the agent's local count {fmt.tokens(theirs)} "
            f"(not API usage; difference {_signed_percent(error)})"
        )
    return f"ours {fmt.tokens(ours)}, reported {fmt.tokens(theirs)} (error {_signed_percent(error)})"


def _gap(report: ReplayReport) -> str:
    """The gap in tokens, with its parts (documents, images... and the rest) when attributed."""
    t = report.totals
    if t.gap is None:
        return "-"
    parts = ", ".join(
        f"{g.what} {g.tokens:,}" + ("" if g.share is None else f" ({fmt.percent(g.share)})")
        for g in t.gap_parts
    )
    return f"{t.gap:,} tokens" + (f": {parts}" if parts else "")


def _summary(report: ReplayReport, show: Callable[[str], str] = plain) -> list[tuple[str, str]]:
    """(what, value) lines below the table; ``show`` writes the names from the log in them."""
    t, p = report.totals, report.prices
    cost = fmt.usd(t.cost_usd)
    reported = None
    if t.reported_cost_usd is not None:
        cost, reported = fmt.usd_pair(t.cost_usd, t.reported_cost_usd)
    rates = f"{fmt.rate(p.input_mtok)} in, {fmt.rate(p.output_mtok)} out"
    share = "not recorded" if report.cached_share is None else fmt.percent(report.cached_share)
    lines = [
        ("log", f"{show(report.path)} ({report.format}, {t.requests} requests)"),
        ("model", f"{show(report.model)} {ARROW} {show(p.model_id)} ({rates})"),
        ("counted with", show(report.counting) + (" (approximate)" if report.approximate else "")),
        ("input tokens", _compared(report, t.counted_input, t.reported_input, t.input_error)),
        ("output tokens", _compared(report, t.counted_output, t.reported_output, t.output_error)),
        (t.gap_label, _gap(report)),
        ("cached share of input", share),
        ("cost", f"{cost} (priced from {t.priced_from})"),
    ]
    if reported is not None:
        lines.append(("cost the agent reported", reported))
    f = report.fit
    if f is not None:
        r2 = "-" if f.r_squared is None else f"{f.r_squared:.4f}"
        lines.append(
            (
                "growth fit B + (i−1)·r",
                f"B = {f.prefix_b:,}, r = {f.growth_r:,.1f} tokens/request ({f.source}); "
                f"max deviation {f.max_abs_deviation:,.1f} tokens, R² {r2}",
            )
        )
    return lines


COLUMNS = (
    Col("#"),
    Col("line", drop=6),
    Col("tool", justify="left", text=True, min_width=8),
    Col("in (ours)"),
    Col("in (reported)", short="in (rep.)"),
    Col("error", drop=1),
    Col("out (ours)", drop=2),
    Col("out (reported)", short="out (rep.)", drop=2),
    Col("result", drop=5),
    Col("priced from", short="priced", justify="left", text=True, min_width=7, drop=4),
    Col("cost"),
    Col("running", drop=3),
)
"""The per-request table: our counts beside the reported ones and the cost are kept at any width;
the log line, result sizes, the price source and the running total are dropped first."""


def render_replay_table(report: ReplayReport) -> RenderableType:
    rows: list[list[str | Text] | None] = [[rich(c) for c in _row(r)] for r in report.requests]
    rows += [SECTION, list(_total_row(report))]
    styles = [None] * (len(rows) - 1) + ["bold"]
    title = rich(f"Replay of {display_name(report.path)}", "table.title")
    table = FitTable(COLUMNS, rows, title=title, row_styles=styles)
    summary = Table(show_header=False, box=None, padding=(0, 2, 0, 0))
    summary.add_column(style="bold", overflow="fold")
    summary.add_column(overflow="fold")
    for k, v in _summary(report):
        summary.add_row(k, rich(v))
    parts: list[RenderableType] = [table, summary]
    if report.tools:
        tools = FitTable(
            (Col("tool", justify="left", text=True), Col("calls"), Col("result tokens"), Col("mean")),
            [
                (rich(display_name(t.tool)), str(t.calls), f"{t.result_tokens:,}", f"{t.mean:,.1f}")
                for t in report.tools
            ],
            title="Result tokens per tool",
        )
        parts.append(tools)
    for name, head, cells in _subtotals(report):
        cols = tuple(Col(h, justify="left", text=True) if i < 2 else Col(h) for i, h in enumerate(head))
        parts.append(FitTable(cols, [[rich(c) for c in row] for row in cells], title=name))
    for w in report.warnings:
        parts.append(rich(f"warning: {w}", "yellow"))
    for n in report.notes:
        parts.append(rich(f"note: {n}", "dim"))
    return Group(*parts)


def _subtotals(report: ReplayReport) -> list[tuple[str, tuple[str, ...], list[list[str]]]]:
    """The subtotal tables: (title, headers, rows) per model and per subagent transcript, when the
    report has them (names from the log as they are; each renderer escapes them)."""
    out: list[tuple[str, tuple[str, ...], list[list[str]]]] = []
    if report.models:
        rows = [
            [display_name(m.model), m.model_id, str(m.requests), fmt.usd(m.cost_usd)] for m in report.models
        ]
        out.append(("Cost per model", ("model", "priced as", "requests", "cost"), rows))
    if report.subagents:
        head = ("transcript", "model", "requests", "in (reported)", "out (reported)", "cost")
        rows = [
            [
                "session (own requests)" if a.agent is None else display_name(a.agent),
                "-" if a.model is None else display_name(a.model),
                str(a.requests),
                fmt.tokens(a.reported_input),
                fmt.tokens(a.reported_output),
                fmt.usd(a.cost_usd),
            ]
            for a in report.subagents
        ]
        out.append(("Subagents folded into the session", head, rows))
    return out


def render_replay_markdown(report: ReplayReport) -> str:
    out = [f"### Replay of {markdown_code(report.path)}", ""]
    out.append("| " + " | ".join(HEADERS) + " |")
    out.append("|" + "|".join("---" if i in (2, 9) else "---:" for i in range(len(HEADERS))) + "|")
    for r in report.requests:
        cells = _row(r)
        cells[2] = escape_md(cells[2])  # the tool; the other cells are figures
        out.append("| " + " | ".join(cells) + " |")
    out.append("| " + " | ".join(f"**{c}**" if c else "" for c in _total_row(report)) + " |")
    out.append("")
    for k, v in _summary(report, escape_md):
        out.append(f"- **{k}**: {v}")
    if report.tools:
        out += ["", "| tool | calls | result tokens | mean |", "|---|---:|---:|---:|"]
        out += [
            f"| {escape_md(display_name(t.tool))} | {t.calls} | {t.result_tokens:,} | {t.mean:,.1f} |"
            for t in report.tools
        ]
    for title, head, rows in _subtotals(report):
        out += ["", f"**{title}**", "", "| " + " | ".join(head) + " |"]
        out.append("|" + "|".join("---" if i < 2 else "---:" for i in range(len(head))) + "|")
        out += ["| " + " | ".join([escape_md(r[0]), escape_md(r[1]), *r[2:]]) + " |" for r in rows]
    if report.warnings or report.notes:
        out.append("")
        out += [f"> **warning**: {escape_md(w)}" for w in report.warnings]
        out += [f"- note: {escape_md(n)}" for n in report.notes]
    return "\n".join(out) + "\n"


CSV_HEADERS = ("index", "line", "tool", "counted_input", "reported_input", "input_error",
               "counted_output", "reported_output", "output_error", "gap", "result_tokens",
               "priced_from", "cost_usd", "running_usd")  # fmt: skip


def _cell(v: object) -> str:
    if v is None:
        return ""
    if isinstance(v, Decimal):
        return exact(v)
    return str(v)


def render_replay_csv(report: ReplayReport) -> str:
    buf = io.StringIO()
    w = CsvWriter(buf)
    w.writerow(CSV_HEADERS)
    for r in report.requests:
        w.writerow(
            _cell(v)
            for v in (
                r.index,
                r.line,
                r.tool,
                r.counted_input,
                r.reported_input,
                r.input_error,
                r.counted_output,
                r.reported_output,
                r.output_error,
                r.gap,
                r.result_tokens,
                r.priced_from,
                r.cost_usd,
                r.running_usd,
            )
        )
    return buf.getvalue()


def _dec(d: Decimal | None) -> str | None:
    return None if d is None else exact(d)


def replay_dict(report: ReplayReport) -> ReplayJson:
    t, p, f = report.totals, report.prices, report.fit
    return {
        "trace": {"path": report.path, "format": report.format, "truncated": report.truncated},
        "model": report.model,
        "model_id": p.model_id,
        "provider": p.provider,
        "counting": report.counting,
        "approximate": report.approximate,
        "reported_kind": one_of(REPORTED_KINDS, report.reported_kind, "reported kind"),
        "requests": [
            {
                "index": r.index,
                "line": r.line,
                "tool": r.tool,
                "counted_input_tokens": r.counted_input,
                "counted_output_tokens": r.counted_output,
                "reported_input_tokens": r.reported_input,
                "reported_output_tokens": r.reported_output,
                "cache_read_tokens": r.cache_read_tokens,
                "cache_write_tokens": r.cache_write_tokens,
                "input_error": _dec(r.input_error),
                "output_error": _dec(r.output_error),
                "gap_tokens": r.gap,
                "result_tokens": r.result_tokens,
                "priced_from": one_of(PRICED_FROM, r.priced_from, "priced from"),
                "cost_usd": exact(r.cost_usd),
                "running_usd": exact(r.running_usd),
                "model": r.model,
                "output_snapshot": r.output_snapshot,
                "agent": r.agent,
            }
            for r in report.requests
        ],
        "totals": {
            "requests": t.requests,
            "counted_input_tokens": t.counted_input,
            "counted_output_tokens": t.counted_output,
            "reported_input_tokens": t.reported_input,
            "reported_output_tokens": t.reported_output,
            "input_error": _dec(t.input_error),
            "output_error": _dec(t.output_error),
            "gap_tokens": t.gap,
            "gap_label": one_of(GAP_LABELS, t.gap_label, "gap label"),
            "gap_parts": [
                {"what": g.what, "tokens": g.tokens, "requests": g.requests, "share": _dec(g.share)}
                for g in t.gap_parts
            ],
            "cache_read_tokens": t.cache_read_tokens,
            "cache_write_tokens": t.cache_write_tokens,
            "priced_from": one_of(TOTALS_PRICED_FROM, t.priced_from, "priced from"),
            "cost_usd": exact(t.cost_usd),
            "reported_cost_usd": _dec(t.reported_cost_usd),
        },
        "tools": [
            {"tool": x.tool, "calls": x.calls, "result_tokens": x.result_tokens, "mean": exact(x.mean)}
            for x in report.tools
        ],
        "cached_share": _dec(report.cached_share),
        "fit": None
        if f is None
        else {
            "source": one_of(PRICED_FROM, f.source, "fit source"),
            "prefix_b": f.prefix_b,
            "growth_r": exact(f.growth_r),
            "max_abs_deviation": exact(f.max_abs_deviation),
            "r_squared": _dec(f.r_squared),
        },
        "models": [
            {"model": m.model, "model_id": m.model_id, "requests": m.requests, "cost_usd": exact(m.cost_usd)}
            for m in report.models
        ],
        "subagents": [
            {
                "agent": a.agent,
                "model": a.model,
                "requests": a.requests,
                "reported_input_tokens": a.reported_input,
                "reported_output_tokens": a.reported_output,
                "cost_usd": exact(a.cost_usd),
            }
            for a in report.subagents
        ],
        "warnings": list(report.warnings),
        "notes": list(report.notes),
    }


RENDERERS = (
    ReplayReport,
    Renderers(
        kind="replay",
        body=replay_dict,
        rich=render_replay_table,
        markdown=render_replay_markdown,
        csv=render_replay_csv,
        total=lambda r: r.totals.cost_usd,
        chart=None,
    ),
)
