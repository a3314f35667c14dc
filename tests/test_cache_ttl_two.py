"""cache_ttl: {prefix: 1h, conversation: 5m}: the prefix breakpoint and the conversation with their own TTLs.

Hand-computed dollars at genai-prices' list prices on 2026-11-30 (pricing-facts.md §A):
claude-sonnet-4-5 $3 input, $3.75 5-minute write, $6 1-hour write, $0.30 read, $15 output per MTok.
Amounts in comments are in micro-dollars (µ$).
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from agentcost.errors import InputError
from agentcost.loop.accountant import Ledger, run_accountant, ttl_options
from agentcost.loop.caching import pricer_for
from agentcost.loop.estimate import estimate_scenario
from agentcost.prices.lookup import resolve_model
from agentcost.scenario.load import read_scenario as load_scenario
from agentcost.tokens.counts import RoundTokens, TokenCounts
from agentcost.tokens.request import TTL_SECONDS, CachePolicy
from tests.conftest import validate_json

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)
SONNET = pricer_for(resolve_model("claude-sonnet-4-5", as_of=AS_OF))

TWO = CachePolicy(
    mode="conversation", style="explicit", min_tokens=1_024, ttl="5m", ttl_seconds=300, prefix_ttl="1h"
)

# tools + system 12,000 tokens, task 3,000; two rounds each adding 1,000 (echo 100 + result 900) with
# 100 output tokens; a 200-token final answer
COUNTS = TokenCounts(
    tools=0,
    system=12_000,
    task=3_000,
    per_request=0,
    rounds=(RoundTokens(("Bash",), 100, 100, 900), RoundTokens(("Bash",), 100, 100, 900)),
    final_output=200,
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


def test_prefix_written_at_1h_and_the_rest_at_5m() -> None:
    ledger = run_accountant(COUNTS, SONNET, TWO)
    assert table(ledger) == [
        (15_000, 0, 3_000, 12_000),
        (16_000, 15_000, 1_000, 0),
        (17_000, 16_000, 1_000, 0),
    ]
    # 1: 1h write 12,000 x 6 = 72,000 + 5m write 3,000 x 3.75 = 11,250 + output 100 x 15 = 1,500 -> 84,750
    # 2: read 15,000 x 0.30 = 4,500 + 5m write 1,000 x 3.75 = 3,750 + output 1,500 -> 9,750
    # 3: read 16,000 x 0.30 = 4,800 + 3,750 + output 200 x 15 = 3,000 -> 11,550
    assert [r.cost.total_usd for r in ledger.rows] == [
        Decimal("0.08475"),
        Decimal("0.00975"),
        Decimal("0.01155"),
    ]
    assert ledger.totals.cost_usd == Decimal("0.10605")
    assert ledger.policy.ttl_label == "1h+5m"


def test_the_prefix_outlives_a_pause_longer_than_5_minutes() -> None:
    ledger = run_accountant(COUNTS, SONNET, TWO, gaps=(Decimal(400), Decimal(400)))
    assert [r.cache_expired for r in ledger.rows] == [False, True, True]  # the conversation entries
    # requests 2 and 3 read the 1h prefix entry and write the rest again, at the 5m price
    assert table(ledger) == [
        (15_000, 0, 3_000, 12_000),
        (16_000, 12_000, 4_000, 0),
        (17_000, 12_000, 5_000, 0),
    ]
    # 2: read 12,000 x 0.30 = 3,600 + 5m write 4,000 x 3.75 = 15,000 + output 1,500 -> 20,100
    # 3: read 3,600 + 5m write 5,000 x 3.75 = 18,750 + output 3,000 -> 25,350
    assert [r.cost.total_usd for r in ledger.rows] == [
        Decimal("0.08475"),
        Decimal("0.0201"),
        Decimal("0.02535"),
    ]
    assert ledger.totals.cost_usd == Decimal("0.1302")
    assert ledger.totals.cache_expiries == 2


def test_past_an_hour_everything_expires() -> None:
    ledger = run_accountant(COUNTS, SONNET, TWO, gaps=(Decimal(3_601), Decimal(0)))
    assert [r.cache_expired for r in ledger.rows] == [False, True, False]
    assert table(ledger)[1] == (16_000, 0, 4_000, 12_000)
    # 2: 1h write 72,000 + 5m write 4,000 x 3.75 = 15,000 + output 1,500 -> 88,500
    assert ledger.rows[1].cost.total_usd == Decimal("0.0885")


def test_ttl_comparison_adds_the_two_ttls() -> None:
    options = ttl_options(COUNTS, SONNET, TWO, gaps=(Decimal(400), Decimal(400)))
    # none: input 48,000 x 3 = 144,000 + output 400 x 15 = 6,000 -> 150,000
    # 5m: writes 15,000 / 16,000 / 17,000 x 3.75 = 180,000 + output 6,000 -> 186,000
    # 1h: 1h write 15,000 x 6 = 90,000; then reads 15,000 and 16,000 x 0.30 = 9,300 and 1h writes
    #     2 x 1,000 x 6 = 12,000; + output 6,000 -> 117,300
    assert [(o.label, o.cost_usd, o.cache_expiries) for o in options] == [
        ("none", Decimal("0.15"), 0),
        ("5m", Decimal("0.186"), 2),
        ("1h", Decimal("0.1173"), 0),
        ("1h+5m", Decimal("0.1302"), 2),
    ]
    plain = CachePolicy(
        mode="conversation", style="explicit", min_tokens=1_024, ttl="1h", ttl_seconds=TTL_SECONDS["1h"]
    )
    assert [o.label for o in ttl_options(COUNTS, SONNET, plain)] == ["none", "5m", "1h"]


def test_one_ttl_is_unchanged() -> None:
    """prefix_ttl equal to ttl (or None) bills exactly what one TTL does."""
    for ttl in ("5m", "1h"):
        one = CachePolicy(
            mode="conversation", style="explicit", min_tokens=1_024, ttl=ttl, ttl_seconds=TTL_SECONDS[ttl]
        )
        same = CachePolicy(
            mode="conversation",
            style="explicit",
            min_tokens=1_024,
            ttl=ttl,
            ttl_seconds=TTL_SECONDS[ttl],
            prefix_ttl=ttl,
        )
        gaps = (Decimal(400), Decimal(4_000))
        assert (
            run_accountant(COUNTS, SONNET, one, gaps=gaps).rows
            == run_accountant(COUNTS, SONNET, same, gaps=gaps).rows
        )


BASE = "version: 1\nmodel: claude-sonnet-4-5\ntask: {tokens: 3000}\nsystem: {tokens: 12000}\nfinal: 200\n"


def load(tmp_path: Path, text: str):  # type: ignore[no-untyped-def]
    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")
    return load_scenario(path)


def test_parse_mapping(tmp_path: Path) -> None:
    s = load(tmp_path, BASE + "cache_ttl: {prefix: 1h, conversation: 5m}\n")
    assert (s.cache_ttl, s.prefix_cache_ttl, s.cache_ttl_label) == ("5m", "1h", "1h+5m")
    s = load(tmp_path, BASE + "cache_ttl:\n  prefix: 1h\n  conversation: 1h\n")
    assert (s.cache_ttl, s.prefix_cache_ttl, s.cache_ttl_label) == ("1h", None, "1h")
    s = load(tmp_path, BASE + "cache_ttl: 1h\n")
    assert (s.cache_ttl, s.prefix_cache_ttl) == ("1h", None)


def test_estimate_with_two_ttls(tmp_path: Path) -> None:
    est = estimate_scenario(load(tmp_path, BASE + "cache_ttl: {prefix: 1h, conversation: 5m}\n"), as_of=AS_OF)
    assert est.ledger.policy.prefix_ttl == "1h" and est.ledger.policy.ttl == "5m"
    [row] = est.ledger.rows
    assert row.usage.cache_write_1h_tokens == 12_000  # the system prompt, up to the prefix breakpoint
    # 15,007 input: 12,000 system (1h write) + 3,003 task and framing (5m write) + 4 uncached; 203 output
    assert (row.usage.input_tokens, row.usage.cache_write_tokens, row.usage.output_tokens) == (
        15_007,
        3_003,
        203,
    )
    # 1h write 12,000 x 6 = 72,000 + 5m write 3,003 x 3.75 = 11,261.25 + input 4 x 3 = 12
    # + output 203 x 15 = 3,045 -> 86,318.25 µ$
    assert row.cost.total_usd == Decimal("0.08631825")
    assert [o.label for o in est.ttl_comparison] == ["none", "5m", "1h", "1h+5m"]


@pytest.mark.parametrize(
    ("text", "line", "key", "message"),
    [
        (
            "cache_ttl: {prefix: 5m, conversation: 1h}\n",
            6,
            "cache_ttl.conversation",
            "Anthropic requires cache entries with a longer TTL to come before shorter ones",
        ),
        ("cache_ttl: {prefix: 1h}\n", 6, "cache_ttl.conversation", "required key is missing"),
        (
            "cache_ttl:\n  prefix: 2h\n  conversation: 5m\n",
            7,
            "cache_ttl.prefix",
            "must be one of 5m, 1h; got text '2h'",
        ),
        ("cache_ttl: {prefix: 1h, conversation: 5m, tools: 1h}\n", 6, "cache_ttl.tools", "unknown key"),
        ("cache_ttl: 10m\n", 6, "cache_ttl", "must be one of 5m, 1h"),
    ],
)
def test_bad_mapping(tmp_path: Path, text: str, line: int, key: str, message: str) -> None:
    with pytest.raises(InputError) as err:
        load(tmp_path, BASE + text)
    assert (err.value.line, err.value.key) == (line, key)
    assert message in str(err.value)


def test_mapping_is_anthropic_only(tmp_path: Path) -> None:
    text = BASE.replace("claude-sonnet-4-5", "gpt-4o") + "cache_ttl: {prefix: 1h, conversation: 5m}\n"
    with pytest.raises(InputError, match="sets Anthropic cache breakpoints; gpt-4o") as err:
        estimate_scenario(load(tmp_path, text), as_of=AS_OF)
    assert err.value.key == "cache_ttl"


def test_calibrate_writes_the_mapping_for_mixed_writes() -> None:
    """claude-code/session.jsonl: request 1 writes 12,000 tokens at 1h and 3,200 at 5m."""
    from agentcost.commands.calibrate import calibrate_trace
    from agentcost.replay import load_trace

    c = calibrate_trace(
        load_trace(Path(__file__).parent / "data" / "claude-code" / "session.jsonl"), as_of=AS_OF
    )
    assert "cache_ttl: {prefix: 1h, conversation: 5m}\n" in c.text
    assert "system: {tokens: 12000}\n" in c.text  # the prefix: the 1h part
    assert c.error is not None and abs(c.error) < Decimal("0.001")  # measured: -0.01% (one TTL: +8.35%)


def test_set_overrides(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(BASE + "cache_ttl: {prefix: 1h, conversation: 5m}\n", encoding="utf-8")
    s = load_scenario(path, overrides=("cache_ttl.conversation=1h",))
    assert (s.cache_ttl, s.prefix_cache_ttl) == ("1h", None)
    s = load_scenario(path, overrides=("cache_ttl=5m",))
    assert (s.cache_ttl, s.prefix_cache_ttl) == ("5m", None)
    with pytest.raises(InputError, match="longer TTL to come before shorter"):
        load_scenario(path, overrides=("cache_ttl.prefix=5m", "cache_ttl.conversation=1h"))


def test_json_with_two_ttls_validates_against_the_report_schema(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from agentcost.cli import run
    from agentcost.render.schema import report_schema

    scenario = tmp_path / "s.yaml"
    scenario.write_text(
        "version: 1\nmodel: claude-sonnet-4-5\nsystem: {tokens: 5000}\ntask: hi\n"
        "cache_ttl: {prefix: 1h, conversation: 5m}\n"
        "rounds:\n  - {tool: t, call_tokens: 10, result: 2000, seconds: 400}\nfinal: 10\n",
        encoding="utf-8",
    )
    assert run(["estimate", str(scenario), "--as-of", "2026-11-30", "-f", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    validate_json(data, report_schema())
    assert data["caching"]["ttl"] == "1h+5m"
