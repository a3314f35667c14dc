"""The typed, validated scenario: what ``scenario.load_scenario`` returns and every later stage reads.

Plain frozen dataclasses, no I/O. Files named in the YAML have already been read; repeats have been
unrolled; defaults have been applied. ``line`` fields are 1-based line numbers in the scenario file,
kept so that later stages (price lookup, token counting) can still point at the user's text.
"""

from __future__ import annotations

from dataclasses import field
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

from agentcost.infra.record import record

ToolChoice = Literal["auto", "any", "tool", "none"]
CachingMode = Literal["none", "prefix", "conversation", "explicit"]  # explicit: Gemini CachedContent only
CacheTTL = Literal["5m", "1h"]
ServiceTier = Literal["standard", "batch", "flex", "priority"]
ThinkingRetention = Literal["auto", "keep", "last", "drop"]
ServerToolName = Literal["web_search", "web_fetch", "code_execution"]
QuotaState = Literal["spent", "available"]
Provider = str
"""A provider id as genai-prices names them (``anthropic``, ``deepseek``, ``aws``, ``x-ai``) or one of
their aliases (``bedrock``, ``xai``, ``vertex_ai``); whether it exists is checked when the model is
priced, where the list of providers is known (the scenario format bounds its shape)."""
DistKind = Literal["fixed", "uniform", "triangular", "pert", "lognormal", "empirical"]
SizeField = Literal["result", "call", "text", "thinking", "user"]
OnFailure = Literal["retry", "abandon"]

SCENARIO_VERSION = 1
MAX_BUDGET_USD = Decimal(1_000_000_000)  # larger budgets are surely typos, and overflow Decimal maths
MAX_ROUNDS = 100_000
SUCCESS_SCALE = 1_000_000  # outcome.success as a distribution is drawn in whole millionths
"""Most rounds (tool rounds and chat turns) a scenario may have after ``repeat`` is unrolled."""
MAX_CALLS = 200_000
"""Most tool calls a run may make, parallel calls and subagents' included (docs/limits.md)."""


@record
class Content:
    """A piece of prompt or output: either real text (counted locally) or a stated token count.

    Exactly one of ``text`` and ``tokens`` is set.
    """

    text: str | None = None
    tokens: int | None = None

    def __post_init__(self) -> None:
        if (self.text is None) == (self.tokens is None):
            raise ValueError("Content needs exactly one of text or tokens")


@record
class ToolDef:
    """One tool definition, normalised from Anthropic, OpenAI (chat or Responses) or MCP format."""

    name: str
    description: str
    input_schema: dict[str, Any]
    line: int | None = None
    defer_loading: bool = False  # only a short stub is sent until a round loads it (tool search)
    strict: bool = False  # strict tool use / structured outputs: its calls always match the schema


@record
class ToolUse:
    """One tool call the model writes and the result our code sends back.

    ``input`` is the JSON text of the call's arguments (compact ``json.dumps`` of the YAML mapping),
    or a stated token count of those arguments (``call_tokens``); the tool name and the provider's
    tool-call framing are added by the counting rules either way.
    """

    tool: str
    input: Content
    result: Content
    # the call hands work to this agent; its final answer is the result. Left out of the hash: a
    # Scenario holds tool schemas (dicts), and rounds are hashed when counting (equality still uses it)
    subagent: Scenario | None = field(default=None, hash=False)
    subagent_line: int | None = None


@record
class ServerToolUse:
    """A server-side tool the provider runs inside one response (web search, web fetch, code
    execution; Gemini's Google Search grounding is ``web_search``). ``uses`` billable uses in this
    response; ``result`` the tokens its results add to the context (input of later iterations and
    requests)."""

    tool: ServerToolName
    uses: int = 1
    result: Content | None = None
    # where it is written (a server-only round's is not its response's); not part of equality
    line: int | None = field(default=None, compare=False)


@record
class ServerToolDef:
    """A server tool the scenario's ``tools`` list declares in its provider's own format
    (``{type: web_search_20250305, name: web_search, max_uses: 5}``, ``{type: web_search}``,
    ``{google_search: {}}``). Not a tool the rounds call: the provider runs it inside a response, and
    its uses are the rounds' ``server_tools`` (:class:`ServerToolUse`). ``kind`` is its type (or
    Gemini key) as written; ``max_uses`` Anthropic's cap on its uses in one request."""

    tool: ServerToolName
    kind: str
    name: str
    line: int | None = None
    max_uses: int | None = None


@record
class Round:
    """One round of the loop: a response of the model and what is sent back before the next request.

    A tool round: the model answers with tool call(s), we send the result(s) back. ``calls`` has one
    element today; it is a tuple so that parallel calls (several tool_use blocks in one response) fit
    without a format change.

    A chat turn (``user`` set, ``calls`` empty): the model answers in plain text (``text``, the
    reply) and the user sends the next message (``user``).

    ``thinking`` is extra output tokens of this response (reasoning), billed as output.
    """

    calls: tuple[ToolUse, ...]
    thinking: int = 0
    text: Content | None = None  # assistant text: before the tool call, or a chat turn's whole reply
    line: int | None = None
    model: str | None = None  # routing: this round's request runs on another model (breaks the cache)
    seconds: Decimal | None = (
        None  # wall time from this request to the next (model + tool); None: pacing default
    )
    server_tools: tuple[ServerToolUse, ...] = ()
    user: Content | None = None  # a chat turn: the user's next message (``calls`` is then empty)
    container_seconds: Decimal | None = None  # code-execution container time billed (None: seconds)

    @property
    def is_chat(self) -> bool:
        """Whether this is a chat turn (a plain-text reply and the user's next message)."""
        return self.user is not None


@record
class Pacing:
    """How long a round takes, for cache expiry: ``round_seconds`` between one request and the next
    when a round does not say (None: no pauses, so caches never expire)."""

    round_seconds: Decimal | None = None


@record
class Limits:
    """The scenario's ``limits:``: the round cap, the budgets and the output cap, each with its line."""

    max_rounds: int | None = None
    budget_usd: Decimal | None = None
    max_rounds_line: int | None = None
    budget_line: int | None = None
    max_budget_usd: Decimal | None = None  # stop the run between requests once spent (Agent SDK style)
    max_budget_line: int | None = None
    # subagents one response starts run in waves of at most this many (None: subagent time not paced)
    max_concurrent_subagents: int | None = None
    # each response's output (thinking included) is cut at this many tokens (None: no cap)
    max_tokens: int | None = None
    max_tokens_line: int | None = None


@record
class Retries:
    """Calls that fail validation and are retried: each failure is a full request whose output is the
    invalid call and whose result is an error message of ``error`` tokens. ``share`` of the tool
    rounds fail (spread evenly), or ``count`` failing calls in all; 0 with strict schemas. Each failing
    call takes ``attempts`` attempts, the last one succeeding: ``attempts - 1`` failed requests
    (``attempts_dist``: the distribution it was written as; ``attempts`` is its median)."""

    share: Decimal = Decimal(0)
    count: int = 0
    error: Content | None = None  # the error result; None: the provider's counting rules' default
    attempts: int = 2  # attempts per failing call, the successful one included
    attempts_dist: Dist | None = None

    @property
    def failed_per_call(self) -> int:
        """Failed requests each failing call makes: ``attempts - 1``."""
        return self.attempts - 1


@record
class Outcome:
    """How often a run completes its task: ``success`` the probability a run succeeds (0 < p <= 1);
    ``on_failure`` what happens to a failed run: ``retry`` (paid, and the whole run is made again, up
    to ``max_attempts`` runs in all; None: until it succeeds) or ``abandon`` (paid, nothing completed).
    A failed run costs the same as a successful one, or, with ``failure_rounds`` N, only its first N
    rounds (docs/scenario.md#outcome). ``line``: the line of ``success``."""

    success: Decimal
    on_failure: OnFailure = "retry"
    max_attempts: int | None = None
    line: int | None = None
    failure_rounds: int | None = None
    by_model: tuple[tuple[str, Decimal], ...] = ()  # success_by_model: (model id, success)
    # success as a distribution, in millionths (agentcost.scenario.dists draws whole numbers);
    # ``success`` is then its median / 10^6
    success_dist: Dist | None = None

    def success_for(self, *names: str) -> Decimal:
        """The success of the first of ``names`` (a model's id, its reference) in ``by_model``, else
        ``success``."""
        given = dict(self.by_model)
        for name in names:
            if name in given:
                return given[name]
        return self.success


@record
class ResultTrim:
    """Cap every tool result at ``max_tokens``, and/or keep only the last ``keep_last`` results in
    full (older ones replaced by a placeholder)."""

    max_tokens: int | None = None
    keep_last: int | None = None


@record
class ContextEditing:
    """Anthropic ``clear_tool_uses``: once a request's input passes ``trigger`` tokens, clear the
    oldest tool results, keeping the last ``keep`` tool uses and clearing at least ``clear_at_least``
    tokens (else nothing is cleared); cleared results leave a placeholder of ``placeholder`` tokens;
    clearing invalidates the cache after the edit point."""

    trigger: int = 100_000
    keep: int = 3
    clear_at_least: int = 0
    placeholder: int = 10
    exclude_tools: tuple[str, ...] = ()


@record
class Dist:
    """A count or size the user is unsure of (agentcost.scenario.dists samples it; ``estimate`` without
    ``--simulate`` uses its median, :func:`agentcost.scenario.dists.median`).

    ``params``: fixed ``(v,)``; uniform ``(min, max)``, whole numbers, both included; triangular and
    pert ``(min, mode, max)``; lognormal ``(median, p90)``; empirical the observed values.
    ``where``: the key path it was written at (``rounds[2].result``, ``defaults.result``), the name
    the simulation's sensitivity list uses; ``minimum``: the smallest value a draw may take (1 for
    round counts and call sizes).
    """

    kind: DistKind
    params: tuple[Decimal, ...]
    where: str
    line: int | None = None
    minimum: int = 0


@record
class Spread:
    """The uncertain parts of one ``rounds`` item: ``count`` rounds from ``Scenario.rounds[first]``
    on (its ``repeat`` at the median, each a copy of ``round``) and the distributions of its sizes.
    Every round drawn from the item draws each size afresh. ``sizes``: (field, call index,
    distribution); the call index is 0 for fields of the round itself (text, thinking, user)."""

    first: int
    count: int
    round: Round  # the item's round at the medians (also when the median count is 0)
    repeat: Dist | None = None
    sizes: tuple[tuple[SizeField, int, Dist], ...] = ()


@record
class Scenario:
    """A scenario as validated and built: every file read, every size counted from, every default applied."""

    path: Path
    model: str
    model_line: int | None
    provider: Provider | None  # None: infer from the model name
    system: Content | None
    tools: tuple[ToolDef, ...]
    tool_choice: ToolChoice
    task: Content
    rounds: tuple[Round, ...]  # unrolled: one element per round (tool round or chat turn), in order
    final: Content
    caching: CachingMode | None = None  # None: the provider's default
    cache_ttl: CacheTTL = "5m"  # the conversation breakpoint's TTL (every entry's, unless prefix_cache_ttl)
    cache_ttl_given: bool = False  # whether the file (or --set) says cache_ttl (subagents do not inherit it)
    prefix_cache_ttl: CacheTTL | None = None  # cache_ttl: {prefix, conversation} with two TTLs (Anthropic)
    limits: Limits = field(default_factory=Limits)
    name: str | None = None
    description: str | None = None
    version: int = SCENARIO_VERSION
    overrides: tuple[str, ...] = ()  # the --set PATH=VALUE texts applied, in order
    pacing: Pacing = field(default_factory=Pacing)
    service_tier: ServiceTier = "standard"
    service_tier_line: int | None = None  # the line of service_tier: (None: default, or set by --set)
    thinking_retention: ThinkingRetention = "auto"  # auto: by model family (facts.yaml)
    final_thinking: int = 0  # reasoning output tokens of the final answer
    server_tool_quota: QuotaState = "spent"  # "available": uses inside the provider's free quota cost nothing
    retries: Retries = field(default_factory=Retries)
    trim: ResultTrim | None = None
    context_editing: ContextEditing | None = None
    tool_search_stub: int = 9  # tokens a deferred tool costs until loaded (3P measurement, facts.yaml)
    server_tool_defs: tuple[ServerToolDef, ...] = ()  # server tools declared in ``tools`` (not called)
    # uncertainty (agentcost.scenario.dists): the rounds items with distributions, in order, and the
    # distributions of the final answer's size and reasoning; every field above holds the median
    spreads: tuple[Spread, ...] = ()
    final_dist: Dist | None = None
    final_thinking_dist: Dist | None = None
    outcome: Outcome | None = None  # success rate and failure policy: cost per completed task
    quotes: bool = True  # whether errors may echo what its file holds (not a subagent file: Doc.quotes)

    @property
    def uncertain(self) -> bool:
        """Whether any count or size is a distribution (fixed ones included)."""
        return bool(self.spreads) or self.final_dist is not None or self.final_thinking_dist is not None

    @property
    def cache_ttl_label(self) -> str:
        """``5m``, ``1h``, or ``PREFIX+CONVERSATION`` (e.g. ``1h+5m``) for two TTLs."""
        return cache_ttl_label(self.cache_ttl, self.prefix_cache_ttl)


def cache_ttl_label(ttl: CacheTTL, prefix_ttl: CacheTTL | None) -> str:
    """``ttl``, or ``PREFIX+CONVERSATION`` (e.g. ``1h+5m``) when the prefix entry has its own TTL."""
    return ttl if prefix_ttl is None or prefix_ttl == ttl else f"{prefix_ttl}+{ttl}"
