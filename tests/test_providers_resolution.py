"""Every provider genai-prices prices (issue 15): what users write resolves to one row, and its dollars
are genai-prices' own.

The id forms (a provider's own id, ``provider/model``, Bedrock model ids and inference profiles,
``azure/<model>``, Vertex ids, OpenRouter ids), which provider bills the model and whose row prices
it, the underlying model whose counting rules apply; the errors (several providers and no maker,
unknown ids, Azure deployment names); the catalog's classification; and THE price-equality test:
for every model agentcost can estimate, of every provider, agentcost's dollars for a request with
input, cache reads, cache writes and output equal genai-prices' ``calc_price`` on the same usage at
the same timestamp (DeepSeek's time-of-day prices at two times of day).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from decimal import Decimal

import pytest

from agentcost.errors import InputError
from agentcost.prices import catalog, lookup
from agentcost.prices.hosts import host_form, underlying_id
from agentcost.prices.listing import list_models, listing
from agentcost.prices.lookup import resolve_model
from agentcost.prices.pricing import Usage

WHEN = datetime(2026, 11, 30, tzinfo=UTC)  # 00:00 UTC: DeepSeek's off-peak window
PEAK = datetime(2026, 11, 30, 10, 0, tzinfo=UTC)  # DeepSeek V3 peak (00:30-16:30 UTC)


def price(model: str, provider: str | None = None, when: datetime = WHEN) -> object:
    return resolve_model(model, provider=provider, as_of=when)


# --------------------------------------------------------------------------------------------
# Id forms
# --------------------------------------------------------------------------------------------

SONNET_BEDROCK = "regional.anthropic.claude-sonnet-4-5-20250929-v1:0"


@pytest.mark.parametrize(
    ("written", "provider", "price_provider", "row", "host", "rules_id"),
    [
        # a provider's own id
        ("deepseek-chat", "deepseek", "deepseek", "deepseek-chat", None, "deepseek-chat"),
        ("mistral-large-latest", "mistral", "mistral", "mistral-large", None, "mistral-large"),
        ("grok-4", "x-ai", "x-ai", "grok-4-0709", None, "grok-4-0709"),
        ("command-r-plus", "cohere", "cohere", "command-r-plus", None, "command-r-plus"),
        (
            "kimi-k2-0905-preview",
            "moonshotai",
            "moonshotai",
            "kimi-k2-0905-preview",
            None,
            "kimi-k2-0905-preview",
        ),
        # the three providers agentcost started with: unchanged (rules_id is the row's id)
        ("claude-sonnet-4-5", "anthropic", "anthropic", "claude-sonnet-4-5", None, "claude-sonnet-4-5"),
        ("gpt-5", "openai", "openai", "gpt-5", None, "gpt-5"),
        ("openai/gpt-5", "openai", "openai", "gpt-5", None, "gpt-5"),
        ("gemini-2.5-pro", "google", "google", "gemini-2.5-pro", None, "gemini-2.5-pro"),
        # provider/model (ids and genai-prices' aliases)
        ("deepseek/deepseek-chat", "deepseek", "deepseek", "deepseek-chat", None, "deepseek-chat"),
        (
            "groq/llama-3.3-70b-versatile",
            "groq",
            "groq",
            "llama-3.3-70b-versatile",
            None,
            "llama-3.3-70b-versatile",
        ),
        ("groq/openai/gpt-oss-120b", "groq", "groq", "openai/gpt-oss-120b", None, "gpt-oss-120b"),
        ("x-ai/grok-4", "x-ai", "x-ai", "grok-4-0709", None, "grok-4-0709"),
        ("xai/grok-4", "x-ai", "x-ai", "grok-4-0709", None, "grok-4-0709"),
        (
            "openrouter/anthropic/claude-sonnet-4.5",
            "openrouter",
            "openrouter",
            "anthropic/claude-sonnet-4.5",
            "openrouter",
            "claude-sonnet-4-5",  # Anthropic's id: its minimum cacheable prompt, tokenizer and tool prompt
        ),
        ("openrouter/openai/gpt-4o", "openrouter", "openrouter", "openai/gpt-4o", "openrouter", "gpt-4o"),
        # Bedrock: model ids, cross-region inference profiles, LiteLLM's prefix, ARNs
        (
            "anthropic.claude-sonnet-4-5-20250929-v1:0",
            "aws",
            "aws",
            SONNET_BEDROCK,
            "bedrock",
            "claude-sonnet-4-5-20250929",
        ),
        *[
            (
                f"{geo}.anthropic.claude-sonnet-4-5-20250929-v1:0",
                "aws",
                "aws",
                SONNET_BEDROCK,
                "bedrock",
                "claude-sonnet-4-5-20250929",
            )
            for geo in ("us", "eu", "apac", "jp")
        ],
        (
            "global.anthropic.claude-sonnet-4-5-20250929-v1:0",
            "aws",
            "aws",
            "global.anthropic.claude-sonnet-4-5-20250929-v1:0",
            "bedrock",
            "claude-sonnet-4-5-20250929",
        ),
        (
            "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0",
            "aws",
            "aws",
            SONNET_BEDROCK,
            "bedrock",
            "claude-sonnet-4-5-20250929",
        ),
        (
            "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4-5-20250929-v1:0",
            "aws",
            "aws",
            SONNET_BEDROCK,
            "bedrock",
            "claude-sonnet-4-5-20250929",
        ),
        (
            "meta.llama3-3-70b-instruct-v1:0",
            "aws",
            "aws",
            "meta.llama3-3-70b-instruct-v1:0",
            "bedrock",
            "llama3-3-70b-instruct",
        ),
        (
            "us.meta.llama3-3-70b-instruct-v1:0",
            "aws",
            "aws",
            "meta.llama3-3-70b-instruct-v1:0",
            "bedrock",
            "llama3-3-70b-instruct",
        ),
        ("deepseek.r1-v1:0", "aws", "aws", "deepseek.r1-v1:0", "bedrock", "deepseek-r1"),
        ("openai.gpt-oss-120b-1:0", "aws", "aws", "openai.gpt-oss-120b-1:0", "bedrock", "gpt-oss-120b"),
        # Azure: genai-prices prices the maker's row for Azure (its fallback), or Azure's own row
        ("azure/gpt-4o", "azure", "openai", "gpt-4o", "azure", "gpt-4o"),
        ("azure/o3", "azure", "azure", "o3-2025-04-16", "azure", "o3-2025-04-16"),
        # Vertex: Gemini, and Claude (genai-prices' "google" claude-* rows; Claude counting rules)
        ("vertex_ai/gemini-2.5-pro", "google", "google", "gemini-2.5-pro", "vertex", "gemini-2.5-pro"),
        (
            "vertex_ai/claude-sonnet-4-5@20250929",
            "google",
            "google",
            "claude-sonnet-4-5",
            "vertex",
            "claude-sonnet-4-5",
        ),
        (
            "publishers/google/models/gemini-2.5-pro",
            "google",
            "google",
            "gemini-2.5-pro",
            "vertex",
            "gemini-2.5-pro",
        ),
        # Fireworks' ids as its API takes them
        (
            "accounts/fireworks/models/gpt-oss-120b",
            "fireworks",
            "fireworks",
            "gpt-oss-120b",
            None,
            "gpt-oss-120b",
        ),
        # an id several providers serve: the maker when it is one of them
        ("gpt-oss-120b", "openai", "openai", "gpt-oss-120b", None, "gpt-oss-120b"),
    ],
)
def test_id_forms_resolve(
    written: str, provider: str, price_provider: str, row: str, host: str | None, rules_id: str
) -> None:
    found = resolve_model(written, as_of=WHEN)
    assert (found.provider, found.price_provider, found.model_id) == (provider, price_provider, row)
    assert (found.host, found.rules_id, found.written) == (host, rules_id, written)


def test_claude_on_vertex_is_priced_with_claude_rules() -> None:
    # it used to be refused ("belongs to provider 'anthropic'"): genai-prices lists it under google
    found = resolve_model("claude-sonnet-4-5", provider="google", as_of=WHEN)
    assert (found.provider, found.price_provider, found.host) == ("google", "google", "vertex")
    assert found.rules_id == "claude-sonnet-4-5"
    bare = resolve_model("claude-sonnet-4-5", as_of=WHEN)
    assert bare.provider == "anthropic"  # the maker, when no provider is given


def test_a_provider_given_must_agree_with_a_hosted_form() -> None:
    with pytest.raises(InputError, match="is a bedrock id \\(provider 'aws'\\), not 'openai'") as caught:
        resolve_model("us.anthropic.claude-sonnet-4-5-20250929-v1:0", provider="openai", as_of=WHEN)
    assert caught.value.key == "model"
    assert resolve_model("meta.llama3-3-70b-instruct-v1:0", provider="bedrock", as_of=WHEN).provider == "aws"


def test_host_forms_are_data() -> None:
    form = host_form("bedrock/eu.meta.llama3-2-3b-instruct-v1:0")
    assert form is not None
    assert (form.host, form.provider, form.ref, form.retry) == (
        "bedrock",
        "aws",
        "eu.meta.llama3-2-3b-instruct-v1:0",
        "meta.llama3-2-3b-instruct-v1:0",
    )
    assert host_form("gpt-4o") is None and host_form("deepseek/deepseek-chat") is None
    assert underlying_id("aws", "mistral.mixtral-8x7b-instruct-v0:1") == "mixtral-8x7b-instruct"
    assert (
        underlying_id("together", "meta-llama/Llama-3.3-70B-Instruct-Turbo") == "Llama-3.3-70B-Instruct-Turbo"
    )
    assert (
        underlying_id("novita", "deepseek/deepseek-v3") == "deepseek-v3"
    )  # Bedrock's version rules only on aws


# --------------------------------------------------------------------------------------------
# Errors: one line, key model (exit 2 on the command line)
# --------------------------------------------------------------------------------------------


def test_an_id_several_providers_serve_and_none_made_is_an_error_listing_them() -> None:
    with pytest.raises(InputError) as caught:
        resolve_model("qwen3.8-27b", as_of=WHEN)
    error = caught.value
    assert error.key == "model" and "\n" not in str(error)
    assert error.message == (
        "model 'qwen3.8-27b' is served by 2 providers and none of them made it:"
        " ovhcloud/qwen3.8-27b, quicksilverpro/qwen3.8-27b"
    )
    assert error.hint == "write one as provider/model"
    assert resolve_model("ovhcloud/qwen3.8-27b", as_of=WHEN).provider == "ovhcloud"


def test_unknown_ids_suggest_close_ones_of_every_provider() -> None:
    with pytest.raises(InputError, match=re.escape("unknown model 'llama-3.3-70b-instruct'")) as caught:
        resolve_model("llama-3.3-70b-instruct", as_of=WHEN)
    assert caught.value.hint is not None and "avian/Meta-Llama-3.3-70B-Instruct" in caught.value.hint
    with pytest.raises(
        InputError, match=re.escape("unknown bedrock model 'mistral.mistral-large-2407-v1:0'")
    ) as caught:
        resolve_model("mistral.mistral-large-2407-v1:0", as_of=WHEN)
    assert caught.value.hint is not None and "mistral.mistral-large-2402-v1:0" in caught.value.hint
    with pytest.raises(InputError, match="unknown model 'claude-sonet-4-5'") as caught:
        resolve_model("claude-sonet-4-5", as_of=WHEN)
    assert caught.value.hint is not None and caught.value.hint.startswith("did you mean: claude-sonnet-4-5,")


def test_an_azure_deployment_name_cannot_be_known() -> None:
    with pytest.raises(InputError) as caught:
        resolve_model("azure/my-gpt4o-deployment", as_of=WHEN)
    assert caught.value.message == (
        "no model 'my-gpt4o-deployment' in genai-prices' Azure prices (Azure deployment names cannot be known)"
    )
    assert caught.value.hint == "write azure/<model>, the model the deployment serves, e.g. azure/gpt-4o"


def test_a_model_of_another_provider_than_the_one_written() -> None:
    with pytest.raises(InputError) as caught:
        resolve_model("deepseek/grok-4", as_of=WHEN)
    assert caught.value.message == "model 'grok-4' belongs to provider 'x-ai', not 'deepseek'"
    assert caught.value.hint == "write x-ai/grok-4, or leave the provider out"


def test_unknown_provider() -> None:
    with pytest.raises(InputError, match="unknown provider 'deepsek'") as caught:
        resolve_model("deepseek-chat", provider="deepsek", as_of=WHEN)
    assert caught.value.key == "provider"
    assert caught.value.hint is not None and caught.value.hint.startswith("did you mean: deepseek")


def test_azure_fallback_rows_offer_the_standard_tier_only() -> None:
    # genai-prices applies no price variant to another provider's row: azure/gpt-4o batch would be
    # the standard price, so it is refused rather than shown as batch
    assert resolve_model("azure/gpt-4o", as_of=WHEN).service_tiers == ("standard",)
    with pytest.raises(InputError, match="does not offer the batch service tier"):
        resolve_model("azure/gpt-4o", as_of=WHEN, service_tier="batch")


# --------------------------------------------------------------------------------------------
# The catalog
# --------------------------------------------------------------------------------------------


def test_the_catalog_covers_every_provider() -> None:
    pids = catalog.provider_ids()
    assert len(pids) >= 40
    with_chat = [pid for pid in pids if any(e.chat for e in catalog.entries(pid))]
    assert len(with_chat) >= 40
    assert {"voyageai", "elevenlabs"}.isdisjoint(with_chat)  # embeddings and speech only
    rows = [e for pid in pids for e in catalog.entries(pid)]
    assert sum(e.chat for e in rows) > 1_800
    kinds = {e.why_code for e in rows}
    assert kinds == {None, "not-chat", "no-token-prices", "free", "unreachable"}


@pytest.mark.parametrize(
    ("provider", "model_id", "why"),
    [
        ("openai", "text-embedding-3-small", "no per-token input and output prices"),
        ("openai", "ft:gpt-4o", "genai-prices finds it only by longer ids (e.g. with a fine-tune suffix)"),
        ("openai", "gpt-realtime", "not a chat model (realtime audio)"),
        ("openai", "gpt-5", None),
    ],
)
def test_each_row_says_why_it_cannot_be_estimated(provider: str, model_id: str, why: str | None) -> None:
    assert catalog.by_id(provider)[model_id.lower()].why == why


def test_a_free_row_is_not_estimable() -> None:
    free = next(e for e in catalog.entries("openrouter") if e.kind == "free")
    assert not free.estimable and free.why == "a free row: genai-prices lists no prices for it"


def test_bedrock_and_fireworks_rows_have_an_id_genai_prices_finds_them_by() -> None:
    sonnet = catalog.by_id("aws")[SONNET_BEDROCK.lower()]
    assert sonnet.ref == "anthropic.claude-sonnet-4-5-20250929-v1:0"
    assert catalog.by_id("fireworks")["gpt-oss-120b"].ref == "accounts/fireworks/models/gpt-oss-120b"


def test_listing_a_provider_and_every_provider() -> None:
    assert [m.model_id for m in list_models(as_of=WHEN, pattern="deepseek/deepseek-chat")] == [
        "deepseek-chat"
    ]
    found = listing(as_of=WHEN, provider="bedrock", pattern="claude-sonnet-4-5")
    assert {m.model_id for m in found.models} == {
        SONNET_BEDROCK,
        "global." + SONNET_BEDROCK.partition(".")[2],
    }
    everything = listing(as_of=WHEN, pattern="grok-4")  # none at the main three: every provider
    assert {m.provider for m in everything.models} >= {"x-ai", "openrouter"}
    default = listing(as_of=WHEN)
    assert {m.provider for m in default.models} == {"anthropic", "openai", "google"}
    assert len(default.unlisted_providers) >= 37


# --------------------------------------------------------------------------------------------
# The price-equality test: agentcost's dollars are genai-prices' calc_price, on every model
# --------------------------------------------------------------------------------------------

USAGE = Usage(input_tokens=120_000, output_tokens=3_000, cache_read_tokens=80_000, cache_write_tokens=20_000)


def genai_prices_total(ref: str, provider: str, usage: Usage, when: datetime) -> Decimal:
    """genai-prices' own calc_price, through its public API (the model found by its own lookup)."""
    import genai_prices

    result = genai_prices.calc_price(
        genai_prices.Usage(
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cache_read_tokens=usage.cache_read_tokens,
            cache_write_tokens=usage.cache_write_tokens,
            cache_write_5m_tokens=usage.cache_write_tokens,
        ),
        model_ref=ref,
        provider_id=provider,
        genai_request_timestamp=when,
    )
    total: Decimal = result.total_price
    return total


def test_every_estimable_model_of_every_provider_prices_as_genai_prices() -> None:
    checked = tables = 0
    providers: set[str] = set()
    for pid in catalog.provider_ids():
        for entry in catalog.estimable(pid):
            assert entry.ref is not None
            ours = resolve_model(f"{pid}/{entry.model_id}", as_of=WHEN, at_time=True)  # genai-prices: 00:00
            assert (ours.price_provider, ours.model_id) == (pid, entry.model_id)
            tables += ours.table is not None
            try:
                theirs = genai_prices_total(entry.ref, pid, USAGE, WHEN)
            except ValueError:  # genai-prices refuses this usage for the row: so must we
                with pytest.raises(InputError):
                    ours.cost(USAGE)
                continue
            assert ours.cost(USAGE).total_usd == theirs, (pid, entry.model_id)
            checked += 1
            providers.add(pid)
    assert checked > 1_900 and len(providers) >= 40
    assert tables > 0.95 * checked  # our own Decimal arithmetic, not genai-prices' object, on nearly all


def test_time_of_day_prices_at_two_times_of_day() -> None:
    deepseek = [e for e in catalog.entries("deepseek") if e.time_of_day and e.estimable]
    assert len(deepseek) >= 3
    differ = 0
    for entry in deepseek:
        totals = []
        for when in (WHEN, PEAK):
            ours = resolve_model(entry.model_id, provider="deepseek", as_of=when, at_time=True)
            assert ours.time_of_day
            total = ours.cost(USAGE).total_usd
            assert total == genai_prices_total(entry.ref or entry.model_id, "deepseek", USAGE, when)
            totals.append(total)
        differ += totals[0] != totals[1]
    assert differ >= 1
    chat = resolve_model("deepseek-chat", as_of=PEAK)
    assert chat.time_of_day == (("00:30", "16:30"),)
    assert chat.input_mtok == Decimal("0.27") and resolve_model(
        "deepseek-chat", as_of=WHEN, at_time=True
    ).input_mtok == Decimal("0.135")
    # a date alone (midnight, no time given) is the day's standard rates, not midnight's off-peak ones
    assert resolve_model("deepseek-chat", as_of=WHEN).input_mtok == Decimal("0.27")


@pytest.mark.disk_cache
def test_rows_read_back_from_the_cache_keep_their_host_and_time_of_day() -> None:
    """The price-row cache (warm runs load no genai-prices): a hosted row keeps what resolved it; a
    row whose prices follow the time of day is stored per timestamp, never reused at another time."""
    from dataclasses import replace

    from agentcost.infra import diskcache

    diskcache.flush()
    for model in ("us.anthropic.claude-sonnet-4-5-20250929-v1:0", "azure/gpt-4o", "deepseek-chat"):
        fresh = resolve_model(model, as_of=WHEN)
        diskcache.flush()
        lookup._RESOLVED.clear()  # past the rows resolved in this process, to the disk
        again = resolve_model(model, as_of=WHEN)
        assert again._price is None, model  # read from the cache
        assert again == replace(fresh, source=replace(fresh.source, as_of=again.source.as_of))
        assert (again.price_provider, again.host, again.rules_id) == (
            fresh.price_provider,
            fresh.host,
            fresh.rules_id,
        )
    peak = resolve_model("deepseek-chat", as_of=PEAK)  # the same day, another time: looked up again
    assert peak._price is not None and peak.input_mtok == Decimal("0.27")
    diskcache.flush()
    assert resolve_model("deepseek-chat", as_of=PEAK).input_mtok == Decimal("0.27")
    assert resolve_model("deepseek-chat", as_of=WHEN, at_time=True).input_mtok == Decimal("0.135")
    assert resolve_model("deepseek-chat", as_of=WHEN).input_mtok == Decimal("0.27")  # the day: standard


# --------------------------------------------------------------------------------------------
# agentcost models, compare globs, user price files
# --------------------------------------------------------------------------------------------


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    from agentcost.cli import run

    code = run([*args, "--as-of", "2026-11-30"])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.usefixtures("no_ctok", "fixed_terminal")
def test_models_by_provider_and_every_provider_in_json(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from agentcost.render.schema import report_schema
    from tests.conftest import validate_json

    code, out, err = cli(capsys, "models", "--provider", "deepseek")
    assert (code, err) == (0, "")
    assert "│ deepseek-chat*" in out and "8 models" in out
    code, out, _ = cli(capsys, "models")
    assert "more providers price chat models (arcee, avian, aws, azure," in " ".join(out.split())
    assert "agentcost models --provider NAME, or --all." in " ".join(out.split())
    code, out, _ = cli(capsys, "models", "--format", "json")
    assert code == 0
    data = json.loads(out)
    # the schema, on every provider's first rows (every row of 2,000 takes a second): rows differ
    # by provider, host and why a model cannot be estimated, which these cover
    sample = {}
    for row in data["models"]:
        sample.setdefault((row["provider"], row.get("host"), row.get("why")), row)
    validate_json({**data, "models": list(sample.values())}, report_schema())
    listed = {m["provider"] for m in data["models"]}
    assert len(listed) >= 40 and len(data["providers"]) >= 40
    rows = {(m["provider"], m["model"]): m for m in data["models"]}
    assert rows[("openai", "text-embedding-3-small")]["why"] == "no per-token input and output prices"
    assert not rows[("openai", "text-embedding-3-small")]["estimable"]
    bedrock = rows[("aws", SONNET_BEDROCK)]
    assert (bedrock["host"], bedrock["rules_id"], bedrock["chat"]) == (
        "bedrock",
        "claude-sonnet-4-5-20250929",
        True,
    )
    code, _, err = cli(capsys, "models", "--provider", "acme")
    assert code == 2
    assert err == (
        "agentcost: error: --provider: unknown provider 'acme'"
        " (did you mean: arcee? 'agentcost models --all' lists every provider)\n"
    )


def test_compare_globs_any_provider() -> None:
    from agentcost.commands.compare import expand_models

    deepseek = expand_models(["deepseek/*"], as_of=WHEN)
    assert "deepseek/deepseek-chat" in deepseek and all(m.startswith("deepseek/") for m in deepseek)
    mixed = expand_models(
        [
            "anthropic.claude-sonnet-4-5-20250929-v1:0",
            "azure/gpt-4o",
            "deepseek-chat",
            "mistral-large-latest",
            "grok-4",
        ],
        as_of=WHEN,
    )
    assert mixed == [  # each as typed (issue 30): the row shows the price row it resolves to beside it
        "anthropic.claude-sonnet-4-5-20250929-v1:0",
        "azure/gpt-4o",
        "deepseek-chat",
        "mistral-large-latest",
        "grok-4",
    ]


def test_user_price_files_take_any_provider_and_hosted_bases(tmp_path: object) -> None:
    from pathlib import Path

    from agentcost.prices.user import load_user_prices

    assert isinstance(tmp_path, Path)
    path = tmp_path / "prices.yaml"
    path.write_text(
        "version: 1\nmodels:\n"
        "  - {id: ds-contract, provider: deepseek, base: deepseek-chat, discount: 10%, source: contract}\n"
        "  - {id: sonnet-eu, provider: bedrock, base: eu.anthropic.claude-sonnet-4-5-20250929-v1:0,"
        " discount: 20%, source: EDP}\n",
        encoding="utf-8",
    )
    user = load_user_prices(path)
    assert [m.provider for m in user.models] == ["deepseek", "aws"]  # "bedrock" is genai-prices' alias
    ds = resolve_model("ds-contract", as_of=PEAK, user_prices=user)
    assert ds.input_mtok == Decimal("0.27") * Decimal("0.9") and ds.time_of_day == (("00:30", "16:30"),)
    assert (ds.provider, ds.rules_id) == ("deepseek", "deepseek-chat")
    sonnet = resolve_model("sonnet-eu", as_of=WHEN, user_prices=user)
    assert (sonnet.provider, sonnet.host, sonnet.rules_id) == ("aws", "bedrock", "claude-sonnet-4-5-20250929")
    assert sonnet.input_mtok == Decimal("3.3") * Decimal("0.8")
