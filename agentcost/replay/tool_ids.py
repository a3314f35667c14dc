"""Tool ids in a recorded run: warn when it halts at a tool call or sends a result that answers none.

A log whose last response asks for a tool (``stop_reason: tool_use``, ``finish_reason:
tool_calls``) ends before the agent sent the tool's result: the run halted there. A tool result
whose id (``tool_use_id``, ``tool_call_id``, ``call_id``) is not one the preceding assistant message
called is a request the provider rejects. Ids are the log's text: one is shown only when it looks
like an id (:data:`ID_PATTERN`), else named by its length, never quoted.
"""

from __future__ import annotations

import json
import re
from collections.abc import Container, Iterable, Sequence
from dataclasses import field
from typing import Any

from agentcost.infra.record import record

ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")  # Anthropic's tool_use id alphabet, bounded
MOST_NAMED = 5  # unmatched results warned about one by one; the rest are counted in one warning
_IDS_NAMED = 3  # ids named in one warning


def shown_id(value: Any) -> str:
    """A tool id as a warning names it: ``tool id toolu_01A`` when it matches :data:`ID_PATTERN`,
    else by its length (``a tool id of 10,240 characters (not shown)``)."""
    if isinstance(value, str) and ID_PATTERN.fullmatch(value):
        return f"tool id {value}"
    if isinstance(value, str):
        return f"a tool id of {len(value):,} character{'s' if len(value) != 1 else ''} (not shown)"
    return "no tool id" if value is None else "a tool id that is not text"


def id_key(value: Any) -> str:
    """A hashable key for an id from the log (text as it is; anything else as compact JSON)."""
    if isinstance(value, str):
        return value
    return "\0" + json.dumps(value, sort_keys=True, default=str)


def _ids(values: Sequence[Any]) -> str:
    named = ", ".join(shown_id(v) for v in values[:_IDS_NAMED])
    more = len(values) - _IDS_NAMED
    return named + (f" and {more:,} more" if more > 0 else "")


@record(frozen=False)
class ToolIds:
    """Collects the tool-id problems of one log as its parser reads it, then words the warnings."""

    unmatched: list[tuple[int, Any]] = field(default_factory=list)  # (request index, tool id)
    _seen: set[str] = field(default_factory=set)

    def result(self, index: int, tool_id: Any, called: Container[str]) -> None:
        """Request ``index`` sends a result for ``tool_id``; ``called``: the :func:`id_key` of
        every id it may answer."""
        key = id_key(tool_id)
        if key in called or key in self._seen:
            return
        self._seen.add(key)  # a request repeats the history: each id is warned about once
        self.unmatched.append((index, tool_id))

    def check(self, index: int, messages: Iterable[tuple[bool, Sequence[Any], Sequence[Any]]]) -> None:
        """Check a request's messages, each ``(is_assistant, ids it calls, ids it answers)``: every
        answered id must be one the preceding assistant message called."""
        called: set[str] = set()
        for assistant, calls, answers in messages:
            if assistant:
                called = {id_key(c) for c in calls}
            for tool_id in answers:
                self.result(index, tool_id, called)

    def warnings(self, halted: tuple[int, str, Sequence[Any]] | None) -> list[str]:
        """The warnings: ``halted`` is ``(request index, why, ids called)`` for a log whose last
        response asks for a tool, else None."""
        out: list[str] = []
        if halted is not None:
            index, why, ids = halted
            called = _ids(ids) if ids else "no tool id recorded"
            out.append(
                f"request {index} stops at {why} ({called}) and the log ends there: the run halted "
                "before the agent sent the tool result"
            )
        for index, tool_id in self.unmatched[:MOST_NAMED]:
            out.append(
                f"request {index} sends a tool result for {shown_id(tool_id)}, which the preceding "
                "assistant message does not call: the provider rejects such a request"
            )
        rest = self.unmatched[MOST_NAMED:]
        if rest:
            out.append(
                f"{len(rest):,} more tool results answer no call of the preceding assistant message "
                f"(first in request {rest[0][0]})"
            )
        return out
