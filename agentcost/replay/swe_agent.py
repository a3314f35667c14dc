"""SWE-agent trajectories (``.traj``, SWE-agent 0.x and 1.x): every assistant message is one API call.

A ``.traj`` file is one JSON object: ``environment``, ``trajectory`` (thought/action/observation
per step), ``history`` (every message of the conversation, each tagged with its ``agent``) and
``info.model_stats`` (run totals: ``tokens_sent``, ``tokens_received``, ``api_calls``,
``instance_cost``). SWE-agent 0.x sends the whole history before each assistant message, keeping only
``role`` and ``content`` (``history_to_messages``): the system prompt, the demonstration (a user
message with ``is_demo``), the issue and every observation and earlier response. So call *k*'s
input is every message of the primary agent before the *k*-th assistant message, and its output is
that message's ``content``. Only run totals are reported, by the API; the model is in the run's
``args.yaml`` (``agent.model.model_name``, which may be a SWE-agent shortcut such as ``gpt4``).

SWE-agent 1.x tags messages ``agent: main`` and adds ``message_type``; with function calling an
assistant message carries ``tool_calls`` and the observation is a ``role: tool`` message with
``tool_call_ids``. Each request is the agent's history after its history processors
(``last_n_observations`` elides old observations), sent in the OpenAI chat format
(``LiteLLMModel._history_to_messages``), or the step's recorded ``query`` when the trajectory has
one. The model is ``replay_config`` (a dict, or a JSON string) ``agent.model.name``. Its
``model_stats`` are counted locally by litellm (without tool definitions and tool-call arguments),
not reported by the API; a replayed run stores zeros. The tool definitions are not in the file.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

from agentcost.errors import InputError
from agentcost.infra.record import record
from agentcost.infra.validate import shown
from agentcost.replay.files import loads, read_text, reported_dollars, usage_count
from agentcost.replay.trace import Message, RecordedCall, ReportedUsage, ToolPart, Trace

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

    from agentcost.infra.yamlread import Loader, unquoted_problem
    from agentcost.replay.files import read_small_text

    text = read_small_text(path, key="--config")
    try:  # aliases stay shared objects, and only a few keys are looked up: no alias bomb
        data = yaml.load(text, Loader=Loader)  # a safe loader: CSafeLoader or SafeLoader
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        problem = getattr(err, "problem", None)
        raise InputError(
            f"not valid YAML: {unquoted_problem(problem)}" if problem else "not valid YAML",  # never quoted
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


# ---------------------------------------------------------------------------------------------
# SWE-agent 1.x
# ---------------------------------------------------------------------------------------------


def is_1x(history: list[tuple[int, dict[str, Any]]], data: Any = None) -> bool:
    """A SWE-agent 1.x trajectory: a ``replay_config``, or history messages with ``message_type``,
    ``tool_calls``, ``role: tool`` or an agent other than 0.x's ``primary``."""
    if isinstance(data, dict) and "replay_config" in data:
        return True
    return any(
        "message_type" in e
        or "tool_calls" in e
        or e.get("role") == "tool"
        or e.get("agent", "primary") != "primary"
        for _, e in history
    )


def run_config(data: Any, path: Path, warnings: list[str]) -> dict[str, Any]:
    """``replay_config`` as a dict (SWE-agent writes a dict, or since 1.0 a JSON string); {} when absent."""
    raw = data.get("replay_config") if isinstance(data, dict) else None
    if isinstance(raw, str):
        try:
            raw = loads(raw, path, key="replay_config")
        except (json.JSONDecodeError, RecursionError):
            warnings.append("replay_config is not valid JSON: its model and history processors are not read")
            return {}
    return raw if isinstance(raw, dict) else {}


def _agent_config(config: dict[str, Any]) -> dict[str, Any]:
    agent = config.get("agent")
    return agent if isinstance(agent, dict) else {}


def config_model(config: dict[str, Any]) -> str | None:
    """The model of a 1.x run config: ``agent.model.name``."""
    model = _agent_config(config).get("model")
    name = model.get("name") if isinstance(model, dict) else None
    return model_name(name) if isinstance(name, str) and name.strip() else None


@record
class _Processors:
    """The history processors of a 1.x run that change what is sent."""

    last_n: int | None = None  # last_n_observations: n
    polling: int = 1
    system_as_user: bool = False  # agent.model.convert_system_to_user
    skipped: tuple[str, ...] = ()  # processors not replayed


def _processors(config: dict[str, Any]) -> _Processors:
    agent = _agent_config(config)
    raw = agent.get("history_processors", agent.get("history_processor"))
    items = raw if isinstance(raw, list) else [raw] if isinstance(raw, dict) else []
    last_n, polling, skipped = None, 1, []
    for item in items:
        kind = item.get("type", "default") if isinstance(item, dict) else None
        if kind == "last_n_observations" and isinstance(item, dict):
            n, poll = item.get("n"), item.get("polling", 1)
            if isinstance(n, int) and not isinstance(n, bool) and n > 0:
                last_n = n
                polling = poll if isinstance(poll, int) and not isinstance(poll, bool) and poll > 0 else 1
        elif kind not in ("default", "cache_control"):  # cache_control marks do not change the text
            skipped.append(str(kind))
    model = agent.get("model")
    system_as_user = isinstance(model, dict) and model.get("convert_system_to_user") is True
    return _Processors(last_n, polling, system_as_user, tuple(skipped))


def _content_text(content: Any) -> str:
    """A history message's text: a string, or a list of ``{"type": "text", "text"}`` parts."""
    from agentcost.replay.openai_jsonl import _parts_text

    return _parts_text(content)


def _elided(entries: list[dict[str, Any]], proc: _Processors) -> set[int]:
    """Indices of ``entries`` (one request's history) whose observation ``last_n_observations``
    replaces by a line count (SWE-agent ``LastNObservations._get_omit_indices``)."""
    if proc.last_n is None:
        return set()
    observations = [
        i
        for i, e in enumerate(entries)
        if e.get("message_type") == "observation" and not e.get("is_demo", False)
    ]
    last_removed = max(0, (len(observations) // proc.polling) * proc.polling - proc.last_n)
    out = set()
    for i in observations[1:last_removed]:  # the first observation (the task) is never elided
        if "keep_output" not in (entries[i].get("tags") or ()):
            out.add(i)
    out.update(
        i
        for i, e in enumerate(entries)
        if e.get("message_type") == "observation" and "remove_output" in (e.get("tags") or ())
    )
    return out


def _chat_row(entry: dict[str, Any], proc: _Processors, *, elide: bool = False) -> dict[str, Any]:
    """A history message as SWE-agent 1.x sends it (``LiteLLMModel._history_to_messages``)."""
    role = entry.get("role")
    if role == "system" and proc.system_as_user:
        role = "user"
    content = entry.get("content")
    if elide:
        content = f"Old environment output: ({len(_content_text(content).splitlines())} lines omitted)"
    row: dict[str, Any] = {"role": role, "content": content}
    if role != "tool" and entry.get("tool_calls") is not None:
        row["tool_calls"] = entry["tool_calls"]
    return row


def _message(
    entry: dict[str, Any], proc: _Processors, path: Path, line: int, *, elide: bool = False
) -> Message:
    """One message of a request, with the OpenAI chat log's rules (tool calls as ``name(arguments)``)."""
    from agentcost.replay.openai_jsonl import _chat_message

    return _chat_message(_chat_row(entry, proc, elide=elide), path, line)


def _check_entry(entry: dict[str, Any], path: Path, line: int) -> None:
    content = entry.get("content")
    if not isinstance(entry.get("role"), str) or not (content is None or isinstance(content, str | list)):
        raise InputError(
            "a history message needs a string role and a string (or list of parts) content",
            file=path,
            line=line,
        )


def _tool_name(entry: dict[str, Any]) -> str | None:
    """The tool an assistant message called: its first tool call, else its ``action``'s first word."""
    from agentcost.replay.openai_jsonl import _tool_calls_text

    _, first = _tool_calls_text(entry.get("tool_calls"))
    if first:
        return first
    action = entry.get("action")
    return action.split()[0] if isinstance(action, str) and action.split() else None


def _output_calls(entry: dict[str, Any]) -> tuple[ToolPart, ...]:
    """The response's tool calls, counted as estimate counts a round's (issue 17)."""
    from agentcost.replay.openai_jsonl import tool_calls

    return tool_calls(entry.get("tool_calls"))


def _calls_1x(
    path: Path,
    text: str,
    history: list[tuple[int, dict[str, Any]]],
    model: str | None,
    proc: _Processors,
    queries: list[list[Any]] | None,
    last_step: dict[str, Any] | None = None,
) -> list[RecordedCall]:
    """One call per assistant message of the main agent (the agent of the first message), and one
    for ``last_step``, a trajectory step the history lacks (some versions record the final
    ``submit`` only in ``trajectory``): its request is the whole history, its output the response.

    ``queries``: the steps' recorded requests (``trajectory[k].query``), used when there is one per
    call; else each request is the history before the call, after ``last_n_observations``.
    """
    name = history[0][1].get("agent", "main") if history else "main"
    entries = [(pos, e) for pos, e in history if e.get("agent", name) == name]
    for pos, e in entries:
        _check_entry(e, path, _line(text, pos))
    plain = [_message(e, proc, path, _line(text, pos)) for pos, e in entries]
    answers = [i for i, (_, e) in enumerate(entries) if e.get("role") == "assistant"]
    if last_step is not None:
        answers.append(len(entries))
        step_entry: dict[str, Any] = {"role": "assistant", "content": last_step.get("response")}
        action = last_step.get("action")
        if isinstance(action, str):
            step_entry["action"] = action
        entries = [*entries, (entries[-1][0] if entries else 0, step_entry)]
        plain.append(Message("assistant", ""))  # never sent: it is the last call's own output
    use_queries = queries is not None and len(queries) == len(answers)
    calls: list[RecordedCall] = []
    for k, i in enumerate(answers):
        pos, entry = entries[i]
        line = _line(text, pos)
        if use_queries and queries is not None:
            sent = [q for q in queries[k] if isinstance(q, dict)]
            for q in sent:
                _check_entry(q, path, line)
            messages = tuple(_message(q, proc, path, line) for q in sent)
        else:
            before = [e for _, e in entries[:i]]
            elided = _elided(before, proc)
            messages = tuple(
                _message(e, proc, path, line, elide=True) if j in elided else plain[j]
                for j, e in enumerate(before)
            )
        nxt = entries[i + 1][1] if i + 1 < len(entries) else None
        result = None
        if nxt is not None and nxt.get("role") in ("tool", "user"):
            result = _content_text(nxt.get("content"))
        calls.append(
            RecordedCall(
                index=k + 1,
                model=model,
                messages=messages,
                tools=None,
                output_text=_content_text(entry.get("content")),
                output_calls=_output_calls(entry),
                reported=None,
                line=line,
                action=_tool_name(entry),
                result_text=result,
            )
        )
    return calls


def _queries(data: Any) -> list[list[Any]] | None:
    """Every trajectory step's recorded request (``query``, SWE-agent 1.x since 2025), or None."""
    steps = data.get("trajectory") if isinstance(data, dict) else None
    if not isinstance(steps, list) or not steps:
        return None
    out = [
        s["query"] for s in steps if isinstance(s, dict) and isinstance(s.get("query"), list) and s["query"]
    ]
    return out if len(out) == len(steps) else None


def _read_1x(
    path: Path,
    text: str,
    data: Any,
    history: list[tuple[int, dict[str, Any]]],
    model: str | None,
    beside: Path | None,
    *,
    tools_given: bool = False,
) -> Trace:
    warnings: list[str] = []
    config = run_config(data, path, warnings)
    model = model or config_model(config) or (model_from_config(beside) if beside is not None else None)
    proc = _processors(config)
    queries = _queries(data)
    steps = data.get("trajectory")
    agent = history[0][1].get("agent", "main") if history else "main"
    answers = sum(1 for _, e in history if e.get("role") == "assistant" and e.get("agent", agent) == agent)
    last = steps[-1] if isinstance(steps, list) and len(steps) == answers + 1 else None
    last_step = last if isinstance(last, dict) and isinstance(last.get("response"), str) else None
    calls = _calls_1x(path, text, history, model, proc, queries, last_step)
    if last_step is not None:
        warnings.append(
            f"the last step (call {len(calls)}) is in 'trajectory' but not in 'history': its request is "
            "counted as the whole history, its output from the step's response (tool-call arguments "
            "not recorded)"
        )
    notes = [
        "SWE-agent 1.x: each request is counted as the OpenAI chat format carries it (tool calls as "
        "name + arguments, tool results as tool messages), with the rules OpenAI logs use"
    ]
    if not tools_given:
        notes.append(
            "the tool definitions sent with each request are not in the trajectory and are not "
            "counted (pass --tools FILE to add them)"
        )
    if queries is not None and len(queries) == len(calls):
        notes.append("each request is the step's recorded query")
    elif proc.last_n is not None:
        notes.append(
            f"history processor last_n_observations (n={proc.last_n}) replayed: observations before the "
            "last n are sent as 'Old environment output: (N lines omitted)'"
        )
    if proc.skipped:
        warnings.append(
            "history processors not replayed (their changes to the requests are not counted): "
            + ", ".join(shown(k, quote=False) for k in proc.skipped)
        )
    totals, cost = _model_stats(data, path, len(calls), warnings)
    local = totals is not None and bool(totals.input_tokens or totals.output_tokens)
    reported = totals if local else None
    if local:
        notes.append(
            "info.model_stats is SWE-agent's local count (litellm, without tool definitions and "
            "tool-call arguments), not usage reported by the API"
        )
    else:
        notes.append(
            "info.model_stats holds no token counts (a replayed run stores zeros): nothing to compare"
        )
    return Trace(
        path=str(path),
        format=FORMAT,
        model=model,
        calls=tuple(calls),
        reported_totals=reported,
        warnings=tuple(warnings),
        prefix_recorded=False,  # the tool definitions are not recorded
        reported_cost_usd=cost if local else None,
        notes=tuple(notes),
        reported_kind="local_count" if local else "none",
        **exit_status(data),
    )


def _model_stats(
    data: dict[str, Any], path: Path, calls: int, warnings: list[str]
) -> tuple[ReportedUsage | None, Decimal | None]:
    """``info.model_stats``: the run's token totals (None unless both are given) and its dollars,
    each bounded; a warning when ``api_calls`` differs from the ``calls`` the history holds."""
    stats = data["info"]["model_stats"]
    sent, received = stats.get("tokens_sent"), stats.get("tokens_received")
    sent_count = usage_count(sent, "info.model_stats.tokens_sent", path)  # bounded, when present
    received_count = usage_count(received, "info.model_stats.tokens_received", path)
    api_calls = stats.get("api_calls")
    if isinstance(api_calls, int) and api_calls != calls:
        warnings.append(
            f"info.model_stats.api_calls is {shown(api_calls, quote=False)} but the history has "
            f"{calls} responses (requests that failed or were retried are not in the history)"
        )
    cost = reported_dollars(stats.get("instance_cost"), "info.model_stats.instance_cost", path)
    totals = ReportedUsage(sent_count, received_count) if sent is not None and received is not None else None
    return totals, cost


def read(
    path: Path,
    *,
    model: str | None = None,
    text: str | None = None,
    beside: Path | None = None,
    tools: Path | None = None,
    system: Path | None = None,
) -> Trace:
    """Read a SWE-agent ``.traj`` file. ``model`` (``--model`` or ``--config``) overrides the file's
    (1.x ``replay_config``); ``beside`` is a run config next to the file, read when neither names one.
    ``tools`` / ``system`` (``--tools``, ``--system``) are added to 1.x requests (0.x records both)."""
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
        if model is None and beside is not None:
            model = model_from_config(beside)
        if is_1x(history):
            calls = _calls_1x(path, text, history, model, _Processors(), None)
        else:
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
    if is_1x(history, data):
        from agentcost.replay import prefix

        trace = _read_1x(path, text, data, history, model, beside, tools_given=tools is not None)
        return prefix.add_prefix(trace, tools=tools, system=system)
    if model is None and beside is not None:
        model = model_from_config(beside)
    calls = _calls(path, text, history, model)
    reported, reported_cost = _model_stats(data, path, len(calls), warnings)
    notes = [
        "SWE-agent re-sends the whole history (system prompt, demonstration, every observation) "
        "with each call; each request is counted from role and content only, as SWE-agent sends it"
    ]
    if reported is not None and not (reported.input_tokens or reported.output_tokens):
        reported = None  # zeros: a replayed or failed run records no usage, as 1.x's do
        reported_cost = reported_cost or None
        notes.append("info.model_stats holds no token counts (all zeros): nothing to compare")
    return Trace(
        path=str(path),
        format=FORMAT,
        model=model,
        calls=tuple(calls),
        reported_totals=reported,
        warnings=tuple(warnings),
        prefix_recorded=True,  # the system prompt, demonstrations and commands are all in the history
        reported_cost_usd=reported_cost,
        notes=tuple(notes),
        reported_kind="api" if reported is not None else "none",
        **exit_status(data),
    )


MAX_EXIT_STATUS = 200  # characters of info.exit_status kept; a longer one is not a status


def exit_status(data: dict[str, Any]) -> dict[str, Any]:
    """``info.exit_status`` and whether the run completed its task: ``exit_status`` and
    ``succeeded`` for :class:`Trace`.

    SWE-agent's agent loop (sweagent/agent/agents.py, https://github.com/SWE-agent/SWE-agent/blob/
    main/sweagent/agent/agents.py, read 2026-12-07) sets ``submitted`` when the agent ran its submit
    command, ``submitted (X)`` when a run stopped by X (``exit_cost``, ``exit_context``,
    ``exit_format``, ``exit_error``, ``exit_api``, ...) was autosubmitted from the repository's diff,
    and X alone when nothing was submitted (``exit_command`` for the agent's own ``exit``). So
    ``submitted`` is a completed task (True: the agent finished it; whether the patch is right is for
    an evaluation to say, ``--outcomes``), any other status a run that stopped short (False), and a
    missing or malformed one unknown (None)."""
    info = data.get("info")
    status = info.get("exit_status") if isinstance(info, dict) else None
    if not isinstance(status, str) or not status or len(status) > MAX_EXIT_STATUS:
        return {"exit_status": None, "succeeded": None}
    return {"exit_status": status, "succeeded": status == "submitted"}
