"""Context editing (Anthropic ``clear_tool_uses``), with hand-computed tokens and dollars.

Prices: claude-sonnet-4-5 on 2026-11-30 (pricing-facts.md §A): $3 input, $3.75 5-minute write,
$0.30 read, $15 output per MTok. Amounts in comments are micro-dollars (µ$) = tokens x $/MTok.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from agentcost.loop.accountant import Ledger, run_accountant
from agentcost.loop.caching import pricer_for
from agentcost.loop.estimate import estimate_scenario
from agentcost.prices.lookup import resolve_model
from agentcost.render.jsonfmt import report_dict
from agentcost.render.table import render_table
from agentcost.report.build import build_report
from agentcost.scenario.model import Content, ContextEditing, Round, Scenario, ToolUse
from agentcost.tokens.counts import RoundTokens, TokenCounts
from agentcost.tokens.request import TTL_SECONDS, CachePolicy

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)
SONNET = pricer_for(resolve_model("claude-sonnet-4-5", as_of=AS_OF))
CONVERSATION = CachePolicy(
    mode="conversation", style="explicit", min_tokens=1_024, ttl="5m", ttl_seconds=TTL_SECONDS["5m"]
)


def counts(
    rounds: list[tuple[str, int, int]], editing: ContextEditing | None, *, system: int = 1_000
) -> TokenCounts:
    """Synthetic counts: each round (tool, echo = output, result body); result = body + 20 framing."""
    return TokenCounts(
        tools=0,
        system=system,
        task=0,
        per_request=0,
        rounds=tuple(
            RoundTokens((tool,), echo, echo, body + 20, call_results=((tool, body),))
            for tool, echo, body in rounds
        ),
        final_output=100,
        encoding="test",
        approximate=False,
        method="synthetic",
        context_editing=editing,
    )


def inputs(ledger: Ledger) -> list[tuple[int, int, int]]:
    return [
        (r.usage.input_tokens, r.usage.cache_read_tokens, r.usage.cache_write_tokens) for r in ledger.rows
    ]


# Four Read rounds, each appending echo 50 + result 1,020 (body 1,000) = 1,070 tokens; system 1,000.
# Without editing request k carries 1,000 + 1,070 (k - 1): 1,000 2,070 3,140 4,210 5,280.
EDIT = ContextEditing(trigger=3_000, keep=1, clear_at_least=0, placeholder=10)
FOUR = [("Read", 50, 1_000)] * 4


def test_clearing_without_caching() -> None:
    ledger = run_accountant(counts(FOUR, EDIT), SONNET)
    # request 3 would carry 3,140 > 3,000: round 1's result (not among the last 1 tool use) is
    # cleared, 1,000 -> 10 tokens: 2,150. Request 4: 2,150 + 1,070 = 3,220 > 3,000, round 2's result
    # is cleared: 2,230. The final request: 3,300 -> round 3's result: 2,310.
    assert [r.usage.input_tokens for r in ledger.rows] == [1_000, 2_070, 2_150, 2_230, 2_310]
    assert [(r.cleared_results, r.cleared_tokens) for r in ledger.rows] == [
        (0, 0),
        (0, 0),
        (1, 990),
        (1, 990),
        (1, 990),
    ]
    # input 9,760 x 3 = 29,280 + output (4 x 50 + 100) x 15 = 4,500 -> 33,780 µ$
    assert ledger.totals.cost_usd == Decimal("0.03378")
    # no editing: input 15,700 x 3 = 47,100 + 4,500 = 51,600 µ$
    assert run_accountant(counts(FOUR, None), SONNET).totals.cost_usd == Decimal("0.0516")


def test_clearing_invalidates_the_cache_after_the_edit_point() -> None:
    ledger = run_accountant(counts(FOUR, EDIT), SONNET, CONVERSATION)
    # 1: 1,000 < 1,024: nothing cached. 2: writes its 2,070.
    # 3: cleared round 1's result: the cache survives up to it (system 1,000 + round 1's tool_use
    #    echo 50 = 1,050), so read 1,050 and write the rest 2,150 - 1,050 = 1,100.
    # 4: round 2's result cleared: survives 1,000 + round 1 (50 + 30 left) + 50 = 1,130; write 1,100.
    # 5: survives 1,000 + 80 + 80 + 50 = 1,210; write 1,100.
    assert inputs(ledger) == [
        (1_000, 0, 0),
        (2_070, 0, 2_070),
        (2_150, 1_050, 1_100),
        (2_230, 1_130, 1_100),
        (2_310, 1_210, 1_100),
    ]
    # 1: 1,000 x 3 = 3,000; 2: 2,070 x 3.75 = 7,762.5; 3: 1,050 x 0.3 + 1,100 x 3.75 = 4,440;
    # 4: 339 + 4,125 = 4,464; 5: 363 + 4,125 = 4,488 -> input 24,154.5 + output 4,500 = 28,654.5 µ$
    assert ledger.totals.cost_usd == Decimal("0.0286545")
    baseline = run_accountant(counts(FOUR, None), SONNET, CONVERSATION)
    # no editing: 3,000 + 7,762.5 + (2,070 x 0.3 + 1,070 x 3.75 = 4,633.5) + (942 + 4,012.5)
    # + (1,263 + 4,012.5) = 25,626 + 4,500 = 30,126 µ$: editing saves 1,471.5 µ$
    assert baseline.totals.cost_usd == Decimal("0.030126")
    assert baseline.totals.cost_usd - ledger.totals.cost_usd == Decimal("0.0014715")


def test_clearing_can_cost_more_than_it_saves() -> None:
    # Round 1's result is small (body 200), rounds 2-4 have big tool_use blocks (echo 3,000) and
    # results of 100. Trigger 9,000, keep 3: only request 5 (final) passes it and clears round 1's
    # result (190 tokens net); everything after round 1's tool_use must be written again.
    rounds = [("Fetch", 50, 200)] + [("Write", 3_000, 100)] * 3
    editing = ContextEditing(trigger=9_000, keep=3, placeholder=10)
    ledger = run_accountant(counts(rounds, editing), SONNET, CONVERSATION)
    baseline = run_accountant(counts(rounds, None), SONNET, CONVERSATION)
    # no editing, request 5: 1,000 + 270 + 3 x 3,120 = 10,630, read 7,510, write 3,120
    assert inputs(baseline)[-1] == (10_630, 7_510, 3_120)
    # editing, request 5: 10,630 - 190 = 10,440; survives 1,000 + 50 = 1,050; write 9,390
    assert inputs(ledger)[-1] == (10_440, 1_050, 9_390)
    assert inputs(ledger)[:4] == inputs(baseline)[:4]
    # request 5 alone: baseline 7,510 x 0.3 + 3,120 x 3.75 = 2,253 + 11,700 = 13,953 µ$;
    # editing 1,050 x 0.3 + 9,390 x 3.75 = 315 + 35,212.5 = 35,527.5 µ$: 21,574.5 µ$ more
    assert ledger.totals.cost_usd - baseline.totals.cost_usd == Decimal("0.0215745")


def test_clear_at_least_and_excluded_tools() -> None:
    # 990 tokens per clearing < clear_at_least 1,500 at request 3; at request 4 two results (1,980)
    # are older than the last tool use and clear together; at 5 one more is only 990: not cleared.
    ledger = run_accountant(counts(FOUR, replace(EDIT, clear_at_least=1_500)), SONNET)
    assert [r.usage.input_tokens for r in ledger.rows] == [1_000, 2_070, 3_140, 2_230, 3_300]
    assert [r.cleared_results for r in ledger.rows] == [0, 0, 0, 2, 0]
    # an excluded tool is never cleared, but still counts among the kept tool uses
    rounds = [("Read", 50, 1_000), ("Grep", 50, 1_000), ("Read", 50, 1_000), ("Read", 50, 1_000)]
    ledger = run_accountant(counts(rounds, replace(EDIT, exclude_tools=("Grep",))), SONNET)
    # 3: round 1 cleared (2,150); 4: round 2 is Grep, kept: 3,220 stays; final: 3,220 + 1,070 =
    # 4,290 > 3,000 clears round 3: 3,300
    assert [r.usage.input_tokens for r in ledger.rows] == [1_000, 2_070, 2_150, 3_220, 3_300]


def test_parallel_calls_each_count_as_a_tool_use() -> None:
    two = RoundTokens(("Read", "Read"), 100, 100, 2_040, call_results=(("Read", 1_000), ("Read", 1_000)))
    c = replace(counts(FOUR[:1], EDIT), rounds=(two, two))
    ledger = run_accountant(c, SONNET)
    # 2: 1,000 + 2,140 = 3,140 > 3,000, keep 1: the first of round 1's two results is cleared
    # (990): 2,150. Final: 2,150 + 2,140 = 4,290: round 1's second and round 2's first: 2,310
    assert [r.usage.input_tokens for r in ledger.rows] == [1_000, 2_150, 2_310]
    assert [r.cleared_results for r in ledger.rows] == [0, 1, 2]


def scenario(editing: ContextEditing | None) -> Scenario:
    """Four Read rounds with stated token counts on claude-sonnet-4-5, no tools declared, so that
    every count is hand-computable (Anthropic framing: tokens.py)."""
    call = ToolUse(tool="Read", input=Content(tokens=20), result=Content(tokens=1_000))
    return Scenario(
        path=Path("editing.yaml"),
        model="claude-sonnet-4-5",
        model_line=None,
        provider=None,
        system=Content(tokens=2_000),
        tools=(),
        tool_choice="auto",
        task=Content(tokens=47),
        rounds=(Round(calls=(call,)),) * 4,
        final=Content(tokens=97),
        caching="none",
        context_editing=editing,
    )


@pytest.mark.usefixtures("no_ctok")
def test_estimate_reports_the_saving(fixed_terminal: None) -> None:
    est = estimate_scenario(scenario(ContextEditing(trigger=4_000, keep=2, placeholder=10)), as_of=AS_OF)
    # system 2,000 + task 3 + 47 + 4 after the last message = 2,054. A round: tool_use = name "Read"
    # (o200k 1 x 1.06 -> 2) + input 20 + 37 (tool_choice auto) = 59; output 3 + 59 = 62, echo 3 + 59 =
    # 62; result 3 + 11 + 1,000 = 1,014: 1,076 per round. Requests: 2,054 3,130 4,206 5,282 6,358
    # without editing. 3: 4,206 > 4,000 but only 2 tool uses (keep 2): nothing. 4: 5,282, round 1
    # cleared (990): 4,292. 5: 4,292 + 1,076 = 5,368, round 2 cleared: 4,378.
    assert [r.usage.input_tokens for r in est.ledger.rows] == [2_054, 3_130, 4_206, 4_292, 4_378]
    effect = est.context_editing
    assert effect is not None
    assert (effect.edits, effect.results_cleared, effect.tokens_cleared) == (2, 2, 1_980)
    # with: input 18,060 x 3 = 54,180 + output (4 x 62 + 3 + 97) x 15 = 5,220 -> 59,400 µ$
    # without: input 21,030 x 3 = 63,090 + 5,220 = 68,310 µ$: saves 8,910 µ$
    assert (effect.cost_usd, effect.baseline_usd, effect.saving_usd) == (
        Decimal("0.0594"),
        Decimal("0.06831"),
        Decimal("0.00891"),
    )
    report = build_report(est)
    data = report_dict(report)["context_editing"]
    assert data == {
        "edits": 2,
        "results_cleared": 2,
        "tokens_cleared": 1_980,
        "cost_usd": "0.0594",
        "baseline_usd": "0.06831",
        "saving_usd": "0.00891",
    }
    from rich.console import Console

    console = Console(width=120, record=True)
    console.print(render_table(report, verbose=True))
    text = console.export_text()
    assert "Context editing: cleared 2 tool results (1,980 tokens) before 2 requests" in text
    assert "saves $0.0089 against no editing ($0.0683)" in text


def test_no_editing_no_effect() -> None:
    est = estimate_scenario(scenario(None), as_of=AS_OF)
    assert est.context_editing is None
    assert report_dict(build_report(est))["context_editing"] is None
