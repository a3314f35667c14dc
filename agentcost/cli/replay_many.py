"""``agentcost replay`` of several files, directories or globs: many runs, summarised.

Called by the ``replay`` command of :mod:`agentcost.cli` when it is given anything but one file (one
file keeps the single-run report). The work is :mod:`agentcost.commands.replay_many`; while it goes,
the spinner on standard error (only on a terminal, :mod:`agentcost.cli.progress`) counts the runs.
Exit 0 when any run was read (skipped files are counted in the report), 2 when none was.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from agentcost.errors import InputError

if TYPE_CHECKING:
    from agentcost.cli.output import Output
    from agentcost.prices.user import UserPrices

Given = tuple[str | None, str | None, Path | None, Path | None, Path | None]
"""``--format-in``, ``--model``, ``--config``, ``--tools``, ``--system``."""


def is_many(traces: list[Path]) -> bool:
    """Anything but one path that is a file, or names none and is no glob (the single-run error)."""
    if len(traces) != 1:
        return True
    path = traces[0]
    return path.is_dir() or (not path.exists() and any(c in str(path) for c in "*?["))


def replay_many(
    traces: list[Path],
    out: Output,
    as_of: datetime,
    user_prices: UserPrices | None,
    given: Given,
    limits: tuple[int, int | None, int | None],
    caps: Path | None = None,
    outcomes: Path | None = None,
) -> None:
    """Replay every run ``traces`` names and write the summary as ``out`` asks; with ``caps`` (a
    caps file, :mod:`agentcost.commands.replay_caps`) each run held against them; ``outcomes``
    (``--outcomes FILE``): which runs succeeded (:mod:`agentcost.commands.outcomes`)."""
    from agentcost.cli import progress as cli_progress
    from agentcost.cli.output import write_report
    from agentcost.commands import replay_many as many
    from agentcost.infra.policy import current_policy
    from agentcost.render import output
    from agentcost.render.formats import Format
    from agentcost.render.replay_many import RENDERERS

    if out.format is Format.svg:
        raise InputError("--format svg shows one run", key="--format", hint="table, json, markdown or csv")
    from agentcost.commands.replay_caps import read_caps

    labels = None
    if outcomes is not None:  # read before the runs: a mistake in it is found at once
        from agentcost.commands.outcomes import read_outcomes

        labels = read_outcomes(outcomes)
    format_in, model, config, tools, system = given
    jobs, max_files, max_bytes = limits
    options = many.Options(
        as_of=as_of,
        user_prices=user_prices,
        format_in=format_in,
        model=model,
        config=config,
        tools=tools,
        system=system,
        policy=current_policy(),
        caps=None if caps is None else read_caps(caps),
    )

    def progress(done: int, total: int) -> None:
        cli_progress.working(f"replaying {done:,}/{total:,} runs")

    report = many.replay_many(
        [str(t) for t in traces],
        options,
        jobs=jobs,
        max_files=many.MAX_FILES if max_files is None else max_files,
        max_bytes=many.MAX_BYTES if max_bytes is None else max_bytes,
        progress=progress,
    )
    if labels is not None:
        from agentcost.commands.outcomes import with_outcomes

        report = with_outcomes(report, labels)
    output.register(*RENDERERS)
    write_report(report, (), out)
