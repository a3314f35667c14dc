"""``agentcost reconcile --project FILE``: a project's estimate per day held against each day's actual cost.

The estimate is :func:`agentcost.commands.batch.batch_report_for_paths` priced at the period's first
day: the project's own cost per day (each scenario's cost per run × its ``runs_per_day``), or one run
of every scenario × ``--runs-per-day N``. The actual cost of a day is the cost exports' total where
one is given, else agentcost's price of the exported usage (each day says which).
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path

from agentcost.errors import InputError
from agentcost.report.reconcile import Reconciliation
from agentcost.report.reconcile_project import EstimateDay, ProjectComparison


def compare_project(rec: Reconciliation, path: Path, runs_per_day: Decimal | None) -> ProjectComparison:
    """Estimate ``path`` (a project or scenario file) per day and compare it with each day of ``rec``."""
    from agentcost.commands.batch import batch_report_for_paths

    period = rec.period
    if period is None:
        raise InputError("the exports hold no day to compare the project with", key="--project")
    first = period[0]
    report = batch_report_for_paths([path], as_of=datetime(first.year, first.month, first.day, tzinfo=UTC))
    if runs_per_day is not None:
        per_day = report.totals.cost_usd * runs_per_day
    elif report.totals.cost_per_day_usd is not None:
        per_day = report.totals.cost_per_day_usd
    else:
        raise InputError(
            "the project does not give runs_per_day for every scenario",
            file=str(path),
            hint="add runs_per_day to each scenario, or pass --runs-per-day N",
        )
    by_day: dict[date, list[Decimal | None]] = {}
    totals: dict[date, Decimal] = {}
    for d in rec.days:
        by_day.setdefault(d.day, []).append(d.export_usd)
        actual = d.export_usd if d.export_usd is not None else d.agentcost_usd
        totals[d.day] = totals.get(d.day, Decimal(0)) + actual
    days = tuple(EstimateDay(day, totals[day], _source(by_day[day]), per_day) for day in sorted(totals))
    return ProjectComparison(str(path), runs_per_day, per_day, days)


def _source(exported: list[Decimal | None]) -> str:
    given = [e is not None for e in exported]
    return "export" if all(given) else ("mixed" if any(given) else "agentcost")
