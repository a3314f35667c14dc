"""Shared reading of API request/response logs kept as JSON Lines (one call per line).

Used by ``agentcost.replay.anthropic_jsonl`` and ``agentcost.replay.openai_jsonl``: every non-empty
line is one JSON object; a line that is not valid JSON is an error naming it, except the LAST line
when its text simply runs out (the writer was cut off), which gives a warning and the calls read
before it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from agentcost.errors import InputError
from agentcost.replay.files import loads, usage_count
from agentcost.replay.trace import Message, RecordedCall, ReportedUsage, ToolPart, Trace, tool_problem


def first_object(text: str) -> Mapping[str, Any] | None:
    """The first non-empty line parsed as a JSON object, or None."""
    for raw in text.splitlines():
        if raw.strip():
            try:
                value = json.loads(raw)
            except (ValueError, RecursionError):  # not JSON, too deep, a huge number: not this format
                return None
            return value if isinstance(value, dict) else None
    return None


def _ran_out(line: str, err: json.JSONDecodeError) -> bool:
    """The JSON text ends before the value does (a cut line), rather than being wrong."""
    return not line[err.pos :].strip() or err.msg.startswith("Unterminated string")


def records(path: Path, text: str, warnings: list[str]) -> Iterator[tuple[int, Mapping[str, Any]]]:
    """``(line number, object)`` per non-empty line; a cut last line adds a warning to ``warnings``."""
    lines = text.splitlines()
    last = max((i for i, raw in enumerate(lines) if raw.strip()), default=-1)
    read = 0
    for i, raw in enumerate(lines):
        if not raw.strip():
            continue
        try:
            value = loads(raw, path, line=i + 1)
        except json.JSONDecodeError as err:
            if i == last and _ran_out(raw, err):
                warnings.append(
                    f"the file ends early: line {i + 1} is cut off (truncated); read {read} "
                    f"request{'s' if read != 1 else ''} before it"
                )
                return
            raise InputError(
                f"not valid JSON: {err.msg} (column {err.colno})", file=path, line=i + 1
            ) from None
        if not isinstance(value, dict):
            raise InputError("expected one JSON object per line", file=path, line=i + 1)
        read += 1
        yield i + 1, value


def obj(value: Any) -> Mapping[str, Any]:
    """``value`` when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def whole(value: Any, what: str, path: Path, line: int) -> int:
    """A token count from the log at key ``what``: a whole number from 0 to 1,000,000,000 (missing
    is 0), see :func:`agentcost.replay.files.usage_count`."""
    return usage_count(value, what, path, line)


def dump(value: Any) -> str:
    """Compact JSON of a tool call's input or arguments (a string is kept as it is)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def api_call(
    calls: list[RecordedCall],
    *,
    path: Path,
    line: int,
    request: Mapping[str, Any] | None,
    response: Mapping[str, Any],
    messages: tuple[Message, ...] | None,
    tools: Any,
    output: str | None,
    reported: ReportedUsage | None,
    action: str | None,
    tool_choice: str | None = None,
    output_calls: tuple[ToolPart, ...] = (),
) -> RecordedCall:
    """The next call of an API log: what was sent (if recorded) and what the provider reported."""
    if reported is None and messages is None:
        raise InputError("a line needs a request or a response with usage", file=path, line=line)
    for tool in tools or ():
        problem = tool_problem(tool)
        if problem is not None:
            raise InputError(problem, file=path, line=line, key="request.tools")
    name = (request or {}).get("model") or response.get("model")
    return RecordedCall(
        index=len(calls) + 1,
        model=name if isinstance(name, str) else None,
        messages=messages,
        tools=tools,
        output_text=output,
        reported=reported,
        line=line,
        action=action,
        tool_choice=tool_choice,
        output_calls=output_calls,
    )


def api_trace(
    path: Path,
    fmt: str,
    calls: list[RecordedCall],
    model: str | None,
    warnings: list[str],
    notes: tuple[str, ...] = (),
    tool_warnings: Sequence[str] = (),
) -> Trace:
    """The trace of an API log; without ``--model`` the first model a call names. ``warnings``
    are the cut-file ones (the trace is truncated); ``tool_warnings`` are added after them."""
    if model is None:
        model = next((c.model for c in calls if c.model), None)
    return Trace(
        path=str(path),
        format=fmt,
        model=model,
        calls=tuple(calls),
        reported_totals=None,
        truncated=bool(warnings),
        warnings=(*warnings, *tool_warnings),
        notes=notes,
    )
