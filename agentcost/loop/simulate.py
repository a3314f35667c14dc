"""Monte Carlo over a scenario's distributions (``agentcost estimate --simulate N``). No I/O.

Each run draws every uncertain count and size (:mod:`agentcost.scenario.dists`): a ``rounds`` item's
``repeat``, and for every round it yields, each of its uncertain sizes afresh. Draws come from one
PCG64 stream per (item, size, call), seeded from ``(seed, item, size, call)``, so a run's numbers do
not depend on how many runs there are, on the chunk size, or on which other inputs are uncertain;
holding one input at its median (for the sensitivity list) leaves every other draw unchanged. A
subagent with distributions of its own is drawn afresh for every call that starts it, from one seed
per run (:func:`agentcost.loop.subagents.drawn_subagents`, on the per-run engine, which every
scenario with subagents runs on).

Two engines give the same numbers (:mod:`agentcost.loop.engines`): the **vectorized** one runs a
chunk of runs at once with numpy; the **per run** one estimates each run's scenario with the
accountant, for what the vectorized engine does not model. This module draws the runs, picks the
engine, and turns the runs' costs into statistics, a histogram and the sensitivity list.

Percentiles are nearest-rank: the p-th percentile is the cost of the ``ceil(p/100 * N)``-th cheapest
run, so it is always a cost some run had, exact to the cent's fraction.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from agentcost.errors import InputError
from agentcost.infra.record import record
from agentcost.loop.engines import Chunk, Draws, NotVectorizable, PerRunEngine, VectorEngine, realize
from agentcost.loop.subagents import drawn_subagents, uncertain_subagents
from agentcost.scenario.dists import describe, median, upper
from agentcost.scenario.model import Dist, Scenario, SizeField

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from agentcost.loop.estimate import Estimate

    Ints = npt.NDArray[np.int64]

MAX_RUNS = 10_000_000
MAX_SIMULATED_REQUESTS = 200_000_000
"""Runs x requests of a run at its largest round counts, the most one simulation may take (the
vectorized engine does a few million a second on 2 cores): ``--simulate 10,000,000`` of a scenario
of up to 61 requests took 143 s, and is refused."""
MAX_SIMULATED_REQUESTS_PER_RUN = 2_000_000
"""The same for the per-run engine (the accountant: about 20,000 requests a second)."""
PERCENTILES = (50, 90, 99)
HISTOGRAM_BINS = 16
SENSITIVITY_RUNS = 20_000  # runs per input held at its median (the first runs of the simulation)
SENSITIVITY_RUNS_PER_RUN = 500  # the same with the per-run engine
_CELLS_PER_CHUNK = 1_000_000  # runs x requests drawn at once (a few arrays of 8 MB per kind of size)
_FIELDS = ("result", "call", "text", "thinking", "user")
_MEAN_USD = Decimal("1E-10")  # means are rounded half up to these places (percentiles are exact)
_MEAN_COUNT = Decimal("0.01")

Progress = Callable[[int, int], None]
"""Called with (runs done, runs in all) as the simulation goes."""


# --- results ----------------------------------------------------------------------------------------


@record
class Stat:
    """Mean, nearest-rank percentiles and extremes of one quantity over the runs."""

    mean: Decimal
    p50: Decimal
    p90: Decimal
    p99: Decimal
    min: Decimal
    max: Decimal

    def at(self, label: str) -> Decimal:
        """``mean``, ``max`` or ``p50``/``p90``/``p99`` (other percentiles: :meth:`Simulation.cost_at`)."""
        value: Decimal = getattr(self, label)
        return value


@record
class Bin:
    low_usd: Decimal
    high_usd: Decimal  # runs in this bin cost >= low and < high (the last bin: <= high)
    runs: int
    height: Fraction  # runs / the runs of the fullest bin, exact: its bar's length, the longest 1
    beyond_p99: bool = False  # the runs costlier than the p99 run (> low, <= high)


@record
class Input:
    """One uncertain input, where it is written and what it is."""

    where: str
    line: int | None
    text: str  # describe(dist)
    median: int


@record
class Sensitivity:
    """The cost at the statistic the list reads (:attr:`Simulation.sensitivity_at`: p90, or the
    ``--at`` statistic) with one input held at its median, and how much lower that is."""

    input: Input
    cost_usd: Decimal  # the statistic with this input held at its median
    drop_usd: Decimal  # the statistic of the simulation - the statistic with this input fixed


@record
class Tasks:
    """``--simulate`` of a scenario with an ``outcome``: each run draws its success probability (the
    distribution of ``outcome.success``, else its value) and then completes its task or not. A failed
    run costs its own drawn cost, or with ``failure_rounds`` at most the estimate's cut cost
    (:func:`failure_usd`). ``cost``: the cost per completed task, each completed task carrying
    what was spent since the previous completion (its own run and the failed runs before it), so
    that its mean is total spend / completions; None when no run completed."""

    completed: int  # runs that completed their task
    success_mean: Decimal  # the mean of the drawn success probabilities, rounded to 4 places
    cost: Stat | None


@record
class Simulation:
    runs: int
    seed: int
    engine: str  # "vectorized" or "per run"
    engine_note: str | None  # why the per-run engine was used
    cost: Stat  # USD, with subagents
    requests: Stat
    input_tokens: Stat
    inputs: tuple[Input, ...]
    hit_max_rounds: int  # runs that max_rounds cut short
    max_rounds: int | None
    stopped_by_budget: int  # runs max_budget_usd stopped
    budget_usd: Decimal | None
    over_budget: int | None  # runs over budget_usd (None: no budget)
    histogram: tuple[Bin, ...]
    sensitivity: tuple[Sensitivity, ...]
    deterministic_usd: Decimal  # the estimate at the medians
    percentile_usd: tuple[tuple[str, Decimal], ...] = ()  # further percentiles asked for (--at p95)
    tasks: Tasks | None = None  # the scenario's outcome: runs completed, cost per completed task
    sensitivity_at: str = "p90"  # the statistic the sensitivity list reads: p90, or --at's

    def share(self, runs: int) -> Decimal:
        """``runs`` as a share of all the runs (the shares the report shows are these)."""
        return Decimal(runs) / self.runs

    @property
    def over_budget_share(self) -> Decimal | None:
        return None if self.over_budget is None else self.share(self.over_budget)

    @property
    def hit_max_rounds_share(self) -> Decimal:
        return self.share(self.hit_max_rounds)

    @property
    def stopped_by_budget_share(self) -> Decimal:
        return self.share(self.stopped_by_budget)

    @property
    def completed_share(self) -> Decimal | None:
        """The runs that completed their task, as a share of all (None: the scenario has no outcome)."""
        return None if self.tasks is None else self.share(self.tasks.completed)

    def cost_at(self, label: str) -> Decimal:
        """The cost at ``mean``, ``max`` or a percentile label ``pNN`` computed for this simulation."""
        for name, value in self.percentile_usd:
            if name == label:
                return value
        return self.cost.at(label)


def parse_at(value: str) -> str:
    """A statistic to read: ``mean``, ``max`` or a percentile ``p1``..``p99.9`` (returned normalised)."""
    text = value.strip().lower()
    if text in ("mean", "max"):
        return text
    number = text[1:] if text.startswith("p") else text
    try:
        q = Decimal(number)
    except ArithmeticError:
        q = Decimal(-1)
    if not number or not q.is_finite() or not 0 < q < 100:
        raise InputError(
            f"not a percentile: {value!r}", key="at", hint="mean, max, or p50, p90, p99 (any p1 to p99.9)"
        )
    return f"p{q.normalize():f}"


def nearest_rank(sorted_values: Sequence[int] | Ints, q: Decimal) -> int:
    """Index of the nearest-rank ``q``-th percentile in ascending values (1 <= rank <= N)."""
    n = len(sorted_values)
    rank = math.ceil(q * n / 100)
    return min(max(rank, 1), n) - 1


# --- run values -----------------------------------------------------------------------------------------


class _Streams:
    """One random stream per uncertain input, and the draws of the next chunk of runs."""

    def __init__(self, scenario: Scenario, seed: int, slots: Sequence[int], fixed: str | None) -> None:
        import numpy as np

        def stream(*key: int) -> np.random.Generator:
            return np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, *key])))

        self.scenario, self.slots, self.fixed = scenario, slots, fixed
        self.repeat = [stream(i, 0, 0) for i in range(len(scenario.spreads))]
        self.size = [
            {(f, j): stream(i, 1 + _FIELDS.index(f), j) for f, j, _ in sp.sizes}
            for i, sp in enumerate(scenario.spreads)
        ]
        self.final = stream(1 << 20, 1, 0)
        self.final_thinking = stream(1 << 20, 2, 0)
        # one seed per run for its subagents' own distributions (none: every subagent is certain)
        self.subagents = stream(1 << 21, 0, 0) if uncertain_subagents(scenario) else None

    def _draw(self, dist: Dist, gen: np.random.Generator, shape: tuple[int, ...]) -> Ints:
        import numpy as np

        from agentcost.scenario.dists import sample

        u = gen.random(shape)  # drawn even when fixed, so other chunks are unchanged
        if dist.where == self.fixed:
            return np.full(shape, median(dist), dtype=np.int64)
        return sample(dist, u)  # at most MAX_DRAW, cut before any int64 conversion

    def next(self, n: int) -> Draws:
        import numpy as np

        s = self.scenario
        counts: list[Ints] = []
        sizes: list[dict[tuple[SizeField, int], Ints]] = []
        for i, sp in enumerate(s.spreads):
            if sp.repeat is None:
                counts.append(np.full(n, sp.count, dtype=np.int64))
            else:
                counts.append(np.minimum(self._draw(sp.repeat, self.repeat[i], (n,)), self.slots[i]))
            sizes.append(
                {(f, j): self._draw(d, self.size[i][(f, j)], (n, self.slots[i])) for f, j, d in sp.sizes}
            )
        final = None if s.final_dist is None else self._draw(s.final_dist, self.final, (n,))
        thinking = (
            None
            if s.final_thinking_dist is None
            else self._draw(s.final_thinking_dist, self.final_thinking, (n,))
        )
        seeds = (
            None if self.subagents is None else self.subagents.integers(0, 2**63 - 1, size=n, dtype=np.int64)
        )
        return Draws(counts, sizes, final, thinking, seeds)


def _one_run(sub: Scenario, seed: int) -> Scenario:
    """One run of ``sub`` drawn from ``seed``, as ``--simulate`` of ``sub`` alone draws its runs
    (:func:`agentcost.loop.subagents.drawn_subagents` draws its own subagents)."""
    if not sub.uncertain:
        return sub
    d = _Streams(sub, seed, slot_counts(sub), None).next(1)
    return realize(
        sub,
        [int(c[0]) for c in d.counts],
        [{key: v[0] for key, v in sz.items()} for sz in d.sizes],
        None if d.final is None else int(d.final[0]),
        None if d.final_thinking is None else int(d.final_thinking[0]),
    )


def inputs(scenario: Scenario) -> tuple[Input, ...]:
    """Every distinct uncertain input, in file order."""
    seen: dict[str, Input] = {}
    dists: list[Dist] = []
    for sp in scenario.spreads:
        if sp.repeat is not None:
            dists.append(sp.repeat)
        dists.extend(d for _, _, d in sp.sizes)
    dists.extend(d for d in (scenario.final_dist, scenario.final_thinking_dist) if d is not None)
    for d in dists:
        seen.setdefault(d.where, Input(d.where, d.line, describe(d), median(d)))
    return tuple(sorted(seen.values(), key=lambda i: (i.line or 0, i.where)))


def slot_counts(scenario: Scenario) -> list[int]:
    """How many round slots each uncertain item needs: its largest round count, or for an unbounded
    one (lognormal) ``limits.max_rounds + 1`` (a run that long is cut short anyway)."""
    cap = scenario.limits.max_rounds
    out: list[int] = []
    for sp in scenario.spreads:
        if sp.repeat is None:
            out.append(sp.count)
            continue
        most = upper(sp.repeat)
        if most is None and cap is None:
            raise InputError(
                f"a {sp.repeat.kind} round count has no upper bound",
                file=scenario.path,
                line=sp.repeat.line,
                key=sp.repeat.where,
                hint="set limits.max_rounds (runs are cut there), or give a bounded distribution",
            )
        if most is None:
            assert cap is not None
            out.append(cap + 1)
        else:
            out.append(most if cap is None else min(most, cap + 1))
    _check_largest_run(scenario, out)
    return out


def _check_largest_run(scenario: Scenario, slots: Sequence[int]) -> None:
    """The limits on rounds and tool calls in all (agentcost.scenario.load, docs/limits.md) hold for the
    scenario at its medians; a simulation runs it at every item's largest round count too."""
    from agentcost.scenario.model import MAX_CALLS, MAX_ROUNDS

    extra_rounds = sum(k - sp.count for sp, k in zip(scenario.spreads, slots, strict=True))
    extra_calls = [
        (k - sp.count) * len(sp.round.calls) for sp, k in zip(scenario.spreads, slots, strict=True)
    ]
    rounds = len(scenario.rounds) + extra_rounds
    calls = sum(len(r.calls) for r in scenario.rounds) + sum(extra_calls)
    if rounds <= MAX_ROUNDS and calls <= MAX_CALLS:
        return
    biggest = max(range(len(slots)), key=lambda i: extra_calls[i] if calls > MAX_CALLS else slots[i])
    dist = scenario.spreads[biggest].repeat
    what = f"{calls:,} tool calls" if calls > MAX_CALLS else f"{rounds:,} rounds"
    limit = f"{MAX_CALLS:,} tool calls" if calls > MAX_CALLS else f"{MAX_ROUNDS:,} rounds"
    raise InputError(
        f"at its largest round count a run has {what}, more than the {limit} a run may have",
        file=scenario.path,
        line=None if dist is None else dist.line,
        key=None if dist is None else dist.where,
        hint="lower the distribution's maximum, or set limits.max_rounds (runs are cut there)",
    )


# --- the simulation ---------------------------------------------------------------------------------


def _stat(values: Ints | npt.NDArray[Any], total: int, n: int, scale: int = 1) -> Stat:
    """The statistics of ``values``, which it sorts in place (no copy: 80 MB at 10 million runs)."""
    values.sort()
    ordered = values

    def at(q: int) -> Decimal:
        return Decimal(int(ordered[nearest_rank(ordered, Decimal(q))])) / scale

    places = _MEAN_USD if scale > 1 else _MEAN_COUNT
    return Stat(
        mean=(Decimal(total) / n / scale).quantize(places, rounding=ROUND_HALF_UP),
        p50=at(50),
        p90=at(90),
        p99=at(99),
        min=Decimal(int(ordered[0])) / scale,
        max=Decimal(int(ordered[-1])) / scale,
    )


def _histogram(units: Ints | npt.NDArray[Any], scale: int) -> tuple[Bin, ...]:
    """Equal-width bins from the cheapest run to the p99 run, and one bin for the costlier 1%
    (a long tail would otherwise squeeze every other run into the first bin)."""
    import numpy as np

    ordered = units  # sorted by the caller
    lo, top = int(ordered[0]), int(ordered[-1])
    if lo == top:
        return (Bin(Decimal(lo) / scale, Decimal(top) / scale, len(units), Fraction(1)),)
    hi = int(ordered[nearest_rank(ordered, Decimal(99))])
    bins = HISTOGRAM_BINS if hi == top else HISTOGRAM_BINS - 1
    width = max(1, -(-(hi - lo + 1) // bins))
    tail = int(np.count_nonzero(ordered > hi))
    body = ordered[: len(ordered) - tail]
    if body.dtype == object:  # Python ints (the per-run engine): exact whatever their size
        counts = [0] * bins
        for value in body.tolist():
            counts[min((value - lo) // width, bins - 1)] += 1
    else:
        counts = np.bincount(np.minimum((body - lo) // width, bins - 1), minlength=bins).tolist()
    most = max(*counts, tail)  # the fullest bin's runs (at least one run: never 0)
    out = [
        Bin(
            Decimal(lo + b * width) / scale,
            Decimal(min(lo + (b + 1) * width, hi)) / scale,
            counts[b],
            Fraction(counts[b], most),
        )
        for b in range(bins)
    ]
    if tail:
        tail_bin = Bin(Decimal(hi) / scale, Decimal(top) / scale, tail, Fraction(tail, most), beyond_p99=True)
        out.append(tail_bin)
    return tuple(out)


@record(frozen=False)
class _Totals:
    """The runs' results, one array each, filled chunk by chunk (never a list of chunks and a copy)."""

    units: Any
    requests: Any
    tokens: Any
    truncated: Any
    stopped: Any
    scale: int
    largest: Any = None  # per run, the output tokens of its largest request (agentcost.loop.caps)


def _engine(est: Estimate, slots: Sequence[int]) -> tuple[VectorEngine | PerRunEngine, str | None]:
    try:
        return VectorEngine(est, slots), None
    except NotVectorizable as why:
        return PerRunEngine(est, lambda run, seed: drawn_subagents(run, seed, _one_run)), str(why)


def _simulate(
    est: Estimate,
    engine: VectorEngine | PerRunEngine,
    runs: int,
    seed: int,
    slots: Sequence[int],
    fixed: str | None = None,
    progress: Progress | None = None,
    done: int = 0,
    total: int | None = None,
) -> _Totals:
    import numpy as np

    streams = _Streams(est.scenario, seed, slots, fixed)
    vector = isinstance(engine, VectorEngine)
    chunk = max(1, min(runs, _CELLS_PER_CHUNK // _cells(est, slots))) if vector else 200
    kind = np.int64 if vector else object  # the per-run engine's exact Python ints
    units, requests, tokens = (np.zeros(runs, dtype=kind) for _ in range(3))
    out = _Totals(
        units,
        requests,
        tokens,
        np.zeros(runs, dtype=bool),
        np.zeros(runs, dtype=bool),
        engine.scale,
        np.zeros(runs, dtype=kind),
    )
    start = 0
    while start < runs:
        n = min(chunk, runs - start)
        part: Chunk = engine.run(streams.next(n), n)
        end = start + n
        out.units[start:end] = part.cost_units
        out.requests[start:end] = part.requests
        out.tokens[start:end] = part.input_tokens
        out.truncated[start:end] = part.truncated
        out.stopped[start:end] = part.budget_stopped
        if part.largest_output is not None:
            out.largest[start:end] = part.largest_output
        start = end
        if progress is not None:
            progress(done + start, total if total is not None else runs)
    return out


def _cells(est: Estimate, slots: Sequence[int]) -> int:
    """Requests of one run at its largest round counts (the rounds, every uncertain item at its
    slots, and the final answer): the chunks' unit, and what :data:`MAX_SIMULATED_REQUESTS` counts."""
    s = est.scenario
    return len(s.rounds) - sum(sp.count for sp in s.spreads) + sum(slots) + 1


def _check_work(est: Estimate, engine: VectorEngine | PerRunEngine, runs: int, slots: Sequence[int]) -> None:
    """Refuse more runs x requests than one simulation may take (:data:`MAX_SIMULATED_REQUESTS`)."""
    cells = _cells(est, slots)
    most = MAX_SIMULATED_REQUESTS if isinstance(engine, VectorEngine) else MAX_SIMULATED_REQUESTS_PER_RUN
    if runs * cells > most:
        raise InputError(
            f"{runs:,} runs of up to {cells:,} requests are {runs * cells:,} simulated requests, more "
            f"than the {most:,} one simulation may take ({engine.name} engine)",
            key="runs",
            hint=f"at most {max(1, most // cells):,} runs for this scenario",
        )


def _sum(values: Any) -> int:
    """The exact sum of whole numbers: int64 (>= 0) summed as two 32-bit halves, which cannot
    overflow for up to 2**31 values; anything else (Python ints) by Python."""
    import numpy as np

    if values.dtype != np.int64:
        total: int = sum(values.tolist())
        return total
    return (int(np.sum(values >> 32)) << 32) + int(np.sum(values & 0xFFFFFFFF))


def simulate(
    est: Estimate,
    runs: int,
    *,
    seed: int = 0,
    budget_usd: Decimal | None = None,
    at: Sequence[str] = (),
    sensitivity: bool = True,
    progress: Progress | None = None,
    per_run: bool = False,
    sensitivity_at: str = "p90",
) -> Simulation:
    """``runs`` runs of the scenario of ``est``, priced as ``est`` was (``est.options``).
    ``budget_usd``: count runs over it; ``at``: further percentile labels (``p95``) to report;
    ``per_run``: force the per-run engine; ``sensitivity_at``: the statistic (``p90``, ``p99``,
    ``mean``, ``max``: :func:`parse_at`'s labels) the sensitivity list ranks the inputs by, the one
    the budget is judged at (``--at``)."""
    import numpy as np

    if not 1 <= runs <= MAX_RUNS:
        raise InputError(f"must be from 1 to {MAX_RUNS:,} runs, got {runs:,}", key="runs")
    s = est.scenario
    slots = slot_counts(s)
    engine, note = (PerRunEngine(est), "asked for") if per_run else _engine(est, slots)
    _check_work(est, engine, runs, slots)
    found = inputs(s)
    sens_runs = min(runs, SENSITIVITY_RUNS if isinstance(engine, VectorEngine) else SENSITIVITY_RUNS_PER_RUN)
    work = runs + (len(found) * sens_runs if sensitivity and len(found) > 1 else 0)
    main = _simulate(est, engine, runs, seed, slots, progress=progress, total=work)
    scale = main.scale
    units_total = _sum(main.units)
    tasks = _tasks(est, main.units, seed, scale)  # reads the runs in order: before the sort
    ranked: list[Sensitivity] = []
    if sensitivity and len(found) > 1:
        base = _cost_at(main.units[:sens_runs].copy(), scale, sensitivity_at)
        done = runs
        for item in found:
            held = _simulate(est, engine, sens_runs, seed, slots, item.where, progress, done, work)
            done += sens_runs
            value = _cost_at(held.units, scale, sensitivity_at)
            ranked.append(Sensitivity(item, value, base - value))
        ranked.sort(key=lambda x: (-x.drop_usd, x.input.where))
    cost = _stat(main.units, units_total, runs, scale)  # main.units is sorted from here on
    extra: list[tuple[str, Decimal]] = []
    ordered = main.units
    for label in at:
        if label.startswith("p") and label not in ("p50", "p90", "p99"):
            q = Decimal(label[1:])
            extra.append((label, Decimal(int(ordered[nearest_rank(ordered, q)])) / scale))
    over = None
    if budget_usd is not None:
        limit = budget_usd * scale
        over = int(np.count_nonzero(main.units > (int(limit) if limit == int(limit) else math.floor(limit))))
    return Simulation(
        runs=runs,
        seed=seed,
        engine=engine.name,
        engine_note=note,
        cost=cost,
        requests=_stat(main.requests, _sum(main.requests), runs),
        input_tokens=_stat(main.tokens, _sum(main.tokens), runs),
        inputs=found,
        hit_max_rounds=int(np.count_nonzero(main.truncated)),
        max_rounds=s.limits.max_rounds,
        stopped_by_budget=int(np.count_nonzero(main.stopped)),
        budget_usd=budget_usd,
        over_budget=over,
        histogram=_histogram(main.units, scale),
        sensitivity=tuple(ranked),
        deterministic_usd=est.total_usd,
        percentile_usd=tuple(extra),
        tasks=tasks,
        sensitivity_at=sensitivity_at,
    )


def run_units(est: Estimate, runs: int, *, seed: int = 0) -> tuple[Any, int]:
    """The costs of ``runs`` runs of ``est``'s scenario in run order, as whole units of ``1/scale``
    dollars: ``(units, scale)``, the very runs :func:`simulate` draws with this seed (what a
    project's simulated month draws its runs from, :mod:`agentcost.loop.month`)."""
    if not 1 <= runs <= MAX_RUNS:
        raise InputError(f"must be from 1 to {MAX_RUNS:,} runs, got {runs:,}", key="runs")
    slots = slot_counts(est.scenario)
    engine, _ = _engine(est, slots)
    _check_work(est, engine, runs, slots)
    out = _simulate(est, engine, runs, seed, slots)
    return out.units, out.scale


_TASK_STREAM = 1 << 21  # the seed key of the outcome's streams (apart from every input's)


def failure_usd(est: Estimate) -> Decimal | None:
    """What a failed run costs when ``outcome.failure_rounds`` N cuts it (docs/scenario.md#outcome):
    the ledger's running total after the last request of the run's first N rounds (a request made
    before a round belongs to it), the subagents those rounds started, and the run's explicit-cache
    creation and storage. A run of N rounds or fewer costs in full. None without ``failure_rounds``."""
    outcome = est.scenario.outcome
    if outcome is None or outcome.failure_rounds is None:
        return None
    n = outcome.failure_rounds
    owners: list[int | None] = []  # the round each request belongs to (None: the final answer)
    owner: int | None = None
    for row in reversed(est.ledger.rows):
        owner = row.round if row.round is not None else owner
        owners.append(owner)
    owners.reverse()
    if not any(o is not None and o >= n for o in owners):
        return est.total_usd  # no round after the N-th: the failure is found at the end
    spent = Decimal(0)
    for o, row in zip(owners, est.ledger.rows, strict=True):
        if o is None or o >= n:
            break
        spent = row.running_usd
    subagents = sum((sub.total_usd for (i, _), sub in est.subagents.items() if i < n), Decimal(0))
    own = est.ledger.totals
    return spent + subagents + own.cache_creation_usd + own.storage_usd


def _tasks(est: Estimate, units: Any, seed: int, scale: int) -> Tasks | None:
    """Each run completes or not (:class:`Tasks`), from two streams of their own: the success
    probabilities and the uniforms they are compared with."""
    import numpy as np

    from agentcost.scenario.dists import sample
    from agentcost.scenario.model import SUCCESS_SCALE

    o = est.scenario.outcome
    if o is None:
        return None
    n = len(units)

    def stream(key: int) -> np.random.Generator:
        return np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, _TASK_STREAM, key])))

    u_success, u_run = stream(0).random(n), stream(1).random(n)
    prices = est.prices
    names = (prices.model_id, prices.model_ref, f"{prices.provider}/{prices.model_id}")
    own = next((p for name, p in o.by_model if name in names), None)
    if o.success_dist is not None and own is None:
        millionths = sample(o.success_dist, u_success)
    else:
        millionths = np.full(n, int((own if own is not None else o.success) * SUCCESS_SCALE), dtype=np.int64)
    completed = u_run * SUCCESS_SCALE < millionths
    # running sums in int64 when the total spend fits (exact), else in Python ints (10 million of
    # them take about 400 MB)
    kind = np.int64 if units.dtype == np.int64 and _sum(units) < 2**63 else object
    spent = np.asarray(units, dtype=kind)
    f = failure_usd(est)
    if f is not None:
        cut = int(f * scale)
        spent = np.where(completed, spent, np.minimum(spent, cut)).astype(kind)
    done = np.flatnonzero(completed)
    mean = (Decimal(_sum(millionths)) / n / SUCCESS_SCALE).quantize(Decimal("0.0001"), rounding=ROUND_HALF_UP)
    if not len(done):
        return Tasks(0, mean, None)
    running = np.cumsum(spent)
    del spent
    ends = running[done]
    del running
    costs = ends - np.concatenate([np.array([0], dtype=kind), ends[:-1]])
    return Tasks(len(done), mean, _stat(costs, _sum(costs), len(done), scale))


def _cost_at(units: Any, scale: int, label: str) -> Decimal:
    """The statistic ``label`` of ``units`` in dollars (``mean``, ``max``, ``pNN``: as
    :class:`Stat` and :meth:`Simulation.cost_at` read them), sorting ``units`` in place."""
    if label == "mean":
        return (Decimal(_sum(units)) / len(units) / scale).quantize(_MEAN_USD, rounding=ROUND_HALF_UP)
    units.sort()
    ordered = units
    if label == "max":
        return Decimal(int(ordered[-1])) / scale
    return Decimal(int(ordered[nearest_rank(ordered, Decimal(label[1:]))])) / scale


__all__ = [
    "Input",
    "Sensitivity",
    "Simulation",
    "Stat",
    "Tasks",
    "failure_usd",
    "inputs",
    "parse_at",
    "run_units",
    "simulate",
    "slot_counts",
]
