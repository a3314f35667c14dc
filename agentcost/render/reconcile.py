"""Reconciliation -> tables laid out at the terminal's width (60 columns and up), JSON, Markdown, CSV.

Every figure comes from :mod:`agentcost.commands.reconcile`; unknown amounts show as ``-``, never $0.
The JSON is built as :class:`agentcost.report.reconcile_json.ReconcileJson`, from which its published
schema is generated.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from decimal import Decimal
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.text import Text

from agentcost.infra.text import CsvWriter, plain, rich
from agentcost.infra.text import markdown as escape_md
from agentcost.render.fit import SECTION, Cell, Col, FitTable
from agentcost.report import fmt
from agentcost.report.fmt import ARROW, exact
from agentcost.report.reconcile import Day, Reconciliation, Row
from agentcost.report.reconcile_json import (
    ACTUAL_SOURCES,
    DAY_STATUSES,
    EXPORT_KINDS,
    EXPORT_PROVIDERS,
    ROW_STATUSES,
)
from agentcost.report.reconcile_project import ProjectComparison
from agentcost.report.schemagen import one_of

if TYPE_CHECKING:  # the JSON's one definition (report/reconcile_json.py), also its JSON Schema
    from agentcost.report.reconcile_json import (
        ProjectComparisonJson,
        ReconcileDayJson,
        ReconcileJson,
        ReconcileRowJson,
    )

WIDTH = 80
"""The width of :func:`render_text` when none is given (the CLI prints at the terminal's width)."""


def _signed(d: Decimal | None) -> str:
    return "-" if d is None else fmt.signed_usd(d)


def _exact(d: Decimal | None) -> str | None:
    return None if d is None else exact(d)


def headline(r: Reconciliation) -> list[str]:
    """The answer first: the reconciled difference, then what it is made of."""
    lines: list[str] = []
    if r.difference_usd is None:
        lines.append(f"agentcost prices the exported usage at {fmt.usd(r.agentcost_usd)}")
        lines.append("(no cost export given: nothing to reconcile against)")
    else:
        lines.append(f"Reconciled difference: {_signed(r.difference_usd)} (export minus agentcost)")
        lines.append(f"export {fmt.usd(r.export_usd)}, agentcost {fmt.usd(r.compared_agentcost_usd)}")
        if r.excluded_usd:
            lines.append(
                f"left out: {fmt.usd(r.excluded_usd)} of the export, for usage agentcost cannot price"
            )
    period = r.period
    if period is not None:
        unknown = f", {r.unknown_rows} unknown (left out)" if r.unknown_rows else ""
        span = period[0].isoformat() if period[0] == period[1] else f"{period[0]} {ARROW} {period[1]}"
        lines.append(f"{span}: {len(r.days)} provider day(s), {len(r.rows)} model row(s){unknown}")
    return lines


def _money_columns(first: str) -> list[Col]:
    """A table grouped by day (a heading row each): ``first``, agentcost, export, difference, status
    (the status dropped first on a narrow terminal: the details below the table name it too)."""
    return [
        Col(first, justify="left", text=True, min_width=9),
        Col("agentcost"),
        Col("export"),
        Col("difference", short="diff"),
        Col("status", justify="left", text=True, min_width=6, drop=1),
    ]


def _by_day(days: Sequence[tuple[str, list[Cell]]], width: int) -> list[list[Cell] | None]:
    """Rows under a heading row per day (its date in the first column), a section line between days."""
    rows: list[list[Cell] | None] = []
    current: str | None = None
    for day, cells in days:
        if day != current:
            if current is not None:
                rows.append(SECTION)
            current = day
            rows.append([rich(day, "bold"), *[""] * (width - 1)])
        rows.append(cells)
    return rows


def _day_table(r: Reconciliation) -> FitTable:
    cells: list[tuple[str, list[Cell]]] = [
        (
            d.day.isoformat(),
            [
                rich(d.provider),
                fmt.usd(d.agentcost_usd),
                fmt.usd(d.export_usd),
                _signed(d.difference_usd),
                rich(d.status),
            ],
        )
        for d in r.days
    ]
    return FitTable(_money_columns("provider"), _by_day(cells, 5))


def _row_table(r: Reconciliation) -> FitTable:
    cells: list[tuple[str, list[Cell]]] = [
        (
            row.day.isoformat(),
            [
                rich(row.model),
                fmt.usd(row.tokens_usd),
                fmt.usd(row.export_usd),
                _signed(row.difference_usd),
                rich(row.status),
            ],
        )
        for row in r.rows
    ]
    return FitTable(_money_columns("model"), _by_day(cells, 5))


def _row_details(row: Row) -> list[str]:
    """What a model row is made of (its tiers and tokens) and why it differs, under the table."""
    tokens = (
        f"in {fmt.tokens(row.input_tokens)}, cache read {fmt.tokens(row.cache_read_tokens)},"
        f" write 5m {fmt.tokens(row.cache_write_5m_tokens)}, 1h {fmt.tokens(row.cache_write_1h_tokens)},"
        f" out {fmt.tokens(row.output_tokens)}"
    )
    if row.web_searches:
        tokens += f", {fmt.tokens(row.web_searches)} web searches ({fmt.usd(row.fees_usd)})"
    usage = f"{row.provider}, {', '.join(row.tiers)}: {tokens}" if row.tiers else "no usage"
    head = f"{row.day.isoformat()} {plain(row.model)} ({row.status}): {usage}"
    return [head, *(f"  - {reason}" for reason in row.reasons)]


def _project_table(p: ProjectComparison) -> FitTable:
    columns = [
        Col("day", justify="left"),
        Col("actual"),
        Col("source", justify="left", text=True, min_width=6, drop=1),
        Col("estimate"),
        Col("difference", short="diff"),
        Col("ratio", drop=2),
    ]
    rows: list[list[Cell] | None] = [
        [
            d.day.isoformat(),
            fmt.usd(d.actual_usd),
            rich(d.source),
            fmt.usd(d.estimate_usd),
            _signed(d.difference_usd),
            fmt.ratio(d.ratio),
        ]
        for d in p.days
    ]
    return FitTable(columns, rows)


def _project_title(p: ProjectComparison) -> str:
    how = "its runs_per_day" if p.runs_per_day is None else f"{p.runs_per_day} runs a day"
    return f"Project estimate ({p.path}, {how}): {fmt.usd(p.estimate_per_day_usd)} a day"


def render_table(r: Reconciliation, project: ProjectComparison | None = None) -> RenderableType:
    """The report for a terminal, laid out at its width: the answer, a table per day and provider
    (each day's reasons under it), a table per model and day (each row's tokens and reasons under
    it), the project's estimate against each day. Every number whole at 60 columns and up."""
    parts: list[RenderableType] = [Text("\n".join(plain(line) for line in headline(r))), Text("")]
    parts += [Text("Per day", style="bold"), _day_table(r)]
    reasons = [f"{d.day.isoformat()} {d.provider}: {x}" for d in r.days for x in d.reasons]
    if reasons:
        parts.append(Text("\n".join(plain(line) for line in reasons)))
    parts += [
        Text(""),
        Text("Per model and day (tokens; server-tool fees are compared per day)", style="bold"),
        _row_table(r),
    ]
    details = [line for row in r.rows for line in _row_details(row)]
    if details:
        parts.append(Text("\n".join(plain(line) for line in details)))
    if project is not None:
        parts += [Text(""), Text(plain(_project_title(project)), style="bold"), _project_table(project)]
    for note in r.notes:
        parts += [Text(""), Text(plain("note: " + note))]
    return Group(*parts)


def render_text(r: Reconciliation, project: ProjectComparison | None = None, width: int = WIDTH) -> str:
    """:func:`render_table` as plain text ``width`` columns wide."""
    from rich.console import Console

    console = Console(file=io.StringIO(), width=width, no_color=True, emoji=False, color_system=None)
    with console.capture() as captured:
        console.print(render_table(r, project))
    return captured.get()


def _row_dict(row: Row) -> ReconcileRowJson:
    return {
        "day": row.day.isoformat(),
        "provider": one_of(EXPORT_PROVIDERS, row.provider, "provider"),
        "model": plain(row.model),
        "service_tiers": [plain(t) for t in row.tiers],
        "input_tokens": row.input_tokens,
        "cache_read_tokens": row.cache_read_tokens,
        "cache_write_5m_tokens": row.cache_write_5m_tokens,
        "cache_write_1h_tokens": row.cache_write_1h_tokens,
        "output_tokens": row.output_tokens,
        "web_searches": row.web_searches,
        "agentcost_usd": _exact(row.agentcost_usd),
        "tokens_usd": _exact(row.tokens_usd),
        "fees_usd": _exact(row.fees_usd),
        "export_usd": _exact(row.export_usd),
        "difference_usd": _exact(row.difference_usd),
        "status": one_of(ROW_STATUSES, row.status, "row status"),
        "reasons": [plain(x) for x in row.reasons],
    }


def _day_dict(d: Day) -> ReconcileDayJson:
    return {
        "day": d.day.isoformat(),
        "provider": one_of(EXPORT_PROVIDERS, d.provider, "provider"),
        "agentcost_usd": exact(d.agentcost_usd),
        "export_usd": _exact(d.export_usd),
        "excluded_usd": exact(d.excluded_usd),
        "difference_usd": _exact(d.difference_usd),
        "unknown_rows": d.unknown_rows,
        "status": one_of(DAY_STATUSES, d.status, "day status"),
        "reasons": [plain(x) for x in d.reasons],
    }


def _project_dict(p: ProjectComparison | None) -> ProjectComparisonJson | None:
    if p is None:
        return None
    return {
        "file": plain(p.path),
        "runs_per_day": None if p.runs_per_day is None else exact(p.runs_per_day),
        "estimate_per_day_usd": exact(p.estimate_per_day_usd),
        "days": [
            {
                "day": d.day.isoformat(),
                "actual_usd": exact(d.actual_usd),
                "source": one_of(ACTUAL_SOURCES, d.source, "source"),
                "estimate_usd": exact(d.estimate_usd),
                "difference_usd": exact(d.difference_usd),
                "ratio": None if d.ratio is None else exact(d.ratio),
            }
            for d in p.days
        ],
    }


def render_json(r: Reconciliation, project: ProjectComparison | None = None) -> str:
    from agentcost.render.jsonfmt import dumps, envelope

    body: ReconcileJson = {
        "difference_usd": _exact(r.difference_usd),
        "export_usd": _exact(r.export_usd),
        "agentcost_usd": exact(r.agentcost_usd),
        "excluded_usd": exact(r.excluded_usd),
        "compared_agentcost_usd": exact(r.compared_agentcost_usd),
        "unknown_rows": r.unknown_rows,
        "sources": [{"file": plain(p), "kind": one_of(EXPORT_KINDS, k, "export kind")} for p, k in r.sources],
        "days": [_day_dict(d) for d in r.days],
        "rows": [_row_dict(x) for x in r.rows],
        "project": _project_dict(project),
        "notes": [plain(n) for n in r.notes],
    }
    return dumps(envelope("reconcile", body))


def render_markdown(r: Reconciliation, project: ProjectComparison | None = None) -> str:
    head = headline(r)
    out = [f"**{escape_md(head[0])}**", "", *(escape_md(line) + "  " for line in head[1:]), ""]
    out += ["| day | provider | agentcost | export | difference | status | reasons |"]
    out.append("|---|---|---:|---:|---:|---|---|")
    for d in r.days:
        reasons = "; ".join(escape_md(x) for x in d.reasons)
        out.append(
            f"| {d.day} | {d.provider} | {escape_md(fmt.usd(d.agentcost_usd))}"
            f" | {escape_md(fmt.usd(d.export_usd))}"
            f" | {escape_md(_signed(d.difference_usd))} | {d.status} | {reasons} |"
        )
    out += ["", "| day | model | tiers | agentcost (tokens) | export | difference | status | reasons |"]
    out.append("|---|---|---|---:|---:|---:|---|---|")
    for row in r.rows:
        reasons = "; ".join(escape_md(x) for x in row.reasons)
        out.append(
            f"| {row.day} | {escape_md(row.model)} | {escape_md(', '.join(row.tiers))}"
            f" | {escape_md(fmt.usd(row.tokens_usd))} | {escape_md(fmt.usd(row.export_usd))}"
            f" | {escape_md(_signed(row.difference_usd))} | {row.status} | {reasons} |"
        )
    if project is not None:
        out += ["", escape_md(_project_title(project)), ""]
        out += ["| day | actual | source | estimate | difference | ratio |", "|---|---:|---|---:|---:|---:|"]
        for e in project.days:
            out.append(
                f"| {e.day} | {escape_md(fmt.usd(e.actual_usd))} | {e.source}"
                f" | {escape_md(fmt.usd(e.estimate_usd))} | {escape_md(_signed(e.difference_usd))}"
                f" | {fmt.ratio(e.ratio)} |"
            )
    out += [f"\n{escape_md('note: ' + n)}" for n in r.notes]
    return "\n".join(out) + "\n"


CSV_HEADER = (
    "kind", "day", "provider", "model", "service_tiers", "input_tokens", "cache_read_tokens",
    "cache_write_5m_tokens", "cache_write_1h_tokens", "output_tokens", "web_searches", "agentcost_usd",
    "tokens_usd", "fees_usd", "export_usd", "difference_usd", "status", "reasons",
)  # fmt: skip


def _cell(value: object) -> object:
    if value is None:
        return ""
    return " ".join(str(v) for v in value) if isinstance(value, list) else value


def render_csv(r: Reconciliation, project: ProjectComparison | None = None) -> str:
    """One line per model row and one per provider day (``kind``: row or day); with a project, one
    per day of it (``kind`` project-day: ``export_usd`` the actual cost, ``agentcost_usd`` the
    estimate, ``status`` where the actual cost comes from)."""
    buf = io.StringIO()
    w = CsvWriter(buf)
    w.writerow(CSV_HEADER)
    for row in r.rows:
        d = {**_row_dict(row), "kind": "row", "reasons": "; ".join(row.reasons)}
        w.writerow([_cell(d.get(k)) for k in CSV_HEADER])
    for day in r.days:
        d = {**_day_dict(day), "kind": "day", "reasons": "; ".join(day.reasons)}
        w.writerow([_cell(d.get(k)) for k in CSV_HEADER])
    for p in (_project_dict(project) or {"days": []})["days"]:
        d = {**p, "kind": "project-day", "export_usd": p["actual_usd"], "agentcost_usd": p["estimate_usd"]}
        w.writerow([_cell(d.get(k) if k != "status" else p["source"]) for k in CSV_HEADER])
    return buf.getvalue()
