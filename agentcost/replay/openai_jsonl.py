"""OpenAI API logs as JSON Lines: Chat Completions (``openai-chat-jsonl``) and Responses
(``openai-responses-jsonl``), one API call per line.

Chat Completions: ``{"request": {"model", "messages", "tools"}, "response": {"choices", "usage":
{"prompt_tokens", "completion_tokens", "prompt_tokens_details": {"cached_tokens"}}}}``.
Responses: ``{"request": {"model", "instructions", "input", "tools"}, "response": {"output",
"usage": {"input_tokens", "output_tokens", "input_tokens_details": {"cached_tokens"}}}}``.
OpenAI's prompt/input tokens INCLUDE the cached ones, as :class:`ReportedUsage` wants. A bare
response line (usage only) is accepted: reported, with nothing to count. Responses ``instructions``
are counted as a system message at the head of the input.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from agentcost.errors import InputError
from agentcost.replay.jsonl import api_call, api_trace, dump, obj, records, whole
from agentcost.replay.media import content_kinds
from agentcost.replay.tool_ids import ToolIds, id_key
from agentcost.replay.trace import Message, RecordedCall, ReportedUsage, ToolPart, Trace

CHAT = "openai-chat-jsonl"
RESPONSES = "openai-responses-jsonl"


def sniff(line: Mapping[str, Any]) -> str | None:
    """``CHAT`` or ``RESPONSES`` for a first log line of either shape, else None."""
    response = obj(line.get("response")) if "response" in line else line
    request = obj(line.get("request"))
    usage = obj(response.get("usage"))
    if "prompt_tokens" in usage or response.get("object") == "chat.completion":
        return CHAT
    if response.get("object") == "response" or "input" in request or "instructions" in request:
        return RESPONSES
    if "input_tokens" in usage and ("input_tokens_details" in usage or "total_tokens" in usage):
        return RESPONSES
    if isinstance(response.get("choices"), list):
        return CHAT
    return None


def _parts_text(content: Any) -> str:
    """Text of message content: a string, or a list of parts (text / input_text / output_text)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        out = []
        for part in content:
            p = obj(part)
            if isinstance(p.get("text"), str):
                out.append(p["text"])
            elif isinstance(p.get("refusal"), str):
                out.append(p["refusal"])
        return "\n".join(out)
    return ""


def _tool_calls_text(calls: Any) -> tuple[str, str | None]:
    """Compact text of assistant ``tool_calls`` (name + arguments) and the first tool's name."""
    if not isinstance(calls, list):
        return "", None
    texts, first = [], None
    for c in calls:
        fn = obj(obj(c).get("function"))
        name = str(fn.get("name") or "")
        first = first or name or None
        texts.append(f"{name}({dump(fn.get('arguments', ''))})")
    return "\n".join(texts), first


def tool_calls(calls: Any) -> tuple[ToolPart, ...]:
    """Assistant ``tool_calls`` (Chat Completions) as tool calls: name and arguments as sent."""
    if not isinstance(calls, list):
        return ()
    return tuple(
        ToolPart(str(fn.get("name") or ""), dump(fn.get("arguments", "")))
        for fn in (obj(obj(c).get("function")) for c in calls)
    )


def _call_names(raw: list[Any]) -> dict[str, str]:
    """The tool each ``tool_calls`` id of the messages calls (a ``role: tool`` message names only the id)."""
    return {
        str(obj(c).get("id")): str(obj(obj(c).get("function")).get("name") or "")
        for m in raw
        for c in _list(obj(m).get("tool_calls"))
    }


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _chat_message(
    m: Mapping[str, Any], path: Path, line: int, names: Mapping[str, str] | None = None
) -> Message:
    """A chat message: its text, its ``tool_calls`` as calls, and its ``name`` (a ``role: tool``
    message: the tool of the call it answers, from ``names``, when known)."""
    role = m.get("role")
    if not isinstance(role, str):
        raise InputError("a message needs a role", file=path, line=line)
    text = _parts_text(m.get("content"))
    name = m.get("name")
    if role == "tool":
        name = (names or {}).get(str(m.get("tool_call_id"))) or name
    return Message(
        role,
        text,
        name if isinstance(name, str) else None,
        calls=tool_calls(m.get("tool_calls")),
        uncounted=content_kinds(m.get("content")),
    )


def _responses_items(request: Mapping[str, Any], path: Path, line: int) -> list[Message]:
    sent: list[Message] = []
    instructions = request.get("instructions")
    if isinstance(instructions, str) and instructions:
        sent.append(Message("system", instructions))
    raw = request.get("input")
    if isinstance(raw, str):
        sent.append(Message("user", raw))
        return sent
    if not isinstance(raw, list):
        raise InputError("request.input must be a string or a list", file=path, line=line)
    names = {
        str(obj(i).get("call_id")): str(obj(i).get("name") or "")
        for i in raw
        if obj(i).get("type") == "function_call"
    }
    for item in raw:
        it = obj(item)
        kind = it.get("type", "message")
        if kind == "message" or "role" in it:
            role = it.get("role")
            if not isinstance(role, str):
                raise InputError("an input message needs a role", file=path, line=line)
            content = it.get("content")
            sent.append(Message(role, _parts_text(content), uncounted=content_kinds(content)))
        elif kind == "function_call":  # with the assistant text before it: one message
            part = ToolPart(str(it.get("name") or ""), dump(it.get("arguments", "")))
            if sent and sent[-1].role == "assistant":  # its text and parallel calls: one message
                sent[-1] = replace(sent[-1], calls=(*sent[-1].calls, part))
            else:
                sent.append(Message("assistant", "", calls=(part,)))
        elif kind == "function_call_output":
            name = names.get(str(it.get("call_id")), "")
            sent.append(Message("tool", dump(it.get("output", "")), name or None))
    return sent


def _responses_output(output: Any) -> tuple[str | None, tuple[ToolPart, ...], str | None]:
    """A Responses output: its text, its function calls and the first call's tool."""
    if not isinstance(output, list):
        return None, (), None
    texts, calls = [], []
    for item in output:
        it = obj(item)
        if it.get("type") == "message":
            texts.append(_parts_text(it.get("content")))
        elif it.get("type") == "function_call":
            calls.append(ToolPart(str(it.get("name") or ""), dump(it.get("arguments", ""))))
    action = next((c.name for c in calls if c.name), None)
    return "\n".join(t for t in texts if t), tuple(calls), action


def _call_ids(calls: Any) -> list[Any]:
    """The ids of assistant ``tool_calls`` (Chat Completions)."""
    return [obj(c).get("id") for c in calls] if isinstance(calls, list) else []


def _check_chat(ids: ToolIds, index: int, raw: list[Any]) -> None:
    """Every ``role: tool`` message answers a ``tool_calls`` id of the preceding assistant message."""
    ids.check(
        index,
        (
            (
                obj(m).get("role") == "assistant",
                _call_ids(obj(m).get("tool_calls")),
                [obj(m).get("tool_call_id")] if obj(m).get("role") == "tool" else [],
            )
            for m in raw
        ),
    )


def _output_call_ids(output: Any) -> list[Any]:
    """The ``call_id`` of every ``function_call`` item of a Responses output (or input) list."""
    if not isinstance(output, list):
        return []
    return [obj(i).get("call_id") for i in output if obj(i).get("type") == "function_call"]


def _check_responses(ids: ToolIds, index: int, request: Mapping[str, Any], previous: Any) -> None:
    """Every ``function_call_output`` answers a ``function_call`` before it in the input, or one of
    the previous response's (``previous``: its output, None when the log has no previous call)."""
    chained = request.get("previous_response_id") is not None
    if chained and previous is None:
        return  # the response it continues is not in the log: nothing to match against
    called = {id_key(c) for c in _output_call_ids(previous)} if chained else set()
    raw = request.get("input")
    for item in raw if isinstance(raw, list) else ():
        it = obj(item)
        if it.get("type") == "function_call":
            called.add(id_key(it.get("call_id")))
        elif it.get("type") == "function_call_output":
            ids.result(index, it.get("call_id"), called)


def _halt(fmt: str, response: Mapping[str, Any]) -> tuple[str, list[Any]] | None:
    """Why a response asks for a tool (``finish_reason`` tool_calls, or tool calls when no
    finish_reason is recorded; Responses: a function_call output item) and the ids, or None."""
    if fmt == RESPONSES:
        ids = _output_call_ids(response.get("output"))
        return ("a function_call output item", ids) if ids else None
    choices = response.get("choices")
    choice = obj(choices[0]) if isinstance(choices, list) and choices else {}
    ids = _call_ids(obj(choice.get("message")).get("tool_calls"))
    reason = choice.get("finish_reason")
    if reason == "tool_calls":
        return "finish_reason tool_calls", ids
    return ("a tool_calls message", ids) if reason is None and ids else None


def _usage(fmt: str, usage: Mapping[str, Any], path: Path, line: int) -> ReportedUsage:
    if fmt == CHAT:
        inp, out, details = "prompt_tokens", "completion_tokens", "prompt_tokens_details"
    else:
        inp, out, details = "input_tokens", "output_tokens", "input_tokens_details"
    cached = whole(obj(usage.get(details)).get("cached_tokens"), f"usage.{details}.cached_tokens", path, line)
    total = whole(usage.get(inp), f"usage.{inp}", path, line)
    if cached > total:
        raise InputError(f"usage.{details}.cached_tokens exceeds usage.{inp}", file=path, line=line)
    return ReportedUsage(total, whole(usage.get(out), f"usage.{out}", path, line), cached)


def _tools(raw: Any) -> tuple[Mapping[str, Any], ...] | None:
    """Function tools only (chat ``{"type": "function", "function": {...}}`` or Responses' flat form)."""
    if not isinstance(raw, list):
        return None
    tools = tuple(
        obj(t)
        for t in raw
        if obj(t).get("type", "function") == "function" and ("function" in obj(t) or "name" in obj(t))
    )
    return tools or None


def read(path: Path, *, text: str, fmt: str, model: str | None = None) -> Trace:
    """Read an OpenAI Chat Completions or Responses JSONL log. ``model`` overrides the log's."""
    warnings: list[str] = []
    calls: list[RecordedCall] = []
    ids = ToolIds()
    halt: tuple[str, list[Any]] | None = None
    previous: Any = None  # the previous response's output (Responses), None before the first
    for n, line in records(path, text, warnings):
        bare = "request" not in line and "response" not in line
        response = line if bare else obj(line.get("response"))
        request = None if bare else obj(line.get("request"))
        usage = response.get("usage")
        reported = _usage(fmt, usage, path, n) if isinstance(usage, dict) else None
        messages: tuple[Message, ...] | None = None
        tools = None
        if request:
            if fmt == CHAT:
                raw = request.get("messages")
                if not isinstance(raw, list):
                    raise InputError("request.messages must be a list", file=path, line=n)
                names = _call_names(raw)
                messages = tuple(_chat_message(obj(m), path, n, names) for m in raw)
                _check_chat(ids, len(calls) + 1, raw)
            else:
                messages = tuple(_responses_items(request, path, n))
                _check_responses(ids, len(calls) + 1, request, previous if calls else None)
            tools = _tools(request.get("tools"))
        # a forced tool (tool_choice required / a named function) answers a structured-output call
        forced = request is not None and (
            request.get("tool_choice") == "required" or obj(request.get("tool_choice"))
        )
        halt = _halt(fmt, response) if not forced else None
        previous = response.get("output")
        output: str | None = None
        action: str | None = None
        out_calls: tuple[ToolPart, ...] = ()
        if fmt == CHAT:
            choices = response.get("choices")
            if isinstance(choices, list) and choices:
                msg = obj(obj(choices[0]).get("message"))
                _, action = _tool_calls_text(msg.get("tool_calls"))
                output, out_calls = _parts_text(msg.get("content")), tool_calls(msg.get("tool_calls"))
        else:
            output, out_calls, action = _responses_output(response.get("output"))
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
            output_calls=out_calls,
        )
        calls.append(recorded)
    halted = (len(calls), *halt) if halt is not None and calls and not warnings else None
    return api_trace(path, fmt, calls, model, warnings, tool_warnings=ids.warnings(halted))
