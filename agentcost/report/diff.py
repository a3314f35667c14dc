"""The report of ``agentcost diff BASE HEAD``: what changed between two estimates of the same agent(s),
per scenario, per request and in total, with its gates. Every figure is derived by
:func:`agentcost.commands.diff.build_diff`; :mod:`agentcost.render.diff` formats it.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from agentcost.infra.record import record
from agentcost.report.estimate import (
    Report,
    RequestLine,
    unit_cost,
)
from agentcost.report.fmt import ARROW
from agentcost.report.gates import Gate, IncreaseLimits

DiffStatus = Literal["changed", "unchanged", "added", "removed"]


DiffKind = Literal["scenario", "project"]


@record
class Amounts:
    """Tokens and dollars: a side's sums, or a change (after minus before, a missing side counting
    as zero)."""

    input_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    output_tokens: int
    cost_usd: Decimal

    @property
    def is_zero(self) -> bool:
        return not (
            self.input_tokens
            or self.cache_read_tokens
            or self.cache_write_tokens
            or self.output_tokens
            or self.cost_usd
        )


ZERO = Amounts(0, 0, 0, 0, Decimal(0))


@record
class RequestDiff:
    """Request ``index`` on both sides (lined up by index). ``before``/``after`` is None where that
    side has fewer requests (the request was added or removed)."""

    index: int
    status: DiffStatus
    before: RequestLine | None
    after: RequestLine | None
    change: Amounts

    @property
    def label(self) -> str:
        """What the model did, e.g. ``Read``, ``final answer``, or ``final answer → Bash``."""
        if self.before is None or self.after is None:
            line = self.after or self.before
            assert line is not None
            return line.label
        if self.before.label == self.after.label:
            return self.after.label
        return f"{self.before.label} {ARROW} {self.after.label}"


@record
class InputChange:
    """One input of a scenario that differs between the sides, as one line of text.

    ``part``: ``model``, ``counter`` (the sides' tokens were counted with different counters),
    ``caching``, ``cache_ttl``, ``tools``, ``tool_choice``, ``system``,
    ``task``, ``rounds``, ``rounds_run``, ``calls``, ``replies`` (chat turns' answers), ``thinking``,
    ``results``, ``user_messages`` (chat turns' user messages), ``final`` or ``budget``.
    ``before``/``after`` are the compared values (token counts, names or dollar strings; None where
    the side has none).
    """

    part: str
    before: int | str | None
    after: int | str | None
    text: str


@record
class PerDay:
    """Cost per day from a project file's ``runs_per_day``: cost per run x runs per day; per month:
    per day x 30. A missing side is None, and counts as zero in the changes."""

    runs_before: Decimal | None  # None: the side does not exist (or, in totals, not shown)
    runs_after: Decimal | None
    before_usd: Decimal | None
    after_usd: Decimal | None
    change_usd: Decimal
    change_per_month_usd: Decimal  # 30 days
    before_per_month_usd: Decimal | None = None
    after_per_month_usd: Decimal | None = None

    @property
    def change_fraction(self) -> Decimal | None:
        """The change per day (and per month) over the cost before; None when there was none."""
        return fraction(self.change_usd, self.before_usd)


@record
class ScenarioDiff:
    path: str  # as the project file names it, or the scenario file as given
    name: str | None  # the project entry's name, else the scenario's name
    status: DiffStatus
    base: Report | None  # None: the scenario was added
    head: Report | None  # None: the scenario was removed
    change: Amounts
    change_fraction: Decimal | None  # change / before; None when before is 0 or missing
    requests: tuple[RequestDiff, ...]
    inputs: tuple[InputChange, ...]
    file: str | None  # the head scenario file as read (annotations point here); base's if removed
    per_day: PerDay | None = None  # None unless every side present has runs_per_day

    @property
    def before_usd(self) -> Decimal | None:
        return None if self.base is None else self.base.totals.cost_usd

    @property
    def after_usd(self) -> Decimal | None:
        return None if self.head is None else self.head.totals.cost_usd

    @property
    def before_task_usd(self) -> Decimal | None:
        """The base's expected cost per completed task (its outcome; per run without one)."""
        return None if self.base is None else unit_cost(self.base, "task")

    @property
    def after_task_usd(self) -> Decimal | None:
        """The head's expected cost per completed task (its outcome; per run without one)."""
        return None if self.head is None else unit_cost(self.head, "task")

    @property
    def model(self) -> str:
        """The model id, or ``before → after`` when it changed."""
        before = self.base.model_id if self.base is not None else None
        after = self.head.model_id if self.head is not None else None
        if before is None or after is None or before == after:
            return after or before or ""
        return f"{before} {ARROW} {after}"


TotalUnit = Literal["run", "task", "month"]
TotalScope = Literal["paired", "all"]

UNIT_LABELS: dict[str, str] = {"run": "per run", "task": "per completed task", "month": "per 30-day month"}


@record
class GatedTotal:
    """The one total of a diff: the figure its headline leads with and its total increase gates
    compare, derived once by :func:`agentcost.commands.diff.build_diff` (issue 30).

    ``unit``: ``month`` when every scenario says how often it runs (``runs_per_day``: each
    scenario's cost weighted by its runs, x 30 days), else ``run`` (``task`` with ``--per task``):
    one run of each scenario, summed. ``scope``: ``paired``, the scenarios on both sides (like with
    like: added and removed ones are left out, ``left_out`` says what they cost in ``unit``), or
    ``all`` (``--gate-new-scenarios``, or when no scenario is on both sides). ``runs_per_month``: the
    head side's runs in a 30-day month over the scenarios summed (``unit == "month"`` only); a
    ``--max-increase-usd`` limit (dollars per run) is that many runs' worth of the monthly total.
    """

    unit: TotalUnit
    scope: TotalScope
    scenarios: int  # how many scenarios it sums
    before_usd: Decimal
    after_usd: Decimal
    added: int = 0  # left out (scope "paired"): how many scenarios, and what they cost in `unit`
    added_usd: Decimal = Decimal(0)
    removed: int = 0
    removed_usd: Decimal = Decimal(0)
    runs_per_month: Decimal | None = None

    @property
    def change_usd(self) -> Decimal:
        return self.after_usd - self.before_usd

    @property
    def change_fraction(self) -> Decimal | None:
        """The change over the cost before; None when there was none."""
        return fraction(self.change_usd, self.before_usd)

    @property
    def label(self) -> str:
        """``per run``, ``per completed task`` or ``per 30-day month``: every place the total is
        shown says it."""
        return UNIT_LABELS[self.unit]


@record
class DiffTotals:
    scenarios: int
    changed: int
    unchanged: int
    added: int
    removed: int
    before: Amounts  # sums over the scenarios the base has
    after: Amounts  # sums over the scenarios the head has
    change: Amounts
    change_fraction: Decimal | None  # None when before is 0
    gated: GatedTotal  # the one total the headline shows and the total's increase gates compare
    per_day: PerDay | None = None  # None unless every scenario has one
    before_task_usd: Decimal = Decimal(0)  # the base's costs per completed task, summed
    after_task_usd: Decimal = Decimal(0)  # the head's
    # Like with like: the scenarios present on both sides (what the total's increase gates compare
    # unless --gate-new-scenarios), and what the added and removed scenarios cost beside them.
    paired_before_usd: Decimal = Decimal(0)
    paired_after_usd: Decimal = Decimal(0)
    added_usd: Decimal = Decimal(0)  # the added scenarios' cost on the head side
    removed_usd: Decimal = Decimal(0)  # the removed scenarios' cost on the base side

    @property
    def paired_change_fraction(self) -> Decimal | None:
        """The change of the scenarios on both sides, over their cost before (None when 0)."""
        return fraction(self.paired_after_usd - self.paired_before_usd, self.paired_before_usd)

    @property
    def before_usd(self) -> Decimal:
        return self.before.cost_usd

    @property
    def after_usd(self) -> Decimal:
        return self.after.cost_usd


@record
class DiffReport:
    version: int
    kind: DiffKind  # two scenario files, or two project files
    base_label: str  # e.g. "origin/main" or "old.yaml"
    head_label: str  # e.g. "working tree" or "new.yaml"
    as_of: str  # ISO 8601, UTC: both sides are priced at this date
    scenarios: tuple[ScenarioDiff, ...]
    totals: DiffTotals
    limits: IncreaseLimits
    gates: tuple[Gate, ...]
    price_source: str
    price_version: str
    approximate: bool  # some count on either side is approximate
    warnings: tuple[str, ...]  # the head side's, each prefixed with its scenario
    price_label: str = ""  # every report's price source (and service tier), one line
    price_sources: str = ""  # the same without the data dates: the line people read
    per: str = "run"  # "task" (--per task): gates and per-day figures per completed task

    @property
    def changed(self) -> tuple[ScenarioDiff, ...]:
        """The scenarios whose cost or inputs differ (added and removed ones included)."""
        return tuple(s for s in self.scenarios if s.status != "unchanged")

    @property
    def any_change(self) -> bool:
        """Whether anything differs: JSON ``changed``, ``changed=`` of ``--comment``."""
        return bool(self.changed)

    @property
    def counters(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The counters the base side's and the head side's tokens were counted with, each side's
        distinct ones in the scenarios' order (issue 29: a figure depends on its counter)."""
        before = dict.fromkeys(s.base.encoding for s in self.scenarios if s.base is not None)
        after = dict.fromkeys(s.head.encoding for s in self.scenarios if s.head is not None)
        return tuple(before), tuple(after)

    @property
    def counter_text(self) -> str:
        """``counter: o200k_base × ratio``, or, when the sides were counted differently,
        ``counted differently: base o200k_base × ratio, head ctok 3.0``."""
        before, after = self.counters
        if before == after or not before or not after:
            named = after or before
            return f"counter{'s' if len(named) > 1 else ''}: {', '.join(named)}"
        return f"counted differently: base {', '.join(before)}, head {', '.join(after)}"


def fraction(change: Decimal, before: Decimal | None) -> Decimal | None:
    return change / before if before else None
