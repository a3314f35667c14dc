"""Context-window dynamics, token side: what context editing can clear, and deferred tools.

Both mechanics are encoded in :class:`~agentcost.tokens.counts.TokenCounts`, so every run of the accountant
on those counts (TTL comparison, levers, baselines) applies them without extra arguments:

* Context editing: ``TokenCounts.context_editing`` holds the configuration and every tool round's
  ``RoundTokens.call_results`` (:func:`call_results`) the result body of each client tool call (what
  clearing can remove). The accountant asks its ``ContextEditor`` (:mod:`agentcost.loop.editing`)
  before every request whether to clear; the baseline without editing is the same counts with
  ``context_editing=None``.
* Deferred tools (tool search): :func:`defer_tools` shrinks ``TokenCounts.tools`` (each deferred
  definition replaced by its stub, plus the tool-search tool's own definition; the stub is
  ``tool_search_stub`` tokens on Anthropic, the function's name and description on OpenAI, as
  facts.yaml ``tool_search`` says; a model without tool search, or with none documented, is refused)
  and inserts a tool-search request (``RoundTokens.search``) before the first round that calls a
  deferred tool; that request's result carries the loaded definitions into the conversation. The
  baseline loads every tool up front: the scenario with ``defer_loading`` off
  (:func:`without_deferral`).

Their effects on a run's cost, for the report, are in :mod:`agentcost.loop.context`. See
docs/accounting.md ("Context editing", "Deferred tools and tool search").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from agentcost import facts
from agentcost.errors import InputError
from agentcost.infra.record import record
from agentcost.scenario.model import Content, Round, Scenario, ToolDef, ToolUse
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


@record
class Deferral:
    """What deferring tools did to the counts (for the notes and the report)."""

    deferred: tuple[str, ...]  # names of the deferred tools
    loaded: tuple[str, ...]  # the deferred tools a tool search loaded, in order
    searches: int  # tool-search requests inserted
    definitions: int  # tokens the deferred definitions would cost in the prefix
    prefix_cost: int  # what they cost instead: stubs + the tool-search tool
    stub: str = ""  # what one stub is, for the note ("9 tokens", "its name and description")


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


def tool_search_support(scenario: Scenario, provider: str, model_id: str) -> facts.Fact[facts.ToolSearch]:
    """The model's tool search (facts.yaml ``tool_search``), for a scenario that defers a tool.

    Raises :class:`InputError` (exit 2) at the first deferred tool when the model has no tool search:
    the providers document it only on the models listed and no fallback (OpenAI's API refuses a
    hosted tool the model does not support), and no page documents one for other makers (unknown)."""
    fact = facts.tool_search(provider, model_id)
    if fact is not None and fact.value.supported:
        return fact
    first = next(t for t in scenario.tools if t.defer_loading)
    why = "has no tool search" if fact is not None else "has no documented tool search"
    cite = f" ({fact.url})" if fact is not None else ""
    raise InputError(
        f"{model_id} {why}{cite}, so it cannot defer {first.name!r}",
        file=scenario.path,
        line=first.line,
        key="defer_loading",
        hint="remove defer_loading, or pick a model with tool search: "
        + ", ".join(facts.tool_search_models(provider, model_id)),
    )


def stub_tokens(scenario: Scenario, rules: Rules, support: facts.ToolSearch) -> dict[str, int]:
    """What each deferred tool costs in the tool prefix until a search loads it: the scenario's
    ``tool_search_stub`` (Anthropic), or, where the provider keeps a deferred function's name and
    description (OpenAI), the definition of that function without parameters."""
    if support.stub != facts.NAME_DESCRIPTION:
        return {t.name: scenario.tool_search_stub for t in scenario.tools if t.defer_loading}
    choice = scenario.tool_choice
    out: dict[str, int] = {}
    for t in scenario.tools:
        if t.defer_loading:
            bare = ToolDef(t.name, t.description, {}, t.line, True)
            out[t.name] = rules.tools((bare, bare), choice) - rules.tools((bare,), choice)
    return out


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
    scenario: Scenario,
    rules: Rules,
    tools: int,
    rounds: Sequence[RoundTokens],
    *,
    provider: str,
    model_id: str,
) -> tuple[int, list[RoundTokens], Deferral | None]:
    """The tool prefix and rounds with deferred tools: ``tools`` (every definition counted) loses
    the deferred definitions and gains each deferred tool's stub (:func:`stub_tokens`) plus
    :data:`TOOL_SEARCH_TOOL_TOKENS`; a tool-search request goes before each round that calls a
    deferred tool not loaded yet (one search loads all such tools of that round; loaded tools stay
    loaded). Raises :class:`InputError` on a model without tool search (:func:`tool_search_support`)."""
    sizes = definition_tokens(rules, scenario)
    if not sizes:
        return tools, list(rounds), None
    support = tool_search_support(scenario, provider, model_id).value
    stubs = stub_tokens(scenario, rules, support)
    definitions = sum(sizes.values())
    prefix_cost = sum(stubs.values()) + TOOL_SEARCH_TOOL_TOKENS
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
    stub = (
        "their name and description"
        if support.stub == facts.NAME_DESCRIPTION
        else f"{scenario.tool_search_stub} tokens each"
    )
    deferral = Deferral(tuple(sizes), tuple(loaded), searches, definitions, prefix_cost, stub)
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


def deferral_note(d: Deferral) -> str:
    loaded = (
        f"{len(d.loaded)} loaded by {d.searches} tool-search request(s) ({', '.join(d.loaded)}), "
        "their definitions sent as the search result, after the cached tool prefix"
        if d.loaded
        else "none is called, so none is loaded"
    )
    return (
        f"deferred tools: {len(d.deferred)} tool(s) cost {d.stub} until loaded, plus "
        f"{TOOL_SEARCH_TOOL_TOKENS} for the tool-search tool ({d.prefix_cost:,} in the prefix instead "
        f"of {d.definitions:,} definition tokens); {loaded}; a search request = one call of "
        f"{TOOL_SEARCH_QUERY_TOKENS} argument tokens + the provider's call and result framing (ours)"
    )


def without_deferral(scenario: Scenario) -> Scenario:
    """The scenario with every tool loaded up front (the baseline of the tool-search saving)."""
    return replace(scenario, tools=tuple(replace(t, defer_loading=False) for t in scenario.tools))
