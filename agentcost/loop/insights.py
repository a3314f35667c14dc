"""Insights (``agentcost estimate --explain``): seven checks read off an estimate (the seventh, stop
rules, when the scenario lacks one), then the levers that would make the run cheaper, each priced by
re-running the estimate with one change to the scenario.

The checks never re-estimate: they are derived from the ``Estimate`` (its counts and ledger). A lever
is a :func:`dataclasses.replace` of the ``Scenario`` with one field changed, estimated again by
:func:`agentcost.loop.estimate.estimate_scenario` with the options the estimate was made with
(``Estimate.options``: model, service tier, price file, date); its cost is that estimate's total,
never a formula. A lever that saves
nothing (or that the estimator does not model yet, so the total does not move) is not shown.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import field
from decimal import Decimal

from agentcost.errors import InputError
from agentcost.facts import host_mechanics, tool_search
from agentcost.infra.record import record
from agentcost.loop.accountant import LedgerRow
from agentcost.loop.carry import Carried, Carry, Split, heaviest_carried
from agentcost.loop.estimate import Estimate, estimate_scenario
from agentcost.loop.simulate import Simulation, Stat
from agentcost.scenario.model import ResultTrim, Retries, Round, Scenario, ToolDef
from agentcost.tokens.counts import RoundTokens

TOP_LEVERS = 5  # levers shown, biggest saving first (and the batch lever, a different product, among them)
STOP_RUNS = 400  # runs simulated for the cost of a run that does not converge (few: it is a check)
STOP_SEED = 0


@record
class ToolResults:
    """Result tokens sent back for one tool (framing included), over the rounds that ran."""

    tool: str  # a tool name, or "a, b" for a round of parallel calls to different tools
    calls: int
    tokens: int


@record
class Checks:
    """Six of the seven checks an engineer runs on an agent, per task (one run of the scenario)."""

    requests: int  # billed requests, continuations included
    tool_rounds: int  # rounds that ran whose response called a tool
    chat_turns: int  # rounds that ran that were plain-text replies
    definition_tokens: int  # tool definitions (+ tool-use system prompt) in every request
    definition_share: Decimal | None  # definition tokens over all input tokens (None: no input)
    result_tokens: tuple[ToolResults, ...]  # most tokens first
    fees_usd: Decimal  # server-tool fees (web search, code execution...)
    retry_usd: Decimal  # cost of repeated/failed requests (0 when none are modelled)
    retry_share: Decimal | None  # retry_usd over the total (None: the run costs nothing)
    retry_note: str  # how the retry figure was read, e.g. "no retries modelled"
    cached_share: Decimal | None  # cache reads over all input tokens (None: no input)
    tool_searches: int = 0  # tool-search requests inserted to load deferred tools
    failed_attempts: int = 0  # failed calls repeated (retries), each a full request


@record
class Lever:
    """One change to the scenario and what the run costs with it."""

    name: str  # a stable id: "cache_ttl_1h", "defer_unused_tools", ...
    description: str  # "defer 31 unused tools"
    cost_usd: Decimal  # the total with the change, from a fresh estimate
    saved_usd: Decimal  # base total - cost_usd (> 0 for a lever that is shown)
    saved_fraction: Decimal  # saved_usd / base total
    tradeoff: str | None = None  # what else changes besides cost (batch: latency)
    scenario: Scenario | None = field(default=None, repr=False, compare=False)  # the changed scenario


@record
class StopRules:
    """The stop rules a scenario lacks (``limits.max_rounds``, ``limits.max_budget_usd``, and
    ``limits.max_tokens`` when an output size has no upper bound: :func:`unbounded_output`), and, when
    it has no ``max_rounds`` and an uncertain round count, what a run that does not converge costs:
    ``runs`` seeded runs (:data:`STOP_RUNS`, :data:`STOP_SEED`) as written (``uncapped``) and with
    ``max_rounds`` set to the 99th percentile of their rounds (``cap_rounds``; ``capped``)."""

    missing: tuple[str, ...]  # the keys not set, in that order
    runs: int = 0  # 0: not simulated
    seed: int = 0
    uncapped: Stat | None = None  # cost per run (USD), no max_rounds
    cap_rounds: int | None = None  # p99 of the rounds per run (nearest rank)
    capped: Stat | None = None  # cost per run with max_rounds: cap_rounds (None: it cuts no run)
    note: str | None = None  # why the runs were not simulated


@record
class Steps:
    """Steps per task as a distribution (``--explain --simulate N``): the simulation's requests per
    run (continuations, tool searches and failed attempts included)."""

    runs: int
    seed: int
    requests: Stat


@record
class Insights:
    base_usd: Decimal
    checks: Checks
    levers: tuple[Lever, ...]  # biggest saving first, a different-product lever (batch) included
    stops: StopRules | None = None  # None: max_rounds and max_budget_usd are both set
    steps: Steps | None = None  # with --simulate
    carried: tuple[Carried, ...] = ()  # the heaviest re-sent blocks (agentcost.loop.carry)
    split: Split | None = None  # the task's cost: fixed prefix, re-sent history, output, other


@record
class _Candidate:
    name: str
    description: str
    scenario: Scenario
    tradeoff: str | None = None


Rerun = Callable[[Scenario], Estimate]


def explain(est: Estimate, simulation: Simulation | None = None) -> Insights:
    """The checks and the levers of ``est``, every lever priced with the options ``est`` was made
    with (``est.options``); ``simulation`` (of ``est``): steps per task as a distribution."""
    options = est.options
    service_tier = options.service_tier

    def rerun(scenario: Scenario, tier: str | None = service_tier) -> Estimate:
        return estimate_scenario(scenario, options=dataclasses.replace(options, service_tier=tier))

    base = est.total_usd  # subagents included: what the task costs
    levers: list[Lever] = []
    for candidate in _candidates(est):
        lever = _price(candidate, base, rerun)
        if lever is not None:
            levers.append(lever)
    levers.sort(key=lambda lv: (-lv.saved_usd, lv.name))
    shown = levers[:TOP_LEVERS]
    if service_tier is None:  # a service tier option fixes the tier for the whole run: no batch lever
        batch = _batch(est)
        if batch is not None:
            priced = _price(batch, base, lambda s: rerun(s, None))
            if priced is not None:
                shown.append(priced)
                shown.sort(key=lambda lv: (-lv.saved_usd, lv.name))  # biggest saving first, batch too
    steps = None if simulation is None else Steps(simulation.runs, simulation.seed, simulation.requests)
    carried, split = heaviest_carried(est), Carry(est).split
    return Insights(base, checks(est), tuple(shown), stop_rules(est, rerun), steps, carried, split)


def _price(candidate: _Candidate, base: Decimal, rerun: Rerun) -> Lever | None:
    try:
        cost = rerun(candidate.scenario).total_usd
    except InputError:  # the change is not possible for this model (no 1h price, no batch...)
        return None
    saved = base - cost
    if saved <= 0:
        return None
    return Lever(
        candidate.name,
        candidate.description,
        cost,
        saved,
        saved / base,
        candidate.tradeoff,
        candidate.scenario,
    )


# --- the checks ------------------------------------------------------------------------------------


def ran_rounds(est: Estimate) -> list[tuple[RoundTokens, tuple[LedgerRow, ...]]]:
    """The counted rounds that ran, in order (inserted tool searches and failed attempts included),
    each with its ledger rows (its request and any pause_turn continuations)."""
    out: list[tuple[RoundTokens, list[LedgerRow]]] = []
    for row in est.ledger.rows:
        if row.kind == "final":
            break
        if row.continuation and out:
            out[-1][1].append(row)
        else:
            out.append((est.counts.rounds[len(out)], [row]))
    return [(r, tuple(rows)) for r, rows in out]


def _scenario_rounds(est: Estimate) -> list[tuple[int, RoundTokens]]:
    """(index in ``scenario.rounds``, counts) of the scenario rounds that ran, read off the ledger
    rows' ``round``: inserted requests (tool searches, failed attempts) have none, so they are
    skipped, and a run cut short (``max_rounds``, ``max_budget_usd``) lists only the rounds whose
    response came back."""
    return [(rows[0].round, r) for r, rows in ran_rounds(est) if rows[0].round is not None]


def checks(est: Estimate) -> Checks:
    """Six of the seven checks (stop rules: :func:`stop_rules`), read off the estimate (no re-estimation)."""
    t = est.ledger.totals
    ran = ran_rounds(est)
    per_tool: dict[str, list[int]] = {}
    for r, rows in ran:
        index = rows[0].round
        if r.reply or r.inserted or index is None or r.result <= 0:
            continue
        # the round's own calls: RoundTokens.tools also names the server tools its response ran
        calls = [c.tool for c in est.scenario.rounds[index].calls]
        if not calls:
            continue
        names = list(dict.fromkeys(calls))
        key = names[0] if len(names) == 1 else ", ".join(names)
        entry = per_tool.setdefault(key, [0, 0])
        entry[0] += len(calls)
        entry[1] += r.result
    results = tuple(
        sorted(
            (ToolResults(name, calls, tokens) for name, (calls, tokens) in per_tool.items()),
            key=lambda x: (-x.tokens, x.tool),
        )
    )
    failed = [rows for r, rows in ran if r.failed]
    retry_usd = sum((row.cost.total_usd for rows in failed for row in rows), Decimal(0))
    if failed:
        note = f"{len(failed)} failed attempt{'' if len(failed) == 1 else 's'} repeated"
        if est.scenario.retries.attempts != 2:  # retries.attempts: several failed attempts per call
            note += f" ({est.scenario.retries.attempts} attempts per failing call, the last one succeeds)"
    elif est.scenario.retries.share or est.scenario.retries.count:
        note = "retries are set, but no failed attempt falls in the rounds run"
    else:
        note = "no retries modelled"
    definitions = est.counts.tools * t.requests
    return Checks(
        requests=t.requests,
        tool_rounds=sum(1 for r, _ in ran if not r.reply and not r.inserted),
        chat_turns=sum(1 for r, _ in ran if r.reply),
        definition_tokens=est.counts.tools,
        definition_share=Decimal(definitions) / Decimal(t.input_tokens) if t.input_tokens else None,
        result_tokens=results,
        fees_usd=t.fees_usd,
        retry_usd=retry_usd,
        retry_share=retry_usd / t.cost_usd if t.cost_usd else None,
        retry_note=note,
        cached_share=Decimal(t.cache_read_tokens) / Decimal(t.input_tokens) if t.input_tokens else None,
        tool_searches=sum(1 for r, _ in ran if r.search),
        failed_attempts=len(failed),
    )


# --- stop rules ------------------------------------------------------------------------------------


def stop_rules(est: Estimate, rerun: Rerun) -> StopRules | None:
    """Which of ``limits.max_rounds`` and ``limits.max_budget_usd`` the scenario lacks (None: it has
    both); with no ``max_rounds`` and a round count drawn from a distribution, the simulated cost
    of its runs as written and with ``max_rounds`` at their p99 rounds (``rerun``: the estimate of
    the changed scenario, priced as ``est`` was)."""
    s = est.scenario
    limits = s.limits
    keys = (("limits.max_rounds", limits.max_rounds), ("limits.max_budget_usd", limits.max_budget_usd))
    missing = tuple(key for key, value in keys if value is None)
    if limits.max_tokens is None and unbounded_output(s):  # a response may run on: max_tokens stops it
        missing += ("limits.max_tokens",)
    if not missing:
        return None
    if limits.max_rounds is not None or not any(sp.repeat is not None for sp in s.spreads):
        return StopRules(missing)
    from agentcost.loop.simulate import nearest_rank, simulate

    try:
        rounds = sorted(rounds_per_run(s, STOP_RUNS, STOP_SEED))
    except InputError as err:  # a round count with no upper bound: no run can be drawn without a cap
        return StopRules(missing, note=err.message)
    cap = max(rounds[nearest_rank(rounds, Decimal(99))], 1)
    uncapped = simulate(est, STOP_RUNS, seed=STOP_SEED, sensitivity=False)
    if cap >= rounds[-1]:  # the cap would cut no run: nothing to price
        return StopRules(missing, STOP_RUNS, STOP_SEED, uncapped.cost, cap)
    capped = rerun(dataclasses.replace(s, limits=dataclasses.replace(limits, max_rounds=cap)))
    bounded = simulate(capped, STOP_RUNS, seed=STOP_SEED, sensitivity=False)
    return StopRules(missing, STOP_RUNS, STOP_SEED, uncapped.cost, cap, bounded.cost)


def unbounded_output(scenario: Scenario) -> bool:
    """Whether a response's output is drawn from a distribution with no upper bound (a call's
    arguments, text or thinking, the final answer or its thinking): only ``limits.max_tokens`` bounds it."""
    from agentcost.scenario.dists import upper

    sizes = [d for sp in scenario.spreads for f, _, d in sp.sizes if f in ("call", "text", "thinking")]
    sizes += [d for d in (scenario.final_dist, scenario.final_thinking_dist) if d is not None]
    return any(upper(d) is None for d in sizes)


def rounds_per_run(scenario: Scenario, runs: int, seed: int) -> list[int]:
    """The rounds each of the first ``runs`` runs of ``agentcost estimate --simulate`` (seed
    ``seed``) draws: the fixed rounds plus each uncertain item's drawn count."""
    from agentcost.loop.simulate import _Streams, slot_counts

    slots = slot_counts(scenario)
    fixed = len(scenario.rounds) - sum(sp.count for sp in scenario.spreads)
    counts = _Streams(scenario, seed, slots, None).next(runs).counts
    return [fixed + sum(int(c[k]) for c in counts) for k in range(runs)]


# --- the levers ------------------------------------------------------------------------------------


def _candidates(est: Estimate) -> list[_Candidate]:
    """Every one-change variant of the scenario worth pricing (most will be filtered out)."""
    found: list[_Candidate] = []
    for make in (_caching, _explicit_cache, _ttl, _defer, _trim, _keep_last, _route, _thinking, _strict):
        candidate = make(est)
        if candidate is not None:
            found.append(candidate)
    return found


def _field_supported(cls: type, name: str) -> bool:
    return any(f.name == name for f in dataclasses.fields(cls))


def _caching(est: Estimate) -> _Candidate | None:
    """No caching (or only the prefix cached): cache the whole conversation (not on a host without
    prompt caching)."""
    s, mode = est.scenario, est.ledger.policy.mode
    kind = host_mechanics(est.prices.provider, est.prices.rules_id).caching
    if kind == "none":
        return None
    if mode == "none":
        what = "turn on conversation caching"
        if kind == "implicit":
            what += " (Gemini implicit caching: no saving is guaranteed)"
        elif est.caching_note is not None:
            what += f" (assumes {est.prices.provider} reads every repeated prefix: no minimum is published)"
    elif mode == "prefix":
        what = "cache the whole conversation, not only the prefix"
    else:
        return None
    return _Candidate("caching_conversation", what, dataclasses.replace(s, caching="conversation"))


def _explicit_cache(est: Estimate) -> _Candidate | None:
    """Gemini: an explicit context cache of the stable prefix (a guaranteed discount, plus storage)."""
    s = est.scenario
    kind = host_mechanics(est.prices.provider, est.prices.rules_id).caching
    if kind != "implicit" or s.caching == "explicit":
        return None
    return _Candidate(
        "caching_explicit",
        "Gemini explicit context caching (caching: explicit)",
        dataclasses.replace(s, caching="explicit"),
    )


def _ttl(est: Estimate) -> _Candidate | None:
    """Anthropic: the other cache lifetime (1 h for a slow loop, 5 min where 1 h writes cost more)."""
    if est.ledger.policy.style != "explicit" or est.ledger.policy.mode == "none":
        return None
    s = est.scenario
    if s.cache_ttl == "5m":
        if est.prices.cache_write_1h_mtok is None:
            return None
        return _Candidate(
            "cache_ttl_1h",
            "1h cache TTL instead of 5m",
            dataclasses.replace(s, cache_ttl="1h", prefix_cache_ttl=None),
        )
    return _Candidate("cache_ttl_5m", "5m cache TTL instead of 1h", dataclasses.replace(s, cache_ttl="5m"))


def _defer(est: Estimate) -> _Candidate | None:
    """Tools no round calls, loaded on demand (tool search) instead of sent in every request: only
    on a model with tool search (facts.yaml ``tool_search``; none documented: no lever)."""
    if not _field_supported(ToolDef, "defer_loading"):
        return None
    search = tool_search(est.prices.provider, est.prices.rules_id)
    if search is None or not search.value.supported:
        return None
    s = est.scenario
    called = {call.tool for r in s.rounds for call in r.calls}
    unused = [t.name for t in s.tools if t.name not in called and not t.defer_loading]
    if not unused:
        return None
    tools = tuple(dataclasses.replace(t, defer_loading=True) if t.name in unused else t for t in s.tools)
    noun = "tool" if len(unused) == 1 else "tools"
    return _Candidate(
        "defer_unused_tools", f"defer {len(unused)} unused {noun}", dataclasses.replace(s, tools=tools)
    )


def percentile_75(values: list[int]) -> int:
    """The 75th percentile by nearest rank (the smallest value with 75% of values at or below it)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.75 * len(ordered)) - 1)]


def _trim(est: Estimate) -> _Candidate | None:
    """Cap every tool result at the 75th percentile of the result sizes (in tokens)."""
    if not _field_supported(Scenario, "trim"):
        return None
    s = est.scenario
    if s.trim is not None and s.trim.max_tokens is not None:
        return None
    sizes = [r.result for r, _ in ran_rounds(est) if not r.reply and not r.inserted and r.result > 0]
    if len(sizes) < 2:
        return None
    cap = percentile_75(sizes)
    if cap >= max(sizes):
        return None
    trim = ResultTrim(max_tokens=cap, keep_last=None if s.trim is None else s.trim.keep_last)
    return _Candidate(
        "trim_results",
        f"cap tool results at {cap:,} tokens (the 75th percentile)",
        dataclasses.replace(s, trim=trim),
    )


# The small model of the same family: the tier word replaced (Anthropic, Gemini) or "-mini" appended
# (OpenAI). Only used when that model exists and is cheaper on both input and output.
_SMALL_MODEL_RULES: dict[str, tuple[tuple[str, str], ...]] = {
    "anthropic": (("-opus-", "-haiku-"), ("-sonnet-", "-haiku-")),
    "google": (("-pro", "-flash"),),
}


def cheaper_sibling(est: Estimate) -> str | None:
    """The small model of the estimate's model family, if it exists and is cheaper (see docs)."""
    from agentcost.prices.genai import known_model_ids

    prices = est.prices
    if prices.base_id is not None:  # a --prices model: no family to route within
        return None
    model_id = prices.model_id
    if prices.provider == "openai":
        candidates = (
            [] if model_id.endswith(("-mini", "-nano")) else [model_id.removesuffix("-pro") + "-mini"]
        )
    else:
        candidates = [
            model_id.replace(a, b, 1) for a, b in _SMALL_MODEL_RULES.get(prices.provider, ()) if a in model_id
        ]
    known = set(known_model_ids(prices.provider))
    for candidate in candidates:
        if candidate == model_id or candidate not in known:
            continue
        try:
            from agentcost.prices.lookup import resolve_model

            other = resolve_model(
                candidate, provider=prices.provider, as_of=prices.source.as_of, at_time=prices.at_time
            )
        except InputError:
            continue
        if other.input_mtok < prices.input_mtok and other.output_mtok < prices.output_mtok:
            return candidate
    return None


def _route(est: Estimate) -> _Candidate | None:
    """Route the smaller half of the tool rounds (least output) to the family's small model."""
    if not _field_supported(Round, "model"):
        return None
    s = est.scenario
    small = cheaper_sibling(est)
    if small is None:
        return None
    indexed = [(r.output, i) for i, r in _scenario_rounds(est) if not r.reply and s.rounds[i].model is None]
    k = len(indexed) // 2
    if k == 0:
        return None
    picked = {i for _, i in sorted(indexed)[:k]}
    rounds = tuple(dataclasses.replace(r, model=small) if i in picked else r for i, r in enumerate(s.rounds))
    noun = "round" if k == 1 else "rounds"
    return _Candidate(
        "route_small_rounds",
        f"route the {k} smallest tool {noun} to {small}",
        dataclasses.replace(s, rounds=rounds),
    )


def _thinking(est: Estimate) -> _Candidate | None:
    """Send no earlier thinking back (only if the scenario has thinking and it is kept now)."""
    s = est.scenario
    if s.thinking_retention == "drop" or not any(r.thinking for r in s.rounds):
        return None
    return _Candidate(
        "thinking_drop",
        "drop thinking from earlier turns (thinking_retention: drop)",
        dataclasses.replace(s, thinking_retention="drop"),
    )


def _strict(est: Estimate) -> _Candidate | None:
    """Strict tool schemas: calls that cannot fail validation, so no failed attempt is repeated."""
    s = est.scenario
    if not (s.retries.share or s.retries.count):
        return None
    return _Candidate(
        "no_retries",
        "strict tool schemas: no failed calls to repeat",
        dataclasses.replace(s, retries=Retries()),
    )


HISTORY_SHARE = Decimal("0.5")
"""Re-sent history dominates a run when more than half of its input tokens are the history (what the
earlier rounds appended: calls, results, thinking kept), not the prefix, the task and the framing
every request carries: then clearing old tool results is worth pricing (:func:`_keep_last`)."""
KEEP_LAST = 3  # tool results kept in full: Anthropic's clear_tool_uses default (ContextEditing.keep)


def history_share(est: Estimate) -> Decimal | None:
    """The re-sent history's share of the run's input tokens: every request's input less what each
    request carries anyway (tools, system, task, per-request framing), over all input (None: none)."""
    c, t = est.counts, est.ledger.totals
    if not t.input_tokens:
        return None
    base = c.prefix + c.task + c.per_request
    history = sum(max(row.usage.input_tokens - base, 0) for row in est.ledger.rows)
    return Decimal(history) / Decimal(t.input_tokens)


def _keep_last(est: Estimate) -> _Candidate | None:
    """Re-sent history over :data:`HISTORY_SHARE` of the input, no clearing yet and more tool results
    than :data:`KEEP_LAST`: keep only the last 3 in full (``trim.keep_last``, the harness-side form
    of context editing, on every provider), re-estimated like every lever."""
    s = est.scenario
    if s.context_editing is not None or (s.trim is not None and s.trim.keep_last is not None):
        return None
    share = history_share(est)
    results = sum(len(r.calls) for r in s.rounds if r.calls)
    if share is None or share <= HISTORY_SHARE or results <= KEEP_LAST:
        return None
    trim = ResultTrim(max_tokens=None if s.trim is None else s.trim.max_tokens, keep_last=KEEP_LAST)
    return _Candidate(
        "keep_last_results",
        f"keep only the last {KEEP_LAST} tool results (trim.keep_last: {KEEP_LAST}): re-sent history"
        f" is {share * 100:.0f}% of input",
        dataclasses.replace(s, trim=trim),
    )


def _batch(est: Estimate) -> _Candidate | None:
    """The batch API: a different product (each request may take up to 24 h), so listed last."""
    if est.prices.service_tier == "batch" or "batch" not in est.prices.service_tiers:
        return None
    return _Candidate(
        "service_tier_batch",
        "batch processing (service_tier: batch)",
        dataclasses.replace(est.scenario, service_tier="batch"),
        tradeoff="a different product: asynchronous, each request may take up to 24 h",
    )
