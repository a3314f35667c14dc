"""Issue 29, item 7: per-request fees, 1-hour cache writes off Anthropic, hosted ids, small facts.

Every figure here is worked out by hand from genai-prices 0.2.3's rows (the rates are quoted in the
comments) and compared with what agentcost computes.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest

from agentcost.cli import run
from agentcost.errors import InputError
from agentcost.prices.lookup import resolve_model
from agentcost.prices.pricing import FeeLine, Usage
from agentcost.tokens.request import RequestUsage
from tests.conftest import ROOT

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)

pytestmark = pytest.mark.usefixtures("no_ctok", "fixed_terminal")


# --------------------------------------------------------------------------------------------
# 1. Perplexity's per-request fee (genai-prices requests_kcount)


def test_the_price_sheet_example_includes_the_per_request_fee(capsys: pytest.CaptureFixture[str]) -> None:
    """sonar: input $1/MTok, output $1/MTok, requests $12 per 1,000 (genai-prices 0.2.3).
    120,000 x $1/MTok = $0.12; 2,500 x $1/MTok = $0.0025; 1 request x $12/1,000 = $0.012: $0.1345,
    genai-prices' own calc_price figure (the sheet said $0.1225 before)."""
    prices = resolve_model("perplexity/sonar", as_of=AS_OF)
    worked = prices.itemise(Usage(120_000, 2_500))
    assert worked.fees == (FeeLine("requests", 1, 1000, Decimal(12), Decimal("0.012")),)
    assert worked.total_usd == worked.cost.total_usd == Decimal("0.1345")
    assert prices.genai_cost(Usage(120_000, 2_500)).total_usd == Decimal("0.1345")
    code = run(["prices", "perplexity/sonar", "--input-tokens", "120000", "--output-tokens", "2500",
                "--as-of", "2026-11-30"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert "  requests        1 × $12 per 1,000 = $0.012\n" in out
    assert "= $0.1345  (the same as genai-prices" in out


def test_every_request_pays_the_fee_once() -> None:
    """sonar-pro: $3 and $15/MTok, requests $14 per 1,000. An estimate's request pays the fee once,
    in its fees; 10,000 x $3/MTok + 1,000 x $15/MTok + $0.014 = $0.059."""
    cost = resolve_model("perplexity/sonar-pro", as_of=AS_OF).price(RequestUsage(10_000, 1_000))
    assert cost.fees == (("requests", Decimal("0.014")),)
    assert (cost.input_usd, cost.output_usd, cost.total_usd) == (
        Decimal("0.03"),
        Decimal("0.015"),
        Decimal("0.059"),
    )


def test_a_replay_priced_from_run_totals_pays_the_fee_per_request() -> None:
    """A SWE-agent run of 5 requests reports only run totals (52,861 input, 326 output tokens); on
    sonar the tokens cost $0.052861 + $0.000326 and the 5 requests 5 x $0.012 = $0.06: $0.113187
    (before: one fee only, $0.065187)."""
    from agentcost.replay import load_trace, replay
    from tests.test_replay import ARGS, TRAJ

    report = replay(load_trace(TRAJ, config=ARGS), as_of=AS_OF, model="perplexity/sonar")
    assert report.totals.priced_from == "reported run totals" and report.totals.requests == 5
    assert report.totals.cost_usd == Decimal("0.113187")


# --------------------------------------------------------------------------------------------
# 3. Fireworks ids as LiteLLM writes them


def test_a_fireworks_id_with_litellms_prefix_resolves() -> None:
    """genai-prices' fireworks row deepseek-v3-0324 matches ``accounts/fireworks/models/deepseek-v3-0324``
    ($0.9/MTok in and out); LiteLLM writes it with the provider prefix ``fireworks_ai/``.
    1,000 x $0.9/MTok + 10 x $0.9/MTok = $0.000909, genai-prices' calc_price on the bare id."""
    import genai_prices

    prices = resolve_model("fireworks_ai/accounts/fireworks/models/deepseek-v3-0324", as_of=AS_OF)
    assert (prices.provider, prices.model_id, prices.rules_id) == (
        "fireworks",
        "deepseek-v3-0324",
        "deepseek-v3-0324",
    )
    assert prices.price(RequestUsage(1_000, 10)).total_usd == Decimal("0.000909")
    usage = genai_prices.Usage(input_tokens=1_000, output_tokens=10)
    ref = "accounts/fireworks/models/deepseek-v3-0324"
    assert genai_prices.calc_price(usage, model_ref=ref, provider_id="fireworks").total_price == Decimal(
        "0.000909"
    )
    assert resolve_model("fireworks-ai/deepseek-v3-0324", as_of=AS_OF).model_id == "deepseek-v3-0324"


# --------------------------------------------------------------------------------------------
# 2. cache_ttl: 1h where a row other than Anthropic's sells 1-hour writes


def _estimate(model: str, *overrides: str) -> Any:
    from agentcost.api import estimate

    return estimate(ROOT / "scenarios" / "bugfix.yaml", model=model, as_of="2026-11-30", overrides=overrides)


def test_kimi_k3_bills_one_hour_writes_at_its_one_hour_price() -> None:
    """kimi-k3 (genai-prices 0.2.3): input $3, cache write $3 (5 minutes), $6 (1 hour), read $0.3.
    The same run with cache_ttl: 1h writes the same tokens, each $3/MTok dearer; nothing else changes."""
    five = _estimate("moonshotai/kimi-k3", "caching=conversation")
    hour = _estimate("moonshotai/kimi-k3", "caching=conversation", "cache_ttl=1h")
    written = five.totals.cache_write_tokens
    assert written == hour.totals.cache_write_tokens > 0
    assert five.totals.cache_read_tokens == hour.totals.cache_read_tokens
    assert hour.total_cost_usd - five.total_cost_usd == written * Decimal(3) / 1_000_000
    assert not hour._report.warnings


def test_one_hour_writes_on_openrouter_claude_follow_anthropics_mechanics() -> None:
    """OpenRouter's Claude rows cache as Anthropic's API does (cache_control breakpoints, the model's
    own minimum): claude-haiku-5.5 is Anthropic's claude-haiku-5-5, whose minimum is 512 tokens; its
    row sells 1-hour writes ($0.2/MTok against $0.125), and a row without them refuses cache_ttl: 1h."""
    prices = resolve_model("openrouter/anthropic/claude-haiku-5.5", as_of=AS_OF)
    assert prices.rules_id == "claude-haiku-5-5"
    from agentcost.report.prices import price_sheet

    facts = {f.name: f.value for f in price_sheet("openrouter/anthropic/claude-haiku-5.5", as_of=AS_OF).facts}
    assert facts["minimum cacheable prompt"] == "512 tokens (shorter prefixes are not cached)"
    five = _estimate("openrouter/anthropic/claude-haiku-5.5")
    hour = _estimate("openrouter/anthropic/claude-haiku-5.5", "cache_ttl=1h")
    assert five._report.caching_mode == "conversation" and five._report.cache_ttl == "5m"
    written = hour.totals.cache_write_tokens
    assert written == five.totals.cache_write_tokens > 0
    assert hour.total_cost_usd - five.total_cost_usd == written * Decimal("0.075") / 1_000_000
    assert not hour._report.warnings
    with pytest.raises(InputError, match=r"genai-prices has none for anthropic/claude-sonnet-4\.5"):
        _estimate("openrouter/anthropic/claude-sonnet-4.5", "cache_ttl=1h")


# --------------------------------------------------------------------------------------------
# 4. What the docs say


def test_call_tokens_is_the_arguments_only() -> None:
    """``call_tokens: N`` stands for the arguments ``input`` would count (docs/scenario.md): a round
    with ``input: {"path": "src/app.py"}`` (its compact JSON counted with tiktoken's o200k_base, gpt-4o's
    encoding) and one with ``call_tokens`` of that count cost the same, framing and name included."""
    import json

    from agentcost.tokens.encodings import get_encoding  # tiktoken's o200k_base, from the bundled file

    arguments = {"path": "src/app.py"}
    n = len(get_encoding("o200k_base").encode(json.dumps(arguments, separators=(",", ":"))))
    assert n > 1

    def scenario(call: dict[str, Any]) -> dict[str, Any]:
        tool = {"name": "Read", "description": "Read a file.", "input_schema": {"type": "object"}}
        return {"version": 1, "model": "gpt-4o", "task": "fix it", "tools": [tool],
                "rounds": [{"tool": "Read", "result": "x = 1", **call}], "final": 10}  # fmt: skip

    from agentcost.api import estimate

    given = estimate(scenario({"input": arguments}), as_of="2026-11-30", base_dir=ROOT)
    stated = estimate(scenario({"call_tokens": n}), as_of="2026-11-30", base_dir=ROOT)
    assert given.requests[0].output_tokens == stated.requests[0].output_tokens > n
    assert given.total_cost_usd == stated.total_cost_usd


def test_the_api_docstring_figures_are_current() -> None:
    """agentcost/api.py's module docstring names no estimate figure (docs/api.md holds it, checked
    by tests/test_docs_api.py), and ``_usd``'s count of the binary fraction 0.01 is Decimal's own."""
    import re

    from agentcost import api

    assert "0.0320049" not in (api.__doc__ or "")
    places = re.search(r"binary fraction's (\d+) decimal places", api._usd.__doc__ or "")
    assert places is not None
    exponent = Decimal(0.01).as_tuple().exponent  # noqa: RUF032 - the binary fraction is the point
    assert isinstance(exponent, int) and int(places.group(1)) == -exponent == 59
