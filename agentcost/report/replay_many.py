"""The report of ``agentcost replay DIR_OR_GLOB...``: many recorded runs in a few numbers each, and
their distributions, built by :func:`agentcost.commands.replay_many.replay_many`;
:mod:`agentcost.render.replay_many` formats it.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from agentcost.infra.record import record

if TYPE_CHECKING:
    from agentcost.loop.simulate import Stat
    from agentcost.report.replay_caps import CapCheck, CapsOutcome


SUFFIXES = (".traj", ".json", ".jsonl")  # the files a directory walk takes


@record
class RunRow:
    """One replayed run in a few numbers. Money and shares are exact decimal strings."""

    path: str
    format: str
    model: str
    requests: int
    input_tokens: int  # reported when the run reports it, else our count
    output_tokens: int
    cache_read_tokens: int | None  # None: not recorded
    cost_usd: str
    cached_share: str | None  # cache reads / reported input, rounded to SHARE_STEP; None: not recorded
    reported_kind: str
    priced_from: str
    truncated: bool
    warnings: int
    model_id: str = ""  # the price row's id (genai-prices' canonical id): aliases of one model merge
    caps: CapCheck | None = None  # --caps: the run held against the caps
    succeeded: bool | None = None  # completed its task (None: unknown), from outcome_from
    outcome_from: str | None = None  # "outcomes" (--outcomes FILE), "log" (its exit status), None


@record
class Skipped:
    path: str
    reason: str  # the error's message, without the file
    detail: str  # the whole one-line error


@record
class ToolSizes:
    """The result sizes (tokens) of one tool's calls over all runs."""

    tool: str
    calls: int
    runs: int  # runs that called it
    p50: int
    p90: int
    mean: Decimal  # rounded half up to 0.01
    max: int


@record
class SkipReason:
    reason: str
    files: int


@record
class RunOutcomes:
    """Which runs completed their task, and the cost per completed task: the total cost of all the
    runs read (succeeded, failed and unknown) / the runs that succeeded, as an estimate's is total
    spend / completed tasks (:class:`agentcost.loop.simulate.Tasks`). None when none succeeded."""

    succeeded: int
    failed: int
    unknown: int
    from_outcomes: int  # runs labelled by the --outcomes file
    from_logs: int  # runs labelled by their own log (SWE-agent's info.exit_status)
    cost_per_completed_usd: Decimal | None
    outcomes_file: str | None = None
    unmatched: int = 0  # the file's rows that name no run read
    first_unmatched: tuple[str, ...] = ()  # the first few of them, as written

    @property
    def labelled(self) -> int:
        return self.succeeded + self.failed


@record
class ReplayManyReport:
    """The summary of many runs and their compact rows, in the order the logs were found."""

    inputs: tuple[str, ...]
    files: int  # logs found
    ignored: int
    limit: str | None
    runs: tuple[RunRow, ...]
    skipped: int
    reasons: tuple[SkipReason, ...]  # most frequent first
    first_skipped: tuple[Skipped, ...]  # the first NAMED_SKIPS
    cost: Stat
    requests: Stat
    cached_share: Stat | None  # over the runs that record it
    cached_runs: int
    tools: tuple[ToolSizes, ...]
    failed_share: Decimal | None  # None: no log read records failed or retried requests
    retried_share: Decimal | None
    total_usd: Decimal
    total_requests: int
    input_tokens: int
    output_tokens: int
    formats: tuple[tuple[str, int], ...]
    models: tuple[tuple[str, int], ...]  # by price id: aliases (a dated id, a provider prefix) merged
    model_names: tuple[
        tuple[str, tuple[str, ...]], ...
    ] = ()  # id -> the names the logs use, when not just the id
    caps: CapsOutcome | None = None  # --caps: the runs held against the caps
    outcomes: RunOutcomes | None = None  # None: no run is labelled (by its log or --outcomes)
