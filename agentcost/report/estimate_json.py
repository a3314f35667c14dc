"""The JSON of ``agentcost estimate``, defined once: a scenario's estimate (also each subagent's,
and each scenario's in batch, compare and diff reports).

:mod:`agentcost.render.jsonfmt` and :mod:`agentcost.render.dynamics` build the body as these types;
:func:`agentcost.report.schemagen.schemas_of` turns the same types into the kind's JSON Schema
(``docs/report.schema.json``). The sections of ``--explain`` and ``--simulate`` are in
:mod:`agentcost.report.sections_json`; the envelope (version, kind, gates) in
:mod:`agentcost.report.envelope_json`.
"""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired, TypedDict, get_args

from agentcost.report.notes import Level, NoteKind
from agentcost.report.prices_json import DateTime, ServiceTier, WindowJson
from agentcost.report.schemagen import COUNT, DECIMAL, POSITIVE, USD, Keywords
from agentcost.report.sections_json import InsightsJson, SimulationJson, ToolFootprintJson

RequestKind = Literal["tool_use", "reply", "final"]
CachingMode = Literal["none", "prefix", "conversation", "explicit"]
CachingKind = Literal["automatic-prefix", "explicit", "implicit", "none", "unknown"]
CacheTtl = Literal["5m", "1h", "1h+5m"]
TtlChoice = Literal["none", "5m", "1h", "1h+5m"]
OnFailure = Literal["retry", "abandon"]
CarryGroup = Literal["fixed", "history"]

CACHING_MODES: tuple[CachingMode, ...] = get_args(CachingMode)
CACHING_KINDS: tuple[CachingKind, ...] = get_args(CachingKind)
CACHE_TTLS: tuple[CacheTtl, ...] = get_args(CacheTtl)
TTL_CHOICES: tuple[TtlChoice, ...] = get_args(TtlChoice)
REQUEST_KINDS: tuple[RequestKind, ...] = get_args(RequestKind)
ON_FAILURE: tuple[OnFailure, ...] = get_args(OnFailure)
CARRY_GROUPS: tuple[CarryGroup, ...] = get_args(CarryGroup)

SignedUsd = Annotated[USD, "US dollars, an exact decimal; negative: a loss"]


class ScenarioRefJson(TypedDict):
    path: str
    name: str | None


class PerMtokUsdJson(TypedDict):
    input: USD | None
    output: USD | None
    cache_read: USD | None
    cache_write: USD | None
    cache_write_1h: USD | None


class PricesUsedJson(TypedDict):
    source: str
    version: str
    as_of: DateTime
    urls: list[str]
    per_mtok_usd: PerMtokUsdJson
    label: str
    data_date: Annotated[str | None, Keywords(format="date")]
    service_tier: ServiceTier
    tier_thresholds: list[COUNT]
    time_of_day: Annotated[
        list[WindowJson],
        "daily UTC windows in which the model is priced differently (DeepSeek's peak hours); empty "
        "when its prices follow the date only",
    ]
    in_time_window: Annotated[
        bool | None,
        "as_of's time falls in one of the time_of_day windows; null without windows, or for a date"
        " without a time (priced at the day's standard rates)",
    ]


class TtlCostJson(TypedDict):
    ttl: TtlChoice
    cost_usd: USD
    extra_usd: USD
    cache_expiries: COUNT


class CacheStorageJson(TypedDict):
    tokens: COUNT
    creations: COUNT
    hours: DECIMAL
    usd_per_mtok_hour: USD
    creation_usd: USD
    storage_usd: USD


class CachingJson(TypedDict):
    mode: CachingMode
    default: bool
    kind: Annotated[
        CachingKind, "how the provider serving the model caches prompts (facts.yaml caching_kind)"
    ]
    note: Annotated[str | None, "where the host's caching is not (fully) modelled: why, in one line"]
    ttl: CacheTtl
    min_cacheable_tokens: COUNT
    cache_expiries: Annotated[COUNT, "requests that found the cache expired (a pause longer than the TTL)"]
    ttl_comparison: Annotated[
        list[TtlCostJson],
        "the run's cost with no caching, 5m and 1h entries, for the scenario's pacing (Anthropic; "
        "empty elsewhere)",
    ]
    cheapest_ttl: TtlChoice | None
    storage: Annotated[CacheStorageJson | None, "the Gemini explicit cache (caching: explicit), else null"]


class ApiSplitJson(TypedDict):
    counted: Annotated[
        str, "what the endpoint counted: distinct texts and (Claude) the tool-definition block"
    ]
    not_counted: Annotated[str, "what stayed offline: the framing constants and any text that fell back"]


class CountsJson(TypedDict):
    counter: Annotated[
        str,
        "the counter the tokens were counted with, named as in the table's footer: o200k_base × ratio"
        " (Claude's default, the same on every Python), ctok 3.0 (--count ctok), o200k_base, api ...",
    ]
    encoding: Annotated[str, "the same as counter (kept for reports read before counter existed)"]
    approximate: bool
    method: str
    notes: list[str]
    family: Annotated[
        str,
        "the model's counting family: openai, claude, gemini, llama3, qwen, deepseek, mistral, gpt-oss, "
        "grok, ..., other",
    ]
    exact: Annotated[bool, "not approximate: the model's own tokenizer and framing"]
    api: Annotated[
        ApiSplitJson | None,
        "--count api: what the provider's counting endpoint counted and what it did not; null offline",
    ]
    family_method: Annotated[str, "the family's counting method, one line"]
    source: Annotated[str, "where the family's method comes from: a public page, or a measurement"]


class SubagentJson(TypedDict):
    path: Annotated[str, "its scenario file (inline: the parent's)"]
    label: Annotated[str, "the file as the parent names it, or inline"]
    inline: bool
    call: Annotated[COUNT, "0-based index of the call in this response"]
    model: str
    requests: Annotated[COUNT, "its requests, its own subagents' included"]
    cost_usd: Annotated[USD, "its cost, its own subagents' included"]
    estimate: EstimateJson


class RequestJson(TypedDict):
    index: POSITIVE
    kind: Annotated[
        RequestKind, "tool_use: a tool call; reply: a chat turn's answer; final: the final answer"
    ]
    tool: Annotated[str | list[str] | None, "the tool(s) called, server tools included; null when none"]
    input_tokens: COUNT
    cache_read_tokens: COUNT
    cache_write_tokens: COUNT
    output_tokens: COUNT
    cost_usd: USD
    running_usd: USD
    tier: Annotated[str | None, "the long-context price tier the request crossed, e.g. '>200k'"]
    cache_expired: bool
    failed: Annotated[bool, "a failed attempt (retries), answered by an error result"]
    model: Annotated[str | None, "routing: the model this request ran on; null when it is the scenario's"]
    subagents: Annotated[
        list[SubagentJson],
        "subagents the calls of this response started, each billed on its own model; the totals include them",
    ]


class ContainerJson(TypedDict):
    seconds: Annotated[DECIMAL, "code-execution container time billed, in seconds"]
    usd: Annotated[USD | None, "its price, part of the server-tool fees; null: rate unknown"]


class CarryBlockJson(TypedDict):
    """One block of the context over the run: written once, then sent in every later request."""

    block: Annotated[
        str,
        "a readable name: tool definitions (one block), system prompt, task, per-request framing, "
        "round N call (TOOL), round N result (TOOL), round N thinking (kept one turn)...",
    ]
    group: Annotated[
        CarryGroup, "fixed: the prefix every request carries; history: written by a round, re-sent after it"
    ]
    round: Annotated[int | None, Keywords(minimum=1), "the 1-based round that wrote it; null: the prefix"]
    tokens: Annotated[COUNT, "its size as written, on the scenario's model, before any clearing"]
    times_sent: Annotated[COUNT, "requests that carried it"]
    cost_usd: Annotated[
        USD,
        "its share of those requests' input dollars after caching: cache reads at the cache-read "
        "price, writes at the write price, the rest at the input price (docs/insights.md#carry-cost)",
    ]
    share: Annotated[DECIMAL | None, "cost_usd / totals.cost_usd, 4 places; null when the run costs nothing"]


class TotalsJson(TypedDict):
    requests: COUNT
    input_tokens: COUNT
    cache_read_tokens: COUNT
    cache_write_tokens: COUNT
    output_tokens: COUNT
    input_usd: USD
    output_usd: USD
    cost_usd: USD
    storage_usd: USD
    cache_creation_usd: USD
    subagents_usd: Annotated[USD, "what subagents cost, part of cost_usd"]
    subagent_requests: Annotated[COUNT, "requests made by subagents, part of requests"]
    container: NotRequired[
        Annotated[ContainerJson, "only when code runs in a container (code_execution or container_seconds)"]
    ]
    fixed_usd: Annotated[
        USD, "input dollars of the fixed prefix: tool definitions, system, task, per-request framing"
    ]
    history_usd: Annotated[USD, "input dollars of everything the rounds wrote and later requests re-sent"]
    other_usd: Annotated[
        USD,
        "server-tool fees and an explicit cache's creation and storage: fixed_usd + history_usd + "
        "output_usd + other_usd == cost_usd (subagents' included in each)",
    ]


class OverrunJson(TypedDict):
    runs: POSITIVE
    seed: int
    over_budget_runs: COUNT
    probability: Annotated[DECIMAL, "over_budget_runs / runs, rounded to 4 places"]


class JudgedJson(TypedDict):
    stat: Annotated[str, "the statistic of the simulated runs --at judged the budget at: p99, p90, mean, max"]
    stat_usd: Annotated[USD, "that statistic's cost: over and headroom_usd are of it"]
    runs: POSITIVE


class BudgetJson(TypedDict):
    limit_usd: USD
    source: str
    over: bool
    headroom_usd: USD
    overrun: Annotated[
        OverrunJson | None,
        "a scenario with distributions: how many of a quick simulation's runs go over the budget (the "
        "same count as estimate --simulate RUNS --seed SEED); null without distributions, or when only "
        "the per-run engine could simulate the scenario",
    ]
    per: NotRequired[
        Annotated[
            Literal["task"],
            "present with --per task: over and headroom_usd are of the expected cost per completed task "
            "(outcome.cost_per_completed_task_usd)",
        ]
    ]
    judged: NotRequired[
        Annotated[
            JudgedJson,
            "present with --simulate --at: over and headroom_usd are of that statistic of the runs, "
            "the figure the budget gate read",
        ]
    ]


class RoundsJson(TypedDict):
    planned: COUNT
    run: COUNT
    truncated: bool


class NoteJson(TypedDict):
    level: Level
    kind: NoteKind
    text: str


class ContextEditingJson(TypedDict):
    edits: Annotated[COUNT, "requests before which tool results were cleared"]
    results_cleared: COUNT
    tokens_cleared: Annotated[COUNT, "input tokens each clearing removed (bodies - placeholders), summed"]
    cost_usd: USD
    baseline_usd: Annotated[USD, "the same run without context editing"]
    saving_usd: SignedUsd


class ToolSearchJson(TypedDict):
    deferred: list[str]
    loaded: Annotated[list[str], "deferred tools a tool search loaded, in order"]
    searches: Annotated[COUNT, "tool-search requests"]
    definitions_tokens: Annotated[COUNT, "what the deferred definitions would cost in the tool prefix"]
    prefix_tokens: Annotated[COUNT, "what they cost instead: stubs + the tool-search tool's definition"]
    cost_usd: USD
    baseline_usd: Annotated[USD, "the same run with every tool loaded up front"]
    saving_usd: SignedUsd


class ParallelJson(TypedDict):
    sequential_usd: USD
    saving_usd: USD


class RetriesJson(TypedDict):
    failed_requests: COUNT
    failed_usd: USD
    failed_share: Annotated[DECIMAL | None, "failed_usd / this run's cost (subagents excluded)"]


class RoutedRunJson(TypedDict):
    model: str
    cost_usd: USD


class AgentDynamicsJson(TypedDict):
    parallel: Annotated[ParallelJson | None, "the same calls made one per round; null without parallel calls"]
    retries: Annotated[RetriesJson | None, "failed attempts (invalid call + error result); null without any"]
    routing: Annotated[
        list[RoutedRunJson],
        "the run with every request on one model: the scenario's, then each routed model; empty "
        "without routing",
    ]
    budget_stop: Annotated[int | None, "limits.max_budget_usd stopped the run after this request (1-based)"]


class OutcomeJson(TypedDict):
    """The scenario's outcome (docs/scenario.md#outcome): what a run, a started task and a completed
    task cost."""

    success: Annotated[DECIMAL, "probability that a run completes its task (0 < p <= 1)"]
    on_failure: OnFailure
    max_attempts: Annotated[
        int | None, Keywords(minimum=1), "retry: most runs per task; null: until it succeeds (or abandon)"
    ]
    cost_per_run_usd: Annotated[USD, "totals.cost_usd: one run"]
    runs_per_task: Annotated[
        DECIMAL, "expected runs per started task: abandon 1; retry 1/p; retry up to K (1-(1-p)^K)/p"
    ]
    completion_probability: Annotated[
        DECIMAL, "probability a started task is completed: abandon p; retry 1; retry up to K 1-(1-p)^K"
    ]
    cost_per_task_usd: Annotated[
        USD,
        "expected cost per started task: c x completion_probability + f x (runs_per_task - "
        "completion_probability)",
    ]
    cost_per_completed_task_usd: Annotated[
        USD,
        "expected cost per completed task: c + f (1-p)/p whatever the policy (c / p when a failed run "
        "costs a whole run)",
    ]
    failure_rounds: NotRequired[
        Annotated[POSITIVE, "present with failure_rounds: a failed run is cut after this many rounds"]
    ]
    failure_cost_usd: NotRequired[Annotated[USD, "with failure_rounds: what a failed run costs (f)"]]
    success_distribution: NotRequired[
        Annotated[str, "present when success is given as a distribution: success is its median"]
    ]


class EstimateJson(TypedDict):
    """One scenario's estimate: ``agentcost estimate SCENARIO --format json``; also each subagent's,
    and each scenario's in batch, compare and diff reports."""

    scenario: ScenarioRefJson
    model: str
    model_ref: str
    provider: Annotated[
        str, "the genai-prices provider serving the model (anthropic, aws, azure, deepseek...)"
    ]
    price_provider: Annotated[
        str, "the genai-prices provider whose price row prices it (azure/gpt-4o: openai)"
    ]
    host: Annotated[
        str | None,
        "the host id form that resolved the model (bedrock, azure, vertex, openrouter...); null for a "
        "provider's own id",
    ]
    prices: PricesUsedJson
    caching: CachingJson
    counts: CountsJson
    requests: list[RequestJson]
    totals: TotalsJson
    budget: BudgetJson | None
    rounds: RoundsJson
    context_window: int | None
    max_input_tokens: COUNT
    approximate: bool
    uncertain: Annotated[bool, "the scenario has distributions: every figure is at their medians"]
    warnings: list[str]
    notes: Annotated[
        list[NoteJson],
        "the lines the table format prints under the table, in --verbose order: level essential (shown "
        "by default), detail (shown with --verbose) or warning (always shown)",
    ]
    context_editing: Annotated[
        ContextEditingJson | None,
        "context editing (clear_tool_uses) and its saving against the same run without editing; null "
        "when the scenario does not edit context",
    ]
    tool_search: Annotated[
        ToolSearchJson | None,
        "deferred tools (defer_loading) and their saving against loading every tool up front; null when "
        "no tool is deferred",
    ]
    agent_dynamics: Annotated[
        AgentDynamicsJson | None,
        "parallel calls, retries, routing and max_budget_usd; null when none is in play",
    ]
    carry: Annotated[
        list[CarryBlockJson],
        "each block of this run's context in the order it is sent, with what re-sending it cost "
        "(subagents' blocks are in their own estimates); empty when carry_complete is false",
    ]
    carry_complete: Annotated[
        bool, "false: the run is too long to list its blocks (the totals' split is still exact)"
    ]
    insights: NotRequired[Annotated[InsightsJson, "estimate --explain (docs/insights.md)"]]
    simulation: NotRequired[Annotated[SimulationJson, "estimate --simulate (docs/uncertainty.md)"]]
    outcome: NotRequired[OutcomeJson]
    tool_footprint: NotRequired[
        Annotated[
            ToolFootprintJson, "estimate --explain: each tool definition's footprint (docs/insights.md)"
        ]
    ]
