"""OpenAI counting: the cookbook functions (``num_tokens_from_messages``, ``num_tokens_for_tools``),
the model's encoding and constants, and our agent-loop framing constants."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from agentcost.infra.jsontext import dump_json
from agentcost.infra.record import record
from agentcost.tokens.encodings import ENCODING_SHA256
from agentcost.tokens.memo import count_text


def openai_encoding_name(model: str) -> tuple[str, str | None]:
    """The bundled encoding for an OpenAI model and, when it is a fallback, a note saying why.

    ``tiktoken.model.encoding_name_for_model`` (offline); unknown and newer names get o200k_base
    (gpt-3.5*/gpt-4-* ids unknown to tiktoken get cl100k_base). ``o200k_harmony`` (gpt-oss) has
    o200k_base's ranks and pattern, so ordinary text counts are identical.
    """
    return _openai_encoding_cached(model)


_MODEL_ENCODINGS: dict[str, tuple[str, str | None]] = {}


def _openai_encoding_cached(model: str) -> tuple[str, str | None]:
    """:func:`openai_encoding_name` through the persistent cache (importing tiktoken's model map
    costs ~10 ms; the key includes tiktoken's installed files and agentcost's own)."""
    found = _MODEL_ENCODINGS.get(model)
    if found is not None:
        return found
    from agentcost.infra import diskcache

    cache = diskcache.get_cache()
    key = diskcache.digest(model, diskcache.package_fingerprint("tiktoken"), diskcache.source_digest())
    if cache is not None:
        stored = cache.get_blob("tiktoken-model", key)
        if stored is not None:
            try:
                name, note = json.loads(stored)
            except ValueError:
                name = note = None
            if isinstance(name, str) and name in ENCODING_SHA256 and (note is None or isinstance(note, str)):
                found = _MODEL_ENCODINGS[model] = (name, note)
                return found
    found = _MODEL_ENCODINGS[model] = _openai_encoding_uncached(model)
    if cache is not None:
        cache.put_blob("tiktoken-model", key, json.dumps(list(found)).encode(), now=False)
    return found


def _openai_encoding_uncached(model: str) -> tuple[str, str | None]:
    from tiktoken.model import encoding_name_for_model

    try:
        name = encoding_name_for_model(model)
    except KeyError:
        if model.startswith(("gpt-3.5", "gpt-35")) or model == "gpt-4" or model.startswith("gpt-4-"):
            return "cl100k_base", f"{model}: not in tiktoken's model map; counted with cl100k_base"
        return "o200k_base", f"{model}: not in tiktoken's model map; counted with o200k_base"
    if name == "o200k_harmony":
        return "o200k_base", None
    if name not in ENCODING_SHA256:
        return "o200k_base", (
            f"{model}: tiktoken maps it to {name}, which is not bundled offline; counted with o200k_base"
        )
    return name, None


@record
class ToolConstants:
    """The cookbook's per-model constants for ``num_tokens_for_tools``."""

    func_init: int
    prop_init: int
    prop_key: int
    enum_init: int
    enum_item: int
    func_end: int
    family: str  # which cookbook row these are ("gpt-4o" or "gpt-3.5-turbo/gpt-4")
    cookbook: bool  # False when the cookbook has no constants for the model (gpt-4o's are used)


_GPT4O_TOOLS = (7, 3, 3, -3, 3, 12)
_GPT4_TOOLS = (10, 3, 3, -3, 3, 12)


def openai_tool_constants(model: str) -> ToolConstants:
    """Cookbook constants: gpt-4o/gpt-4o-mini 7/3/3/-3/3/12, gpt-3.5-turbo/gpt-4 10/3/3/-3/3/12.

    Dated snapshots of those models use their row. Everything else (gpt-4.1, gpt-4.5, gpt-5+,
    o-series, ...) has no cookbook constants and gets gpt-4o's, with ``cookbook=False``.
    """
    if model in ("gpt-4o", "gpt-4o-mini") or model.startswith(("gpt-4o-", "gpt-4o-mini-")):
        return ToolConstants(*_GPT4O_TOOLS, family="gpt-4o", cookbook=True)
    if model in ("gpt-3.5-turbo", "gpt-4") or re.match(r"^gpt-(3\.5-turbo|4)-\d{4}", model):
        return ToolConstants(*_GPT4_TOOLS, family="gpt-3.5-turbo/gpt-4", cookbook=True)
    if model.startswith(("gpt-3.5", "gpt-4-")):
        return ToolConstants(*_GPT4_TOOLS, family="gpt-3.5-turbo/gpt-4", cookbook=False)
    return ToolConstants(*_GPT4O_TOOLS, family="gpt-4o", cookbook=False)


def openai_message_constants(model: str) -> tuple[int, int]:
    """``(tokens_per_message, tokens_per_name)``: 4/-1 for gpt-3.5-turbo-0301, else 3/1 (cookbook)."""
    if model.startswith(("gpt-3.5-turbo-0301", "gpt-3.5-0301")):
        return 4, -1
    return 3, 1


OPENAI_REPLY_PRIMING = 3  # "every reply is primed with <|start|>assistant<|message|>" (cookbook)


def num_tokens_from_messages(
    messages: Sequence[Mapping[str, str]], model: str = "gpt-4o-mini-2024-07-18"
) -> int:
    """The OpenAI cookbook's ``num_tokens_from_messages``: prompt tokens of a chat message list.

    Per message ``tokens_per_message`` + the tokens of every value (role, content, name) +
    ``tokens_per_name`` for a ``name`` key; then 3 priming tokens. Text is counted with
    ``encode_ordinary`` in the model's encoding (offline).
    """
    encoding_name, _ = openai_encoding_name(model)
    per_message, per_name = openai_message_constants(model)
    total = 0
    for message in messages:
        total += per_message
        for key, value in message.items():
            total += count_text(value, encoding_name)
            if key == "name":
                total += per_name
    return total + OPENAI_REPLY_PRIMING


def num_tokens_for_tools(
    functions: Sequence[Mapping[str, Any]], messages: Sequence[Mapping[str, str]], model: str
) -> int:
    """The OpenAI cookbook's ``num_tokens_for_tools``: tool definitions + ``num_tokens_from_messages``.

    ``functions`` are chat-completions tools (``{"type": "function", "function": {...}}``) or bare
    function objects (``{"name", "description", "parameters"}``, as in the Responses API).
    """
    constants = openai_tool_constants(model)
    encoding_name, _ = openai_encoding_name(model)
    definitions = 0
    if functions:
        for entry in functions:
            function = entry.get("function", entry)
            definitions += function_tokens(
                str(function.get("name", "")),
                function.get("description"),
                function.get("parameters") or {},
                constants,
                lambda text: count_text(text, encoding_name),
            )[0]
        definitions += constants.func_end
    return definitions + num_tokens_from_messages(messages, model)


def _strip_period(text: str) -> str:
    return text[:-1] if text.endswith(".") else text


def _schema_type(schema: Mapping[str, Any]) -> str:
    """The ``type`` of a JSON-schema property as one string (the cookbook reads it verbatim)."""
    kind = schema.get("type")
    if isinstance(kind, str):
        return kind
    if isinstance(kind, list):
        return " | ".join(str(k) for k in kind)
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list):
            return " | ".join(_schema_type(o) for o in options if isinstance(o, Mapping))
    ref = schema.get("$ref")
    if isinstance(ref, str):
        return ref.rsplit("/", 1)[-1]
    return "any"


def function_tokens(
    name: str,
    description: object,
    parameters: Mapping[str, Any],
    constants: ToolConstants,
    count: Callable[[str], int],
) -> tuple[int, bool]:
    """One function's tokens by the cookbook recipe; ``True`` when our extensions were needed.

    Extensions (only where the cookbook would fail or ignore part of the schema): a missing
    description counts as empty (the property line is then ``name:type``), a missing/compound type
    is rendered by :func:`_schema_type`, non-string enum items are counted as JSON, and nested
    object properties (also inside array ``items``) are counted recursively like top-level ones.
    """
    total = constants.func_init
    extended = not isinstance(description, str)
    text = description if isinstance(description, str) else ""
    total += count(name + ":" + _strip_period(text))
    properties = parameters.get("properties") if isinstance(parameters, Mapping) else None
    if isinstance(properties, Mapping) and properties:
        tokens, nested_extended = _properties_tokens(properties, constants, count)
        total += tokens
        extended = extended or nested_extended
    return total, extended


def _properties_tokens(
    properties: Mapping[str, Any], constants: ToolConstants, count: Callable[[str], int]
) -> tuple[int, bool]:
    total = constants.prop_init
    extended = False
    for key, raw in properties.items():
        schema: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
        total += constants.prop_key
        p_type = schema.get("type")
        if not isinstance(p_type, str):
            extended = True
        enum = schema.get("enum")
        if isinstance(enum, list):
            total += constants.enum_init
            for item in enum:
                total += constants.enum_item
                if isinstance(item, str):
                    total += count(item)
                else:
                    extended = True
                    total += count(dump_json(item, separators=(", ", ": "), ensure_ascii=True))
        p_desc = schema.get("description")
        if isinstance(p_desc, str):
            total += count(f"{key}:{_schema_type(schema)}:{_strip_period(p_desc)}")
        else:
            extended = True
            total += count(f"{key}:{_schema_type(schema)}")
        nested = _nested_properties(schema)
        if nested:
            extended = True
            tokens, _ = _properties_tokens(nested, constants, count)
            total += tokens
    return total, extended


def _nested_properties(schema: Mapping[str, Any]) -> Mapping[str, Any] | None:
    properties = schema.get("properties")
    if isinstance(properties, Mapping) and properties:
        return properties
    items = schema.get("items")
    if isinstance(items, Mapping):
        inner = items.get("properties")
        if isinstance(inner, Mapping) and inner:
            return inner
    return None


# Our agent-loop framing for OpenAI (see agentcost.tokens.count's docstring), from the Harmony rendering with
# o200k tokens. Per call: <|channel|> "commentary"(2) " to=functions."(4) <|constrain|> "json"
# <|message|> <|call|> = 9 besides name and arguments. Per result: "functions."(2) " to=assistant"(3)
# <|channel|> "commentary"(2) = 7 besides the message framing, name and content.
OPENAI_TOOL_CALL_FRAMING = 9
OPENAI_TOOL_RESULT_FRAMING = 7
