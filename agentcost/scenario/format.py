"""The scenario format, part 2: rounds and the top level of a scenario file, as Spec mappings.

The one definition of the format (:mod:`agentcost.infra.spec`): it validates a file, its validated
mappings are what the builder (:mod:`agentcost.scenario.build`) reads, and it writes the published
JSON Schema (:func:`json_schema`); with the
format's additions to validation messages (:data:`ERROR_HINTS`). The values the keys hold (content,
distributions, tool definitions) are :mod:`agentcost.scenario.values`.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Literal, get_args

from agentcost.infra.spec import (
    Before,
    Check,
    Dec,
    DictOf,
    Invalid,
    ListOf,
    Lit,
    Model,
    Nullable,
    Schema,
    Spec,
    Str,
    Tagged,
    field,
)
from agentcost.infra.spec import json_schema as spec_json_schema
from agentcost.infra.validate import ID_PATTERN, amount
from agentcost.infra.yamlread import ErrorHints, KeyPath, allowed_hint, closest, int_to_decimal
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
    CONTENT,
    CONTENT_FORMS,
    COUNT,
    COUNT_VALUE,
    DIST_FORMS,
    DIST_KEYS,
    MONEY,
    NAME,
    POSITIVE_COUNT,
    POSITIVE_COUNT_VALUE,
    SECONDS,
    TOOL_ITEM,
    AnyToolModel,
    ContentValue,
    McpTools,
    ToolFile,
)

_EXCLUSIVE_CALL: dict[str, Any] = {"not": {"required": ["input", "call_tokens"]}}

_CALL_TOKENS = (
    "Size of the tool call's arguments in tokens (what `input` would count), instead of `input`; the"
    " tool name and the provider's tool-call framing are added on top."
)
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


PROVIDER_ID = Str(min_length=1, max_length=64, pattern=ID_PATTERN)
"""A provider id (:data:`agentcost.scenario.model.Provider`): its shape here, its existence when priced."""


def _choice(literal: Any) -> Lit:
    """The values of a ``Literal`` type of :mod:`agentcost.scenario.model`, as a shape."""
    return Lit(*get_args(literal))


_CONTENT = Nullable(CONTENT)
_COUNT_VALUE = Nullable(COUNT_VALUE)
_POSITIVE_COUNT_VALUE = Nullable(POSITIVE_COUNT_VALUE)
_SECONDS_VALUE = Nullable(SECONDS)
_POSITIVE = Nullable(POSITIVE_COUNT)
_COUNT = Nullable(COUNT)
_OBJECT = Nullable(DictOf())


class ServerToolSpec(Spec):
    """One server-side tool the provider runs inside a response (billed per use)."""

    tool: ServerToolName = field(
        _choice(ServerToolName), "web_search (Gemini: Google Search grounding), web_fetch or code_execution."
    )
    uses: int | None = field(_POSITIVE, "Billable uses in this response.", default=1)
    result: ContentValue | None = field(
        _CONTENT, "What its results add to the context: " + CONTENT_FORMS + ".", default=None
    )


_SERVER_TOOL_LIST = Nullable(ListOf(Model(ServerToolSpec)))

_SUBAGENT = (
    "The call hands work to a subagent: {file: path} of another scenario file, or an inline scenario "
    "mapping (model, system, tools, task, rounds, final, ...). Its requests are billed on its own "
    "model; its final answer is the result."
)
_ROUND_MODEL = (
    "Routing: this round's request runs on another model (priced and counted with it); a model "
    "switch breaks the prompt cache."
)
_TOOL = "Name of the tool called (one of `tools`, when tools are given)."
_INPUT = "The call's arguments as the model writes them (a mapping)."


class CallSpec(Spec, schema_extra=_EXCLUSIVE_CALL):
    """One of several tool calls the model writes in one response (parallel tool calls)."""

    tool: str = field(NAME, _TOOL)
    input: dict[str, Any] | None = field(_OBJECT, _INPUT, default=None)
    call_tokens: Any = field(_POSITIVE_COUNT_VALUE, _CALL_TOKENS, default=None)
    result: ContentValue | None = field(_CONTENT, _RESULT, default=None)
    subagent: dict[str, Any] | None = field(_OBJECT, _SUBAGENT, default=None)


_ROUND_SCHEMA: dict[str, Any] = {
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


class RoundSpec(Spec, schema_extra=_ROUND_SCHEMA):
    """One tool round: the model writes a tool call (or several: calls), the result(s) are sent back.
    Or a round of server tools only (server_tools alone): they run inside the next round's response."""

    tool: str | None = field(Nullable(NAME), _TOOL, default=None)
    input: dict[str, Any] | None = field(_OBJECT, _INPUT, default=None)
    call_tokens: Any = field(_POSITIVE_COUNT_VALUE, _CALL_TOKENS, default=None)
    result: ContentValue | None = field(_CONTENT, _RESULT, default=None)
    calls: list[CallSpec] | None = field(
        Nullable(ListOf(Model(CallSpec), min_length=1)),
        "Parallel tool calls: several tool_use blocks in one response, all results sent "
        "back in the next request (instead of tool, input/call_tokens, result).",
        default=None,
    )
    subagent: dict[str, Any] | None = field(_OBJECT, _SUBAGENT, default=None)
    model: str | None = field(Nullable(NAME), _ROUND_MODEL, default=None)
    repeat: Any = field(
        _POSITIVE_COUNT_VALUE,
        "How many times this round happens in a row: a number, or a distribution "
        "(0 allowed: the round may not happen).",
        default=1,
    )
    thinking: Any = field(_COUNT_VALUE, _THINKING, default=None)
    text: ContentValue | None = field(_CONTENT, _TEXT, default=None)
    seconds: Decimal | None = field(_SECONDS_VALUE, _SECONDS, default=None)
    container_seconds: Decimal | None = field(
        _SECONDS_VALUE,
        "Seconds of code-execution container time this round's response is billed for "
        "(default: its seconds, when it runs code_execution), at the provider's published rate.",
        default=None,
    )
    server_tools: list[ServerToolSpec] | None = field(_SERVER_TOOL_LIST, _SERVER_TOOLS, default=None)


_REPLY = (
    "The model's plain-text answer in this turn (no tool call): " + CONTENT_FORMS + ". The last answer of "
    "the conversation is `final`."
)
_USER = "The user's next message, sent after the reply: " + CONTENT_FORMS + "."
_TOOL_ROUND_ONLY = ("tool", "input", "call_tokens", "result", "text", "calls", "subagent")


class ChatTurnSpec(Spec):
    """One chat turn: the model answers in plain text, the user sends the next message."""

    reply: ContentValue = field(CONTENT, _REPLY)
    user: ContentValue = field(CONTENT, _USER)
    repeat: Any = field(
        _POSITIVE_COUNT_VALUE,
        "How many times this turn happens in a row: a number or a distribution.",
        default=1,
    )
    thinking: Any = field(_COUNT_VALUE, _THINKING, default=None)
    seconds: Decimal | None = field(_SECONDS_VALUE, _SECONDS, default=None)
    server_tools: list[ServerToolSpec] | None = field(_SERVER_TOOL_LIST, _SERVER_TOOLS, default=None)

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


ROUND_ITEM = Tagged(round_kind, {"~tool": Model(RoundSpec), "~chat": Model(ChatTurnSpec)})
"""An item of ``rounds``: a tool round or a chat turn."""


class DefaultsSpec(Spec):
    """Keys applied to every round that does not set them."""

    call_tokens: Any = field(
        _POSITIVE_COUNT_VALUE,
        _CALL_TOKENS + " Used by rounds with neither input nor call_tokens.",
        default=None,
    )
    result: ContentValue | None = field(_CONTENT, _RESULT, default=None)
    thinking: Any = field(_COUNT_VALUE, _THINKING, default=None)
    text: ContentValue | None = field(_CONTENT, _TEXT, default=None)
    seconds: Decimal | None = field(_SECONDS_VALUE, _SECONDS, default=None)
    server_tools: list[ServerToolSpec] | None = field(_SERVER_TOOL_LIST, _SERVER_TOOLS, default=None)


class PacingSpec(Spec):
    """How long the agent takes between requests, for cache expiry."""

    round_seconds: Decimal | None = field(
        _SECONDS_VALUE,
        "Default wall time in seconds from one request to the next (model latency + "
        "tool run), for rounds without their own seconds. Left out: no pauses.",
        default=None,
    )


class CacheTTLSpec(Spec):
    """Two cache lifetimes (Anthropic): one for the stable prefix, one for the conversation."""

    prefix: CacheTTL = field(
        _choice(CacheTTL), "Lifetime of the entry at the tools -> system breakpoint: 5m or 1h."
    )
    conversation: CacheTTL = field(
        _choice(CacheTTL), "Lifetime of the entries at the last message: 5m or 1h (not longer than prefix)."
    )


def _ttl_kind(value: Any) -> str:
    return "map" if isinstance(value, dict) else "~str"


CACHE_TTL_VALUE = Tagged(_ttl_kind, {"~str": _choice(CacheTTL), "map": Model(CacheTTLSpec)})


class LimitsSpec(Spec):
    """Limits of the agent loop."""

    max_rounds: int | None = field(
        _POSITIVE, "Stop after this many rounds (the run is reported as truncated).", default=None
    )
    budget_usd: Decimal | None = field(
        Nullable(MONEY), "Budget in US dollars; an estimate over it fails (exit code 1).", default=None
    )
    max_budget_usd: Decimal | None = field(
        Nullable(MONEY),
        "Stop the run between requests once the running cost would pass this many US "
        "dollars (as the Claude Agent SDK does); the run is reported as truncated.",
        default=None,
    )
    max_concurrent_subagents: int | None = field(
        _POSITIVE,
        "Run the subagents one response starts in waves of at most this many; their time "
        "(each wave as long as its slowest) is added to the parent's pacing.",
        default=None,
    )
    max_tokens: int | None = field(
        _POSITIVE,
        "Cap each response's output at this many tokens, thinking included (the API's max_tokens / "
        "max_output_tokens): a response estimated longer is billed at the cap, with a warning.",
        default=None,
    )


SHARE = amount(ge=0, le=1)


class RetriesSpec(Spec, schema_extra={"not": {"required": ["share", "count"]}}):
    """Tool calls that fail validation and are retried (each failure is a full extra request)."""

    share: Decimal | None = field(
        Nullable(SHARE),
        "Share of the tool rounds whose call fails once (0 to 1, spread evenly).",
        default=None,
    )
    count: int | None = field(_COUNT, "Failed calls in all (instead of share).", default=None)
    attempts: Any = field(
        _POSITIVE_COUNT_VALUE,
        "Attempts each failing call takes, the one that succeeds included: a number (at "
        "least 2) or a distribution (default 2: it fails once, then succeeds).",
        default=None,
    )
    error: ContentValue | None = field(
        _CONTENT,
        "The error result sent back for a failed call: " + CONTENT_FORMS + " (default: per provider).",
        default=None,
    )


MIN_SUCCESS = Decimal("0.000001")
"""Smallest success probability a scenario may state: one success in a million runs (a smaller one is
surely a typo, and 1/p would overflow the Decimal maths for a tiny enough p)."""


def _probability(value: Decimal) -> Decimal:
    if not 0 < value <= 1:
        raise Invalid(
            "probability",
            "must be above 0 and at most 1, got {got} (a probability: 0.7 for 70%)",
            {"got": str(value)},
        )
    if value < MIN_SUCCESS:
        raise Invalid(
            "probability",
            "must be at least 0.000001 (one success in a million runs), got {got}",
            {"got": str(value)},
        )
    return value


PROBABILITY = Schema(
    Check(Before(int_to_decimal, Dec()), _probability),
    {"type": "number", "minimum": float(MIN_SUCCESS), "maximum": 1},
)


def _in_order(values: list[Decimal]) -> list[Decimal]:
    if len(values) == 2 and values[0] > values[1]:
        raise Invalid("order", f"min {values[0]} is above max {values[1]} (write [min, max])")
    if len(values) == 3 and not values[0] <= values[1] <= values[2]:
        raise Invalid(
            "order",
            f"min {values[0]}, most likely {values[1]}, max {values[2]} are not in order"
            " (write [min, most likely, max])",
        )
    return values


_SUCCESS_PAIR = Check(ListOf(PROBABILITY, 2, 2), _in_order)
_SUCCESS_TRIPLE = Check(ListOf(PROBABILITY, 3, 3), _in_order)


class SuccessUniform(Spec):
    """Every success probability from min to max equally likely."""

    uniform: list[Decimal] = field(_SUCCESS_PAIR, "[min, max].")


class SuccessTriangular(Spec):
    """The triangle distribution of the success probability, peaking at the most likely value."""

    triangular: list[Decimal] = field(_SUCCESS_TRIPLE, "[min, most likely, max].")


class SuccessPert(Spec):
    """Beta-PERT: like triangular, smoother."""

    pert: list[Decimal] = field(_SUCCESS_TRIPLE, "[min, most likely, max].")


class SuccessEmpirical(Spec):
    """Observed success rates (e.g. of past weeks), each equally likely."""

    empirical: list[Decimal] = field(ListOf(PROBABILITY, 1, 10_000), "The observed rates.")


SUCCESS_KINDS = ("uniform", "triangular", "pert", "empirical")
AnySuccessDist = SuccessUniform | SuccessTriangular | SuccessPert | SuccessEmpirical


def success_dist(item: Decimal | AnySuccessDist, line: int | None) -> tuple[Decimal, Dist | None]:
    """``outcome.success`` -> (the success the estimate uses, its distribution or None). A
    distribution is held in whole millionths (rounded half up), so that agentcost.scenario.dists
    draws it and takes its median as it does for counts; the estimate uses that median."""
    from agentcost.scenario.dists import median

    if isinstance(item, Decimal):
        return item, None

    kind = item.fields[0].name
    values = sorted(item.empirical) if isinstance(item, SuccessEmpirical) else getattr(item, kind)
    units = tuple((v * SUCCESS_SCALE).to_integral_value(ROUND_HALF_UP) for v in values)
    dist = Dist(kind, units, "outcome.success", line, 1)  # type: ignore[arg-type]
    return Decimal(median(dist)) / SUCCESS_SCALE, dist


def _success_kind(value: Any) -> str:
    if isinstance(value, dict):
        key = next(iter(value), None) if len(value) == 1 else None
        return key if key in SUCCESS_KINDS else "uniform"  # checked (and explained) as one of them
    return "~p"


SUCCESS_VALUE = Tagged(
    _success_kind,
    {
        "~p": PROBABILITY,
        **{kind: Model(spec) for kind, spec in zip(SUCCESS_KINDS, AnySuccessDist.__args__, strict=True)},
    },
)


class OutcomeSpec(Spec):
    """How often a run completes its task, and what a failed run costs (cost per completed task)."""

    success: Decimal | AnySuccessDist = field(
        SUCCESS_VALUE,
        "Probability that a run completes its task: above 0, at most 1 (e.g. 0.7), or a "
        "distribution of it: {uniform: [min, max]}, {triangular: [min, mode, max]}, {pert: [min, mode, "
        "max]} or {empirical: [rates...]} (the estimate uses its median; --simulate draws it per run).",
    )
    on_failure: OnFailure | None = field(
        Nullable(_choice(OnFailure)),
        "retry: a failed run is paid and the whole run is made again until it succeeds "
        "(up to max_attempts); abandon: a failed run is paid and nothing is completed.",
        default="retry",
    )
    max_attempts: int | None = field(
        _POSITIVE,
        "Most runs per task with on_failure: retry, the first included (default: unlimited).",
        default=None,
    )
    failure_rounds: int | None = field(
        _POSITIVE,
        "A failed run is cut after this many rounds and costs only those rounds' requests "
        "(default: a failed run costs a whole run).",
        default=None,
    )
    success_by_model: dict[str, Decimal] | None = field(
        Nullable(DictOf(NAME, PROBABILITY, max_length=1000)),
        "Success per model id where it differs from success (e.g. {gpt-5-mini: 0.55}), "
        "for compare and --model.",
        default=None,
    )


class TrimSpec(Spec):
    """Result trimming done by the agent's own code before results go back to the model."""

    max_tokens: int | None = field(_POSITIVE, "Cap every tool result at this many tokens.", default=None)
    keep_last: int | None = field(
        _COUNT,
        "Keep only the last N tool results in full; older ones become a short placeholder "
        "(this changes earlier context, so the cache is written again from the edit point).",
        default=None,
    )


class ContextEditingSpec(Spec):
    """Anthropic context editing (clear_tool_uses): clear old tool results once the context is large."""

    trigger: int | None = field(
        _POSITIVE, "Clear once a request's input passes this many tokens (default 100000).", default=None
    )
    keep: int | None = field(_COUNT, "Tool uses kept, the most recent (default 3).", default=None)
    clear_at_least: int | None = field(
        _COUNT, "Clear only if at least this many tokens go (default 0).", default=None
    )
    placeholder: int | None = field(
        _COUNT, "Tokens a cleared result leaves behind (default 10).", default=None
    )
    exclude_tools: list[str] | None = field(
        Nullable(ListOf(NAME)), "Tools whose results are never cleared.", default=None
    )


class ScenarioFile(Spec, title="agentcost scenario"):
    """An agentcost scenario: one run of a tool-using agent loop, whose cost is estimated."""

    version: Literal[1] = field(Lit(1), "Format version of this file: 1.")
    name: str | None = field(Nullable(Str()), "A short name for the scenario.", default=None)
    description: str | None = field(Nullable(Str()), "What the scenario models.", default=None)
    model: str = field(NAME, "Model id, e.g. claude-sonnet-4-5, gpt-5, gemini-2.5-pro.")
    provider: str | None = field(
        Nullable(PROVIDER_ID),
        "The model's provider as genai-prices names it (anthropic, openai, google, deepseek,"
        " aws, azure, x-ai, ...; default: inferred from the model id).",
        default=None,
    )
    system: ContentValue | None = field(_CONTENT, "System prompt: " + CONTENT_FORMS + ".", default=None)
    tools: list[AnyToolModel | ToolFile | McpTools] | None = field(
        Nullable(ListOf(TOOL_ITEM)),
        "Tool definitions (Anthropic, OpenAI Chat Completions, OpenAI Responses or "
        "MCP format), {file: path} to a JSON/YAML file of them, or {mcp: path} to an MCP client "
        "config with a tools/list file per server (tools_lists). Server tools in their provider's "
        "format ({type: web_search_20250305, name: web_search}, {type: web_search}, {google_search: "
        "{}}) declare the server tools rounds' server_tools use.",
        default=None,
    )
    tool_choice: ToolChoice | None = field(
        Nullable(_choice(ToolChoice)),
        "auto: the model decides; any/tool: a tool must be called; none.",
        default="auto",
    )
    task: ContentValue = field(CONTENT, "The first user message: " + CONTENT_FORMS + ".")
    defaults: DefaultsSpec | None = field(
        Nullable(Model(DefaultsSpec)), "Keys applied to every round that does not set them.", default=None
    )
    rounds: list[RoundSpec | ChatTurnSpec] | None = field(
        Nullable(ListOf(ROUND_ITEM)), "The rounds, in order: tool rounds and chat turns.", default=None
    )
    final: ContentValue = field(CONTENT, "The final plain-text answer: " + CONTENT_FORMS + ".")
    caching: CachingMode | None = field(
        Nullable(_choice(CachingMode)),
        "Prompt caching: none, prefix, conversation, or explicit (Gemini explicit "
        "caches; default: per provider).",
        default=None,
    )
    cache_ttl: CacheTTL | CacheTTLSpec | None = field(
        Nullable(CACHE_TTL_VALUE),
        "Lifetime of cache entries: 5m or 1h, or {prefix: 1h, conversation: 5m} "
        "(Anthropic: the stable prefix and the conversation with their own TTLs).",
        default="5m",
    )
    limits: LimitsSpec | None = field(Nullable(Model(LimitsSpec)), "Limits of the agent loop.", default=None)
    pacing: PacingSpec | None = field(
        Nullable(Model(PacingSpec)),
        "How long rounds take, for cache expiry (default: no pauses).",
        default=None,
    )
    service_tier: ServiceTier | None = field(
        Nullable(_choice(ServiceTier)), "Service tier: standard, batch, flex or priority.", default="standard"
    )
    thinking_retention: ThinkingRetention | None = field(
        Nullable(_choice(ThinkingRetention)),
        "Whether earlier thinking is re-sent as input: auto (by model family), keep, "
        "last (only in the next request) or drop.",
        default="auto",
    )
    final_thinking: Any = field(
        _COUNT_VALUE, "Reasoning output tokens of the final answer (billed as output).", default=None
    )
    server_tool_quota: QuotaState | None = field(
        Nullable(_choice(QuotaState)),
        "spent: every server-tool use is billed; available: uses inside the provider's "
        "free quota cost nothing.",
        default="spent",
    )
    retries: RetriesSpec | None = field(
        Nullable(Model(RetriesSpec)),
        "Calls that fail validation and are retried with an error result.",
        default=None,
    )
    trim: TrimSpec | None = field(
        Nullable(Model(TrimSpec)), "Cap tool results, or keep only the last N in full.", default=None
    )
    context_editing: ContextEditingSpec | None = field(
        Nullable(Model(ContextEditingSpec)),
        "Clear old tool results once the context passes a trigger (Anthropic clear_tool_uses).",
        default=None,
    )
    tool_search_stub: int | None = field(
        _COUNT, "Tokens a deferred tool (defer_loading) costs until loaded (default 9).", default=None
    )
    outcome: OutcomeSpec | None = field(
        Nullable(Model(OutcomeSpec)),
        "Success rate of a run and what a failure costs: reports add the expected cost per completed task.",
        default=None,
    )


def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of scenario files, for editors (yaml-language-server)."""
    return spec_json_schema(ScenarioFile)


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
