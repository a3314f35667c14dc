"""Estimate -> Report: every figure a renderer shows is derived here, once. Renderers do no arithmetic.

One report, many renderers (the Infracost model): ``table.render_table``, ``jsonfmt.render_json``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from decimal import ROUND_HALF_UP, Decimal

# the context effects a Report carries, re-exported as the renderers' names for them
from agentcost.infra.record import record
from agentcost.loop.carry import Carry as Carry
from agentcost.loop.context import ContextEditingEffect as ContextEditingEffect
from agentcost.loop.context import ToolSearchEffect as ToolSearchEffect
from agentcost.loop.estimate import DynamicsEffect, Estimate
from agentcost.prices.daytime import OffPeak as OffPeak
from agentcost.prices.genai import PRICE_SOURCE_NAME
from agentcost.report.outcome import PER_TASK_NOTE, OutcomeLine, outcome_line
from agentcost.report.outputcap import output_cap_warning
from agentcost.report.split import CostParts, split_cost

REPORT_VERSION = 1


@dataclass(frozen=True)  # one per request: the stdlib's __init__ (infra/record.py)
class RequestLine:
    index: int
    kind: str  # "tool_use" | "reply" (a chat turn's plain-text answer) | "final"
    tools: tuple[str, ...]
    input_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    output_tokens: int
    cost_usd: Decimal
    running_usd: Decimal
    continuation: bool = False  # an Anthropic pause_turn continuation of the request before
    cache_expired: bool = False  # the cache entries this request would have read had expired
    tier: str | None = None  # the long-context price tier the request crossed, e.g. ">200k"
    subagents: tuple[SubagentLine, ...] = ()  # subagents this response's calls started
    failed: bool = False  # a failed attempt (retries): an invalid call answered by an error result
    model: str | None = None  # routing: the model this request ran on, when not the scenario's
    parts: CostParts | None = None  # cost_usd split by kind (report.split): what the charts draw

    @property
    def uncached_input_tokens(self) -> int:
        """Input not read from cache (cache writes included)."""
        return self.input_tokens - self.cache_read_tokens

    @property
    def total_tokens(self) -> int:
        """Input and output tokens of the request."""
        return self.input_tokens + self.output_tokens

    @property
    def label(self) -> str:
        expired = " (cache expired)" if self.cache_expired else ""
        if self.kind == "final":
            return "final answer" + expired
        names = ("reply", *self.tools) if self.kind == "reply" else self.tools  # + its server tools
        failed = " (failed, retried)" if self.failed else ""
        routed = f" [{self.model}]" if self.model else ""
        return ", ".join(names) + (" (continued)" if self.continuation else "") + failed + routed + expired


@record
class Totals:
    requests: int
    input_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    output_tokens: int
    input_usd: Decimal
    output_usd: Decimal
    cost_usd: Decimal
    cached_share: Decimal | None  # cache reads / all input tokens; None when there is no input
    fees_usd: Decimal = Decimal(0)  # server-tool fees (web search, code execution), part of cost_usd
    storage_usd: Decimal = Decimal(0)  # Gemini explicit-cache storage, part of cost_usd
    cache_creation_usd: Decimal = Decimal(0)  # Gemini explicit-cache creation, part of cost_usd
    cache_expiries: int = 0  # requests that found the cache expired (a pause longer than the TTL)
    subagents_usd: Decimal = Decimal(0)  # what subagents cost, part of cost_usd (and of the other sums)
    subagent_requests: int = 0  # requests made by subagents, part of requests
    container_seconds: Decimal | None = None  # code-execution container time billed (None: none ran)
    container_usd: Decimal | None = Decimal(0)  # its price, part of fees_usd (None: a rate is unknown)

    @property
    def explicit_cache_usd(self) -> Decimal:
        """Gemini explicit-cache creation and storage, part of cost_usd."""
        return self.cache_creation_usd + self.storage_usd


@record
class TtlChoice:
    """The run's cost with one cache lifetime: ``none`` (no caching), ``5m`` or ``1h``."""

    ttl: str
    cost_usd: Decimal
    extra_usd: Decimal  # over the cheapest choice (0 for the cheapest)
    cache_expiries: int


@record
class CacheStorageLine:
    """A Gemini explicit cache: created ``creations`` times at the input price, stored ``hours``."""

    tokens: int
    creations: int
    hours: Decimal
    usd_per_mtok_hour: Decimal
    creation_usd: Decimal
    storage_usd: Decimal

    @property
    def total_usd(self) -> Decimal:
        """Creation and storage."""
        return self.creation_usd + self.storage_usd


@record
class Overrun:
    """How often the budget is overrun: ``over`` of ``runs`` simulated runs (seed ``seed``) drawing the
    scenario's distributions (:func:`agentcost.loop.simulate.simulate`, as ``--simulate RUNS --seed
    SEED`` counts them)."""

    runs: int
    seed: int
    over: int

    @property
    def share(self) -> Decimal:
        """``over / runs``, rounded half up to 4 places (as ``--simulate``'s ``overrun_probability``)."""
        return (Decimal(self.over) / self.runs).quantize(Decimal("0.0001"), rounding=ROUND_HALF_UP)


@record
class Judged:
    """``estimate --simulate N --at STAT``: the budget judged at a statistic of the simulated runs
    (``p99``: the cost ``stat_usd`` that 99% of ``runs`` runs stay within), not at the medians."""

    stat: str  # p99, p90, mean, max (agentcost.loop.simulate.parse_at's labels)
    stat_usd: Decimal
    runs: int


@record
class BudgetLine:
    limit_usd: Decimal
    source: str
    over: bool
    headroom_usd: Decimal  # limit - total; negative when over
    overrun: Overrun | None = None  # a scenario with distributions: the quick simulation's share over
    per: str = "run"  # "task": checked against the expected cost per completed task (--per task)
    judged: Judged | None = None  # --simulate --at: over and headroom are of that statistic

    @property
    def over_by_usd(self) -> Decimal:
        """How far the cost judged is over the limit: ``-headroom_usd`` (> 0 when over)."""
        return -self.headroom_usd

    @property
    def judged_usd(self) -> Decimal:
        """The cost the verdict reads: the limit less the headroom (the ``--at`` statistic when judged)."""
        return self.limit_usd - self.headroom_usd


def unit_cost(report: Report, per: str) -> Decimal:
    """What a report's scenario costs per run (``per="run"``) or per completed task (``"task"``: the
    expected cost per completed task where the scenario has an ``outcome``, else per run)."""
    if per == "task" and report.outcome is not None:
        return report.outcome.cost_per_completed_usd
    return report.totals.cost_usd


@record
class SubagentLine:
    """A subagent started by a call, folded under the request whose response made the call.
    ``requests`` and ``cost_usd`` include its own subagents (``report.totals``)."""

    round: int  # 0-based round index in the parent's unrolled rounds
    call: int  # 0-based call index in that round's response
    label: str  # the file as the parent names it (e.g. "researcher.yaml"), or "inline"
    path: str
    inline: bool
    model_id: str
    requests: int
    cost_usd: Decimal
    report: Report

    @property
    def text(self) -> str:
        """``subagent researcher.yaml (claude-haiku-4-5): 6 requests``"""
        s = "" if self.requests == 1 else "s"
        return f"subagent {self.label} ({self.model_id}): {self.requests} request{s}"


@record
class Report:
    version: int
    scenario_path: str
    scenario_name: str | None
    model_line: int | None  # the scenario's model: line (None when --model chose the model)
    budget_line: int | None  # the scenario's limits.budget_usd line (None when --budget set it)
    model: str
    model_id: str
    model_name: str
    provider: str
    price_source: str  # "genai-prices", or a --prices file as given
    price_version: str  # genai-prices' version, or the user price entry's source text
    as_of: str  # ISO 8601, UTC
    pricing_urls: tuple[str, ...]
    rates: dict[str, Decimal | None]  # per MTok: input, output, cache_read, cache_write, cache_write_1h
    caching_mode: str
    caching_is_default: bool
    cache_ttl: str
    cache_min_tokens: int
    encoding: str
    approximate: bool
    count_method: str
    count_notes: tuple[str, ...]
    requests: tuple[RequestLine, ...]
    totals: Totals
    budget: BudgetLine | None
    truncated: bool
    rounds_planned: int
    rounds_run: int
    context_window: int | None
    max_input_tokens: int
    warnings: tuple[str, ...]
    price_label: str = ""  # one line: "genai-prices 0.2.3 (current on 2026-11-30)", "prices.yaml (...)"
    price_data_date: str | None = None  # ISO date the price data is last known current (genai-prices)
    service_tier: str = "standard"
    tier_thresholds: tuple[int, ...] = ()  # input tokens above which a request is repriced whole
    ttl_comparison: tuple[TtlChoice, ...] = ()  # none / 5m / 1h for the scenario's pacing (Anthropic)
    cache_storage: CacheStorageLine | None = None  # Gemini explicit cache (caching: explicit)
    context_editing: ContextEditingEffect | None = None  # clearing old tool results, vs not clearing
    tool_search: ToolSearchEffect | None = None  # deferred tools, vs every tool loaded up front
    agent_dynamics: DynamicsEffect | None = None  # parallel calls and routing, vs their baselines
    failed_requests: int = 0  # failed attempts (retries), this run's own
    failed_usd: Decimal = Decimal(0)  # what they cost
    failed_share: Decimal | None = None  # failed_usd / this run's cost (subagents excluded)
    budget_stop: int | None = None  # limits.max_budget_usd stopped the run after this request
    uncertain: bool = False  # the scenario has distributions: every figure is at their medians
    paced: bool = False  # the scenario says how long rounds take (pacing, seconds): caches may expire
    price_day: str = ""  # YYYY-MM-DD of as_of: the day whose prices are in force
    price_provider: str = ""  # the genai-prices provider whose row prices the model (azure/gpt-4o: openai)
    host: str | None = None  # the host rule that resolved the id (bedrock, azure, vertex...); None: none
    count_family: str = ""  # the model's counting family (tokens.rules.family_of): openai, claude, ...
    family_method: str = ""  # the family's counting method in one line, e.g. "o200k_base × 1.044 (...)"
    family_source: str = ""  # where the family's method comes from (a public page, or a measurement)
    count_api: tuple[str, str] | None = None  # --count api: (counted by the endpoint, not counted by it)
    count_summary: str = ""  # why counts are approximate, short: "DeepSeek counted as o200k_base × 1.040"
    caching_kind: str = "unknown"  # how the host caches prompts (facts.yaml caching_kind)
    caching_note: str | None = None  # caching not (fully) modelled on this host, in one line
    cache_min_published: bool = True  # the host publishes its minimum cacheable length
    time_windows: tuple[tuple[str, str], ...] = ()  # daily UTC windows priced differently (DeepSeek)
    in_time_window: bool | None = None  # as_of's time falls in one of them; None: no windows, or a date alone
    off_peak: tuple[OffPeak, ...] = ()  # the windows cheaper than the standard rates, and by how much
    at_time: bool = True  # the price date's time picked the rates; False: a date alone, standard rates
    provider_name: str = ""  # the provider's display name ("DeepSeek"), where off_peak says it
    outcome: OutcomeLine | None = None  # the scenario's outcome: cost per completed task
    show_all: bool = False  # --all: the table shows every request (agentcost.report.ledger)
    warnings_apart: bool = False  # the CLI prints the warnings on stderr: the table leaves them out
    carry: Carry | None = field(default=None, compare=False, repr=False)  # carry cost (loop.carry)

    @property
    def over_budget(self) -> bool:
        return self.budget is not None and self.budget.over

    @property
    def gate_usd(self) -> Decimal:
        """The figure the budget gate reads, what ``--quiet`` prints: the total per run; the expected
        cost per completed task with ``--per task`` and a budget; the ``--at`` statistic of the
        simulated runs when ``--simulate --at`` judged the budget (:class:`Judged`)."""
        return self.totals.cost_usd if self.budget is None else self.budget.judged_usd

    @property
    def exact(self) -> bool:
        """Token counts are exact (the model's own tokenizer and framing), not approximate."""
        return not self.approximate

    @property
    def price_name(self) -> str:
        """The price source without dates: ``genai-prices 0.2.3``, or a price file's label."""
        if self.price_source == PRICE_SOURCE_NAME:
            return f"{self.price_source} {self.price_version}"
        return self.price_label or f"{self.price_source} ({self.price_version})"


def joined_price_label(reports: Sequence[Report], *, dated: bool = True) -> str:
    """Where the prices of several reports come from, in one line: the sources' labels (a user
    price file's followed by the models it priced) and the service tier when it is not standard::

        genai-prices 0.2.3 (current on 2026-11-30); prices.yaml (self-hosted) for acme; batch service tier

    ``dated=False`` leaves out the date the price data is current on (the line people read carries
    one date, the day whose prices are in force; JSON keeps both)."""
    sources: dict[str, list[str]] = {}
    user: set[str] = set()
    for r in reports:
        label = (r.price_label or f"{r.price_source} {r.price_version}") if dated else r.price_name
        ids = sources.setdefault(label, [])
        if r.model_id not in ids:
            ids.append(r.model_id)
        if r.price_source != PRICE_SOURCE_NAME:
            user.add(label)
    ordered = sorted(sources.items(), key=lambda item: item[0] in user)  # genai-prices first
    parts = [
        f"{label} for {', '.join(ids)}" if label in user and len(sources) > 1 else label
        for label, ids in ordered
    ]
    tiers: dict[str, list[str]] = {}
    for r in reports:
        names = tiers.setdefault(r.service_tier, [])
        if r.model_id not in names:
            names.append(r.model_id)
    if len(tiers) == 1 and "standard" not in tiers:
        parts.append(f"{next(iter(tiers))} service tier")
    elif len(tiers) > 1:
        parts.append("service tiers: " + "; ".join(f"{t} for {', '.join(ids)}" for t, ids in tiers.items()))
    return "; ".join(parts)


QUICK_RUNS = 1_000
"""Runs of the quick simulation that gives a scenario with distributions and a budget its chance of
going over (:func:`quick_overrun`): about 10 ms with the vectorized engine (20 rounds, 8 inputs)."""
QUICK_SEED = 0  # the default of --seed: the same runs as ``--simulate 1000``


def quick_overrun(est: Estimate, limit_usd: Decimal) -> Overrun | None:
    """The share of :data:`QUICK_RUNS` simulated runs (seed :data:`QUICK_SEED`) over ``limit_usd``: the
    same count as ``estimate --simulate 1000 --seed 0`` reports. None when the scenario has no
    distributions, or only the slow per-run engine could run it (``--simulate`` still can), or it
    cannot be simulated at all (``--simulate`` says why)."""
    if not est.scenario.uncertain:
        return None
    from agentcost.errors import InputError
    from agentcost.loop.engines import NotVectorizable, VectorEngine
    from agentcost.loop.simulate import simulate, slot_counts

    try:
        VectorEngine(est, slot_counts(est.scenario))  # the per-run engine is too slow for every estimate
        sim = simulate(est, QUICK_RUNS, seed=QUICK_SEED, budget_usd=limit_usd, sensitivity=False)
    except (NotVectorizable, InputError):
        return None
    if sim.over_budget is None:
        return None
    return Overrun(sim.runs, sim.seed, sim.over_budget)


def build_report(est: Estimate, *, overrun: bool = True, outcome: bool = True, per: str = "run") -> Report:
    """The report of an estimate. ``overrun``: for a scenario with distributions and a budget, run the
    quick simulation of :func:`quick_overrun` (subagents' reports skip it). ``outcome``: the cost per
    completed task of a scenario with an ``outcome`` (subagents' reports skip it: the parent's run is
    the task). ``per="task"`` (``--per task``): the budget is checked against the expected cost per
    completed task where the scenario has an ``outcome`` (per run otherwise)."""
    ledger, prices, counts = est.ledger, est.prices, est.counts
    t = ledger.totals
    requests = tuple(
        RequestLine(
            index=row.index,
            kind=row.kind,
            tools=row.tools,
            input_tokens=row.usage.input_tokens,
            cache_read_tokens=row.usage.cache_read_tokens,
            cache_write_tokens=row.cache_write_total,
            output_tokens=row.usage.output_tokens,
            cost_usd=row.cost.total_usd,
            running_usd=row.running_usd,
            continuation=row.continuation,
            cache_expired=row.cache_expired,
            tier=prices.tier_label(row.usage.input_tokens),
            failed=row.failed,
            model=row.model,
            parts=split_cost(row.cost),
        )
        for row in ledger.rows
    )
    totals = Totals(
        requests=t.requests,
        input_tokens=t.input_tokens,
        cache_read_tokens=t.cache_read_tokens,
        cache_write_tokens=t.cache_write_tokens,
        output_tokens=t.output_tokens,
        input_usd=t.input_usd,
        output_usd=t.output_usd,
        cost_usd=t.cost_usd,
        cached_share=Decimal(t.cache_read_tokens) / Decimal(t.input_tokens) if t.input_tokens else None,
        fees_usd=t.fees_usd,
        storage_usd=t.storage_usd,
        cache_creation_usd=t.cache_creation_usd,
        cache_expiries=t.cache_expiries,
        container_seconds=t.container_seconds,
        container_usd=t.container_usd,
    )
    requests, totals = _fold_subagents(est, requests, totals)
    line = None
    if outcome and est.scenario.outcome is not None:
        from agentcost.loop.simulate import failure_usd

        o = est.scenario.outcome
        p = o.success_for(prices.model_id, prices.model_ref, f"{prices.provider}/{prices.model_id}")
        line = outcome_line(o, totals.cost_usd, failure_usd(est), p)
    budget = None
    if est.budget is not None:
        limit = est.budget.limit_usd
        if per == "task" and line is not None:
            task = line.cost_per_completed_usd
            budget = BudgetLine(limit, est.budget.source, task > limit, limit - task, per="task")
        else:
            budget = BudgetLine(
                limit_usd=limit,
                source=est.budget.source,
                over=est.over_budget,
                headroom_usd=limit - totals.cost_usd,  # subagents included
                overrun=quick_overrun(est, limit) if overrun else None,
            )
    warnings: list[str] = []
    if ledger.budget_stop is not None:
        inside = ""
        if ledger.budget_subagent is not None:  # crossed inside a subagent that request started
            r, c = ledger.budget_subagent
            inside = f", inside the subagent of round {r + 1}'s call {c + 1}"
        warnings.append(
            f"run stopped by limits.max_budget_usd ({est.scenario.limits.max_budget_usd} USD) after request"
            f" {ledger.budget_stop}{inside}: {ledger.rounds_run} of {ledger.rounds_planned} rounds, no final"
            " answer"
        )
    elif ledger.truncated:
        warnings.append(
            f"run truncated by limits.max_rounds: {ledger.rounds_run} of {ledger.rounds_planned} rounds,"
            " no final answer"
        )
    warnings += output_cap_warning(ledger, est.scenario.limits.max_tokens)  # limits.max_tokens
    if per == "task" and outcome and line is None:  # several reports (compare, batch) say it once
        warnings.append(PER_TASK_NOTE)
    if est.scenario.cache_ttl == "1h" and (ledger.policy.ttl != "1h" or ledger.policy.mode == "none"):
        why = (
            f"{prices.model_id} has no 1-hour cache-write price"
            if prices.cache_write_1h_mtok is None
            else f"caching is {ledger.policy.mode}"
        )
        warnings.append(f"cache_ttl: 1h has no effect on {prices.provider}: {why}")
    window = prices.context_window
    if window is None:
        warnings.append(f"context window of {prices.model_id} unknown: not checked")
    elif t.max_input_tokens > window:
        warnings.append(
            f"largest request ({t.max_input_tokens:,} input tokens) exceeds the context window of"
            f" {prices.model_id} ({window:,})"
        )
    if est.subagents:  # caching settings do not carry to subagents: say so where the TTL differs
        from agentcost.loop.subagents import ttl_not_inherited

        subs = {key: (sub.scenario, sub.ledger.policy) for key, sub in est.subagents.items()}
        warnings += ttl_not_inherited(est.scenario, ledger.policy, subs)
    tiered = [r for r in requests if r.tier is not None]
    if tiered:
        numbers = ", ".join(str(r.index) for r in tiered)
        crossed = sorted({r.tier for r in tiered if r.tier is not None})
        warnings.append(
            f"{len(tiered)} of {len(requests)} requests (#{numbers}) cross {prices.model_id}'s long-context"
            f" tier ({', '.join(crossed)} input tokens): each is priced whole at the tier's higher rates"
        )
    from agentcost.facts import host_mechanics
    from agentcost.tokens.rules import family_of

    family = family_of(prices.provider, prices.rules_id)
    mechanics = host_mechanics(prices.provider, prices.rules_id)
    return Report(
        version=REPORT_VERSION,
        scenario_path=str(est.scenario.path),
        scenario_name=est.scenario.name,
        model_line=est.scenario.model_line if est.prices.model_ref == est.scenario.model else None,
        budget_line=(
            est.scenario.limits.budget_line
            if est.budget is not None and est.budget.source == "limits.budget_usd"
            else None
        ),
        model=prices.model_ref,
        model_id=prices.model_id,
        model_name=prices.name,
        provider=prices.provider,
        price_source=prices.source.name,
        price_version=prices.source.version,
        as_of=prices.source.as_of.isoformat(),
        pricing_urls=prices.source.urls,
        rates={
            "input": prices.input_mtok,
            "output": prices.output_mtok,
            "cache_read": prices.cache_read_mtok,
            "cache_write": prices.cache_write_mtok,
            "cache_write_1h": prices.cache_write_1h_mtok,
        },
        caching_mode=ledger.policy.mode,
        caching_is_default=est.caching_is_default,
        cache_ttl=ledger.policy.ttl_label,
        cache_min_tokens=ledger.policy.min_tokens,
        encoding=counts.encoding,
        approximate=counts.approximate,
        count_method=counts.method,
        count_notes=counts.notes,
        count_api=counts.api_split,
        requests=requests,
        totals=totals,
        budget=budget,
        truncated=ledger.truncated,
        rounds_planned=ledger.rounds_planned,
        rounds_run=ledger.rounds_run,
        context_window=window,
        max_input_tokens=t.max_input_tokens,
        warnings=(*warnings, *prices.warnings, *_subagent_warnings(requests)),
        price_label=prices.source.label,
        price_data_date=None if prices.source.data_date is None else prices.source.data_date.isoformat(),
        service_tier=prices.service_tier,
        tier_thresholds=prices.tier_thresholds,
        ttl_comparison=_ttl_choices(est),
        cache_storage=_storage_line(est),
        context_editing=est.context_editing,
        tool_search=est.tool_search,
        agent_dynamics=est.dynamics,
        failed_requests=t.failed_requests,
        failed_usd=t.failed_usd,
        failed_share=t.failed_share,
        budget_stop=ledger.budget_stop,
        uncertain=est.scenario.uncertain,
        paced=est.scenario.pacing.round_seconds is not None
        or any(r.seconds is not None for r in est.scenario.rounds)
        or est.scenario.limits.max_concurrent_subagents is not None,  # subagents' time is a pause
        price_day=prices.source.as_of.date().isoformat(),
        price_provider=prices.price_provider,
        host=prices.host,
        count_family=family.name,
        family_method=family.method,
        family_source=counts.encoding if counts.encoding.startswith("api ") else family.source,  # --count api
        count_summary=_count_summary(prices.provider, prices.rules_id),
        caching_kind=mechanics.caching,
        cache_min_published=mechanics.min_tokens is not None,
        caching_note=est.caching_note,
        time_windows=prices.time_of_day,
        in_time_window=in_time_window(prices.time_of_day, prices.source.as_of) if prices.at_time else None,
        off_peak=prices.off_peak,
        at_time=prices.at_time,
        provider_name=_provider_name(prices.provider) if prices.off_peak else "",
        outcome=line,
        carry=Carry(est),
    )


def _count_summary(provider: str, model_id: str) -> str:
    """How an approximate count is made, short enough for one line under the table: ``DeepSeek
    counted as o200k_base × 1.040 (prose)``; the family's method otherwise."""
    from agentcost.tokens.families import spec_of
    from agentcost.tokens.rules import family_of

    family, spec = family_of(provider, model_id), spec_of(provider, model_id)
    ratio = spec.ratio
    if family.backend == "o200k_base × ratio" and ratio is not None:
        kind = "" if ratio.prose == ratio.json else " (prose)"
        return f"{spec.label} counted as o200k_base × {ratio.prose}{kind}"
    return f"{spec.label} counted with {family.method}"


def _provider_name(pid: str) -> str:
    """genai-prices' display name of a provider (``DeepSeek``), for the time-of-day note."""
    from agentcost.prices.catalog import provider_name

    return provider_name(pid)


def in_time_window(windows: Sequence[tuple[str, str]], when: datetime) -> bool | None:
    """Whether ``when`` (UTC) falls in one of the daily ``(start, end)`` windows ("HH:MM", end
    excluded; an end before its start runs past midnight); None without windows."""
    if not windows:
        return None
    moment = when.astimezone(UTC).strftime("%H:%M:%S")
    for start, end in windows:
        if start <= end:
            if start <= moment < end:
                return True
        elif moment >= start or moment < end:
            return True
    return False


def _ttl_choices(est: Estimate) -> tuple[TtlChoice, ...]:
    if not est.ttl_comparison:
        return ()
    best = min(option.cost_usd for option in est.ttl_comparison)
    subs = est.subagents_usd  # the parent's TTL does not change its subagents' cost; the run's total does
    return tuple(
        TtlChoice(o.label, o.cost_usd + subs, o.cost_usd - best, o.cache_expiries) for o in est.ttl_comparison
    )


def _storage_line(est: Estimate) -> CacheStorageLine | None:
    s = est.ledger.storage
    if s is None:
        return None
    return CacheStorageLine(
        s.tokens, s.creations, s.hours, s.usd_per_mtok_hour, s.creation_usd, s.storage_usd
    )


def cheapest_ttl(report: Report) -> TtlChoice | None:
    """The cheapest of the TTL choices (on a tie the first: no caching, then 5m, then 1h)."""
    for choice in report.ttl_comparison:
        if choice.extra_usd == 0:
            return choice
    return None


def _fold_subagents(
    est: Estimate, requests: tuple[RequestLine, ...], totals: Totals
) -> tuple[tuple[RequestLine, ...], Totals]:
    """Each subagent's report under the request that started it; the running column and the totals
    with the subagents' costs included (agentcost.loop.subagents)."""
    if not est.subagents:
        return requests, totals
    lines: list[RequestLine] = []
    extra = Decimal(0)  # subagent costs so far, added to the running column
    subs: list[SubagentLine] = []
    for row, line in zip(est.ledger.rows, requests, strict=True):
        folded: list[SubagentLine] = []
        if row.round is not None and not row.continuation:
            for (i, j), sub in sorted(est.subagents.items()):
                if i == row.round:
                    folded.append(_subagent_line(est, i, j, sub))
        extra += sum((f.cost_usd for f in folded), Decimal(0))
        subs.extend(folded)
        lines.append(replace(line, subagents=tuple(folded), running_usd=line.running_usd + extra))
    t = totals
    parts = [f.report.totals for f in subs]
    input_tokens = t.input_tokens + sum(p.input_tokens for p in parts)
    cache_read = t.cache_read_tokens + sum(p.cache_read_tokens for p in parts)
    boxes = [p.container_seconds for p in (t, *parts) if p.container_seconds is not None]  # ran one
    box_usd = [p.container_usd for p in (t, *parts) if p.container_seconds is not None]  # None: unknown
    totals = replace(
        t,
        requests=t.requests + sum(p.requests for p in parts),
        input_tokens=input_tokens,
        cache_read_tokens=cache_read,
        cache_write_tokens=t.cache_write_tokens + sum(p.cache_write_tokens for p in parts),
        output_tokens=t.output_tokens + sum(p.output_tokens for p in parts),
        input_usd=t.input_usd + sum((p.input_usd for p in parts), Decimal(0)),
        output_usd=t.output_usd + sum((p.output_usd for p in parts), Decimal(0)),
        cost_usd=t.cost_usd + sum((p.cost_usd for p in parts), Decimal(0)),
        cached_share=Decimal(cache_read) / Decimal(input_tokens) if input_tokens else None,
        fees_usd=t.fees_usd + sum((p.fees_usd for p in parts), Decimal(0)),
        storage_usd=t.storage_usd + sum((p.storage_usd for p in parts), Decimal(0)),
        cache_creation_usd=t.cache_creation_usd + sum((p.cache_creation_usd for p in parts), Decimal(0)),
        cache_expiries=t.cache_expiries + sum(p.cache_expiries for p in parts),
        subagents_usd=t.subagents_usd + sum((p.cost_usd for p in parts), Decimal(0)),
        subagent_requests=t.subagent_requests + sum(p.requests for p in parts),
        container_seconds=sum(boxes, Decimal(0)) if boxes else None,
        container_usd=None if None in box_usd else sum((u or Decimal(0) for u in box_usd), Decimal(0)),
    )
    return tuple(lines), totals


def _subagent_line(parent: Estimate, i: int, j: int, sub: Estimate) -> SubagentLine:
    report = build_report(sub, overrun=False, outcome=False)
    path = sub.scenario.path
    inline = path == parent.scenario.path  # an inline subagent is read from its parent's file
    label = "inline" if inline else os.path.relpath(path, parent.scenario.path.parent)
    if inline and sub.scenario.name:
        label = f"inline {sub.scenario.name!r}"
    return SubagentLine(
        round=i,
        call=j,
        label=label,
        path=str(path),
        inline=inline,
        model_id=report.model_id,
        requests=report.totals.requests,
        cost_usd=report.totals.cost_usd,
        report=report,
    )


def _subagent_warnings(requests: Sequence[RequestLine]) -> list[str]:
    """Each distinct warning of a subagent's report, naming the subagent."""
    seen: dict[str, None] = {}
    for r in requests:
        for sub in r.subagents:
            for w in sub.report.warnings:
                seen.setdefault(f"subagent {sub.label}: {w}")
    return list(seen)


def all_subagents(report: Report) -> list[SubagentLine]:
    """Every subagent of a report, nested ones included, depth first."""
    out: list[SubagentLine] = []
    for r in report.requests:
        for sub in r.subagents:
            out.append(sub)
            out.extend(all_subagents(sub.report))
    return out
