"""Long-context tiers, service tiers, scheduled price changes and stale price data, with hand-checked dollars.

Rates are USD per million tokens (MTok), so N tokens at $R/MTok cost N*R micro-dollars (µ$).
Every expected figure is written out as that arithmetic.
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from agentcost.cli import run
from agentcost.errors import InputError
from agentcost.infra.doc import OverrideError
from agentcost.loop.estimate import estimate, estimate_scenario
from agentcost.prices import rates as prices_module
from agentcost.prices.lookup import SERVICE_TIER_CONTEXT, resolve_model
from agentcost.prices.pricing import Usage
from agentcost.prices.rates import price_data_date, tier_name
from agentcost.report.build import build_report
from agentcost.scenario.load import read_scenario as load_scenario

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)

pytestmark = pytest.mark.usefixtures("no_ctok", "fixed_terminal")


def micro(n: int | str) -> Decimal:
    """n micro-dollars as dollars."""
    return Decimal(n) / 1_000_000


def write(tmp_path: Path, text: str, name: str = "s.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


LONG = """\
version: 1
name: long context
model: gemini-2.5-pro
system: {tokens: 150000}
tools:
  - name: search
    description: Search the web.
    input_schema: {type: object, properties: {q: {type: string}}}
task: {tokens: 1000}
rounds:
  - {tool: search, call_tokens: 100, result: {tokens: 60000}}
final: {tokens: 500}
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


# --------------------------------------------------------------------------------------------
# Long-context tiers


def test_gemini_2_5_pro_tier_is_a_cliff_on_the_whole_request() -> None:
    # gemini-2.5-pro: input $1.25 (>200k: $2.5), output $10 (>200k: $15), cache read $0.125 (>200k: $0.25)
    m = resolve_model("gemini-2.5-pro", as_of=AS_OF)
    assert m.tier_thresholds == (200_000,)
    # 200,000 input is NOT over the tier: 200,000*1.25 + 1,000*10 = 250,000 + 10,000 = 260,000 µ$
    assert m.cost(Usage(200_000, 1_000)).total_usd == micro(260_000)
    assert m.tier_label(200_000) is None
    # 250,000 input: every token at the tier: 250,000*2.5 + 1,000*15 = 625,000 + 15,000 = 640,000 µ$
    assert m.cost(Usage(250_000, 1_000)).total_usd == Decimal("0.64")
    assert m.tier_label(250_000) == ">200k"
    # one token over: 200,001*2.5 + 1,000*15 = 500,002.5 + 15,000 = 515,002.5 µ$
    assert m.cost(Usage(200_001, 1_000)).total_usd == micro("515002.5")
    # with 100,000 cache reads: 150,000*2.5 + 100,000*0.25 + 1,000*15 = 375,000 + 25,000 + 15,000 µ$
    assert m.cost(Usage(250_000, 1_000, cache_read_tokens=100_000)).total_usd == micro(415_000)


def test_tier_names() -> None:
    assert [tier_name(t) for t in (200_000, 272_000, 1_000_000, 131_072)] == [
        ">200k",
        ">272k",
        ">1M",
        ">131,072",
    ]


def test_a_long_request_is_marked_and_priced_at_the_tier(tmp_path: Path) -> None:
    report = build_report(estimate(write(tmp_path, LONG), as_of=AS_OF))
    first, second = report.requests
    assert (first.tier, second.tier) == (None, ">200k")
    assert first.input_tokens < 200_000 < second.input_tokens
    # request 1 below the tier: input x $1.25 + output x $10; request 2 over it: x $2.5 and x $15
    assert first.cost_usd == (first.input_tokens * Decimal("1.25") + first.output_tokens * 10) / 1_000_000
    assert second.cost_usd == (second.input_tokens * Decimal("2.5") + second.output_tokens * 15) / 1_000_000
    # as counted today: 151,037 and 211,139 input tokens (150,000 system + 1,000 task + framing, then the
    # 60,000-token result and the call): 151,037*1.25 + 101*10 = 188,796.25 + 1,010 = 189,806.25 µ$;
    # 211,139*2.5 + 500*15 = 527,847.5 + 7,500 = 535,347.5 µ$
    if (first.input_tokens, second.input_tokens) == (151_037, 211_139):
        assert (first.cost_usd, second.cost_usd) == (micro("189806.25"), micro("535347.5"))
    assert report.tier_thresholds == (200_000,)
    assert report.warnings[-1] == (
        "1 of 2 requests (#2) cross gemini-2.5-pro's long-context tier (>200k input tokens): each is priced"
        " whole at the tier's higher rates"
    )


def test_tier_shows_in_table_markdown_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(write(tmp_path, LONG))
    assert run(["estimate", path, "--as-of", "2026-11-30"]) == 0
    assert "│ 2 │ final answer [>200k] │" in capsys.readouterr().out
    assert run(["estimate", path, "--as-of", "2026-11-30", "--format", "markdown"]) == 0
    assert "| 2 | final answer [>200k] |" in capsys.readouterr().out
    assert run(["estimate", path, "--as-of", "2026-11-30", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["tier"] for r in data["requests"]] == [None, ">200k"]
    assert data["prices"]["tier_thresholds"] == [200000]


# --------------------------------------------------------------------------------------------
# Service tiers


def test_the_service_tier_contexts_are_the_keys_genai_prices_uses() -> None:
    # what the data's PriceVariant.when keys are (checked against genai-prices 0.2.3)
    assert SERVICE_TIER_CONTEXT == {
        "standard": {},
        "batch": {"processing": "batch"},
        "flex": {"service_tier": "flex"},
        "priority": {"service_tier": "priority"},
    }


def test_gpt_5_standard_batch_flex_priority() -> None:
    # 100,000 input of which 20,000 cache reads, 10,000 output
    usage = Usage(100_000, 10_000, cache_read_tokens=20_000)
    costs = {
        tier: resolve_model("gpt-5", as_of=AS_OF, service_tier=tier).cost(usage).total_usd
        for tier in ("standard", "batch", "flex", "priority")
    }
    # standard $1.25/$10, read $0.125: 80,000*1.25 + 20,000*0.125 + 10,000*10 = 100,000 + 2,500 + 100,000 µ$
    assert costs["standard"] == micro(202_500)
    # batch $0.625/$5, read $0.0625: 80,000*0.625 + 20,000*0.0625 + 10,000*5 = 50,000 + 1,250 + 50,000 µ$
    assert costs["batch"] == micro(101_250)
    # flex: the same rates as batch on gpt-5
    assert costs["flex"] == micro(101_250)
    # priority $2.5/$20, read $0.25: 80,000*2.5 + 20,000*0.25 + 10,000*20 = 200,000 + 5,000 + 200,000 µ$
    assert costs["priority"] == micro(405_000)
    m = resolve_model("gpt-5", as_of=AS_OF, service_tier="batch")
    assert (m.input_mtok, m.output_mtok, m.cache_read_mtok) == (
        Decimal("0.625"),
        Decimal("5"),
        Decimal("0.0625"),
    )
    assert m.service_tier == "batch"
    assert m.service_tiers == ("standard", "batch", "flex", "priority")


def test_claude_sonnet_4_5_batch_halves_every_rate() -> None:
    m = resolve_model("claude-sonnet-4-5", as_of=AS_OF, service_tier="batch")
    assert (m.input_mtok, m.output_mtok) == (Decimal("1.5"), Decimal("7.5"))
    assert (m.cache_read_mtok, m.cache_write_mtok, m.cache_write_1h_mtok) == (
        Decimal("0.15"),
        Decimal("1.875"),
        Decimal("3"),
    )
    # 10,000 input: 2,000 read, 1,000 written (5m); 1,000 output:
    # 7,000*1.5 + 2,000*0.15 + 1,000*1.875 = 10,500 + 300 + 1,875 = 12,675 µ$; 1,000*7.5 = 7,500 µ$
    cost = m.cost(Usage(10_000, 1_000, cache_read_tokens=2_000, cache_write_tokens=1_000))
    assert (cost.input_usd, cost.output_usd, cost.total_usd) == (micro(12_675), micro(7_500), micro(20_175))
    assert m.service_tiers == ("standard", "batch")


def test_a_tier_the_model_does_not_offer_is_refused_naming_the_ones_it_does() -> None:
    with pytest.raises(InputError) as caught:
        resolve_model("claude-sonnet-4-5", as_of=AS_OF, service_tier="flex")
    assert caught.value.key == "service_tier"
    assert caught.value.message == (
        "claude-sonnet-4-5 does not offer the flex service tier (it offers: standard, batch)"
    )
    with pytest.raises(
        InputError,
        match=r"gpt-5-nano does not offer the priority service tier \(it offers: "
        r"standard, batch, flex\)",
    ):
        resolve_model("gpt-5-nano", as_of=AS_OF, service_tier="priority")
    # genai-prices models gpt-5's batch rates from 2026-10-14 only (its own "verified" date)
    with pytest.raises(InputError) as caught:
        resolve_model("gpt-5", as_of=datetime(2026, 10, 1, tzinfo=UTC), service_tier="batch")
    assert caught.value.message == (
        "gpt-5 does not offer the batch service tier (it offers: standard);"
        " genai-prices has its batch prices from 2026-10-14"
    )
    with pytest.raises(InputError, match="unknown service tier 'cheap'"):
        resolve_model("gpt-5", as_of=AS_OF, service_tier="cheap")


def test_batch_estimate_is_half_the_standard_one(tmp_path: Path) -> None:
    for model in ("gpt-5", "claude-sonnet-4-5"):
        path = write(tmp_path, SMALL.format(model=model))
        standard = estimate(path, as_of=AS_OF)
        batch = estimate(path, as_of=AS_OF, service_tier="batch")
        # every rate (input, output, cache read and write) is exactly half on both models
        assert batch.ledger.totals.cost_usd * 2 == standard.ledger.totals.cost_usd
        assert batch.ledger.totals.cost_usd > 0
        assert build_report(batch).service_tier == "batch"


def test_service_tier_from_the_scenario_and_errors_where_it_was_set(tmp_path: Path) -> None:
    text = SMALL.format(model="claude-sonnet-4-5") + "service_tier: batch\n"
    path = write(tmp_path, text)
    scenario = load_scenario(path)
    assert scenario.service_tier == "batch"
    assert estimate_scenario(scenario, as_of=AS_OF).prices.input_mtok == Decimal("1.5")
    # the option wins over the file
    assert estimate_scenario(scenario, as_of=AS_OF, service_tier="standard").prices.input_mtok == Decimal("3")

    bad = write(tmp_path, SMALL.format(model="claude-sonnet-4-5") + "service_tier: flex\n", "bad.yaml")
    with pytest.raises(InputError) as caught:
        estimate(bad, as_of=AS_OF)
    line = text.count("\n")  # the last line of the file
    assert str(caught.value) == (
        f"{bad}:{line}: service_tier: claude-sonnet-4-5 does not offer the flex service tier (it offers:"
        " standard, batch) (use one of: standard, batch)"
    )
    with pytest.raises(OverrideError) as by_set:
        estimate(path, as_of=AS_OF, overrides=["service_tier=priority"])
    assert by_set.value.override == "service_tier=priority"
    with pytest.raises(InputError) as by_option:
        estimate(path, as_of=AS_OF, service_tier="flex")
    assert by_option.value.key == "service_tier"  # the CLI words it --service-tier


def test_service_tier_option_through_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(write(tmp_path, SMALL.format(model="gpt-5")))
    assert run(["estimate", path, "--as-of", "2026-11-30", "--service-tier", "flex", "-v"]) == 0
    out = capsys.readouterr().out
    assert "Prices: genai-prices 0.2.3, flex service tier, in force on 2026-11-30." in out
    assert "input $0.625/MTok, output $5/MTok, cache read $0.0625/MTok." in out
    code = run(
        ["estimate", path, "--as-of", "2026-11-30", "--service-tier", "priority", "--model", "gpt-5-nano"]
    )
    assert code == 2
    assert capsys.readouterr().err == (
        "agentcost: error: --service-tier: gpt-5-nano does not offer the priority service tier (it offers:"
        " standard, batch, flex) (use one of: standard, batch, flex)\n"
    )
    # compare: a glob keeps the models that offer the tier; the summary names the tier
    assert (
        run(["compare", path, "-m", "gpt-5*", "--service-tier", "priority", "--as-of", "2026-11-30", "-q"])
        == 0
    )
    capsys.readouterr()
    assert (
        run(
            [
                "compare",
                path,
                "-m",
                "gpt-5",
                "-m",
                "gpt-5-mini",
                "--service-tier",
                "batch",
                "--as-of",
                "2026-11-30",
            ]
        )
        == 0
    )
    assert "batch service tier" in capsys.readouterr().out


# --------------------------------------------------------------------------------------------
# Scheduled price changes and stale price data


ARGON = (
    "gemini-4-argon prices change on 2026-12-01 (input $2 → $4/MTok, cache read $0.1 → $0.2/MTok,"
    " output $10 → $20/MTok)"
)


def test_a_scheduled_change_within_30_days_is_a_warning() -> None:
    m = resolve_model("gemini-4-argon", as_of=AS_OF)
    assert m.warnings == (ARGON,)
    assert [c.on for c in m.changes] == [date(2026, 12, 1)]
    # 30 days before the change still warns; 31 days before does not (but the change is known)
    assert resolve_model("gemini-4-argon", as_of=datetime(2026, 11, 1, tzinfo=UTC)).warnings == (ARGON,)
    early = resolve_model("gemini-4-argon", as_of=datetime(2026, 10, 31, tzinfo=UTC))
    assert early.warnings == () and len(early.changes) == 1
    # on the day it is in force: the new prices, nothing scheduled
    later = resolve_model("gemini-4-argon", as_of=datetime(2026, 12, 1, tzinfo=UTC))
    assert (later.input_mtok, later.changes, later.warnings) == (Decimal("4"), (), ())
    # batch has its own schedule: $1 → $2, $0.05 → $0.1, $5 → $10
    assert resolve_model("gemini-4-argon", as_of=AS_OF, service_tier="batch").warnings == (
        "gemini-4-argon batch prices change on 2026-12-01 (input $1 → $2/MTok, cache read $0.05 → $0.1/MTok,"
        " output $5 → $10/MTok)",
    )
    # gemini-3.6-flash doubles on 2027-01-01: 32 days after 2026-11-30 (no warning), 30 after 2026-12-02
    assert resolve_model("gemini-3.6-flash", as_of=AS_OF).warnings == ()
    assert resolve_model("gemini-3.6-flash", as_of=datetime(2026, 12, 2, tzinfo=UTC)).warnings == (
        "gemini-3.6-flash prices change on 2027-01-01 (input $0.75 → $1.5/MTok, cache read $0.075 → $0.15/MTok,"
        " output $3.75 → $7.5/MTok)",
    )


def test_an_estimate_carries_the_scheduled_change_warning(tmp_path: Path) -> None:
    report = build_report(estimate(write(tmp_path, SMALL.format(model="gemini-4-argon")), as_of=AS_OF))
    assert ARGON in report.warnings


def test_price_data_date() -> None:
    # genai-prices 0.2.3 was checked to be the newest release on 2026-11-30 (pricing-facts.md §0); the newest
    # "verified/checked on" date its own price comments cite is 2026-11-03
    assert price_data_date() == date(2026, 11, 30)


def test_price_data_date_of_an_unchecked_release(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prices_module, "_CHECKED_RELEASES", {})
    price_data_date.cache_clear()
    try:
        assert price_data_date() == date(2026, 11, 3)
    finally:
        price_data_date.cache_clear()


def test_stale_price_data_warns_after_30_days() -> None:
    assert resolve_model("gpt-5", as_of=datetime(2026, 12, 30, tzinfo=UTC)).warnings == ()  # 30 days
    assert resolve_model("gpt-5", as_of=datetime(2026, 12, 31, tzinfo=UTC)).warnings == (
        "the price data (genai-prices 0.2.3) is last known current on 2026-11-30, 31 days before the price date"
        " 2026-12-31: prices may have changed since (upgrade genai-prices, or give your own prices with"
        " --prices FILE)",
    )


def test_every_report_names_the_price_data_and_its_date(tmp_path: Path) -> None:
    report = build_report(estimate(write(tmp_path, SMALL.format(model="gpt-5")), as_of=AS_OF))
    assert report.price_label == "genai-prices 0.2.3 (current on 2026-11-30)"
    assert (report.price_source, report.price_version, report.price_data_date) == (
        "genai-prices",
        "0.2.3",
        "2026-11-30",
    )
