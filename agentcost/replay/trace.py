"""The typed trace of a recorded agent run, and the report replay builds from it.

A :class:`Trace` is what a log format parser (``agentcost.replay.swe_agent``, ...) reads from a
file: the API calls in order, each with the messages that were sent when the log records them, the
text that came back, and the usage the provider reported when the log has it.
:func:`agentcost.replay.ledger.replay` counts and prices it into a :class:`ReplayReport`.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Literal

from agentcost.infra.record import record
from agentcost.prices.billing import BilledRequest
from agentcost.prices.pricing import ModelPrices
from agentcost.replay.attribution import GapPart
from agentcost.replay.subtotals import AgentCost, ModelCost
from agentcost.tokens.request import RequestUsage

if TYPE_CHECKING:
    pass

# ---------------------------------------------------------------------------------------------
# The trace: what a parser reads from a log
# ---------------------------------------------------------------------------------------------


@record
class ToolPart:
    """A tool call (``text``: its arguments as compact JSON) or a tool result (``text``: what the
    tool returned), with the tool's ``name`` ("" when the log does not say which tool)."""

    name: str
    text: str


@record
class Message:
    """One message of a request as it was sent: its role, its text and an optional ``name``.

    ``calls``: the tool calls an assistant message makes (OpenAI ``tool_calls``, Anthropic
    ``tool_use`` blocks); ``results``: the tool results it sends (Anthropic ``tool_result`` blocks;
    an OpenAI ``role: tool`` message is one result, its ``name`` the tool when known). ``text`` is
    the rest of the message. Tool calls and results are counted with the rules ``estimate`` uses for
    a round's (:meth:`_Counter.request`).
    """

    role: str
    text: str
    name: str | None = None
    calls: tuple[ToolPart, ...] = ()
    results: tuple[ToolPart, ...] = ()
    uncounted: tuple[str, ...] = ()  # kinds of the blocks not counted (agentcost.replay.media)


@record
class ReportedUsage:
    """Usage the provider reported. ``input_tokens`` counts every prompt token, cached or not."""

    input_tokens: int
    output_tokens: int
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0  # 5-minute writes (or the provider's only write bucket)
    cache_write_1h_tokens: int = 0  # Anthropic 1-hour writes
    # billed beside the tokens (agentcost.prices.billing): server-tool uses, thinking the output
    # leaves out, search preview calls, compaction iterations (each priced as a request of its own)
    web_searches: int = 0
    web_fetches: int = 0
    code_executions: int = 0
    thinking_tokens: int = 0
    web_search_previews: int = 0
    steps: tuple[RequestUsage, ...] = ()

    def billed(self) -> BilledRequest:
        """What the provider billed: these tokens (thinking as output), fees and compaction steps."""
        cache = (self.cache_read_tokens, self.cache_write_tokens, self.cache_write_1h_tokens)
        usage = RequestUsage(self.input_tokens, self.output_tokens + self.thinking_tokens, *cache,
                             web_searches=self.web_searches, web_fetches=self.web_fetches,
                             code_executions=self.code_executions,
                             web_search_previews=self.web_search_previews)  # fmt: skip
        return BilledRequest(usage, self.steps)


@record
class RecordedCall:
    """One API call of the run (1-based ``index``), as far as the log records it.

    ``messages`` is None when the log does not record the request body. ``action`` is the tool the
    response called (when known) and ``result_text`` what that tool returned to the next request.
    ``line`` is the line of the file the call was read from.
    """

    index: int
    model: str | None
    messages: tuple[Message, ...] | None
    tools: tuple[Mapping[str, Any], ...] | None
    output_text: str | None
    reported: ReportedUsage | None
    line: int | None
    action: str | None = None
    result_text: str | None = None
    tool_choice: str | None = None  # "auto", "any", "tool" or "none" when the log records it
    output_calls: tuple[ToolPart, ...] = ()  # the response's tool calls (``output_text``: the rest)
    output_snapshot: bool = False  # reported output is a streaming-start snapshot: price our count
    agent: str | None = None  # the subagent whose transcript it is from (None: the session's own)


@record
class Trace:
    """A recorded run: its calls in order and what the log reports for the whole run.

    ``prefix_recorded``: the log records everything that was sent (system prompt and tools), so a
    gap between reported and counted input is a counting error, not an unrecorded prefix.
    ``truncated``: the file's tail was cut; ``calls`` are the ones read before the cut.
    """

    path: str
    format: str
    model: str | None
    calls: tuple[RecordedCall, ...]
    reported_totals: ReportedUsage | None
    truncated: bool = False
    warnings: tuple[str, ...] = ()
    prefix_recorded: bool = False
    reported_cost_usd: Decimal | None = None  # what the agent framework computed, for comparison
    notes: tuple[str, ...] = ()
    # what the reported figures are: "api" (the provider's usage), "local_count" (the agent counted
    # them itself, e.g. SWE-agent 1.x with litellm), None: "api" when anything is reported
    reported_kind: ReportedKind | None = None
    per_call_models: bool = False  # price each call at its own ``model`` (Claude Code sessions)
    # how the run ended, as the log records it (SWE-agent's ``info.exit_status``), and whether that
    # means it completed its task (True), did not (False) or cannot say (None): replay DIR's outcomes
    exit_status: str | None = None
    succeeded: bool | None = None


# ---------------------------------------------------------------------------------------------
# The report
# ---------------------------------------------------------------------------------------------

PricedFrom = Literal["reported", "counted"]
ReportedKind = Literal["api", "local_count", "none"]


@record
class ReplayRequest:
    index: int
    line: int | None
    tool: str | None
    counted_input: int | None  # None: the log does not record the request's messages
    counted_output: int | None
    reported_input: int | None
    reported_output: int | None
    cache_read_tokens: int
    cache_write_tokens: int
    input_error: Decimal | None  # (counted - reported) / reported
    output_error: Decimal | None
    gap: int | None  # reported - counted input
    result_tokens: int | None  # tokens of what the called tool returned
    priced_from: PricedFrom
    cost_usd: Decimal
    running_usd: Decimal
    model: str | None = None  # the model it was priced at, as the log (or --model) names it
    output_snapshot: bool = False  # output priced from our count: the reported one is a snapshot
    agent: str | None = None  # the subagent transcript it is from (None: the session's own)


@record
class ReplayTotals:
    requests: int
    counted_input: int
    counted_output: int
    reported_input: int | None
    reported_output: int | None
    input_error: Decimal | None
    output_error: Decimal | None
    gap: int | None
    gap_label: str  # "unrecorded prefix", "uncounted content" (documents, images...) or "gap"
    cache_read_tokens: int | None
    cache_write_tokens: int | None
    priced_from: str  # "reported per request", "reported run totals", "counted", "mixed"
    cost_usd: Decimal
    reported_cost_usd: Decimal | None
    gap_parts: tuple[GapPart, ...] = ()  # the gap attributed to what the log shows


@record
class ToolResults:
    tool: str
    calls: int
    result_tokens: int

    @property
    def mean(self) -> Decimal:
        return Decimal(self.result_tokens) / Decimal(self.calls)


@record
class GrowthFit:
    """Input tokens of request i modelled as ``B + (i-1)*r``.

    ``prefix_b``: the first request's input; ``growth_r``: mean growth per request
    ((last - first) / (n - 1)); ``max_abs_deviation``: the largest |actual - fitted| in tokens;
    ``r_squared``: 1 - SS_res/SS_tot (None when every request is the same size or n < 3).
    """

    source: PricedFrom
    prefix_b: int
    growth_r: Decimal
    max_abs_deviation: Decimal
    r_squared: Decimal | None


@record
class ReplayReport:
    path: str
    format: str
    model: str
    prices: ModelPrices
    counting: str  # how we counted
    approximate: bool
    requests: tuple[ReplayRequest, ...]
    totals: ReplayTotals
    tools: tuple[ToolResults, ...]
    cached_share: Decimal | None  # cache reads / reported input; None when not recorded
    fit: GrowthFit | None
    truncated: bool
    warnings: tuple[str, ...]
    notes: tuple[str, ...]
    reported_kind: ReportedKind = "api"  # what the compared figures are ("none": nothing reported)
    models: tuple[ModelCost, ...] = ()  # per model, when the requests name several
    subagents: tuple[AgentCost, ...] = ()  # per subagent transcript folded into the session


# ---------------------------------------------------------------------------------------------
# Checks the readers share
# ---------------------------------------------------------------------------------------------


def tool_problem(tool: Any) -> str | None:
    """What is wrong with a recorded tool definition (Anthropic, OpenAI chat or Responses format),
    or None: it is a JSON object whose ``function`` (if any) is one, with a text ``name`` and a
    JSON object as ``input_schema`` / ``parameters`` (if any)."""
    if not isinstance(tool, Mapping):
        return f"a tool definition must be a JSON object, got {_kind(tool)}"
    fn = tool.get("function", tool)
    if not isinstance(fn, Mapping):
        return f"'function' must be a JSON object, got {_kind(fn)}"
    if not isinstance(fn.get("name"), str):
        return "a tool definition needs a text 'name'"
    for key in ("input_schema", "parameters"):
        if fn.get(key) is not None and not isinstance(fn[key], Mapping):
            return f"a tool's '{key}' must be a JSON object, got {_kind(fn[key])}"
    return None


def _kind(value: Any) -> str:
    """A JSON value's kind as a message names it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    return "a string" if isinstance(value, str) else "a number"
