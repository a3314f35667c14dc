"""DiffReport as text for people: Rich tables for the terminal, Markdown for a pull request.

Both build on the shared cell text (``1,137 → 1,233 (+96)``, headlines, per-day lines). The CSV and
JSON forms and the registration with ``agentcost.render.output`` are in :mod:`agentcost.render.diff`.
Formatting only: every figure, change and verdict comes from :mod:`agentcost.commands.diff`.
"""

from __future__ import annotations

from decimal import Decimal

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from agentcost.commands.diff import (
    Amounts,
    DiffReport,
    PerDay,
    RequestDiff,
    ScenarioDiff,
    diff_gates,
    signed_percent,
    signed_tokens,
    signed_usd,
)
from agentcost.infra.text import html, markdown_code, plain, rich
from agentcost.infra.text import markdown as escape_md
from agentcost.report import fmt
from agentcost.report.estimate import RequestLine, Totals
from agentcost.report.gates import Gate

ARROW = "→"

# --------------------------------------------------------------------------------------------
# Shared cell text
# --------------------------------------------------------------------------------------------


def _pair(
    before: str, after: str, change: str, *, same: bool, before_missing: bool, after_missing: bool
) -> str:
    """``1,137 → 1,233 (+96)``; just the value when it did not change; ``- → 1,233`` for a new side."""
    if before_missing or after_missing:
        return f"{before} {ARROW} {after}"
    if same:
        return after
    return f"{before} {ARROW} {after} ({change})"


def _tokens_cell(before: int | None, after: int | None, change: int) -> str:
    return _pair(
        fmt.tokens(before),
        fmt.tokens(after),
        signed_tokens(change),
        same=before == after,
        before_missing=before is None,
        after_missing=after is None,
    )


def _change_usd(d: Decimal) -> str:
    """A change in dollars: 4 places, or 6 where 4 would show a real change as $0.0000."""
    return signed_usd(d, 6 if d and abs(d) < Decimal("0.00005") else 4)


def _usd_cell(before: Decimal | None, after: Decimal | None, change: Decimal) -> str:
    return _pair(
        fmt.usd(before),
        fmt.usd(after),
        _change_usd(change),
        same=before == after,
        before_missing=before is None,
        after_missing=after is None,
    )


def _line_value(line: RequestLine | None, attr: str) -> int | None:
    return None if line is None else int(getattr(line, attr))


def _request_cells(r: RequestDiff) -> list[str]:
    c = r.change
    return [
        str(r.index),
        r.label.replace("->", ARROW),
        _tokens_cell(
            _line_value(r.before, "input_tokens"), _line_value(r.after, "input_tokens"), c.input_tokens
        ),
        _tokens_cell(
            _line_value(r.before, "cache_read_tokens"),
            _line_value(r.after, "cache_read_tokens"),
            c.cache_read_tokens,
        ),
        _tokens_cell(
            _line_value(r.before, "output_tokens"), _line_value(r.after, "output_tokens"), c.output_tokens
        ),
        _usd_cell(
            r.before.cost_usd if r.before is not None else None,
            r.after.cost_usd if r.after is not None else None,
            c.cost_usd,
        ),
    ]


def _totals_cells(s: ScenarioDiff) -> list[str]:
    b = s.base.totals if s.base is not None else None
    a = s.head.totals if s.head is not None else None
    c = s.change
    return [
        "",
        "total",
        _tokens_cell(b.input_tokens if b else None, a.input_tokens if a else None, c.input_tokens),
        _tokens_cell(
            b.cache_read_tokens if b else None, a.cache_read_tokens if a else None, c.cache_read_tokens
        ),
        _tokens_cell(b.output_tokens if b else None, a.output_tokens if a else None, c.output_tokens),
        _usd_cell(s.before_usd, s.after_usd, c.cost_usd),
    ]


def _percent_cell(s: ScenarioDiff) -> str:
    if s.status in ("added", "removed"):
        return s.status
    return signed_percent(s.change_fraction)


def _scenario_title(s: ScenarioDiff) -> str:
    return f"{s.path} ({s.name})" if s.name else s.path


def _counts(report: DiffReport) -> str:
    t = report.totals
    parts = [
        f"{n} {word}" for n, word in ((t.changed, "changed"), (t.added, "added"), (t.removed, "removed"))
    ]
    shown = [p for p in parts if not p.startswith("0 ")]
    noun = "scenario" if t.scenarios == 1 else "scenarios"
    return f"{t.scenarios} {noun}" + (": " + ", ".join(shown) if shown else ", no change")


def _headline(report: DiffReport) -> tuple[str, str]:
    """(change, rest): ``+$0.0123 (+25.3%)`` and `` per run: $0.0487 → $0.0610 (1 scenario: 1 changed)``."""
    t = report.totals
    change = _change_usd(t.change.cost_usd)
    if t.change_fraction is not None:
        change += f" ({signed_percent(t.change_fraction)})"
    rest = f" per run: {fmt.usd(t.before_usd)} {ARROW} {fmt.usd(t.after_usd)} ({_counts(report)})."
    return change, rest


def _per_day_text(per_day: PerDay | None) -> str | None:
    if per_day is None:
        return None
    return (
        f"Per day: {fmt.usd(per_day.before_usd, 2)} {ARROW} {fmt.usd(per_day.after_usd, 2)}"
        f" ({signed_usd(per_day.change_usd, 2)});"
        f" per 30-day month: {signed_usd(per_day.change_per_month_usd, 2)}."
    )


def _gate_text(gate: Gate) -> str:
    return f"{gate.name.replace('_', ' ')}: {gate.message}"


def _footer(report: DiffReport) -> str:
    accuracy = "approximate, marked *" if report.approximate else "exact tokenizer"
    return f"Both sides priced with {report.price_label} as of {report.as_of}; token counts: {accuracy}."


# --------------------------------------------------------------------------------------------
# Rich
# --------------------------------------------------------------------------------------------


def render_diff_table(report: DiffReport) -> RenderableType:
    """The summary table, then per changed scenario its input changes and per-request table, then gates."""
    parts: list[RenderableType] = [_summary_table(report)]
    change, rest = _headline(report)
    lines = [change + rest]
    per_day = _per_day_text(report.totals.per_day)
    if per_day:
        lines.append(per_day)
    parts.append(Text("\n".join(lines)))
    for s in report.changed:
        if s.status == "changed":  # added or removed: one side only, as `agentcost estimate` shows it
            parts.append(Text(""))
            parts.append(_scenario_section(report, s))
    gates = diff_gates(report)
    if gates:
        gate_lines = [("✗ FAILED " if g.tripped else "✓ ok ") + _gate_text(g) for g in gates]
        parts.append(Text("\nGates:\n" + "\n".join(map(plain, gate_lines))))
    tail = [_footer(report), *(f"Warning: {w}" for w in report.warnings)]
    parts.append(Text("\n".join(map(plain, tail))))  # names from files in them: shown escaped
    return Group(*parts)


def _summary_table(report: DiffReport) -> Table:
    t = report.totals
    several = t.scenarios > 1
    per_month = t.per_day is not None or any(s.per_day is not None for s in report.scenarios)
    table = Table(
        title=rich(f"agentcost diff: {report.base_label} {ARROW} {report.head_label}", "table.title"),
        title_justify="left",
        show_footer=several,
        header_style="bold",
    )
    table.add_column("scenario", footer=f"total ({t.scenarios} scenarios)" if several else "")
    table.add_column("model")
    table.add_column("before", justify="right", footer=fmt.usd(t.before_usd))
    table.add_column("after", justify="right", footer=fmt.usd(t.after_usd))
    table.add_column("change", justify="right", footer=_change_usd(t.change.cost_usd))
    table.add_column("%", justify="right", footer=signed_percent(t.change_fraction))
    if per_month:
        footer = signed_usd(t.per_day.change_per_month_usd, 2) if t.per_day is not None else "-"
        table.add_column("per month", justify="right", footer=footer)
    for s in report.scenarios:
        row: list[str | Text] = [
            rich(s.path),
            rich(s.model.replace("->", ARROW)),
            fmt.usd(s.before_usd),
            fmt.usd(s.after_usd),
            _change_usd(s.change.cost_usd),
            _percent_cell(s),
        ]
        if per_month:
            row.append(signed_usd(s.per_day.change_per_month_usd, 2) if s.per_day is not None else "-")
        table.add_row(*row)
    return table


def _delta(n: int) -> str:
    return signed_tokens(n) if n else ""


def _wide_cells(
    index: str,
    label: str | Text,
    before: RequestLine | Totals | None,
    after: RequestLine | Totals | None,
    change: Amounts,
) -> list[str | Text]:
    """Rich's per-request row: the head side's value beside each change (blank when none), and the
    cost before and after."""

    def value(side: RequestLine | Totals | None, attr: str) -> str:
        return "-" if side is None else fmt.tokens(int(getattr(side, attr)))

    return [
        index,
        label,
        value(after, "input_tokens"),
        _delta(change.input_tokens),
        value(after, "cache_read_tokens"),
        _delta(change.cache_read_tokens),
        value(after, "output_tokens"),
        _delta(change.output_tokens),
        fmt.usd(None if before is None else before.cost_usd),
        fmt.usd(None if after is None else after.cost_usd),
        _change_usd(change.cost_usd),
    ]


def _scenario_section(report: DiffReport, s: ScenarioDiff) -> RenderableType:
    mark = "*" if report.approximate else ""
    heading = f"{_scenario_title(s)}: {s.status}"
    lines = [heading, *(f"  {c.text}" for c in s.inputs)]
    table = Table(header_style="bold", show_footer=True)
    names = [
        "#",
        "model did",
        f"input{mark}",
        "Δ",
        "cached",
        "Δ",
        f"output{mark}",
        "Δ",
        "$ before",
        "$ after",
        "Δ $",
    ]
    footers = _wide_cells(
        "",
        "total",
        s.base.totals if s.base is not None else None,
        s.head.totals if s.head is not None else None,
        s.change,
    )
    for name, footer in zip(names, footers, strict=True):
        if name == "model did":
            table.add_column(name, footer=footer)
        else:
            table.add_column(name, justify="right", footer=footer, no_wrap=True)
    for r in s.requests:
        label = rich(r.label.replace("->", ARROW))
        table.add_row(*_wide_cells(str(r.index), label, r.before, r.after, r.change))
    return Group(Text("\n".join(map(plain, lines))), table)


# --------------------------------------------------------------------------------------------
# Markdown
# --------------------------------------------------------------------------------------------


def _md_row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def render_diff_markdown(report: DiffReport) -> str:
    """Compact enough for a pull-request comment: headline, summary table, what changed, per-request
    details folded in ``<details>``, gate verdicts."""
    t = report.totals
    mark = "\\*" if report.approximate else ""
    change, rest = _headline(report)
    lines = [
        f"#### agentcost diff: {markdown_code(report.base_label)} {ARROW} {markdown_code(report.head_label)}",
        "",
        f"**{change}**{rest}",
    ]
    per_day = _per_day_text(t.per_day)
    if per_day:
        lines.append(per_day)
    per_month = t.per_day is not None or any(s.per_day is not None for s in report.scenarios)
    header = ["scenario", "model", "before", "after", "change", "%"] + (["per month"] if per_month else [])
    lines += ["", _md_row(header), "|---|---|" + "--:|" * (len(header) - 2)]
    for s in report.scenarios:
        cells = [
            markdown_code(s.path, table=True),
            escape_md(s.model.replace("->", ARROW)),
            fmt.usd(s.before_usd),
            fmt.usd(s.after_usd),
            f"**{_change_usd(s.change.cost_usd)}**"
            if s.status != "unchanged"
            else _change_usd(s.change.cost_usd),
            _percent_cell(s),
        ]
        if per_month:
            cells.append(signed_usd(s.per_day.change_per_month_usd, 2) if s.per_day is not None else "-")
        lines.append(_md_row(cells))
    if t.scenarios > 1:
        cells = [
            "**total**",
            "",
            fmt.usd(t.before_usd),
            fmt.usd(t.after_usd),
            f"**{_change_usd(t.change.cost_usd)}**",
            signed_percent(t.change_fraction),
        ]
        if per_month:
            cells.append(signed_usd(t.per_day.change_per_month_usd, 2) if t.per_day is not None else "-")
        lines.append(_md_row(cells))
    changed_inputs = [s for s in report.scenarios if s.inputs]
    if changed_inputs:
        lines += ["", "**What changed in the inputs**", ""]
        for s in changed_inputs:
            lines.append(f"- {markdown_code(s.path)}: " + "; ".join(escape_md(c.text) for c in s.inputs))
    for s in report.changed:
        if s.status != "changed":  # added or removed: one side only, as `agentcost estimate` shows it
            continue
        lines += [
            "",
            f"<details><summary>Per request: <code>{html(s.path)}</code> ({s.status})</summary>",
            "",
            _md_row(["#", "model did", f"input{mark}", "cache read", f"output{mark}", "cost"]),
            "|--:|---|--:|--:|--:|--:|",
        ]
        for r in s.requests:
            cells = _request_cells(r)
            cells[1] = escape_md(cells[1])  # the tools it called; the other cells are figures
            lines.append(_md_row(cells))
        total = _totals_cells(s)
        total[1] = "**total**"
        lines.append(_md_row(total))
        lines += ["", "</details>"]
    lines += _md_gates(diff_gates(report))
    accuracy = "approximate (\\*)" if report.approximate else "exact tokenizer"
    lines += [
        "",
        f"<sub>Both sides priced with {escape_md(report.price_label)} as of"
        f" {report.as_of[:10]}; token counts: {accuracy}.</sub>",
    ]
    for w in report.warnings:
        lines.append(f"> [!WARNING]\n> {escape_md(w)}")
    return "\n".join(lines) + "\n"


def _md_gates(gates: tuple[Gate, ...]) -> list[str]:
    """Tripped gates in full; the ones that passed folded away (a project has two per scenario)."""
    if not gates:
        return []
    tripped = [g for g in gates if g.tripped]
    passed = [g for g in gates if not g.tripped]
    if tripped:
        lines = ["", f"**Gates: ❌ {len(tripped)} of {len(gates)} failed**", ""]
        lines += ["- ❌ " + escape_md(_gate_text(g)) for g in tripped]
    else:
        lines = ["", f"**Gates: ✅ all {len(gates)} passed**"]
    if passed:
        lines += ["", f"<details><summary>✅ {len(passed)} passed</summary>", ""]
        lines += ["- ✅ " + escape_md(_gate_text(g)) for g in passed]
        lines += ["", "</details>"]
    return lines
