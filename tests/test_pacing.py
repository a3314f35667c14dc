"""Pacing and cache expiry, with hand-computed dollars.

Prices are genai-prices' list prices on 2026-11-30 (pricing-facts.md §A): claude-sonnet-4-5 $3 input,
$3.75 5-minute write, $6 1-hour write, $0.30 read, $15 output per MTok; claude-haiku-4-5 $1 input;
gemini-2.5-pro $1.25 input, $0.125 read, $10 output, storage $4.50 per MTok per hour (facts.yaml
``gemini_cache_storage``, pricing-facts.md §B.3). Amounts in comments are in micro-dollars (µ$).
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentcost import facts
from agentcost.errors import InputError
from agentcost.loop.accountant import Ledger, cheapest, request_gaps, run_accountant, ttl_options
from agentcost.loop.caching import AUTOMATIC_IDLE_SECONDS, pricer_for
from agentcost.loop.estimate import Estimate, estimate_scenario
from agentcost.prices.lookup import resolve_model
from agentcost.scenario.load import read_scenario as load_scenario
from agentcost.tokens.counts import RoundTokens, TokenCounts
from agentcost.tokens.request import TTL_SECONDS, CachePolicy

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)
SONNET = pricer_for(resolve_model("claude-sonnet-4-5", as_of=AS_OF))


def explicit(ttl: str, mode: str = "conversation", min_tokens: int = 1_024) -> CachePolicy:
    assert ttl in ("5m", "1h") and mode in ("prefix", "conversation")
    return CachePolicy(
        mode="conversation" if mode == "conversation" else "prefix",
        style="explicit",
        min_tokens=min_tokens,
        ttl="5m" if ttl == "5m" else "1h",
        ttl_seconds=TTL_SECONDS["5m" if ttl == "5m" else "1h"],
    )


def counts(
    system: int, rounds: list[tuple[int, int, int]], final: int, *, task: int = 0, per_request: int = 0
) -> TokenCounts:
    """Synthetic counts: rounds as (output, echo, result)."""
    return TokenCounts(
        tools=0,
        system=system,
        task=task,
        per_request=per_request,
        rounds=tuple(RoundTokens(("Bash",), out, echo, res) for out, echo, res in rounds),
        final_output=final,
        encoding="test",
        approximate=False,
        method="synthetic",
    )


def table(ledger: Ledger) -> list[tuple[int, int, int, int]]:
    """(input, read, 5m write, 1h write) per request."""
    return [
        (
            r.usage.input_tokens,
            r.usage.cache_read_tokens,
            r.usage.cache_write_tokens,
            r.usage.cache_write_1h_tokens,
        )
        for r in ledger.rows
    ]


# System 5,000 tokens; two rounds each adding 1,000 (echo 100 + result 900) with 100 output tokens;
# a 200-token final answer. Every round takes 400 s: longer than 5 minutes, shorter than an hour.
SLOW = counts(5_000, [(100, 100, 900)] * 2, 200)
SLOW_GAPS = (Decimal(400), Decimal(400))


def test_five_minute_entries_expire_and_are_rewritten_under_slow_pacing() -> None:
    ledger = run_accountant(SLOW, SONNET, explicit("5m"), gaps=SLOW_GAPS)
    assert [r.start_seconds for r in ledger.rows] == [0, 400, 800]
    assert [r.cache_expired for r in ledger.rows] == [False, True, True]
    # every request finds the cache expired (400 s > 300 s), reads nothing and writes its whole prompt
    assert table(ledger) == [(5_000, 0, 5_000, 0), (6_000, 0, 6_000, 0), (7_000, 0, 7_000, 0)]
    # 1: write 5,000 x 3.75 = 18,750 + output 100 x 15 = 1,500 -> 20,250 µ$
    # 2: write 6,000 x 3.75 = 22,500 + 1,500 -> 24,000 µ$
    # 3: write 7,000 x 3.75 = 26,250 + output 200 x 15 = 3,000 -> 29,250 µ$
    assert [r.cost.total_usd for r in ledger.rows] == [
        Decimal("0.02025"),
        Decimal("0.024"),
        Decimal("0.02925"),
    ]
    assert ledger.totals.cost_usd == Decimal("0.0735")
    assert ledger.totals.cache_expiries == 2


def test_one_hour_entries_survive_slow_pacing() -> None:
    ledger = run_accountant(SLOW, SONNET, explicit("1h"), gaps=SLOW_GAPS)
    assert [r.cache_expired for r in ledger.rows] == [False, False, False]
    assert table(ledger) == [(5_000, 0, 0, 5_000), (6_000, 5_000, 0, 1_000), (7_000, 6_000, 0, 1_000)]
    # 1: 1h write 5,000 x 6 = 30,000 + output 1,500 -> 31,500 µ$
    # 2: read 5,000 x 0.30 = 1,500 + 1h write 1,000 x 6 = 6,000 + output 1,500 -> 9,000 µ$
    # 3: read 6,000 x 0.30 = 1,800 + 1h write 1,000 x 6 = 6,000 + output 3,000 -> 10,800 µ$
    assert [r.cost.total_usd for r in ledger.rows] == [
        Decimal("0.0315"),
        Decimal("0.009"),
        Decimal("0.0108"),
    ]
    assert ledger.totals.cost_usd == Decimal("0.0513")


def test_cheapest_ttl_for_slow_pacing() -> None:
    options = ttl_options(SLOW, SONNET, explicit("5m"), gaps=SLOW_GAPS)
    # none: input 18,000 x 3 = 54,000 + output 400 x 15 = 6,000 -> 60,000 µ$
    assert [(o.label, o.cost_usd, o.cache_expiries) for o in options] == [
        ("none", Decimal("0.06"), 0),
        ("5m", Decimal("0.0735"), 2),
        ("1h", Decimal("0.0513"), 0),
    ]
    best = cheapest(options)
    assert best.label == "1h"
    # 1h saves 73,500 - 51,300 = 22,200 µ$ over 5m and 60,000 - 51,300 = 8,700 µ$ over no caching
    assert options[1].cost_usd - best.cost_usd == Decimal("0.0222")
    assert options[0].cost_usd - best.cost_usd == Decimal("0.0087")


def test_cheapest_ttl_for_fast_pacing_is_five_minutes() -> None:
    options = ttl_options(SLOW, SONNET, explicit("1h"), gaps=(Decimal(40), Decimal(40)))
    # 5m: 1: 20,250; 2: read 5,000 x 0.30 = 1,500 + write 1,000 x 3.75 = 3,750 + 1,500 = 6,750;
    #     3: read 1,800 + write 3,750 + output 3,000 = 8,550 -> 35,550 µ$
    assert [(o.label, o.cost_usd) for o in options] == [
        ("none", Decimal("0.06")),
        ("5m", Decimal("0.03555")),
        ("1h", Decimal("0.0513")),
    ]
    assert cheapest(options).label == "5m"


def test_refresh_on_hit_keeps_a_five_minute_entry_alive() -> None:
    # five rounds of 200 s: 1,000 s in all, far past 5 minutes, but no gap is longer than 300 s
    c = counts(5_000, [(100, 100, 900)] * 5, 200)
    ledger = run_accountant(c, SONNET, explicit("5m"), gaps=[Decimal(200)] * 5)
    assert ledger.rows[-1].start_seconds == 1_000
    assert not any(r.cache_expired for r in ledger.rows)
    assert [(r.usage.cache_read_tokens, r.cache_write_total) for r in ledger.rows] == [
        (0, 5_000),
        (5_000, 1_000),
        (6_000, 1_000),
        (7_000, 1_000),
        (8_000, 1_000),
        (9_000, 1_000),
    ]
    # 5,000 x 3.75 + 5 x 1,000 x 3.75 = 37,500 (writes); (5+6+7+8+9) x 1,000 x 0.30 = 10,500 (reads);
    # output (5 x 100 + 200) x 15 = 10,500 -> 58,500 µ$
    assert ledger.totals.cost_usd == Decimal("0.0585")


def test_a_gap_of_exactly_the_ttl_does_not_expire() -> None:
    at_ttl = run_accountant(SLOW, SONNET, explicit("5m"), gaps=[Decimal(300)] * 2)
    past_ttl = run_accountant(SLOW, SONNET, explicit("5m"), gaps=[Decimal("300.001")] * 2)
    assert at_ttl.totals.cache_expiries == 0 and at_ttl.totals.cache_read_tokens == 11_000
    assert past_ttl.totals.cache_expiries == 2 and past_ttl.totals.cache_read_tokens == 0


def test_one_long_round_expires_only_the_next_request() -> None:
    c = counts(5_000, [(100, 100, 900)] * 3, 200)
    ledger = run_accountant(c, SONNET, explicit("5m"), gaps=[Decimal(40), Decimal(400), Decimal(40)])
    assert [r.cache_expired for r in ledger.rows] == [False, False, True, False]
    assert [(r.usage.cache_read_tokens, r.cache_write_total) for r in ledger.rows] == [
        (0, 5_000),
        (5_000, 1_000),
        (0, 7_000),  # the test run took 400 s: everything is written again
        (7_000, 1_000),
    ]


def test_prefix_mode_expires_too() -> None:
    ledger = run_accountant(SLOW, SONNET, explicit("5m", mode="prefix"), gaps=SLOW_GAPS)
    # only the 5,000-token prefix is cached, and it is rewritten in every request
    assert [(r.usage.cache_read_tokens, r.cache_write_total) for r in ledger.rows] == [(0, 5_000)] * 3


def test_no_pacing_never_expires() -> None:
    assert run_accountant(SLOW, SONNET, explicit("5m")) == run_accountant(
        SLOW, SONNET, explicit("5m"), gaps=(Decimal(0), Decimal(0))
    )
    assert run_accountant(SLOW, SONNET, explicit("5m")).totals.cache_expiries == 0


def test_openai_automatic_cache_expires_after_five_idle_minutes() -> None:
    gpt5 = pricer_for(resolve_model("gpt-5", as_of=AS_OF))
    policy = CachePolicy(
        mode="conversation",
        style="automatic",
        min_tokens=1_024,
        increment=128,
        bills_writes=False,
        ttl_seconds=AUTOMATIC_IDLE_SECONDS,
    )
    fast = run_accountant(SLOW, gpt5, policy, gaps=(Decimal(60), Decimal(60)))
    slow = run_accountant(SLOW, gpt5, policy, gaps=SLOW_GAPS)
    # fast: request 2 reads 5,000 -> 1,024 + 31 x 128 = 4,992; request 3 reads 6,000 -> 5,888
    assert [r.usage.cache_read_tokens for r in fast.rows] == [0, 4_992, 5_888]
    assert [r.usage.cache_read_tokens for r in slow.rows] == [0, 0, 0]
    # gpt-5: 18,000 x 1.25 = 22,500 + output 400 x 10 = 4,000 -> 26,500 µ$ with every cache lost
    assert slow.totals.cost_usd == Decimal("0.0265")
    # fast: (18,000 - 10,880) x 1.25 = 8,900 + 10,880 x 0.125 = 1,360 + 4,000 -> 14,260 µ$
    assert fast.totals.cost_usd == Decimal("0.01426")


# ---------------------------------------------------------------------------------------------
# Through the scenario file


def scenario_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def estimate_text(tmp_path: Path, text: str, *overrides: str) -> Estimate:
    return estimate_scenario(load_scenario(scenario_file(tmp_path, text), overrides=overrides), as_of=AS_OF)


PACED = """\
version: 1
model: claude-sonnet-4-5
system: {tokens: 5000}
task: {tokens: 97}
pacing: {round_seconds: 40}
rounds:
  - {tool: Bash, call_tokens: 40, result: {tokens: 900}}
  - {tool: Bash, call_tokens: 40, result: {tokens: 900}, seconds: 400}
  - {tool: Bash, call_tokens: 40, result: {tokens: 900}}
final: {tokens: 200}
"""


@pytest.mark.usefixtures("no_ctok")
def test_round_seconds_and_pacing_reach_the_ledger(tmp_path: Path) -> None:
    est = estimate_text(tmp_path, PACED)
    assert request_gaps(est.scenario) == (Decimal(40), Decimal(400), Decimal(40))
    assert [r.start_seconds for r in est.ledger.rows] == [0, 40, 440, 480]
    assert [r.cache_expired for r in est.ledger.rows] == [False, False, True, False]
    request_3 = est.ledger.rows[2]
    assert request_3.usage.cache_read_tokens == 0
    assert request_3.cache_write_total == request_3.usage.input_tokens - est.counts.per_request
    # the comparison runs the same counts and pacing through none / 5m / 1h
    labels = [o.label for o in est.ttl_comparison]
    assert labels == ["none", "5m", "1h"]
    assert est.ttl_comparison[1].cost_usd == est.ledger.totals.cost_usd
    assert est.ttl_comparison[1].cache_expiries == 1
    one_hour = estimate_text(tmp_path, PACED, "cache_ttl=1h")
    assert one_hour.ledger.totals.cost_usd == est.ttl_comparison[2].cost_usd
    assert one_hour.ledger.totals.cache_expiries == 0
    no_pauses = estimate_text(tmp_path, PACED, "rounds[1].seconds=0")
    assert no_pauses.ledger.totals.cache_expiries == 0


@pytest.mark.usefixtures("no_ctok")
def test_prefix_below_the_minimum_cacheable_length_writes_nothing(tmp_path: Path) -> None:
    # claude-haiku-4-5 caches prompts of 4,096 tokens or more (facts.yaml min_cacheable_tokens)
    assert facts.min_cacheable_tokens("anthropic", "claude-haiku-4-5").value == 4_096
    text = PACED.replace("claude-sonnet-4-5", "claude-haiku-4-5").replace("5000", "4000")
    est = estimate_text(tmp_path, text, "caching=prefix", "pacing=")
    # the prefix is the 4,000-token system prompt (no tools): below 4,096, so never cached
    assert est.counts.prefix == 4_000
    assert est.ledger.totals.cache_write_tokens == 0 and est.ledger.totals.cache_read_tokens == 0
    # all input at $1/MTok and all output at $5/MTok: exactly the uncached price
    t = est.ledger.totals
    assert t.cost_usd == Decimal(t.input_tokens) / 1_000_000 + Decimal(t.output_tokens) * 5 / 1_000_000
    # request 1 is 4,000 + task 3 + 97 + 4 = 4,104 tokens: conversation caching does write it
    conversation = estimate_text(tmp_path, text, "caching=conversation", "pacing=")
    assert conversation.ledger.rows[0].usage.input_tokens == 4_104
    assert conversation.ledger.rows[0].cache_write_total == 4_100


GEMINI = """\
version: 1
model: gemini-2.5-pro
system: {tokens: 50000}
task: {tokens: 1000}
rounds:
  - {tool: search, call_tokens: 100, result: {tokens: 2000}, repeat: 2}
final: {tokens: 500}
caching: explicit
"""


@pytest.mark.usefixtures("no_ctok")
def test_gemini_explicit_cache_with_one_hour_of_storage(tmp_path: Path) -> None:
    est = estimate_text(tmp_path, GEMINI, "pacing.round_seconds=600")
    assert est.ledger.policy.style == "stored" and est.ledger.policy.ttl_seconds == 3_600
    # the stable prefix, system 50,000 + task 1,000 (Gemini: no framing), is cached once ...
    assert [r.usage.cache_read_tokens for r in est.ledger.rows] == [51_000] * 3
    assert [r.cache_write_total for r in est.ledger.rows] == [0] * 3
    storage = est.ledger.storage
    assert storage is not None
    assert (storage.tokens, storage.creations, storage.hours) == (51_000, 1, Decimal(1))
    # ... created at the input price: 51,000 x 1.25 = 63,750 µ$ ...
    assert storage.creation_usd == Decimal("0.06375")
    # ... and stored for its 1-hour TTL: 51,000 x 4.50 x 1 h = 229,500 µ$
    assert storage.usd_per_mtok_hour == Decimal("4.50")
    assert storage.storage_usd == Decimal("0.2295")
    # request 1: 51,001 input (1 per-request token): read 51,000 x 0.125 = 6,375 + 1 x 1.25 = 1.25;
    # the round's output: echo 101 (the name "search" is 1 token + 100) x 10 = 1,010 -> 7,386.25 µ$
    assert est.ledger.rows[0].usage.input_tokens == 51_001
    assert est.ledger.rows[0].cost.total_usd == Decimal("0.00738625")
    t = est.ledger.totals
    assert (t.storage_usd, t.cache_creation_usd) == (Decimal("0.2295"), Decimal("0.06375"))
    requests = sum((r.cost.total_usd for r in est.ledger.rows), Decimal(0))
    assert t.cost_usd == requests + Decimal("0.2295") + Decimal("0.06375")
    # requests: 1: 7,386.25; 2: 53,103 input: 6,375 + 2,103 x 1.25 = 2,628.75, output 1,010 ->
    # 10,013.75; 3: 55,205: 6,375 + 4,205 x 1.25 = 5,256.25, output 500 x 10 = 5,000 -> 16,631.25
    assert requests == Decimal("0.0340312500")
    assert t.cost_usd == Decimal("0.3272812500")
    assert est.ttl_comparison == ()  # an Anthropic comparison only


@pytest.mark.usefixtures("no_ctok")
def test_gemini_explicit_cache_is_created_again_after_its_ttl(tmp_path: Path) -> None:
    est = estimate_text(tmp_path, GEMINI, "pacing.round_seconds=2000")
    # created at 0 s; the request at 4,000 s is past the 1-hour TTL (reads do not extend it)
    assert [r.cache_expired for r in est.ledger.rows] == [False, False, True]
    storage = est.ledger.storage
    assert storage is not None and storage.creations == 2 and storage.hours == 2
    assert storage.creation_usd == Decimal("0.1275")  # 2 x 63,750 µ$
    assert storage.storage_usd == Decimal("0.4590")  # 2 x 229,500 µ$


@pytest.mark.usefixtures("no_ctok")
def test_gemini_explicit_cache_below_the_minimum_is_not_created(tmp_path: Path) -> None:
    small = GEMINI.replace("50000", "500").replace("task: {tokens: 1000}", "task: {tokens: 100}")
    est = estimate_text(tmp_path, small)  # 600 tokens < gemini-2.5-pro's 2,048
    assert est.ledger.storage is None and est.ledger.totals.cache_read_tokens == 0
    assert est.ledger.totals.storage_usd == 0


@pytest.mark.parametrize(
    ("model", "fragment"),
    [
        ("claude-sonnet-4-5", "caching: explicit is Gemini's explicit context caching"),
        ("gpt-5", "caching: explicit is Gemini's explicit context caching"),
        ("gemini-4-argon", "no explicit-cache storage price is known for gemini-4-argon"),
    ],
)
def test_explicit_caching_is_refused_where_it_does_not_exist(
    tmp_path: Path, model: str, fragment: str
) -> None:
    with pytest.raises(InputError, match=fragment) as caught:
        estimate_text(tmp_path, GEMINI, f"model={model}")
    assert caught.value.key == "caching"


def test_gemini_storage_facts() -> None:
    pro = facts.gemini_cache_storage_usd_per_mtok_hour("gemini-2.5-pro")
    assert pro is not None and pro.value == Decimal("4.50") and "§B.3" in (pro.provenance or "")
    flash = facts.gemini_cache_storage_usd_per_mtok_hour("gemini-2.5-flash")
    assert flash is not None and flash.value == Decimal("1.00")
    # 3.8 Flash: $0.50 through 2026-12-31, $1.00 from 2027-01-01
    before = facts.gemini_cache_storage_usd_per_mtok_hour("gemini-3.8-flash", AS_OF.date())
    after = facts.gemini_cache_storage_usd_per_mtok_hour("gemini-3.8-flash", datetime(2027, 1, 1).date())
    assert before is not None and after is not None
    assert (before.value, after.value) == (Decimal("0.50"), Decimal("1.00"))
    assert facts.gemini_cache_storage_usd_per_mtok_hour("gemini-4-argon") is None  # implicit only


# ---------------------------------------------------------------------------------------------
# Properties


@given(
    rounds=st.lists(st.tuples(st.integers(0, 500), st.integers(0, 500), st.integers(0, 5_000)), max_size=15),
    system=st.integers(0, 10_000),
    gaps=st.lists(st.integers(0, 5_000).map(Decimal), max_size=16),
    ttl=st.sampled_from(["5m", "1h"]),
)
def test_pauses_never_lower_the_cost_and_never_change_the_prompts(
    rounds: list[tuple[int, int, int]], system: int, gaps: list[Decimal], ttl: str
) -> None:
    c = counts(system, rounds, 10)
    policy = explicit(ttl)
    paced = run_accountant(c, SONNET, policy, gaps=gaps)
    unpaced = run_accountant(c, SONNET, policy)
    assert paced.totals.cost_usd >= unpaced.totals.cost_usd
    assert [r.usage.input_tokens for r in paced.rows] == [r.usage.input_tokens for r in unpaced.rows]
    # a 1-hour cache never expires more often than a 5-minute one
    five = run_accountant(c, SONNET, explicit("5m"), gaps=gaps)
    hour = run_accountant(c, SONNET, explicit("1h"), gaps=gaps)
    assert hour.totals.cache_expiries <= five.totals.cache_expiries
    for row in paced.rows:
        assert row.usage.cache_read_tokens + row.cache_write_total <= row.usage.input_tokens
        if row.cache_expired:
            assert row.usage.cache_read_tokens == 0
