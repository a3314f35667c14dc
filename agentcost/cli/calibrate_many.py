"""``agentcost calibrate`` of several files, directories or globs: one scenario fitted to many runs.

Called by the ``calibrate`` command of :mod:`agentcost.cli` when it is given anything but one file (one
file keeps the single-run calibration). The work is :mod:`agentcost.commands.calibrate_many`; while it
goes, the spinner on standard error (only on a terminal) counts the runs.
"""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentcost.prices.user import UserPrices

Given = tuple[str | None, str | None, Path | None]
"""``--format-in``, ``--model``, ``--config``."""


def calibrate_many(
    traces: list[Path],
    output: Path | None,
    force: bool,
    as_of: datetime,
    user_prices: UserPrices | None,
    given: Given,
) -> None:
    """Fit one scenario to every run ``traces`` names; write it to ``output`` (else stdout)."""
    from agentcost.cli import progress as cli_progress
    from agentcost.cli.colour import echo_err
    from agentcost.commands import calibrate_many as fit
    from agentcost.commands.calibrate import write_scenario
    from agentcost.commands.replay_many import Options
    from agentcost.errors import one_line
    from agentcost.infra.policy import current_policy

    format_in, model, config = given
    options = Options(
        as_of=as_of,
        user_prices=user_prices,
        format_in=format_in,
        model=model,
        config=config,
        policy=current_policy(),
    )

    def progress(done: int, total: int) -> None:
        cli_progress.working(f"calibrating: replayed {done:,}/{total:,} runs")

    result = fit.calibrate_many([str(t) for t in traces], options, progress=progress)
    cli_progress.stop()
    if output is None:
        sys.stdout.write(result.text)
    else:
        write_scenario(result.text, output, trace_path=traces[0], force=force)
    where = f"wrote {output}" if output is not None else "calibrated"
    skipped = f", {result.skipped:,} skipped" if result.skipped else ""
    echo_err(
        f"{one_line(where)}: {result.runs:,} runs{skipped}; replayed cost per run p50 ${result.p50_usd}, "
        f"p90 ${result.p90_usd}; check with --simulate 2000"
    )
    for note in result.notes:
        echo_err(f"note: {one_line(note)}")
