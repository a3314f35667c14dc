"""Monte Carlo over a scenario's distributions (``agentcost estimate --simulate N``). No I/O.

Each run draws every uncertain count and size (:mod:`agentcost.scenario.dists`): a ``rounds`` item's
``repeat``, and for every round it yields, each of its uncertain sizes afresh. Draws come from one
PCG64 stream per (item, size, call), seeded from ``(seed, item, size, call)``, so a run's numbers do
not depend on how many runs there are, on the chunk size, or on which other inputs are uncertain;
holding one input at its median (for the sensitivity list) leaves every other draw unchanged.

Two engines give the same numbers (tests check they agree run by run):

* **vectorized**: tokens are counted once, for the scenario with every uncertain item at its largest
  round count; how each round's tokens move with each size is measured by recounting with the sizes
  raised (the counting rules are affine in a stated size; the engine checks it), and the loop is
  then run for a chunk of runs at once with numpy, one step per round slot, in whole numbers. The
  prices are read off the pricer the same way (exact fractions per token, per long-context tier,
  checked against the pricer on a mixed request) and every run's cost is an exact integer of
  ``1 / scale`` dollars.
* **per run**: builds each run's scenario and estimates it with the accountant, for what the
  vectorized engine does not model (subagents, routing, retries, deferred tools, trimming, context
  editing, ``max_budget_usd`` stops, cache expiry, Gemini explicit caches, two cache TTLs, server-tool
  continuations). Exact, and about a thousand times slower.

Percentiles are nearest-rank: the p-th percentile is the cost of the ``ceil(p/100 * N)``-th cheapest
run, so it is always a cost some run had, exact to the cent's fraction.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from agentcost.errors import InputError
from agentcost.loop.accountant import RequestUsage, request_gaps, run_accountant
from agentcost.scenario.dists import describe, median, upper
from agentcost.scenario.model import Content, Dist, Round, Scenario, SizeField

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from agentcost.loop.accountant import CachePolicy, Pricer
    from agentcost.loop.estimate import Estimate
    from agentcost.prices.lookup import ModelPrices
    from agentcost.prices.user import UserPrices
    from agentcost.tokens.counts import TokenCounts

    Ints = npt.NDArray[np.int64]

MAX_RUNS = 10_000_000
MAX_SIZE = 1_000_000_000  # a drawn size is capped here (a lognormal tail is unbounded)
PERCENTILES = (50, 90, 99)
HISTOGRAM_BINS = 16
SENSITIVITY_RUNS = 20_000  # runs per input held at its median (the first runs of the simulation)
SENSITIVITY_RUNS_PER_RUN = 500  # the same with the per-run engine
_BUMP = 1_000  # how far sizes are raised to measure the counting rules' slopes
_CELLS_PER_CHUNK = 4_000_000  # runs x round slots held in memory at once
_FIELDS = ("result", "call", "text", "thinking", "user")
_MEAN_USD = Decimal("1E-10")  # means are rounded half up to these places (percentiles are exact)
_MEAN_COUNT = Decimal("0.01")

Progress = Callable[[int, int], None]
"""Called with (runs done, runs in all) as the simulation goes."""


# --- results ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class Bin:
    low_usd: Decimal
    high_usd: Decimal  # runs in this bin cost >= low and < high (the last bin: <= high)
    runs: int
    beyond_p99: bool = False  # the runs costlier than the p99 run (> low, <= high)


@dataclass(frozen=True)
class Input:
    """One uncertain input, where it is written and what it is."""

    where: str
    line: int | None
    text: str  # describe(dist)
    median: int


@dataclass(frozen=True)
class Sensitivity:
    """The p90 cost with one input held at its median, and how much lower that is."""

    input: Input
    p90_usd: Decimal
    drop_usd: Decimal  # p90 of the simulation - p90 with this input fixed


@dataclass(frozen=True)
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

    @property
    def over_budget_share(self) -> Decimal | None:
        return None if self.over_budget is None else Decimal(self.over_budget) / self.runs

    def cost_at(self, label: str) -> Decimal:
        """The cost at ``mean``, ``max`` or a percentile label ``pNN`` computed for this simulation."""
        for name, value in self.percentile_usd:
            if name == label:
                return value
        return self.cost.at(label)


def parse_at(value: str) -> str:
    """``--at``: ``mean``, ``max`` or a percentile ``p1``..``p99.9`` (returned normalised)."""
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
            f"not a percentile: {value!r}", key="--at", hint="mean, max, or p50, p90, p99 (any p1 to p99.9)"
        )
    return f"p{q.normalize():f}"


def nearest_rank(sorted_values: Sequence[int] | Ints, q: Decimal) -> int:
    """Index of the nearest-rank ``q``-th percentile in ascending values (1 <= rank <= N)."""
    n = len(sorted_values)
    rank = math.ceil(q * n / 100)
    return min(max(rank, 1), n) - 1


# --- run values and the scenario of one run ------------------------------------------------------------


@dataclass
class Draws:
    """The drawn values of a chunk of runs: per spread its round count (n,) and, per (field, call),
    sizes (n, slots); the final answer's size and thinking (n,) or None when fixed."""

    counts: list[Ints]
    sizes: list[dict[tuple[SizeField, int], Ints]]
    final: Ints | None
    final_thinking: Ints | None


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

    def _draw(self, dist: Dist, gen: np.random.Generator, shape: tuple[int, ...]) -> Ints:
        import numpy as np

        from agentcost.scenario.dists import sample

        u = gen.random(shape)  # drawn even when fixed, so other chunks are unchanged
        if dist.where == self.fixed:
            return np.full(shape, median(dist), dtype=np.int64)
        return np.minimum(sample(dist, u), MAX_SIZE)

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
        return Draws(counts, sizes, final, thinking)


def _sized(r: Round, values: dict[tuple[SizeField, int], int]) -> Round:
    """``r`` with the given sizes stated in tokens."""
    if not values:
        return r
    calls = list(r.calls)
    for (f, j), v in values.items():
        if f == "result":
            calls[j] = replace(calls[j], result=Content(tokens=v))
        elif f == "call":
            calls[j] = replace(calls[j], input=Content(tokens=v))
    changes: dict[str, Any] = {"calls": tuple(calls)}
    for f, key in (("text", "text"), ("user", "user")):
        if (f, 0) in values:
            changes[key] = Content(tokens=values[(f, 0)])
    if ("thinking", 0) in values:
        changes["thinking"] = values[("thinking", 0)]
    return replace(r, **changes)


def realize(
    scenario: Scenario,
    counts: Sequence[int],
    sizes: Sequence[dict[tuple[SizeField, int], Sequence[int]]],
    final: int | None = None,
    final_thinking: int | None = None,
) -> Scenario:
    """The scenario of one run: item ``i`` of ``scenario.spreads`` yields ``counts[i]`` rounds, the
    ``c``-th with sizes ``sizes[i][(field, call)][c]``; no distributions are left in it."""
    rounds: list[Round] = []
    pos = 0
    for sp, k, sz in zip(scenario.spreads, counts, sizes, strict=True):
        rounds.extend(scenario.rounds[pos : sp.first])
        for c in range(k):
            rounds.append(_sized(sp.round, {key: int(v[c]) for key, v in sz.items()}))
        pos = sp.first + sp.count
    rounds.extend(scenario.rounds[pos:])
    return replace(
        scenario,
        rounds=tuple(rounds),
        final=scenario.final if final is None else Content(tokens=final),
        final_thinking=scenario.final_thinking if final_thinking is None else final_thinking,
        spreads=(),
        final_dist=None,
        final_thinking_dist=None,
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
    from agentcost.scenario.load import MAX_CALLS, MAX_ROUNDS

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


# --- the engines ----------------------------------------------------------------------------------------


@dataclass
class _Chunk:
    cost_units: Ints  # per run, in 1/scale dollars
    requests: Ints
    input_tokens: Ints
    truncated: npt.NDArray[np.bool_]
    budget_stopped: npt.NDArray[np.bool_]


@dataclass(frozen=True)
class Context:
    """What the runs share: the estimate at the medians and how it was made."""

    est: Estimate
    as_of: datetime
    service_tier: str | None = None
    user_prices: UserPrices | None = None


class PerRunEngine:
    """Builds and estimates each run's scenario (the accountant, exact, slow)."""

    name = "per run"

    def __init__(self, ctx: Context) -> None:
        from agentcost.loop.estimate import cache_policy, pricer_for

        self.ctx = ctx
        self.prices: ModelPrices = ctx.est.prices
        self.pricer = pricer_for(self.prices)
        self.policy, _ = cache_policy(ctx.est.scenario, self.prices)
        self.subs: dict[int, tuple[Decimal, int, int]] = {}
        self.scale = 10**18  # Decimal dollars of the accountant, as whole units

    def _sub(self, sub: Scenario) -> tuple[Decimal, int, int]:
        if id(sub) not in self.subs:
            from agentcost.loop.estimate import estimate_scenario
            from agentcost.report.estimate import build_report

            est = estimate_scenario(
                sub, as_of=self.ctx.as_of, user_prices=self.ctx.user_prices, compare=False
            )
            t = build_report(est).totals
            self.subs[id(sub)] = (t.cost_usd, t.requests, t.input_tokens)
        return self.subs[id(sub)]

    def one(self, scenario: Scenario) -> tuple[Decimal, int, int, bool, bool]:
        """(cost, requests, input tokens, cut by max_rounds, stopped by max_budget_usd) of a run."""
        from agentcost.loop.estimate import _routes
        from agentcost.tokens.count import count_tokens

        p = self.prices
        counts = count_tokens(scenario, provider=p.provider, model_id=p.rules_id)
        routes = _routes(scenario, p, self.ctx.as_of, self.ctx.service_tier, self.ctx.user_prices)
        counts = replace(counts, routes=routes)
        ledger = run_accountant(
            counts,
            self.pricer,
            self.policy,
            max_rounds=scenario.limits.max_rounds,
            gaps=request_gaps(scenario),
            max_budget_usd=scenario.limits.max_budget_usd,
        )
        t = ledger.totals
        cost, requests, tokens = t.cost_usd, t.requests, t.input_tokens
        for row in ledger.rows:
            if row.round is None or row.continuation:
                continue
            for call in scenario.rounds[row.round].calls:
                if call.subagent is not None:
                    usd, n, inp = self._sub(call.subagent)
                    cost, requests, tokens = cost + usd, requests + n, tokens + inp
        return (
            cost,
            requests,
            tokens,
            ledger.truncated and ledger.budget_stop is None,
            ledger.budget_stop is not None,
        )

    def run(self, draws: Draws, n: int) -> _Chunk:
        import numpy as np

        s = self.ctx.est.scenario
        out = np.zeros((3, n), dtype=object)
        flags = np.zeros((2, n), dtype=bool)
        for r in range(n):
            run = realize(
                s,
                [int(c[r]) for c in draws.counts],
                [{key: v[r] for key, v in sz.items()} for sz in draws.sizes],
                None if draws.final is None else int(draws.final[r]),
                None if draws.final_thinking is None else int(draws.final_thinking[r]),
            )
            cost, requests, tokens, cut, stopped = self.one(run)
            units = cost * self.scale
            if units != units.to_integral_value():
                raise ArithmeticError(f"a run's cost {cost} is finer than 1/{self.scale} dollars")
            out[:, r] = (int(units), requests, tokens)
            flags[:, r] = (cut, stopped)
        return _Chunk(out[0], out[1], out[2], flags[0], flags[1])


class NotVectorizable(Exception):
    """The scenario uses something the vectorized engine does not model (the message says what)."""


def _probe_prices(
    pricer: Pricer, thresholds: Sequence[int], policy: CachePolicy
) -> list[dict[str, Fraction]]:
    """Per long-context tier, the exact price of one token of each kind (input, cache read, cache
    write 5m / 1h, output), read off the pricer and checked on a mixed request."""
    tiers: list[dict[str, Fraction]] = []
    for t in range(len(thresholds) + 1):
        level = 1_000 if t == 0 else thresholds[t - 1] + 1
        if t == 0 and thresholds:
            level = min(level, thresholds[0])
        if t < len(thresholds) and level > thresholds[t]:
            raise NotVectorizable("long-context tiers too close together")
        if level < 4:
            raise NotVectorizable("a long-context tier below 4 tokens")

        def total(level: int = level, **kw: int) -> Fraction:
            return Fraction(pricer(RequestUsage(input_tokens=level, **kw)).total_usd)

        base = total(output_tokens=0)
        p = {"input": base / level, "output": (total(output_tokens=level) - base) / level}
        if policy.mode != "none":
            p["read"] = total(output_tokens=0, cache_read_tokens=level) / level
            if policy.bills_writes or policy.style == "explicit":
                p["write"] = total(output_tokens=0, cache_write_tokens=level) / level
                if policy.ttl == "1h":
                    p["write_1h"] = total(output_tokens=0, cache_write_1h_tokens=level) / level
        # a mixed request must cost the sum of its parts
        mix = {"cache_read_tokens": level // 4 if "read" in p else 0}
        mix["cache_write_tokens"] = level // 3 if "write" in p else 0
        plain = level - mix["cache_read_tokens"] - mix["cache_write_tokens"]
        want = (
            plain * p["input"]
            + mix["cache_read_tokens"] * p.get("read", Fraction(0))
            + mix["cache_write_tokens"] * p.get("write", Fraction(0))
            + 777 * p["output"]
        )
        if total(output_tokens=777, **mix) != want:
            raise NotVectorizable("the prices are not linear in the tokens")
        tiers.append(p)
    return tiers


def _fee(pricer: Pricer, uses: Sequence[tuple[str, int]]) -> Fraction:
    """What a response's server-tool uses cost on their own."""
    from agentcost.loop.accountant import _server_uses

    kw = _server_uses(uses)
    with_uses = Fraction(pricer(RequestUsage(input_tokens=1, output_tokens=0, **kw)).total_usd)
    return with_uses - Fraction(pricer(RequestUsage(input_tokens=1, output_tokens=0)).total_usd)


_KEYS = ("output", "appended", "transient", "inline")


def _vector(r: Any) -> tuple[int, int, int, int]:
    return (r.output, r.appended, r.transient, r.inline)


class VectorEngine:
    """The loop for a chunk of runs at once (see the module docstring)."""

    name = "vectorized"

    def __init__(self, ctx: Context, slots: Sequence[int]) -> None:
        import numpy as np

        from agentcost.loop.estimate import pricer_for

        est, s = ctx.est, ctx.est.scenario
        self.why_not(est)
        self.ctx, self.slots = ctx, list(slots)
        p = est.prices
        self.policy = est.ledger.policy
        pricer = pricer_for(p)

        def count(
            sizes_at: Callable[[int, SizeField, int, Dist], int], fin: int | None, fin_th: int
        ) -> TokenCounts:
            from agentcost.tokens.count import count_tokens

            scn = realize(
                s,
                self.slots,
                [
                    {(f, j): [sizes_at(i, f, j, d)] * self.slots[i] for f, j, d in sp.sizes}
                    for i, sp in enumerate(s.spreads)
                ],
                fin,
                fin_th,
            )
            return count_tokens(scn, provider=p.provider, model_id=p.rules_id)

        fin0 = None if s.final_dist is None else median(s.final_dist)
        th0 = s.final_thinking
        ref = count(lambda i, f, j, d: median(d), fin0, th0)
        if any(r.inserted or r.continuations or r.model for r in ref.rounds) or ref.routes:
            raise NotVectorizable("the rounds insert requests (retries, tool search or continuations)")
        self.ref = ref
        self.base = np.array([_vector(r) for r in ref.rounds], dtype=np.int64).reshape(-1, 4)
        # slopes: how the slot's tokens move per token of each size
        self.slopes: dict[tuple[SizeField, int], Ints] = {}
        keys = sorted({(f, j) for sp in s.spreads for f, j, _ in sp.sizes})
        for key in keys:

            def bumped(k: int, key: tuple[SizeField, int] = key) -> TokenCounts:
                return count(lambda i, f, j, d: median(d) + (k * _BUMP if (f, j) == key else 0), fin0, th0)

            up1, up2 = bumped(1), bumped(2)
            d1 = np.array([_vector(r) for r in up1.rounds], dtype=np.int64).reshape(-1, 4) - self.base
            d2 = np.array([_vector(r) for r in up2.rounds], dtype=np.int64).reshape(-1, 4) - self.base
            fixed_parts = (ref.tools, ref.system, ref.task, ref.per_request, ref.final_output)
            same = fixed_parts == (up1.tools, up1.system, up1.task, up1.per_request, up1.final_output)
            if not same or (d2 != 2 * d1).any() or (d1 % _BUMP).any():
                raise NotVectorizable(f"the token count is not linear in {key[0]} sizes")
            self.slopes[key] = d1 // _BUMP
        self.final_slope = [0, 0]
        for which, dist in ((0, s.final_dist), (1, s.final_thinking_dist)):
            if dist is None:
                continue
            a: tuple[int | None, int] = ((fin0 or 0) + _BUMP, th0) if which == 0 else (fin0, th0 + _BUMP)
            b: tuple[int | None, int] = (
                ((fin0 or 0) + 2 * _BUMP, th0) if which == 0 else (fin0, th0 + 2 * _BUMP)
            )
            f1 = count(lambda i, f, j, d: median(d), *a).final_output - ref.final_output
            f2 = count(lambda i, f, j, d: median(d), *b).final_output - ref.final_output
            if f2 != 2 * f1 or f1 % _BUMP:
                raise NotVectorizable("the final answer's token count is not linear in its size")
            self.final_slope[which] = f1 // _BUMP
        # which slots belong to which item; the other slots always run
        self.owner: list[tuple[int, int] | None] = []
        pos = 0
        for i, sp in enumerate(s.spreads):
            self.owner.extend([None] * (sp.first - pos))
            self.owner.extend((i, c) for c in range(self.slots[i]))
            pos = sp.first + sp.count
        self.owner.extend([None] * (len(s.rounds) - pos))
        self.centre = [{(f, j): median(d) for f, j, d in sp.sizes} for sp in s.spreads]
        self.final_centre = (fin0 or 0, th0)  # the final answer's size and thinking counted in ref
        assert len(self.owner) == len(ref.rounds)
        # prices in whole units of 1/scale dollars per token, per tier
        thresholds = tuple(p.tier_thresholds)
        tiers = _probe_prices(pricer, thresholds, self.policy)
        fees = [_fee(pricer, r.server_uses) if r.server_uses else Fraction(0) for r in ref.rounds]
        values = [v for t in tiers for v in t.values()] + fees
        scale = 1
        for v in values:
            scale = scale * v.denominator // math.gcd(scale, v.denominator)
        self.scale = scale
        self.thresholds = np.array(thresholds, dtype=np.int64)

        def column(name: str) -> Ints:
            return np.array([int(t.get(name, Fraction(0)) * scale) for t in tiers], dtype=np.int64)

        self.price = {name: column(name) for name in ("input", "output", "read", "write", "write_1h")}
        self.fees = np.array([int(f * scale) for f in fees], dtype=np.int64)
        self._check_overflow(s)

    @staticmethod
    def why_not(est: Estimate) -> None:
        s, policy = est.scenario, est.ledger.policy
        reasons = [
            (est.subagents or any(c.subagent for r in s.rounds for c in r.calls), "subagents"),
            (any(r.model for r in s.rounds), "routing"),
            (s.context_editing is not None, "context editing"),
            (s.trim is not None, "trim"),
            (bool(s.retries.share or s.retries.count), "retries"),
            (any(t.defer_loading for t in s.tools), "deferred tools"),
            (s.limits.max_budget_usd is not None, "max_budget_usd"),
            (policy.mode != "none" and policy.style == "stored", "a Gemini explicit cache"),
            (policy.mode != "none" and policy.prefix_ttl is not None, "two cache TTLs"),
        ]
        for hit, what in reasons:
            if hit:
                raise NotVectorizable(what)
        if policy.mode != "none" and policy.ttl_seconds is not None:
            gaps = request_gaps(s)
            longest = max(
                (g for sp in s.spreads for g in request_gaps(replace(s, rounds=(sp.round,)))), default=0
            )
            if max((*gaps, longest), default=0) > policy.ttl_seconds:
                raise NotVectorizable("pauses longer than the cache TTL (cache expiry)")

    def _check_overflow(self, s: Scenario) -> None:
        """Refuse sizes whose costs could overflow 64-bit integers (then the per-run engine runs)."""
        most_price = max(int(v.max()) for v in self.price.values()) + 1
        slots = len(self.owner) + 1
        biggest = int(self.base.max(initial=0)) + 1
        for sp in s.spreads:
            for f, j, d in sp.sizes:
                top = upper(d)
                slope = int(abs(self.slopes[(f, j)]).max(initial=0))
                biggest += slope * (MAX_SIZE if top is None else top)
        per_request = self.ref.prefix + self.ref.task + self.ref.per_request + biggest * slots
        if per_request * slots * most_price * 4 + int(self.fees.sum()) >= 2**62:
            raise NotVectorizable("sizes too large for 64-bit arithmetic")

    def run(self, draws: Draws, n: int) -> _Chunk:
        import numpy as np

        s, ref, policy = self.ctx.est.scenario, self.ref, self.policy
        cap = s.limits.max_rounds
        prefix = ref.prefix
        stable = prefix + ref.task
        mode, style, minimum = policy.mode, policy.style, policy.min_tokens
        step = max(policy.increment, 1)
        pre_val = prefix if prefix >= minimum and prefix > 0 else 0

        def hit(x: Ints) -> Ints:
            return np.where((x >= minimum) & (x > 0), minimum + (x - minimum) // step * step, 0)

        pre_hit = int(hit(np.array([prefix]))[0]) if mode != "none" else 0
        zeros = np.zeros(n, dtype=np.int64)
        cacheable = zeros + stable
        pending = zeros.copy()
        cached = zeros.copy()
        prev = zeros - 1
        pos = zeros.copy()
        cost = zeros.copy()
        requests = zeros.copy()
        tokens = zeros.copy()
        active_total = zeros.copy()
        price = self.price

        def request(sent: npt.NDArray[np.bool_], out: Ints, inline: Ints | int, fee: int) -> None:
            nonlocal cached, prev, cost, requests, tokens
            inp = cacheable + pending + inline + ref.per_request
            if mode == "none":
                read = write = write_1h = zeros
            elif style == "explicit":
                if mode == "prefix":
                    target = zeros + pre_val
                else:
                    target = np.where((cacheable >= minimum) & (cacheable > 0), cacheable, pre_val)
                read = np.where(cached <= cacheable, cached, 0)
                write = np.maximum(target - read, 0)
                cached = np.where(sent, np.maximum(read, target), cached)
                write_1h = write if policy.ttl == "1h" else zeros
            else:
                if mode == "prefix":
                    read = np.where(prev < 0, 0, pre_hit)
                    reach = zeros + pre_hit
                else:
                    read = np.where(prev < 0, 0, hit(np.maximum(prev, 0)))
                    reach = hit(cacheable)
                write = np.maximum(reach - read, 0) if policy.bills_writes else zeros
                write_1h = zeros
            tier = np.searchsorted(self.thresholds, inp, side="left") if len(self.thresholds) else 0
            write_5m = write - write_1h
            units = (
                (inp - read - write) * price["input"][tier]
                + read * price["read"][tier]
                + write_5m * price["write"][tier]
                + write_1h * price["write_1h"][tier]
                + out * price["output"][tier]
                + fee
            )
            cost += np.where(sent, units, 0)
            requests += sent
            tokens += np.where(sent, inp, 0)
            prev = np.where(sent, cacheable, prev)

        always = np.ones(n, dtype=bool)
        for slot, owner in enumerate(self.owner):
            vals: list[Any] = [int(b) for b in self.base[slot]]  # a number, or an array per run
            if owner is None:
                active: npt.NDArray[np.bool_] = always
            else:
                i, c = owner
                active = draws.counts[i] > c
                for key, x in draws.sizes[i].items():
                    slope = self.slopes[key][slot]
                    if slope.any():
                        delta = x[:, c] - self.centre[i][key]
                        for k in range(4):
                            if slope[k]:
                                vals[k] = vals[k] + int(slope[k]) * delta
            active_total += active
            sent = active if cap is None else active & (pos < cap)
            out, appended, transient, inline = vals
            request(sent, out, inline, int(self.fees[slot]))
            if sent is always:
                pending = zeros + transient
                cacheable = cacheable + appended
            else:
                pending = np.where(sent, transient, pending)
                cacheable = cacheable + np.where(sent, appended, 0)
            pos = pos + sent
        truncated = active_total > cap if cap is not None else np.zeros(n, dtype=bool)
        final = zeros + ref.final_output
        if draws.final is not None:
            final = final + self.final_slope[0] * (draws.final - self.final_centre[0])
        if draws.final_thinking is not None:
            final = final + self.final_slope[1] * (draws.final_thinking - self.final_centre[1])
        request(~truncated, final, 0, 0)
        return _Chunk(cost, requests, tokens, truncated, np.zeros(n, dtype=bool))


# --- the simulation ---------------------------------------------------------------------------------


def _stat(values: Ints | npt.NDArray[Any], total: int, n: int, scale: int = 1) -> Stat:
    import numpy as np

    ordered = np.sort(values)

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

    ordered = np.sort(units)
    lo, top = int(ordered[0]), int(ordered[-1])
    if lo == top:
        return (Bin(Decimal(lo) / scale, Decimal(top) / scale, len(units)),)
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
    out = [
        Bin(Decimal(lo + b * width) / scale, Decimal(min(lo + (b + 1) * width, hi)) / scale, counts[b])
        for b in range(bins)
    ]
    if tail:
        out.append(Bin(Decimal(hi) / scale, Decimal(top) / scale, tail, beyond_p99=True))
    return tuple(out)


@dataclass
class _Totals:
    """The runs' results, concatenated."""

    units: Any
    requests: Any
    tokens: Any
    truncated: Any
    stopped: Any
    scale: int


def _engine(ctx: Context, slots: Sequence[int]) -> tuple[VectorEngine | PerRunEngine, str | None]:
    try:
        return VectorEngine(ctx, slots), None
    except NotVectorizable as why:
        return PerRunEngine(ctx), str(why)


def _simulate(
    ctx: Context,
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

    streams = _Streams(ctx.est.scenario, seed, slots, fixed)
    cells = max(1, sum(slots) + len(ctx.est.scenario.rounds))
    chunk = max(1, min(runs, _CELLS_PER_CHUNK // cells)) if isinstance(engine, VectorEngine) else 200
    parts: list[_Chunk] = []
    start = 0
    while start < runs:
        n = min(chunk, runs - start)
        parts.append(engine.run(streams.next(n), n))
        start += n
        if progress is not None:
            progress(done + start, total if total is not None else runs)
    cat = np.concatenate
    return _Totals(
        cat([p.cost_units for p in parts]),
        cat([p.requests for p in parts]),
        cat([p.input_tokens for p in parts]),
        cat([p.truncated for p in parts]),
        cat([p.budget_stopped for p in parts]),
        engine.scale,
    )


def _sum(values: Any) -> int:
    total: int = sum(values.tolist())  # Python ints: no overflow
    return total


def simulate(
    ctx: Context,
    runs: int,
    *,
    seed: int = 0,
    budget_usd: Decimal | None = None,
    at: Sequence[str] = (),
    sensitivity: bool = True,
    progress: Progress | None = None,
    per_run: bool = False,
) -> Simulation:
    """``runs`` runs of the scenario of ``ctx.est``. ``budget_usd``: count runs over it;
    ``at``: further percentile labels (``p95``) to report; ``per_run``: force the per-run engine."""
    import numpy as np

    if not 1 <= runs <= MAX_RUNS:
        raise InputError(f"must be from 1 to {MAX_RUNS:,} runs, got {runs:,}", key="--simulate")
    s = ctx.est.scenario
    slots = slot_counts(s)
    engine, note = (PerRunEngine(ctx), "asked for") if per_run else _engine(ctx, slots)
    found = inputs(s)
    sens_runs = min(runs, SENSITIVITY_RUNS if isinstance(engine, VectorEngine) else SENSITIVITY_RUNS_PER_RUN)
    work = runs + (len(found) * sens_runs if sensitivity and len(found) > 1 else 0)
    main = _simulate(ctx, engine, runs, seed, slots, progress=progress, total=work)
    scale = main.scale
    cost = _stat(main.units, _sum(main.units), runs, scale)
    ranked: list[Sensitivity] = []
    if sensitivity and len(found) > 1:
        base_p90 = _p90(main.units[:sens_runs], scale)
        done = runs
        for item in found:
            held = _simulate(ctx, engine, sens_runs, seed, slots, item.where, progress, done, work)
            done += sens_runs
            p90 = _p90(held.units, scale)
            ranked.append(Sensitivity(item, p90, base_p90 - p90))
        ranked.sort(key=lambda x: (-x.drop_usd, x.input.where))
    extra: list[tuple[str, Decimal]] = []
    ordered = np.sort(main.units)
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
        deterministic_usd=ctx.est.total_usd,
        percentile_usd=tuple(extra),
    )


def _p90(units: Any, scale: int) -> Decimal:
    import numpy as np

    ordered = np.sort(units)
    return Decimal(int(ordered[nearest_rank(ordered, Decimal(90))])) / scale


__all__ = [
    "Context",
    "Draws",
    "Input",
    "NotVectorizable",
    "PerRunEngine",
    "Sensitivity",
    "Simulation",
    "Stat",
    "VectorEngine",
    "inputs",
    "parse_at",
    "realize",
    "simulate",
]
