"""The report of one scenario on several models (``agentcost compare``): a row per model, cheapest
first, every figure derived by :func:`agentcost.commands.compare.compare_models`;
:mod:`agentcost.render.compare` formats it.
"""

from __future__ import annotations

from decimal import Decimal

from agentcost.infra.record import record
from agentcost.report.estimate import (
    BudgetLine,
    Report,
)


@record
class CompareRow:
    model: str  # as typed (-m, a --models line); a glob's match as provider/model_id
    model_id: str
    model_name: str
    provider: str
    requests: int
    input_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    output_tokens: int
    cached_share: Decimal | None  # cache reads / input tokens, rounded to 4 places
    cost_usd: Decimal  # the ranked figure: cost_per_run_usd, or cost_per_task_usd with --per task
    cost_per_request_usd: Decimal  # cost per run / requests, rounded half-up to 10 places
    ratio_to_cheapest: Decimal | None  # cost / cheapest cost, rounded to 2 places (None: cheapest is $0)
    cheapest: bool
    context_window: int | None
    max_input_tokens: int
    fits_context: bool | None  # every request within the window; None when the window is unknown
    approximate: bool
    encoding: str
    caching_mode: str
    report: Report
    cost_per_run_usd: Decimal = Decimal(0)  # exactly estimate_scenario(...).report's totals.cost_usd
    cost_per_task_usd: Decimal = Decimal(0)  # expected cost per completed task (no outcome: per run)
    budget: BudgetLine | None = None  # the report's budget, judged on cost_usd (per run or per task)
    over_by_usd: Decimal | None = None  # cost_usd - the budget: positive when over (None: no budget)

    @property
    def price_row(self) -> str:
        """``provider/model_id``: the genai-prices (or --prices) row the model was priced with."""
        return f"{self.provider}/{self.model_id}"

    @property
    def renamed(self) -> bool:
        """Whether the price row reads differently from the id as typed (``grok-4`` priced as
        ``x-ai/grok-4-0709``); ``gpt-5`` and ``openai/gpt-5`` are not renamed."""
        return self.model not in (self.model_id, self.price_row)


@record
class UnfitRow:
    """A model the scenario cannot run on (:class:`agentcost.errors.UnfitModel`): not estimated,
    not ranked, listed after the compared models with the reason."""

    model: str  # as typed
    price_row: str | None  # provider/model_id when the name resolves (None: it does not)
    reason: str  # one line: what the model lacks
    hint: str | None  # what it offers instead (``server tools of deepseek-chat: none``)
    file: str | None
    line: int | None

    @property
    def renamed(self) -> bool:
        return self.price_row is not None and self.model not in (
            self.price_row,
            self.price_row.split("/", 1)[1],
        )


@record
class CompareReport:
    version: int
    scenario_path: str
    scenario_name: str | None
    rows: tuple[CompareRow, ...]  # by cost, cheapest first (ties by model id)
    approximate: bool  # some model's counts are approximate
    price_source: str
    price_version: str
    as_of: str
    warnings: tuple[str, ...]
    price_label: str = ""  # every row's price source (and service tier), one line
    price_sources: str = ""  # the same without the data dates: the line people read
    per: str = "run"  # "task" (--per task): rows ranked and compared by cost per completed task
    notes: tuple[str, ...] = ()  # each model's caveats, "model: note" (agentcost.report.notes.caveats)
    unfit: tuple[UnfitRow, ...] = ()  # models the scenario cannot run on, in the order given
    budget_usd: Decimal | None = None  # the budget every row is judged against (None: no budget)
    budget_source: str | None = None  # "limits.budget_usd" or "--budget"

    @property
    def over_budget(self) -> tuple[CompareRow, ...]:
        """The rows over the budget (the budget gates that trip), cheapest first."""
        return tuple(r for r in self.rows if r.budget is not None and r.budget.over)

    @property
    def cheapest(self) -> CompareRow:
        return self.rows[0]

    @property
    def cost_header(self) -> str:
        """The heading of the ranked cost column: ``total`` (one run) or ``per task``."""
        return "per task" if self.per == "task" else "total"

    @property
    def unit_text(self) -> str:
        """``per run``, or ``per completed task`` with --per task."""
        return "per completed task" if self.per == "task" else "per run"
