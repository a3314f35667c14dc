"""The two engines of the Monte Carlo (:mod:`agentcost.loop.simulate`): a chunk of drawn runs -> costs.

Both take the draws of a chunk of runs (:class:`Draws`) and give each run's cost, requests, input
tokens and whether a limit cut it short (:class:`Chunk`); they give the same numbers (tests check
they agree run by run):

* **vectorized**: tokens are counted once, for the scenario with every uncertain item at its largest
  round count; how each round's tokens move with each size is measured by recounting with the sizes
  raised (the counting rules are affine in a stated size; the engine checks it), and the loop is
  then run for a chunk of runs at once with numpy, one step per round slot, in whole numbers. The
  prices are read off the pricer the same way (exact fractions per token, per long-context tier,
  checked against the pricer on a mixed request) and every run's cost is an exact integer of
  ``1 / scale`` dollars.
* **per run**: builds each run's scenario (:func:`realize`) and estimates it with the accountant, for
  what the vectorized engine does not model (subagents, routing, retries, deferred tools, trimming,
  context editing, ``max_budget_usd`` stops, cache expiry, Gemini explicit caches, two cache TTLs,
  server-tool continuations). Exact, and about a thousand times slower.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from agentcost.infra.record import record
from agentcost.loop.accountant import request_gaps
from agentcost.scenario.dists import MAX_DRAW, median, upper
from agentcost.scenario.model import Content, Dist, Round, Scenario, SizeField
from agentcost.tokens.request import RequestUsage

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from agentcost.loop.estimate import Estimate
    from agentcost.tokens.counts import TokenCounts
    from agentcost.tokens.request import CachePolicy, Pricer

    Ints = npt.NDArray[np.int64]

MAX_SIZE = MAX_DRAW  # a drawn size is capped here (a lognormal tail is unbounded)
_BUMP = 1_000  # how far sizes are raised to measure the counting rules' slopes


# --- run values and the scenario of one run ------------------------------------------------------------


@record(frozen=False)
class Draws:
    """The drawn values of a chunk of runs: per spread its round count (n,) and, per (field, call),
    sizes (n, slots); the final answer's size and thinking (n,) or None when fixed."""

    counts: list[Ints]
    sizes: list[dict[tuple[SizeField, int], Ints]]
    final: Ints | None
    final_thinking: Ints | None
    subagents: Ints | None = None  # per run, the seed its subagents' own distributions are drawn from


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


# --- the engines ----------------------------------------------------------------------------------------


@record(frozen=False)
class Chunk:
    cost_units: Ints  # per run, in 1/scale dollars
    requests: Ints
    input_tokens: Ints
    truncated: npt.NDArray[np.bool_]
    budget_stopped: npt.NDArray[np.bool_]
    largest_output: Ints | None = None  # per run, the output tokens of its largest request (caps)


class PerRunEngine:
    """Builds and estimates each run's scenario (the accountant, exact, slow), on the models and
    with the options of the estimate at the medians (``est.options``)."""

    name = "per run"

    def __init__(self, est: Estimate, draw: Callable[[Scenario, int], Scenario] | None = None) -> None:
        from agentcost.loop.caching import cache_policy, pricer_for
        from agentcost.loop.estimate import PricedModel

        self.est = est
        # draw(run, seed): the run with each uncertain subagent replaced by one run of it, drawn from
        # seed (agentcost.loop.simulate.drawn_subagents); None: subagents at their medians
        self.draw = draw
        self.original = _subagent_ids(est.scenario)  # the loaded subagents: estimates cached by id
        policy, _ = cache_policy(est.scenario, est.prices)
        self.own = PricedModel(est.prices, pricer_for(est.prices), policy)
        self.subs: dict[int, tuple[Decimal, int, int]] = {}
        self.whole: dict[int, Estimate] = {}  # uncapped subagent estimates (SubagentRuns)
        self.scale = 10**18  # Decimal dollars of the accountant, as whole units
        self.largest = 0  # the output tokens of the largest request of the run :meth:`one` priced last

    def _sub(self, sub: Scenario) -> tuple[Decimal, int, int]:
        if id(sub) not in self.subs:
            from agentcost.loop.estimate import estimate_scenario

            est = estimate_scenario(sub, options=self.est.options.for_subagent(), compare=False)
            if id(sub) not in self.original:  # drawn for one run: never cached (its id may be reused)
                return task_totals(est)
            self.subs[id(sub)] = task_totals(est)
        return self.subs[id(sub)]

    def one(self, scenario: Scenario) -> tuple[Decimal, int, int, bool, bool]:
        """(cost, requests, input tokens, cut by max_rounds, stopped by max_budget_usd) of a run."""
        from agentcost.loop.estimate import counter, model_routes, run_ledger

        count = counter(scenario)
        counts = count(self.own.prices)
        counts = replace(counts, routes=model_routes(scenario, self.est.routed, count))
        subagents = any(c.subagent for r in scenario.rounds for c in r.calls)
        if subagents and scenario.limits.max_budget_usd is not None:
            return self._capped(scenario, counts)
        ledger = run_ledger(scenario, counts, self.own)
        self.largest = max((row.usage.output_tokens for row in ledger.rows), default=0)
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

    def _capped(self, scenario: Scenario, counts: TokenCounts) -> tuple[Decimal, int, int, bool, bool]:
        """:meth:`one` with subagents and ``max_budget_usd``: the subagents run inside the ledger, so
        their spending counts against the budget in order (``run_accountant(subagents=...)``)."""
        from agentcost.loop.estimate import estimate_scenario, run_ledger
        from agentcost.loop.subagents import SubagentRuns

        options = self.est.options.for_subagent()
        runs = SubagentRuns(
            scenario,
            lambda sub, left: estimate_scenario(sub, options=options, compare=False, budget_left=left),
            lambda e: e.ledger.spent_usd,
            self.whole if _subagent_ids(scenario) <= self.original else {},  # drawn ones: not shared
        )
        ledger = run_ledger(scenario, counts, self.own, subagents=runs.by_round())
        self.largest = max((row.usage.output_tokens for row in ledger.rows), default=0)
        t = ledger.totals
        parts = [task_totals(sub) for sub in runs.started.values()]
        return (
            t.cost_usd + sum((p[0] for p in parts), Decimal(0)),
            t.requests + sum(p[1] for p in parts),
            t.input_tokens + sum(p[2] for p in parts),
            ledger.truncated and ledger.budget_stop is None,
            ledger.budget_stop is not None,
        )

    def run(self, draws: Draws, n: int) -> Chunk:
        import numpy as np

        s = self.est.scenario
        out = np.zeros((4, n), dtype=object)
        flags = np.zeros((2, n), dtype=bool)
        for r in range(n):
            run = realize(
                s,
                [int(c[r]) for c in draws.counts],
                [{key: v[r] for key, v in sz.items()} for sz in draws.sizes],
                None if draws.final is None else int(draws.final[r]),
                None if draws.final_thinking is None else int(draws.final_thinking[r]),
            )
            if draws.subagents is not None and self.draw is not None:
                run = self.draw(run, int(draws.subagents[r]))
            cost, requests, tokens, cut, stopped = self.one(run)
            units = cost * self.scale
            if units != units.to_integral_value():
                raise ArithmeticError(f"a run's cost {cost} is finer than 1/{self.scale} dollars")
            out[:, r] = (int(units), requests, tokens, self.largest)
            flags[:, r] = (cut, stopped)
        return Chunk(out[0], out[1], out[2], flags[0], flags[1], out[3])


def _subagent_ids(scenario: Scenario) -> set[int]:
    """The ids of every subagent scenario ``scenario`` starts, at every depth."""
    out: set[int] = set()
    for r in scenario.rounds:
        for c in r.calls:
            if c.subagent is not None and id(c.subagent) not in out:
                out.add(id(c.subagent))
                out |= _subagent_ids(c.subagent)
    return out


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

        def total(level: int = level, **kw: Any) -> Fraction:  # kw: token counts of RequestUsage
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


def _fee(pricer: Pricer, uses: Sequence[tuple[str, int]], container: Decimal | None = None) -> Fraction:
    """What a response's server-tool uses (and its code-execution container time) cost on their own."""
    from agentcost.loop.accountant import server_use_counts

    kw = server_use_counts(uses)
    usage = RequestUsage(input_tokens=1, output_tokens=0, container_seconds=container, **kw)
    with_uses = Fraction(pricer(usage).total_usd)
    return with_uses - Fraction(pricer(RequestUsage(input_tokens=1, output_tokens=0)).total_usd)


_KEYS = ("output", "appended", "transient", "inline")


def _vector(r: Any) -> tuple[int, int, int, int]:
    return (r.output, r.appended, r.transient, r.inline)


class VectorEngine:
    """The loop for a chunk of runs at once (see the module docstring)."""

    name = "vectorized"

    def __init__(self, est: Estimate, slots: Sequence[int]) -> None:
        import numpy as np

        from agentcost.loop.caching import pricer_for

        s = est.scenario
        self.why_not(est)
        self.est, self.slots = est, list(slots)
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
            # counted uncapped (the counts stay affine in the sizes): limits.max_tokens is applied per run
            scn = replace(scn, limits=replace(scn.limits, max_tokens=None))
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
        fees = [
            _fee(pricer, r.server_uses, r.container_seconds)
            if r.server_uses or r.container_seconds is not None
            else Fraction(0)
            for r in ref.rounds
        ]
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

    def run(self, draws: Draws, n: int) -> Chunk:
        import numpy as np

        s, ref, policy = self.est.scenario, self.ref, self.policy
        cap = s.limits.max_rounds
        out_cap = s.limits.max_tokens  # each response's output, thinking included (cap_output)
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
        largest = zeros.copy()  # the output tokens of each run's largest request
        price = self.price

        def request(sent: npt.NDArray[np.bool_], out: Ints, inline: Ints | int, fee: int) -> None:
            nonlocal cached, prev, cost, requests, tokens, largest
            if out_cap is not None:
                out = np.minimum(out, out_cap)
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
            largest = np.maximum(largest, np.where(sent, out, 0))
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
        return Chunk(cost, requests, tokens, truncated, np.zeros(n, dtype=bool), largest)


def task_totals(est: Estimate) -> tuple[Decimal, int, int]:
    """Cost, requests and input tokens of ``est`` with its subagents', summed as the report's totals
    sum them (:mod:`agentcost.report.estimate`): each subagent under every request of its round that
    is not a continuation, its own subagents included."""
    t = est.ledger.totals
    if not est.subagents:
        return t.cost_usd, t.requests, t.input_tokens
    parts = [
        task_totals(sub)
        for row in est.ledger.rows
        if row.round is not None and not row.continuation
        for (i, _), sub in sorted(est.subagents.items())
        if i == row.round
    ]
    return (
        t.cost_usd + sum((p[0] for p in parts), Decimal(0)),
        t.requests + sum(p[1] for p in parts),
        t.input_tokens + sum(p[2] for p in parts),
    )


__all__ = [
    "Chunk",
    "Draws",
    "NotVectorizable",
    "PerRunEngine",
    "VectorEngine",
    "realize",
    "task_totals",
]
