"""Context-window dynamics, token side: what context editing can clear, and deferred tools.

Both mechanics are encoded in :class:`~agentcost.tokens.counts.TokenCounts`, so every run of the accountant
on those counts (TTL comparison, levers, baselines) applies them without extra arguments:

* Context editing: ``TokenCounts.context_editing`` holds the configuration and every tool round's
  ``RoundTokens.call_results`` (:func:`call_results`) the result body of each client tool call (what
  clearing can remove). The accountant asks its ``ContextEditor`` (:mod:`agentcost.loop.accountant`)
  before every request whether to clear; the baseline without editing is the same counts with
  ``context_editing=None``.
* Deferred tools (tool search): :func:`defer_tools` shrinks ``TokenCounts.tools`` (each deferred
  definition replaced by ``tool_search_stub`` tokens, plus the tool-search tool's own definition)
  and inserts a tool-search request (``RoundTokens.search``) before the first round that calls a
  deferred tool; that request's result carries the loaded definitions into the conversation. The
  baseline loads every tool up front: the scenario with ``defer_loading`` off
  (:func:`without_deferral`).

Their effects on a run's cost, for the report, are in :mod:`agentcost.loop.context`. See
docs/accounting.md ("Context editing", "Deferred tools and tool search").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from agentcost.scenario.model import Content, Round, Scenario, ToolUse
from agentcost.tokens.counts import RoundTokens

if TYPE_CHECKING:
    from agentcost.tokens.rules import Rules

TOOL_SEARCH_NAME = "tool_search"
"""The name the tool-search call carries in the ledger (Anthropic: ``tool_search_tool_regex`` or
``..._bm25``; OpenAI: ``tool_search``)."""

TOOL_SEARCH_TOOL_TOKENS = 120
"""The tool-search tool's own definition in the tool prefix (sent whenever a tool is deferred). Not
published by any provider (pricing-facts.md §F has none): ours, the size of a one-parameter tool
with a paragraph of description, as the regex/BM25 search tools are."""

TOOL_SEARCH_QUERY_TOKENS = 12
"""The arguments of one tool-search call (e.g. ``{"query": "(?i)weather|forecast"}``; Anthropic caps
the regex at 200 characters). Ours; the provider's tool-call framing is added by the counting rules."""


# ---------------------------------------------------------------------------------------------
# Context editing (token side)
# ---------------------------------------------------------------------------------------------


def call_results(round_: Round, rules: Rules) -> tuple[tuple[str, int], ...]:
    """(tool, result body tokens) of each client tool call of a round: what clearing can remove.

    The body is counted as ``rules.round`` counts it (``server_result`` is the body-only count on
    every provider); the per-result framing stays when the result is cleared.
    """
    return tuple((c.tool, rules.server_result(c.result)) for c in round_.calls)


# ---------------------------------------------------------------------------------------------
# Deferred tools (token-count side)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Deferral:
    """What deferring tools did to the counts (for the notes and the report)."""

    deferred: tuple[str, ...]  # names of the deferred tools
    loaded: tuple[str, ...]  # the deferred tools a tool search loaded, in order
    searches: int  # tool-search requests inserted
    definitions: int  # tokens the deferred definitions would cost in the prefix
    prefix_cost: int  # what they cost instead: stubs + the tool-search tool


def definition_tokens(rules: Rules, scenario: Scenario) -> dict[str, int]:
    """Each deferred tool's definition tokens as the provider's rules count it in the tool prefix:
    the marginal cost of one more copy of it (so one-off framing such as Anthropic's hidden tool
    prompt or OpenAI's ``func_end`` is not included)."""
    choice = scenario.tool_choice
    return {
        t.name: rules.tools((t, t), choice) - rules.tools((t,), choice)
        for t in scenario.tools
        if t.defer_loading
    }


def search_round(rules: Rules, definitions: int) -> RoundTokens:
    """A tool-search request: output one tool-search call, result the loaded definitions (counted as
    one tool result of ``definitions`` tokens with the provider's framing)."""
    call = ToolUse(
        tool=TOOL_SEARCH_NAME,
        input=Content(tokens=TOOL_SEARCH_QUERY_TOKENS),
        result=Content(tokens=definitions),
    )
    return replace(rules.round(Round(calls=(call,))), search=True)


def defer_tools(
    scenario: Scenario, rules: Rules, tools: int, rounds: Sequence[RoundTokens]
) -> tuple[int, list[RoundTokens], Deferral | None]:
    """The tool prefix and rounds with deferred tools: ``tools`` (every definition counted) loses
    the deferred definitions and gains ``tool_search_stub`` per deferred tool plus
    :data:`TOOL_SEARCH_TOOL_TOKENS`; a tool-search request goes before each round that calls a
    deferred tool not loaded yet (one search loads all such tools of that round; loaded tools stay
    loaded)."""
    sizes = definition_tokens(rules, scenario)
    if not sizes:
        return tools, list(rounds), None
    definitions = sum(sizes.values())
    prefix_cost = len(sizes) * scenario.tool_search_stub + TOOL_SEARCH_TOOL_TOKENS
    loaded: list[str] = []
    out: list[RoundTokens] = []
    searches = 0
    for r, called in zip(rounds, _client_calls(scenario, rounds), strict=True):
        new = [name for name in dict.fromkeys(called) if name in sizes and name not in loaded]
        if new:
            loaded.extend(new)
            out.append(search_round(rules, sum(sizes[name] for name in new)))
            searches += 1
        out.append(r)
    deferral = Deferral(tuple(sizes), tuple(loaded), searches, definitions, prefix_cost)
    return tools - definitions + prefix_cost, out, deferral


def _client_calls(scenario: Scenario, rounds: Sequence[RoundTokens]) -> list[tuple[str, ...]]:
    """The client tools each of ``rounds`` calls: a scenario round's calls (``RoundTokens.tools``
    also names its server tools, which may share a client tool's name, e.g. ``web_search``), or a
    failed attempt's tools (its calls again, without server tools)."""
    calls = [tuple(c.tool for c in r.calls) for r in scenario.rounds]
    if sum(1 for r in rounds if not r.inserted) != len(calls):
        raise ValueError("the rounds are not the scenario's (one per scenario round, plus failed attempts)")
    it = iter(calls)
    return [r.tools if r.inserted else next(it) for r in rounds]


def deferral_note(d: Deferral, stub: int) -> str:
    loaded = (
        f"{len(d.loaded)} loaded by {d.searches} tool-search request(s) ({', '.join(d.loaded)}), "
        "their definitions sent as the search result, after the cached tool prefix"
        if d.loaded
        else "none is called, so none is loaded"
    )
    return (
        f"deferred tools: {len(d.deferred)} tool(s) cost {stub} tokens each until loaded, plus "
        f"{TOOL_SEARCH_TOOL_TOKENS} for the tool-search tool ({d.prefix_cost:,} in the prefix instead "
        f"of {d.definitions:,} definition tokens); {loaded}; a search request = one call of "
        f"{TOOL_SEARCH_QUERY_TOKENS} argument tokens + the provider's call and result framing (ours)"
    )


def without_deferral(scenario: Scenario) -> Scenario:
    """The scenario with every tool loaded up front (the baseline of the tool-search saving)."""
    return replace(scenario, tools=tuple(replace(t, defer_loading=False) for t in scenario.tools))
