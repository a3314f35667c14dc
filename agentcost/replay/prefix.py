"""``--tools FILE`` / ``--system FILE``: the part of every request a log does not record.

API logs often leave out the tool definitions or the system prompt. When given, they are added to
each recorded request that lacks its own (a request that records a system prompt or tools keeps
them), so they are counted. Without them, the gap between reported and counted input stays
visible as an unrecorded prefix (:func:`agentcost.replay.ledger.replay`).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agentcost.errors import InputError
from agentcost.replay.files import loads, read_small_text
from agentcost.replay.trace import Message, Trace, tool_problem


def read_tools(path: Path) -> tuple[Mapping[str, Any], ...]:
    """Tool definitions from a JSON file: a list of tools, or an object with a ``tools`` list.

    Anthropic (``name``, ``description``, ``input_schema``), OpenAI chat (``{"type": "function",
    "function": {...}}``) and Responses (flat ``name`` / ``parameters``) definitions are accepted.
    """
    text = read_small_text(path, key="--tools")
    try:
        data = loads(text, path, key="--tools")
    except json.JSONDecodeError as err:
        raise InputError(f"not valid JSON: {err.msg}", file=path, line=err.lineno, key="--tools") from None
    if isinstance(data, dict) and isinstance(data.get("tools"), list):
        data = data["tools"]
    if not isinstance(data, list) or not all(isinstance(t, dict) for t in data):
        raise InputError(
            'expected a JSON list of tool definitions (or {"tools": [...]})', file=path, key="--tools"
        )
    for i, tool in enumerate(data):
        problem = tool_problem(tool)
        if problem is not None:
            raise InputError(f"tool {i + 1}: {problem}", file=path, key="--tools")
    return tuple(data)


def read_system(path: Path) -> str:
    return read_small_text(path, key="--system")


def add_prefix(trace: Trace, *, tools: Path | None = None, system: Path | None = None) -> Trace:
    """``trace`` with the tools / system prompt of the files added to requests that lack them."""
    if tools is None and system is None:
        return trace
    defs = read_tools(tools) if tools is not None else None
    prompt = read_system(system) if system is not None else None
    calls = []
    added_tools = added_system = 0
    for call in trace.calls:
        if call.messages is None:
            calls.append(call)
            continue
        messages, call_tools = call.messages, call.tools
        if prompt and not any(m.role in ("system", "developer") for m in messages):
            messages = (Message("system", prompt), *messages)
            added_system += 1
        if defs and not call_tools:
            call_tools = defs
            added_tools += 1
        calls.append(dataclasses.replace(call, messages=messages, tools=call_tools))
    notes = list(trace.notes)
    if tools is not None:
        notes.append(f"--tools {tools}: {len(defs or ())} tool definitions added to {added_tools} requests")
    if system is not None:
        notes.append(f"--system {system}: system prompt added to {added_system} requests")
    return dataclasses.replace(trace, calls=tuple(calls), notes=tuple(notes))
