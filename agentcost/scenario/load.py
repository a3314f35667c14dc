"""Scenario file (YAML, version 1) -> :class:`~agentcost.scenario.model.Scenario`.

The format is defined once, by the pydantic models below (``extra="forbid"``, strict types): they
validate the file and they generate the published JSON Schema (:func:`json_schema`).

Reading goes in five steps, each raising :class:`~agentcost.errors.InputError` with the file, the
1-based line and the key path of the problem:

1. read the bytes as UTF-8 and compose them with PyYAML (nodes keep their line numbers);
2. build plain Python values from the nodes ourselves, recording the line of every key path and
   refusing duplicate keys; numbers with a fraction become ``Decimal`` from the scalar's text, so a
   ``float`` never exists;
3. apply the ``--set PATH=VALUE`` overrides to those plain values, in order (an error about a value
   an override set names the override instead of a line: :class:`OverrideError`);
4. validate the plain values with the pydantic models and turn the first error (by line) into one
   readable message;
5. read the files the scenario names (each once), normalise the tool definitions, apply
   ``defaults`` and unroll ``repeat``.

Every file (the scenario and the files it names) is read through a :data:`Reader`: from disk by
default, or e.g. from a git revision (:func:`agentcost.infra.gitread.git_reader`).

Steps 1, 2 and 4 and the parsing of overrides are :mod:`agentcost.infra.yamlread`, shared with the other
file formats; this module holds what is particular to scenarios.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any, Literal, NoReturn

from pydantic import (
    AfterValidator,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    TypeAdapter,
    WithJsonSchema,
)
from pydantic.config import JsonDict

from agentcost.errors import InputError
from agentcost.infra.jsontext import dump_json
from agentcost.infra.yamlread import (
    Doc,
    ErrorHints,
    KeyPath,
    Override,
    OverrideError,
    Reader,
    SchemaGenerator,
    Spec,
    Unreadable,
    allowed_hint,
    closest,
    int_to_decimal,
    joined,
    key_text,
    parse,
    parse_override,
    shown,
    text_reader,
    validate,
)
from agentcost.scenario.model import (
    MAX_BUDGET_USD,
    SCENARIO_VERSION,
    CacheTTL,
    CachingMode,
    Content,
    ContextEditing,
    Dist,
    Limits,
    Pacing,
    Provider,
    QuotaState,
    ResultTrim,
    Retries,
    Round,
    Scenario,
    ServerToolName,
    ServerToolUse,
    ServiceTier,
    SizeField,
    Spread,
    ThinkingRetention,
    ToolChoice,
    ToolDef,
    ToolUse,
)

__all__ = ["MAX_ROUNDS", "OverrideError", "Reader", "dump_json", "json_schema", "load_scenario"]

MAX_ROUNDS = 100_000
"""Most rounds (tool rounds and chat turns) a scenario may have after ``repeat`` is unrolled."""
MAX_CALLS = 200_000
"""Most tool calls a run may make, parallel calls and subagents' included (docs/limits.md)."""

_SUPPORTED_VERSIONS = (SCENARIO_VERSION,)


# --------------------------------------------------------------------------------------------
# The format: pydantic models. One source of truth for validation and for the JSON Schema.
# --------------------------------------------------------------------------------------------


MAX_COUNT = 1_000_000_000
"""Largest count a scenario may state (tokens, sizes, repeats): 500 times the largest context window,
so a larger one is surely a typo (docs/limits.md). Not in the JSON Schema: checked after the type."""


def _at_most_max_count(value: int) -> int:
    from pydantic_core import PydanticCustomError

    if value > MAX_COUNT:  # worded by yamlread like Field(le=...): "must be <= 1,000,000,000, got N"
        raise PydanticCustomError("less_than_equal", "must be <= {le}", {"le": MAX_COUNT})
    return value


Count = Annotated[int, Field(ge=0), AfterValidator(_at_most_max_count)]
PositiveCount = Annotated[int, Field(ge=1), AfterValidator(_at_most_max_count)]
Name = Annotated[str, Field(min_length=1)]
JsonObject = dict[str, Any]

Money = Annotated[
    Decimal,
    BeforeValidator(int_to_decimal),
    Field(gt=0, le=MAX_BUDGET_USD),
    WithJsonSchema({"type": "number", "exclusiveMinimum": 0, "maximum": int(MAX_BUDGET_USD)}),
]


MAX_SECONDS = Decimal(1_000_000_000)  # about 32 years: longer waits are surely typos

Seconds = Annotated[
    Decimal,
    BeforeValidator(int_to_decimal),
    Field(ge=0, le=MAX_SECONDS),
    WithJsonSchema({"type": "number", "minimum": 0, "maximum": int(MAX_SECONDS)}),
]


class TokensContent(Spec):
    """A stated size in tokens, for text you do not want to write out."""

    tokens: Count = Field(description="Size in tokens.")


class TextContent(Spec):
    """Text written out in the scenario."""

    text: str = Field(description="The text itself.")


class FileContent(Spec):
    """Text read from a UTF-8 file."""

    file: Name = Field(description="Path of a UTF-8 text file, relative to the scenario file.")


# --- distributions (agentcost.scenario.dists): a count or size the user is unsure of

DIST_KEYS = ("fixed", "uniform", "triangular", "pert", "lognormal", "empirical")
MAX_EMPIRICAL_VALUES = 1_000_000
_DIST = (
    "{fixed: N}, {uniform: [min, max]}, {triangular: [min, mode, max]}, {pert: [min, mode, max]}, "
    "{lognormal: {median: M, p90: P}} or {empirical: [values...] or {file: path}}"
)
Size = Annotated[int, Field(ge=0, le=1_000_000_000)]
Positive = Annotated[
    Decimal,
    BeforeValidator(int_to_decimal),
    Field(gt=0, le=1_000_000_000),
    WithJsonSchema({"type": "number", "exclusiveMinimum": 0, "maximum": 1_000_000_000}),
]


class FixedDist(Spec):
    """Always this value (a distribution that is not one: for what-ifs and tests)."""

    fixed: Size = Field(description="The value.")


class UniformDist(Spec):
    """Every whole number from min to max equally likely."""

    uniform: Annotated[list[Size], Field(min_length=2, max_length=2)] = Field(description="[min, max].")


class TriangularDist(Spec):
    """The triangle distribution from min to max, peaking at the most likely value."""

    triangular: Annotated[list[Size], Field(min_length=3, max_length=3)] = Field(
        description="[min, most likely, max]."
    )


class PertDist(Spec):
    """Beta-PERT: like triangular, smoother, mean (min + 4 x most likely + max) / 6."""

    pert: Annotated[list[Size], Field(min_length=3, max_length=3)] = Field(
        description="[min, most likely, max]."
    )


class LognormalParams(Spec):
    """A lognormal distribution's median and 90th percentile."""

    median: Positive = Field(description="Half the runs are below this.")
    p90: Positive = Field(description="Nine runs in ten are below this (above the median).")


class LognormalDist(Spec):
    """Long-tailed: given by its median and 90th percentile; unbounded above."""

    lognormal: LognormalParams = Field(description="{median: M, p90: P}.")


class EmpiricalDist(Spec):
    """Observed values (e.g. last week's step counts), each equally likely."""

    empirical: Annotated[list[Size], Field(min_length=1, max_length=MAX_EMPIRICAL_VALUES)] | FileContent = (
        Field(description="The values, or {file: path} of a text file with one value per line.")
    )


def _dist_kind(value: Any) -> str | None:
    if isinstance(value, dict) and len(value) == 1:
        key = next(iter(value))
        return key if key in DIST_KEYS else None
    return None


DistValue = Annotated[
    Annotated[FixedDist, Tag("fixed")]
    | Annotated[UniformDist, Tag("uniform")]
    | Annotated[TriangularDist, Tag("triangular")]
    | Annotated[PertDist, Tag("pert")]
    | Annotated[LognormalDist, Tag("lognormal")]
    | Annotated[EmpiricalDist, Tag("empirical")],
    Discriminator(_dist_kind, custom_error_type="distribution", custom_error_message="bad distribution"),
]
AnyDist = FixedDist | UniformDist | TriangularDist | PertDist | LognormalDist | EmpiricalDist


def _count_kind(value: Any) -> str:
    """A mapping is a distribution; anything else is checked (and explained) as a whole number."""
    return "dist" if isinstance(value, dict) else "~int"


_COUNT = Discriminator(_count_kind, custom_error_type="count", custom_error_message="bad count")
CountValue = Annotated[
    Annotated[Count, Tag("~int"), Field(description="A whole number >= 0.")]
    | Annotated[DistValue, Tag("dist")],
    _COUNT,
]
PositiveCountValue = Annotated[
    Annotated[PositiveCount, Tag("~int"), Field(description="A whole number >= 1.")]
    | Annotated[DistValue, Tag("dist")],
    _COUNT,
]


def _content_kind(value: Any) -> str | None:
    if type(value) is int:
        return "~int"
    if isinstance(value, str):
        return "~str"
    if isinstance(value, dict):
        if _dist_kind(value) is not None:
            return "dist"
        kinds = [key for key in ("tokens", "text", "file") if key in value]
        if len(kinds) == 1 and len(value) == 1:
            return kinds[0]
    return None


ContentValue = Annotated[
    Annotated[Count, Tag("~int"), Field(description="A size in tokens.")]
    | Annotated[str, Tag("~str"), Field(description="The text itself.")]
    | Annotated[TokensContent, Tag("tokens")]
    | Annotated[TextContent, Tag("text")]
    | Annotated[FileContent, Tag("file")]
    | Annotated[DistValue, Tag("dist")],
    Discriminator(_content_kind, custom_error_type="content", custom_error_message="bad content"),
]

_CONTENT = "an integer (tokens), a text, or one of {tokens: N}, {text: ...}, {file: path}"


_DEFER = (
    "Deferred loading (tool search): until a round loads the tool, only a short stub of it is sent "
    "(tool_search_stub tokens)."
)


class AnthropicTool(Spec):
    """A tool definition in Anthropic Messages API format."""

    name: Name = Field(description="The tool's name, as the model calls it.")
    description: str | None = Field(default="", description="What the tool does, as the model reads it.")
    input_schema: JsonObject = Field(description="JSON Schema of the tool's input.")
    type: Literal["custom"] | None = Field(default=None, description="Anthropic's tool type: custom.")
    cache_control: JsonObject | None = Field(
        default=None, description="Anthropic cache breakpoint (ignored: caching is set by `caching`)."
    )
    strict: bool | None = Field(default=None, description="Strict tool use (does not change the count).")
    defer_loading: bool | None = Field(default=None, description=_DEFER)


class OpenAIFunction(Spec):
    """The ``function`` part of an OpenAI Chat Completions tool."""

    name: Name = Field(description="The function's name, as the model calls it.")
    description: str | None = Field(default="", description="What the function does, as the model reads it.")
    parameters: JsonObject | None = Field(
        default=None, description="JSON Schema of the arguments (default: an object with no properties)."
    )
    strict: bool | None = Field(default=None, description="Structured outputs for the arguments.")
    defer_loading: bool | None = Field(default=None, description=_DEFER)


class OpenAIChatTool(Spec):
    """A tool definition in OpenAI Chat Completions format."""

    type: Literal["function"] = Field(description="Always function.")
    function: OpenAIFunction = Field(description="The function the model can call.")
    defer_loading: bool | None = Field(default=None, description=_DEFER)


class OpenAIResponsesTool(Spec):
    """A tool definition in OpenAI Responses API format."""

    type: Literal["function"] = Field(description="Always function.")
    name: Name = Field(description="The function's name, as the model calls it.")
    description: str | None = Field(default="", description="What the function does, as the model reads it.")
    parameters: JsonObject | None = Field(
        default=None, description="JSON Schema of the arguments (default: an object with no properties)."
    )
    strict: bool | None = Field(default=None, description="Structured outputs for the arguments.")
    defer_loading: bool | None = Field(default=None, description=_DEFER)


class MCPTool(Spec):
    """A tool as an MCP server lists it (tools/list)."""

    name: Name = Field(description="The tool's name, as the model calls it.")
    title: str | None = Field(default=None, description="Display name (not sent to the model).")
    description: str | None = Field(default="", description="What the tool does, as the model reads it.")
    inputSchema: JsonObject = Field(description="JSON Schema of the tool's input.")
    outputSchema: JsonObject | None = Field(default=None, description="JSON Schema of the output (unused).")
    annotations: JsonObject | None = Field(default=None, description="MCP tool annotations (unused).")
    meta: JsonObject | None = Field(default=None, alias="_meta", description="MCP metadata (unused).")
    icons: list[Any] | None = Field(default=None, description="MCP icons (unused).")
    defer_loading: bool | None = Field(default=None, description=_DEFER)


class ToolFile(Spec):
    """Tool definitions read from a JSON or YAML file."""

    file: Name = Field(
        description="Path, relative to the scenario file, of a JSON or YAML file holding a list of "
        "tool definitions (any format), an MCP tools/list result {tools: [...]}, a JSON-RPC "
        "response {result: {tools: [...]}}, or one tool definition."
    )
    defer_loading: bool | None = Field(
        default=None,
        description="Defer every tool in the file (a tool's own defer_loading wins): " + _DEFER,
    )


def _tool_kind(value: Any) -> str | None:
    if not isinstance(value, dict):
        return None
    if "function" in value:
        return "~openai-chat"
    if value.get("type") == "function" or "parameters" in value:
        return "~openai-responses"
    if "inputSchema" in value or ("input_schema" not in value and _looks_like_mcp(value)):
        return "~mcp"
    return "~anthropic"


def _looks_like_mcp(tool: dict[str, Any]) -> bool:
    """Whether a tool without a schema key seems meant as MCP (camelCase, e.g. a typo of inputSchema)."""
    mcp_only = ("title", "inputSchema", "outputSchema", "annotations", "_meta", "icons")
    return any(closest(key, mcp_only) for key in tool if key not in ("name", "description"))


def _tool_item_kind(value: Any) -> str | None:
    if isinstance(value, dict) and "file" in value:
        return "~file"
    return _tool_kind(value)


_TOOL_MEMBERS = (
    Annotated[AnthropicTool, Tag("~anthropic")]
    | Annotated[OpenAIChatTool, Tag("~openai-chat")]
    | Annotated[OpenAIResponsesTool, Tag("~openai-responses")]
    | Annotated[MCPTool, Tag("~mcp")]
)
_TOOL_ERROR: dict[str, Any] = {"custom_error_type": "tool", "custom_error_message": "bad tool"}
ToolSpec = Annotated[_TOOL_MEMBERS, Discriminator(_tool_kind, **_TOOL_ERROR)]
ToolItem = Annotated[
    _TOOL_MEMBERS | Annotated[ToolFile, Tag("~file")],
    Discriminator(_tool_item_kind, **_TOOL_ERROR),
]
AnyToolModel = AnthropicTool | OpenAIChatTool | OpenAIResponsesTool | MCPTool


class ToolsListResult(Spec):
    """An MCP tools/list result."""

    tools: list[ToolSpec] = Field(description="The tools.")
    nextCursor: str | None = Field(default=None, description="Pagination cursor (unused).")
    meta: JsonObject | None = Field(default=None, alias="_meta", description="MCP metadata (unused).")


class JsonRpcToolsList(Spec):
    """A JSON-RPC response carrying an MCP tools/list result."""

    jsonrpc: str | None = Field(default=None, description="JSON-RPC version.")
    id: int | str | None = Field(default=None, description="Request id.")
    result: ToolsListResult = Field(description="The tools/list result.")


_EXCLUSIVE_CALL: JsonDict = {"not": {"required": ["input", "call_tokens"]}}

_CALL_TOKENS = "Size of the tool call (the tool_use block) in tokens, instead of `input`."
_RESULT = "The tool result sent back: " + _CONTENT + "."
_THINKING = "Reasoning output tokens of this response (billed as output)."
_TEXT = "Assistant text written before the tool call: " + _CONTENT + "."
_SECONDS = (
    "Wall time in seconds from this round's request to the next one (model latency + tool run), "
    "for cache expiry; overrides pacing.round_seconds."
)
_SERVER_TOOLS = "Server-side tools the provider runs inside this response (web search, fetch, code)."


class ServerToolSpec(Spec):
    """One server-side tool the provider runs inside a response (billed per use)."""

    tool: ServerToolName = Field(
        description="web_search (Gemini: Google Search grounding), web_fetch or code_execution."
    )
    uses: PositiveCount | None = Field(default=1, description="Billable uses in this response.")
    result: ContentValue | None = Field(
        default=None, description="What its results add to the context: " + _CONTENT + "."
    )


_SUBAGENT = (
    "The call hands work to a subagent: {file: path} of another scenario file, or an inline scenario "
    "mapping (model, system, tools, task, rounds, final, ...). Its requests are billed on its own "
    "model; its final answer is the result."
)
_ROUND_MODEL = (
    "Routing: this round's request runs on another model (priced and counted with it); a model "
    "switch breaks the prompt cache."
)


class CallSpec(Spec):
    """One of several tool calls the model writes in one response (parallel tool calls)."""

    model_config = ConfigDict(json_schema_extra=_EXCLUSIVE_CALL)

    tool: Name = Field(description="Name of the tool called (one of `tools`, when tools are given).")
    input: JsonObject | None = Field(
        default=None, description="The call's arguments as the model writes them (a mapping)."
    )
    call_tokens: PositiveCountValue | None = Field(default=None, description=_CALL_TOKENS)
    result: ContentValue | None = Field(default=None, description=_RESULT)
    subagent: JsonObject | None = Field(default=None, description=_SUBAGENT)


class RoundSpec(Spec):
    """One tool round: the model writes a tool call (or several: calls), the result(s) are sent back."""

    model_config = ConfigDict(
        json_schema_extra={**_EXCLUSIVE_CALL, "oneOf": [{"required": ["tool"]}, {"required": ["calls"]}]}
    )

    tool: Name | None = Field(
        default=None, description="Name of the tool called (one of `tools`, when tools are given)."
    )
    input: JsonObject | None = Field(
        default=None, description="The call's arguments as the model writes them (a mapping)."
    )
    call_tokens: PositiveCountValue | None = Field(default=None, description=_CALL_TOKENS)
    result: ContentValue | None = Field(default=None, description=_RESULT)
    calls: Annotated[list[CallSpec], Field(min_length=1)] | None = Field(
        default=None,
        description="Parallel tool calls: several tool_use blocks in one response, all results sent "
        "back in the next request (instead of tool, input/call_tokens, result).",
    )
    subagent: JsonObject | None = Field(default=None, description=_SUBAGENT)
    model: Name | None = Field(default=None, description=_ROUND_MODEL)
    repeat: PositiveCountValue | None = Field(
        default=1,
        description="How many times this round happens in a row: a number, or a distribution "
        "(0 allowed: the round may not happen).",
    )
    thinking: CountValue | None = Field(default=None, description=_THINKING)
    text: ContentValue | None = Field(default=None, description=_TEXT)
    seconds: Seconds | None = Field(default=None, description=_SECONDS)
    server_tools: list[ServerToolSpec] | None = Field(default=None, description=_SERVER_TOOLS)


_REPLY = (
    "The model's plain-text answer in this turn (no tool call): " + _CONTENT + ". The last answer of "
    "the conversation is `final`."
)
_USER = "The user's next message, sent after the reply: " + _CONTENT + "."
_TOOL_ROUND_ONLY = ("tool", "input", "call_tokens", "result", "text", "calls", "subagent")


class ChatTurnSpec(Spec):
    """One chat turn: the model answers in plain text, the user sends the next message."""

    reply: ContentValue = Field(description=_REPLY)
    user: ContentValue = Field(description=_USER)
    repeat: PositiveCountValue | None = Field(
        default=1, description="How many times this turn happens in a row: a number or a distribution."
    )
    thinking: CountValue | None = Field(default=None, description=_THINKING)
    seconds: Seconds | None = Field(default=None, description=_SECONDS)
    server_tools: list[ServerToolSpec] | None = Field(default=None, description=_SERVER_TOOLS)

    @classmethod
    def misplaced(cls, key: str) -> tuple[str, str] | None:
        if key not in _TOOL_ROUND_ONLY:
            return None
        hints = {
            "text": "in a chat turn the assistant's text is reply",
            "result": "in a chat turn the message sent back is user",
        }
        kinds = "a round is a tool round (tool, input or call_tokens, result) or a chat turn (reply, user)"
        return f"a chat turn (reply, user) cannot have {key}", hints.get(key, kinds)


def _round_kind(value: Any) -> str:
    """Which kind of round an item is: a chat turn when it has reply or user, else a tool round."""
    if isinstance(value, dict) and ("reply" in value or "user" in value):
        return "~chat"
    return "~tool"


RoundItem = Annotated[
    Annotated[RoundSpec, Tag("~tool")] | Annotated[ChatTurnSpec, Tag("~chat")],
    Discriminator(_round_kind),
]


class DefaultsSpec(Spec):
    """Keys applied to every round that does not set them."""

    call_tokens: PositiveCountValue | None = Field(
        default=None, description=_CALL_TOKENS + " Used by rounds with neither input nor call_tokens."
    )
    result: ContentValue | None = Field(default=None, description=_RESULT)
    thinking: CountValue | None = Field(default=None, description=_THINKING)
    text: ContentValue | None = Field(default=None, description=_TEXT)
    seconds: Seconds | None = Field(default=None, description=_SECONDS)
    server_tools: list[ServerToolSpec] | None = Field(default=None, description=_SERVER_TOOLS)


class PacingSpec(Spec):
    """How long the agent takes between requests, for cache expiry."""

    round_seconds: Seconds | None = Field(
        default=None,
        description="Default wall time in seconds from one request to the next (model latency + "
        "tool run), for rounds without their own seconds. Left out: no pauses.",
    )


class CacheTTLSpec(Spec):
    """Two cache lifetimes (Anthropic): one for the stable prefix, one for the conversation."""

    prefix: CacheTTL = Field(description="Lifetime of the entry at the tools -> system breakpoint: 5m or 1h.")
    conversation: CacheTTL = Field(
        description="Lifetime of the entries at the last message: 5m or 1h (not longer than prefix)."
    )


def _ttl_kind(value: Any) -> str:
    return "map" if isinstance(value, dict) else "~str"


CacheTTLValue = Annotated[
    Annotated[CacheTTL, Tag("~str")] | Annotated[CacheTTLSpec, Tag("map")],
    Discriminator(_ttl_kind),
]


class LimitsSpec(Spec):
    """Limits of the agent loop."""

    max_rounds: PositiveCount | None = Field(
        default=None, description="Stop after this many rounds (the run is reported as truncated)."
    )
    budget_usd: Money | None = Field(
        default=None, description="Budget in US dollars; an estimate over it fails (exit code 1)."
    )
    max_budget_usd: Money | None = Field(
        default=None,
        description="Stop the run between requests once the running cost would pass this many US "
        "dollars (as the Claude Agent SDK does); the run is reported as truncated.",
    )


Share = Annotated[
    Decimal,
    BeforeValidator(int_to_decimal),
    Field(ge=0, le=1),
    WithJsonSchema({"type": "number", "minimum": 0, "maximum": 1}),
]


class RetriesSpec(Spec):
    """Tool calls that fail validation and are retried (each failure is a full extra request)."""

    model_config = ConfigDict(json_schema_extra={"not": {"required": ["share", "count"]}})

    share: Share | None = Field(
        default=None, description="Share of the tool rounds whose call fails once (0 to 1, spread evenly)."
    )
    count: Count | None = Field(default=None, description="Failed calls in all (instead of share).")
    error: ContentValue | None = Field(
        default=None,
        description="The error result sent back for a failed call: " + _CONTENT + " (default: per provider).",
    )


class TrimSpec(Spec):
    """Result trimming done by the agent's own code before results go back to the model."""

    max_tokens: PositiveCount | None = Field(
        default=None, description="Cap every tool result at this many tokens."
    )
    keep_last: Count | None = Field(
        default=None,
        description="Keep only the last N tool results in full; older ones become a short placeholder "
        "(this changes earlier context, so the cache is written again from the edit point).",
    )


class ContextEditingSpec(Spec):
    """Anthropic context editing (clear_tool_uses): clear old tool results once the context is large."""

    trigger: PositiveCount | None = Field(
        default=None, description="Clear once a request's input passes this many tokens (default 100000)."
    )
    keep: Count | None = Field(default=None, description="Tool uses kept, the most recent (default 3).")
    clear_at_least: Count | None = Field(
        default=None, description="Clear only if at least this many tokens go (default 0)."
    )
    placeholder: Count | None = Field(
        default=None, description="Tokens a cleared result leaves behind (default 10)."
    )
    exclude_tools: list[Name] | None = Field(
        default=None, description="Tools whose results are never cleared."
    )


class ScenarioFile(Spec):
    """An agentcost scenario: one run of a tool-using agent loop, whose cost is estimated."""

    model_config = ConfigDict(title="agentcost scenario")

    version: Literal[1] = Field(description="Format version of this file: 1.")
    name: str | None = Field(default=None, description="A short name for the scenario.")
    description: str | None = Field(default=None, description="What the scenario models.")
    model: Name = Field(description="Model id, e.g. claude-sonnet-4-5, gpt-5, gemini-2.5-pro.")
    provider: Provider | None = Field(
        default=None, description="The model's provider (default: inferred from the model id)."
    )
    system: ContentValue | None = Field(default=None, description="System prompt: " + _CONTENT + ".")
    tools: list[ToolItem] | None = Field(
        default=None,
        description="Tool definitions (Anthropic, OpenAI Chat Completions, OpenAI Responses or "
        "MCP format), or {file: path} to a JSON/YAML file of them.",
    )
    tool_choice: ToolChoice | None = Field(
        default="auto", description="auto: the model decides; any/tool: a tool must be called; none."
    )
    task: ContentValue = Field(description="The first user message: " + _CONTENT + ".")
    defaults: DefaultsSpec | None = Field(
        default=None, description="Keys applied to every round that does not set them."
    )
    rounds: list[RoundItem] | None = Field(
        default=None, description="The rounds, in order: tool rounds and chat turns."
    )
    final: ContentValue = Field(description="The final plain-text answer: " + _CONTENT + ".")
    caching: CachingMode | None = Field(
        default=None,
        description="Prompt caching: none, prefix, conversation, or explicit (Gemini explicit "
        "caches; default: per provider).",
    )
    cache_ttl: CacheTTLValue | None = Field(
        default="5m",
        description="Lifetime of cache entries: 5m or 1h, or {prefix: 1h, conversation: 5m} "
        "(Anthropic: the stable prefix and the conversation with their own TTLs).",
    )
    limits: LimitsSpec | None = Field(default=None, description="Limits of the agent loop.")
    pacing: PacingSpec | None = Field(
        default=None, description="How long rounds take, for cache expiry (default: no pauses)."
    )
    service_tier: ServiceTier | None = Field(
        default="standard", description="Service tier: standard, batch, flex or priority."
    )
    thinking_retention: ThinkingRetention | None = Field(
        default="auto",
        description="Whether earlier thinking is re-sent as input: auto (by model family), keep, "
        "last (only in the next request) or drop.",
    )
    final_thinking: CountValue | None = Field(
        default=None, description="Reasoning output tokens of the final answer (billed as output)."
    )
    server_tool_quota: QuotaState | None = Field(
        default="spent",
        description="spent: every server-tool use is billed; available: uses inside the provider's "
        "free quota cost nothing.",
    )
    retries: RetriesSpec | None = Field(
        default=None, description="Calls that fail validation and are retried with an error result."
    )
    trim: TrimSpec | None = Field(
        default=None, description="Cap tool results, or keep only the last N in full."
    )
    context_editing: ContextEditingSpec | None = Field(
        default=None,
        description="Clear old tool results once the context passes a trigger (Anthropic clear_tool_uses).",
    )
    tool_search_stub: Count | None = Field(
        default=None, description="Tokens a deferred tool (defer_loading) costs until loaded (default 9)."
    )


def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of scenario files, for editors (yaml-language-server)."""
    schema = ScenarioFile.model_json_schema(schema_generator=SchemaGenerator)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}


_MISSING_HINTS = {
    "version": "add 'version: 1' at the top",
    "model": "e.g. 'model: claude-sonnet-4-5'",
    "task": "the first user message: " + _CONTENT,
    "final": "the final answer: " + _CONTENT,
    "tool": "the name of the tool this round calls; or reply and user for a chat turn",
    "reply": "the model's plain-text answer before the user's message: " + _CONTENT,
    "user": "a chat turn needs the user's next message; the conversation's last answer is final, not a round",
    "server_tools.tool": "web_search, web_fetch or code_execution",
    "calls.tool": "the name of the tool this call uses",
    "input_schema": "a tool needs a JSON schema of its input: input_schema (Anthropic), "
    "parameters (OpenAI) or inputSchema (MCP)",
    "type": "OpenAI tools start with 'type: function'",
}

ERROR_HINTS = ErrorHints(
    missing=_MISSING_HINTS,
    parents=("server_tools", "calls"),
    expected={
        "tool": "a tool definition (a mapping)",
        "content": _CONTENT,
        "distribution": "a distribution: " + _DIST,
        "count": "a whole number or a distribution: " + _DIST,
    },
    mapping_problem=lambda kind, path, given: (
        _content_mapping_problem(path, given)
        if kind == "content"
        else _dist_mapping_problem(path, given)
        if kind in ("distribution", "count")
        else None
    ),
)
"""The scenario format's additions to validation messages (for :func:`agentcost.infra.yamlread.validate`)."""


def _content_mapping_problem(path: KeyPath, given: dict[str, Any]) -> tuple[KeyPath, str, str]:
    """The problem of a mapping given as a content value: an unknown key, or several kinds."""
    keys = ("tokens", "text", "file")
    unknown = [key for key in given if key not in (*keys, *DIST_KEYS)]
    if unknown:
        hint = allowed_hint(unknown[0], keys)
        close = closest(unknown[0], DIST_KEYS) if closest(unknown[0], keys) is None else None
        if close is not None:
            hint += f"; or a distribution: did you mean {close!r}?"
        return (*path, unknown[0]), "unknown key", hint
    return path, "give only one of tokens, text, file", f"got {', '.join(given)}"


def _dist_mapping_problem(path: KeyPath, given: dict[str, Any]) -> tuple[KeyPath, str, str]:
    """The problem of a mapping given as a distribution: an unknown key, or several kinds."""
    unknown = [key for key in given if key not in DIST_KEYS]
    if unknown:
        return (*path, unknown[0]), "unknown key", allowed_hint(unknown[0], DIST_KEYS)
    return path, "give one distribution", f"got {', '.join(given)}; e.g. {{uniform: [4, 12]}}"


# --------------------------------------------------------------------------------------------
# Overrides: --set PATH=VALUE, applied to the plain values before they are validated
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Items:
    """A list whose items hold ``item``."""

    item: _Level


_Level = type[Spec] | _Items | Literal["content", "tool", "round", "any"]
"""What a value holds, as far as overrides care: a mapping whose keys a model knows, a list, a
content value, a tool definition or a round (their model depends on their keys: a tool round or a
chat turn), or anything else (a plain value or free JSON such as ``input``; validation checks it)."""

_CHILDREN: dict[tuple[type[Spec], str], _Level] = {
    (ScenarioFile, "system"): "content",
    (ScenarioFile, "tools"): _Items("tool"),
    (ScenarioFile, "task"): "content",
    (ScenarioFile, "defaults"): DefaultsSpec,
    (ScenarioFile, "rounds"): _Items("round"),
    (ScenarioFile, "final"): "content",
    (ScenarioFile, "limits"): LimitsSpec,
    (ScenarioFile, "pacing"): PacingSpec,
    (ScenarioFile, "cache_ttl"): CacheTTLSpec,
    (DefaultsSpec, "result"): "content",
    (DefaultsSpec, "text"): "content",
    (DefaultsSpec, "server_tools"): _Items(ServerToolSpec),
    (RoundSpec, "result"): "content",
    (RoundSpec, "text"): "content",
    (RoundSpec, "server_tools"): _Items(ServerToolSpec),
    (RoundSpec, "calls"): _Items(CallSpec),
    (CallSpec, "result"): "content",
    (ScenarioFile, "retries"): RetriesSpec,
    (RetriesSpec, "error"): "content",
    (ScenarioFile, "trim"): TrimSpec,
    (ScenarioFile, "context_editing"): ContextEditingSpec,
    (ChatTurnSpec, "reply"): "content",
    (ChatTurnSpec, "user"): "content",
    (ChatTurnSpec, "server_tools"): _Items(ServerToolSpec),
    (ServerToolSpec, "result"): "content",
    (OpenAIChatTool, "function"): OpenAIFunction,
}
"""The keys whose value is more than "anything" (a test checks that every model field is here or
needs no entry)."""

_CONTENT_KEYS = [*TokensContent.allowed_keys(), *TextContent.allowed_keys(), *FileContent.allowed_keys()]

_TOOL_MODELS: dict[str | None, type[Spec]] = {
    "~anthropic": AnthropicTool,
    "~openai-chat": OpenAIChatTool,
    "~openai-responses": OpenAIResponsesTool,
    "~mcp": MCPTool,
    "~file": ToolFile,
}


_ROUND_MODELS: dict[str, type[Spec]] = {"~tool": RoundSpec, "~chat": ChatTurnSpec}


class _Setter:
    """Applies one override to a scenario's plain values (``doc.value``), step by step.

    A key that does not exist yet is created (as a mapping, when more steps follow); ``[*]`` goes
    through every item; setting a key of a content value replaces the whole content value.
    """

    def __init__(self, doc: Doc, override: Override) -> None:
        self.doc = doc
        self.override = override
        self.steps = override.steps

    def run(self) -> None:
        first = self.steps[0]
        assert isinstance(first, str)  # the path syntax starts with a key
        self.mapping(self.doc.value, ScenarioFile, (), 0, first)

    def apply(self, parent: Any, slot: str | int, level: _Level, at: KeyPath, n: int) -> None:
        """Apply ``steps[n:]`` to ``parent[slot]``, the value at key path ``at``, which holds ``level``."""
        if n == len(self.steps):
            parent[slot] = copy.deepcopy(self.override.value)
            self.doc.overrides[at] = self.override
            return
        value = parent.get(slot) if isinstance(parent, dict) else parent[slot]
        step = self.steps[n]
        if not isinstance(step, str):
            self.items(value, level, at, n, step)
            return
        if level == "content":  # X.tokens, X.text or X.file replaces X, whatever it was
            self.check_key(_CONTENT_KEYS, n)
            value = parent[slot] = {}
        elif isinstance(level, _Items):
            where = self.written(n)
            self.fail(n, f"{where} is a list", f"select its items with {where}[N] or {where}[*]")
        elif value is None:
            value = parent[slot] = {}
        self.mapping(value, level, at, n, step)

    def mapping(self, value: Any, level: _Level, at: KeyPath, n: int, key: str) -> None:
        """Step ``n`` is ``key`` of ``value``."""
        if not isinstance(value, dict):
            self.fail(n, f"{self.written(n)} is not a mapping: it is {shown(value)}")
        model = (
            _TOOL_MODELS[_tool_item_kind(value)]
            if level == "tool"
            else _ROUND_MODELS[_round_kind(value)]
            if level == "round"
            else level
        )
        child: _Level = "any"
        if isinstance(model, type):  # keys known: check this one
            tool_file = f"{self.written(n)} names a tool file; --set cannot change the tools in it"
            self.check_key(model.allowed_keys(), n, tool_file if model is ToolFile else None)
            child = _CHILDREN.get((model, key), "any")
        self.apply(value, key, child, (*at, key), n + 1)

    def items(self, value: Any, level: _Level, at: KeyPath, n: int, step: int | None) -> None:
        """Step ``n`` is ``[step]`` (``[*]`` for None) of ``value``."""
        where = self.written(n)
        if value is None and isinstance(level, _Items):
            value = []  # no items: [*] changes nothing, [N] is out of range
        if not isinstance(value, list):
            what = "not set" if value is None else shown(value)
            self.fail(n, f"{where} is not a list: it is {what}", "[N] and [*] select the items of a list")
        indices: Iterable[int] = range(len(value))
        if step is not None:
            index = step + len(value) if step < 0 else step
            if not 0 <= index < len(value):
                self.fail(
                    n + 1,
                    f"index {step} is out of range: {where} has {_items(len(value))}",
                    _index_hint(where, len(value)),
                )
            indices = [index]
        item = level.item if isinstance(level, _Items) else "any"
        for index in indices:
            self.apply(value, index, item, (*at, index), n + 1)

    def check_key(self, allowed: Sequence[str], n: int, hint: str | None = None) -> None:
        key = str(self.steps[n])
        if key not in allowed:
            where = f" in {self.written(n)}" if n else ""
            self.fail(n + 1, f"unknown key {key!r}{where}", joined(allowed_hint(key, allowed), hint))

    def written(self, n: int) -> str:
        """The path as written, up to step ``n`` (excluded)."""
        return key_text(self.steps[:n])

    def fail(self, n: int, message: str, hint: str | None = None) -> NoReturn:
        """Raise an error about the path up to step ``n`` (excluded)."""
        raise OverrideError(
            message, file=self.doc.path, override=self.override.text, key=self.written(n), hint=hint
        )


def _items(count: int) -> str:
    return "no items" if count == 0 else f"{count} item" + ("s" if count != 1 else "")


def _index_hint(where: str, count: int) -> str | None:
    if count == 0:
        return None
    hint = f"{where}[0] to {where}[{count - 1}], or {where}[-1] for the last"
    return hint + ("; a round with repeat is one item" if where == "rounds" else "")


# --------------------------------------------------------------------------------------------
# From validated models to the spec dataclasses
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Origin:
    """Where a tool was defined, for error messages."""

    doc: Doc
    path: KeyPath

    @property
    def where(self) -> str:
        return self.doc.where(self.path)


class _ScenarioReader:
    """Turns a validated scenario file into a :class:`Scenario`, reading the files it names."""

    def __init__(
        self, doc: Doc, spec: ScenarioFile, read_text: Callable[[Path], str], *, depth: int = 0
    ) -> None:
        self.doc = doc
        self.spec = spec
        self.base = doc.path.parent
        self.read_text = read_text
        self.texts: dict[Path, str] = {}  # each file is read once
        self.depth = depth  # 0: the scenario given; 1: a subagent of it; ...
        self.dists: dict[KeyPath, Dist] = {}  # each distribution is built once (defaults are shared)
        self.spreads: list[Spread] = []

    def scenario(self, overrides: tuple[str, ...]) -> Scenario:
        spec, doc = self.spec, self.doc
        tools = self.tools(spec.tools or [])
        self.check_tool_choice(spec, bool(tools))
        limits = spec.limits or LimitsSpec()
        rounds = self.rounds(tuple(tool.name for tool in tools))
        final_thinking = spec.final_thinking
        return Scenario(
            path=doc.path,
            model=spec.model,
            model_line=doc.own_line(("model",)),
            provider=spec.provider,
            system=None if spec.system is None else self.content(spec.system, ("system",)),
            tools=tools,
            tool_choice=spec.tool_choice or "auto",
            task=self.content(spec.task, ("task",)),
            rounds=rounds,
            final=self.content(spec.final, ("final",)),
            caching=spec.caching,
            **self.cache_ttl(spec.cache_ttl),
            limits=Limits(
                max_rounds=limits.max_rounds,
                budget_usd=limits.budget_usd,
                max_rounds_line=doc.own_line(("limits", "max_rounds")),
                budget_line=doc.own_line(("limits", "budget_usd")),
                max_budget_usd=limits.max_budget_usd,
                max_budget_line=doc.own_line(("limits", "max_budget_usd")),
            ),
            name=spec.name,
            description=spec.description,
            overrides=overrides,
            pacing=Pacing(round_seconds=(spec.pacing or PacingSpec()).round_seconds),
            service_tier=spec.service_tier or "standard",
            service_tier_line=doc.own_line(("service_tier",)),
            thinking_retention=spec.thinking_retention or "auto",
            final_thinking=self.count(final_thinking, ("final_thinking",)) or 0,
            server_tool_quota=spec.server_tool_quota or "spent",
            retries=self.retries(spec.retries),
            trim=None if spec.trim is None else self.trim(spec.trim),
            context_editing=self.context_editing(spec.context_editing, tools),
            tool_search_stub=spec.tool_search_stub if spec.tool_search_stub is not None else 9,
            spreads=tuple(self.spreads),
            final_dist=self.dist_at(spec.final, ("final",)),
            final_thinking_dist=self.dist_at(final_thinking, ("final_thinking",)),
        )

    def cache_ttl(self, value: CacheTTL | CacheTTLSpec | None) -> dict[str, Any]:
        """``Scenario.cache_ttl`` and ``prefix_cache_ttl`` (None unless the two TTLs differ)."""
        if not isinstance(value, CacheTTLSpec):
            return {"cache_ttl": value or "5m"}
        if value.prefix == "5m" and value.conversation == "1h":
            raise self.doc.error(
                ("cache_ttl", "conversation"),
                "a 1h conversation entry cannot follow a 5m prefix entry",
                "Anthropic requires cache entries with a longer TTL to come before shorter ones; "
                "use {prefix: 1h, conversation: 5m}, or one TTL",
            )
        prefix = value.prefix if value.prefix != value.conversation else None
        return {"cache_ttl": value.conversation, "prefix_cache_ttl": prefix}

    # -- agent dynamics

    def retries(self, item: RetriesSpec | None) -> Retries:
        if item is None:
            return Retries()
        if item.share is not None and item.count is not None:
            raise self.doc.error(
                ("retries", "count"), "share and count exclude each other", "give one of them"
            )
        error = None if item.error is None else self.content(item.error, ("retries", "error"))
        return Retries(share=item.share or Decimal(0), count=item.count or 0, error=error)

    def trim(self, item: TrimSpec) -> ResultTrim:
        if item.max_tokens is None and item.keep_last is None:
            raise self.doc.error(("trim",), "trim sets nothing", "give max_tokens, keep_last or both")
        if item.keep_last is not None and self.spec.context_editing is not None:
            raise self.doc.error(
                ("trim", "keep_last"),
                "trim.keep_last and context_editing exclude each other",
                "both clear old tool results; keep one of them",
            )
        return ResultTrim(max_tokens=item.max_tokens, keep_last=item.keep_last)

    def context_editing(
        self, item: ContextEditingSpec | None, tools: tuple[ToolDef, ...]
    ) -> ContextEditing | None:
        if item is None:
            return None
        names = tuple(tool.name for tool in tools)
        excluded = item.exclude_tools or []
        for i, name in enumerate(excluded):
            if names and name not in names:
                close = closest(name, names)
                hint = f"defined: {', '.join(names[:12])}" + (f"; did you mean {close!r}?" if close else "")
                raise self.doc.error(("context_editing", "exclude_tools", i), f"unknown tool {name!r}", hint)
        default = ContextEditing()
        return ContextEditing(
            trigger=item.trigger if item.trigger is not None else default.trigger,
            keep=item.keep if item.keep is not None else default.keep,
            clear_at_least=item.clear_at_least if item.clear_at_least is not None else default.clear_at_least,
            placeholder=item.placeholder if item.placeholder is not None else default.placeholder,
            exclude_tools=tuple(excluded),
        )

    def _load_subagent(self, value: dict[str, Any], path: KeyPath, line: int | None, depth: int) -> Scenario:
        """The subagent a tool call hands work to: ``value`` is the raw ``subagent`` mapping at key
        path ``path`` (line ``line``) of this file, ``{file: path}`` or an inline scenario; ``depth``
        is the subagent's nesting depth (1 for a subagent of the top-level scenario).

        Hook for the subagents mechanism (loading, depth limit, cycles)."""
        from agentcost.loop.subagents import load_subagent

        return load_subagent(
            value,
            parent_path=self.doc.path,
            line=line,
            reader=self.read_text,
            depth=depth,
            doc=self.doc,
            at=path,
        )

    # -- content and files

    # -- distributions

    def dist_at(self, value: Any, path: KeyPath, minimum: int = 0) -> Dist | None:
        """The distribution written at ``path`` (None if ``value`` is not one)."""
        if not isinstance(value, AnyDist):
            return None
        if path not in self.dists:
            self.dists[path] = self.dist(value, path, minimum)
        return self.dists[path]

    def dist(self, value: AnyDist, path: KeyPath, minimum: int) -> Dist:
        where, line = key_text(path), self.doc.line(path)
        kind = _dist_kind(value.model_dump())
        assert kind is not None
        if isinstance(value, FixedDist):
            params = [value.fixed]
        elif isinstance(value, UniformDist):
            params = list(value.uniform)
        elif isinstance(value, TriangularDist | PertDist):
            params = list(value.triangular if isinstance(value, TriangularDist) else value.pert)
            if not params[0] <= params[1] <= params[2]:
                raise self.doc.error(
                    (*path, kind),
                    f"min {params[0]:,}, most likely {params[1]:,}, max {params[2]:,} are not in order",
                    "write [min, most likely, max] with min <= most likely <= max",
                )
        elif isinstance(value, LognormalDist):
            ln = value.lognormal
            if ln.p90 <= ln.median:
                raise self.doc.error(
                    (*path, "lognormal", "p90"),
                    f"p90 ({ln.p90}) must be above the median ({ln.median})",
                    "nine runs in ten are below p90; half are below the median",
                )
            return Dist("lognormal", (ln.median, ln.p90), where, line, minimum)
        else:
            assert isinstance(value, EmpiricalDist)
            given = value.empirical
            params = (
                given if isinstance(given, list) else self.empirical_file(given.file, (*path, "empirical"))
            )
            params = sorted(params)
        if isinstance(value, UniformDist) and params[0] > params[1]:
            raise self.doc.error(
                (*path, kind), f"min {params[0]:,} is above max {params[1]:,}", "write [min, max]"
            )
        if minimum and max(params) < minimum:
            raise self.doc.error(
                (*path, kind), f"every value is below {minimum}", f"a draw is at least {minimum}"
            )
        return Dist(kind, tuple(Decimal(p) for p in params), where, line, minimum)  # type: ignore[arg-type]

    def empirical_file(self, name: str, path: KeyPath) -> list[int]:
        """The whole numbers of a file of observed values: one or more per line (commas or spaces
        between them), ``#`` starts a comment."""
        text = self.read(name, (*path, "file"))
        file = self.file_path(name)
        values: list[int] = []
        for n, line in enumerate(text.splitlines(), start=1):
            for word in line.split("#", 1)[0].replace(",", " ").split():
                if not word.isascii() or not word.isdigit() or int(word) > 1_000_000_000:
                    raise InputError(
                        f"not a whole number from 0 to 1,000,000,000: {word[:40]!r}",
                        file=file,
                        line=n,
                        hint=f"observed values for {key_text(path)}, one or more per line",
                    )
                values.append(int(word))
                if len(values) > MAX_EMPIRICAL_VALUES:
                    raise InputError(
                        f"more than {MAX_EMPIRICAL_VALUES:,} values", file=file, line=n, hint="sample them"
                    )
        if not values:
            raise InputError(
                "no values", file=file, hint=f"observed values for {key_text(path)}, one or more per line"
            )
        return values

    def count(self, value: Any, path: KeyPath, minimum: int = 0) -> int | None:
        """A count or size: the number, or the median of the distribution written there."""
        if value is None or isinstance(value, int):
            return value
        from agentcost.scenario.dists import median

        dist = self.dist_at(value, path, minimum)
        assert dist is not None
        return median(dist)

    def content(self, value: Any, path: KeyPath) -> Content:
        if isinstance(value, AnyDist):
            tokens = self.count(value, path)
            assert tokens is not None
            return Content(tokens=tokens)
        if isinstance(value, int):
            return Content(tokens=value)
        if isinstance(value, str):
            return Content(text=value)
        if isinstance(value, TokensContent):
            return Content(tokens=value.tokens)
        if isinstance(value, TextContent):
            return Content(text=value.text)
        if isinstance(value, FileContent):
            return Content(text=self.read(value.file, (*path, "file")))
        raise TypeError(f"unexpected content {value!r}")  # pragma: no cover - a bug, not input

    def file_path(self, name: str) -> Path:
        return self.base / name

    def read(self, name: str, path: KeyPath) -> str:
        file = self.file_path(name)
        key = Path(os.path.abspath(file))  # unlike resolve(), never touches the file system
        if key not in self.texts:
            try:
                self.texts[key] = self.read_text(file)
            except Unreadable as e:
                raise self.doc.error(path, f"cannot read {file}: {e.reason}") from None
        return self.texts[key]

    # -- tools

    def tools(self, items: list[Any]) -> tuple[ToolDef, ...]:
        tools: list[ToolDef] = []
        seen: dict[str, _Origin] = {}
        for i, item in enumerate(items):
            line = self.doc.line(("tools", i))
            defer = item.defer_loading if isinstance(item, ToolFile) else None
            for model, origin in self.tool_models(item, ("tools", i)):
                tool = _tool_def(model, line, defer)
                if tool.name in seen:
                    raise origin.doc.error(
                        (*origin.path, "name"),
                        f"duplicate tool name {tool.name!r}",
                        f"first defined at {seen[tool.name].where}",
                    )
                seen[tool.name] = origin
                tools.append(tool)
        return tuple(tools)

    def tool_models(self, item: Any, path: KeyPath) -> list[tuple[AnyToolModel, _Origin]]:
        if not isinstance(item, ToolFile):
            return [(item, _Origin(self.doc, path))]
        file = self.file_path(item.file)
        try:
            text = self.read_text(file)
        except Unreadable as e:
            raise self.doc.error((*path, "file"), f"cannot read {file}: {e.reason}") from None
        hint = f"tool file named at {self.doc.where(path)}"
        tool_doc = parse(Doc(file, hint=hint), text)
        return [(model, _Origin(tool_doc, where)) for model, where in _tool_file_models(tool_doc)]

    def check_tool_choice(self, spec: ScenarioFile, has_tools: bool) -> None:
        choice, path = spec.tool_choice or "auto", ("tool_choice",)
        if choice in ("any", "tool") and not has_tools:
            raise self.doc.error(path, f"{choice!r} needs tools, but none are defined")
        tool_rounds = [item for item in spec.rounds or [] if isinstance(item, RoundSpec)]
        if choice == "none" and tool_rounds:
            raise self.doc.error(
                path,
                f"'none' forbids tool calls, but rounds has {len(tool_rounds)} tool round(s)",
                "use auto, or remove the tool rounds",
            )

    # -- rounds

    def rounds(self, tool_names: tuple[str, ...]) -> tuple[Round, ...]:
        defaults = self.spec.defaults or DefaultsSpec()
        rounds: list[Round] = []
        for i, item in enumerate(self.spec.rounds or []):
            path: KeyPath = ("rounds", i)
            repeat_dist = self.dist_at(item.repeat, (*path, "repeat"))
            repeat = self.count(item.repeat, (*path, "repeat"))
            repeat = 1 if repeat is None else repeat
            if repeat_dist is not None:
                from agentcost.scenario.dists import upper

                most = upper(repeat_dist)
                if most is not None and len(rounds) + most > MAX_ROUNDS:
                    raise self.doc.error(
                        (*path, "repeat"), f"more than {MAX_ROUNDS:,} rounds after repeats at the maximum"
                    )
            if len(rounds) + repeat > MAX_ROUNDS:
                raise self.doc.error(path, f"more than {MAX_ROUNDS:,} rounds after repeats")
            if isinstance(item, ChatTurnSpec):
                one = self.chat_turn(item, defaults, path)
            else:
                one = self.round(item, defaults, path, tool_names)
            sizes = self.sizes(item, defaults, path)
            if repeat_dist is not None or sizes:
                self.spreads.append(Spread(len(rounds), repeat, one, repeat_dist, sizes))
            rounds.extend([one] * repeat)
        return tuple(rounds)

    def sizes(
        self, item: RoundSpec | ChatTurnSpec, defaults: DefaultsSpec, path: KeyPath
    ) -> tuple[tuple[SizeField, int, Dist], ...]:
        """The distributions among a rounds item's sizes (its own or from defaults)."""
        found: list[tuple[SizeField, int, Dist | None]] = []

        def own(value: Any, default: Any, key: str, at: KeyPath = path) -> Dist | None:
            given, given_path = _own_or_default(value, default, at, key)
            return self.dist_at(given, given_path, 1 if key == "call_tokens" else 0)

        found.append(("thinking", 0, own(item.thinking, defaults.thinking, "thinking")))
        if isinstance(item, ChatTurnSpec):
            found.append(("text", 0, self.dist_at(item.reply, (*path, "reply"))))
            found.append(("user", 0, self.dist_at(item.user, (*path, "user"))))
        else:
            found.append(("text", 0, own(item.text, defaults.text, "text")))
            calls: list[tuple[RoundSpec | CallSpec, KeyPath]] = (
                [(call, (*path, "calls", j)) for j, call in enumerate(item.calls)]
                if item.calls is not None
                else [(item, path)]
            )
            for j, (call, at) in enumerate(calls):
                if call.subagent is None:
                    found.append(("result", j, own(call.result, defaults.result, "result", at)))
                if call.input is None:
                    found.append(("call", j, own(call.call_tokens, defaults.call_tokens, "call_tokens", at)))
        return tuple((name, j, dist) for name, j, dist in found if dist is not None)

    def chat_turn(self, item: ChatTurnSpec, defaults: DefaultsSpec, path: KeyPath) -> Round:
        """A chat turn: no call; the reply is the assistant's text; the user's message comes back.

        Of ``defaults``, the keys of a response apply (thinking, seconds, server_tools); those of a
        tool call (call_tokens, result, text) do not."""
        thinking, thinking_path = _own_or_default(item.thinking, defaults.thinking, path, "thinking")
        seconds = item.seconds if item.seconds is not None else defaults.seconds
        return Round(
            calls=(),
            thinking=self.count(thinking, thinking_path) or 0,
            text=self.content(item.reply, (*path, "reply")),
            line=self.doc.line(path),
            seconds=seconds,
            server_tools=self.server_tools(item.server_tools, defaults, path),
            user=self.content(item.user, (*path, "user")),
        )

    def server_tools(
        self, own: list[ServerToolSpec] | None, defaults: DefaultsSpec, path: KeyPath
    ) -> tuple[ServerToolUse, ...]:
        servers, servers_path = _own_or_default(own, defaults.server_tools, path, "server_tools")
        return tuple(self.server_tool(server, (*servers_path, i)) for i, server in enumerate(servers or []))

    def round(
        self, item: RoundSpec, defaults: DefaultsSpec, path: KeyPath, tool_names: tuple[str, ...]
    ) -> Round:
        thinking, thinking_path = _own_or_default(item.thinking, defaults.thinking, path, "thinking")
        text, text_path = _own_or_default(item.text, defaults.text, path, "text")
        if item.calls is not None:  # parallel calls: several tool_use blocks in one response
            for key in ("tool", "input", "call_tokens", "result", "subagent"):
                if getattr(item, key) is not None:
                    raise self.doc.error(
                        (*path, key),
                        f"calls and {key} exclude each other",
                        "give each call's tool, input or call_tokens, and result in an item of calls",
                    )
            calls = tuple(
                self.tool_use(call, defaults, (*path, "calls", j), tool_names, "call")
                for j, call in enumerate(item.calls)
            )
        else:
            calls = (self.tool_use(item, defaults, path, tool_names, "round"),)
        seconds = item.seconds if item.seconds is not None else defaults.seconds
        return Round(
            calls=calls,
            thinking=self.count(thinking, thinking_path) or 0,
            text=None if text is None else self.content(text, text_path),
            line=self.doc.line(path),
            model=item.model,
            seconds=seconds,
            server_tools=self.server_tools(item.server_tools, defaults, path),
        )

    def tool_use(
        self,
        item: RoundSpec | CallSpec,
        defaults: DefaultsSpec,
        path: KeyPath,
        tool_names: tuple[str, ...],
        what: Literal["round", "call"],
    ) -> ToolUse:
        """The tool call of a round (``what`` "round"), or one of its parallel calls ("call")."""
        if item.tool is None:
            raise self.doc.error(
                (*path, "tool"),
                "required key is missing",
                "the name of the tool this round calls; calls: [...] for parallel calls; or reply and "
                "user for a chat turn",
            )
        if tool_names and item.tool not in tool_names:
            raise self.doc.error(
                (*path, "tool"), f"unknown tool {item.tool!r}", _tools_hint(item.tool, tool_names)
            )
        subagent: Scenario | None = None
        subagent_line: int | None = None
        if item.subagent is not None:
            if item.result is not None:
                raise self.doc.error(
                    (*path, "result"),
                    "subagent and result exclude each other",
                    "the subagent's final answer is the result",
                )
            subagent_path = (*path, "subagent")
            subagent_line = self.doc.line(subagent_path)
            subagent = self._load_subagent(item.subagent, subagent_path, subagent_line, self.depth + 1)
            result = subagent.final
        else:
            given, result_path = _own_or_default(item.result, defaults.result, path, "result")
            if given is None:
                raise self.doc.error(
                    path,
                    f"the {what} has no result",
                    "add result: N tokens, a text or {file: path}, or set defaults.result",
                )
            result = self.content(given, result_path)
        return ToolUse(
            tool=item.tool,
            input=self.call(item, defaults, path, what),
            result=result,
            subagent=subagent,
            subagent_line=subagent_line,
        )

    def server_tool(self, item: ServerToolSpec, path: KeyPath) -> ServerToolUse:
        return ServerToolUse(
            tool=item.tool,
            uses=item.uses if item.uses is not None else 1,
            result=None if item.result is None else self.content(item.result, (*path, "result")),
        )

    def call(
        self,
        item: RoundSpec | CallSpec,
        defaults: DefaultsSpec,
        path: KeyPath,
        what: Literal["round", "call"] = "round",
    ) -> Content:
        if item.input is not None and item.call_tokens is not None:
            raise self.doc.error(
                (*path, "call_tokens"), "input and call_tokens exclude each other", "give one of them"
            )
        if item.input is not None:
            return Content(text=dump_json(item.input))
        given, given_path = _own_or_default(item.call_tokens, defaults.call_tokens, path, "call_tokens")
        tokens = self.count(given, given_path, minimum=1)
        if tokens is None:
            raise self.doc.error(
                path,
                f"the {what} has neither input nor call_tokens",
                "add input: {...} or call_tokens: N, or set defaults.call_tokens",
            )
        return Content(tokens=tokens)


def _own_or_default(own: Any, default: Any, path: KeyPath, key: str) -> tuple[Any, KeyPath]:
    """A round's own value for ``key``, else the default, each with the key path it came from."""
    if own is not None:
        return own, (*path, key)
    return default, ("defaults", key)


def _tools_hint(tool: str, names: tuple[str, ...]) -> str:
    shown = ", ".join(names[:12]) + (f", ... ({len(names)} in all)" if len(names) > 12 else "")
    close = closest(tool, names)
    return f"defined: {shown}" + (f"; did you mean {close!r}?" if close else "")


_TOOL_ADAPTER: TypeAdapter[AnyToolModel] = TypeAdapter(ToolSpec)
_TOOL_LIST_ADAPTER: TypeAdapter[list[AnyToolModel]] = TypeAdapter(list[ToolSpec])


def _tool_file_models(doc: Doc) -> list[tuple[AnyToolModel, KeyPath]]:
    """The tools in a tool file, each with its key path in that file."""
    value = doc.value
    if isinstance(value, list):
        tools = validate(_TOOL_LIST_ADAPTER.validate_python, doc, value, (), ERROR_HINTS)
        return [(tool, (i,)) for i, tool in enumerate(tools)]
    if isinstance(value, dict) and "tools" in value:
        listed = validate(ToolsListResult.model_validate, doc, value, (), ERROR_HINTS)
        return [(tool, ("tools", i)) for i, tool in enumerate(listed.tools)]
    if isinstance(value, dict) and "result" in value:
        response = validate(JsonRpcToolsList.model_validate, doc, value, (), ERROR_HINTS)
        return [(tool, ("result", "tools", i)) for i, tool in enumerate(response.result.tools)]
    if isinstance(value, dict):
        return [(validate(_TOOL_ADAPTER.validate_python, doc, value, (), ERROR_HINTS), ())]
    raise doc.error(
        (),
        f"expected tool definitions, got {shown(value)}",
        "a list of tools, {tools: [...]}, {result: {tools: [...]}} or one tool",
    )


def _parameters(schema: JsonObject | None) -> JsonObject:
    """OpenAI's parameters may be left out: a function without arguments."""
    return schema if schema is not None else {"type": "object", "properties": {}}


def _tool_def(model: AnyToolModel, line: int | None, defer: bool | None = None) -> ToolDef:
    """The tool; ``defer`` is the tool file's defer_loading, for tools that do not set their own."""
    own = model.defer_loading
    if isinstance(model, OpenAIChatTool) and own is None:
        own = model.function.defer_loading
    deferred = bool(own if own is not None else defer)
    if isinstance(model, AnthropicTool):
        return ToolDef(model.name, model.description or "", model.input_schema, line, deferred)
    if isinstance(model, OpenAIChatTool):
        function = model.function
        schema = _parameters(function.parameters)
        return ToolDef(function.name, function.description or "", schema, line, deferred)
    if isinstance(model, OpenAIResponsesTool):
        return ToolDef(model.name, model.description or "", _parameters(model.parameters), line, deferred)
    return ToolDef(model.name, model.description or "", model.inputSchema, line, deferred)


# --------------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------------


def load_scenario(
    path: Path | str, *, overrides: Sequence[str] = (), reader: Reader | None = None
) -> Scenario:
    """Read, validate and unroll a scenario file.

    ``overrides`` are the texts of ``--set PATH=VALUE`` options, applied in order to the values read
    from the file before they are checked (see docs/scenario.md). ``reader`` reads the scenario and
    every file it names (default: from disk). The user's files are never modified.

    Raises :class:`InputError` (one line: ``file:line: key: message (hint)``) for anything wrong
    with the file or with the files it names, and :class:`OverrideError` (``file: --set
    PATH=VALUE: message (hint)``) for a wrong override or a wrong value set by one.
    """
    if isinstance(overrides, str):
        raise TypeError("overrides is a sequence of PATH=VALUE texts, not one text")
    path = Path(path)
    read_text = text_reader(reader)
    try:
        text = read_text(path)
    except Unreadable as e:
        raise InputError(e.reason, file=path, line=e.line) from None
    doc = parse(Doc(path), text)
    _check_top_level(doc)
    for index, override in enumerate(overrides):
        _Setter(doc, parse_override(override, index, path)).run()
    if overrides:
        _check_top_level(doc)  # again: an override may have set the version
    spec = validate(ScenarioFile.model_validate, doc, doc.value, (), ERROR_HINTS)
    scenario = _ScenarioReader(doc, spec, read_text).scenario(tuple(overrides))
    _check_rounds_in_all(doc, scenario)
    return scenario


def _runs(scenario: Scenario) -> list[tuple[Round, int]]:
    """Each distinct round the run makes (none past ``limits.max_rounds``) and how often: the rounds
    of a ``repeat`` are one shared Round, so this is a step per round, not per call made."""
    made: dict[int, tuple[Round, int]] = {}
    for r in scenario.rounds[: scenario.limits.max_rounds]:  # [:None] is all of them
        made[id(r)] = (r, made[id(r)][1] + 1 if id(r) in made else 1)
    return list(made.values())


def _in_all(scenario: Scenario, memo: dict[int, tuple[int, int]]) -> tuple[int, int]:
    """(rounds, tool calls) a run makes: its own, its failed calls (``retries.count``, each a request
    of its own) and those of every subagent run it starts (a repeated round starts its subagent each
    time). Each scenario is counted once (``memo``)."""
    if id(scenario) not in memo:
        n_rounds = (
            min(len(scenario.rounds), scenario.limits.max_rounds or MAX_ROUNDS) + scenario.retries.count
        )
        n_calls = 0
        for r, times in _runs(scenario):
            n_calls += len(r.calls) * times
            for call in r.calls:
                if call.subagent is not None:
                    sub_rounds, sub_calls = _in_all(call.subagent, memo)
                    n_rounds, n_calls = n_rounds + sub_rounds * times, n_calls + sub_calls * times
        memo[id(scenario)] = (n_rounds, n_calls)
    return memo[id(scenario)]


def _check_rounds_in_all(doc: Doc, scenario: Scenario) -> None:
    """At most MAX_ROUNDS rounds and MAX_CALLS tool calls in all, failed calls, parallel calls and
    subagents' included: they multiply (1,000 rounds starting a 1,000-round subagent are a million;
    100,000 repeats of 2,000 parallel calls are 200 million calls), and the work grows with them.
    The error points at the biggest contributor."""
    memo: dict[int, tuple[int, int]] = {}
    rounds, calls = _in_all(scenario, memo)
    if rounds <= MAX_ROUNDS and calls <= MAX_CALLS:
        return
    which = 0 if rounds > MAX_ROUNDS else 1  # rounds, else calls
    parts: dict[tuple[str, int | None], int] = {}  # what each subagent, or each round's calls, adds
    for r, times in _runs(scenario):
        if which == 1:
            parts["round", r.line] = parts.get(("round", r.line), 0) + len(r.calls) * times
        for call in r.calls:
            if call.subagent is not None:
                key = ("subagent", call.subagent_line)
                parts[key] = parts.get(key, 0) + memo[id(call.subagent)][which] * times
    kind, line = max(parts, key=lambda at: parts[at], default=("retries", None))
    added = parts.get((kind, line), 0)
    at: KeyPath
    if which == 0:
        counted = (
            f"more than {MAX_ROUNDS:,} rounds in all, counting failed calls and subagents' rounds: {rounds:,}"
        )
        if scenario.retries.count >= added:
            raise doc.error(
                ("retries", "count"),
                f"{counted}, {scenario.retries.count:,} of them failed calls",
                "each failed call is a request of its own; give fewer, or retries.share",
            )
    else:
        counted = (
            f"more than {MAX_CALLS:,} tool calls in all, counting parallel calls and subagents': {calls:,}"
        )
    if kind == "round":
        at = next(
            (p for p, n in doc.lines.items() if n == line and len(p) == 2 and p[0] == "rounds"), ("rounds",)
        )
        raise doc.error(
            at,
            f"{counted}, {added:,} of them made by this round",
            "each repeat makes all of the round's calls again; lower repeat or the parallel calls",
        )
    at = next((p for p, n in doc.lines.items() if n == line and p and p[-1] == "subagent"), ("rounds",))
    raise doc.error(
        at,
        f"{counted}, {added:,} of them in the runs of this subagent",
        "a round starts its subagent each time it runs, repeats too; lower repeat, the subagent's "
        "rounds or limits.max_rounds",
    )


def scenario_from_doc(doc: Doc, read_text: Callable[[Path], str], *, depth: int = 0) -> Scenario:
    """The scenario in an already parsed document (a subagent's: :mod:`agentcost.loop.subagents`): its top
    level checked, validated and read, the files it names read by ``read_text``."""
    _check_top_level(doc)
    spec = validate(ScenarioFile.model_validate, doc, doc.value, (), ERROR_HINTS)
    return _ScenarioReader(doc, spec, read_text, depth=depth).scenario(())


def _check_top_level(doc: Doc) -> None:
    """The top level is a mapping with a supported version (checked before anything else)."""
    if not isinstance(doc.value, dict):
        raise doc.error((), f"expected a mapping of scenario keys at the top level, got {shown(doc.value)}")
    supported = ", ".join(str(v) for v in _SUPPORTED_VERSIONS)
    if "version" not in doc.value:
        raise doc.error(("version",), "required key is missing", f"add 'version: {supported}' at the top")
    version = doc.value["version"]
    if type(version) is not int:
        raise doc.error(("version",), f"expected an integer, got {shown(version)}", f"supported: {supported}")
    if version not in _SUPPORTED_VERSIONS:
        raise doc.error(("version",), f"unsupported version {version}", f"supported: {supported}")


if __name__ == "__main__":  # python -m agentcost.scenario.load > docs/scenario.schema.json
    print(json.dumps(json_schema(), indent=2))  # the same text as `agentcost schema`
