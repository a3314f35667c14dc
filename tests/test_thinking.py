"""Thinking tokens: billed as output, and re-sent as input by model family (facts.yaml
``thinking_retention``) or as the scenario says. Hand-computed tokens and dollars.

Claude counts run on the o200k_base x ratio path (``no_ctok``); every part is a stated token count,
so only Claude's framing is added: the task is 3 + 1,000 = 1,003 tokens and 4 more close every
request (B = 1,007); a round's call ``read`` with 20 argument tokens echoes as 3 (message) +
2 (``read``: 1 o200k token x 1.06, rounded up) + 20 + 37 (tool_use block, tool_choice auto) = 62
tokens, its result as 3 + 11 + 500 = 514; its output is 3 + 59 + 500 thinking = 562; the final answer 3 + 100 + 200
thinking = 303.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from agentcost import facts
from agentcost.loop.accountant import NO_CACHE, run_accountant
from agentcost.loop.caching import pricer_for
from agentcost.loop.estimate import estimate_scenario
from agentcost.scenario.model import Content, Round, Scenario, ToolUse
from agentcost.tokens.count import count_tokens
from agentcost.tokens.request import CachePolicy

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)
MILLION = Decimal(1_000_000)

B = 1_007  # task 1,003 + 4 after the last message
ECHO = 62  # the tool call sent back
RESULT = 514  # the tool result
THINKING = 500
ROUND_OUTPUT = 562  # 3 + 59 + 500 thinking
FINAL_OUTPUT = 303  # 3 + 100 + 200 thinking


def scenario(**overrides: Any) -> Scenario:
    base: dict[str, Any] = {
        "path": Path("thinking.yaml"),
        "model": "claude-opus-4-5",
        "model_line": None,
        "provider": None,
        "system": None,
        "tools": (),
        "tool_choice": "auto",
        "task": Content(tokens=1_000),
        "rounds": (thinking_round(),) * 3,
        "final": Content(tokens=100),
        "final_thinking": 200,
        "caching": "none",
    }
    base.update(overrides)
    return Scenario(**base)


def thinking_round(thinking: int = THINKING) -> Round:
    call = ToolUse(tool="read", input=Content(tokens=20), result=Content(tokens=500))
    return Round(calls=(call,), thinking=thinking)


def usd(rate: str, tokens: int) -> Decimal:
    return Decimal(rate) * tokens / MILLION


# ----------------------------------------------------------------------------------------------
# The facts table
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("provider", "model", "expected"),
    [
        ("anthropic", "claude-opus-4-5", "all"),
        ("anthropic", "claude-opus-4-6", "all"),
        ("anthropic", "claude-opus-4-8", "all"),
        ("anthropic", "claude-opus-5-5", "all"),
        ("anthropic", "claude-sonnet-4-6", "all"),
        ("anthropic", "claude-sonnet-5", "all"),
        ("anthropic", "claude-sonnet-5-5", "all"),
        ("anthropic", "claude-mythos-5-2", "all"),
        ("anthropic", "claude-opus-4-5-20251101", "all"),  # dated snapshots follow their model
        ("anthropic", "claude-opus-4-1", "last_turn"),
        ("anthropic", "claude-opus-4-0", "last_turn"),
        ("anthropic", "claude-sonnet-4-5", "last_turn"),
        ("anthropic", "claude-sonnet-4-0", "last_turn"),
        ("anthropic", "claude-haiku-4-5", "last_turn"),
        ("anthropic", "claude-3-7-sonnet-latest", "last_turn"),
        ("openai", "gpt-5", "none"),
        ("openai", "o3", "none"),
        ("openai", "gpt-5.6-sol", "none"),
        ("openai", "gpt-6.1-terra", "none"),
        ("google", "gemini-2.5-pro", "none"),
        ("google", "gemini-3.5-flash", "none"),
    ],
)
def test_retention_by_model_family(provider: str, model: str, expected: str) -> None:
    assert facts.thinking_retention(provider, model).value == expected


def test_retention_evidence_is_marked() -> None:
    """Inferred rows and defaults say so (``is_default``); the documented ones do not."""
    assert not facts.is_default(facts.thinking_retention("anthropic", "claude-opus-4-5"))
    assert not facts.is_default(facts.thinking_retention("anthropic", "claude-sonnet-4-5"))
    assert facts.is_default(facts.thinking_retention("anthropic", "claude-fable-5-2"))  # inferred
    assert facts.is_default(facts.thinking_retention("anthropic", "claude-v1"))  # "*" default: all
    assert facts.thinking_retention("anthropic", "claude-v1").value == "all"
    gpt56 = facts.thinking_retention("openai", "gpt-5.6-sol")
    assert facts.is_default(gpt56)
    assert "NOT established" in gpt56.source and "all_turns" in gpt56.source
    assert facts.is_default(facts.thinking_retention("google", "gemini-3.5-flash"))


def test_every_retention_row_is_valid() -> None:
    for row in facts.table_rows("thinking_retention"):
        assert row["value"] in ("all", "last_turn", "none")
        assert str(row["source"]).strip()
        read = row["read"]
        assert isinstance(read, date) and read <= date.today()  # a fact cannot be read in the future


# ----------------------------------------------------------------------------------------------
# Counts
# ----------------------------------------------------------------------------------------------


@pytest.mark.usefixtures("no_ctok")
def test_counts_keep_last_drop() -> None:
    keep = count_tokens(scenario(), provider="anthropic", model_id="claude-opus-4-5")
    last = count_tokens(scenario(), provider="anthropic", model_id="claude-sonnet-4-5")
    drop = count_tokens(scenario(thinking_retention="drop"), provider="anthropic", model_id="claude-opus-4-5")
    assert (keep.task, keep.per_request, keep.final_output) == (1_003, 4, FINAL_OUTPUT)
    for counts in (keep, last, drop):
        r = counts.rounds[0]
        assert (r.output, r.result) == (ROUND_OUTPUT, RESULT)  # thinking is always output
    assert (keep.rounds[0].echo, keep.rounds[0].transient) == (ECHO + THINKING, 0)
    assert (last.rounds[0].echo, last.rounds[0].transient) == (ECHO, THINKING)
    assert (drop.rounds[0].echo, drop.rounds[0].transient) == (ECHO, 0)


@pytest.mark.usefixtures("no_ctok")
def test_scenario_overrides_the_model_family() -> None:
    """``keep``/``last``/``drop`` beat the facts table; ``auto`` uses it."""
    for retention, echo, transient in (("keep", ECHO + THINKING, 0), ("last", ECHO, THINKING)):
        counts = count_tokens(scenario(thinking_retention=retention), provider="openai", model_id="gpt-5")
        r = counts.rounds[0]
        base = count_tokens(scenario(thinking_retention="drop"), provider="openai", model_id="gpt-5")
        assert r.echo - base.rounds[0].echo == echo - ECHO
        assert r.transient == transient
        assert any(f"thinking_retention: {retention} in the scenario" in n for n in counts.notes)


@pytest.mark.usefixtures("no_ctok")
def test_notes_say_which_retention_and_why() -> None:
    keep = count_tokens(scenario(), provider="anthropic", model_id="claude-opus-4-5")
    last = count_tokens(scenario(), provider="anthropic", model_id="claude-sonnet-4-5")
    gpt = count_tokens(scenario(), provider="openai", model_id="gpt-5.6-sol")
    assert keep.notes[-1] == (
        "thinking: 1,700 tokens billed as output; earlier thinking re-sent as input in every later "
        "request; claude-opus-4-5: all by model family, from the provider's docs "
        "(https://platform.claude.com/docs/en/build-with-claude/extended-thinking, read 2026-11-30)"
    )
    assert "only in the next request" in last.notes[-1] and "last_turn" in last.notes[-1]
    assert "not re-sent" in gpt.notes[-1] and "a documented default" in gpt.notes[-1]
    quiet = count_tokens(
        scenario(rounds=(thinking_round(0),), final_thinking=0),
        provider="anthropic",
        model_id="claude-opus-4-5",
    )
    assert not any(n.startswith("thinking:") for n in quiet.notes)  # no thinking, no note


# ----------------------------------------------------------------------------------------------
# Ledger and dollars
# ----------------------------------------------------------------------------------------------


@pytest.mark.usefixtures("no_ctok")
def test_keep_vs_last_turn_by_hand() -> None:
    """claude-opus-4-5 keeps all thinking, claude-sonnet-4-5 only the last turn's: 3 rounds x 500."""
    opus = estimate_scenario(scenario(model="claude-opus-4-5"), as_of=AS_OF)
    sonnet = estimate_scenario(scenario(model="claude-sonnet-4-5"), as_of=AS_OF)
    step = ECHO + RESULT  # 576
    # keep all: request i carries B + (i-1) x (576 + 500)
    opus_inputs = [B, B + step + 500, B + 2 * (step + 500), B + 3 * (step + 500)]
    assert opus_inputs == [1_007, 2_083, 3_159, 4_235]
    # last turn: B + (i-1) x 576, plus the previous round's 500 from request 2 on
    sonnet_inputs = [B, B + step + 500, B + 2 * step + 500, B + 3 * step + 500]
    assert sonnet_inputs == [1_007, 2_083, 2_659, 3_235]
    assert [r.usage.input_tokens for r in opus.ledger.rows] == opus_inputs
    assert [r.usage.input_tokens for r in sonnet.ledger.rows] == sonnet_inputs
    # the difference per request: 0, 0, 500, 1,000
    diffs = [a - b for a, b in zip(opus_inputs, sonnet_inputs, strict=True)]
    assert diffs == [0, 0, 500, 1_000]
    # thinking is output: 3 x 562 + 303 = 1,989 on both
    for est in (opus, sonnet):
        assert [r.usage.output_tokens for r in est.ledger.rows] == [ROUND_OUTPUT] * 3 + [FINAL_OUTPUT]
        assert est.ledger.totals.output_tokens == 1_989
    # Opus 4.5 $5 / $25 per MTok: 10,484 x $5 + 1,989 x $25
    assert opus.ledger.totals.input_usd == Decimal("0.05242")
    assert opus.ledger.totals.output_usd == Decimal("0.049725")
    assert opus.ledger.totals.cost_usd == Decimal("0.102145")
    # Sonnet 4.5 $3 / $15: 8,984 x $3 + 1,989 x $15
    assert sonnet.ledger.totals.input_usd == Decimal("0.026952")
    assert sonnet.ledger.totals.output_usd == Decimal("0.029835")
    assert sonnet.ledger.totals.cost_usd == Decimal("0.056787")


@pytest.mark.usefixtures("no_ctok")
def test_same_model_keep_last_drop_dollars() -> None:
    """One model (claude-opus-4-5, $5/MTok input), three retentions: only input changes."""
    totals = {
        r: estimate_scenario(scenario(thinking_retention=r), as_of=AS_OF).ledger.totals
        for r in ("keep", "last", "drop")
    }
    assert totals["keep"].input_tokens == 10_484
    assert totals["last"].input_tokens == 10_484 - 1_500  # requests 3, 4 carry 500, 1,000 less
    assert totals["drop"].input_tokens == 10_484 - 3_000  # requests 2, 3, 4 carry 500 less again
    assert totals["keep"].cost_usd - totals["last"].cost_usd == usd("5", 1_500) == Decimal("0.0075")
    assert totals["last"].cost_usd - totals["drop"].cost_usd == Decimal("0.0075")
    assert len({t.output_usd for t in totals.values()}) == 1  # 1,989 x $25 = $0.049725 each
    auto = estimate_scenario(scenario(), as_of=AS_OF).ledger.totals
    assert auto == totals["keep"]  # auto on Opus 4.5 = keep


@pytest.mark.usefixtures("no_ctok")
def test_last_turn_thinking_is_never_cached() -> None:
    """With conversation caching, kept-for-one-turn thinking is plain input of the next request:
    never written to or read from the cache (it is gone from the request after)."""
    est = estimate_scenario(
        scenario(model="claude-sonnet-4-5", caching="conversation"),
        as_of=AS_OF,
    )
    rows = est.ledger.rows
    assert [r.usage.input_tokens for r in rows] == [1_007, 2_083, 2_659, 3_235]
    # Sonnet 4.5 caches prefixes of 1,024+ tokens: request 1 (1,003 cacheable) writes nothing
    assert (rows[0].usage.cache_read_tokens, rows[0].cache_write_total) == (0, 0)
    for row in rows[1:]:
        cached = row.usage.cache_read_tokens + row.cache_write_total
        assert cached == row.usage.input_tokens - THINKING - 4  # all but thinking and the tail


@pytest.mark.usefixtures("no_ctok")
def test_kept_thinking_is_cached_with_the_conversation() -> None:
    est = estimate_scenario(scenario(caching="conversation"), as_of=AS_OF)  # opus-4-5: min 4,096
    rows = est.ledger.rows
    assert rows[-1].usage.input_tokens == 4_235
    # 4,231 cacheable tokens reach Opus 4.5's 4,096 minimum only in the final request
    assert [r.cache_write_total for r in rows] == [0, 0, 0, 4_231]


def test_accountant_adds_transient_to_the_next_request_only() -> None:
    from agentcost.tokens.counts import RoundTokens, TokenCounts

    counts = TokenCounts(
        tools=0,
        system=0,
        task=100,
        per_request=0,
        rounds=(RoundTokens(("t",), 10, 5, 20, transient=7),) * 3,
        final_output=1,
        encoding="test",
        approximate=False,
        method="synthetic",
    )
    rows = run_accountant(counts, pricer_for_tokens(), NO_CACHE).rows
    assert [r.usage.input_tokens for r in rows] == [100, 132, 157, 182]
    cached = run_accountant(
        counts, pricer_for_tokens(), CachePolicy(mode="conversation", style="explicit", min_tokens=0)
    ).rows
    assert [r.usage.input_tokens for r in cached] == [100, 132, 157, 182]
    assert [r.usage.cache_read_tokens + r.cache_write_total for r in cached] == [100, 125, 150, 175]


def pricer_for_tokens() -> Any:
    from agentcost.tokens.request import RequestCost, RequestUsage

    def price(usage: RequestUsage) -> RequestCost:
        total = Decimal(usage.input_tokens + usage.output_tokens)
        return RequestCost(total, Decimal(0), total)

    return price


def test_pricer_for_unchanged_without_server_tools() -> None:
    from agentcost.prices.lookup import resolve_model
    from agentcost.tokens.request import RequestUsage

    price = pricer_for(resolve_model("claude-opus-4-5", as_of=AS_OF))
    cost = price(RequestUsage(input_tokens=1_000_000, output_tokens=1_000_000))
    assert (cost.input_usd, cost.output_usd, cost.total_usd, cost.fees_usd) == (
        Decimal(5),
        Decimal(25),
        Decimal(30),
        Decimal(0),
    )
