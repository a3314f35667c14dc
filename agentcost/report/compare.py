"""The report of one scenario on several models (``agentcost compare``): a row per model, cheapest
first, every figure derived by :func:`agentcost.commands.compare.compare_models`;
:mod:`agentcost.render.compare` formats it.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from agentcost.report.estimate import (
    Report,
)


@dataclass(frozen=True)
class CompareRow:
    model: str  # as given (provider/model_id from expand_models)
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


@dataclass(frozen=True)
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
