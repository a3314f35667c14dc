"""DiffReport as text for people: Rich tables for the terminal, Markdown for a pull request.

Both build on the shared cell text (``1,137 → 1,233 (+96)``, headlines, per-day lines). The CSV and
JSON forms and the registration with ``agentcost.render.output`` are in :mod:`agentcost.render.diff`.
Formatting only: every figure, change and verdict comes from :mod:`agentcost.commands.diff`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from decimal import Decimal

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.text import Text

from agentcost.infra.text import display_name, html, markdown_code, plain, rich
from agentcost.infra.text import markdown as escape_md
from agentcost.render.fit import Col, FitTable
from agentcost.report import fmt
from agentcost.report.diff import Amounts, DiffReport, PerDay, RequestDiff, ScenarioDiff
from agentcost.report.estimate import RequestLine, Totals
from agentcost.report.fmt import ARROW, signed_percent, signed_tokens
from agentcost.report.gates import Gate

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


def _usd_pair(before: Decimal | None, after: Decimal | None) -> tuple[str, str]:
    """Two amounts compared: as many decimals as it takes for different amounts to read differently."""
    if before is None or after is None:
        return fmt.usd(before), fmt.usd(after)
    return fmt.usd_pair(before, after)


def _usd_cell(before: Decimal | None, after: Decimal | None, change: Decimal) -> str:
    shown = _usd_pair(before, after)
    return _pair(
        *shown,
        fmt.signed_usd(change),
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
        display_name(r.label),
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


def _total_percent(report: DiffReport) -> str:
    """The tables' total row's "%": the one total's change when the row's per-run sums are that
    total; "-" when the total is per month (weighted by runs) or per task, or leaves scenarios out,
    so that no second percentage contradicts the headline's."""
    g = report.totals.gated
    if g.unit != "run" or g.added or g.removed:
        return "-"
    return signed_percent(g.change_fraction)


def _scenario_title(s: ScenarioDiff) -> str:
    return f"{display_name(s.path)} ({display_name(s.name)})" if s.name else display_name(s.path)


def _approximate(s: ScenarioDiff) -> bool:
    """Whether this scenario's counts (either side) are approximate: its tables' ``*`` marks."""
    return any(side is not None and side.approximate for side in (s.base, s.head))


def _counts(report: DiffReport) -> str:
    t = report.totals
    parts = [
        f"{n} {word}" for n, word in ((t.changed, "changed"), (t.added, "added"), (t.removed, "removed"))
    ]
    shown = [p for p in parts if not p.startswith("0 ")]
    noun = "scenario" if t.scenarios == 1 else "scenarios"
    return f"{t.scenarios} {noun}" + (": " + ", ".join(shown) if shown else ", no change")


def _headline(report: DiffReport) -> tuple[str, str]:
    """(change, rest): the report's one total, the figure its total gate compares, with its unit:
    ``+$0.0123 per run (+25.3%)`` and ``: $0.0487 → $0.0610 (1 scenario: 1 changed).``; with
    ``runs_per_day``, ``+$2.72 per 30-day month (+1.5%)`` and ``: $187.28 → $190.00 (...)``. When
    added or removed scenarios are left out of it, the rest says which scenarios it sums."""
    g = report.totals.gated
    change = f"{fmt.signed_usd(g.change_usd)} {g.label}"
    if g.change_fraction is not None:
        change += f" ({signed_percent(g.change_fraction)})"
    before, after = fmt.usd_pair(g.before_usd, g.after_usd)
    scope = ""
    if g.added or g.removed:
        noun = "scenario" if g.scenarios == 1 else "scenarios"
        scope = f"; this total: the {g.scenarios} {noun} on both sides"
    return change, f": {before} {ARROW} {after} ({_counts(report)}{scope})."


def _added_removed(report: DiffReport, name: Callable[[str], str] = plain) -> list[str]:
    """One line per added or removed scenario, with its cost per run (and per month): they are not
    in the increase gates unless ``--gate-new-scenarios``. ``name`` shows a path in the format."""
    lines = []
    for s in report.scenarios:
        if s.status not in ("added", "removed"):
            continue
        month = ""
        if s.per_day is not None:
            month = f", {fmt.signed_usd(s.per_day.change_per_month_usd)}/month"
        cost = fmt.signed_usd(s.change.cost_usd)
        lines.append(f"{s.status.capitalize()}: {name(display_name(s.path))}, {cost} per run{month}.")
    return lines


def _per(before: Decimal | None, after: Decimal | None, change: Decimal, unit: str) -> str:
    """``$6.2426/day → $6.5000/day (+$0.2574/day)``: the totals and their change, each labelled."""
    b, a = (f"{x}/{unit}" if x != "-" else x for x in _usd_pair(before, after))
    return f"{b} {ARROW} {a} ({fmt.signed_usd(change)}/{unit})"


def _per_day_lines(per_day: PerDay | None, runs: str = "") -> list[str]:
    """Per day and per 30-day month, before and after, with their changes (from ``runs_per_day``)."""
    if per_day is None:
        return []
    p = per_day
    month = _per(p.before_per_month_usd, p.after_per_month_usd, p.change_per_month_usd, "month")
    return [
        f"Per day{runs}: {_per(p.before_usd, p.after_usd, p.change_usd, 'day')}.",
        f"Per 30-day month: {month}.",
    ]


def _runs_text(per_day: PerDay) -> str:
    """`` (100 runs)``, `` (40 → 60 runs)``: a scenario's ``runs_per_day`` on each side."""
    runs = [fmt.exact(r) for r in (per_day.runs_before, per_day.runs_after) if r is not None]
    if len(runs) == 2 and runs[0] == runs[1]:
        runs = runs[1:]
    return f" ({f' {ARROW} '.join(runs)} runs)" if runs else ""


def _gate_mark(gate: Gate) -> str:
    if not gate.tripped:
        return "✓ ok "
    return "⚠ WARNING " if gate.warning else "✗ FAILED "


def _gate_text(gate: Gate) -> str:
    return f"{gate.name.replace('_', ' ')}: {gate.message}"


def _footer(report: DiffReport) -> str:
    accuracy = "approximate, marked *" if report.approximate else "exact tokenizer"
    return (
        f"Both sides priced with {report.price_sources}, in force on {report.as_of[:10]};"
        f" token counts: {accuracy}; {report.counter_text}."
    )


def _per_month(report: DiffReport) -> bool:
    return report.totals.per_day is not None or any(s.per_day is not None for s in report.scenarios)


# --------------------------------------------------------------------------------------------
# Rich
# --------------------------------------------------------------------------------------------


def render_diff_table(report: DiffReport) -> RenderableType:
    """The summary table, then per changed scenario its input changes and per-request table, then
    gates. Tables are laid out for the width they are printed at (render.fit): the scenario, its
    cost after and the change always shown, token columns dropped first."""
    parts: list[RenderableType] = [_summary_table(report)]
    change, rest = _headline(report)
    lines = [change + rest, *_added_removed(report)]
    parts.append(Text("\n".join(lines)))
    for s in report.changed:
        if s.status == "changed":  # added or removed: one side only, as `agentcost estimate` shows it
            parts.append(Text(""))
            parts.append(_scenario_section(s))
    gates = report.gates
    if gates:
        gate_lines = [_gate_mark(g) + _gate_text(g) for g in gates]
        parts.append(Text("\nGates:\n" + "\n".join(map(plain, gate_lines))))
    tail = [_footer(report), *(f"Warning: {w}" for w in report.warnings)]
    parts.append(Text("\n".join(map(plain, tail))))  # names from files in them: shown escaped
    return Group(*parts)


def _summary_table(report: DiffReport) -> FitTable:
    """A row per scenario: the cost of one run before and after and the change; with
    ``runs_per_day``, the head side's cost per month and its change too."""
    t = report.totals
    several = t.scenarios > 1
    per_month = _per_month(report)
    before, after = fmt.usd_pair(t.before_usd, t.after_usd)
    columns = [
        Col(
            "scenario",
            justify="left",
            text=True,
            footer=f"total ({t.scenarios} scenarios)" if several else "",
        ),
        Col(
            "model",
            justify="left",
            text=True,
            drop=1 if any(ARROW in s.model for s in report.scenarios) else 4,
        ),
        Col("before", drop=2, footer=before),
        Col("after", footer=after),
        Col("change", footer=fmt.signed_usd(t.change.cost_usd)),
        Col("%", drop=3, footer=_total_percent(report)),
    ]
    if per_month:
        p = t.per_day
        columns += [
            Col("per month", drop=2, footer=fmt.usd(None if p is None else p.after_per_month_usd)),
            Col("Δ per month", drop=1, footer="-" if p is None else fmt.signed_usd(p.change_per_month_usd)),
        ]
    rows: list[list[str | Text]] = []
    for s in report.scenarios:
        b, a = _usd_pair(s.before_usd, s.after_usd)
        row: list[str | Text] = [
            rich(display_name(s.path)),
            rich(display_name(s.model)),
            b,
            a,
            fmt.signed_usd(s.change.cost_usd),
            _percent_cell(s),
        ]
        if per_month:
            p = s.per_day
            row.append(fmt.usd(None if p is None else p.after_per_month_usd))
            row.append("-" if p is None else fmt.signed_usd(p.change_per_month_usd))
        rows.append(row)
    title = rich(f"agentcost diff: {report.base_label} {ARROW} {report.head_label}", "table.title")
    return FitTable(columns, rows, title=title, show_footer=several)


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

    b, a = _usd_pair(None if before is None else before.cost_usd, None if after is None else after.cost_usd)
    return [
        index,
        label,
        value(after, "input_tokens"),
        _delta(change.input_tokens),
        value(after, "cache_read_tokens"),
        _delta(change.cache_read_tokens),
        value(after, "output_tokens"),
        _delta(change.output_tokens),
        b,
        a,
        fmt.signed_usd(change.cost_usd),
    ]


def _scenario_section(s: ScenarioDiff) -> RenderableType:
    mark = "*" if _approximate(s) else ""
    heading = Text(plain(f"{_scenario_title(s)}: {s.status}"))
    lines = [c.text for c in s.inputs]
    if s.per_day is not None:
        lines += _per_day_lines(s.per_day, _runs_text(s.per_day))
    # indented by two, wrapped lines too (names from files in them: one line each, shown escaped)
    details = Padding(Text("\n".join(map(plain, lines))), (0, 0, 0, 2), expand=False)
    footers = _wide_cells(
        "",
        "total",
        s.base.totals if s.base is not None else None,
        s.head.totals if s.head is not None else None,
        s.change,
    )
    # Token columns are dropped before dollars; those of a measure that changed last.
    c = s.change
    measures = sorted(
        ("input", "output", "cached"),
        key=lambda m: (
            not {"input": c.input_tokens, "output": c.output_tokens, "cached": c.cache_read_tokens}[m]
        ),
    )
    rank = {m: 2 + 2 * k for k, m in enumerate(measures)}  # a value goes before its change
    names = [
        Col("#"),
        Col("model did", justify="left", text=True, min_width=10),
        Col(f"input{mark}", drop=rank["input"] + 1),
        Col("Δ input", drop=rank["input"]),
        Col("cached", drop=rank["cached"] + 1),
        Col("Δ cached", drop=rank["cached"]),
        Col(f"output{mark}", drop=rank["output"] + 1),
        Col("Δ output", drop=rank["output"]),
        Col("$ before", drop=1),
        Col("$ after"),
        Col("Δ $"),
    ]
    columns = [replace(c, footer=f) for c, f in zip(names, footers, strict=True)]
    rows = [
        _wide_cells(str(r.index), rich(display_name(r.label)), r.before, r.after, r.change)
        for r in s.requests
    ]
    # A Δ column with no change in any request is left out: it would be blank.
    keep = [
        k
        for k, c in enumerate(columns)
        if not c.header.startswith("Δ ") or c.header == "Δ $" or any(row[k] for row in rows)
    ]
    table = FitTable([columns[k] for k in keep], [[row[k] for k in keep] for row in rows], show_footer=True)
    return Group(heading, details, table) if lines else Group(heading, table)


# --------------------------------------------------------------------------------------------
# Markdown
# --------------------------------------------------------------------------------------------


def _md_row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def render_diff_markdown(report: DiffReport) -> str:
    """Compact enough for a pull-request comment: headline, summary table, what changed, per-request
    details folded in ``<details>``, gate verdicts."""
    t = report.totals
    change, rest = _headline(report)
    lines = [
        f"#### agentcost diff: {markdown_code(report.base_label)} {ARROW} {markdown_code(report.head_label)}",
        "",
        f"**{change}**{rest}",
    ]
    if t.added or t.removed:  # on their own lines: not in the increase gates by default
        lines += ["", *(f"- {line}" for line in _added_removed(report, markdown_code))]
    per_month = _per_month(report)
    header = ["scenario", "model", "before", "after", "change", "%"] + (["per month"] if per_month else [])
    lines += ["", _md_row(header), "|---|---|" + "--:|" * (len(header) - 2)]
    for s in report.scenarios:
        change = fmt.signed_usd(s.change.cost_usd)
        cells = [
            markdown_code(s.path, table=True),
            escape_md(s.model),
            *_usd_pair(s.before_usd, s.after_usd),
            f"**{change}**" if s.status != "unchanged" else change,
            _percent_cell(s),
        ]
        if per_month:
            cells.append(_md_month(s.per_day))
        lines.append(_md_row(cells))
    if t.scenarios > 1:
        cells = [
            "**total**",
            "",
            *fmt.usd_pair(t.before_usd, t.after_usd),
            f"**{fmt.signed_usd(t.change.cost_usd)}**",
            _total_percent(report),
        ]
        if per_month:
            cells.append(_md_month(t.per_day))
        lines.append(_md_row(cells))
    changed_inputs = [s for s in report.scenarios if s.inputs]
    if changed_inputs:
        lines += ["", "**What changed in the inputs**", ""]
        for s in changed_inputs:
            lines.append(f"- {markdown_code(s.path)}: " + "; ".join(escape_md(c.text) for c in s.inputs))
    for s in report.changed:
        if s.status != "changed":  # added or removed: one side only, as `agentcost estimate` shows it
            continue
        mark = "\\*" if _approximate(s) else ""  # this scenario's counts, not another one's
        lines += [
            "",
            f"<details><summary>Per request: <code>{html(display_name(s.path))}</code>"
            f" ({s.status})</summary>",
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
    lines += _md_gates(report.gates)
    accuracy = "approximate (\\*)" if report.approximate else "exact tokenizer"
    lines += [
        "",
        f"<sub>Both sides priced with {escape_md(report.price_sources)}, in force on"
        f" {report.as_of[:10]}; token counts: {accuracy}; {escape_md(report.counter_text)}.</sub>",
    ]
    for w in report.warnings:
        lines.append(f"> [!WARNING]\n> {escape_md(w)}")
    return "\n".join(lines) + "\n"


def _md_month(per_day: PerDay | None) -> str:
    """The cost per 30-day month before and after, with its change: ``$187.28 → $190.00 (+$2.72)``."""
    if per_day is None:
        return "-"
    return _usd_cell(per_day.before_per_month_usd, per_day.after_per_month_usd, per_day.change_per_month_usd)


def _md_gates(gates: tuple[Gate, ...]) -> list[str]:
    """Tripped gates in full; the ones that passed folded away (a project has two per scenario)."""
    if not gates:
        return []
    tripped = [g for g in gates if g.tripped and not g.warning]
    warned = [g for g in gates if g.tripped and g.warning]  # --warn-increase: reported, exit 0
    passed = [g for g in gates if not g.tripped]
    warnings = f"{len(warned)} warning{'' if len(warned) == 1 else 's'}"
    if tripped:
        also = f", ⚠️ {warnings}" if warned else ""
        lines = ["", f"**Gates: ❌ {len(tripped)} of {len(gates)} failed{also}**", ""]
        lines += ["- ❌ " + escape_md(_gate_text(g)) for g in tripped]
    elif warned:
        lines = ["", f"**Gates: ⚠️ {warnings}, none failed**", ""]
    else:
        lines = ["", f"**Gates: ✅ all {len(gates)} passed**"]
    lines += ["- ⚠️ " + escape_md(_gate_text(g)) for g in warned]
    if passed:
        lines += ["", f"<details><summary>✅ {len(passed)} passed</summary>", ""]
        lines += ["- ✅ " + escape_md(_gate_text(g)) for g in passed]
        lines += ["", "</details>"]
    return lines
