"""Estimate -> Report: :func:`build_report` derives every figure a renderer shows, once.

The report's types are in :mod:`agentcost.report.estimate`; this module builds one from an
:class:`~agentcost.loop.estimate.Estimate` (its ledger, prices and counts), subagents' reports
folded under the requests that started them, and for a scenario with distributions and a budget
the quick simulation's share of runs over it (:func:`quick_overrun`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal

from agentcost.loop.carry import Carry
from agentcost.loop.estimate import Estimate
from agentcost.report.estimate import (
    REPORT_VERSION,
    BudgetLine,
    CacheStorageLine,
    Overrun,
    Report,
    RequestLine,
    SubagentLine,
    Totals,
    TtlChoice,
)
from agentcost.report.outcome import PER_TASK_NOTE, outcome_line
from agentcost.report.outputcap import output_cap_warning
from agentcost.report.split import split_cost

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
