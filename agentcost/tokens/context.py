"""Context-window dynamics: context editing (Anthropic ``clear_tool_uses``) and deferred tools.

Both mechanics are encoded in :class:`~agentcost.tokens.counts.TokenCounts`, so every run of the accountant
on those counts (TTL comparison, levers, baselines) applies them without extra arguments:

* Context editing: ``TokenCounts.context_editing`` holds the configuration and every tool round's
  ``RoundTokens.call_results`` the result body of each client tool call (what clearing can remove).
  The accountant asks a :class:`ContextEditor` before every request whether to clear; the baseline
  without editing is the same counts with ``context_editing=None``.
* Deferred tools (tool search): :func:`defer_tools` shrinks ``TokenCounts.tools`` (each deferred
  definition replaced by ``tool_search_stub`` tokens, plus the tool-search tool's own definition)
  and inserts a tool-search request (``RoundTokens.search``) before the first round that calls a
  deferred tool; that request's result carries the loaded definitions into the conversation. The
  baseline loads every tool up front: the scenario with ``defer_loading`` off
  (:func:`without_deferral`).

See docs/accounting.md ("Context editing", "Deferred tools and tool search").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import TYPE_CHECKING

from agentcost.scenario.model import Content, ContextEditing, Round, Scenario, ToolUse
from agentcost.tokens.counts import RoundTokens, TokenCounts

if TYPE_CHECKING:
    from agentcost.loop.accountant import Ledger
    from agentcost.tokens.count import Rules

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
# Context editing (accountant side)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Edit:
    """One clearing, applied to a request before it is sent (measured on the scenario's model)."""

    saved: int  # input tokens removed from this request and every later one (bodies - placeholders)
    results: int  # tool results cleared
    keep_cached: int  # the cached prefix that survives: everything before the first cleared result
    cleared: tuple[tuple[int, int], ...] = ()  # (round, call) of each result cleared, 0-based


class ContextEditor:
    """Anthropic ``clear_tool_uses`` over one run, request by request.

    Before request ``k`` (rounds ``0..k-1`` are in its context), if the request's input would pass
    ``trigger`` tokens, every tool result older than the last ``keep`` tool uses (all client tool
    calls count, parallel ones each) is cleared, except results of ``exclude_tools`` and those already
    cleared, provided that removes at least ``clear_at_least`` tokens (net of the placeholders; else
    nothing is cleared). A cleared result keeps its framing and its tool_use block; its body becomes
    ``placeholder`` tokens in this and every later request. Tool-search results (loaded definitions)
    are never cleared.
    """

    def __init__(self, config: ContextEditing, counts: TokenCounts) -> None:
        self.config = config
        self.counts = counts
        self.rounds = counts.rounds
        self.stable = counts.prefix + counts.task
        self.cleared: set[tuple[int, int]] = set()
        self.saved_in_round = [0] * len(counts.rounds)

    def before(self, k: int, input_tokens: int) -> Edit | None:
        """The clearing applied to request ``k`` (0-based) whose input would be ``input_tokens``."""
        c = self.config
        if k == 0 or input_tokens <= c.trigger:
            return None
        uses = [
            (i, n, tool, body)
            for i in range(min(k, len(self.rounds)))
            for n, (tool, body) in enumerate(self.rounds[i].call_results)
        ]
        older = uses[: max(len(uses) - c.keep, 0)]
        todo = [
            (i, n, body)
            for i, n, tool, body in older
            if (i, n) not in self.cleared and tool not in c.exclude_tools
        ]
        saved = sum(body - c.placeholder for _, _, body in todo)
        if not todo or saved <= 0 or saved < c.clear_at_least:
            return None
        first = min(i for i, _, _ in todo)
        keep_cached = (
            self.stable
            + sum(r.appended - s for r, s in zip(self.rounds[:first], self.saved_in_round, strict=False))
            + self.rounds[first].echo
        )
        for i, n, body in todo:
            self.cleared.add((i, n))
            self.saved_in_round[i] += body - c.placeholder
        cleared = tuple((i, n) for i, n, _ in todo)
        return Edit(saved=saved, results=len(todo), keep_cached=keep_cached, cleared=cleared)

    def on(self, edit: Edit, counts: TokenCounts) -> Edit:
        """The same clearing on another model's counts (routing: ``counts.rounds`` aligned with the
        scenario model's): the same results cleared, their bodies as that model counts them, and the
        cached prefix before the first of them on that model. Must be called right after the
        :meth:`before` that made ``edit``."""
        if counts is self.counts:
            return edit
        placeholder = self.config.placeholder

        def body(i: int, n: int) -> int:
            return counts.rounds[i].call_results[n][1] - placeholder

        first = min(i for i, _ in edit.cleared)
        keep_cached = (
            counts.prefix
            + counts.task
            + sum(r.appended for r in counts.rounds[:first])
            - sum(body(i, n) for i, n in self.cleared if i < first)
            + counts.rounds[first].echo
        )
        saved = sum(body(i, n) for i, n in edit.cleared)
        return replace(edit, saved=saved, keep_cached=keep_cached)


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


# ---------------------------------------------------------------------------------------------
# Effects for the report
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ContextEditingEffect:
    """What context editing did over the run, and the run's cost without it."""

    edits: int  # requests before which a clearing happened
    results_cleared: int
    tokens_cleared: int  # net tokens removed per request from then on, summed over the clearings
    cost_usd: Decimal
    baseline_usd: Decimal  # the same run with no editing

    @property
    def saving_usd(self) -> Decimal:
        """Positive: editing saves; negative: it costs more (lost cache reads)."""
        return self.baseline_usd - self.cost_usd


@dataclass(frozen=True)
class ToolSearchEffect:
    """What deferring tools did, and the run's cost with every tool loaded up front."""

    deferred: tuple[str, ...]
    loaded: tuple[str, ...]
    searches: int
    definitions_tokens: int
    prefix_tokens: int  # stubs + the tool-search tool
    cost_usd: Decimal
    baseline_usd: Decimal  # every tool loaded up front, no search requests

    @property
    def saving_usd(self) -> Decimal:
        return self.baseline_usd - self.cost_usd


def context_editing_effect(
    counts: TokenCounts, ledger: Ledger, rerun: Callable[[TokenCounts], Ledger]
) -> ContextEditingEffect | None:
    """Context editing's effect on ``ledger`` (``rerun``: the accountant on other counts, with the
    same prices, cache policy, pacing and limits); None when the scenario does not edit context."""
    if counts.context_editing is None:
        return None
    baseline = rerun(replace(counts, context_editing=None))
    rows = [r for r in ledger.rows if r.cleared_results]
    return ContextEditingEffect(
        edits=len(rows),
        results_cleared=sum(r.cleared_results for r in rows),
        tokens_cleared=sum(r.cleared_tokens for r in rows),
        cost_usd=ledger.totals.cost_usd,
        baseline_usd=baseline.totals.cost_usd,
    )


def tool_search_effect(
    scenario: Scenario,
    counts: TokenCounts,
    ledger: Ledger,
    recount: Callable[[Scenario], TokenCounts],
    rerun: Callable[[TokenCounts], Ledger],
) -> ToolSearchEffect | None:
    """Deferring tools' effect on ``ledger`` against loading every tool up front (``recount``: the
    token counts of another scenario on the same model); None when no tool is deferred."""
    deferred = tuple(t.name for t in scenario.tools if t.defer_loading)
    if not deferred:
        return None
    full = recount(without_deferral(scenario))
    baseline = rerun(full)
    prefix_tokens = len(deferred) * scenario.tool_search_stub + TOOL_SEARCH_TOOL_TOKENS
    called = dict.fromkeys(call.tool for r in scenario.rounds for call in r.calls)  # client calls only
    return ToolSearchEffect(
        deferred=deferred,
        loaded=tuple(name for name in called if name in deferred),
        searches=sum(1 for r in counts.rounds if r.search),
        definitions_tokens=full.tools - counts.tools + prefix_tokens,
        prefix_tokens=prefix_tokens,
        cost_usd=ledger.totals.cost_usd,
        baseline_usd=baseline.totals.cost_usd,
    )
