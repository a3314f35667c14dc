"""Context editing (Anthropic ``clear_tool_uses``), accountant side: which old tool results to clear
before each request. What clearing can remove is counted in :mod:`agentcost.tokens.context`; the
accountant (:mod:`agentcost.loop.accountant`) applies the clearings to its ledger."""

from __future__ import annotations

from dataclasses import replace

from agentcost.infra.record import record
from agentcost.scenario.model import ContextEditing
from agentcost.tokens.counts import TokenCounts


@record
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
