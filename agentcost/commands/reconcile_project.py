"""``agentcost reconcile --project FILE``: a project's estimate per day held against each day's actual cost.

The estimate is :func:`agentcost.commands.batch.batch_report_for_paths` priced at the period's first
day: the project's own cost per day (each scenario's cost per run × its ``runs_per_day``), or one run
of every scenario × ``--runs-per-day N``. The actual cost of a day is the cost exports' total where
one is given, else agentcost's price of the exported usage (each day says which).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path

from agentcost.commands.reconcile import Reconciliation
from agentcost.errors import InputError


@dataclass(frozen=True)
class EstimateDay:
    """One day of the period: what it actually cost beside the project's estimate for a day."""

    day: date
    actual_usd: Decimal
    source: str  # export, agentcost (no cost export), or mixed (some providers' costs only)
    estimate_usd: Decimal

    @property
    def difference_usd(self) -> Decimal:
        """Actual minus estimate."""
        return self.actual_usd - self.estimate_usd

    @property
    def ratio(self) -> Decimal | None:
        """Actual / estimate, to 2 places; None for a $0 estimate."""
        if not self.estimate_usd:
            return None
        return (self.actual_usd / self.estimate_usd).quantize(Decimal("0.01"))


@dataclass(frozen=True)
class ProjectComparison:
    """The project's estimate per day against the days of the exports."""

    path: str
    runs_per_day: Decimal | None  # --runs-per-day, else None (the project's own runs_per_day)
    estimate_per_day_usd: Decimal
    days: tuple[EstimateDay, ...]

    @property
    def mean_actual_usd(self) -> Decimal | None:
        if not self.days:
            return None
        return sum((d.actual_usd for d in self.days), Decimal(0)) / len(self.days)


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
