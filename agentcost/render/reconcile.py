"""Reconciliation -> text table (within 80 columns), JSON, Markdown and CSV; formatting only.

Every figure comes from :mod:`agentcost.commands.reconcile`; unknown amounts show as ``-``, never $0.
The JSON is built as :class:`agentcost.report.reconcile_json.ReconcileJson`, from which its published
schema is generated.
"""

from __future__ import annotations

import io
import textwrap
from decimal import Decimal
from typing import TYPE_CHECKING

from agentcost.infra.text import CsvWriter, plain
from agentcost.infra.text import markdown as escape_md
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
MODEL_WIDTH = 22


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


def _wrap(text: str, indent: str = "  ") -> list[str]:
    return textwrap.wrap(plain(text), WIDTH, initial_indent=indent, subsequent_indent=indent + "  ")


def _project_lines(p: ProjectComparison) -> list[str]:
    how = "its runs_per_day" if p.runs_per_day is None else f"{p.runs_per_day} runs a day"
    out = ["", *_wrap(f"Project estimate ({p.path}, {how}): {fmt.usd(p.estimate_per_day_usd)} a day", "")]
    out.append(f"{'day':<10}  {'actual':>12}  {'source':<9}  {'estimate':>12}  {'difference':>12}  ratio")
    for d in p.days:
        out.append(
            f"{d.day.isoformat():<10}  {fmt.usd(d.actual_usd):>12}  {d.source:<9}"
            f"  {fmt.usd(d.estimate_usd):>12}  {_signed(d.difference_usd):>12}  {fmt.ratio(d.ratio)}"
        )
    return out


def render_text(r: Reconciliation, project: ProjectComparison | None = None) -> str:
    """A plain-text report within 80 columns."""
    out = [*headline(r), ""]
    out.append("Per day")
    out.append(f"{'day':<10}  {'provider':<9}  {'agentcost':>12}  {'export':>12}  {'difference':>12}  status")
    for d in r.days:
        out.append(
            f"{d.day.isoformat():<10}  {d.provider:<9}  {fmt.usd(d.agentcost_usd):>12}"
            f"  {fmt.usd(d.export_usd):>12}"
            f"  {_signed(d.difference_usd):>12}  {d.status}"
        )
        out += [line for reason in d.reasons for line in _wrap(reason)]
    out += ["", "Per model and day (tokens; server-tool fees are compared per day)"]
    out.append(f"{'day':<10} {'model':<{MODEL_WIDTH}} {'agentcost':>11} {'export':>11} {'diff':>11} status")
    for row in r.rows:
        name = plain(row.model)
        if len(name) > MODEL_WIDTH:
            name = name[: MODEL_WIDTH - 1] + "…"
        out.append(
            f"{row.day.isoformat():<10} {name:<{MODEL_WIDTH}} {fmt.usd(row.tokens_usd):>11}"
            f" {fmt.usd(row.export_usd):>11} {_signed(row.difference_usd):>11} {row.status}"
        )
        tokens = (
            f"in {fmt.tokens(row.input_tokens)}, cache read {fmt.tokens(row.cache_read_tokens)},"
            f" write 5m {fmt.tokens(row.cache_write_5m_tokens)}, 1h {fmt.tokens(row.cache_write_1h_tokens)},"
            f" out {fmt.tokens(row.output_tokens)}"
        )
        if row.web_searches:
            tokens += f", {fmt.tokens(row.web_searches)} web searches ({fmt.usd(row.fees_usd)})"
        tiers = ", ".join(row.tiers)
        out += _wrap(f"{row.provider}, {tiers or 'no usage'}: {tokens}" if row.tiers else "no usage")
        out += [line for reason in row.reasons for line in _wrap("- " + reason)]
    if project is not None:
        out += _project_lines(project)
    for note in r.notes:
        out += ["", *_wrap("note: " + note, "")]
    return "\n".join(out) + "\n"


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
        out += ["", escape_md(_project_lines(project)[1].strip()), ""]
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
