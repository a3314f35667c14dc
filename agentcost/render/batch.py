"""BatchReport (several scenarios) -> Rich table, Markdown, CSV and the JSON body. No arithmetic here:
every figure is derived in ``agentcost.commands.batch``; numbers become text only through ``fmt``.

Registered with ``agentcost.render.output`` through ``RENDERERS``; the JSON body is built as
:class:`agentcost.report.batch_json.BatchJson`, from which its published schema is generated.
``--quiet`` prints the grand total of one run of every scenario.
"""

from __future__ import annotations

import io
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from rich.console import Group, RenderableType
from rich.text import Text

from agentcost.infra.text import CsvWriter, display_name, markdown_code, plain, rich
from agentcost.infra.text import markdown as escape_md
from agentcost.render.fit import Col, FitTable
from agentcost.render.jsonfmt import report_dict
from agentcost.render.output import Renderers
from agentcost.report import fmt
from agentcost.report.batch import DAYS_PER_MONTH, BatchReport, BatchRow
from agentcost.report.batch_json import PERS
from agentcost.report.estimate import BudgetLine
from agentcost.report.fmt import exact
from agentcost.report.notes import OVER_BUDGET, budget_verdict
from agentcost.report.schemagen import one_of

if TYPE_CHECKING:  # the JSON's one definition (report/batch_json.py), also its JSON Schema
    from agentcost.report.batch import MonthRisk
    from agentcost.report.batch_json import BatchJson, BudgetCheckJson, MonthJson

# --------------------------------------------------------------------------------------------
# Shared bits
# --------------------------------------------------------------------------------------------


def _counters(report: BatchReport) -> str:
    """``Counter: o200k_base × ratio``, or ``Counters: o200k_base (gpt-5), ...``: what each model's
    tokens were counted with (issue 29), models sharing a counter named together."""
    models: dict[str, list[str]] = {}
    for r in report.rows:
        named = models.setdefault(r.report.encoding, [])
        if r.model_id not in named:
            named.append(r.model_id)
    if len(models) == 1:
        return f"Counter: {next(iter(models))}"
    return "Counters: " + ", ".join(f"{c} ({', '.join(m)})" for c, m in models.items())


def _dec(d: Any) -> str | None:
    return None if d is None else exact(d)


def _against(cost: Decimal, budget: BudgetLine | None) -> tuple[str, str]:
    """A cost and the budget it is checked against, compared (fmt.usd_pair): ``$0.0312``, ``$0.0500``
    (more decimals only where two different amounts would read the same); ``-`` without a budget."""
    if budget is None:
        return fmt.usd(cost), "-"
    return fmt.usd_pair(cost, budget.limit_usd)


def _budget_cell(cost: Decimal, budget: BudgetLine | None, *, markdown: bool = False) -> str:
    limit = _against(cost, budget)[1]
    if budget is None:
        return limit
    if budget.over:
        return f"{limit} " + ("**over**" if markdown else "OVER")
    return f"{limit} ok"


def _runs(row: BatchRow) -> str:
    return "-" if row.runs_per_day is None else exact(row.runs_per_day)


def _mark(row: BatchRow, star: str) -> str:
    return star if row.approximate else ""


def _totals_sentence(report: BatchReport, *, bold: bool = False) -> str:
    t = report.totals
    b = "**" if bold else ""
    text = f"{b}{_against(t.cost_usd, _project_budget(report))[0]}{b} {report.unit_text}"
    text += f" of {t.scenarios} scenarios"
    if t.cost_per_day_usd is not None and t.cost_per_month_usd is not None:
        text += (
            f", {b}{fmt.usd(t.cost_per_day_usd)}{b} per day,"
            f" {b}{fmt.usd(t.cost_per_month_usd)}{b} per {DAYS_PER_MONTH}-day month"
        )
    return text + "."


def _project_budget_sentence(report: BatchReport, *, markdown: bool = False) -> str | None:
    info = report.project
    if info is None or info.budget is None:
        return None
    b = info.budget
    verdict = budget_verdict(b)  # the one wording (agentcost.report.notes)
    if markdown:
        verdict = verdict.replace(OVER_BUDGET, f"**{OVER_BUDGET}**")
    path = escape_md(info.path) if markdown else info.path
    return (
        f"Project budget {_against(report.totals.cost_usd, b)[1]} for {report.one_text} of every scenario"
        f" ({path}): {verdict}."
    )


def _month_sentences(report: BatchReport, *, markdown: bool = False) -> list[str]:
    """The monthly budget's verdict (the ``monthly_budget`` gate's), then the simulated months."""
    lines: list[str] = []
    info, per_month = report.project, report.totals.cost_per_month_usd
    if info is not None and info.monthly_budget is not None and per_month is not None:
        b = info.monthly_budget
        verdict = budget_verdict(b)
        if markdown:
            verdict = verdict.replace(OVER_BUDGET, f"**{OVER_BUDGET}**")
        path = escape_md(info.path) if markdown else info.path
        limit = fmt.usd_pair(per_month, b.limit_usd)[1]
        lines.append(f"Monthly budget {limit} for a {DAYS_PER_MONTH}-day month ({path}): {verdict}.")
    m = report.month
    if m is not None:
        c = m.cost
        p50, p90, p99 = fmt.usd_series((c.p50, c.p90, c.p99))
        lines.append(
            f"Simulated {m.months:,} months (seed {m.seed}): {p50} p50, {p90} p90, {p99} p99 per"
            f" {DAYS_PER_MONTH}-day month; mean {fmt.usd(c.mean)}."
        )
        share = m.over_budget_share
        if share is not None and m.budget_usd is not None:
            lines.append(
                f"Months over the monthly budget {fmt.usd(m.budget_usd)}: {fmt.percent(share)}"
                f" ({m.over_budget:,} of {m.months:,})."
            )
        lines.append(
            "A month: each day's runs drawn from runs_per_day, each run's cost from the scenario's"
            f" {m.runs_per_scenario:,} simulated runs (docs/project.md#monthly-risk)."
        )
    return lines


# --------------------------------------------------------------------------------------------
# Rich
# --------------------------------------------------------------------------------------------


def _budget_lines(cost: Decimal, budget: BudgetLine | None) -> Text:
    limit = _against(cost, budget)[1]
    if budget is None:
        return Text(limit)
    if budget.over:
        return Text.assemble(limit, "\n", ("OVER", "bold red"))
    return Text(f"{limit}\nok")


def render_batch_table(report: BatchReport) -> RenderableType:
    """A row per scenario, laid out for the width it is printed at (render.fit): its name, file,
    model and requests stacked in the first cell, then tokens and dollars; a totals row; the
    assumptions below. Token columns are dropped first; the name and every dollar figure stay."""
    t = report.totals
    budgets, daily = _has_budgets(report), _has_runs(report)
    columns = [
        Col(
            "scenario",
            justify="left",
            text=True,
            min_width=16,
            footer=f"total: {t.scenarios} scenarios\n{t.requests} requests",
        ),
        Col("input", drop=3, footer=fmt.tokens(t.input_tokens)),
        Col("cached", drop=5, footer=fmt.percent(t.cached_share)),
        Col("output", drop=4, footer=fmt.tokens(t.output_tokens)),
        Col(report.unit_text, footer=_against(t.cost_usd, _project_budget(report))[0]),
    ]
    if budgets:
        project = _project_budget(report)
        over = bool(t.over_budget) or (project is not None and project.over)  # then never dropped
        columns.append(Col("budget", drop=0 if over else 2, footer=_budget_lines(t.cost_usd, project)))
    if daily:
        columns += [
            Col("per day", drop=1, footer=fmt.usd(t.cost_per_day_usd)),
            Col("per month", footer=fmt.usd(t.cost_per_month_usd)),
        ]
    rows: list[list[str | Text]] = []
    for r in report.rows:
        star = _mark(r, "*")
        scenario = Text(plain(display_name(r.name)) + "\n") if r.name != r.path else Text()
        scenario.append(plain(display_name(r.path)) + "\n", style="dim")
        scenario.append(plain(display_name(r.model_id)), style="cyan")
        scenario.append(f" · {r.requests} requests")
        cells: list[str | Text] = [
            scenario,
            fmt.tokens(r.input_tokens) + star,
            fmt.percent(r.cached_share),
            fmt.tokens(r.output_tokens) + star,
            _against(r.cost_usd, r.budget)[0],
        ]
        if budgets:
            cells.append(_budget_lines(r.cost_usd, r.budget))
        if daily:
            per_day = Text(fmt.usd(r.cost_per_day_usd))
            if r.runs_per_day is not None:
                per_day.append(f"\n{_runs(r)} runs", style="dim")
            cells += [per_day, fmt.usd(r.cost_per_month_usd)]
        rows.append(cells)
    title = rich(report.title, "table.title")
    return Group(FitTable(columns, rows, title=title, show_footer=True), _assumptions(report))


def _has_budgets(report: BatchReport) -> bool:
    return _project_budget(report) is not None or any(r.budget is not None for r in report.rows)


def _has_runs(report: BatchReport) -> bool:
    """Whether to show per day and per month: only when some scenario has runs_per_day."""
    return any(r.runs_per_day is not None for r in report.rows)


def _project_budget(report: BatchReport) -> BudgetLine | None:
    return None if report.project is None else report.project.budget


def _assumptions(report: BatchReport) -> Text:
    t = report.totals
    lines = [f"Total {_totals_sentence(report)}"]
    if t.cost_per_day_usd is not None:
        lines.append(f"Per day = per run × runs_per_day; per month = per day × {DAYS_PER_MONTH}.")
    project = _project_budget_sentence(report)
    if project is not None:
        lines.append(project)
    lines.extend(_month_sentences(report))
    if t.over_budget:
        lines.append(f"{t.over_budget} of {t.scenarios} scenarios over their own budget.")
    lines.append(f"Prices: {report.price_sources}, in force on {report.as_of[:10]}. {_counters(report)}.")
    approximate = [r.model_id for r in report.rows if r.approximate]
    if approximate:
        models = ", ".join(dict.fromkeys(approximate))
        lines.append(f"Token counts marked * are approximate ({models}); the others are exact.")
    lines.append("Each scenario's requests and assumptions: agentcost estimate PATH, or --format json.")
    lines.extend(report.notes)
    if not report.warnings_apart:  # else the CLI prints them on stderr
        lines.extend(f"Warning: {w}" for w in report.warnings)
    return Text("\n".join(map(plain, lines)))  # names from files in them: one line each, shown escaped


# --------------------------------------------------------------------------------------------
# Markdown
# --------------------------------------------------------------------------------------------


def render_batch_markdown(report: BatchReport) -> str:
    t = report.totals
    lines = [f"#### agentcost: {escape_md(report.title)}", "", _totals_sentence(report, bold=True)]
    project = _project_budget_sentence(report, markdown=True)
    if project is not None:
        lines.append(project)
    lines.extend(_month_sentences(report, markdown=True))
    if t.over_budget:
        lines.append(f"**{t.over_budget} of {t.scenarios} scenarios over their own budget.**")
    lines += [
        "",
        f"| scenario | model | requests | input | cached | output | {report.unit_text} | budget | runs/day"
        " | per day | per month |",
        "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for r in report.rows:
        star = _mark(r, "\\*")
        cells = [
            escape_md(r.name),
            markdown_code(r.model_id, table=True),
            str(r.requests),
            fmt.tokens(r.input_tokens) + star,
            fmt.percent(r.cached_share),
            fmt.tokens(r.output_tokens) + star,
            _against(r.cost_usd, r.budget)[0],
            _budget_cell(r.cost_usd, r.budget, markdown=True),
            _runs(r),
            fmt.usd(r.cost_per_day_usd),
            fmt.usd(r.cost_per_month_usd),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    totals = [
        "**total**",
        "",
        str(t.requests),
        fmt.tokens(t.input_tokens),
        fmt.percent(t.cached_share),
        fmt.tokens(t.output_tokens),
        f"**{_against(t.cost_usd, _project_budget(report))[0]}**",
        _budget_cell(t.cost_usd, _project_budget(report), markdown=True),
        "",
        f"**{fmt.usd(t.cost_per_day_usd)}**" if t.cost_per_day_usd is not None else "-",
        f"**{fmt.usd(t.cost_per_month_usd)}**" if t.cost_per_month_usd is not None else "-",
    ]
    lines.append("| " + " | ".join(totals) + " |")
    lines.append("")
    notes = [
        f"Prices: {escape_md(report.price_sources)}, in force on {report.as_of[:10]}",
        escape_md(_counters(report).lower()),
    ]
    if report.approximate:
        notes.append("\\* approximate token counts")
    if t.cost_per_day_usd is not None:
        notes.append(f"month = {DAYS_PER_MONTH} days")
    lines.append("<sub>" + "; ".join(notes) + ".</sub>")
    lines.extend(f"\n{escape_md(n)}" for n in report.notes)
    for w in report.warnings:
        lines.append(f"> [!WARNING]\n> {escape_md(w)}")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------
# CSV
# --------------------------------------------------------------------------------------------

CSV_COLUMNS = (
    "scenario",
    "name",
    "model",
    "provider",
    "requests",
    "input_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "output_tokens",
    "cost_usd",
    "budget_usd",
    "over_budget",
    "runs_per_day",
    "cost_per_day_usd",
    "cost_per_month_usd",
    "approximate",
)


def render_batch_csv(report: BatchReport) -> str:
    """A row per scenario, then a ``total`` row (the project's budget and verdict, if it has one)."""
    out = io.StringIO()
    writer = CsvWriter(out)
    writer.writerow(CSV_COLUMNS)
    for r in report.rows:
        writer.writerow(
            (
                r.path,
                r.name,
                r.model_id,
                r.provider,
                r.requests,
                r.input_tokens,
                r.cache_read_tokens,
                r.cache_write_tokens,
                r.output_tokens,
                exact(r.cost_usd),
                _dec(r.budget.limit_usd if r.budget else None) or "",
                fmt.csv_bool(None if r.budget is None else r.budget.over),
                _dec(r.runs_per_day) or "",
                _dec(r.cost_per_day_usd) or "",
                _dec(r.cost_per_month_usd) or "",
                fmt.csv_bool(r.approximate),
            )
        )
    t, budget = report.totals, _project_budget(report)
    writer.writerow(
        (
            "total",
            report.project.name or "" if report.project else "",
            "",
            "",
            t.requests,
            t.input_tokens,
            t.cache_read_tokens,
            t.cache_write_tokens,
            t.output_tokens,
            exact(t.cost_usd),
            _dec(budget.limit_usd if budget else None) or "",
            fmt.csv_bool(None if budget is None else budget.over),
            "",
            _dec(t.cost_per_day_usd) or "",
            _dec(t.cost_per_month_usd) or "",
            fmt.csv_bool(report.approximate),
        )
    )
    return out.getvalue()


# --------------------------------------------------------------------------------------------
# JSON
# --------------------------------------------------------------------------------------------


def _budget_dict(b: BudgetLine | None) -> BudgetCheckJson | None:
    if b is None:
        return None
    return {
        "limit_usd": exact(b.limit_usd),
        "source": b.source,
        "over": b.over,
        "headroom_usd": exact(b.headroom_usd),
    }


def _month_dict(m: MonthRisk) -> MonthJson:
    from agentcost.render.simulation import stat_count_dict, stat_usd_dict

    return {
        "months": m.months,
        "days": m.days,
        "seed": m.seed,
        "runs_per_scenario": m.runs_per_scenario,
        "cost_usd": stat_usd_dict(m.cost),
        "monthly_budget_usd": _dec(m.budget_usd),
        "over_budget_months": m.over_budget,
        "over_budget_share": _dec(m.over_budget_share),
        "scenarios": [
            {
                "name": s.name,
                "runs_per_day": s.runs_per_day,
                "runs": stat_count_dict(s.runs),
                "cost_usd": stat_usd_dict(s.cost),
            }
            for s in m.scenarios
        ],
    }


def batch_dict(report: BatchReport) -> BatchJson:
    """The JSON fields of kind ``batch`` (the envelope adds version, kind and gates)."""
    t, info = report.totals, report.project
    body: BatchJson = {
        "project": None
        if info is None
        else {"path": info.path, "name": info.name, "budget": _budget_dict(info.budget)},
        "scenarios": [
            {
                "index": r.index,
                "path": r.path,
                "name": r.name,
                "model": r.model_id,
                "provider": r.provider,
                "requests": r.requests,
                "input_tokens": r.input_tokens,
                "cache_read_tokens": r.cache_read_tokens,
                "cache_write_tokens": r.cache_write_tokens,
                "output_tokens": r.output_tokens,
                "cached_share": _dec(r.cached_share),
                "cost_usd": exact(r.cost_usd),
                "cost_per_run_usd": exact(r.cost_per_run_usd),
                "cost_per_completed_task_usd": exact(r.cost_per_task_usd),
                "budget": _budget_dict(r.budget),
                "runs_per_day": _dec(r.runs_per_day),
                "cost_per_day_usd": _dec(r.cost_per_day_usd),
                "cost_per_month_usd": _dec(r.cost_per_month_usd),
                "context_window": r.context_window,
                "max_input_tokens": r.max_input_tokens,
                "fits_context": r.fits_context,
                "approximate": r.approximate,
                "counter": r.report.encoding,
            }
            for r in report.rows
        ],
        "totals": {
            "scenarios": t.scenarios,
            "requests": t.requests,
            "input_tokens": t.input_tokens,
            "cache_read_tokens": t.cache_read_tokens,
            "cache_write_tokens": t.cache_write_tokens,
            "output_tokens": t.output_tokens,
            "cached_share": _dec(t.cached_share),
            "cost_usd": exact(t.cost_usd),
            "cost_per_day_usd": _dec(t.cost_per_day_usd),
            "cost_per_month_usd": _dec(t.cost_per_month_usd),
            "over_budget": t.over_budget,
        },
        "prices": {
            "source": report.price_source,
            "version": report.price_version,
            "as_of": report.as_of,
            "label": report.price_label,
        },
        "approximate": report.approximate,
        "notes": list(report.notes),
        "per": one_of(PERS, report.per, "per"),
        "warnings": list(report.warnings),
        "estimates": [report_dict(r.report) for r in report.rows],
    }
    if info is not None and info.monthly_budget is not None and body["project"] is not None:
        body["project"]["monthly_budget"] = _budget_dict(info.monthly_budget)  # type: ignore[typeddict-item]
    if report.month is not None:
        body["month"] = _month_dict(report.month)
    return body


RENDERERS = (
    BatchReport,
    Renderers(
        kind="batch",
        body=batch_dict,
        rich=render_batch_table,
        markdown=render_batch_markdown,
        csv=render_batch_csv,
        total=lambda r: r.totals.cost_usd,
        chart=None,
        warnings=lambda r: r.warnings if r.warnings_apart else (),
    ),
)
