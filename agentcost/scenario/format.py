"""The scenario format, part 2: rounds and the top level of a scenario file, as pydantic models.

One source of truth for validation and for the published JSON Schema (:func:`json_schema`), with the
format's additions to validation messages (:data:`ERROR_HINTS`). The values the keys hold (content,
distributions, tool definitions) are :mod:`agentcost.scenario.values`.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BeforeValidator, ConfigDict, Discriminator, Field, Tag, WithJsonSchema
from pydantic.config import JsonDict

from agentcost.infra.validate import ID_PATTERN
from agentcost.infra.yamlread import (
    ErrorHints,
    KeyPath,
    SchemaGenerator,
    Spec,
    allowed_hint,
    closest,
    int_to_decimal,
)
from agentcost.scenario.model import (
    SUCCESS_SCALE,
    CacheTTL,
    CachingMode,
    Dist,
    OnFailure,
    QuotaState,
    ServerToolName,
    ServiceTier,
    ThinkingRetention,
    ToolChoice,
)
from agentcost.scenario.values import (
    CONTENT_FORMS,
    DIST_FORMS,
    DIST_KEYS,
    ContentValue,
    Count,
    CountValue,
    JsonObject,
    Money,
    Name,
    PositiveCount,
    PositiveCountValue,
    Seconds,
    ToolItem,
)

_EXCLUSIVE_CALL: JsonDict = {"not": {"required": ["input", "call_tokens"]}}
_CALLS: JsonDict = {"required": ["calls"]}

_CALL_TOKENS = "Size of the tool call (the tool_use block) in tokens, instead of `input`."
_RESULT = "The tool result sent back: " + CONTENT_FORMS + "."
_THINKING = "Reasoning output tokens of this response (billed as output)."
_TEXT = "Assistant text written before the tool call: " + CONTENT_FORMS + "."
_SECONDS = (
    "Wall time in seconds from this round's request to the next one (model latency + tool run), "
    "for cache expiry; overrides pacing.round_seconds."
)
_SERVER_TOOLS = (
    "Server-side tools the provider runs inside this response (web search, fetch, code). Alone in a "
    "round (no tool, no calls): they run inside the next round's response."
)


ProviderId = Annotated[str, Field(min_length=1, max_length=64, pattern=ID_PATTERN)]
"""A provider id (:data:`agentcost.scenario.model.Provider`): its shape here, its existence when priced."""


class ServerToolSpec(Spec):
    """One server-side tool the provider runs inside a response (billed per use)."""

    tool: ServerToolName = Field(
        description="web_search (Gemini: Google Search grounding), web_fetch or code_execution."
    )
    uses: PositiveCount | None = Field(default=1, description="Billable uses in this response.")
    result: ContentValue | None = Field(
        default=None, description="What its results add to the context: " + CONTENT_FORMS + "."
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
    """One tool round: the model writes a tool call (or several: calls), the result(s) are sent back.
    Or a round of server tools only (server_tools alone): they run inside the next round's response."""

    model_config = ConfigDict(
        json_schema_extra={
            **_EXCLUSIVE_CALL,
            "oneOf": [
                {"required": ["tool"]},
                {"required": ["calls"]},
                {
                    "required": ["server_tools"],
                    "not": {"anyOf": [{"required": [key]} for key in ("tool", "calls")]},
                },
            ],
        }
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
    container_seconds: Seconds | None = Field(
        default=None,
        description="Seconds of code-execution container time this round's response is billed for "
        "(default: its seconds, when it runs code_execution), at the provider's published rate.",
    )
    server_tools: list[ServerToolSpec] | None = Field(default=None, description=_SERVER_TOOLS)


_REPLY = (
    "The model's plain-text answer in this turn (no tool call): " + CONTENT_FORMS + ". The last answer of "
    "the conversation is `final`."
)
_USER = "The user's next message, sent after the reply: " + CONTENT_FORMS + "."
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


def round_kind(value: Any) -> str:
    """Which kind of round an item is: a chat turn when it has reply or user, else a tool round."""
    if isinstance(value, dict) and ("reply" in value or "user" in value):
        return "~chat"
    return "~tool"


RoundItem = Annotated[
    Annotated[RoundSpec, Tag("~tool")] | Annotated[ChatTurnSpec, Tag("~chat")],
    Discriminator(round_kind),
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
    max_concurrent_subagents: PositiveCount | None = Field(
        default=None,
        description="Run the subagents one response starts in waves of at most this many; their time "
        "(each wave as long as its slowest) is added to the parent's pacing.",
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
    attempts: PositiveCountValue | None = Field(
        default=None,
        description="Attempts each failing call takes, the one that succeeds included: a number (at "
        "least 2) or a distribution (default 2: it fails once, then succeeds).",
    )
    error: ContentValue | None = Field(
        default=None,
        description="The error result sent back for a failed call: "
        + CONTENT_FORMS
        + " (default: per provider).",
    )


MIN_SUCCESS = Decimal("0.000001")
"""Smallest success probability a scenario may state: one success in a million runs (a smaller one is
surely a typo, and 1/p would overflow the Decimal maths for a tiny enough p)."""


def _probability(value: Decimal) -> Decimal:
    from pydantic_core import PydanticCustomError

    if not 0 < value <= 1:
        raise PydanticCustomError(
            "probability",
            "must be above 0 and at most 1, got {got} (a probability: 0.7 for 70%)",
            {"got": str(value)},
        )
    if value < MIN_SUCCESS:
        raise PydanticCustomError(
            "probability",
            "must be at least 0.000001 (one success in a million runs), got {got}",
            {"got": str(value)},
        )
    return value


Probability = Annotated[
    Decimal,
    BeforeValidator(int_to_decimal),
    AfterValidator(_probability),
    WithJsonSchema({"type": "number", "minimum": float(MIN_SUCCESS), "maximum": 1}),
]


def _in_order(values: list[Decimal]) -> list[Decimal]:
    from pydantic_core import PydanticCustomError

    if len(values) == 2 and values[0] > values[1]:
        raise PydanticCustomError("order", f"min {values[0]} is above max {values[1]} (write [min, max])")
    if len(values) == 3 and not values[0] <= values[1] <= values[2]:
        raise PydanticCustomError(
            "order",
            f"min {values[0]}, most likely {values[1]}, max {values[2]} are not in order"
            " (write [min, most likely, max])",
        )
    return values


SuccessPair = Annotated[list[Probability], Field(min_length=2, max_length=2), AfterValidator(_in_order)]
SuccessTriple = Annotated[list[Probability], Field(min_length=3, max_length=3), AfterValidator(_in_order)]


class SuccessUniform(Spec):
    """Every success probability from min to max equally likely."""

    uniform: SuccessPair = Field(description="[min, max].")


class SuccessTriangular(Spec):
    """The triangle distribution of the success probability, peaking at the most likely value."""

    triangular: SuccessTriple = Field(description="[min, most likely, max].")


class SuccessPert(Spec):
    """Beta-PERT: like triangular, smoother."""

    pert: SuccessTriple = Field(description="[min, most likely, max].")


class SuccessEmpirical(Spec):
    """Observed success rates (e.g. of past weeks), each equally likely."""

    empirical: Annotated[list[Probability], Field(min_length=1, max_length=10_000)] = Field(
        description="The observed rates."
    )


SUCCESS_KINDS = ("uniform", "triangular", "pert", "empirical")
AnySuccessDist = SuccessUniform | SuccessTriangular | SuccessPert | SuccessEmpirical


def success_dist(item: Decimal | AnySuccessDist, line: int | None) -> tuple[Decimal, Dist | None]:
    """``outcome.success`` -> (the success the estimate uses, its distribution or None). A
    distribution is held in whole millionths (rounded half up), so that agentcost.scenario.dists
    draws it and takes its median as it does for counts; the estimate uses that median."""
    from agentcost.scenario.dists import median

    if isinstance(item, Decimal):
        return item, None

    kind = next(iter(item.model_dump()))
    values = sorted(item.empirical) if isinstance(item, SuccessEmpirical) else getattr(item, kind)
    units = tuple((v * SUCCESS_SCALE).to_integral_value(ROUND_HALF_UP) for v in values)
    dist = Dist(kind, units, "outcome.success", line, 1)  # type: ignore[arg-type]
    return Decimal(median(dist)) / SUCCESS_SCALE, dist


def _success_kind(value: Any) -> str:
    if isinstance(value, dict):
        key = next(iter(value), None) if len(value) == 1 else None
        return key if key in SUCCESS_KINDS else "uniform"  # checked (and explained) as one of them
    return "~p"


SuccessValue = Annotated[
    Annotated[Probability, Tag("~p")]
    | Annotated[SuccessUniform, Tag("uniform")]
    | Annotated[SuccessTriangular, Tag("triangular")]
    | Annotated[SuccessPert, Tag("pert")]
    | Annotated[SuccessEmpirical, Tag("empirical")],
    Discriminator(_success_kind),
]


class OutcomeSpec(Spec):
    """How often a run completes its task, and what a failed run costs (cost per completed task)."""

    success: SuccessValue = Field(
        description="Probability that a run completes its task: above 0, at most 1 (e.g. 0.7), or a "
        "distribution of it: {uniform: [min, max]}, {triangular: [min, mode, max]}, {pert: [min, mode, "
        "max]} or {empirical: [rates...]} (the estimate uses its median; --simulate draws it per run)."
    )
    on_failure: OnFailure | None = Field(
        default="retry",
        description="retry: a failed run is paid and the whole run is made again until it succeeds "
        "(up to max_attempts); abandon: a failed run is paid and nothing is completed.",
    )
    max_attempts: PositiveCount | None = Field(
        default=None,
        description="Most runs per task with on_failure: retry, the first included (default: unlimited).",
    )
    failure_rounds: PositiveCount | None = Field(
        default=None,
        description="A failed run is cut after this many rounds and costs only those rounds' requests "
        "(default: a failed run costs a whole run).",
    )
    success_by_model: dict[Name, Probability] | None = Field(
        default=None,
        max_length=1000,
        description="Success per model id where it differs from success (e.g. {gpt-5-mini: 0.55}), "
        "for compare and --model.",
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
    provider: ProviderId | None = Field(
        default=None,
        description="The model's provider as genai-prices names it (anthropic, openai, google, deepseek,"
        " aws, azure, x-ai, ...; default: inferred from the model id).",
    )
    system: ContentValue | None = Field(default=None, description="System prompt: " + CONTENT_FORMS + ".")
    tools: list[ToolItem] | None = Field(
        default=None,
        description="Tool definitions (Anthropic, OpenAI Chat Completions, OpenAI Responses or "
        "MCP format), or {file: path} to a JSON/YAML file of them. Server tools in their provider's "
        "format ({type: web_search_20250305, name: web_search}, {type: web_search}, {google_search: "
        "{}}) declare the server tools rounds' server_tools use.",
    )
    tool_choice: ToolChoice | None = Field(
        default="auto", description="auto: the model decides; any/tool: a tool must be called; none."
    )
    task: ContentValue = Field(description="The first user message: " + CONTENT_FORMS + ".")
    defaults: DefaultsSpec | None = Field(
        default=None, description="Keys applied to every round that does not set them."
    )
    rounds: list[RoundItem] | None = Field(
        default=None, description="The rounds, in order: tool rounds and chat turns."
    )
    final: ContentValue = Field(description="The final plain-text answer: " + CONTENT_FORMS + ".")
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
    outcome: OutcomeSpec | None = Field(
        default=None,
        description="Success rate of a run and what a failure costs: reports add the expected cost per "
        "completed task.",
    )


def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of scenario files, for editors (yaml-language-server)."""
    schema = ScenarioFile.model_json_schema(schema_generator=SchemaGenerator)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}


_MISSING_HINTS = {
    "version": "add 'version: 1' at the top",
    "model": "e.g. 'model: claude-sonnet-4-5'",
    "task": "the first user message: " + CONTENT_FORMS,
    "final": "the final answer: " + CONTENT_FORMS,
    "tool": "the name of the tool this round calls; or reply and user for a chat turn",
    "reply": "the model's plain-text answer before the user's message: " + CONTENT_FORMS,
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
        "content": CONTENT_FORMS,
        "distribution": "a distribution: " + DIST_FORMS,
        "count": "a whole number or a distribution: " + DIST_FORMS,
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
