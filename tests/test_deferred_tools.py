"""Deferred tools (``defer_loading``) and tool-search requests, with hand-computed tokens and dollars.

claude-sonnet-4-5 on 2026-11-30: $3 input, $15 output per MTok; amounts in comments are µ$. Claude
counts on the o200k_base x 1.06 (prose) path (``no_ctok``); Sonnet 4.5's hidden tool-use system prompt
is 496 tokens (tool_choice auto, facts.yaml); tool definitions are JSON + 3 each, + 1 once.
"""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcost.loop.estimate import estimate_scenario
from agentcost.render.jsonfmt import report_dict
from agentcost.render.table import render_table
from agentcost.report.build import build_report
from agentcost.scenario.model import CachingMode, Content, Limits, Round, Scenario, ToolDef, ToolUse
from agentcost.tokens.context import TOOL_SEARCH_QUERY_TOKENS, TOOL_SEARCH_TOOL_TOKENS
from agentcost.tokens.count import count_tokens
from agentcost.tokens.memo import count_text
from agentcost.tokens.rules import _tool_json

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)

WEATHER = ToolDef(
    "get_weather", "Get the weather", {"type": "object", "properties": {"city": {"type": "string"}}}
)
LOOKUP = ToolDef(
    "lookup_order",
    "Look up an order in the shop database by its number and return its status, items, prices and "
    "the shipping address.",
    {
        "type": "object",
        "properties": {"order_number": {"type": "string", "description": "The order number, e.g. A-1234"}},
        "required": ["order_number"],
    },
)
CALL = ToolUse(tool="get_weather", input=Content(tokens=10), result=Content(tokens=100))


def scenario(tools: tuple[ToolDef, ...], caching: CachingMode = "none", rounds: int = 2) -> Scenario:
    return Scenario(
        path=Path("deferred.yaml"),
        model="claude-sonnet-4-5",
        model_line=None,
        provider=None,
        system=Content(tokens=1_000),
        tools=tools,
        tool_choice="auto",
        task=Content(tokens=47),
        rounds=(Round(calls=(CALL,)),) * rounds,
        final=Content(tokens=17),
        caching=caching,
    )


def deferred(*tools: ToolDef) -> tuple[ToolDef, ...]:
    return tuple(replace(t, defer_loading=True) for t in tools)


@pytest.mark.usefixtures("no_ctok")
def test_definition_sizes_by_hand() -> None:
    # get_weather: its JSON is 38 o200k tokens -> ceil(38 x 1.06) = 41, + 3 = 44.
    # lookup_order: 83 -> ceil(87.98) = 88, + 3 = 91. All tools: 496 + 1 + 44 + 91 = 632.
    assert [count_text(_tool_json(t)) for t in (WEATHER, LOOKUP)] == [38, 83]
    full = count_tokens(scenario((WEATHER, LOOKUP)), provider="anthropic", model_id="claude-sonnet-4-5")
    assert full.tools == 632
    # both deferred: 496 + 1 + 2 stubs x 9 + the tool-search tool 120 = 635
    c = count_tokens(scenario(deferred(WEATHER, LOOKUP)), provider="anthropic", model_id="claude-sonnet-4-5")
    assert TOOL_SEARCH_TOOL_TOKENS == 120 and TOOL_SEARCH_QUERY_TOKENS == 12
    assert c.tools == 635
    # a search request before round 1 (the first call of get_weather), none before round 2:
    # tool_use = "tool_search" (o200k 2 -> 3) + 12 + 37 (tool_choice auto) = 52: output 3 + 52 = 55,
    # echo 55;
    # result = 3 + 11 per tool_result + get_weather's definition 44 = 58
    assert [(r.search, r.tools, r.output, r.echo, r.result) for r in c.rounds] == [
        (True, ("tool_search",), 55, 55, 58),
        (False, ("get_weather",), 53, 53, 114),
        (False, ("get_weather",), 53, 53, 114),
    ]
    assert any("deferred tools: 2 tool(s) cost 9 tokens each" in n for n in c.notes)


@pytest.mark.usefixtures("no_ctok")
def test_deferring_small_tools_costs_more(fixed_terminal: None) -> None:
    est = estimate_scenario(scenario(deferred(WEATHER, LOOKUP)), as_of=AS_OF)
    # base 635 + system 1,000 + task 3 + 47 + 4 = 1,689. search 1,689 (out 55); round 1: + 55 + 58
    # = 1,802 (out 53); round 2: + 53 + 114 = 1,969 (out 53); final 2,136 (out 3 + 17 = 20).
    assert [r.usage.input_tokens for r in est.ledger.rows] == [1_689, 1_802, 1_969, 2_136]
    assert [r.round for r in est.ledger.rows] == [None, 0, 1, None]
    assert est.ledger.rounds_planned == 2
    # input 7,596 x 3 = 22,788 + output 181 x 15 = 2,715 -> 25,503 µ$
    # all loaded: 1,686, 1,853, 2,020: 5,559 x 3 = 16,677 + 126 x 15 = 1,890 -> 18,567 µ$
    effect = est.tool_search
    assert effect is not None
    assert (effect.cost_usd, effect.baseline_usd, effect.saving_usd) == (
        Decimal("0.025503"),
        Decimal("0.018567"),
        Decimal("-0.006936"),
    )
    assert (effect.deferred, effect.loaded, effect.searches) == (
        ("get_weather", "lookup_order"),
        ("get_weather",),
        1,
    )
    assert (effect.definitions_tokens, effect.prefix_tokens) == (135, 138)
    report = build_report(est)
    assert report_dict(report)["tool_search"] == {
        "deferred": ["get_weather", "lookup_order"],
        "loaded": ["get_weather"],
        "searches": 1,
        "definitions_tokens": 135,
        "prefix_tokens": 138,
        "cost_usd": "0.025503",
        "baseline_usd": "0.018567",
        "saving_usd": "-0.006936",
    }
    from rich.console import Console

    console = Console(width=400, record=True)
    console.print(render_table(report, verbose=True))
    text = console.export_text()
    assert (
        "Deferred tools: 2 tools cost 138 prefix tokens (stubs + the tool-search tool) instead of 135;"
        in text
    )
    assert "costs $0.0069 more than loading every tool up front ($0.0186)" in text


BIG = ToolDef("query_warehouse", "word " * 400, {"type": "object", "properties": {"sql": {"type": "string"}}})


@pytest.mark.usefixtures("no_ctok")
def test_deferring_a_big_unused_tool_saves() -> None:
    # Only the unused BIG tool is deferred: no search request; every request saves its definition
    # minus a stub minus the tool-search tool.
    size = math.ceil(count_text(_tool_json(BIG)) * Decimal("1.06")) + 3
    assert size > 400
    est = estimate_scenario(scenario((WEATHER, *deferred(BIG))), as_of=AS_OF)
    effect = est.tool_search
    assert effect is not None and effect.searches == 0 and effect.loaded == ()
    saved_tokens = size - 9 - TOOL_SEARCH_TOOL_TOKENS
    assert effect.definitions_tokens == size
    # 3 requests (2 rounds + final), no caching: saved_tokens x 3 requests x $3/MTok
    assert effect.saving_usd == Decimal(saved_tokens * 3 * 3) / 1_000_000


@pytest.mark.usefixtures("no_ctok")
def test_search_before_a_round_cut_by_max_rounds_is_not_sent() -> None:
    # get_weather is loaded before round 1; LOOKUP (deferred) first called in round 2
    lookup = ToolUse(tool="lookup_order", input=Content(tokens=5), result=Content(tokens=50))
    s = scenario(deferred(WEATHER, LOOKUP))
    s = replace(s, rounds=(Round(calls=(CALL,)), Round(calls=(lookup,))), limits=Limits(max_rounds=1))
    est = estimate_scenario(s, as_of=AS_OF)
    # sent: search, round 1; not sent: the search for lookup_order, round 2, the final answer
    assert [r.tools for r in est.ledger.rows] == [("tool_search",), ("get_weather",)]
    assert (est.ledger.rounds_run, est.ledger.rounds_planned, est.ledger.truncated) == (1, 2, True)


# Property: with at least one tool already deferred (the tool-search tool is there either way),
# deferring one more tool that no round calls never raises cost: its definition (JSON + 3 >= 20
# tokens) leaves the prefix, a 9-token stub takes its place, no request is added. Caching none, or
# conversation caching with a system prompt large enough that no prefix crosses the 1,024-token
# minimum (a prefix that falls under the minimum stops being cached, which can raise cost).
_WORDS = st.lists(st.sampled_from(["alpha", "beta", "gamma", "delta", "query", "order"]), max_size=40)


@pytest.mark.usefixtures("no_ctok")
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    descriptions=st.lists(_WORDS, min_size=2, max_size=5),
    rounds=st.integers(min_value=0, max_value=4),
    caching=st.sampled_from(["none", "conversation"]),
)
def test_deferring_an_unused_tool_never_raises_cost(
    descriptions: list[list[str]], rounds: int, caching: CachingMode
) -> None:
    extra = tuple(
        ToolDef(f"tool_{i}", " ".join(words), {"type": "object", "properties": {}})
        for i, words in enumerate(descriptions)
    )
    base = replace(scenario((*deferred(WEATHER), *extra), caching, rounds), system=Content(tokens=3_000))
    before = estimate_scenario(base, as_of=AS_OF).ledger.totals.cost_usd
    for i in range(len(extra)):
        tools = list(base.tools)
        tools[1 + i] = replace(tools[1 + i], defer_loading=True)
        after = estimate_scenario(replace(base, tools=tuple(tools)), as_of=AS_OF).ledger.totals.cost_usd
        assert after <= before
