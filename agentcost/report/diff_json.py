"""The JSON of ``agentcost diff BASE HEAD`` (kind ``diff``), defined once: per scenario, per request
and in total, what changed between two estimates.

:mod:`agentcost.render.diff` builds the body as these types; its JSON Schema is generated from the
same types (:mod:`agentcost.report.schemagen`).
"""

from __future__ import annotations

from typing import Annotated, Literal, TypedDict, get_args

from agentcost.report.batch_json import Per
from agentcost.report.diff import DiffKind, DiffStatus, TotalScope, TotalUnit
from agentcost.report.estimate_json import CachingMode, RequestKind
from agentcost.report.prices_json import DateTime
from agentcost.report.schemagen import COUNT, POSITIVE, SIGNED_DECIMAL, USD

InputPart = Literal[
    "model",
    "counter",
    "caching",
    "cache_ttl",
    "tools",
    "tool_choice",
    "system",
    "task",
    "rounds",
    "rounds_run",
    "calls",
    "replies",
    "thinking",
    "results",
    "user_messages",
    "final",
    "budget",
]
INPUT_PARTS: tuple[InputPart, ...] = get_args(InputPart)


class DiffPricesJson(TypedDict):
    source: str
    version: str
    as_of: DateTime
    label: Annotated[str, "every scenario's price source, one line"]


class LimitsJson(TypedDict):
    max_increase: SIGNED_DECIMAL | None
    max_increase_usd: USD | None
    warn_increase: SIGNED_DECIMAL | None
    warn_increase_usd: USD | None
    gate_new_scenarios: bool


class SideJson(TypedDict):
    """One side's estimate of a scenario, in short."""

    model: str
    provider: str
    caching: CachingMode
    requests: COUNT
    input_tokens: COUNT
    cache_read_tokens: COUNT
    cache_write_tokens: COUNT
    output_tokens: COUNT
    cost_usd: USD
    budget_usd: USD | None
    max_input_tokens: COUNT
    context_window: int | None
    approximate: bool
    counter: Annotated[str, "the counter this side's tokens were counted with (estimate JSON counts.counter)"]


class ChangeJson(TypedDict):
    """After - before: token counts and dollars, negative for a drop."""

    input_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    output_tokens: int
    cost_usd: USD


class SumsJson(TypedDict):
    input_tokens: COUNT
    cache_read_tokens: COUNT
    cache_write_tokens: COUNT
    output_tokens: COUNT
    cost_usd: USD


class PerTaskJson(TypedDict):
    """expected cost per completed task of each side (its outcome; per run without one)"""

    before_usd: USD | None
    after_usd: USD | None


class PerDayJson(TypedDict):
    runs_before: SIGNED_DECIMAL | None
    runs_after: SIGNED_DECIMAL | None
    before_usd: USD | None
    after_usd: USD | None
    change_usd: USD
    change_per_month_usd: USD


class InputChangeJson(TypedDict):
    part: InputPart
    before: int | str | None
    after: int | str | None
    text: str


class RequestSideJson(TypedDict):
    index: POSITIVE
    kind: RequestKind
    tool: str | list[str] | None
    input_tokens: COUNT
    cache_read_tokens: COUNT
    cache_write_tokens: COUNT
    output_tokens: COUNT
    cost_usd: USD
    running_usd: USD


class RequestDiffJson(TypedDict):
    index: POSITIVE
    status: DiffStatus
    before: RequestSideJson | None
    after: RequestSideJson | None
    change: ChangeJson


class ScenarioDiffJson(TypedDict):
    path: str
    name: str | None
    file: str | None
    status: DiffStatus
    before: SideJson | None
    after: SideJson | None
    change: ChangeJson
    change_fraction: SIGNED_DECIMAL | None
    per_task: PerTaskJson
    per_day: PerDayJson | None
    inputs: list[InputChangeJson]
    requests: list[RequestDiffJson]


class PairedJson(TypedDict):
    before_usd: USD
    after_usd: USD
    change_fraction: SIGNED_DECIMAL | None


class GatedTotalJson(TypedDict):
    """The one total: the figure the headline leads with and the total's increase gates compare."""

    unit: Annotated[
        TotalUnit,
        "month when every scenario has runs_per_day (weighted, 30 days), else run (task with --per task)",
    ]
    label: Annotated[str, "the unit as the table and Markdown say it: 'per run', 'per 30-day month'"]
    scope: Annotated[
        TotalScope, "paired: the scenarios on both sides; all: --gate-new-scenarios, or none on both sides"
    ]
    scenarios: Annotated[COUNT, "how many scenarios it sums"]
    before_usd: USD
    after_usd: USD
    change_usd: USD
    change_fraction: SIGNED_DECIMAL | None
    added: Annotated[COUNT, "added scenarios left out of it (scope paired)"]
    added_usd: Annotated[USD, "what they cost, in its unit"]
    removed: Annotated[COUNT, "removed scenarios left out of it (scope paired)"]
    removed_usd: Annotated[USD, "what they cost, in its unit"]
    runs_per_month: Annotated[
        SIGNED_DECIMAL | None,
        "unit month: the head side's runs a month; a dollar limit per run allows that many times itself",
    ]


class DiffTotalsJson(TypedDict):
    scenarios: COUNT
    changed: COUNT
    unchanged: COUNT
    added: COUNT
    removed: COUNT
    before: SumsJson
    after: SumsJson
    change: ChangeJson
    change_fraction: SIGNED_DECIMAL | None
    gated: GatedTotalJson
    per_task: PerTaskJson
    per_day: PerDayJson | None
    paired: PairedJson
    added_usd: USD
    removed_usd: USD


class DiffCountersJson(TypedDict):
    """The counters each side's tokens were counted with: equal lists unless they were counted differently."""

    before: Annotated[list[str], "the base side's counters, distinct, in the scenarios' order"]
    after: Annotated[list[str], "the head side's counters, distinct, in the scenarios' order"]
    same: Annotated[bool, "false when the sides were counted differently"]
    text: Annotated[str, "the line the table and Markdown footers show"]


class DiffJson(TypedDict):
    """What changed between two estimates of the same agent(s): ``agentcost diff BASE HEAD``."""

    compared: Annotated[DiffKind, "two scenario files or two project files"]
    per: Annotated[Per, "--per: what the increase gates compare"]
    base: Annotated[str, "the base side: a git ref or a file"]
    head: Annotated[str, "the head side: 'working tree' or a file"]
    prices: DiffPricesJson
    limits: LimitsJson
    changed: Annotated[bool, "whether any scenario's cost or inputs differ (added and removed ones count)"]
    scenarios: list[ScenarioDiffJson]
    totals: DiffTotalsJson
    approximate: bool
    counters: DiffCountersJson
    warnings: list[str]
