"""SWE-agent trajectories (``.traj``, SWE-agent 0.x): every assistant message is one API call.

A ``.traj`` file is one JSON object: ``environment``, ``trajectory`` (thought/action/observation
per step), ``history`` (every message of the conversation, each tagged with its ``agent``) and
``info.model_stats`` (run totals: ``tokens_sent``, ``tokens_received``, ``api_calls``,
``instance_cost``). SWE-agent sends the whole history before each assistant message, keeping only
``role`` and ``content`` (``history_to_messages``): the system prompt, the demonstration (a user
message with ``is_demo``), the issue and every observation and earlier response. So call *k*'s
input is every message of the primary agent before the *k*-th assistant message, and its output is
that message's ``content``. Only run totals are reported; the model is in the run's ``args.yaml``
(``agent.model.model_name``, which may be a SWE-agent shortcut such as ``gpt4``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from agentcost.errors import InputError
from agentcost.infra.validate import shown
from agentcost.replay.files import loads, read_text, reported_dollars, usage_count
from agentcost.replay.model import Message, RecordedCall, ReportedUsage, Trace

FORMAT = "swe-agent"

# SWE-agent 0.x model shortcuts (sweagent/agent/models.py, OpenAIModel/AnthropicModel.SHORTCUTS)
SHORTCUTS = {
    "gpt3": "gpt-3.5-turbo-1106",
    "gpt3-legacy": "gpt-3.5-turbo-16k-0613",
    "gpt4": "gpt-4-1106-preview",
    "gpt4-legacy": "gpt-4-0613",
    "gpt4-0125": "gpt-4-0125-preview",
    "gpt3-0125": "gpt-3.5-turbo-0125",
    "gpt4-turbo": "gpt-4-turbo-2024-04-09",
    "gpt4o": "gpt-4o-2024-05-13",
    "claude-2": "claude-2.0",
    "claude-opus": "claude-3-opus-20240229",
    "claude-sonnet": "claude-3-sonnet-20240229",
    "claude-haiku": "claude-3-haiku-20240307",
    "claude-sonnet-3.5": "claude-3-5-sonnet-20240620",
}


def looks_like(data: Any) -> bool:
    """A parsed JSON document that is a SWE-agent trajectory."""
    return (
        isinstance(data, dict)
        and isinstance(data.get("history"), list)
        and isinstance(data.get("info"), dict)
        and isinstance(data["info"].get("model_stats"), dict)
    )


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def model_from_config(path: Path) -> str:
    """The model of a SWE-agent run from its ``args.yaml`` (``agent.model.model_name``)."""
    import yaml

    from agentcost.infra.yamlread import Loader
    from agentcost.replay.files import read_small_text

    text = read_small_text(path, key="--config")
    try:  # aliases stay shared objects, and only a few keys are looked up: no alias bomb
        data = yaml.load(text, Loader=Loader)  # a safe loader: CSafeLoader or SafeLoader
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        problem = getattr(err, "problem", None)
        raise InputError(
            f"not valid YAML: {problem}" if problem else "not valid YAML",
            file=path,
            line=mark.line + 1 if mark else None,
            key="--config",
        ) from None
    except RecursionError:  # the pure-Python loader, on deep nesting
        raise InputError("not valid YAML: nested too deeply", file=path, key="--config") from None
    name = None
    if isinstance(data, dict):
        agent = data.get("agent")
        model = agent.get("model") if isinstance(agent, dict) else None
        if isinstance(model, dict):
            name = model.get("model_name") or model.get("name")
    if not isinstance(name, str) or not name:
        raise InputError("no agent.model.model_name in the SWE-agent config", file=path, key="--config")
    return model_name(name)


def model_name(name: str) -> str:
    """A SWE-agent model name as the provider knows it (shortcuts expanded, ``azure:`` dropped)."""
    name = name.strip()
    if name.startswith("azure:"):
        name = name[len("azure:") :]
    return SHORTCUTS.get(name, name)


def _scan_history(text: str) -> tuple[list[tuple[int, dict[str, Any]]], bool]:
    """The history's messages with their file offsets, read one by one; True when the array ended.

    Reading element by element keeps each message's line and salvages the complete messages of a
    file whose tail is cut.
    """
    match = re.search(r'"history"\s*:\s*\[', text)
    if match is None:
        return [], False
    decoder = json.JSONDecoder()
    pos = match.end()
    out: list[tuple[int, dict[str, Any]]] = []
    n = len(text)
    while True:
        while pos < n and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= n:
            return out, False
        if text[pos] == "]":
            return out, True
        try:
            value, end = decoder.raw_decode(text, pos)
        except (ValueError, RecursionError):  # bad JSON (json.loads of the whole file says where)
            return out, False
        if isinstance(value, dict):
            out.append((pos, value))
        pos = end


def _calls(
    path: Path, text: str, history: list[tuple[int, dict[str, Any]]], model: str | None
) -> list[RecordedCall]:
    calls: list[RecordedCall] = []
    sent: list[Message] = []
    pending: list[int] = []  # calls waiting for the observation that answers them
    for pos, entry in history:
        agent = entry.get("agent", "primary")
        if agent != "primary":
            continue
        role, content = entry.get("role"), entry.get("content")
        if not isinstance(role, str) or not isinstance(content, str):
            raise InputError(
                "a history message needs a string role and content", file=path, line=_line(text, pos)
            )
        if role == "assistant":
            action = entry.get("action")
            tool = action.split()[0] if isinstance(action, str) and action.split() else None
            calls.append(
                RecordedCall(
                    index=len(calls) + 1,
                    model=model,
                    messages=tuple(sent),
                    tools=None,
                    output_text=content,
                    reported=None,
                    line=_line(text, pos),
                    action=tool,
                )
            )
            pending = [len(calls) - 1]
        elif role == "user" and pending:
            i = pending.pop()
            c = calls[i]
            calls[i] = RecordedCall(
                c.index, c.model, c.messages, c.tools, c.output_text, c.reported, c.line, c.action, content
            )
        sent.append(Message(role, content))
    return calls


def read(path: Path, *, model: str | None = None, text: str | None = None) -> Trace:
    """Read a SWE-agent ``.traj`` file. ``model`` overrides the run config's (``--model``)."""
    if text is None:
        text = read_text(path)
    warnings: list[str] = []
    history, closed = _scan_history(text)
    try:
        data = loads(text, path)
    except json.JSONDecodeError as err:
        # the input ran out (a string never closed, or nothing after the error): a cut tail
        at_end = not text[err.pos :].strip() or err.msg.startswith("Unterminated string")
        if not at_end or not history:
            raise InputError(
                f"not valid JSON: {err.msg} (column {err.colno})", file=path, line=err.lineno
            ) from None
        calls = _calls(path, text, history, model)
        warnings.append(
            f"the file ends early at line {err.lineno} (truncated): read {len(calls)} API "
            f"call{'s' if len(calls) != 1 else ''} from {len(history)} complete history messages"
            + ("" if closed else "; the rest of the history is lost")
            + "; the run totals (info.model_stats) are missing"
        )
        return Trace(
            path=str(path),
            format=FORMAT,
            model=model,
            calls=tuple(calls),
            reported_totals=None,
            truncated=True,
            warnings=tuple(warnings),
            prefix_recorded=True,
        )
    if not looks_like(data):
        raise InputError("not a SWE-agent trajectory: expected 'history' and 'info.model_stats'", file=path)
    calls = _calls(path, text, history, model)
    stats = data["info"]["model_stats"]
    reported: ReportedUsage | None = None
    sent_, received = stats.get("tokens_sent"), stats.get("tokens_received")
    sent_count = usage_count(sent_, "info.model_stats.tokens_sent", path)  # bounded, when present
    received_count = usage_count(received, "info.model_stats.tokens_received", path)
    if sent_ is not None and received is not None:
        reported = ReportedUsage(sent_count, received_count)
    api_calls = stats.get("api_calls")
    if isinstance(api_calls, int) and api_calls != len(calls):
        warnings.append(
            f"info.model_stats.api_calls is {shown(api_calls, quote=False)} but the history has "
            f"{len(calls)} responses (requests that failed or were retried are not in the history)"
        )
    reported_cost = reported_dollars(stats.get("instance_cost"), "info.model_stats.instance_cost", path)
    return Trace(
        path=str(path),
        format=FORMAT,
        model=model,
        calls=tuple(calls),
        reported_totals=reported,
        warnings=tuple(warnings),
        prefix_recorded=True,  # the system prompt, demonstrations and commands are all in the history
        reported_cost_usd=reported_cost,
        notes=(
            "SWE-agent re-sends the whole history (system prompt, demonstration, every observation) "
            "with each call; each request is counted from role and content only, as SWE-agent sends it",
        ),
    )
