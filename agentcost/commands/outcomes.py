"""Which replayed runs completed their task (``agentcost replay DIR --outcomes FILE``), and the cost
per completed task of many runs.

A run is labelled by the ``--outcomes`` file when the file names it, else by its own log when the
log records how it ended (SWE-agent's ``info.exit_status``: :func:`agentcost.replay.swe_agent.exit_status`),
else it is unknown. The cost per completed task is the total cost of all the runs read (succeeded,
failed and unknown alike) divided by the runs that succeeded: total spend / completed tasks, the
definition an estimate's ``outcome`` uses (:class:`agentcost.loop.simulate.Tasks`), exact
``Decimal`` arithmetic.

The outcomes file is CSV (docs/replay.md#outcomes): a header row naming the columns ``run`` and
``success`` (others are ignored), then one row per run: ``run`` the log file's path relative to the
outcomes file's folder (``/`` between folders), ``success`` ``true`` or ``false``. It is read
bounded (:data:`MAX_OUTCOMES_BYTES`, :data:`MAX_OUTCOME_ROWS`), and every problem is one
:class:`~agentcost.errors.InputError` naming the file, the line and the column, never quoting it.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Sequence
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

from agentcost.errors import InputError
from agentcost.infra.record import record
from agentcost.report.replay_many import ReplayManyReport, RunOutcomes, RunRow

MAX_OUTCOMES_BYTES = 10_000_000
MAX_OUTCOME_ROWS = 100_000
MAX_RUN_CHARS = 4096  # a path longer than this names no file
NAMED_UNMATCHED = 5
VALUES = {"true": True, "false": False}
HINT = "a CSV file with a header row 'run,success', then rows such as 'a/run1.traj,true' (docs/replay.md)"


@record
class Outcomes:
    """An outcomes file read: each run's absolute, normalised path -> (success, the path as written)."""

    path: str
    labels: dict[str, tuple[bool, str]]


def _where(run: str, base: str) -> str:
    return os.path.normpath(os.path.join(base, run))


def read_outcomes(path: Path, *, limit: int = MAX_OUTCOMES_BYTES) -> Outcomes:
    """Read and validate an outcomes file (see the module docstring)."""
    from agentcost.infra.files import Unreadable, read_text

    shown = str(path)
    try:
        text = read_text(path, limit=limit)
    except Unreadable as e:
        raise InputError(e.reason, file=shown, line=e.line, key="--outcomes", hint=HINT) from None
    base = os.path.dirname(os.path.abspath(path))
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    labels: dict[str, tuple[bool, str]] = {}
    lines: dict[str, int] = {}
    columns: tuple[int, int] | None = None
    try:
        for row in reader:
            line = reader.line_num
            if not any(cell.strip() for cell in row):
                continue
            if columns is None:
                names = [cell.strip().lower() for cell in row]
                if "run" not in names or "success" not in names:
                    raise InputError(
                        "expected a header row naming the columns run and success",
                        file=shown,
                        line=line,
                        hint=HINT,
                    )
                columns = (names.index("run"), names.index("success"))
                continue
            if len(labels) >= MAX_OUTCOME_ROWS:
                raise InputError(f"more than {MAX_OUTCOME_ROWS:,} runs", file=shown, line=line, hint=HINT)
            labels_row(row, columns, shown, line, base, labels, lines)
    except csv.Error:
        raise InputError("not valid CSV", file=shown, line=reader.line_num, hint=HINT) from None
    if columns is None:
        raise InputError("no header row: the file is empty", file=shown, hint=HINT)
    return Outcomes(shown, labels)


def labels_row(
    row: Sequence[str],
    columns: tuple[int, int],
    file: str,
    line: int,
    base: str,
    labels: dict[str, tuple[bool, str]],
    lines: dict[str, int],
) -> None:
    """One row of the outcomes file into ``labels`` (``lines``: where each run was labelled)."""
    run_at, success_at = columns
    if max(run_at, success_at) >= len(row):
        raise InputError("expected a run and its success on this row", file=file, line=line, hint=HINT)
    run, value = row[run_at].strip(), row[success_at].strip().lower()
    if not run or len(run) > MAX_RUN_CHARS:
        what = "empty" if not run else f"longer than {MAX_RUN_CHARS:,} characters"
        raise InputError(
            f"{what}: expected a run's log file",
            file=file,
            line=line,
            key="run",
            hint="relative to this file's folder",
        )
    if value not in VALUES:
        raise InputError("expected true or false", file=file, line=line, key="success", hint=HINT)
    where = _where(run, base)
    if where in lines:
        raise InputError(
            f"the run is labelled twice (first on line {lines[where]})",
            file=file,
            line=line,
            key="run",
            hint="give each run one row",
        )
    lines[where] = line
    labels[where] = (VALUES[value], run)


def run_outcomes(
    rows: Sequence[RunRow],
    total_usd: Decimal,
    *,
    outcomes_file: str | None = None,
    unmatched: Sequence[str] = (),
) -> RunOutcomes | None:
    """How many of ``rows`` succeeded, failed or are unknown, and the cost per completed task
    (``total_usd`` / succeeded); None when no run is labelled and no outcomes file was given."""
    succeeded = sum(1 for r in rows if r.succeeded is True)
    failed = sum(1 for r in rows if r.succeeded is False)
    if not succeeded + failed and outcomes_file is None:
        return None
    return RunOutcomes(
        succeeded=succeeded,
        failed=failed,
        unknown=len(rows) - succeeded - failed,
        from_outcomes=sum(1 for r in rows if r.outcome_from == "outcomes"),
        from_logs=sum(1 for r in rows if r.outcome_from == "log"),
        cost_per_completed_usd=total_usd / succeeded if succeeded else None,
        outcomes_file=outcomes_file,
        unmatched=len(unmatched),
        first_unmatched=tuple(unmatched[:NAMED_UNMATCHED]),
    )


def with_outcomes(report: ReplayManyReport, outcomes: Outcomes) -> ReplayManyReport:
    """The report with each run the outcomes file names labelled by it (over its log's label)."""
    used: set[str] = set()
    rows: list[RunRow] = []
    for row in report.runs:
        where = os.path.normpath(os.path.abspath(row.path))
        label = outcomes.labels.get(where)
        if label is None:
            rows.append(row)
            continue
        used.add(where)
        rows.append(replace(row, succeeded=label[0], outcome_from="outcomes"))
    unmatched = [written for where, (_, written) in outcomes.labels.items() if where not in used]
    summary = run_outcomes(rows, report.total_usd, outcomes_file=outcomes.path, unmatched=unmatched)
    return replace(report, runs=tuple(rows), outcomes=summary)


__all__ = [
    "MAX_OUTCOMES_BYTES",
    "MAX_OUTCOME_ROWS",
    "Outcomes",
    "read_outcomes",
    "run_outcomes",
    "with_outcomes",
]
