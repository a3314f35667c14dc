"""OpenTelemetry GenAI spans (``otel``): OTLP JSON files, or exported span objects, one model call
per span that reports usage.

Attribute names follow the OpenTelemetry semantic conventions for generative AI, as published in
semantic-conventions v1.41.0 (the last release holding them before they moved to
open-telemetry/semantic-conventions-genai, v0.1.0), read 2026-12-02:
https://github.com/open-telemetry/semantic-conventions/blob/v1.41.0/docs/gen-ai/gen-ai-spans.md and
https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/ . Read:

- usage: ``gen_ai.usage.input_tokens`` (which "SHOULD include all types of input tokens, including
  cached tokens"), ``gen_ai.usage.output_tokens``, ``gen_ai.usage.cache_read.input_tokens`` and
  ``gen_ai.usage.cache_creation.input_tokens`` (both "SHOULD be included in" the input; added in
  v1.40.0), and the deprecated ``gen_ai.usage.prompt_tokens`` / ``completion_tokens``. When the cache
  figures exceed the input, the span follows Anthropic's own convention (input without the cache):
  they are added to it, and a note says so.
- the model: ``gen_ai.response.model``, else ``gen_ai.request.model``.
- what was sent and returned, when recorded: ``gen_ai.system_instructions``, ``gen_ai.input.messages``
  and ``gen_ai.output.messages`` (messages of ``parts``: text, tool_call, tool_call_response;
  a plain ``content`` is accepted too), ``gen_ai.tool.definitions``; or the older span events
  (``gen_ai.system.message``, ``gen_ai.user.message``, ``gen_ai.assistant.message``,
  ``gen_ai.tool.message``, ``gen_ai.choice``; before them ``gen_ai.content.prompt`` /
  ``gen_ai.content.completion`` with ``gen_ai.prompt`` / ``gen_ai.completion``, counted as one user
  message and the output).

Spans whose ``gen_ai.operation.name`` is an agent or tool operation (``invoke_agent``,
``create_agent``, ``execute_tool``, ``invoke_workflow``) are not model calls: their usage, when
given, sums their children's and is left out. The file is an OTLP/JSON ``ExportTraceServiceRequest``
(``resourceSpans`` > ``scopeSpans`` > ``spans``, attributes as ``{"key", "value": AnyValue}``), or
several as JSON Lines (the OpenTelemetry JSON file format); or the span objects the Python SDK's
``span.to_json()`` writes (``attributes`` a flat mapping), as a JSON list, one object, JSON Lines, or
one after another as ``ConsoleSpanExporter`` prints them.
Calls are ordered by start time.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from agentcost.errors import InputError
from agentcost.replay.files import loads, usage_count
from agentcost.replay.jsonl import dump, first_object, obj, records
from agentcost.replay.media import block_kind, content_kinds
from agentcost.replay.trace import Message, RecordedCall, ReportedUsage, Trace, tool_problem

FORMAT = "otel"
MAX_SPANS = 1_000_000
"""Most spans read from one file (a long agent run has thousands)."""

AGENT_OPERATIONS = frozenset({"invoke_agent", "create_agent", "execute_tool", "invoke_workflow"})
_INPUT = ("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens")
_OUTPUT = ("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens")
_CACHE_READ = "gen_ai.usage.cache_read.input_tokens"
_CACHE_WRITE = "gen_ai.usage.cache_creation.input_tokens"
_ROLE_EVENTS = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}
_HINT = "an OTLP JSON export of spans with gen_ai.* attributes (OpenTelemetry GenAI conventions)"


def _is_flat_span(value: Any) -> bool:
    attrs = value.get("attributes") if isinstance(value, dict) else None
    return isinstance(attrs, dict) and any(str(k).startswith("gen_ai.") for k in attrs)


def models_warning(calls: Sequence[RecordedCall], model: str | None, what: str) -> tuple[str, ...]:
    """A warning when the calls name several models and ``--model`` is not given: the replay
    prices every call as the first one's model."""
    names = {c.model for c in calls if c.model}
    if model is not None or len(names) < 2:
        return ()
    return (
        f"the {what} name {len(names)} different models; every call is priced as the first one's "
        "(pass --model to choose)",
    )


def looks_like(data: Any) -> bool:
    """An OTLP/JSON traces request, or a span object (or list of them) with ``gen_ai.*`` attributes."""
    if isinstance(data, dict):
        return "resourceSpans" in data or "resource_spans" in data or _is_flat_span(data)
    return isinstance(data, list) and bool(data) and _is_flat_span(data[0])


def sniff(text: str) -> bool:
    """The file's first line is such an object (JSON Lines, or a one-line file)."""
    first = first_object(text)
    return first is not None and looks_like(first)


def sniff_concatenated(text: str) -> bool:
    """The file starts with a whole JSON object of spans followed by more (``ConsoleSpanExporter``)."""
    try:
        first, _ = json.JSONDecoder().raw_decode(text, _skip_space(text, 0))
    except (ValueError, RecursionError):
        return False
    return looks_like(first)


# ---------------------------------------------------------------------------------------------
# Decoding OTLP/JSON
# ---------------------------------------------------------------------------------------------


def _any_value(value: Any, where: str, path: Path, line: int | None) -> Any:
    """An OTLP ``AnyValue`` as a plain value (int64 is written as a string in OTLP/JSON)."""
    v = obj(value)
    if "stringValue" in v:
        return v["stringValue"]
    if "intValue" in v:
        raw = v["intValue"]
        if isinstance(raw, str) and raw.lstrip("-").isdigit() and len(raw) <= 20:
            return int(raw)
        if type(raw) is int:
            return raw
        raise InputError("intValue must be a whole number", file=path, line=line, key=where)
    if "boolValue" in v:
        return v["boolValue"]
    if "doubleValue" in v:
        return v["doubleValue"]
    if "arrayValue" in v:
        values = obj(v["arrayValue"]).get("values")
        return [_any_value(x, where, path, line) for x in values] if isinstance(values, list) else []
    if "kvlistValue" in v:
        return _attributes(obj(v["kvlistValue"]).get("values"), where, path, line)
    return None


def _attributes(raw: Any, where: str, path: Path, line: int | None) -> dict[str, Any]:
    """``[{"key", "value"}]`` (OTLP) or a flat mapping (SDK ``to_json``) as a mapping."""
    if isinstance(raw, dict):
        return dict(raw)
    out: dict[str, Any] = {}
    for kv in raw if isinstance(raw, list) else ():
        key = obj(kv).get("key")
        if isinstance(key, str):
            out[key] = _any_value(obj(kv).get("value"), f"{where}.{key}", path, line)
    return out


def _start(span: Mapping[str, Any]) -> int | str:
    raw = span.get("startTimeUnixNano", span.get("start_time"))
    if isinstance(raw, str) and raw.isdigit():
        return int(raw)
    return raw if isinstance(raw, int | str) else 0


def _spans(data: Any, where: str) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """``(place, span)`` of every span of a request, a span list or one span."""
    if isinstance(data, list):
        for i, span in enumerate(data):
            yield f"{where}[{i}]", obj(span)
        return
    data = obj(data)
    if "resourceSpans" not in data and "resource_spans" not in data:
        if "spans" in data and isinstance(data["spans"], list):
            yield from _spans(data["spans"], "spans")
        else:
            yield where or "span", data
        return
    key = "resourceSpans" if "resourceSpans" in data else "resource_spans"
    resources = data[key]
    for r, resource in enumerate(resources if isinstance(resources, list) else ()):
        res = obj(resource)
        for skey in ("scopeSpans", "scope_spans", "instrumentationLibrarySpans"):
            scopes = res.get(skey)
            for s, scope in enumerate(scopes if isinstance(scopes, list) else ()):
                spans = obj(scope).get("spans")
                for i, span in enumerate(spans if isinstance(spans, list) else ()):
                    yield f"{key}[{r}].{skey}[{s}].spans[{i}]", obj(span)


# ---------------------------------------------------------------------------------------------
# Messages
# ---------------------------------------------------------------------------------------------


def _json_value(value: Any) -> Any:
    """An attribute holding JSON as text (as most instrumentations record messages), parsed."""
    if isinstance(value, str) and value[:1] in "[{":
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return value
    return value


def _parts_text(parts: Any) -> tuple[str, str | None]:
    """Text of a message's ``parts`` (or plain ``content``) and the first tool it calls."""
    if isinstance(parts, str):
        return parts, None
    texts: list[str] = []
    action: str | None = None
    for part in parts if isinstance(parts, list) else ():
        p = obj(part)
        kind = p.get("type")
        if kind == "tool_call":
            name = str(p.get("name") or "")
            action = action or name or None
            texts.append(f"{name}({dump(p.get('arguments', ''))})")
        elif kind == "tool_call_response":
            texts.append(dump(p.get("response", p.get("result", ""))))
        elif block_kind(p) is not None:  # blob, uri, file: not counted, attributed by kind
            continue
        elif isinstance(p.get("content"), str):
            texts.append(p["content"])
        elif isinstance(p.get("text"), str):
            texts.append(p["text"])
    return "\n".join(texts), action


def _message(raw: Any) -> tuple[Message, str | None] | None:
    m = obj(raw)
    role = m.get("role")
    if not isinstance(role, str):
        return None
    parts = m["parts"] if "parts" in m else m.get("content")
    text, action = _parts_text(parts)
    name = m.get("name")
    return Message(
        role, text, name if isinstance(name, str) else None, uncounted=content_kinds(parts)
    ), action


def _messages(value: Any) -> list[tuple[Message, str | None]] | None:
    value = _json_value(value)
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list):
        return None
    read = [_message(m) for m in value]
    return [m for m in read if m is not None]


def _from_attributes(attrs: Mapping[str, Any]) -> tuple[list[Message] | None, str | None, str | None]:
    """Messages sent, output text and the tool it calls, from the current attributes."""
    sent: list[Message] | None = None
    if "gen_ai.input.messages" in attrs:
        sent = []
        system = _json_value(attrs.get("gen_ai.system_instructions"))
        if system is not None:
            text, _ = _parts_text(system)
            sent.append(Message("system", text))
        sent += [m for m, _ in _messages(attrs["gen_ai.input.messages"]) or ()]
    output = action = None
    out = _messages(attrs.get("gen_ai.output.messages"))
    if out is not None:
        output = "\n".join(m.text for m, _ in out if m.text)
        action = next((a for _, a in out if a), None)
    return sent, output, action


def _from_events(
    span: Mapping[str, Any], where: str, path: Path, line: int | None
) -> tuple[list[Message] | None, str | None, str | None]:
    """Messages sent and output text from the older span events."""
    sent: list[Message] = []
    outputs: list[str] = []
    action: str | None = None
    found = False
    events = span.get("events")
    for e, event in enumerate(events if isinstance(events, list) else ()):
        ev = obj(event)
        name = ev.get("name")
        attrs = _attributes(ev.get("attributes"), f"{where}.events[{e}]", path, line)
        if name in _ROLE_EVENTS:
            found = True
            text, _ = _parts_text(_json_value(attrs.get("content", "")))
            sent.append(Message(_ROLE_EVENTS[str(name)], text))
        elif name == "gen_ai.content.prompt" and isinstance(attrs.get("gen_ai.prompt"), str):
            found = True
            sent += _prompt_lines(attrs["gen_ai.prompt"])
        elif name == "gen_ai.choice":
            message = _json_value(attrs.get("message", attrs.get("content", "")))
            msg = obj(message)
            text, called = _parts_text(msg.get("content", "") if msg else message)
            calls = msg.get("tool_calls")
            for c in calls if isinstance(calls, list) else ():
                fn = obj(obj(c).get("function"))
                called = called or str(fn.get("name") or "") or None
                text = "\n".join(
                    t for t in (text, f"{fn.get('name', '')}({dump(fn.get('arguments', ''))})") if t
                )
            action = action or called
            outputs.append(text)
        elif name == "gen_ai.content.completion" and isinstance(attrs.get("gen_ai.completion"), str):
            outputs.append(attrs["gen_ai.completion"])
    return (sent if found else None), ("\n".join(outputs) if outputs else None), action


_SPACE = re.compile(r"\s*")
_PROMPT_LINE = re.compile(r"(system|developer|user|assistant|tool|function): ")


def _prompt_lines(text: str) -> list[Message]:
    """The older ``gen_ai.prompt`` text: OpenLit writes one ``role: content`` line per message;
    anything else is one user message."""
    if not _PROMPT_LINE.match(text):
        return [Message("user", text)]
    messages: list[Message] = []
    for raw in text.split("\n"):
        m = _PROMPT_LINE.match(raw)
        if m:
            messages.append(Message(m.group(1), raw[m.end() :]))
        else:
            last = messages[-1]
            messages[-1] = Message(last.role, f"{last.text}\n{raw}")
    return messages


def _tools(value: Any, where: str, path: Path, line: int | None) -> tuple[Mapping[str, Any], ...] | None:
    value = _json_value(value)
    if not isinstance(value, list):
        return None
    tools = tuple(obj(t) for t in value if obj(t).get("type", "function") == "function")
    for tool in tools:
        problem = tool_problem(tool)
        if problem is not None:
            raise InputError(problem, file=path, line=line, key=f"{where}.gen_ai.tool.definitions")
    return tools or None


# ---------------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------------


def _skip_space(text: str, at: int) -> int:
    match = _SPACE.match(text, at)
    return match.end() if match else at


def _documents(path: Path, text: str, warnings: list[str]) -> Iterator[tuple[int | None, Any]]:
    """``(line, document)``: JSON Lines when the first line is a whole object; else one JSON
    document; else JSON objects one after another (what ``ConsoleSpanExporter`` prints: each
    span's ``to_json()``, indented, then a newline), each found at its first line."""
    if sniff(text):
        yield from records(path, text, warnings)
        return
    try:
        yield None, loads(text, path)
        return
    except json.JSONDecodeError as err:
        if not err.msg.startswith("Extra data"):
            raise InputError(f"not valid JSON: {err.msg}", file=path, line=err.lineno, hint=_HINT) from None
    decoder = json.JSONDecoder()
    start = _skip_space(text, 0)
    while start < len(text):
        line = text.count("\n", 0, start) + 1
        try:
            _, end = decoder.raw_decode(text, start)
        except (json.JSONDecodeError, RecursionError) as err:
            cut = isinstance(err, json.JSONDecodeError) and (
                not text[err.pos :].strip() or err.msg.startswith("Unterminated string")
            )
            if cut:
                warnings.append(f"the file ends early: the object at line {line} is cut off (truncated)")
                return
            at = err.lineno if isinstance(err, json.JSONDecodeError) else line
            raise InputError("not valid JSON", file=path, line=at, hint=_HINT) from None
        yield line, loads(text[start:end], path, line=line)  # within the depth and number limits
        start = _skip_space(text, end)


def _first(attrs: Mapping[str, Any], keys: tuple[str, ...]) -> tuple[str, Any]:
    return next(((k, attrs[k]) for k in keys if attrs.get(k) is not None), (keys[0], None))


def _call(
    span: Mapping[str, Any], where: str, path: Path, line: int | None, notes: list[str]
) -> RecordedCall | None:
    attrs = _attributes(span.get("attributes"), f"{where}.attributes", path, line)
    if attrs.get("gen_ai.operation.name") in AGENT_OPERATIONS:
        return None
    in_key, inp = _first(attrs, _INPUT)
    out_key, out = _first(attrs, _OUTPUT)
    if inp is None and out is None:
        return None
    at = f"{where}.attributes"
    input_tokens = usage_count(inp, f"{at}.{in_key}", path, line)
    cache_read = usage_count(attrs.get(_CACHE_READ), f"{at}.{_CACHE_READ}", path, line)
    cache_write = usage_count(attrs.get(_CACHE_WRITE), f"{at}.{_CACHE_WRITE}", path, line)
    if cache_read + cache_write > input_tokens:
        input_tokens += cache_read + cache_write
        notes.append(
            "a span's gen_ai.usage.input_tokens leaves out its cached tokens (the provider's own "
            "convention, not the semantic conventions'): cache reads and writes added to its input"
        )
    reported = ReportedUsage(
        input_tokens, usage_count(out, f"{at}.{out_key}", path, line), cache_read, cache_write
    )
    sent, output, action = _from_attributes(attrs)
    if sent is None or output is None:
        ev_sent, ev_output, ev_action = _from_events(span, where, path, line)
        sent = sent if sent is not None else ev_sent
        output, action = (output, action) if output is not None else (ev_output, ev_action)
    model = attrs.get("gen_ai.response.model") or attrs.get("gen_ai.request.model")
    return RecordedCall(
        index=0,
        model=model if isinstance(model, str) else None,
        messages=tuple(sent) if sent is not None else None,
        tools=_tools(attrs.get("gen_ai.tool.definitions"), at, path, line),
        output_text=output,
        reported=reported,
        line=line,
        action=action,
    )


def read(path: Path, *, text: str, model: str | None = None) -> Trace:
    """Read GenAI spans from an OTLP JSON file. ``model`` (``--model``) overrides the spans'."""
    warnings: list[str] = []
    notes: list[str] = []
    found: list[tuple[int | str, int, RecordedCall]] = []
    seen = 0
    for line, doc in _documents(path, text, warnings):
        if not looks_like(doc):
            raise InputError("expected OTLP JSON spans (resourceSpans)", file=path, line=line, hint=_HINT)
        for where, span in _spans(doc, ""):
            seen += 1
            if seen > MAX_SPANS:
                raise InputError(
                    f"more than {MAX_SPANS:,} spans", file=path, line=line, hint="split the export"
                )
            call = _call(span, where, path, line, notes)
            if call is not None:
                found.append((_start(span), len(found), call))
    if not found:
        raise InputError(
            "no span reports GenAI usage (gen_ai.usage.input_tokens / output_tokens)",
            file=path,
            hint=_HINT,
        )
    found.sort(key=lambda t: (str(type(t[0])), t[0], t[1]))  # by start time, file order on ties
    calls = [replace(c, index=i) for i, (_, _, c) in enumerate(found, 1)]
    unrecorded = sum(1 for c in calls if c.messages is None)
    if unrecorded:
        notes.append(
            f"{unrecorded} of {len(calls)} spans record no input messages: their reported usage is "
            "priced, our counts could not be checked"
        )
    return Trace(
        path=str(path),
        format=FORMAT,
        model=model or next((c.model for c in calls if c.model), None),
        warnings=(*warnings, *models_warning(calls, model, "spans")),
        calls=tuple(calls),
        reported_totals=None,
        truncated=bool(warnings),
        notes=tuple(dict.fromkeys(notes)),
    )
