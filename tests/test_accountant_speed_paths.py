"""The accountant's fast paths give what the plain computations give, digit for digit.

``run_accountant(keep_rows=False)`` (what the TTL options run) keeps no rows; its totals are the
same running sums the full ledger's are, and those equal summing the ledger's rows the way the
accountant did before it kept running sums (:func:`summed`, compared by ``repr`` so a Decimal's
exponent counts too). Also: the explicit cache split and ``ModelPrices.tier_label`` against their
earlier formulations.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentcost.loop.accountant import (
    MAX_BREAKPOINTS,
    NO_CACHE,
    CacheStorage,
    Ledger,
    LedgerRow,
    LedgerTotals,
    _cache_split,
    request_gaps,
    run_accountant,
)
from agentcost.loop.caching import pricer_for
from agentcost.loop.estimate import estimate_scenario
from agentcost.prices.lookup import resolve_model
from agentcost.prices.rates import tier_name
from agentcost.scenario.load import read_scenario
from agentcost.tokens.counts import RoundTokens, TokenCounts
from agentcost.tokens.request import TTL_SECONDS, CachePolicy, RequestCost, RequestUsage
from tests.conftest import ROOT

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)
SHIPPED = sorted(ROOT.glob("scenarios/*.yaml"))  # the scenarios (agentcost.yml is a project file)


def summed(rows: tuple[LedgerRow, ...], storage: CacheStorage | None) -> LedgerTotals:
    """The ledger's totals summed over its rows (the accountant's computation before running sums)."""
    requests_usd = sum((r.cost.total_usd for r in rows), Decimal(0))
    storage_usd = storage.storage_usd if storage is not None else Decimal(0)
    creation_usd = storage.creation_usd if storage is not None else Decimal(0)
    ran = [r for r in rows if r.usage.container_seconds is not None]
    seconds: Decimal | None = None
    usd: Decimal | None = Decimal(0)
    if ran:
        seconds = sum((r.usage.container_seconds or Decimal(0) for r in ran), Decimal(0))
        usd = (
            None
            if any(r.cost.container_usd is None for r in ran)
            else sum((r.cost.container_usd or Decimal(0) for r in ran), Decimal(0))
        )
    return LedgerTotals(
        requests=len(rows),
        input_tokens=sum(r.usage.input_tokens for r in rows),
        cache_read_tokens=sum(r.usage.cache_read_tokens for r in rows),
        cache_write_tokens=sum(r.cache_write_total for r in rows),
        output_tokens=sum(r.usage.output_tokens for r in rows),
        input_usd=sum((r.cost.input_usd for r in rows), Decimal(0)),
        output_usd=sum((r.cost.output_usd for r in rows), Decimal(0)),
        cost_usd=requests_usd + creation_usd + storage_usd,
        max_input_tokens=max((r.usage.input_tokens for r in rows), default=0),
        fees_usd=sum((r.cost.fees_usd for r in rows), Decimal(0)),
        storage_usd=storage_usd,
        cache_creation_usd=creation_usd,
        cache_expiries=sum(1 for r in rows if r.cache_expired),
        failed_requests=sum(1 for r in rows if r.failed),
        failed_usd=sum((r.cost.total_usd for r in rows if r.failed), Decimal(0)),
        container_seconds=seconds,
        container_usd=usd,
    )


def check(ledger: Ledger, without_rows: Ledger) -> None:
    """``ledger``'s totals are its rows summed; ``without_rows`` is the same ledger without rows."""
    assert repr(ledger.totals) == repr(summed(ledger.rows, ledger.storage))
    assert without_rows.rows == ()
    assert repr(without_rows) == repr(replace(ledger, rows=()))
    answered = sum(1 for r in ledger.rows if r.round is not None and not r.continuation)
    assert ledger.budget_stop is None or ledger.rounds_run == answered


@pytest.mark.usefixtures("no_ctok")
@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_shipped_scenarios_totals_without_rows(path: Path) -> None:
    scenario = read_scenario(path)
    est = estimate_scenario(scenario, as_of=AS_OF)
    assert repr(est.ledger.totals) == repr(summed(est.ledger.rows, est.ledger.storage))
    pricer = pricer_for(est.prices)
    policies = [est.ledger.policy, NO_CACHE, *[replace(est.ledger.policy, ttl=t) for t in TTL_SECONDS]]
    for policy in policies:
        kw = {
            "max_rounds": scenario.limits.max_rounds,
            "gaps": request_gaps(scenario),
            "max_budget_usd": scenario.limits.max_budget_usd,
        }
        full = run_accountant(est.counts, pricer, policy, **kw)  # type: ignore[arg-type]
        check(full, run_accountant(est.counts, pricer, policy, keep_rows=False, **kw))  # type: ignore[arg-type]


def priced(usage: RequestUsage) -> RequestCost:
    """Sonnet-like token rates, $0.01 a web search, container time at $0.05/h up to 200 s and an
    unknown rate past it."""
    uncached = (
        usage.input_tokens - usage.cache_read_tokens - usage.cache_write_tokens - usage.cache_write_1h_tokens
    )
    inp = (
        Decimal(3) * uncached / 1_000_000
        + Decimal("0.30") * usage.cache_read_tokens / 1_000_000
        + Decimal("3.75") * usage.cache_write_tokens / 1_000_000
        + Decimal(6) * usage.cache_write_1h_tokens / 1_000_000
    )
    out = Decimal(15) * usage.output_tokens / 1_000_000
    fees = Decimal("0.010") * usage.web_searches
    box: Decimal | None = Decimal(0)
    if usage.container_seconds is not None:
        box = None if usage.container_seconds > 200 else Decimal("0.05") * usage.container_seconds / 3_600
        fees += box or Decimal(0)
    return RequestCost(inp, out, inp + out + fees, fees, container_usd=box)


ROUNDS = st.builds(
    RoundTokens,
    tools=st.just(("t",)),
    output=st.integers(0, 300),
    echo=st.integers(0, 400),
    result=st.integers(0, 3_000),
    transient=st.integers(0, 200),
    server_uses=st.sampled_from([(), (("web_search", 2),), (("web_fetch", 1), ("code_execution", 1))]),
    continuations=st.integers(0, 2),
    inline=st.integers(0, 300),
    reply=st.booleans(),
    failed=st.booleans(),
    container_seconds=st.sampled_from([None, Decimal(0), Decimal("0.0"), Decimal("1.5"), Decimal(250)]),
)
POLICIES = st.sampled_from(
    [
        NO_CACHE,
        CachePolicy("conversation", "explicit", 1_024, ttl="5m", ttl_seconds=300),
        CachePolicy("prefix", "explicit", 1_024, ttl="1h", ttl_seconds=3_600),
        CachePolicy("conversation", "explicit", 1_024, ttl="5m", ttl_seconds=300, prefix_ttl="1h"),
        CachePolicy("conversation", "automatic", 1_024, increment=128, ttl_seconds=600),
        CachePolicy("prefix", "automatic", 1_024, bills_writes=False),
        CachePolicy(
            "conversation",
            "stored",
            1_024,
            ttl="1h",
            ttl_seconds=400,
            storage_usd_per_mtok_hour=Decimal("4.50"),
        ),
    ]
)


@given(
    rounds=st.lists(ROUNDS, max_size=8),
    prefix=st.sampled_from([0, 700, 1_500, 2_900]),
    policy=POLICIES,
    gaps=st.lists(st.sampled_from([Decimal(0), Decimal("30.5"), Decimal(350), Decimal(4_000)]), max_size=8),
    max_rounds=st.none() | st.integers(0, 8),
    budget=st.none() | st.sampled_from([Decimal("0.001"), Decimal("0.02"), Decimal("0.2")]),
)
def test_generated_runs_totals_without_rows(
    rounds: list[RoundTokens],
    prefix: int,
    policy: CachePolicy,
    gaps: list[Decimal],
    max_rounds: int | None,
    budget: Decimal | None,
) -> None:
    counts = TokenCounts(
        tools=prefix // 2,
        system=prefix - prefix // 2,
        task=137,
        per_request=3,
        rounds=tuple(rounds),
        final_output=40,
        encoding="test",
        approximate=False,
        method="synthetic",
    )
    kw = {"max_rounds": max_rounds, "gaps": gaps, "max_budget_usd": budget}
    full = run_accountant(counts, priced, policy, **kw)  # type: ignore[arg-type]
    check(full, run_accountant(counts, priced, policy, keep_rows=False, **kw))  # type: ignore[arg-type]


@given(
    mode=st.sampled_from(["prefix", "conversation"]),
    min_tokens=st.integers(-2, 3_000),
    prefix=st.integers(0, 4_000),
    cacheable=st.integers(0, 8_000),
    cached=st.integers(0, 8_000),
)
def test_explicit_cache_split_is_the_longest_eligible_breakpoint(
    mode: str, min_tokens: int, prefix: int, cacheable: int, cached: int
) -> None:
    policy = CachePolicy("prefix" if mode == "prefix" else "conversation", "explicit", min_tokens)
    breakpoints = [prefix] if mode == "prefix" else [prefix, cacheable]
    assert len(breakpoints) <= MAX_BREAKPOINTS
    target = max((b for b in breakpoints if b >= min_tokens and b > 0), default=0)
    read = cached if cached <= cacheable else 0
    expected = (read, max(target - read, 0), max(read, target))
    assert _cache_split(policy, prefix, prefix + 100, cacheable, cached, None) == expected


@pytest.mark.parametrize("model", ["claude-sonnet-4-5", "gemini-2.5-pro", "gpt-5"])
@pytest.mark.parametrize("tokens", [0, 1, 128_000, 128_001, 200_000, 200_001, 272_001, 1_000_001])
def test_tier_label_is_the_highest_tier_crossed(model: str, tokens: int) -> None:
    prices = resolve_model(model, as_of=AS_OF)
    crossed = [t for t in prices.tier_thresholds if tokens > t]
    assert prices.tier_label(tokens) == (tier_name(max(crossed)) if crossed else None)
    for thresholds in [(), (200_000,), (128_000, 200_000), (200_000, 128_000, 200_000)]:
        other = replace(prices, tier_thresholds=thresholds)
        crossed = [t for t in thresholds if tokens > t]
        assert other.tier_label(tokens) == (tier_name(max(crossed)) if crossed else None)
