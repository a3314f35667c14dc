"""Several scenarios at once: a project (or scenario files) -> one estimate each -> :class:`BatchReport`.

``estimate_batch`` loads and estimates every scenario of a :class:`~agentcost.scenario.project.Project`;
``build_batch_report`` turns the estimates into one summary row per scenario and a grand total per
run, per day and per 30-day month (every figure derived here, with ``Decimal``; renderers in
``agentcost.render.batch`` only format them); ``batch_gates`` lists the budget and context-window
gates of every scenario and the project's total budget gate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import TYPE_CHECKING

from agentcost.errors import InputError
from agentcost.infra.record import record
from agentcost.loop.estimate import Budget, Estimate, estimate_scenario
from agentcost.report import fmt
from agentcost.report.batch import DAYS_PER_MONTH, BatchReport, BatchRow, BatchTotals, ProjectInfo
from agentcost.report.build import build_report
from agentcost.report.estimate import REPORT_VERSION, BudgetLine, joined_price_label, unit_cost
from agentcost.report.gates import Gate, budget_gate, context_gate
from agentcost.report.notes import labelled_caveats
from agentcost.report.outcome import PER_TASK_NOTE

if TYPE_CHECKING:  # the scenario and project loaders are imported where files are read
    from agentcost.infra.yamlread import Reader
    from agentcost.prices.user import UserPrices
    from agentcost.scenario.model import Scenario
    from agentcost.scenario.project import Project, ProjectEntry

SHARE_PLACES = Decimal("0.0001")  # cached shares are rounded half-up to 4 places (0.01%)
PROJECT_BUDGET_SOURCE = "project"  # Budget.source of a budget_usd set on a project file's entry


# --------------------------------------------------------------------------------------------
# Estimating
# --------------------------------------------------------------------------------------------


@record
class BatchItem:
    entry: ProjectEntry
    estimate: Estimate


@record
class Batch:
    project: Project
    items: tuple[BatchItem, ...]


def load_entry_scenario(
    entry: ProjectEntry,
    *,
    overrides: Sequence[str] = (),
    reader: Reader | None = None,
    project_file: Path | None = None,
    index: int = 0,
    quotes: bool = False,
) -> Scenario:
    """The entry's scenario with the entry's own ``set:`` applied first, then ``overrides`` (--set).

    An error in one of the entry's own overrides points at its line in the project file. Errors
    never quote what the scenario file holds (a file a project names: docs/security.md) unless
    ``quotes`` (a file the command line names).
    """
    from agentcost.infra.doc import OverrideError
    from agentcost.scenario.load import read_scenario as load_scenario

    try:
        overrides = (*entry.overrides, *overrides)
        return load_scenario(entry.path, overrides=overrides, reader=reader, quotes=quotes)
    except OverrideError as err:
        if project_file is None or err.override not in entry.overrides:
            raise
        j = entry.overrides.index(err.override)
        hint = "; ".join(h for h in (err.hint, f"set: applies to {entry.path}") if h)
        raise InputError(
            f"{err.override}: {err.message}",
            file=project_file,
            line=entry.override_lines[j] if j < len(entry.override_lines) else entry.line,
            key=f"scenarios[{index}].set[{j}]",
            hint=hint,
        ) from None


def estimate_batch(
    project: Project,
    *,
    as_of: datetime,
    model: str | None = None,
    budget_usd: Decimal | None = None,
    overrides: Sequence[str] = (),
    reader: Reader | None = None,
    service_tier: str | None = None,
    user_prices: UserPrices | None = None,
    at_time: bool | None = None,
) -> Batch:
    """Estimate every scenario of ``project``.

    ``model``, ``budget_usd`` (a per-run budget for EACH scenario), ``overrides`` (``--set``,
    applied after each entry's own ``set:``), ``service_tier`` (``--service-tier``) and
    ``user_prices`` (``--prices``) apply to every scenario. A budget's precedence:
    ``budget_usd`` (--budget), then the entry's ``budget_usd``, then the scenario's
    ``limits.budget_usd``. ``at_time``: whether ``as_of``'s time picks time-of-day prices
    (:attr:`~agentcost.loop.options.PricingOptions.at_time`).
    """
    items: list[BatchItem] = []
    for i, entry in enumerate(project.entries):
        scenario = load_entry_scenario(  # a file the command line names may be quoted, not a project's
            entry,
            overrides=overrides,
            reader=reader,
            project_file=project.path,
            index=i,
            quotes=project.path is None,
        )
        est = estimate_scenario(
            scenario,
            as_of=as_of,
            model=model,
            budget_usd=budget_usd,
            service_tier=service_tier,
            user_prices=user_prices,
            at_time=at_time,
        )
        if budget_usd is None and entry.budget_usd is not None:
            est = replace(est, budget=Budget(entry.budget_usd, PROJECT_BUDGET_SOURCE))
        items.append(BatchItem(entry, est))
    return Batch(project, tuple(items))


# --------------------------------------------------------------------------------------------
# Building the report (agentcost.report.batch)
# --------------------------------------------------------------------------------------------


def share(part: int, whole: int) -> Decimal | None:
    """``part / whole`` rounded half-up to 4 places; None when ``whole`` is 0."""
    if not whole:
        return None
    return (Decimal(part) / Decimal(whole)).quantize(SHARE_PLACES, rounding=ROUND_HALF_UP)


def _row(index: int, item: BatchItem, project: Project, per: str = "run") -> BatchRow:
    report = build_report(item.estimate, per=per)
    entry, t = item.entry, report.totals
    cost = unit_cost(report, per)
    per_day = None if entry.runs_per_day is None else cost * entry.runs_per_day
    from_entry = report.budget is not None and report.budget.source == PROJECT_BUDGET_SOURCE
    window = report.context_window
    return BatchRow(
        index=index,
        path=report.scenario_path,
        name=entry.name or report.scenario_name or report.scenario_path,
        model_id=report.model_id,
        provider=report.provider,
        requests=t.requests,
        input_tokens=t.input_tokens,
        cache_read_tokens=t.cache_read_tokens,
        cache_write_tokens=t.cache_write_tokens,
        output_tokens=t.output_tokens,
        cached_share=share(t.cache_read_tokens, t.input_tokens),
        cost_usd=cost,
        budget=report.budget,
        budget_file=str(project.path) if from_entry and project.path is not None else report.scenario_path,
        budget_line=entry.budget_line if from_entry else report.budget_line,
        runs_per_day=entry.runs_per_day,
        cost_per_day_usd=per_day,
        cost_per_month_usd=None if per_day is None else per_day * DAYS_PER_MONTH,
        context_window=window,
        max_input_tokens=report.max_input_tokens,
        fits_context=None if window is None else report.max_input_tokens <= window,
        approximate=report.approximate,
        report=report,
        cost_per_run_usd=t.cost_usd,
        cost_per_task_usd=unit_cost(report, "task"),
    )


def build_batch_report(batch: Batch, *, per: str = "run") -> BatchReport:
    """One summary row per scenario, the grand totals, the project budget verdict. ``per="task"``
    (``--per task``): costs, budgets and totals per completed task (:func:`unit_cost`); per day is
    then per task x runs_per_day, the entry's runs read as tasks."""
    if not batch.items:
        raise InputError("no scenarios to estimate")
    project = batch.project
    rows = tuple(_row(i, item, project, per) for i, item in enumerate(batch.items, start=1))
    input_tokens = sum(r.input_tokens for r in rows)
    cache_read = sum(r.cache_read_tokens for r in rows)
    cost = sum((r.cost_usd for r in rows), Decimal(0))
    per_day: Decimal | None = None
    if all(r.cost_per_day_usd is not None for r in rows):
        per_day = sum((r.cost_per_day_usd or Decimal(0) for r in rows), Decimal(0))
    totals = BatchTotals(
        scenarios=len(rows),
        requests=sum(r.requests for r in rows),
        input_tokens=input_tokens,
        cache_read_tokens=cache_read,
        cache_write_tokens=sum(r.cache_write_tokens for r in rows),
        output_tokens=sum(r.output_tokens for r in rows),
        cached_share=share(cache_read, input_tokens),
        cost_usd=cost,
        cost_per_day_usd=per_day,
        cost_per_month_usd=None if per_day is None else per_day * DAYS_PER_MONTH,
        over_budget=sum(1 for r in rows if r.over_budget),
    )
    info: ProjectInfo | None = None
    if project.path is not None:
        budget = None
        if project.budget_usd is not None:
            budget = BudgetLine(
                limit_usd=project.budget_usd,
                source="budget_usd",
                over=cost > project.budget_usd,
                headroom_usd=project.budget_usd - cost,
            )
        info = ProjectInfo(
            str(project.path),
            project.name,
            budget,
            project.budget_line,
            _monthly_budget(project, totals.cost_per_month_usd),
            project.monthly_budget_line,
        )
    warnings: list[str] = []
    missing = [r for r in rows if r.runs_per_day is None]
    if missing and len(missing) < len(rows):
        names = ", ".join(r.path for r in missing)
        warnings.append(f"no runs_per_day for {names}: totals per day and per month are left out")
    for r in rows:
        warnings.extend(f"{r.path}: {w}" for w in r.report.warnings if w != PER_TASK_NOTE)
    if per == "task" and any(r.report.outcome is None for r in rows):
        warnings.append(PER_TASK_NOTE)
    first = rows[0].report
    return BatchReport(
        version=REPORT_VERSION,
        project=info,
        rows=rows,
        totals=totals,
        approximate=any(r.approximate for r in rows),
        price_source=first.price_source,
        price_version=first.price_version,
        as_of=first.as_of,
        warnings=tuple(warnings),
        price_label=joined_price_label([r.report for r in rows]),
        price_sources=joined_price_label([r.report for r in rows], dated=False),
        per=per,
        notes=labelled_caveats([(r.name, r.report) for r in rows]),
    )


def _monthly_budget(project: Project, per_month: Decimal | None) -> BudgetLine | None:
    """The project's ``monthly_budget_usd`` against its cost per 30-day month."""
    limit = project.monthly_budget_usd
    if limit is None:
        return None
    if per_month is None:
        raise InputError(
            "monthly_budget_usd needs runs_per_day for every scenario",
            file=project.path,
            line=project.monthly_budget_line,
            key="monthly_budget_usd",
            hint="add runs_per_day to each scenario, or remove monthly_budget_usd",
        )
    return BudgetLine(limit, "monthly_budget_usd", per_month > limit, limit - per_month)


def with_months(report: BatchReport, batch: Batch, months: int, *, seed: int = 0) -> BatchReport:
    """The report with ``months`` simulated months (``--simulate N``, :mod:`agentcost.loop.month`):
    each scenario as its row names it, its runs per day drawn day by day, its runs' costs drawn
    from its own simulated runs; the share of months over the project's ``monthly_budget_usd``."""
    from agentcost.loop.month import simulate_months

    if batch.project.path is None:
        raise InputError(
            "simulates a project's months: give a project file, or one scenario file",
            key="--simulate",
            hint="list the scenarios with runs_per_day in a project file (docs/project.md)",
        )
    items = [
        (row.name, item.entry, item.estimate) for row, item in zip(report.rows, batch.items, strict=True)
    ]
    month = simulate_months(items, months, seed=seed, budget_usd=batch.project.monthly_budget_usd)
    return replace(report, month=month)


def batch_report_for_paths(
    paths: Sequence[Path | str],
    *,
    as_of: datetime,
    model: str | None = None,
    budget_usd: Decimal | None = None,
    overrides: Sequence[str] = (),
    reader: Reader | None = None,
    service_tier: str | None = None,
    user_prices: UserPrices | None = None,
    per: str = "run",
    at_time: bool | None = None,
    months: int | None = None,
    seed: int = 0,
) -> BatchReport:
    """``agentcost estimate PATH...``: a project file or scenario files -> the batch report
    (``per``: :func:`build_batch_report`); ``months`` (``--simulate N`` of a project): with N
    simulated months (:func:`with_months`, ``seed``: ``--seed``)."""
    from agentcost.scenario.project import load_targets

    project = load_targets(paths, reader=reader)
    batch = estimate_batch(
        project,
        as_of=as_of,
        model=model,
        budget_usd=budget_usd,
        overrides=overrides,
        reader=reader,
        service_tier=service_tier,
        user_prices=user_prices,
        at_time=at_time,
    )
    report = build_batch_report(batch, per=per)
    return report if months is None else with_months(report, batch, months, seed=seed)


# --------------------------------------------------------------------------------------------
# Gates
# --------------------------------------------------------------------------------------------


def project_budget_gate(report: BatchReport) -> Gate | None:
    """The total of one run of every scenario against the project's ``budget_usd``."""
    info = report.project
    if info is None or info.budget is None:
        return None
    b, total = info.budget, report.totals.cost_usd
    verdict, relation = ("over budget", ">") if b.over else ("within budget", "<=")
    shown, limit = fmt.usd_pair(total, b.limit_usd)  # as the scenarios' budget gates show theirs
    return Gate(
        name="budget",
        tripped=b.over,
        message=(
            f"{info.path}: {verdict}: estimated {shown} for {report.one_text} of each of"
            f" {report.totals.scenarios} scenarios {relation} {limit} (project budget_usd)"
        ),
        file=info.path,
        line=info.budget_line,
    )


def monthly_budget_gate(report: BatchReport) -> Gate | None:
    """The project's cost per 30-day month against its ``monthly_budget_usd``."""
    info = report.project
    if info is None or info.monthly_budget is None or report.totals.cost_per_month_usd is None:
        return None
    b, total = info.monthly_budget, report.totals.cost_per_month_usd
    verdict, relation = ("over budget", ">") if b.over else ("within budget", "<=")
    shown, limit = fmt.usd_pair(total, b.limit_usd)
    return Gate(
        name="budget",
        tripped=b.over,
        message=f"{info.path}: {verdict}: estimated {shown} per {DAYS_PER_MONTH}-day month {relation} {limit}"
        " (project monthly_budget_usd)",
        file=info.path,
        line=info.monthly_budget_line,
    )


def batch_gates(report: BatchReport) -> tuple[Gate, ...]:
    """Every scenario's budget and context-window gates, then the project's total and monthly
    budget gates."""
    gates: list[Gate] = []
    for row in report.rows:
        budget = budget_gate(row.report)
        if budget is not None:
            gates.append(replace(budget, file=row.budget_file, line=row.budget_line))
        context = context_gate(row.report)
        if context is not None:
            gates.append(context)
    total = project_budget_gate(report)
    if total is not None:
        gates.append(total)
    monthly = monthly_budget_gate(report)
    if monthly is not None:
        gates.append(monthly)
    return tuple(gates)
