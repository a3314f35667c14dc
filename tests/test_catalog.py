"""Prices (genai-prices adapter) and billing facts (facts.yaml), with hand-checked dollars.

Rates are USD per million tokens (MTok), so N tokens at $R/MTok cost N*R micro-dollars (µ$).
Every expected figure below is written out as that arithmetic.
"""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal

import pytest
import yaml

from agentcost import facts
from agentcost.errors import InputError
from agentcost.prices.genai import MAIN_PROVIDERS, known_model_ids, provider_ids
from agentcost.prices.lookup import resolve_model
from agentcost.prices.pricing import Cost, ModelPrices, Usage

AS_OF = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def micro(n: int) -> Decimal:
    """n micro-dollars as dollars."""
    return Decimal(n) / 1_000_000


def price(model: str, when: datetime = AS_OF, provider: str | None = None) -> ModelPrices:
    return resolve_model(model, provider=provider, as_of=when)


# --- hand-checked dollars -------------------------------------------------------------------


def test_claude_sonnet_4_5_cache_read_and_5m_write() -> None:
    # claude-sonnet-4-5 at 2026-11-30: input $3/MTok, 5m write $3.75, read $0.30, output $15.
    m = price("claude-sonnet-4-5")
    assert (m.input_mtok, m.cache_write_mtok, m.cache_read_mtok, m.output_mtok) == (
        Decimal("3"),
        Decimal("3.75"),
        Decimal("0.3"),
        Decimal("15"),
    )
    # 10,000 input of which 2,000 cache read and 1,000 cache write, 1,000 output:
    # 7,000*3 + 2,000*0.30 + 1,000*3.75 = 21,000 + 600 + 3,750 = 25,350 µ$
    # 1,000*15 = 15,000 µ$; total 40,350 µ$
    cost = m.cost(Usage(10_000, 1_000, cache_read_tokens=2_000, cache_write_tokens=1_000))
    assert cost == Cost(micro(25_350), micro(15_000), micro(40_350))
    assert cost.total_usd == Decimal("0.04035")


def test_claude_sonnet_4_5_one_hour_write() -> None:
    # 1h writes are $6/MTok (2x input). 10,000 input: 2,000 read, 1,000 5m write, 500 1h write,
    # so 6,500 uncached: 6,500*3 + 2,000*0.30 + 1,000*3.75 + 500*6
    #   = 19,500 + 600 + 3,750 + 3,000 = 26,850 µ$; output 1,000*15 = 15,000 µ$
    m = price("claude-sonnet-4-5")
    assert m.cache_write_1h_mtok == Decimal("6")
    usage = Usage(10_000, 1_000, cache_read_tokens=2_000, cache_write_tokens=1_000)
    cost = m.cost(
        Usage(10_000, 1_000, cache_read_tokens=2_000, cache_write_tokens=1_000, cache_write_1h_tokens=500)
    )
    assert cost == Cost(micro(26_850), micro(15_000), micro(41_850))
    # Moving 500 tokens from "uncached" to a 1h write adds 500*(6-3) = 1,500 µ$.
    assert cost.total_usd - m.cost(usage).total_usd == micro(1_500)


def test_claude_haiku_4_5() -> None:
    # claude-haiku-4-5: input $1, 5m write $1.25, 1h write $2, read $0.10, output $5.
    m = price("claude-haiku-4-5")
    assert not m.has_tiers and m.tier_thresholds == ()
    # 50,000 input: 40,000 read, 5,000 written (5m), 5,000 uncached; 2,000 output:
    # 5,000*1 + 40,000*0.10 + 5,000*1.25 = 5,000 + 4,000 + 6,250 = 15,250 µ$; 2,000*5 = 10,000 µ$
    cost = m.cost(Usage(50_000, 2_000, cache_read_tokens=40_000, cache_write_tokens=5_000))
    assert cost == Cost(micro(15_250), micro(10_000), micro(25_250))


def test_gpt_5_cache_read_and_write_at_plain_input_rate() -> None:
    # gpt-5: input $1.25, cached input $0.125, output $10, no cache-write price.
    m = price("gpt-5")
    assert m.cache_write_mtok is None and m.cache_write_1h_mtok is None
    # 3,000 input of which 2,000 cached, 500 output:
    # 1,000*1.25 + 2,000*0.125 = 1,250 + 250 = 1,500 µ$; 500*10 = 5,000 µ$
    assert m.cost(Usage(3_000, 500, cache_read_tokens=2_000)) == Cost(
        micro(1_500), micro(5_000), micro(6_500)
    )
    # Writes on a model without a write price cost exactly the input rate (3,000*1.25 = 3,750 µ$).
    written = m.cost(Usage(3_000, 500, cache_write_tokens=2_000))
    assert written == m.cost(Usage(3_000, 500))
    assert written.input_usd == micro(3_750)


def test_gpt_4o_half_price_reads() -> None:
    # gpt-4o: input $2.50, cached $1.25, output $10. The style guide's check figure:
    # 3,000 input with 2,000 cache reads: 1,000*2.50 + 2,000*1.25 = 2,500 + 2,500 = 5,000 µ$ = $0.0050
    # 100 output: 100*10 = 1,000 µ$
    cost = price("gpt-4o").cost(Usage(3_000, 100, cache_read_tokens=2_000))
    assert cost == Cost(Decimal("0.005"), micro(1_000), micro(6_000))


def test_gemini_2_5_pro_tier_cliff_reprices_all_tokens() -> None:
    # gemini-2.5-pro: input $1.25 (>200k: $2.50), read $0.125 (>200k: $0.25), output $10 (>200k: $15).
    m = price("gemini-2.5-pro")
    assert m.has_tiers and m.tier_thresholds == (200_000,)
    assert (m.input_mtok, m.cache_read_mtok, m.output_mtok) == (
        Decimal("1.25"),
        Decimal("0.125"),
        Decimal("10"),
    )
    # Exactly 200,000 input is NOT over the line: 200,000*1.25 = 250,000 µ$; 1,000*10 = 10,000 µ$
    assert m.cost(Usage(200_000, 1_000)) == Cost(micro(250_000), micro(10_000), micro(260_000))
    # 250,000 input (50,000 of them cache reads), 2,000 output: the whole request at the high rate:
    # 200,000*2.50 + 50,000*0.25 = 500,000 + 12,500 = 512,500 µ$; 2,000*15 = 30,000 µ$
    cost = m.cost(Usage(250_000, 2_000, cache_read_tokens=50_000))
    assert cost == Cost(micro(512_500), micro(30_000), micro(542_500))
    # Not priced per slice: at base rates the same request would be 200,000*1.25 + 50,000*0.125
    # = 256,250 µ$ of input.
    assert cost.input_usd != micro(256_250)


def test_gpt_5_6_terra_has_a_cache_write_price() -> None:
    # gpt-5.6-terra at 2026-11-30: input $2, cache write $2.50 (1.25x), read $0.20, output $12.
    m = price("gpt-5.6-terra")
    assert (m.input_mtok, m.cache_write_mtok, m.cache_read_mtok, m.output_mtok) == (
        Decimal("2"),
        Decimal("2.5"),
        Decimal("0.2"),
        Decimal("12"),
    )
    assert m.cache_write_1h_mtok is None
    # 100,000 input: 60,000 read, 30,000 written, 10,000 uncached; 1,000 output:
    # 10,000*2 + 60,000*0.20 + 30,000*2.50 = 20,000 + 12,000 + 75,000 = 107,000 µ$; 1,000*12 = 12,000 µ$
    cost = m.cost(Usage(100_000, 1_000, cache_read_tokens=60_000, cache_write_tokens=30_000))
    assert cost == Cost(micro(107_000), micro(12_000), micro(119_000))
    # Its >272k cliff: 300,000 input, nothing cached, 1,000 output:
    # 300,000*4 = 1,200,000 µ$; 1,000*18 = 18,000 µ$
    assert m.cost(Usage(300_000, 1_000)) == Cost(micro(1_200_000), micro(18_000), micro(1_218_000))


def test_dated_price_change_gemini_4_argon() -> None:
    # gemini-4-argon: $2 in / $0.10 read / $10 out through 2026-11-30, $4 / $0.20 / $20 from 2026-12-01.
    usage = Usage(10_000, 1_000, cache_read_tokens=4_000)
    before = price("gemini-4-argon", datetime(2026, 11, 30, 23, 59, tzinfo=UTC))
    after = price("gemini-4-argon", datetime(2026, 12, 1, 0, 0, tzinfo=UTC))
    # before: 6,000*2 + 4,000*0.10 = 12,400 µ$; 1,000*10 = 10,000 µ$
    assert before.cost(usage) == Cost(micro(12_400), micro(10_000), micro(22_400))
    # after: 6,000*4 + 4,000*0.20 = 24,800 µ$; 1,000*20 = 20,000 µ$
    assert after.cost(usage) == Cost(micro(24_800), micro(20_000), micro(44_800))
    assert (before.input_mtok, after.input_mtok) == (Decimal("2"), Decimal("4"))
    # The change is keyed on the UTC date: 23:30 on Nov 30 in New York is Dec 1 04:30 UTC.
    new_york = timezone(timedelta(hours=-5))
    late = price("gemini-4-argon", datetime(2026, 11, 30, 23, 30, tzinfo=new_york))
    assert late.input_mtok == Decimal("4")
    assert late.source.as_of == datetime(2026, 12, 1, 4, 30, tzinfo=UTC)


def test_dated_price_change_o3_past() -> None:
    # o3 was $10/$40 at 2025-06-01 and $2/$8 from 2025-06-10.
    usage = Usage(1_000, 1_000)
    # 1,000*10 + 1,000*40 = 50,000 µ$ ; 1,000*2 + 1,000*8 = 10,000 µ$
    assert price("o3", datetime(2025, 6, 1, tzinfo=UTC)).cost(usage).total_usd == micro(50_000)
    assert price("o3").cost(usage).total_usd == micro(10_000)


# --- resolution, provenance, errors ---------------------------------------------------------


def test_model_prices_record_their_source() -> None:
    import genai_prices

    m = price("claude-sonnet-4-5-20250929")
    assert m.model_ref == "claude-sonnet-4-5-20250929"
    assert m.model_id == "claude-sonnet-4-5"
    assert m.name == "Claude Sonnet 4.5"
    assert m.provider == "anthropic"
    assert m.context_window == 200_000
    assert m.source.name == "genai-prices"
    assert m.source.version == genai_prices.__version__
    assert m.source.as_of == AS_OF and m.source.as_of.tzinfo is not None
    assert m.source.urls and all(u.startswith("https://") for u in m.source.urls)


@pytest.mark.parametrize(
    ("model", "provider"),
    [("claude-sonnet-4-5", "anthropic"), ("gpt-5", "openai"), ("gemini-2.5-pro", "google")],
)
def test_provider_is_inferred_and_may_be_given(model: str, provider: str) -> None:
    assert price(model).provider == provider
    assert price(model, provider=provider).model_id == model


def test_provider_prefix_in_the_model_name() -> None:
    m = price("openai/gpt-5")
    assert (m.provider, m.model_id, m.model_ref) == ("openai", "gpt-5", "openai/gpt-5")
    with pytest.raises(InputError, match="belongs to provider 'openai'"):
        price("google/gpt-5")


def test_cost_is_pure_and_repeatable() -> None:
    m = price("gemini-2.5-pro")
    usage = Usage(250_000, 2_000, cache_read_tokens=50_000)
    assert m.cost(usage) == m.cost(usage) == price("gemini-2.5-pro").cost(usage)


def test_unknown_model_suggests_close_names() -> None:
    with pytest.raises(InputError) as caught:
        price("claude-sonet-4-5")
    error = caught.value
    assert error.key == "model"
    assert error.message == "unknown model 'claude-sonet-4-5'"
    assert error.hint is not None
    assert "did you mean: claude-sonnet-4-5" in error.hint
    assert "agentcost models" in error.hint
    assert "\n" not in str(error)


def test_unknown_model_with_nothing_close() -> None:
    with pytest.raises(InputError, match="unknown model 'zzzz'") as caught:
        price("zzzz")
    assert caught.value.hint == "run 'agentcost models' to list known models"


def test_model_of_another_provider_is_priced() -> None:
    # issue 15: every provider genai-prices prices (it used to be refused: "not supported")
    found = price("mistral-large-latest")
    assert (found.provider, found.model_id) == ("mistral", "mistral-large")


def test_unknown_provider_given() -> None:
    with pytest.raises(InputError, match="unknown provider 'mistal'") as caught:
        price("gpt-5", provider="mistal")
    assert caught.value.key == "provider"
    assert "did you mean: mistral" in str(caught.value)
    with pytest.raises(InputError, match="belongs to provider 'openai', not 'mistral'"):
        price("gpt-5", provider="mistral")


@pytest.mark.parametrize(
    ("model", "provider", "owner"),
    [
        ("gpt-5", "google", "openai"),
        ("gemini-2.5-pro", "anthropic", "google"),
        # (Claude on Vertex, genai-prices' "google" claude-* rows, is priced since issue 15:
        # tests/test_providers_resolution.py)
    ],
)
def test_model_not_of_the_given_provider(model: str, provider: str, owner: str) -> None:
    with pytest.raises(InputError, match=f"belongs to provider '{owner}'") as caught:
        price(model, provider=provider)
    assert caught.value.key == "model"


def test_non_chat_models_are_refused_not_priced_at_zero() -> None:
    with pytest.raises(InputError, match="no per-token input and output prices"):
        price("text-embedding-3-small")


def test_empty_model() -> None:
    with pytest.raises(InputError, match="must not be empty"):
        price("  ")


def test_naive_as_of_is_a_caller_bug() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        resolve_model("gpt-5", as_of=datetime(2026, 11, 30))


def test_bad_usage_is_an_input_error_not_a_genai_prices_error() -> None:
    with pytest.raises(InputError, match="exceed the request's input tokens"):
        Usage(1_000, 10, cache_read_tokens=2_000)
    with pytest.raises(InputError, match="exceed"):
        Usage(1_000, 10, cache_read_tokens=600, cache_write_tokens=300, cache_write_1h_tokens=200)
    with pytest.raises(InputError, match="whole number"):
        Usage(-1, 10)


def test_one_hour_writes_need_a_one_hour_price() -> None:
    for model in ("gpt-5", "gpt-5.6-terra", "gemini-2.5-pro"):
        with pytest.raises(InputError, match="no 1-hour cache-write price"):
            price(model).cost(Usage(10_000, 10, cache_write_1h_tokens=1_000))


def test_known_model_ids() -> None:
    ids = known_model_ids()
    for model in ("claude-sonnet-4-5", "gpt-5", "gemini-2.5-pro", "gpt-5.6-terra"):
        assert model in ids
    assert "text-embedding-3-small" not in ids
    assert len(ids) == len(set(ids))
    google = known_model_ids("google")
    assert "gemini-2.5-pro" in google
    assert "claude-sonnet-4-5" in google  # Claude on Vertex (issue 15)
    assert set(known_model_ids("anthropic")) <= set(ids)
    assert "deepseek-chat" in known_model_ids("deepseek")
    assert MAIN_PROVIDERS == ("anthropic", "openai", "google")


def test_genai_prices_is_imported_lazily() -> None:
    code = (
        "import sys, agentcost.prices, agentcost.prices.lookup, agentcost.prices.listing, agentcost.facts;"
        "print('genai_prices' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --- facts.yaml -----------------------------------------------------------------------------


def test_every_fact_row_has_a_public_url_and_a_read_date() -> None:
    raw = yaml.safe_load(facts.facts_text())
    assert raw["version"] == 1
    rows = [(name, row) for name, table in raw["tables"].items() for row in table]
    assert len(rows) >= 20
    for name, row in rows:
        assert isinstance(row["url"], str) and row["url"].startswith("https://"), (name, row)
        for shown in ("url", "note"):  # what users see cites public pages, never internal notes
            assert not any(s in row.get(shown, "") for s in ("pricing-facts", "shared/", "§")), (name, row)
        assert isinstance(row["read"], date), (name, row)
        assert date(2026, 1, 1) <= row["read"] <= date.today(), (name, row)  # never read in the future
        assert row["provider"] in (*provider_ids(), "*"), (name, row)
        assert row["models"], (name, row)


def test_fact_values_are_exact_types() -> None:
    raw = yaml.safe_load(facts.facts_text())
    for row in raw["tables"]["token_ratio"]:
        assert all(isinstance(v, str) for v in row["value"].values()), row  # Decimal, not float
    for row in raw["tables"]["min_cacheable_tokens"]:
        assert type(row["value"]) is int, row


def test_anthropic_tool_prompt_tokens() -> None:
    auto = facts.anthropic_tool_prompt_tokens("claude-opus-4-8", "auto")
    any_ = facts.anthropic_tool_prompt_tokens("claude-opus-4-8", "any")
    assert auto is not None and auto.value == 290
    assert any_ is not None and any_.value == 410
    assert "tool-use/overview" in auto.source and "§C.1" in (auto.provenance or "")
    none = facts.anthropic_tool_prompt_tokens("claude-opus-4-8", "none")
    tool = facts.anthropic_tool_prompt_tokens("claude-opus-4-8", "tool")
    assert (none and none.value, tool and tool.value) == (290, 410)
    sonnet = facts.anthropic_tool_prompt_tokens("claude-sonnet-4-5", "auto")
    assert sonnet is not None and sonnet.value == 496
    opus5 = facts.anthropic_tool_prompt_tokens("claude-opus-5", "auto")
    assert opus5 is not None and opus5.value == 286


@pytest.mark.parametrize("model", ["claude-fable-5-1", "claude-opus-5-5", "claude-haiku-5-5", "x"])
def test_unpublished_tool_prompt_tokens_are_none(model: str) -> None:
    # Opus 5.5 must not fall back to the Opus 5 row.
    assert facts.anthropic_tool_prompt_tokens(model, "auto") is None


def test_bad_tool_choice() -> None:
    with pytest.raises(InputError, match="tool_choice"):
        facts.anthropic_tool_prompt_tokens("claude-opus-4-8", "required")


@pytest.mark.parametrize(
    ("provider", "model", "expected"),
    [
        ("anthropic", "claude-sonnet-4-5", 1024),
        ("anthropic", "claude-haiku-4-5", 4096),
        ("anthropic", "claude-opus-4-7", 2048),
        ("anthropic", "claude-opus-5-5", 512),
        ("openai", "gpt-5", 1024),
        ("openai", "gpt-5.6-terra", 1024),
        ("google", "gemini-2.5-pro", 2048),
        ("google", "gemini-3.5-flash", 4096),
    ],
)
def test_min_cacheable_tokens(provider: str, model: str, expected: int) -> None:
    fact = facts.min_cacheable_tokens(provider, model)
    assert fact.value == expected
    assert not facts.is_default(fact)


@pytest.mark.parametrize(
    ("provider", "model"),
    [("anthropic", "claude-fable-5-2"), ("google", "gemini-4-argon")],
)
def test_min_cacheable_tokens_default_is_documented(provider: str, model: str) -> None:
    fact = facts.min_cacheable_tokens(provider, model)
    assert fact.value == 4096
    assert facts.is_default(fact) and "DEFAULT" in fact.source


@pytest.mark.parametrize(
    ("provider", "model", "prose", "json"),
    [
        ("anthropic", "claude-sonnet-4-5", "1.06", "1.22"),
        ("anthropic", "claude-sonnet-4-6", "1.06", "1.22"),
        ("anthropic", "claude-haiku-4-5", "1.06", "1.22"),
        ("anthropic", "claude-opus-4-6", "1.06", "1.22"),
        ("anthropic", "claude-3-5-haiku-latest", "1.06", "1.22"),
        ("anthropic", "claude-opus-4-7", "1.49", "1.40"),
        ("anthropic", "claude-opus-4-8", "1.49", "1.40"),
        ("anthropic", "claude-sonnet-5", "1.49", "1.40"),
        ("anthropic", "claude-opus-5-5", "1.49", "1.40"),
        ("anthropic", "claude-fable-5-2", "1.49", "1.40"),
        ("openai", "gpt-5", "1", "1"),
        ("google", "gemini-2.5-pro", "1.0", "1.0"),
    ],
)
def test_token_ratio(provider: str, model: str, prose: str, json: str) -> None:
    p = facts.token_ratio(provider, model, "prose")
    j = facts.token_ratio(provider, model, "json")
    assert (p.value, j.value) == (Decimal(prose), Decimal(json))
    assert isinstance(p.value, Decimal)


def test_gemini_ratio_says_its_evidence_is_weak() -> None:
    fact = facts.token_ratio("google", "gemini-2.5-pro", "prose")
    assert facts.is_default(fact) and "WEAK EVIDENCE" in fact.source


def test_facts_follow_the_maker_not_the_serving_provider() -> None:
    # Claude ids use the anthropic rows even when asked with another provider.
    assert facts.min_cacheable_tokens("google", "claude-haiku-4-5").value == 4096
    assert facts.token_ratio("google", "claude-opus-4-7", "prose").value == Decimal("1.49")


def test_facts_cover_every_resolvable_flagship() -> None:
    # Resolved ids from genai-prices feed straight into the facts lookups.
    for model in ("claude-sonnet-4-5", "claude-haiku-4-5", "gpt-5", "gpt-4o", "gemini-2.5-pro"):
        m = price(model)
        assert facts.min_cacheable_tokens(m.provider, m.model_id).value > 0
        assert facts.token_ratio(m.provider, m.model_id, "json").value > 0
