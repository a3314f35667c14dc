"""The JSON of the estimate's sections, defined once: ``--explain`` (``insights``, ``tool_footprint``)
and ``--simulate`` (``simulation``), keys of :class:`agentcost.report.estimate_json.EstimateJson`.

:mod:`agentcost.render.insights`, :mod:`agentcost.render.footprint` and
:mod:`agentcost.render.simulation` build them as these types; their JSON Schema is generated from
the same types (:mod:`agentcost.report.schemagen`).
"""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired, TypedDict, get_args

from agentcost.report.schemagen import COUNT, DECIMAL, POSITIVE, USD

Share = Annotated[DECIMAL | None, "a share, an exact decimal rounded to 4 places; null when unknown"]
Engine = Literal["vectorized", "per run"]
StopRule = Literal["limits.max_rounds", "limits.max_budget_usd", "limits.max_tokens"]
ENGINES: tuple[Engine, ...] = get_args(Engine)
STOP_RULES: tuple[StopRule, ...] = get_args(StopRule)


class StatUsdJson(TypedDict):
    """Statistics of a cost over runs (simulated, or replayed)."""

    mean: USD
    p50: USD
    p90: USD
    p99: USD
    min: USD
    max: USD


class StatCountJson(TypedDict):
    """Statistics of a count over simulated runs."""

    mean: Annotated[str, "rounded to 2 places"]
    p50: COUNT
    p90: COUNT
    p99: COUNT
    min: COUNT
    max: COUNT


# --- estimate --explain (docs/insights.md) -----------------------------------------------------


class ResultTokensJson(TypedDict):
    tool: str
    calls: COUNT
    tokens: COUNT


class ChecksJson(TypedDict):
    requests: COUNT
    tool_rounds: COUNT
    chat_turns: COUNT
    tool_searches: COUNT
    failed_attempts: COUNT
    definition_tokens_per_request: COUNT
    definition_share: Share
    result_tokens: list[ResultTokensJson]
    fees_usd: USD
    retry_usd: USD
    retry_share: Share
    retry_note: str
    cached_share: Share


class LeverJson(TypedDict):
    name: str
    description: str
    cost_usd: Annotated[USD, "the total re-estimated with this one change"]
    saved_usd: USD
    saved_fraction: Share
    tradeoff: str | None


class StopRulesJson(TypedDict):
    """The stop rules the scenario lacks, and what not converging costs."""

    missing: list[StopRule]
    runs: COUNT
    seed: COUNT
    uncapped_usd: StatUsdJson | None
    capped_usd: StatUsdJson | None
    max_rounds: int | None
    note: str | None


class StepsJson(TypedDict):
    """--explain --simulate: requests per run."""

    runs: COUNT
    seed: COUNT
    requests: StatCountJson


class CarriedJson(TypedDict):
    """A block of the context that costs much to re-send (docs/insights.md#carry-cost)."""

    block: Annotated[str, "as named in the estimate's carry list"]
    tokens: COUNT
    times_sent: Annotated[COUNT, "requests that carried it"]
    resent: Annotated[COUNT, "times_sent - 1: the sends after the first"]
    cost_usd: Annotated[USD, "its share of those requests' input dollars, after caching"]
    share: Annotated[Share, "cost_usd over the task's cost"]
    lever: Annotated[str, "the change that cuts it, in the scenario's keys"]
    lever_names: Annotated[list[str], "the names of the priced levers that make that change (levers[].name)"]


class InsightsJson(TypedDict):
    base_usd: USD
    checks: ChecksJson
    levers: Annotated[list[LeverJson], "biggest saving first, a lever with a tradeoff (batch) among them"]
    stop_rules: Annotated[StopRulesJson | None, "null: no stop rule is missing"]
    steps: StepsJson | None
    carried: Annotated[
        list[CarriedJson], "the re-sent blocks that cost most, most dollars first (every block: carry)"
    ]


class Request1Json(TypedDict):
    tool_prefix_tokens: Annotated[COUNT, "the tool prefix of request 1, all of it"]
    tools_tokens: Annotated[COUNT, "the tools' tokens_per_request, summed"]
    residual_tokens: Annotated[
        int,
        "tool_prefix_tokens - tools_tokens: one-off parts (hidden tool-use system prompt, framing, the "
        "tool-search tool)",
    ]
    residual: Annotated[str, "what the residual is made of"]


class ActiveToolsJson(TypedDict):
    active: COUNT
    max_active: COUNT
    advice: str
    exceeded: bool
    url: str
    read: str
    note: str | None


class ToolDefinitionJson(TypedDict):
    name: str
    tokens_per_request: COUNT
    deferred: bool
    requests: COUNT
    run_tokens: COUNT
    calls: COUNT
    result_tokens: COUNT
    usd_share: Annotated[USD, "its share of definitions_usd, by run_tokens"]


class ToolFootprintJson(TypedDict):
    request_1: Request1Json
    requests: COUNT
    run_usd: USD
    without_definitions_usd: Annotated[USD, "the run re-priced with no tool definitions"]
    definitions_usd: Annotated[USD, "run_usd - without_definitions_usd"]
    usd_method: str
    active_tools: Annotated[ActiveToolsJson | None, "null: the model's maker publishes no advice"]
    tools: Annotated[list[ToolDefinitionJson], "every tool definition, most dollars first"]


# --- estimate --simulate (docs/uncertainty.md) ---------------------------------------------------


class TasksJson(TypedDict):
    completed_runs: COUNT
    success_mean: Annotated[str, "mean drawn success, 4 places"]
    cost_per_completed_task_usd: Annotated[
        StatUsdJson | None, "each completed task carries the spend since the previous one"
    ]


class InputJson(TypedDict):
    where: str
    line: int | None
    distribution: str
    median: COUNT


class BinJson(TypedDict):
    low_usd: USD
    high_usd: USD
    runs: COUNT
    beyond_p99: bool


class SensitivityJson(TypedDict):
    where: str
    cost_usd: Annotated[USD, "the sensitivity_at statistic with this input held at its median"]
    drop_usd: Annotated[USD, "the simulation's sensitivity_at statistic minus cost_usd"]


class SimulationJson(TypedDict):
    runs: POSITIVE
    seed: int
    engine: Engine
    engine_note: Annotated[str | None, "why the per-run engine ran"]
    deterministic_usd: Annotated[USD, "the estimate with every distribution at its median"]
    cost_usd: Annotated[StatUsdJson, "nearest-rank percentiles; the mean rounded to 10 places"]
    requests: StatCountJson
    input_tokens: StatCountJson
    percentiles_usd: Annotated[dict[str, USD], "--at pNN"]
    tasks: NotRequired[Annotated[TasksJson, "only with the scenario's outcome"]]
    max_rounds: int | None
    hit_max_rounds_runs: COUNT
    stopped_by_budget_runs: COUNT
    budget_usd: USD | None
    over_budget_runs: int | None
    overrun_probability: Annotated[str | None, "share of runs over budget_usd, rounded to 4 places"]
    inputs: list[InputJson]
    histogram: Annotated[
        list[BinJson], "equal-width bins from the cheapest run to the p99 run, then the costlier runs"
    ]
    sensitivity_at: Annotated[
        str, "the statistic the sensitivity list reads: p90, or the one --at judges the budget at"
    ]
    sensitivity: Annotated[list[SensitivityJson], "largest drop first"]
