"""``agentcost models`` and ``agentcost prices``: listing order, rates, sources, worked arithmetic, JSON."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from agentcost.cli import run
from agentcost.errors import InputError
from agentcost.prices.genai import MAIN_PROVIDERS, known_model_ids
from agentcost.prices.listing import list_models, newest_first, release_key
from agentcost.prices.lookup import resolve_model
from agentcost.prices.pricing import Usage
from agentcost.render.schema import report_schema
from agentcost.report.prices import count_accuracy, price_sheet
from tests.conftest import validate_json

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)

pytestmark = pytest.mark.usefixtures("no_ctok", "fixed_terminal")


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run([*args, "--as-of", "2026-11-30"])
    out, err = capsys.readouterr()
    return code, out, err


# --------------------------------------------------------------------------------------------
# agentcost models


def test_release_key_reads_the_version_in_the_id() -> None:
    assert release_key("claude-opus-4-5") == (4, 5)
    assert release_key("claude-3-5-haiku-latest") == (3, 5)
    assert release_key("claude-v1") == (1,)
    assert release_key("gpt-5.4-mini") == (5, 4)
    assert release_key("gpt-4o-2024-05-13") == (4,)
    assert release_key("o4-mini") == (4,)
    assert release_key("gemini-2.5-pro") == (2, 5)
    assert release_key("gemma-4-31b-it") == (4,)
    assert release_key("codex-mini") == ()


def test_models_are_listed_newest_first_per_provider() -> None:
    ids = [m.model_id for m in newest_first(list_models(as_of=AS_OF, pattern="claude-sonnet"))]
    assert ids == [
        "claude-sonnet-5-5",
        "claude-sonnet-5",
        "claude-sonnet-4-6",
        "claude-sonnet-4-5",
        "claude-sonnet-4-0",
    ]
    ids = [m.model_id for m in newest_first(list_models(as_of=AS_OF, pattern="gpt-5*"))]
    assert ids.index("gpt-5.5") < ids.index("gpt-5.4") < ids.index("gpt-5.1") < ids.index("gpt-5")
    everything = newest_first(list_models(as_of=AS_OF))
    assert [m.provider for m in everything] == sorted(
        (m.provider for m in everything), key=["anthropic", "openai", "google"].index
    )


def test_every_known_model_is_listed() -> None:
    # genai-prices' ft:gpt-4o only matches "ft:gpt-4o:..." references, so it is not offered (it used to
    # make the unfiltered listing fail)
    assert "ft:gpt-4o" not in known_model_ids()
    # the three main providers' own models by default (Claude on Vertex, google's claude-* rows,
    # with --provider google); every provider's with every=True
    main = {
        (p, m)
        for p in MAIN_PROVIDERS
        for m in known_model_ids(p)
        if not m.startswith("claude-") or p != "google"
    }
    assert {(m.provider, m.model_id) for m in list_models(as_of=AS_OF)} == main
    assert len(list_models(as_of=AS_OF, provider="google")) == len(known_model_ids("google"))


def test_count_accuracy() -> None:
    assert count_accuracy("openai", "gpt-5") == "exact"
    assert count_accuracy("anthropic", "claude-sonnet-4-5") == "approximate"
    assert count_accuracy("google", "gemini-2.5-pro") == "approximate"
    assert count_accuracy("google", "claude-opus-4-5") == "approximate"  # Claude on Vertex counts as Claude


def test_models_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "models", "claude-sonnet-4")
    assert (code, err) == (0, "")
    assert (
        "│ anthropic          │       │        │            │             │           │             │\n"
        "│ claude-sonnet-4-6* │    $3 │    $15 │       $0.3 │       $3.75 │ 1,000,000 │ batch       │\n"
        "│ claude-sonnet-4-5* │    $3 │    $15 │       $0.3 │       $3.75 │   200,000 │ >200k batch │\n"
        "│ claude-sonnet-4-0* │    $3 │    $15 │       $0.3 │       $3.75 │   200,000 │ -           │\n"
    ) in out
    assert "3 models, by provider, then newest first by the version number in the model id" in out
    assert "in force on 2026-11-30, from genai-prices 0.2.3 (current on 2026-11-30)." in out
    assert "* token counts are approximate (Claude). cache write: the 5-minute write" in out
    assert "more matching models at other providers (aws " in out
    code, out, _ = cli(capsys, "models", "gpt-5-mini")
    # OpenAI counts are exact: no *
    assert "│ gpt-5-mini │ $0.25 │     $2 │     $0.025 │           - │ 400,000 │ batch flex priority │" in out


def test_models_warn_about_scheduled_changes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "models", "gemini-4")
    assert code == 0
    assert "Warning: gemini-4-argon prices change on 2026-12-01 (input $2 → $4/MTok," in out


def test_models_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "models", "openai/gpt-5", "--format", "json")
    assert code == 0
    data = json.loads(out)
    validate_json(data, report_schema())
    assert (data["version"], data["kind"], data["as_of"]) == (1, "models", "2026-11-30T00:00:00+00:00")
    gpt5 = next(m for m in data["models"] if m["model"] == "gpt-5")
    assert gpt5 == {
        "model": "gpt-5",
        "name": "GPT-5",
        "provider": "openai",
        "price_provider": "openai",
        "host": None,
        "rules_id": "gpt-5",
        "estimable": True,
        "chat": True,
        "why": None,
        "per_mtok_usd": {
            "input": "1.25",
            "output": "10",
            "cache_read": "0.125",
            "cache_write": None,
            "cache_write_1h": None,
        },
        "tier_thresholds": [],
        "service_tiers": ["standard", "batch", "flex", "priority"],
        "context_window": 400000,
        "token_counts": "exact",
        "deprecated": False,
        "source": "genai-prices 0.2.3 (current on 2026-11-30)",
    }


def test_models_with_no_match_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, "models", "nothing-like-this")
    assert code == 2
    assert (
        err
        == "agentcost: error: no known model matches 'nothing-like-this' (try a shorter filter, or none)\n"
    )


# --------------------------------------------------------------------------------------------
# agentcost prices MODEL


def test_price_sheet_arithmetic_claude_sonnet_4_5() -> None:
    sheet = price_sheet("claude-sonnet-4-5", as_of=AS_OF)
    ex = sheet.example
    assert ex.usage == Usage(10_000, 1_000, cache_read_tokens=2_000, cache_write_tokens=1_000)
    # 7,000 x $3 = $0.021; 2,000 x $0.3 = $0.0006; 1,000 x $3.75 = $0.00375; 1,000 x $15 = $0.015
    assert [(line.label, line.tokens, line.per_mtok_usd, line.usd) for line in ex.lines] == [
        ("uncached input", 7_000, Decimal("3"), Decimal("0.021")),
        ("cache read", 2_000, Decimal("0.3"), Decimal("0.0006")),
        ("cache write 5m", 1_000, Decimal("3.75"), Decimal("0.00375")),
        ("output", 1_000, Decimal("15"), Decimal("0.015")),
    ]
    assert ex.total_usd == ex.genai_prices_usd == Decimal("0.04035")
    assert [tier for tier, _ in sheet.service_tiers] == ["standard", "batch"]
    assert sheet.token_counts == "approximate"
    names = [f.name for f in sheet.facts]
    assert names == ["tool-use system prompt", "minimum cacheable prompt", "token counts"]
    tool = sheet.facts[0]
    assert tool.value == "496 tokens per request with tools (tool_choice auto or none), 588 (any or tool)"
    assert tool.source.startswith("https://platform.claude.com/docs/en/agents-and-tools/tool-use/overview")
    assert tool.read is not None
    assert sheet.facts[1].value == "1,024 tokens (shorter prefixes are not cached)"


def test_price_sheet_over_the_tier() -> None:
    sheet = price_sheet("gemini-2.5-pro", as_of=AS_OF, example=Usage(250_000, 1_000))
    # every token at the >200k rates: 250,000 x $2.5 = $0.625; 1,000 x $15 = $0.015
    assert sheet.example.tier == ">200k"
    assert [(line.tokens, line.per_mtok_usd, line.usd) for line in sheet.example.lines] == [
        (250_000, Decimal("2.5"), Decimal("0.625")),
        (1_000, Decimal("15"), Decimal("0.015")),
    ]
    assert sheet.example.total_usd == sheet.example.genai_prices_usd == Decimal("0.64")


ITEMISED = (
    Usage(10_000, 1_000),
    Usage(10_000, 1_000, cache_read_tokens=2_000, cache_write_tokens=1_000),
    Usage(250_000, 3_000, cache_read_tokens=5_000, cache_write_tokens=3_000),
)


def test_the_example_is_the_price_itself_on_every_model() -> None:
    """``ModelPrices.itemise`` (the worked example) shows the parts ``ModelPrices.cost`` sums: its
    lines add up to the price estimates use, on every model; without a PriceTable (genai-prices'
    price object prices the request) the lines from the rates are the same."""
    for m in list_models(as_of=AS_OF):
        for usage in ITEMISED:
            worked = m.itemise(usage)
            assert worked.cost == m.cost(usage), m.model_id
            assert worked.total_usd == worked.cost.total_usd, (m.model_id, usage)
            assert sum(line.tokens for line in worked.lines) == usage.input_tokens + usage.output_tokens
            if m.table is not None and m.source.kind == "genai-prices":
                genai = dataclasses.replace(m, table=None).itemise(usage)
                assert genai.lines == worked.lines and genai.cost == worked.cost, m.model_id


def test_the_example_with_one_hour_cache_writes() -> None:
    prices = resolve_model("claude-sonnet-4-5", as_of=AS_OF)
    worked = prices.itemise(Usage(10_000, 1_000, cache_write_tokens=1_000, cache_write_1h_tokens=2_000))
    # 7,000 x $3 = $0.021; 1,000 x $3.75 = $0.00375; 2,000 x $6 = $0.012; 1,000 x $15 = $0.015
    assert [(line.label, line.tokens, line.usd) for line in worked.lines] == [
        ("uncached input", 7_000, Decimal("0.021")),
        ("cache write 5m", 1_000, Decimal("0.00375")),
        ("cache write 1h", 2_000, Decimal("0.012")),
        ("output", 1_000, Decimal("0.015")),
    ]
    assert worked.total_usd == worked.cost.total_usd == Decimal("0.05175")
    with pytest.raises(InputError, match="gpt-5 has no 1-hour cache-write price"):
        resolve_model("gpt-5", as_of=AS_OF).itemise(Usage(10_000, 1_000, cache_write_1h_tokens=1))


def test_prices_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "prices", "claude-sonnet-4-5")
    assert (code, err) == (0, "")
    assert out.startswith(
        "claude-sonnet-4-5 · Claude Sonnet 4.5 (anthropic): prices in force on 2026-11-30\n"
    )
    for row in (
        "│ input          │      $3 (>200k: $6) │      $1.5 (>200k: $3) │",
        "│ cache write 5m │ $3.75 (>200k: $7.5) │ $1.875 (>200k: $3.75) │",
        "│ cache write 1h │     $6 (>200k: $12) │        $3 (>200k: $6) │",
        "│ cache read     │  $0.3 (>200k: $0.6) │   $0.15 (>200k: $0.3) │",
        "│ output         │  $15 (>200k: $22.5) │  $7.5 (>200k: $11.25) │",
        "│ web searches   │       $10 per 1,000 │         $10 per 1,000 │",
    ):
        assert row in out
    assert (
        "Long-context tier: a request with more than 200,000 input tokens is priced whole (all its tokens) at the"
        " tier's rates." in out
    )
    assert (
        "Service tiers offered: standard, batch (choose with service_tier: in the scenario, or --service-tier)."
        in out
    )
    assert "Scheduled changes: none known after 2026-11-30." in out
    assert "Prices from genai-prices 0.2.3." in out  # one date: the title's (--verbose: the data's too)
    assert "Pricing pages: https://www.anthropic.com/pricing#api" in out
    assert "  token count accuracy: approximate." in out
    assert (
        "Example request (standard tier): 10,000 input tokens (2,000 read from cache, 1,000 written to it), 1,000"
        " output tokens:\n"
        "  uncached input  7,000 × $3/MTok    = $0.021\n"
        "  cache read      2,000 × $0.3/MTok  = $0.0006\n"
        "  cache write 5m  1,000 × $3.75/MTok = $0.00375\n"
        "  output          1,000 × $15/MTok   = $0.015\n"
        "  total                              = $0.04035  (the same as genai-prices computes)\n"
    ) in out


def test_prices_of_a_service_tier_and_a_scheduled_change(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "prices", "gemini-4-argon", "--service-tier", "batch")
    assert code == 0
    assert out.startswith(
        "gemini-4-argon · Gemini 4 Argon (google): prices in force on 2026-11-30, batch tier\n"
    )
    assert "│ input        │            $2 │            $1 │" in out
    assert (
        "Scheduled change on 2026-12-01: input $1 → $2/MTok, cache read $0.05 → $0.1/MTok, output $5 → $10/MTok."
        in out
    )
    # 8,000 x $1 = $0.008; 2,000 x $0.05 = $0.0001; 1,000 x $5 = $0.005
    assert "  total                              = $0.0131  (the same as genai-prices computes)" in out
    assert "Warning: gemini-4-argon batch prices change on 2026-12-01" in out


def test_prices_example_options(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "prices", "gpt-5", "--input-tokens", "300000", "--cache-read-tokens", "100000")
    assert code == 0
    # 200,000 x $1.25 = $0.25; 100,000 x $0.125 = $0.0125; 1,000 x $10 = $0.01
    assert "  uncached input  200,000 × $1.25/MTok  = $0.25\n" in out
    assert "  cache read      100,000 × $0.125/MTok = $0.0125\n" in out
    assert "= $0.2725  (the same as genai-prices computes)" in out
    code, _, err = cli(capsys, "prices", "gpt-5", "--input-tokens", "100", "--cache-read-tokens", "200")
    assert code == 2
    assert "cache reads and writes (200 tokens) exceed the request's input tokens (100)" in err


def test_prices_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "prices", "gemini-4-argon", "--format", "json")
    assert code == 0
    data = json.loads(out)
    validate_json(data, report_schema())
    assert (data["kind"], data["model"], data["service_tier"]) == ("prices", "gemini-4-argon", "standard")
    assert data["source"]["label"] == "genai-prices 0.2.3 (current on 2026-11-30)"
    assert data["rates"][0] == {
        "key": "input_mtok",
        "label": "input",
        "per": 1000000,
        "usd": "2",
        "tiers": [],
    }
    assert data["changes"][0]["on"] == "2026-12-01"
    assert data["changes"][0]["rates"][0] == {
        "key": "input_mtok",
        "before": {"key": "input_mtok", "label": "input", "per": 1000000, "usd": "2", "tiers": []},
        "after": {"key": "input_mtok", "label": "input", "per": 1000000, "usd": "4", "tiers": []},
    }
    # 8,000 x $2 + 2,000 x $0.1 + 1,000 x $10 = 16,000 + 200 + 10,000 µ$
    assert (data["example"]["total_usd"], data["example"]["genai_prices_usd"]) == ("0.0262", "0.0262")
    assert data["warnings"][0].startswith("gemini-4-argon prices change on 2026-12-01")


def test_prices_errors(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, "prices", "gpt-5x")
    assert code == 2
    assert err.startswith("agentcost: error: model: unknown model 'gpt-5x' (did you mean: gpt-5")
    code, _, err = cli(capsys, "prices", "claude-sonnet-4-5", "--service-tier", "priority")
    assert code == 2
    assert err == (
        "agentcost: error: --service-tier: claude-sonnet-4-5 does not offer the priority service tier"
        " (it offers: standard, batch) (use one of: standard, batch)\n"
    )


def test_prices_of_a_user_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "prices.yaml").write_text(
        "version: 1\nmodels:\n  - {id: acme, provider: openai, base: gpt-5, input_mtok: 0.5, output_mtok: 2,"
        " source: quote Q-17}\n",
        encoding="utf-8",
    )
    code, out, _ = cli(capsys, "prices", "acme", "--prices", "prices.yaml", "--cache-read-tokens", "2000")
    assert code == 0
    assert "Prices from prices.yaml (quote Q-17)." in out
    assert "Counting and caching rules: those of gpt-5 (base)." in out
    # no cache-read price: the 2,000 reads cost the input rate, 8,000 x $0.5 + 2,000 x $0.5 + 1,000 x $2
    assert "  cache read      2,000 × $0.5/MTok = $0.001  (no such price: billed as input)\n" in out
    assert "= $0.007  (the same as genai-prices computes)" in out
    code, out, _ = cli(capsys, "models", "acme", "--prices", "prices.yaml")
    assert code == 0
    assert "│ acme † │  $0.5 │     $2 │          - │           - │ 400,000 │ -     │" in out
    assert "† from prices.yaml (quote Q-17)." in out


def test_models_says_which_context_windows_are_unknown(capsys: pytest.CaptureFixture[str]) -> None:
    """A chat model of the main providers without a known window is listed with '-' and the footer
    says the estimate will not check it (issue 15: never silently unchecked)."""
    assert run(["models", "gemini-3-pro-preview", "--as-of", "2026-11-30"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "context -: unknown for 1 model" in out
    assert '"context window unknown: not checked"' in out
    assert run(["models", "gemini-2.5-pro", "--as-of", "2026-11-30"]) == 0  # a known window: no line
    assert "context -: unknown" not in capsys.readouterr().out
