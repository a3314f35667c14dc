"""Langfuse trace exports (``langfuse``): a trace with its observations, one model call per
GENERATION observation.

The file is the trace as Langfuse's public API returns it (``GET /api/public/traces/{traceId}``:
the trace's fields with an ``observations`` list) or ``{"trace": {...}, "observations": [...]}``
(as the Langfuse repository keeps its framework samples). Read from each GENERATION, ordered by
``startTime``: ``model``; ``usageDetails`` (else the older ``usage`` with ``input`` / ``output`` or
``promptTokens`` / ``completionTokens``); ``totalCost``, summed as the cost Langfuse computed (when
every generation has one above 0); and ``input`` / ``output`` when they hold chat messages (also
Gemini contents: ``{"role", "parts"}``, whose ``text`` parts are counted and whose ``inline_data`` /
``file_data`` parts are attributed by kind, :mod:`agentcost.replay.media`), so that our count stands
beside the reported one.

Usage types are Langfuse's own, documented at https://langfuse.com/docs/token-usage (read
2026-12-02): arbitrary names, "all usage types that include the string input" are input and those
with "output" are output, and the total is the sum of all of them. So the reported input is the sum
of the ``*input*`` types (``input`` plus e.g. ``input_cache_read``, ``input_audio``), the output the
sum of the ``*output*`` types (``output`` plus ``output_reasoning``...); cache reads are the input
types naming ``cache_read`` or ``cached``, cache writes those naming ``cache_creation`` or
``cache_write``. Types naming neither (e.g. OpenInference's ``prompt_details.cache_read``) are not
read, and a warning says so when they are not zero. A ``total`` above input + output (Vertex AI
Gemini through OpenInference reports ``candidates_token_count`` without the thoughts) is thinking,
priced as output (:func:`agentcost.prices.billing.unreported_thinking`), and a note says so.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

from agentcost.errors import InputError
from agentcost.prices.billing import unreported_thinking
from agentcost.replay.files import loads, reported_dollars, usage_count
from agentcost.replay.jsonl import dump, obj
from agentcost.replay.media import block_kind, content_kinds
from agentcost.replay.otel import models_warning
from agentcost.replay.trace import Message, RecordedCall, ReportedUsage, Trace

FORMAT = "langfuse"
MAX_OBSERVATIONS = 1_000_000
_HINT = "a Langfuse trace export: the trace with its observations (GET /api/public/traces/{id})"


def looks_like(data: Any) -> bool:
    """A JSON object with an ``observations`` list of objects that have a ``type``."""
    if not isinstance(data, dict) or not isinstance(data.get("observations"), list):
        return False
    first = data["observations"][0] if data["observations"] else {}
    return isinstance(first, dict) and "type" in first


def _parsed(value: Any) -> Any:
    """A field that holds JSON as text (as Langfuse often stores input and output), parsed."""
    if isinstance(value, str) and value[:1] in '[{"':
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return value
    return value


def _text(content: Any) -> str:
    """Text of message content: a string, a list of parts (``text`` / ``content``), or JSON."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for part in content:
            p = obj(part)
            text = p.get("text", p.get("content"))
            if isinstance(text, str):
                texts.append(text)
            elif block_kind(part) is None:  # an image, a PDF...: not counted, attributed by kind
                texts.append(dump(part))
        return "\n".join(texts)
    return dump(content)


def _tool_calls(message: Mapping[str, Any]) -> tuple[str, str | None]:
    """Chat ``tool_calls`` (also LangChain's ``additional_kwargs.tool_calls``): text and first name."""
    calls = message.get("tool_calls", obj(message.get("additional_kwargs")).get("tool_calls"))
    texts, first = [], None
    for c in calls if isinstance(calls, list) else ():
        fn = obj(obj(c).get("function")) or obj(c)
        name = str(fn.get("name") or "")
        first = first or name or None
        texts.append(f"{name}({dump(fn.get('arguments', fn.get('args', '')))})")
    return "\n".join(texts), first


def _gemini_parts(parts: list[Any]) -> tuple[str, tuple[str, ...]]:
    """Text of Gemini ``parts`` (``text``; ``function_call`` as name + args; ``function_response``
    as its JSON) and the kinds of the parts not counted (``inline_data``, ``file_data``: images,
    PDFs, audio, video, by MIME type; :mod:`agentcost.replay.media`)."""
    texts: list[str] = []
    for part in parts:
        p = obj(part)
        call = obj(p.get("function_call", p.get("functionCall")))
        answer = p.get("function_response", p.get("functionResponse"))
        if isinstance(p.get("text"), str):
            texts.append(p["text"])
        elif call:
            texts.append(f"{call.get('name', '')}({dump(call.get('args', ''))})")
        elif answer is not None:
            texts.append(dump(answer))
    return "\n".join(t for t in texts if t), content_kinds(parts)


def _message(item: Any) -> Message | None:
    it = obj(item)
    kind = it.get("type")
    if kind == "function_call":  # OpenAI Responses input items
        return Message("assistant", f"{it.get('name', '')}({dump(it.get('arguments', ''))})")
    if kind == "function_call_output":
        return Message("tool", _text(it.get("output")))
    role = it.get("role")
    if not isinstance(role, str):
        return None
    name = it.get("name")
    if isinstance(it.get("parts"), list) and it.get("content") is None:  # Gemini contents
        text, uncounted = _gemini_parts(it["parts"])
        return Message("assistant" if role == "model" else role, text, uncounted=uncounted)
    calls, _ = _tool_calls(it)
    text = "\n".join(t for t in (_text(it.get("content")), calls) if t)
    return Message(
        role, text, name if isinstance(name, str) else None, uncounted=content_kinds(it.get("content"))
    )


def _messages(observation: Mapping[str, Any]) -> tuple[Message, ...] | None:
    """The chat messages of a generation's ``input`` (with Responses ``instructions`` from its
    ``modelParameters`` as the system message), or None when the input is not a message list."""
    raw = _parsed(observation.get("input"))
    if isinstance(raw, dict) and isinstance(raw.get("messages"), list):
        raw = raw["messages"]
    elif isinstance(raw, dict) and isinstance(raw.get("contents"), list):  # a Gemini request
        raw = raw["contents"]
    if not isinstance(raw, list) or not raw:
        return None
    read = [_message(m) for m in raw]
    if any(m is None for m in read):
        return None
    sent = [m for m in read if m is not None]
    instructions = obj(observation.get("modelParameters")).get("instructions")
    if isinstance(instructions, str) and instructions and not any(m.role == "system" for m in sent):
        sent.insert(0, Message("system", instructions))
    return tuple(sent)


def _output(observation: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """A generation's output text (with its tool calls) and the first tool it calls."""
    raw = _parsed(observation.get("output"))
    if isinstance(raw, str):
        return raw, None
    out = obj(raw)
    if isinstance(out.get("output"), list):  # an OpenAI Responses object
        texts, action = [], None
        for item in out["output"]:
            it = obj(item)
            if it.get("type") == "function_call":
                action = action or str(it.get("name") or "") or None
                texts.append(f"{it.get('name', '')}({dump(it.get('arguments', ''))})")
            elif it.get("type") == "message":
                texts.append(_text(it.get("content")))
        return "\n".join(t for t in texts if t), action
    if isinstance(out.get("parts"), list) and out.get("content") is None:  # a Gemini content
        return _gemini_parts(out["parts"])[0], None
    if "content" in out or "tool_calls" in out or "additional_kwargs" in out:
        calls, action = _tool_calls(out)
        return "\n".join(t for t in (_text(out.get("content")), calls) if t), action
    return None, None


def _usage(
    observation: Mapping[str, Any], where: str, path: Path, warnings: list[str]
) -> ReportedUsage | None:
    details = observation.get("usageDetails")
    if not isinstance(details, dict) or not details:
        legacy = obj(observation.get("usage"))
        inp = legacy.get("input", legacy.get("promptTokens"))
        out = legacy.get("output", legacy.get("completionTokens"))
        if inp is None and out is None:
            return None
        i, o = usage_count(inp, f"{where}.usage.input", path), usage_count(out, f"{where}.usage.output", path)
        total = legacy.get("total", legacy.get("totalTokens"))
        rest = unreported_thinking(
            i, o, usage_count(total, f"{where}.usage.total", path) if total is not None else None
        )
        return ReportedUsage(i, o, thinking_tokens=rest)
    values = {str(k): usage_count(v, f"{where}.usageDetails.{k}", path) for k, v in details.items()}
    inputs = {k: v for k, v in values.items() if "input" in k}
    outputs = {k: v for k, v in values.items() if "output" in k and "input" not in k}
    unread = sorted(
        k for k, v in values.items() if v and k != "total" and k not in inputs and k not in outputs
    )
    if unread:
        warnings.append(f"{where}: usage types not read (neither input nor output by name): {len(unread)}")
    cache_read = sum(v for k, v in inputs.items() if "cache_read" in k or "cached" in k)
    cache_write = sum(v for k, v in inputs.items() if "cache_creation" in k or "cache_write" in k)
    i, o = sum(inputs.values()), sum(outputs.values())
    rest = unreported_thinking(i, o, values.get("total"))  # a total above input + output: thinking
    return ReportedUsage(i, o, cache_read, cache_write, thinking_tokens=rest)


def read(path: Path, *, text: str, model: str | None = None) -> Trace:
    """Read a Langfuse trace export. ``model`` (``--model``) overrides the generations'."""
    try:
        data = loads(text, path)
    except json.JSONDecodeError as err:
        raise InputError(f"not valid JSON: {err.msg}", file=path, line=err.lineno, hint=_HINT) from None
    if not looks_like(data):
        raise InputError("expected a trace with an 'observations' list", file=path, hint=_HINT)
    observations = data["observations"]
    if len(observations) > MAX_OBSERVATIONS:
        raise InputError(f"more than {MAX_OBSERVATIONS:,} observations", file=path, hint="split the export")
    warnings: list[str] = []
    found: list[tuple[str, int, RecordedCall]] = []
    cost = Decimal(0)
    uncosted = 0
    skipped = 0
    for i, raw in enumerate(observations):
        o = obj(raw)
        if o.get("type") != "GENERATION":
            continue
        where = f"observations[{i}]"
        reported = _usage(o, where, path, warnings)
        messages = _messages(o)
        output, action = _output(o)
        if reported is None and (messages is None or output is None):
            skipped += 1
            continue
        amount = reported_dollars(
            o.get("totalCost", o.get("calculatedTotalCost")), f"{where}.totalCost", path
        )
        if amount:  # 0 or missing: Langfuse knew no price for the model
            cost += amount
        else:
            uncosted += 1
        name = o.get("model")
        call = RecordedCall(
            index=0,
            model=name if isinstance(name, str) and name else None,
            messages=messages,
            tools=None,
            output_text=output,
            reported=reported,
            line=None,
            action=action,
        )
        start = o.get("startTime")
        found.append((start if isinstance(start, str) else "", i, call))
    if not found:
        raise InputError("no GENERATION observation with usage or messages", file=path, hint=_HINT)
    found.sort(key=lambda t: (t[0], t[1]))
    calls = tuple(replace(c, index=n) for n, (_, _, c) in enumerate(found, 1))
    notes = []
    if skipped:
        notes.append(f"{skipped} generations record neither usage nor messages: left out")
    unrecorded = sum(1 for c in calls if c.messages is None)
    if unrecorded:
        notes.append(
            f"{unrecorded} of {len(calls)} generations record no chat messages as input: their "
            "reported usage is priced, our counts could not be checked"
        )
    costed = not uncosted
    if costed:
        notes.append("the reported cost is the one Langfuse computed (its own price table)")
    return Trace(
        path=str(path),
        format=FORMAT,
        model=model or next((c.model for c in calls if c.model), None),
        calls=calls,
        reported_totals=None,
        warnings=(*warnings, *models_warning(calls, model, "generations")),
        notes=tuple(notes),
        reported_cost_usd=cost if costed else None,
    )
