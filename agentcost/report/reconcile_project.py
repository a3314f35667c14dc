"""The report of ``agentcost reconcile --project FILE``: a project's estimate per day beside each day's
actual cost, built by :func:`agentcost.commands.reconcile_project.compare_project`;
:mod:`agentcost.render.reconcile` formats it.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from agentcost.infra.record import record


@record
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


@record
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
