"""Claude Code logs: session files (``~/.claude/projects/*/*.jsonl``) and ``claude -p --output-format
stream-json`` output. Both are JSON Lines with a ``type`` per line.

Session lines: ``user`` / ``assistant`` (with ``message``, ``uuid``, ``parentUuid``, ``sessionId``;
assistant lines add ``requestId`` and ``message.usage``), ``summary``, ``system`` and others, which
are skipped. Stream-json lines: ``system`` (``subtype: init``: model, tools), ``assistant``,
``user`` and a final ``result`` (``total_cost_usd``, ``usage``, ``num_turns``).

One API response is often written as several assistant lines (one per content block) sharing the
``requestId`` / ``message.id``, each repeating the usage: each request is counted once, with the
usage of its last line. Anthropic ``usage.input_tokens`` excludes cached tokens, so the reported
input of a request is ``input_tokens + cache_creation_input_tokens + cache_read_input_tokens``;
``cache_creation.ephemeral_5m/1h_input_tokens`` split the writes when present (else all writes
are 5-minute). Claude Code's system prompt and tool definitions are not in the log: the gap
between reported and counted input is shown as an unrecorded prefix.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import field, replace
from decimal import Decimal
from pathlib import Path
from typing import Any

from agentcost.errors import InputError
from agentcost.infra.record import record
from agentcost.infra.validate import shown
from agentcost.prices.billing import anthropic_extras
from agentcost.replay.files import loads, read_text, reported_dollars, usage_count
from agentcost.replay.jsonl import dump
from agentcost.replay.media import content_kinds
from agentcost.replay.subtotals import SNAPSHOT_MAX_OUTPUT
from agentcost.replay.tool_ids import ToolIds, id_key
from agentcost.replay.trace import Message, RecordedCall, ReportedUsage, ToolPart, Trace

FORMAT = "claude-code"

_MESSAGE_TYPES = ("user", "assistant")
_KNOWN_TYPES = ("user", "assistant", "system", "result")


SNIFF_LINES = 1_000
"""How many lines detection reads, at most, for the first line that identifies a Claude Code log:
real sessions open with ``file-history-snapshot``, ``summary``, ``progress`` and ``queue-operation``
lines (hooks write a ``progress`` line each), which identify nothing."""
SNIFF_BYTES = 16_000_000
"""How many bytes of lines detection parses, at most (a ``file-history-snapshot`` line can be large)."""


def looks_like(text: str) -> bool:
    """JSON Lines whose first line with a Claude Code ``user``/``assistant``/``system``/``result``
    ``type`` carries a ``message`` or a session id, found within :data:`SNIFF_LINES` lines and
    :data:`SNIFF_BYTES` bytes; the lines before it must be JSON objects with a text ``type`` (as
    every Claude Code line is). Anything else (not JSON, no ``type``) is another format."""
    seen = parsed = 0
    for raw in text.splitlines():
        if not raw.strip():
            continue
        seen += 1
        parsed += len(raw)
        if seen > SNIFF_LINES or parsed > SNIFF_BYTES:
            return False
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError):  # not JSON, too deep, a huge number: not this format
            return False
        if not isinstance(data, dict) or not isinstance(data.get("type"), str):
            return False
        if data["type"] in _KNOWN_TYPES and any(k in data for k in ("message", "sessionId", "session_id")):
            return True
    return False


def reported_usage(
    usage: dict[str, Any], path: Path, line: int | None, at: str = "message.usage"
) -> ReportedUsage:
    """Anthropic ``usage`` (at key ``at`` of the line ``line`` of ``path``) as :class:`ReportedUsage`
    (input counts cached tokens too). Each count is a whole number from 0 to 1,000,000,000, or
    missing (0)."""

    def count(key: str, within: dict[str, Any] = usage, prefix: str = "") -> int:
        return usage_count(within.get(key), f"{at}.{prefix}{key}", path, line)

    uncached = count("input_tokens")
    read = count("cache_read_input_tokens")
    written = count("cache_creation_input_tokens")
    split = usage.get("cache_creation")
    one_hour = count("ephemeral_1h_input_tokens", split, "cache_creation.") if isinstance(split, dict) else 0
    one_hour = min(one_hour, written)
    return ReportedUsage(
        input_tokens=uncached + written + read,
        output_tokens=count("output_tokens"),
        cache_read_tokens=read,
        cache_write_tokens=written - one_hour,
        cache_write_1h_tokens=one_hour,
        **anthropic_extras(usage, lambda value, key: usage_count(value, key, path, line), at),
    )


def _block_text(block: Any) -> str:
    """The text of one content block as it is sent back to the model."""
    if isinstance(block, str):
        return block
    if not isinstance(block, dict):
        return ""
    kind = block.get("type")
    if kind == "text":
        return str(block.get("text") or "")
    if kind == "thinking":
        return str(block.get("thinking") or "")
    if kind == "tool_use":
        return json.dumps({"name": block.get("name"), "input": block.get("input")}, ensure_ascii=False)
    if kind == "tool_result":
        return _content_text(block.get("content"))
    return ""


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(t for t in (_block_text(b) for b in content) if t)
    return ""


def _message(kind: str, content: Any, names: dict[str, str]) -> Message:
    """A line's message: ``tool_use`` blocks as tool calls (their names kept in ``names`` by id),
    ``tool_result`` blocks as results of the tool the id named, the other blocks as text."""
    if not isinstance(content, list):
        return Message(kind, _content_text(content))
    texts: list[str] = []
    calls: list[ToolPart] = []
    results: list[ToolPart] = []
    for block in content:
        b = block if isinstance(block, dict) else {}
        if b.get("type") == "tool_use":
            names[str(b.get("id"))] = str(b.get("name") or "")
            calls.append(ToolPart(str(b.get("name") or ""), dump(b.get("input", {}))))
        elif b.get("type") == "tool_result":
            name = names.get(str(b.get("tool_use_id")), "")
            results.append(ToolPart(name, _content_text(b.get("content"))))
        elif text := _block_text(block):
            texts.append(text)
    uncounted = content_kinds(content)  # images and PDFs a tool read, server-tool blocks
    return Message(kind, "\n".join(texts), calls=tuple(calls), results=tuple(results), uncounted=uncounted)


@record(frozen=False)
class _Request:
    key: str
    line: int
    first_parent: str | None  # parentUuid of its first line (session logs)
    history_len: int  # messages before it (stream-json: linear history)
    model: str | None
    usage: dict[str, Any] | None
    usage_line: int | None = None  # the line of the usage kept (the last line that gave one)
    texts: list[str] = field(default_factory=list)
    calls: list[ToolPart] = field(default_factory=list)  # its tool_use blocks
    tool_ids: list[tuple[str, str]] = field(default_factory=list)  # (tool_use id, name)
    raw_ids: list[Any] = field(default_factory=list)  # the tool_use ids as the log writes them
    stop_reason: Any = None  # the last one a line of it records


@record(frozen=False)
class _Line:
    parent: str | None
    message: Message


def read(path: Path, *, model: str | None = None, text: str | None = None) -> Trace:
    """Read a Claude Code session log or stream-json output. ``model`` overrides the log's."""
    if text is None:
        text = read_text(path)
    rows = text.splitlines()
    last = max((i for i, r in enumerate(rows) if r.strip()), default=-1)
    warnings: list[str] = []
    notes: list[str] = []
    truncated = False

    requests: dict[str, _Request] = {}
    lines_by_uuid: dict[str, _Line] = {}
    history: list[Message] = []  # linear history, for logs without uuids (stream-json)
    results: dict[str, str] = {}  # tool_use id -> result text
    result_line: dict[str, Any] | None = None
    result_lineno: int | None = None
    init_model: str | None = None
    all_uuid = True
    sidechains = 0
    ids = ToolIds()  # its indexes are positions in ``requests`` until the calls are numbered
    issued: set[str] = set()  # every tool_use id an assistant line has called so far
    called: dict[str, str] = {}  # tool_use id -> the tool it calls

    for i, raw in enumerate(rows):
        if not raw.strip():
            continue
        lineno = i + 1
        try:
            data = loads(raw, path, line=lineno)
        except json.JSONDecodeError as err:
            if i == last and not text.endswith("\n"):
                truncated = True
                warnings.append(
                    f"the file ends early at line {lineno} (truncated): read {len(requests)} API "
                    f"request{'s' if len(requests) != 1 else ''} from the complete lines before it"
                )
                break
            raise InputError(
                f"not valid JSON: {err.msg} (column {err.colno})", file=path, line=lineno
            ) from None
        if not isinstance(data, dict):
            raise InputError("expected a JSON object on each line", file=path, line=lineno)
        kind = data.get("type")
        if kind == "system" and data.get("subtype") == "init" and isinstance(data.get("model"), str):
            init_model = data["model"]
            continue
        if kind == "result":
            result_line, result_lineno = data, lineno
            continue
        if kind not in _MESSAGE_TYPES:
            continue
        message = data.get("message")
        if not isinstance(message, dict):
            raise InputError(f"a line of type {kind!r} needs a 'message' object", file=path, line=lineno)
        if data.get("isSidechain") is True:
            sidechains += 1
        content = message.get("content")
        uuid = data.get("uuid")
        parent = data.get("parentUuid")
        if not isinstance(uuid, str):
            all_uuid = False
        msg = _message(kind, content, called)
        if kind == "assistant":
            key = message.get("id") or data.get("requestId") or uuid or f"line {lineno}"
            req = requests.get(str(key))
            if req is None:
                req = requests[str(key)] = _Request(
                    key=str(key),
                    line=lineno,
                    first_parent=parent if isinstance(parent, str) else None,
                    history_len=len(history),
                    model=message.get("model") if isinstance(message.get("model"), str) else None,
                    usage=None,
                )
            if isinstance(message.get("usage"), dict):
                req.usage = message["usage"]  # split lines repeat it: the last one wins
                req.usage_line = lineno
            if message.get("stop_reason") is not None:
                req.stop_reason = message["stop_reason"]
            if msg.text:
                req.texts.append(msg.text)
            req.calls.extend(msg.calls)
            for block in content if isinstance(content, list) else ():
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    req.tool_ids.append((str(block.get("id")), str(block.get("name"))))
                    req.raw_ids.append(block.get("id"))
                    issued.add(id_key(block.get("id")))
        elif isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    results[str(block.get("tool_use_id"))] = _content_text(block.get("content"))
                    # sent with the next request; subagent lines may interleave, so any earlier call
                    ids.result(len(requests), block.get("tool_use_id"), issued)
        history.append(msg)
        if isinstance(uuid, str):
            lines_by_uuid[uuid] = _Line(parent if isinstance(parent, str) else None, msg)

    def sent_before(req: _Request) -> tuple[Message, ...]:
        if not all_uuid:
            return tuple(history[: req.history_len])
        chain: list[Message] = []
        at = req.first_parent
        seen: set[str] = set()
        while at is not None and at in lines_by_uuid and at not in seen:
            seen.add(at)
            entry = lines_by_uuid[at]
            chain.append(entry.message)
            at = entry.parent
        chain.reverse()
        return tuple(chain)

    calls: list[RecordedCall] = []
    models: Counter[str] = Counter()
    synthetic = 0
    numbered: dict[int, int] = {}  # position in ``requests`` -> index of the call at or after it
    halted: tuple[int, str, list[Any]] | None = None
    finals = any(_final(r.usage) for r in requests.values())  # this version writes the final usage
    for position, req in enumerate(requests.values()):
        if req.model == "<synthetic>":  # Claude Code's own error/abort messages: no API call
            synthetic += 1
            continue
        for p in range(len(numbered), position + 1):
            numbered[p] = len(calls) + 1
        unanswered = bool(req.raw_ids) and not any(i in results for i, _ in req.tool_ids)
        why = "stop_reason tool_use" if req.stop_reason == "tool_use" else "a tool_use block"
        halted = (len(calls) + 1, why, req.raw_ids) if unanswered else None
        names = list(dict.fromkeys(name for _, name in req.tool_ids))
        answered = [results[i] for i, _ in req.tool_ids if i in results]
        if req.model:
            models[req.model] += 1
        usage = reported_usage(req.usage, path, req.usage_line) if req.usage is not None else None
        calls.append(
            RecordedCall(
                index=len(calls) + 1,
                model=model or req.model,
                messages=sent_before(req),
                tools=None,
                output_text="\n".join(req.texts),
                reported=usage,
                line=req.line,
                action=",".join(names) if names else None,
                result_text="\n".join(answered) if answered else None,
                output_calls=tuple(req.calls),
                output_snapshot=_snapshot(req, usage, finals),
            )
        )
    ids.unmatched = [(numbered[p], i) for p, i in ids.unmatched if p in numbered]
    warnings += ids.warnings(None if truncated else halted)
    if synthetic:
        notes.append(f"{synthetic} <synthetic> assistant message(s) (no API call) skipped")
    if sidechains:
        notes.append(
            f"{sidechains} sidechain (subagent) lines are in the file; each request keeps its own chain"
        )

    trace_model = model
    if trace_model is None:
        trace_model = models.most_common(1)[0][0] if models else init_model
        if len(models) > 1:
            each = ", ".join(f"{m} ({n})" for m, n in models.most_common())
            notes.append(f"the log has requests of several models, each priced at its own: {each}")

    reported_totals: ReportedUsage | None = None
    reported_cost: Decimal | None = None
    if result_line is not None:
        cost_key = "total_cost_usd" if "total_cost_usd" in result_line else "cost_usd"
        reported_cost = reported_dollars(result_line.get(cost_key), cost_key, path, result_lineno)
        if isinstance(result_line.get("usage"), dict):
            reported_totals = reported_usage(result_line["usage"], path, result_lineno, "usage")
            summed = sum(c.reported.input_tokens for c in calls if c.reported)
            if summed != reported_totals.input_tokens:
                warnings.append(
                    f"the result line reports {reported_totals.input_tokens:,} input tokens, the "
                    f"requests {summed:,}"
                )
        turns = result_line.get("num_turns")
        if isinstance(turns, int):
            reports = f"the result line reports {shown(turns, quote=False)} turns"
            notes.append(f"{reports}; {len(calls)} API requests were read")
        if reported_cost is not None:
            notes.append(
                "total_cost_usd is Claude Code's own figure: it includes calls not in the stream "
                "(e.g. side calls to other models, see the result's modelUsage)"
            )
    notes.append(
        "Claude Code's system prompt and tool definitions are not in the log; requests are "
        "counted from the recorded messages only"
    )
    return Trace(
        path=str(path),
        format=FORMAT,
        model=trace_model,
        calls=tuple(calls),
        reported_totals=reported_totals,
        truncated=truncated,
        warnings=tuple(warnings),
        prefix_recorded=False,
        reported_cost_usd=reported_cost,
        notes=tuple(notes),
        per_call_models=model is None,
    )


def _final(usage: dict[str, Any] | None) -> bool:
    """Whether ``usage`` is the final one (the ``message_delta``'s): it carries ``server_tool_use``
    (or ``iterations``), which the ``message_start`` snapshot does not (Claude Code 2.1)."""
    return usage is not None and ("server_tool_use" in usage or "iterations" in usage)


def _snapshot(req: _Request, usage: ReportedUsage | None, finals: bool) -> bool:
    """Whether the only usage the log keeps of ``req`` is the streaming-start snapshot: Claude Code
    writes a line per content block as the response streams, each with the usage known then; when
    no line was written after the last update, the output is the ``message_start`` figure. That is
    a response with ``stop_reason: null`` whose output is 1 to 8 tokens or, in a log whose other
    requests carry the final usage (``finals``), whose usage is not the final one."""
    if usage is None or req.stop_reason is not None or not (req.texts or req.calls):
        return False
    return not _final(req.usage) if finals else 1 <= usage.output_tokens <= SNAPSHOT_MAX_OUTPUT


MAX_SUBAGENTS = 1_000
"""Most subagent transcripts folded into one session (its ``<session>/subagents/agent-*.jsonl``)."""


def subagent_files(path: Path) -> list[Path]:
    """The subagent transcripts of the session ``path`` (``<dir>/<session>.jsonl``): Claude Code
    writes each subagent's (and each compaction's) requests to ``<dir>/<session>/subagents/
    agent-<id>.jsonl``. Sorted by name; none when the folder is not there."""
    folder = path.parent / path.stem / "subagents"
    if path.suffix != ".jsonl" or not folder.is_dir():
        return []
    return sorted(p for p in folder.glob("agent-*.jsonl") if p.is_file())


def session_of(path: Path) -> Path | None:
    """The session a subagent transcript ``<dir>/<session>/subagents/agent-*.jsonl`` belongs to,
    when that session's ``<dir>/<session>.jsonl`` is there (its replay folds the transcript in)."""
    folder = path.parent
    if not (path.name.startswith("agent-") and path.suffix == ".jsonl" and folder.name == "subagents"):
        return None
    session = folder.parent.parent / f"{folder.parent.name}.jsonl"
    return session if session.is_file() else None


def with_subagents(session: Trace, path: Path, *, model: str | None = None) -> Trace:
    """``session`` with the requests of its subagent transcripts (:func:`subagent_files`) after its
    own, each tagged with its transcript's name (``RecordedCall.agent``) for the per-subagent
    subtotals; their warnings are named by the transcript. Each transcript is read as a Claude Code
    log (bounded as any log); at most :data:`MAX_SUBAGENTS` are read."""
    files = subagent_files(path)
    if not files:
        return session
    calls = list(session.calls)
    warnings = list(session.warnings)
    if len(files) > MAX_SUBAGENTS:
        warnings.append(f"{len(files):,} subagent transcripts: the first {MAX_SUBAGENTS:,} are read")
    truncated = session.truncated
    for file in files[:MAX_SUBAGENTS]:
        sub = read(file, model=model)
        name = file.stem
        calls += [replace(c, index=len(calls) + i, agent=name) for i, c in enumerate(sub.calls, 1)]
        warnings += [f"{name}: {w}" for w in sub.warnings]
        truncated = truncated or sub.truncated
    folded = len(calls) - len(session.calls)
    note = (
        f"{len(files[:MAX_SUBAGENTS])} subagent transcript(s) in {path.stem}/subagents/ folded in: "
        f"{folded} request(s) after the session's own {len(session.calls)}, each at its own model"
    )
    return replace(
        session,
        calls=tuple(calls),
        warnings=tuple(warnings),
        notes=(*session.notes, note),
        truncated=truncated,
        per_call_models=model is None,
    )
