"""The loop accountant alone: synthetic token counts, a simple per-MTok pricer, hand-computed ledgers."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentcost.loop.accountant import NO_CACHE, request_inputs, run_accountant
from agentcost.tokens.counts import RoundTokens, TokenCounts
from agentcost.tokens.request import CachePolicy, RequestCost, RequestUsage

MILLION = Decimal(1_000_000)


def mtok(rate: str, tokens: int) -> Decimal:
    return Decimal(rate) * tokens / MILLION


def sonnet_like(usage: RequestUsage) -> RequestCost:
    """$3 input, $3.75 5m write, $6 1h write, $0.30 read, $15 output per MTok (Claude Sonnet 4.5 list)."""
    uncached = (
        usage.input_tokens - usage.cache_read_tokens - usage.cache_write_tokens - usage.cache_write_1h_tokens
    )
    inp = (
        mtok("3", uncached)
        + mtok("0.30", usage.cache_read_tokens)
        + mtok("3.75", usage.cache_write_tokens)
        + mtok("6", usage.cache_write_1h_tokens)
    )
    out = mtok("15", usage.output_tokens)
    return RequestCost(inp, out, inp + out)


def counts(
    *,
    tools: int = 0,
    system: int = 0,
    task: int = 0,
    per_request: int = 0,
    rounds: list[tuple[int, int, int]] | None = None,
    final: int = 0,
) -> TokenCounts:
    return TokenCounts(
        tools=tools,
        system=system,
        task=task,
        per_request=per_request,
        rounds=tuple(RoundTokens(("t",), out, echo, res) for out, echo, res in (rounds or [])),
        final_output=final,
        encoding="test",
        approximate=False,
        method="synthetic",
    )


def uniform(n: int, base: int, echo: int, result: int, out: int = 10) -> TokenCounts:
    return counts(tools=base // 2, system=base - base // 2, task=0, rounds=[(out, echo, result)] * n, final=5)


@pytest.mark.parametrize("n", [0, 1, 2, 7, 40])
def test_closed_form_identity_without_caching(n: int) -> None:
    base, echo, result = 1_234, 56, 789
    r = echo + result
    ledger = run_accountant(uniform(n, base, echo, result), sonnet_like, NO_CACHE)
    assert ledger.totals.requests == n + 1
    for i, row in enumerate(ledger.rows, start=1):
        assert row.usage.input_tokens == base + (i - 1) * r
    # the first n requests (the tool rounds) follow n*B + r*n(n-1)/2 ...
    tool_rows = ledger.rows[:n]
    assert sum(row.usage.input_tokens for row in tool_rows) == n * base + r * n * (n - 1) // 2
    # ... and all n+1 requests follow the same identity with n+1
    m = n + 1
    assert ledger.totals.input_tokens == m * base + r * m * (m - 1) // 2


def test_hand_checked_no_cache_dollars() -> None:
    # B = 1,000 (tools 400 + system 500 + task 97 + 3 priming), two rounds adding 150 and 2,050.
    c = counts(
        tools=400, system=500, task=97, per_request=3, rounds=[(40, 50, 100), (60, 50, 2_000)], final=300
    )
    ledger = run_accountant(c, sonnet_like, NO_CACHE)
    assert [r.usage.input_tokens for r in ledger.rows] == [1_000, 1_150, 3_200]
    assert [r.usage.output_tokens for r in ledger.rows] == [40, 60, 300]
    # input 5,350 x $3/MTok = $0.01605; output 400 x $15/MTok = $0.006
    assert ledger.totals.input_usd == Decimal("0.01605")
    assert ledger.totals.output_usd == Decimal("0.006")
    assert ledger.totals.cost_usd == Decimal("0.02205")
    assert ledger.rows[-1].running_usd == ledger.totals.cost_usd
    assert [r.kind for r in ledger.rows] == ["tool_use", "tool_use", "final"]


def test_anthropic_conversation_caching_hand_checked() -> None:
    # prefix (tools+system) 3,000; task 200; priming 0; min cacheable 1,024.
    c = counts(tools=1_000, system=2_000, task=200, rounds=[(50, 60, 940), (50, 60, 1_940)], final=100)
    policy = CachePolicy(mode="conversation", style="explicit", min_tokens=1_024)
    ledger = run_accountant(c, sonnet_like, policy)
    rows = [
        (r.usage.input_tokens, r.usage.cache_read_tokens, r.usage.cache_write_tokens) for r in ledger.rows
    ]
    # request 1 writes its whole prompt; each later one reads the previous prompt and writes the rest
    assert rows == [(3_200, 0, 3_200), (4_200, 3_200, 1_000), (6_200, 4_200, 2_000)]
    # request 1: 3,200 x 3.75 = 12,000 µ$ + output 50 x 15 = 750 µ$
    assert ledger.rows[0].cost.total_usd == Decimal("0.01275")
    # request 2: read 3,200 x 0.30 = 960 µ$; write 1,000 x 3.75 = 3,750 µ$; output 750 µ$
    assert ledger.rows[1].cost.total_usd == Decimal("0.00546")
    # request 3: read 4,200 x 0.30 = 1,260; write 2,000 x 3.75 = 7,500; output 100 x 15 = 1,500 µ$
    assert ledger.rows[2].cost.total_usd == Decimal("0.01026")
    assert ledger.totals.cost_usd == Decimal("0.02847")


def test_anthropic_prefix_caching_and_one_hour_ttl() -> None:
    c = counts(tools=1_000, system=2_000, task=200, rounds=[(50, 60, 940)], final=100)
    policy = CachePolicy(mode="prefix", style="explicit", min_tokens=1_024, ttl="1h")
    ledger = run_accountant(c, sonnet_like, policy)
    first, second = ledger.rows
    assert (first.usage.cache_write_1h_tokens, first.usage.cache_write_tokens) == (3_000, 0)
    assert second.usage.cache_read_tokens == 3_000 and second.cache_write_total == 0
    # request 1: 200 x 3 + 3,000 x 6 (1h write) = 18,600 µ$ + output 750 µ$
    assert first.cost.total_usd == Decimal("0.01935")


def test_prefix_below_minimum_is_not_cached_until_conversation_reaches_it() -> None:
    c = counts(system=500, task=300, rounds=[(10, 100, 400)], final=10)
    policy = CachePolicy(mode="conversation", style="explicit", min_tokens=1_024)
    ledger = run_accountant(c, sonnet_like, policy)
    # request 1: 800 tokens < 1,024: nothing cached; request 2: 1,300 >= 1,024: written whole
    assert [(r.usage.cache_read_tokens, r.cache_write_total) for r in ledger.rows] == [(0, 0), (0, 1_300)]
    prefix_only = run_accountant(c, sonnet_like, CachePolicy("prefix", "explicit", 1_024))
    assert prefix_only.totals.cache_write_tokens == 0 and prefix_only.totals.cache_read_tokens == 0


def test_openai_automatic_caching_in_128_token_steps() -> None:
    c = counts(system=1_500, task=100, per_request=3, rounds=[(20, 30, 500)], final=10)
    policy = CachePolicy(
        mode="conversation", style="automatic", min_tokens=1_024, increment=128, bills_writes=False
    )
    ledger = run_accountant(c, sonnet_like, policy)
    first, second = ledger.rows
    assert first.usage.cache_read_tokens == 0 and first.cache_write_total == 0
    # second request re-sends the first prompt's 1,600 cacheable tokens: 1,024 + 4 x 128 = 1,536 hit
    assert second.usage.input_tokens == 1_600 + 530 + 3
    assert second.usage.cache_read_tokens == 1_536


def test_automatic_writes_billed_only_where_the_model_charges_them() -> None:
    c = counts(system=2_000, task=48, rounds=[(20, 30, 500)], final=10)
    policy = CachePolicy(
        mode="conversation", style="automatic", min_tokens=1_024, increment=1, bills_writes=True
    )
    ledger = run_accountant(c, sonnet_like, policy)
    assert [(r.usage.cache_read_tokens, r.cache_write_total) for r in ledger.rows] == [
        (0, 2_048),
        (2_048, 530),
    ]


def test_max_rounds_truncates_without_a_final_request() -> None:
    c = uniform(10, 1_000, 50, 500)
    ledger = run_accountant(c, sonnet_like, NO_CACHE, max_rounds=4)
    assert ledger.truncated and ledger.rounds_run == 4 and ledger.rounds_planned == 10
    assert ledger.totals.requests == 4
    assert all(r.kind == "tool_use" for r in ledger.rows)
    assert not run_accountant(c, sonnet_like, NO_CACHE, max_rounds=10).truncated


def test_request_inputs_matches_ledger() -> None:
    c = counts(tools=10, system=20, task=30, per_request=3, rounds=[(1, 2, 3), (4, 5, 6)], final=7)
    ledger = run_accountant(c, sonnet_like, NO_CACHE)
    assert request_inputs(c, 2) == [r.usage.input_tokens for r in ledger.rows] == [63, 68, 79]


rounds_st = st.lists(
    st.tuples(st.integers(0, 5_000), st.integers(0, 3_000), st.integers(0, 50_000)), min_size=0, max_size=30
)
policy_st = st.builds(
    CachePolicy,
    mode=st.sampled_from(["none", "prefix", "conversation", "explicit"]),
    style=st.sampled_from(["explicit", "automatic", "stored"]),
    min_tokens=st.sampled_from([0, 512, 1_024, 4_096]),
    ttl=st.sampled_from(["5m", "1h"]),
    increment=st.sampled_from([1, 128]),
    bills_writes=st.booleans(),
    ttl_seconds=st.sampled_from([None, 300, 3_600]),
    storage_usd_per_mtok_hour=st.just(Decimal("4.50")),
)
gaps_st = st.lists(st.integers(0, 4_000).map(Decimal), max_size=31)


@given(
    rounds=rounds_st,
    prefix=st.integers(0, 20_000),
    task=st.integers(0, 5_000),
    per_request=st.integers(0, 10),
    policy=policy_st,
    gaps=gaps_st,
)
def test_invariants(
    rounds: list[tuple[int, int, int]],
    prefix: int,
    task: int,
    per_request: int,
    policy: CachePolicy,
    gaps: list[Decimal],
) -> None:
    c = counts(
        tools=prefix // 3, system=prefix - prefix // 3, task=task, per_request=per_request, rounds=rounds
    )
    ledger = run_accountant(c, sonnet_like, policy, gaps=gaps)
    # rows, plus an explicit cache's creation and storage, sum exactly to the totals
    t = ledger.totals
    requests = sum((r.cost.total_usd for r in ledger.rows), Decimal(0))
    assert requests + t.cache_creation_usd + t.storage_usd == t.cost_usd
    assert ledger.rows[-1].running_usd == requests
    assert (ledger.storage is None) == (t.storage_usd == 0 and t.cache_creation_usd == 0)
    clock = Decimal(0)
    for row in ledger.rows:
        u = row.usage
        # cache parts never exceed the prompt, never negative
        assert u.cache_read_tokens >= 0 and row.cache_write_total >= 0
        assert u.cache_read_tokens + row.cache_write_total <= u.input_tokens - per_request
        # time never runs backwards; an expired request reads nothing (a stored cache is recreated)
        assert row.start_seconds >= clock
        clock = row.start_seconds
        if row.cache_expired and policy.style != "stored":
            assert u.cache_read_tokens == 0
    assert t.cache_expiries == sum(r.cache_expired for r in ledger.rows)
    if policy.ttl_seconds is None or not gaps:
        assert t.cache_expiries == 0
    # caching changes how input is billed, never how much of it is sent
    plain = run_accountant(c, sonnet_like, NO_CACHE)
    assert [r.usage.input_tokens for r in plain.rows] == [r.usage.input_tokens for r in ledger.rows]
    # deterministic
    assert run_accountant(c, sonnet_like, policy, gaps=gaps) == ledger


@given(rounds=rounds_st, extra=st.tuples(st.integers(0, 500), st.integers(0, 300), st.integers(0, 5_000)))
def test_adding_a_round_never_lowers_the_total(
    rounds: list[tuple[int, int, int]], extra: tuple[int, int, int]
) -> None:
    before = run_accountant(counts(system=2_000, rounds=rounds, final=50), sonnet_like, NO_CACHE)
    after = run_accountant(counts(system=2_000, rounds=[*rounds, extra], final=50), sonnet_like, NO_CACHE)
    assert after.totals.cost_usd >= before.totals.cost_usd
