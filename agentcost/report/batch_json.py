"""The JSON of ``agentcost estimate`` of a project or of several scenarios (kind ``batch``), defined
once: a summary row per scenario, the totals, and each scenario's full estimate.

:mod:`agentcost.render.batch` builds the body as these types; its JSON Schema is generated from the
same types (:mod:`agentcost.report.schemagen`).
"""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired, TypedDict, get_args

from agentcost.report.estimate_json import EstimateJson
from agentcost.report.prices_json import DateTime
from agentcost.report.schemagen import COUNT, DECIMAL, POSITIVE, USD, Keywords
from agentcost.report.sections_json import StatCountJson, StatUsdJson

Per = Literal["run", "task"]
PERS: tuple[Per, ...] = get_args(Per)
Number = Annotated[DECIMAL, "an exact decimal number"]
Share = Annotated[Number | None, "cache reads / input tokens, rounded to 4 places; null without input"]


class BudgetCheckJson(TypedDict):
    limit_usd: USD
    source: str
    over: bool
    headroom_usd: USD


class ProjectJson(TypedDict):
    path: str
    name: str | None
    budget: BudgetCheckJson | None
    monthly_budget: NotRequired[
        Annotated[BudgetCheckJson, "monthly_budget_usd against totals.cost_per_month_usd, when set"]
    ]


class MonthScenarioJson(TypedDict):
    name: str
    runs_per_day: Annotated[str, "the number, or the distribution described"]
    runs: Annotated[StatCountJson, "runs in a month"]
    cost_usd: Annotated[StatUsdJson, "the scenario's cost in a month"]


class MonthJson(TypedDict):
    """``--simulate N`` of a project: N simulated months (docs/project.md#monthly-risk)."""

    months: POSITIVE
    days: Annotated[POSITIVE, "days in a month"]
    seed: int
    runs_per_scenario: Annotated[
        POSITIVE, "each scenario's simulated runs, the costs its runs are drawn from"
    ]
    cost_usd: Annotated[
        StatUsdJson, "the month's total: nearest-rank percentiles; the mean rounded to 10 places"
    ]
    monthly_budget_usd: USD | None
    over_budget_months: COUNT | None
    over_budget_share: Annotated[Number | None, "months over monthly_budget_usd / months, exact"]
    scenarios: list[MonthScenarioJson]


class ScenarioRowJson(TypedDict):
    index: POSITIVE
    path: str
    name: str
    model: str
    provider: str
    requests: COUNT
    input_tokens: COUNT
    cache_read_tokens: COUNT
    cache_write_tokens: COUNT
    output_tokens: COUNT
    cached_share: Share
    cost_usd: Annotated[USD, "per run, or per completed task with per task"]
    cost_per_run_usd: USD
    cost_per_completed_task_usd: Annotated[
        USD, "expected cost per completed task (outcome); per run without one"
    ]
    budget: BudgetCheckJson | None
    runs_per_day: Number | None
    cost_per_day_usd: USD | None
    cost_per_month_usd: USD | None
    context_window: int | None
    max_input_tokens: COUNT
    fits_context: bool | None
    approximate: bool
    counter: Annotated[str, "the counter of this scenario's tokens (estimate JSON counts.counter)"]


class BatchTotalsJson(TypedDict):
    scenarios: COUNT
    requests: COUNT
    input_tokens: COUNT
    cache_read_tokens: COUNT
    cache_write_tokens: COUNT
    output_tokens: COUNT
    cached_share: Share
    cost_usd: USD
    cost_per_day_usd: USD | None
    cost_per_month_usd: USD | None
    over_budget: COUNT


class PriceSourceJson(TypedDict):
    source: str
    version: str
    as_of: DateTime
    label: Annotated[str, "every scenario's price source, one line"]


class BatchJson(TypedDict):
    """Several scenarios at once: ``agentcost estimate PROJECT`` (or several scenario files)."""

    per: Annotated[Per, "--per: what cost_usd, budgets and totals are of"]
    project: ProjectJson | None
    scenarios: Annotated[list[ScenarioRowJson], Keywords(minItems=1)]
    totals: BatchTotalsJson
    prices: PriceSourceJson
    approximate: bool
    notes: Annotated[list[str], "each scenario's notes that change what its figure means, as 'name: note'"]
    warnings: list[str]
    estimates: list[EstimateJson]
    month: NotRequired[Annotated[MonthJson, "only with --simulate N"]]
