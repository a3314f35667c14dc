"""Runtime caps from the simulated runs of a scenario (``agentcost caps``). No I/O.

The runs are the main runs of ``estimate --simulate N --seed S`` (:mod:`agentcost.loop.simulate`:
the same streams, the same engines), so the caps' percentiles are the percentiles ``estimate``
reports for the same N and seed. Three quantities of each run are read, each at the asked
statistic (nearest-rank, as ``--simulate``'s: a value some run had):

* **requests**: the model requests the run made (its turns; subagents' requests included, as
  ``--simulate`` counts them);
* **cost**: what the run cost, exact;
* **largest output**: the output tokens (thinking included: it is billed and capped as output) of
  the run's largest request; the scenario's own requests, a subagent's are its own agent's.

Each cap is that value with the margin added and rounded up (:func:`cap_values`): turns to a whole
request, dollars to the cent, tokens to a multiple of :data:`TOKEN_STEP`. A scenario with no
distribution has one run: its caps are that run's figures (plus the margin, if one is asked).
"""

from __future__ import annotations

import math
from decimal import ROUND_CEILING, Decimal
from typing import TYPE_CHECKING, Any

from agentcost.errors import InputError
from agentcost.infra.record import record

if TYPE_CHECKING:
    from agentcost.loop.estimate import Estimate

CENT = Decimal("0.01")
TOKEN_STEP = 256
"""max_tokens is rounded up to a multiple of this many tokens (requests' output sizes are whole
tokens of an estimate; 256 is fine enough not to double a small cap, coarse enough to read)."""
MAX_MARGIN = Decimal(1000)  # percent


@record
class CapValues:
    """The caps: each run quantity at the statistic, the margin added, rounded up."""

    max_turns: int
    max_budget_usd: Decimal
    max_tokens: int


@record
class CapRuns:
    """The runs the caps are read from, and how many of them each cap would stop or cut."""

    label: str  # the statistic read: p99, p95, max...
    runs: int  # 1: the scenario has no distribution (no simulation)
    seed: int | None  # None: nothing drawn
    engine: str | None  # the simulation's engine (None: not simulated)
    requests: int  # at the statistic
    cost_usd: Decimal
    largest_output: int
    margin: Decimal  # percent added before rounding up
    caps: CapValues
    beyond_turns: int  # runs with more requests than max_turns
    beyond_budget: int  # runs that cost more than max_budget_usd
    beyond_tokens: int  # runs with a request of more output tokens than max_tokens
    beyond_any: int  # runs beyond at least one of the three
    subagents: bool  # the scenario starts subagents (their requests are in the turns)

    @property
    def simulated(self) -> bool:
        return self.seed is not None

    def share(self, runs: int) -> Decimal:
        return Decimal(runs) / self.runs


def parse_margin(value: str | None) -> Decimal:
    """``--margin``: a percentage from 0 to 1000 (``20`` or ``20%``), exact."""
    if value is None:
        return Decimal(0)
    text = value.strip().removesuffix("%").strip()
    try:
        margin = Decimal(text)
    except ArithmeticError:
        margin = Decimal(-1)
    if not text or not margin.is_finite() or not 0 <= margin <= MAX_MARGIN:
        raise InputError(
            f"not a margin: {value!r}",
            key="--margin",
            hint=f"a percentage from 0 to {MAX_MARGIN:,}, e.g. 20%",
        )
    return margin


def cap_label(value: str) -> str:
    """``--at``: a percentile ``p1``..``p99.9`` or ``max`` (the mean is no cap: half the runs pass it)."""
    from agentcost.loop.simulate import parse_at

    label = parse_at(value)
    if label == "mean":
        raise InputError(
            "the mean is no cap: about half of the runs pass it", key="--at", hint="p90, p99, p99.9 or max"
        )
    return label


def cap_values(requests: int, cost_usd: Decimal, largest: int, margin: Decimal) -> CapValues:
    """Each value with ``margin`` percent added, rounded up: turns to a whole request, dollars up to
    the cent, output tokens up to a multiple of :data:`TOKEN_STEP` (at least one step)."""
    scale = 1 + margin / 100
    turns = math.ceil(requests * scale)
    budget = (cost_usd * scale).quantize(CENT, rounding=ROUND_CEILING)
    tokens = max(1, math.ceil(largest * scale))
    return CapValues(
        max_turns=max(turns, 1),
        max_budget_usd=max(budget, CENT),
        max_tokens=-(-tokens // TOKEN_STEP) * TOKEN_STEP,
    )


def _at(ordered: Any, label: str) -> int:
    from agentcost.loop.simulate import nearest_rank

    if label == "max":
        return int(ordered[-1])
    return int(ordered[nearest_rank(ordered, Decimal(label[1:]))])


def _has_subagents(est: Estimate) -> bool:
    return bool(est.subagents) or any(c.subagent for r in est.scenario.rounds for c in r.calls)


def caps_of_runs(
    est: Estimate, runs: int, *, seed: int = 0, label: str = "p99", margin: Decimal = Decimal(0)
) -> CapRuns:
    """The caps at ``label`` of ``runs`` simulated runs of the scenario of ``est`` (seed ``seed``),
    priced as ``est`` was; one run (``est`` itself) when the scenario has no distribution."""
    import numpy as np

    from agentcost.loop import simulate as sim

    if not sim.inputs(est.scenario):  # nothing uncertain: every run is the estimate's run
        return _deterministic(est, label, margin)

    if not 1 <= runs <= sim.MAX_RUNS:
        raise InputError(f"must be from 1 to {sim.MAX_RUNS:,} runs, got {runs:,}", key="runs")
    slots = sim.slot_counts(est.scenario)
    engine, _ = sim._engine(est, slots)
    sim._check_work(est, engine, runs, slots)
    done = sim._simulate(est, engine, runs, seed, slots)
    scale = done.scale
    requests, units, largest = done.requests, done.units, done.largest
    r_at = _at(np.sort(requests), label)
    units_at = _at(np.sort(units), label)
    out_at = _at(np.sort(largest), label)
    cost_at = Decimal(units_at) / scale
    caps = cap_values(r_at, cost_at, out_at, margin)
    limit = caps.max_budget_usd * scale  # a whole number of units: a cent is a multiple of 1/scale
    over_turns = requests > caps.max_turns
    over_budget = units > int(limit) if limit == int(limit) else units > math.floor(limit)
    over_tokens = largest > caps.max_tokens
    return CapRuns(
        label=label,
        runs=runs,
        seed=seed,
        engine=engine.name,
        requests=r_at,
        cost_usd=cost_at,
        largest_output=out_at,
        margin=margin,
        caps=caps,
        beyond_turns=int(np.count_nonzero(over_turns)),
        beyond_budget=int(np.count_nonzero(over_budget)),
        beyond_tokens=int(np.count_nonzero(over_tokens)),
        beyond_any=int(np.count_nonzero(over_turns | over_budget | over_tokens)),
        subagents=_has_subagents(est),
    )


def _deterministic(est: Estimate, label: str, margin: Decimal) -> CapRuns:
    """The caps of a scenario without distributions: its one run's figures (the margin added)."""
    from agentcost.loop.engines import task_totals

    cost, requests, _ = task_totals(est)
    largest = max((row.usage.output_tokens for row in est.ledger.rows), default=0)
    caps = cap_values(requests, cost, largest, margin)
    return CapRuns(
        label=label,
        runs=1,
        seed=None,
        engine=None,
        requests=requests,
        cost_usd=cost,
        largest_output=largest,
        margin=margin,
        caps=caps,
        beyond_turns=0,
        beyond_budget=0,
        beyond_tokens=0,
        beyond_any=0,
        subagents=_has_subagents(est),
    )


__all__ = [
    "CENT",
    "TOKEN_STEP",
    "CapRuns",
    "CapValues",
    "cap_label",
    "cap_values",
    "caps_of_runs",
    "parse_margin",
]
