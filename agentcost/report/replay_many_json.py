"""The JSON of ``agentcost replay DIR_OR_GLOB...`` (kind ``replay_many``), defined once: many
recorded runs in a few numbers each, and their distributions.

:mod:`agentcost.render.replay_many` builds the body as these types; its JSON Schema is generated
from the same types (:mod:`agentcost.report.schemagen`).
"""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired, TypedDict, get_args

from agentcost.report.replay_json import ReportedKind
from agentcost.report.schemagen import COUNT, POSITIVE, SIGNED_DECIMAL, USD, Keywords
from agentcost.report.sections_json import StatUsdJson

OutcomeFrom = Literal["outcomes", "log"]
OUTCOME_FROM: tuple[OutcomeFrom, ...] = get_args(OutcomeFrom)


class StatDecimalJson(TypedDict):
    mean: SIGNED_DECIMAL
    p50: SIGNED_DECIMAL
    p90: SIGNED_DECIMAL
    p99: SIGNED_DECIMAL
    min: SIGNED_DECIMAL
    max: SIGNED_DECIMAL


class SkipReasonJson(TypedDict):
    reason: str
    files: COUNT


class SkippedJson(TypedDict):
    path: str
    error: str


class ToolCallsJson(TypedDict):
    tool: str
    calls: COUNT
    runs: COUNT
    p50: COUNT
    p90: COUNT
    mean: SIGNED_DECIMAL
    max: COUNT


class FormatRunsJson(TypedDict):
    format: str
    runs: COUNT


class ModelRunsJson(TypedDict):
    model: Annotated[str, "the price row's id: the names of one model (a dated id...) merged"]
    runs: COUNT
    names: Annotated[list[str], "the names the logs give it, merged into this id"]


class ManyTotalsJson(TypedDict):
    requests: COUNT
    input_tokens: COUNT
    output_tokens: COUNT
    cost_usd: USD


class OutcomesJson(TypedDict):
    """Which runs completed their task: from --outcomes FILE, else each log's exit status."""

    succeeded: COUNT
    failed: COUNT
    unknown: COUNT
    from_outcomes: Annotated[COUNT, "runs labelled by the --outcomes file"]
    from_logs: Annotated[COUNT, "runs labelled by their own log (SWE-agent's info.exit_status)"]
    cost_per_completed_task_usd: Annotated[
        USD | None, "total cost of all runs / runs succeeded (exact); null when none succeeded"
    ]
    outcomes_file: str | None
    unmatched: Annotated[COUNT, "rows of the outcomes file that name no run read"]
    first_unmatched: list[str]


class SummaryJson(TypedDict):
    inputs: list[str]
    files: Annotated[COUNT, "log files found"]
    ignored: Annotated[COUNT, "files of the directories walked that are not logs"]
    limit: Annotated[str | None, "the limit the walk stopped at"]
    runs: Annotated[COUNT, "runs read"]
    skipped: COUNT
    skip_reasons: list[SkipReasonJson]
    first_skipped: list[SkippedJson]
    cost_usd: StatUsdJson
    requests: StatDecimalJson
    cached_share: StatDecimalJson | None
    cached_runs: COUNT
    tools: list[ToolCallsJson]
    failed_share: SIGNED_DECIMAL | None
    retried_share: SIGNED_DECIMAL | None
    formats: list[FormatRunsJson]
    models: list[ModelRunsJson]
    totals: ManyTotalsJson
    outcomes: Annotated[OutcomesJson | None, "null when no run is labelled and no --outcomes file"]


class CapsGivenJson(TypedDict):
    """The caps of --caps FILE (null: that cap is not set)."""

    file: str
    max_turns: Annotated[int | None, Keywords(minimum=1)]
    max_budget_usd: USD | None
    max_tokens: Annotated[int | None, Keywords(minimum=1)]


class ManyCapsJson(TypedDict):
    """--caps: the runs held against the caps."""

    caps: CapsGivenJson
    runs: COUNT
    stopped: Annotated[COUNT, "runs a cap would have stopped"]
    stopped_share: SIGNED_DECIMAL
    by_max_turns: COUNT
    by_max_budget_usd: COUNT
    over_max_tokens: Annotated[COUNT, "runs with a request whose output was over max_tokens"]
    beyond_usd: Annotated[USD, "what the stopped runs spent past their stop, in all"]


class RunCapsJson(TypedDict):
    """--caps: one run held against the caps."""

    turns: Annotated[COUNT, "the requests of the run's own agent"]
    stopped_by: Literal["max_turns", "max_budget_usd"] | None
    stopped_after: Annotated[int | None, Keywords(minimum=1), "the last request it would have sent"]
    beyond_usd: Annotated[USD, "what it spent after that request"]
    max_turns_stop: Annotated[int | None, Keywords(minimum=1)]
    max_budget_usd_stop: Annotated[int | None, Keywords(minimum=1)]
    over_max_tokens_request: Annotated[int | None, Keywords(minimum=1)]
    over_max_tokens: Annotated[int | None, Keywords(minimum=0), "that request's output tokens"]


class RunJson(TypedDict):
    index: POSITIVE
    path: str
    format: str
    model: str
    requests: COUNT
    input_tokens: COUNT
    output_tokens: COUNT
    cache_read_tokens: Annotated[int | None, Keywords(minimum=0)]
    cached_share: SIGNED_DECIMAL | None
    cost_usd: USD
    reported_kind: ReportedKind
    priced_from: str
    truncated: bool
    warnings: COUNT
    caps: NotRequired[RunCapsJson]
    succeeded: Annotated[bool | None, "completed its task; null: unknown"]
    outcome_from: Annotated[OutcomeFrom | None, "what says so"]


class ReplayManyJson(TypedDict):
    """Many recorded runs: ``agentcost replay DIR_OR_GLOB [DIR_OR_GLOB]``."""

    summary: SummaryJson
    runs: list[RunJson]
    caps: NotRequired[ManyCapsJson]
