"""The JSON of ``agentcost compare`` (kind ``compare``), defined once: one scenario on several
models, a row per model cheapest first, and each model's full estimate.

:mod:`agentcost.render.compare` builds the body as these types; its JSON Schema is generated from
the same types (:mod:`agentcost.report.schemagen`).
"""

from __future__ import annotations

from typing import Annotated, TypedDict

from agentcost.report.batch_json import BudgetCheckJson, Number, Per
from agentcost.report.estimate_json import CachingMode, EstimateJson, ScenarioRefJson
from agentcost.report.prices_json import DateTime
from agentcost.report.schemagen import COUNT, USD, Keywords

Provider = Annotated[str, "a genai-prices provider id (anthropic, aws, deepseek...)"]


class ModelRowJson(TypedDict):
    model: str
    model_ref: str
    provider: Provider
    requests: COUNT
    input_tokens: COUNT
    cache_read_tokens: COUNT
    cache_write_tokens: COUNT
    output_tokens: COUNT
    cached_share: Annotated[Number | None, "cache reads / input tokens, rounded to 4 places"]
    cost_usd: Annotated[
        USD, "the ranked figure: cost_per_run_usd, or with per task cost_per_completed_task_usd"
    ]
    cost_per_run_usd: Annotated[USD, "one run (the estimate's totals.cost_usd)"]
    cost_per_completed_task_usd: Annotated[
        USD, "expected cost per completed task (the estimate's outcome); per run without an outcome"
    ]
    cost_per_request_usd: Annotated[USD, "per run / requests, to 10 places"]
    ratio_to_cheapest: Annotated[Number | None, "cost / the cheapest cost, rounded to 2 places"]
    cheapest: bool
    context_window: int | None
    max_input_tokens: COUNT
    fits_context: bool | None
    approximate: bool
    counter: Annotated[str, "the counter of this model's tokens (estimate JSON counts.counter)"]
    encoding: Annotated[str, "the same as counter (the name it had before)"]
    caching_mode: CachingMode
    price_row: Annotated[str, "provider/model_id: the price row model_ref resolved to"]
    budget: Annotated[
        BudgetCheckJson | None,
        "the scenario's limits.budget_usd or --budget, judged on cost_usd (over: this model trips the"
        " budget gate, exit 1); null without a budget",
    ]


class UnfitJson(TypedDict):
    model_ref: Annotated[str, "the model as written in --model or a --models file"]
    price_row: Annotated[str | None, "provider/model_id it resolves to at the standard tier"]
    reason: Annotated[str, "why the scenario cannot run on it (a server tool it lacks, a service tier)"]
    hint: Annotated[str | None, "what it offers instead (server tools of deepseek-chat: none)"]
    file: Annotated[str | None, "the scenario file of the part it cannot run"]
    line: Annotated[int | None, "that part's line"]


class CheapestJson(TypedDict):
    model: str
    provider: Provider
    cost_usd: USD


class ComparePricesJson(TypedDict):
    source: str
    version: str
    as_of: DateTime
    label: Annotated[str, "every model's price source, one line"]


class CompareJson(TypedDict):
    """One scenario on several models: ``agentcost compare SCENARIO -m MODEL -m MODEL``."""

    scenario: ScenarioRefJson
    per: Annotated[Per, "--per: what cost_usd, ranks and ratios are of"]
    models: Annotated[
        list[ModelRowJson],
        Keywords(minItems=1),
        "one item per model as typed (model_ref), by cost, cheapest first (ties by model id)",
    ]
    over_budget: Annotated[
        list[str], "the models (model_ref) over the budget, cheapest first: each trips the gate (exit 1)"
    ]
    unfit: Annotated[
        list[UnfitJson],
        "models the scenario cannot run on, in the order given: not estimated, not in models",
    ]
    cheapest: CheapestJson
    prices: ComparePricesJson
    approximate: bool
    notes: Annotated[list[str], "each model's notes that change what its figure means, as 'model: note'"]
    warnings: list[str]
    estimates: list[EstimateJson]
