"""The report of several scenarios at once (``agentcost estimate`` of a project or several files):
one summary row per scenario and the totals, every figure derived by
:func:`agentcost.commands.batch.build_batch_report`; :mod:`agentcost.render.batch` formats it.
"""

from __future__ import annotations

from decimal import Decimal

from agentcost.infra.record import record
from agentcost.loop.month import DAYS_PER_MONTH, MonthRisk, MonthScenario
from agentcost.report.estimate import (
    BudgetLine,
    Report,
)

__all__ = [
    "DAYS_PER_MONTH",
    "BatchReport",
    "BatchRow",
    "BatchTotals",
    "MonthRisk",
    "MonthScenario",
    "ProjectInfo",
]


@record
class BatchRow:
    """One scenario: what one run costs, and per day and month when its runs per day are known."""

    index: int  # 1-based position in the project
    path: str
    name: str  # the entry's name, else the scenario's name, else its path
    model_id: str
    provider: str
    requests: int
    input_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    output_tokens: int
    cached_share: Decimal | None  # cache reads / input tokens, rounded to 4 places; None: no input
    cost_usd: Decimal  # one run (cost_per_run_usd), or one completed task with --per task
    budget: BudgetLine | None
    budget_file: str  # where the budget is set (the project file for an entry's budget_usd)
    budget_line: int | None
    runs_per_day: Decimal | None
    cost_per_day_usd: Decimal | None  # cost_usd x runs_per_day
    cost_per_month_usd: Decimal | None  # cost_per_day_usd x 30
    context_window: int | None
    max_input_tokens: int
    fits_context: bool | None  # None when the window is unknown
    approximate: bool
    report: Report  # the scenario's full single-estimate report
    cost_per_run_usd: Decimal = Decimal(0)  # the report's totals.cost_usd
    cost_per_task_usd: Decimal = Decimal(0)  # expected cost per completed task (no outcome: per run)

    @property
    def over_budget(self) -> bool:
        return self.budget is not None and self.budget.over


@record
class BatchTotals:
    scenarios: int
    requests: int
    input_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    output_tokens: int
    cached_share: Decimal | None
    cost_usd: Decimal  # one run of every scenario (one completed task each with --per task)
    cost_per_day_usd: Decimal | None  # None unless every scenario has runs_per_day
    cost_per_month_usd: Decimal | None
    over_budget: int  # scenarios over their own budget


@record
class ProjectInfo:
    path: str
    name: str | None
    budget: BudgetLine | None  # the project's budget_usd against totals.cost_usd
    budget_line: int | None
    monthly_budget: BudgetLine | None = None  # monthly_budget_usd against totals.cost_per_month_usd
    monthly_budget_line: int | None = None


@record
class BatchReport:
    version: int
    project: ProjectInfo | None  # None: scenario files given without a project file
    rows: tuple[BatchRow, ...]
    totals: BatchTotals
    approximate: bool  # some scenario's token counts are approximate
    price_source: str
    price_version: str
    as_of: str
    warnings: tuple[str, ...]
    price_label: str = ""  # every scenario's price source (and service tier), one line
    price_sources: str = ""  # the same without the data dates: the line people read
    per: str = "run"  # "task" (--per task): every cost is of a completed task, budgets too
    notes: tuple[str, ...] = ()  # each scenario's caveats, "name: note" (agentcost.report.notes.caveats)
    warnings_apart: bool = False  # the CLI prints the warnings on stderr: the table leaves them out
    month: MonthRisk | None = None  # --simulate N: N simulated months (agentcost.loop.month)

    @property
    def unit_text(self) -> str:
        """``per run``, or ``per task`` with --per task."""
        return "per task" if self.per == "task" else "per run"

    @property
    def one_text(self) -> str:
        """``one run``, or ``one completed task`` with --per task."""
        return "one completed task" if self.per == "task" else "one run"

    @property
    def reports(self) -> tuple[Report, ...]:
        return tuple(row.report for row in self.rows)

    @property
    def title(self) -> str:
        if self.project is not None:
            return self.project.name or self.project.path
        return f"{len(self.rows)} scenarios"
