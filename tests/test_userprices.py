"""User price files (``--prices FILE``): loading, errors with file/line/key, and hand-checked dollars.

Rates are USD per million tokens (MTok), so N tokens at $R/MTok cost N*R micro-dollars (µ$).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from agentcost.cli import run
from agentcost.errors import InputError
from agentcost.loop.estimate import estimate
from agentcost.prices.listing import list_models
from agentcost.prices.lookup import resolve_model
from agentcost.prices.pricing import Usage
from agentcost.prices.user import UserPrices, json_schema, load_user_prices
from agentcost.render.schema import report_schema
from agentcost.report.build import build_report
from tests.conftest import ROOT, validate_json

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)

pytestmark = pytest.mark.usefixtures("no_ctok", "fixed_terminal")

PRICES = """\
version: 1
models:
  - id: claude-sonnet-4-5
    provider: anthropic
    base: claude-sonnet-4-5
    discount: 20%
    source: contract 2026-07
  - id: acme-coder
    provider: openai
    base: gpt-5
    input_mtok: 0.40
    output_mtok: 1.60
    cache_read_mtok: 0.04
    source: self-hosted, 2026-10 capacity plan
  - id: my-claude
    provider: anthropic
    input_mtok: 1
    output_mtok: 5
    cache_read_mtok: 0.1
    cache_write_mtok: 1.25
    cache_write_1h_mtok: 2
    context_window: 100000
    source: private deployment
"""

SMALL = """\
version: 1
name: small
model: {model}
system: {{tokens: 3000}}
tools:
  - name: search
    description: Search the web.
    input_schema: {{type: object, properties: {{q: {{type: string}}}}}}
task: {{tokens: 500}}
rounds:
  - {{tool: search, call_tokens: 50, result: {{tokens: 2000}}, repeat: 3}}
final: {{tokens: 400}}
"""


def micro(n: int | str) -> Decimal:
    return Decimal(n) / 1_000_000


def write(tmp_path: Path, text: str, name: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def user(tmp_path: Path) -> UserPrices:
    return load_user_prices(write(tmp_path, PRICES, "prices.yaml"))


# --------------------------------------------------------------------------------------------
# Loading and pricing


def test_load(user: UserPrices) -> None:
    assert [m.id for m in user.models] == ["claude-sonnet-4-5", "acme-coder", "my-claude"]
    sonnet, acme, mine = user.models
    assert (sonnet.base, sonnet.discount, sonnet.input_mtok) == ("claude-sonnet-4-5", Decimal("0.2"), None)
    assert (acme.input_mtok, acme.output_mtok, acme.cache_read_mtok) == (
        Decimal("0.40"),
        Decimal("1.60"),
        Decimal("0.04"),
    )
    assert acme.source == "self-hosted, 2026-10 capacity plan"
    assert mine.context_window == 100_000
    assert user.find("ACME-CODER", None) is acme and user.find("acme-coder", "anthropic") is None


def test_a_discount_scales_every_list_token_rate(user: UserPrices) -> None:
    m = resolve_model("claude-sonnet-4-5", as_of=AS_OF, user_prices=user)
    # list $3 / $15 / read $0.30 / 5m write $3.75 / 1h write $6, 20% off:
    assert (m.input_mtok, m.output_mtok, m.cache_read_mtok, m.cache_write_mtok, m.cache_write_1h_mtok) == (
        Decimal("2.4"),
        Decimal("12"),
        Decimal("0.24"),
        Decimal("3"),
        Decimal("4.8"),
    )
    assert m.tier_thresholds == (200_000,)  # the base model's tiers, discounted too
    assert m.rules_id == "claude-sonnet-4-5"
    # 10,000 input: 2,000 read, 1,000 written (5m); 1,000 output:
    # 7,000*2.4 + 2,000*0.24 + 1,000*3 = 16,800 + 480 + 3,000 = 20,280 µ$; 1,000*12 = 12,000 µ$
    cost = m.cost(Usage(10_000, 1_000, cache_read_tokens=2_000, cache_write_tokens=1_000))
    assert (cost.input_usd, cost.output_usd, cost.total_usd) == (micro(20_280), micro(12_000), micro(32_280))
    # the per-use fee is not discounted: web search stays $10 per 1,000
    assert [r.base for r in m.rates() if r.key == "web_searches_kcount"] == [Decimal("10")]
    assert m.source.kind == "user"
    assert m.source.label.endswith(
        "prices.yaml (contract 2026-07; 20% off claude-sonnet-4-5 in genai-prices 0.2.3)"
    )


def test_a_discount_follows_the_base_models_service_tiers(user: UserPrices) -> None:
    m = resolve_model("claude-sonnet-4-5", as_of=AS_OF, service_tier="batch", user_prices=user)
    # batch list $1.50 / $7.50 / read $0.15 / write $1.875, 20% off: $1.20 / $6 / $0.12 / $1.50
    # 7,000*1.2 + 2,000*0.12 + 1,000*1.5 = 8,400 + 240 + 1,500 = 10,140 µ$; 1,000*6 = 6,000 µ$
    cost = m.cost(Usage(10_000, 1_000, cache_read_tokens=2_000, cache_write_tokens=1_000))
    assert cost.total_usd == micro(16_140)


def test_an_alias_of_an_overridden_model_gets_the_user_prices(user: UserPrices) -> None:
    m = resolve_model("claude-sonnet-4-5-20250929", as_of=AS_OF, user_prices=user)
    assert (m.model_id, m.input_mtok, m.source.kind) == ("claude-sonnet-4-5", Decimal("2.4"), "user")


def test_a_new_model_with_its_own_rates(user: UserPrices) -> None:
    m = resolve_model("openai/acme-coder", as_of=AS_OF, user_prices=user)
    assert (m.model_id, m.provider, m.rules_id, m.context_window) == (
        "acme-coder",
        "openai",
        "gpt-5",
        400_000,
    )
    # 8,000*0.40 + 2,000*0.04 = 3,200 + 80 = 3,280 µ$; 1,000*1.60 = 1,600 µ$
    cost = m.cost(Usage(10_000, 1_000, cache_read_tokens=2_000))
    assert (cost.input_usd, cost.output_usd, cost.total_usd) == (micro(3_280), micro(1_600), micro(4_880))
    assert m.source.label.endswith("prices.yaml (self-hosted, 2026-10 capacity plan)")
    assert m.warnings == ()  # no schedule or staleness is known for the user's own rates
    mine = resolve_model("my-claude", as_of=AS_OF, user_prices=user)
    assert (mine.rules_id, mine.context_window, mine.cache_write_1h_mtok) == (
        "my-claude",
        100_000,
        Decimal("2"),
    )
    # 10,000 input: 2,000 read, 1,000 5m write, 500 1h write, 6,500 uncached; 1,000 output:
    # 6,500*1 + 2,000*0.1 + 1,000*1.25 + 500*2 = 6,500 + 200 + 1,250 + 1,000 = 8,950 µ$; 1,000*5 = 5,000 µ$
    usage = Usage(10_000, 1_000, cache_read_tokens=2_000, cache_write_tokens=1_000, cache_write_1h_tokens=500)
    assert mine.cost(usage).total_usd == micro(13_950)


def test_without_cache_prices_cached_tokens_cost_the_input_rate(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "version: 1\nmodels:\n  - {id: flat, provider: google, input_mtok: 2, output_mtok: 8, source: quote}\n",
        "flat.yaml",
    )
    m = resolve_model("flat", as_of=AS_OF, user_prices=load_user_prices(path))
    # 10,000*2 (the 2,000 reads at the input rate too) + 1,000*8 = 20,000 + 8,000 µ$
    assert m.cost(Usage(10_000, 1_000, cache_read_tokens=2_000)).total_usd == micro(28_000)


def test_explicit_rates_offer_the_standard_tier_only(user: UserPrices) -> None:
    with pytest.raises(InputError) as caught:
        resolve_model("acme-coder", as_of=AS_OF, service_tier="batch", user_prices=user)
    assert caught.value.key == "service_tier"
    assert caught.value.message == "acme-coder does not offer the batch service tier (it offers: standard)"
    assert "gives standard prices only" in str(caught.value.hint)


def test_provider_mismatch_and_suggestions(user: UserPrices) -> None:
    with pytest.raises(
        InputError, match=r"model 'acme-coder' belongs to provider 'openai' in .*prices\.yaml"
    ):
        resolve_model("acme-coder", provider="anthropic", as_of=AS_OF, user_prices=user)
    with pytest.raises(InputError) as caught:
        resolve_model("acme-codr", as_of=AS_OF, user_prices=user)
    assert "did you mean: acme-coder" in str(caught.value.hint)


def test_list_models_replaces_and_adds(user: UserPrices) -> None:
    found = {m.model_id: m for m in list_models(as_of=AS_OF, pattern="anthropic/*", user_prices=user)}
    assert found["claude-sonnet-4-5"].source.kind == "user"
    assert found["my-claude"].source.kind == "user"
    assert found["claude-opus-4-5"].source.kind == "genai-prices"
    assert [m.model_id for m in list_models(as_of=AS_OF, pattern="acme", user_prices=user)] == ["acme-coder"]


# --------------------------------------------------------------------------------------------
# Estimates


def test_estimate_with_a_discount_is_80_percent_of_list(tmp_path: Path, user: UserPrices) -> None:
    path = write(tmp_path, SMALL.format(model="claude-sonnet-4-5"), "s.yaml")
    listed = estimate(path, as_of=AS_OF)
    mine = estimate(path, as_of=AS_OF, user_prices=user)
    # same tokens, every token rate x 0.8 (the scenario uses no per-use fees)
    assert mine.counts == listed.counts
    assert mine.ledger.totals.cost_usd == listed.ledger.totals.cost_usd * Decimal("0.8")
    report = build_report(mine)
    assert report.price_source == str(tmp_path / "prices.yaml")
    assert report.price_version == "contract 2026-07"


def test_estimate_on_a_new_model_prices_every_request_by_hand(tmp_path: Path, user: UserPrices) -> None:
    path = write(tmp_path, SMALL.format(model="acme-coder"), "s.yaml")
    est = estimate(path, as_of=AS_OF, user_prices=user)
    assert est.counts.encoding == "o200k_base"  # gpt-5's tokenizer: the base's rules
    for row in est.ledger.rows:
        u = row.usage
        uncached = u.input_tokens - u.cache_read_tokens - u.cache_write_tokens
        # OpenAI bills cache writes at the input rate; $0.40 in, $0.04 read, $1.60 out
        expected = (
            (uncached + u.cache_write_tokens) * Decimal("0.40")
            + u.cache_read_tokens * Decimal("0.04")
            + u.output_tokens * Decimal("1.60")
        ) / 1_000_000
        assert row.cost.total_usd == expected
    assert any(r.usage.cache_read_tokens for r in est.ledger.rows)  # caching applies (gpt-5's rules)


def test_the_cli_shows_the_user_file_as_the_price_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path, PRICES, "prices.yaml")
    write(tmp_path, SMALL.format(model="acme-coder"), "s.yaml")
    assert run(["estimate", "s.yaml", "--prices", "prices.yaml", "--as-of", "2026-11-30"]) == 0
    out = capsys.readouterr().out
    assert "Prices: prices.yaml (self-hosted, 2026-10 capacity plan), in force on 2026-11-30. Counter:" in out
    assert (
        run(["estimate", "s.yaml", "--prices", "prices.yaml", "--as-of", "2026-11-30", "-f", "markdown"]) == 0
    )
    assert (
        "<sub>Prices: prices.yaml (self-hosted, 2026-10 capacity plan), in force on 2026-11-30."
        " Counter: o200k_base.</sub>" in capsys.readouterr().out
    )
    assert run(["estimate", "s.yaml", "--prices", "prices.yaml", "--as-of", "2026-11-30", "-f", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["prices"]["source"], data["prices"]["version"]) == (
        "prices.yaml",
        "self-hosted, 2026-10 capacity plan",
    )
    validate_json(data, report_schema())
    # compare: one model from the file, one from genai-prices; both sources are named
    assert run(["compare", "s.yaml", "-m", "acme-coder", "-m", "gpt-5", "--prices", "prices.yaml",
                "--as-of", "2026-11-30", "-f", "markdown"]) == 0  # fmt: skip
    assert (
        "prices: genai-prices 0.2.3; prices.yaml (self-hosted, 2026-10 capacity plan)"
        " for acme-coder, in force on 2026-11-30" in capsys.readouterr().out
    )
    # diff: both sides priced with the same file
    write(tmp_path, SMALL.format(model="acme-coder").replace("repeat: 3", "repeat: 4"), "t.yaml")
    assert run(["diff", "s.yaml", "t.yaml", "--prices", "prices.yaml", "--as-of", "2026-11-30"]) == 0
    assert (
        "Both sides priced with prices.yaml (self-hosted, 2026-10 capacity plan)" in capsys.readouterr().out
    )
    # without the file the model is unknown
    assert run(["estimate", "s.yaml", "--as-of", "2026-11-30"]) == 2
    assert "s.yaml:3: model: unknown model 'acme-coder'" in capsys.readouterr().err


# --------------------------------------------------------------------------------------------
# Errors: one line with file, line and key


H = "version: 1\nmodels:\n"
BAD = [
    (
        H + "  - id: a\n    provider: openai\n    input_mtok: 1\n    output_mtok: 2\n",
        "bad.yaml:3: models[0].source: required key is missing (say where these prices come from, e.g."
        " 'source: contract 2026-07')",
    ),
    (
        H + "  - id: a\n    provider: openai\n    discount: 20%\n    source: x\n",
        "bad.yaml:5: models[0].discount: a discount applies to a base model's list prices"
        " (add 'base: <genai-prices model id>')",
    ),
    (
        H
        + "  - id: a\n    provider: openai\n    base: gpt-5\n    discount: 20%\n    input_mtok: 1\n    source: x\n",
        "bad.yaml:7: models[0].input_mtok: give either discount or rates, not both"
        " (a discount applies to every token rate of base)",
    ),
    (
        H + "  - id: a\n    provider: openai\n    input_mtok: 1\n    source: x\n",
        "bad.yaml:3: models[0].output_mtok: required key is missing"
        " (give input_mtok and output_mtok, or base and discount)",
    ),
    (
        H
        + "  - id: a\n    provider: openai\n    base: gpt-5x\n    input_mtok: 1\n    output_mtok: 2\n    source: x\n",
        "bad.yaml:5: models[0].base: unknown openai model (did you mean: gpt-5, gpt-5.5, gpt-5.4?"
        " run 'agentcost models' to list known models)",
    ),
    (
        H
        + "  - id: a\n    provider: anthropic\n    base: gpt-5\n    input_mtok: 1\n    output_mtok: 2\n    source: x\n",
        "bad.yaml:5: models[0].base: the base model belongs to provider 'openai', not 'anthropic'"
        " (base: must be a model of the same provider)",
    ),
    (
        H + "  - {id: a, provider: openai, input_mtok: 1, output_mtok: 2, source: x}\n"
        "  - {id: A, provider: google, input_mtok: 1, output_mtok: 2, source: y}\n",
        "bad.yaml:4: models[1].id: duplicate model id (first at line 3)",
    ),
    (
        H + "  - {id: a, provider: openai, base: gpt-5, discount: 0.2, source: x}\n",
        "bad.yaml:3: models[0].discount: expected a percentage such as '20%', got 0.2",
    ),
    (
        H + "  - {id: a, provider: openai, base: gpt-5, discount: 120%, source: x}\n",
        "bad.yaml:3: models[0].discount: must be below 100%, got 120% (a free model has input_mtok: 0)",
    ),
    (
        H
        + "  - {id: a, provider: openai, input_mtok: 1, output_mtok: 2, cache_write_1h_mtok: 2, source: x}\n",
        "bad.yaml:3: models[0].cache_write_1h_mtok: openai has no 1-hour cache writes"
        " (1-hour cache writes are an Anthropic feature; leave it out)",
    ),
    (
        H + "  - {id: a, provider: openai, input_mtoks: 1, output_mtok: 2, source: x}\n",
        "bad.yaml:3: models[0].<key>: unknown key (allowed: id, provider, base, input_mtok, output_mtok,"
        " cache_read_mtok, cache_write_mtok, cache_write_1h_mtok, context_window, discount, source;"
        " did you mean 'input_mtok'?)",
    ),
    (
        H + "  - {id: a, provider: openai, input_mtok: -1, output_mtok: 2, source: x}\n",
        "bad.yaml:3: models[0].input_mtok: must be >= 0, got -1",
    ),
    (
        H + "  - {id: a, provider: openai, input_mtok: '1', output_mtok: 2, source: x}\n",
        "bad.yaml:3: models[0].input_mtok: expected a number, got text (1 character)",
    ),
    (
        H + "  - {id: openai/a, provider: openai, input_mtok: 1, output_mtok: 2, source: x}\n",
        "bad.yaml:3: models[0].id: a model id has no '/' and no surrounding spaces, got text (8 characters)"
        " (give the provider in provider:)",
    ),
    (
        H + "  - {id: a, provider: acme, input_mtok: 1, output_mtok: 2, source: x}\n",
        "bad.yaml:3: models[0].provider: not a genai-prices provider id, got text (4 characters)"
        " (e.g. anthropic, openai, google, aws, azure, deepseek; 'agentcost models --all' lists them)",
    ),
    (
        H + "  - {id: a, provider: openai, input_mtok: 1, output_mtok: 2, source: ''}\n",
        "bad.yaml:3: models[0].source: must not be empty (say where these prices come from)",
    ),
    ("models: []\n", "bad.yaml:1: version: required key is missing (add 'version: 1' at the top)"),
    ("version: 2\nmodels: []\n", "bad.yaml:1: version: unsupported version 2 (supported: 1)"),
    ("version: 1\nmodels: []\n", "bad.yaml:2: models: must list at least one model (e.g. '- id: my-model')"),
]


@pytest.mark.parametrize(("text", "expected"), BAD)
def test_errors_name_file_line_and_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, expected: str
) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path, text, "bad.yaml")
    with pytest.raises(InputError) as caught:
        load_user_prices("bad.yaml")
    assert str(caught.value) == expected


def test_a_bad_file_is_exit_2_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path, SMALL.format(model="gpt-5"), "s.yaml")
    assert run(["estimate", "s.yaml", "--prices", "missing.yaml", "--as-of", "2026-11-30"]) == 2
    assert capsys.readouterr().err == "agentcost: error: missing.yaml: --prices: file not found\n"
    write(tmp_path, BAD[0][0], "bad.yaml")
    assert run(["models", "--prices", "bad.yaml"]) == 2
    assert capsys.readouterr().err == f"agentcost: error: {BAD[0][1]}\n"


def test_the_json_schema_describes_the_example_file() -> None:
    import yaml

    schema = json_schema()
    assert schema["title"] == "agentcost prices"
    validate_json(yaml.safe_load(PRICES), schema)
    published = ROOT / "docs" / "prices.schema.json"
    assert json.loads(published.read_text(encoding="utf-8")) == schema, (
        "docs/prices.schema.json is stale: python -m agentcost.prices.user > docs/prices.schema.json"
    )
