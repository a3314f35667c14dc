"""Anthropic Messages API logs as JSON Lines (``anthropic-jsonl``): one API call per line.

A line is ``{"request": {...}, "response": {...}}``: the request body as sent (``model``,
``system``, ``tools``, ``tool_choice``, ``messages``) and the Message that came back (``content``,
``usage``). A bare response line (the Message itself, or just ``{"usage": {...}}``) is accepted
too: its usage is reported but there is no request to count.

Anthropic's ``usage.input_tokens`` EXCLUDES cached tokens: the prompt is ``input_tokens +
cache_read_input_tokens + cache_creation_input_tokens``, which is what :class:`ReportedUsage`
(every prompt token) gets. ``usage.cache_creation.ephemeral_5m_input_tokens`` /
``ephemeral_1h_input_tokens``, when present, split the writes by TTL.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from agentcost.errors import InputError
from agentcost.prices.billing import anthropic_extras
from agentcost.replay.jsonl import api_call, api_trace, dump, obj, records, whole
from agentcost.replay.media import content_kinds, text_document
from agentcost.replay.tool_ids import ToolIds
from agentcost.replay.trace import Message, RecordedCall, ReportedUsage, ToolPart, Trace

FORMAT = "anthropic-jsonl"


def looks_like(line: Mapping[str, Any]) -> bool:
    """A first log line that is an Anthropic Messages call (or a bare Anthropic response)."""
    response = obj(line.get("response")) if "response" in line else line
    request = obj(line.get("request"))
    usage = obj(response.get("usage"))
    if usage:
        return (
            "input_tokens" in usage
            and "total_tokens" not in usage
            and "input_tokens_details" not in usage
            and "input" not in request
        )
    if response.get("type") == "message" and isinstance(response.get("content"), list):
        return True
    return isinstance(request.get("messages"), list) and ("system" in request or "max_tokens" in request)


def _block_text(block: Any) -> tuple[str, str | None]:
    """The text of one content block, and the name of the tool it calls (tool_use blocks)."""
    if isinstance(block, str):
        return block, None
    b = obj(block)
    kind = b.get("type")
    if kind == "text":
        return str(b.get("text") or ""), None
    if kind == "tool_use":
        return dump(b.get("input", {})), str(b.get("name") or "")
    if kind == "tool_result":
        return _content_text(b.get("content")), None
    if kind == "thinking":
        return str(b.get("thinking") or ""), None
    if kind == "document" and text_document(b):  # a plain-text document: its text is sent
        source = obj(b.get("source"))
        return (str(source.get("data") or "") or _content_text(source.get("content"))), None
    if kind == "search_result":
        return _content_text(b.get("content")), None
    return "", None  # images, PDFs, server-tool blocks: not counted (agentcost.replay.media)


def _content_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(t for t in (_block_text(b)[0] for b in content) if t)
    return ""


def _message(role: str, content: Any, names: Mapping[str, str]) -> Message:
    """A message as it was sent: its ``tool_use`` blocks as calls, its ``tool_result`` blocks as
    results (named by the ``tool_use`` they answer, from ``names``), the other blocks as its text."""
    if not isinstance(content, list):
        return Message(role, _content_text(content))
    uncounted = content_kinds(content)
    texts: list[str] = []
    calls: list[ToolPart] = []
    results: list[ToolPart] = []
    for block in content:
        b = obj(block)
        kind = b.get("type") if not isinstance(block, str) else "text"
        if kind == "tool_use":
            calls.append(ToolPart(str(b.get("name") or ""), dump(b.get("input", {}))))
        elif kind == "tool_result":
            name = names.get(str(b.get("tool_use_id")), "")
            results.append(ToolPart(name, _content_text(b.get("content"))))
        else:
            text = _block_text(block)[0]
            if text:
                texts.append(text)
    return Message(role, "\n".join(texts), calls=tuple(calls), results=tuple(results), uncounted=uncounted)


def _tool_names(raw: list[Any]) -> dict[str, str]:
    """The tool each ``tool_use`` id of the messages calls."""
    names: dict[str, str] = {}
    for m in raw:
        content = obj(m).get("content")
        for b in content if isinstance(content, list) else []:
            if obj(b).get("type") == "tool_use":
                names[str(obj(b).get("id"))] = str(obj(b).get("name") or "")
    return names


def _tool_results(content: Any) -> str | None:
    if not isinstance(content, list):
        return None
    parts = [_content_text(obj(b).get("content")) for b in content if obj(b).get("type") == "tool_result"]
    return "\n".join(parts) if parts else None


def _block_ids(content: Any, kind: str, key: str) -> list[Any]:
    """The ``key`` of every ``kind`` block of message content (tool_use ids, tool_result ids)."""
    if not isinstance(content, list):
        return []
    return [obj(b).get(key) for b in content if obj(b).get("type") == kind]


def _halt(response: Mapping[str, Any]) -> tuple[str, list[Any]] | None:
    """Why a response asks for a tool (``stop_reason`` tool_use, or tool_use blocks when no
    stop_reason is recorded) and the ids it calls, or None."""
    ids = _block_ids(response.get("content"), "tool_use", "id")
    stop = response.get("stop_reason")
    if stop == "tool_use":
        return "stop_reason tool_use", ids
    return ("a tool_use block", ids) if stop is None and ids else None


def reported_usage(usage: Mapping[str, Any], path: Path, line: int) -> ReportedUsage:
    """Anthropic usage as :class:`ReportedUsage` (input = uncached + cache reads + cache writes)."""
    fresh = whole(usage.get("input_tokens"), "usage.input_tokens", path, line)
    read = whole(usage.get("cache_read_input_tokens"), "usage.cache_read_input_tokens", path, line)
    written = whole(usage.get("cache_creation_input_tokens"), "usage.cache_creation_input_tokens", path, line)
    split = obj(usage.get("cache_creation"))
    w5 = whole(
        split.get("ephemeral_5m_input_tokens"), "usage.cache_creation.ephemeral_5m_input_tokens", path, line
    )
    w1h = whole(
        split.get("ephemeral_1h_input_tokens"), "usage.cache_creation.ephemeral_1h_input_tokens", path, line
    )
    if split and w5 + w1h != written and written:
        raise InputError(
            f"usage.cache_creation splits {w5 + w1h:,} tokens but cache_creation_input_tokens is {written:,}",
            file=path,
            line=line,
        )
    if not split or (w5 + w1h == 0 and written):
        w5, w1h = written, 0
    return ReportedUsage(
        input_tokens=fresh + read + w5 + w1h,
        output_tokens=whole(usage.get("output_tokens"), "usage.output_tokens", path, line),
        cache_read_tokens=read,
        cache_write_tokens=w5,
        cache_write_1h_tokens=w1h,
        **anthropic_extras(usage, lambda value, key: whole(value, key, path, line), "usage"),
    )


def read(path: Path, *, text: str, model: str | None = None) -> Trace:
    """Read an Anthropic Messages API JSONL log. ``model`` (``--model``) overrides the log's."""
    warnings: list[str] = []
    calls: list[RecordedCall] = []
    ids = ToolIds()
    halt: tuple[str, list[Any]] | None = None
    for n, line in records(path, text, warnings):
        bare = "request" not in line and "response" not in line
        response = line if bare else obj(line.get("response"))
        request = None if bare else obj(line.get("request"))
        usage = response.get("usage")
        reported = reported_usage(usage, path, n) if isinstance(usage, dict) else None
        messages: tuple[Message, ...] | None = None
        tools: tuple[Mapping[str, Any], ...] | None = None
        tool_choice: str | None = None
        if request:
            raw = request.get("messages")
            if not isinstance(raw, list):
                raise InputError("request.messages must be a list", file=path, line=n)
            sent: list[Message] = []
            system = _content_text(request.get("system"))
            if system:
                sent.append(Message("system", system))
            names = _tool_names(raw)
            for m in raw:
                m = obj(m)
                role = m.get("role")
                if not isinstance(role, str):
                    raise InputError("a message needs a role", file=path, line=n)
                sent.append(_message(role, m.get("content"), names))
            messages = tuple(sent)
            ids.check(
                len(calls) + 1,
                (
                    (
                        obj(m).get("role") == "assistant",
                        _block_ids(obj(m).get("content"), "tool_use", "id"),
                        _block_ids(obj(m).get("content"), "tool_result", "tool_use_id"),
                    )
                    for m in raw
                ),
            )
            if isinstance(request.get("tools"), list) and request["tools"]:
                tools = tuple(obj(t) for t in request["tools"] if "name" in obj(t))
            choice = obj(request.get("tool_choice")).get("type")
            tool_choice = choice if isinstance(choice, str) else None
            # the tool results this request sends answer the previous call's tool_use
            results = _tool_results(obj(raw[-1]).get("content")) if raw else None
            if results is not None and calls and calls[-1].result_text is None:
                calls[-1] = replace(calls[-1], result_text=results)
        # a forced tool (tool_choice any / tool) is how a structured-output call answers: no halt
        halt = _halt(response) if tool_choice not in ("any", "tool") else None
        content = response.get("content")
        answer = _message("assistant", content, {}) if isinstance(content, list | str) else None
        output = answer.text if answer is not None else None
        action = None
        if isinstance(content, list):
            action = next((name for _, name in map(_block_text, content) if name), None)
        recorded = api_call(
            calls,
            path=path,
            line=n,
            request=request,
            response=response,
            messages=messages,
            tools=tools,
            output=output,
            reported=reported,
            action=action,
            tool_choice=tool_choice,
            output_calls=answer.calls if answer is not None else (),
        )
        calls.append(recorded)
    notes = (
        "Anthropic input_tokens exclude cached tokens: reported input = input_tokens + "
        "cache_read_input_tokens + cache_creation_input_tokens",
    )
    halted = (len(calls), *halt) if halt is not None and calls and not warnings else None
    return api_trace(path, FORMAT, calls, model, warnings, notes, ids.warnings(halted))
