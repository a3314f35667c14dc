"""The JSON of ``agentcost reconcile EXPORT...`` (kind ``reconcile``), defined once: the providers'
usage and cost exports beside what agentcost says the same usage costs, per model and day, and with
``--project`` each day beside the project's estimate.

:mod:`agentcost.render.reconcile` builds the body as these types; its JSON Schema is generated from
the same types (:mod:`agentcost.report.schemagen`).
"""

from __future__ import annotations

from typing import Annotated, Literal, TypedDict, get_args

from agentcost.report.prices_json import Date
from agentcost.report.schemagen import COUNT, DECIMAL, USD

ExportKind = Literal[
    "anthropic-usage", "anthropic-cost", "openai-usage", "openai-cost", "google-billing", "empty"
]
ExportProvider = Literal["anthropic", "openai", "google"]
RowStatus = Literal["match", "differs", "unknown", "no-usage", "no-costs", "per-day"]
DayStatus = Literal["match", "differs", "no-costs"]
ActualSource = Literal["export", "agentcost", "mixed"]
EXPORT_KINDS: tuple[ExportKind, ...] = get_args(ExportKind)
EXPORT_PROVIDERS: tuple[ExportProvider, ...] = get_args(ExportProvider)
ROW_STATUSES: tuple[RowStatus, ...] = get_args(RowStatus)
DAY_STATUSES: tuple[DayStatus, ...] = get_args(DayStatus)
ACTUAL_SOURCES: tuple[ActualSource, ...] = get_args(ActualSource)

Excluded = Annotated[USD, "the export's amounts for rows agentcost cannot price"]


class SourceFileJson(TypedDict):
    file: str
    kind: ExportKind


class ReconcileDayJson(TypedDict):
    day: Date
    provider: ExportProvider
    agentcost_usd: USD
    export_usd: USD | None
    excluded_usd: Excluded
    difference_usd: USD | None
    unknown_rows: COUNT
    status: DayStatus
    reasons: list[str]


class ReconcileRowJson(TypedDict):
    day: Date
    provider: ExportProvider
    model: str
    service_tiers: list[str]
    input_tokens: Annotated[COUNT, "uncached input tokens"]
    cache_read_tokens: COUNT
    cache_write_5m_tokens: COUNT
    cache_write_1h_tokens: COUNT
    output_tokens: COUNT
    web_searches: COUNT
    agentcost_usd: Annotated[USD | None, "tokens and fees; null: agentcost cannot price it"]
    tokens_usd: Annotated[USD | None, "agentcost_usd less fees_usd"]
    fees_usd: USD | None
    export_usd: Annotated[USD | None, "the cost export's amount for this model and day"]
    difference_usd: Annotated[USD | None, "export minus agentcost, tokens only"]
    status: RowStatus
    reasons: list[str]


class ProjectDayJson(TypedDict):
    day: Date
    actual_usd: Annotated[USD, "the cost exports' total, else agentcost's price of the usage"]
    source: ActualSource
    estimate_usd: Annotated[USD, "the project's estimate for one day"]
    difference_usd: Annotated[USD, "actual minus estimate"]
    ratio: DECIMAL | None


class ProjectComparisonJson(TypedDict):
    """--project: each day's actual cost beside the project's estimate for a day."""

    file: str
    runs_per_day: DECIMAL | None
    estimate_per_day_usd: USD
    days: list[ProjectDayJson]


class ReconcileJson(TypedDict):
    """The providers' usage and cost exports beside agentcost's price of the same usage."""

    difference_usd: Annotated[USD | None, "export minus agentcost over the days with costs"]
    export_usd: USD | None
    agentcost_usd: USD
    excluded_usd: Excluded
    compared_agentcost_usd: USD
    unknown_rows: COUNT
    sources: list[SourceFileJson]
    days: list[ReconcileDayJson]
    rows: list[ReconcileRowJson]
    project: ProjectComparisonJson | None
    notes: list[str]
