"""The JSON of ``agentcost replay FILE`` (kind ``replay``), defined once: a recorded run priced and
its token counts compared with what the log reports, per request and in total.

:mod:`agentcost.render.replay` builds the body as these types; its JSON Schema is generated from
the same types (:mod:`agentcost.report.schemagen`).
"""

from __future__ import annotations

from typing import Annotated, Literal, TypedDict, get_args

from agentcost.report.replay import LOG_FORMATS
from agentcost.report.schemagen import COUNT, POSITIVE, SIGNED_DECIMAL, USD, Keywords

PricedFrom = Literal["reported", "counted"]
TotalsPricedFrom = Literal["reported per request", "reported run totals", "counted", "mixed"]
GapLabel = Literal["unrecorded prefix", "uncounted content", "gap"]
ReportedKindValue = Literal["api", "local_count", "none"]
ReportedKind = Annotated[
    ReportedKindValue,
    "what the reported_* figures are: usage reported by the API, the agent's own local count "
    "(SWE-agent 1.x model_stats), or none reported",
]
PRICED_FROM: tuple[PricedFrom, ...] = get_args(PricedFrom)
TOTALS_PRICED_FROM: tuple[TotalsPricedFrom, ...] = get_args(TotalsPricedFrom)
GAP_LABELS: tuple[GapLabel, ...] = get_args(GapLabel)
REPORTED_KINDS: tuple[ReportedKindValue, ...] = get_args(ReportedKindValue)
LogFormat = Annotated[str, Keywords(enum=list(LOG_FORMATS))]
"""A log format agentcost reads (agentcost.replay.FORMATS)."""


class TraceJson(TypedDict):
    path: str
    format: LogFormat
    truncated: bool


class ReplayRequestJson(TypedDict):
    index: POSITIVE
    line: POSITIVE | None
    tool: str | None
    counted_input_tokens: COUNT | None
    counted_output_tokens: COUNT | None
    reported_input_tokens: COUNT | None
    reported_output_tokens: COUNT | None
    cache_read_tokens: COUNT
    cache_write_tokens: COUNT
    input_error: Annotated[SIGNED_DECIMAL | None, "(counted - reported) / reported"]
    output_error: SIGNED_DECIMAL | None
    gap_tokens: Annotated[int | None, "reported - counted input"]
    result_tokens: COUNT | None
    priced_from: PricedFrom
    cost_usd: USD
    running_usd: USD
    model: Annotated[str | None, "the model the request was priced at, as the log or --model names it"]
    output_snapshot: Annotated[
        bool,
        "the reported output is Claude Code's streaming-start usage snapshot (stop_reason null, "
        "1 to 8 tokens): the output is priced from counted_output_tokens instead",
    ]
    agent: Annotated[str | None, "the subagent transcript it is from; null: the session's own"]


class GapPartJson(TypedDict):
    what: Annotated[
        str,
        "what the tokens are attributed to: kinds of uncounted blocks the requests carry "
        "(document, image, audio, video, server tool), or unrecorded prefix / gap for the rest",
    ]
    tokens: Annotated[int, "tokens of the gap attributed to it"]
    requests: Annotated[COUNT, "requests that carry it"]
    share: Annotated[SIGNED_DECIMAL | None, "tokens / the whole gap (null when the gap is not positive)"]


class ReplayTotalsJson(TypedDict):
    requests: COUNT
    counted_input_tokens: COUNT
    counted_output_tokens: COUNT
    reported_input_tokens: COUNT | None
    reported_output_tokens: COUNT | None
    input_error: SIGNED_DECIMAL | None
    output_error: SIGNED_DECIMAL | None
    gap_tokens: int | None
    gap_label: GapLabel
    gap_parts: list[GapPartJson]
    cache_read_tokens: COUNT | None
    cache_write_tokens: COUNT | None
    priced_from: TotalsPricedFrom
    cost_usd: USD
    reported_cost_usd: USD | None


class ToolResultsJson(TypedDict):
    tool: str
    calls: COUNT
    result_tokens: COUNT
    mean: SIGNED_DECIMAL


class FitJson(TypedDict):
    source: PricedFrom
    prefix_b: COUNT
    growth_r: SIGNED_DECIMAL
    max_abs_deviation: SIGNED_DECIMAL
    r_squared: SIGNED_DECIMAL | None


class ModelCostJson(TypedDict):
    model: Annotated[str, "as the log names it"]
    model_id: Annotated[str, "genai-prices' id it was priced as"]
    requests: COUNT
    cost_usd: USD


class AgentCostJson(TypedDict):
    agent: Annotated[str | None, "the subagent transcript (agent-<id>); null: the session's own requests"]
    model: str | None
    requests: COUNT
    reported_input_tokens: COUNT | None
    reported_output_tokens: COUNT | None
    cost_usd: USD


class ReplayJson(TypedDict):
    """One recorded run priced: ``agentcost replay FILE``."""

    trace: TraceJson
    model: Annotated[str, "the model as the log or --model names it"]
    model_id: Annotated[str, "genai-prices' id it was priced as"]
    provider: str
    counting: str
    approximate: bool
    reported_kind: ReportedKind
    requests: list[ReplayRequestJson]
    totals: ReplayTotalsJson
    tools: list[ToolResultsJson]
    cached_share: SIGNED_DECIMAL | None
    fit: FitJson | None
    models: Annotated[list[ModelCostJson], "per model, when the requests name several; else empty"]
    subagents: Annotated[
        list[AgentCostJson],
        "a Claude Code session with subagent transcripts: the session's own requests, then each "
        "transcript's; else empty",
    ]
    warnings: list[str]
    notes: list[str]
