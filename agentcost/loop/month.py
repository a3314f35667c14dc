"""A project's month under uncertainty (``agentcost estimate PROJECT --simulate N``). No I/O.

The model, documented in docs/project.md#monthly-risk:

* A month is :data:`DAYS_PER_MONTH` (30) days, the month the project's per-month figures use.
* **Runs.** A scenario whose ``runs_per_day`` is a distribution draws each of the 30 days' runs
  from it (:func:`agentcost.scenario.dists.sample`: whole numbers, rounded half up), and the month
  has their sum. A plain number ``r`` runs exactly ``r`` a day: the month has ``30 r`` runs, and when
  that is not whole (``30 x 0.05 = 1.5``) its whole part plus one more run with the probability of
  its fraction, so that a month's expected runs are ``30 r`` exactly.
* **Cost of a run.** Each of the month's runs costs one of the scenario's ``N`` simulated runs,
  picked uniformly with replacement: the runs ``agentcost estimate SCENARIO --simulate N --seed S``
  draws (:func:`agentcost.loop.simulate.run_units`). A scenario without distributions costs its
  estimate every run.
* **Money.** The runs' costs are whole units of ``1/scale`` dollars, summed as integers (exact);
  floats are used only for the uniforms that pick the days' runs and the runs. The month's total is
  the sum of its scenarios' totals; N months give the nearest-rank percentiles (as for runs,
  :mod:`agentcost.loop.simulate`) and the share of months over ``monthly_budget_usd`` (strictly
  above it).

Each scenario draws from streams of its own, seeded from ``(seed, scenario's position)``, so the
same seed gives the same months.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal, localcontext
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from agentcost.errors import InputError
from agentcost.infra.record import record
from agentcost.loop.simulate import Stat, nearest_rank, run_units
from agentcost.scenario.dists import describe, sample

if TYPE_CHECKING:
    import numpy as np

    from agentcost.loop.estimate import Estimate
    from agentcost.scenario.project import ProjectEntry

DAYS_PER_MONTH = 30
MAX_MONTHS = 100_000
MAX_MONTH_RUNS = 50_000_000
"""Runs drawn in all (months x runs a month, every scenario), the most one simulation may take:
about 0.5 s per 10 million."""
_MONTH_STREAM = 1 << 22  # the seed key of the months' streams (apart from every run input's)
_CHUNK = 1_000_000  # runs drawn at once
_MEAN_USD = Decimal("1E-10")  # means rounded half up to these places, as a simulation's


@record
class MonthScenario:
    """One scenario's part of the simulated months."""

    name: str
    runs_per_day: str  # ``200``, or the distribution described (``pert 100-400, most likely 200``)
    runs: Stat  # runs in a month
    cost: Stat  # the scenario's cost in a month, USD


@record
class MonthRisk:
    """``months`` simulated months of every scenario of a project at its runs per day."""

    months: int
    seed: int
    runs_per_scenario: int  # each scenario's simulated runs, the costs a month's runs are drawn from
    cost: Stat  # the month's total, USD
    scenarios: tuple[MonthScenario, ...]
    budget_usd: Decimal | None  # the project's monthly_budget_usd
    over_budget: int | None  # months whose total is above budget_usd (None: no budget)
    days: int = DAYS_PER_MONTH

    @property
    def over_budget_share(self) -> Decimal | None:
        """The share of months over the monthly budget: the probability of exceeding it."""
        return None if self.over_budget is None else Decimal(self.over_budget) / self.months


def _streams(seed: int, index: int) -> tuple[np.random.Generator, np.random.Generator]:
    import numpy as np

    def stream(key: int) -> np.random.Generator:
        return np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, _MONTH_STREAM, index, key])))

    return stream(0), stream(1)


def month_runs(entry: ProjectEntry, months: int, days: np.random.Generator) -> Any:
    """Each month's runs of ``entry`` (int64, one per month): the sum of 30 days' draws of its
    distribution, or ``30 r`` with a fraction made one run with that probability."""
    import numpy as np

    if entry.runs_dist is not None:
        per_day = sample(entry.runs_dist, days.random((months, DAYS_PER_MONTH)))
        return per_day.sum(axis=1, dtype=np.int64)
    assert entry.runs_per_day is not None
    month = entry.runs_per_day * DAYS_PER_MONTH
    whole = int(month)  # runs_per_day >= 0: the whole part
    fraction = float(month - whole)  # for the comparison with a uniform only
    extra = days.random(months) < fraction
    return np.full(months, whole, dtype=np.int64) + extra


def _month_units(units: Any, runs: Any, pick: np.random.Generator) -> list[int]:
    """Each month's cost in units: ``runs[m]`` runs picked uniformly from ``units``, summed exactly
    (int64 when no partial sum can overflow, else Python integers)."""
    import numpy as np

    n = len(units)
    top = int(max(units.tolist())) if units.dtype == object else int(units.max())
    out: list[int] = []
    start, months = 0, len(runs)
    while start < months:
        end, drawn = start, 0
        while end < months and (end == start or drawn + int(runs[end]) <= _CHUNK):
            drawn += int(runs[end])
            end += 1
        values = units[pick.integers(0, n, size=drawn)]
        if values.dtype != object and top * drawn >= 2**63:
            values = values.astype(object)
        sums = np.concatenate([np.zeros(1, dtype=values.dtype), np.cumsum(values)])
        bounds = np.concatenate([[0], np.cumsum(runs[start:end])])
        out.extend(int(sums[b]) - int(sums[a]) for a, b in pairwise(bounds.tolist()))
        start = end
    return out


def _usd(units: int, scale: int) -> Decimal:
    with localcontext() as ctx:
        ctx.prec = 80  # scales are products of 2s and 5s: the quotient is exact at this precision
        return Decimal(units) / scale


def _stat(values: list[int], scale: int) -> Stat:
    """Mean, nearest-rank p50/p90/p99, min and max of whole ``values`` of ``1/scale`` each."""
    ordered = sorted(values)
    n = len(ordered)

    def at(q: int) -> Decimal:
        return _usd(ordered[nearest_rank(ordered, Decimal(q))], scale)

    places = _MEAN_USD if scale > 1 else Decimal("0.01")
    return Stat(
        mean=(_usd(sum(ordered), scale) / n).quantize(places, rounding=ROUND_HALF_UP),
        p50=at(50),
        p90=at(90),
        p99=at(99),
        min=_usd(ordered[0], scale),
        max=_usd(ordered[-1], scale),
    )


def simulate_months(
    items: Sequence[tuple[str, ProjectEntry, Estimate]],
    months: int,
    *,
    seed: int = 0,
    budget_usd: Decimal | None = None,
) -> MonthRisk:
    """``months`` months of every ``(name, entry, estimate)`` (see the module docstring)."""
    if not 1 <= months <= MAX_MONTHS:
        raise InputError(f"must be from 1 to {MAX_MONTHS:,} months, got {months:,}", key="--simulate")
    missing = [name for name, entry, _ in items if entry.runs_per_day is None]
    if missing:
        raise InputError(
            f"a month needs runs_per_day for every scenario; none for {', '.join(missing)}",
            key="runs_per_day",
            hint="add runs_per_day to each scenario of the project",
        )
    counts = []
    for i, (_, entry, _) in enumerate(items):
        days, _pick = _streams(seed, i)
        counts.append(month_runs(entry, months, days))
    drawn = sum(int(c.sum()) for c in counts)
    if drawn > MAX_MONTH_RUNS:
        per_month = max(1, drawn // months)
        raise InputError(
            f"{months:,} months of about {per_month:,} runs are {drawn:,} runs, more than the"
            f" {MAX_MONTH_RUNS:,} one simulation may draw",
            key="--simulate",
            hint=f"at most {max(1, MAX_MONTH_RUNS // per_month):,} months for this project",
        )
    per_scenario: list[tuple[list[int], int]] = []
    parts: list[MonthScenario] = []
    for i, ((name, entry, est), runs) in enumerate(zip(items, counts, strict=True)):
        units, scale = run_units(est, months, seed=seed)
        _days, pick = _streams(seed, i)
        totals = _month_units(units, runs, pick)
        per_scenario.append((totals, scale))
        shown = describe(entry.runs_dist) if entry.runs_dist is not None else f"{entry.runs_per_day}"
        parts.append(MonthScenario(name, shown, _stat([int(r) for r in runs], 1), _stat(totals, scale)))
    common = math.lcm(*(scale for _, scale in per_scenario))
    month = [0] * months
    for totals, scale in per_scenario:
        factor = common // scale
        month = [m + t * factor for m, t in zip(month, totals, strict=True)]
    over = None
    if budget_usd is not None:
        with localcontext() as ctx:
            ctx.prec = 80  # exact: a budget has at most a few dozen digits
            limit = math.floor(budget_usd * common)  # a month is over when its units > budget x scale
        over = sum(1 for m in month if m > limit)
    return MonthRisk(
        months=months,
        seed=seed,
        runs_per_scenario=months,
        cost=_stat(month, common),
        scenarios=tuple(parts),
        budget_usd=budget_usd,
        over_budget=over,
    )


__all__ = ["DAYS_PER_MONTH", "MonthRisk", "MonthScenario", "month_runs", "simulate_months"]
