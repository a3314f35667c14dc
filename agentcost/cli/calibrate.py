"""``agentcost calibrate``: a scenario written from a recorded run (or fitted to many)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from agentcost.cli.options import (
    AllowPathOpt,
    AsOfOpt,
    FormatInOpt,
    MaxInputBytesOpt,
    PricesOpt,
    RunConfigOpt,
    TraceModelOpt,
    path_arg,
    read_user_prices,
    set_input_policy,
)
from agentcost.cli.output import calibration_summary, fail, output_checked
from agentcost.errors import InputError

if TYPE_CHECKING:
    from datetime import datetime

    from agentcost.prices.user import UserPrices


def register(app: typer.Typer) -> None:
    """Add ``calibrate`` to ``app``."""
    app.command("calibrate", epilog="Example: agentcost calibrate run.traj -o scenarios/run.yaml")(calibrate)


def calibrate(
    ctx: typer.Context,
    traces: Annotated[
        list[Path],
        typer.Argument(
            metavar="TRACE...",
            help="A recorded run (see `agentcost replay`). Several files, directories or globs: one"
            " scenario whose step count and sizes are distributions fitted to the runs.",
            parser=path_arg,
        ),
    ],
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            metavar="FILE",
            help="Write the scenario to this file (atomically); default stdout.",
            parser=path_arg,
        ),
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", metavar="", help="Overwrite an existing --output file.")
    ] = False,
    format_in: FormatInOpt = None,
    model: TraceModelOpt = None,
    config: RunConfigOpt = None,
    as_of: AsOfOpt = None,
    prices: PricesOpt = None,
    allow_path: AllowPathOpt = None,
    max_input_bytes: MaxInputBytesOpt = None,
) -> None:
    """Write a scenario that reproduces a recorded run; re-estimating it lands on the replayed total."""
    from agentcost.loop.options import parse_as_of

    try:
        set_input_policy(ctx, allow_path, max_input_bytes)
        when = parse_as_of(as_of)
        user_prices = read_user_prices(prices)
        if output is not None and output_checked(output).exists() and not force:
            raise InputError(
                "the file exists", key="--output", file=output, hint="pass --force to overwrite it"
            )
        from agentcost.cli.replay_many import is_many

        if is_many(traces):  # several files, a directory or a glob: one scenario fitted to the runs
            from agentcost.cli.calibrate_many import calibrate_many

            return calibrate_many(traces, output, force, when, user_prices, (format_in, model, config))
        calibrate_one(
            traces[0],
            output,
            force=force,
            as_of=when,
            user_prices=user_prices,
            log=(format_in, model, config),
        )
    except InputError as err:
        raise fail(err, "as_of", "output") from None


def calibrate_one(
    trace: Path,
    output: Path | None,
    *,
    force: bool,
    as_of: datetime,
    user_prices: UserPrices | None = None,
    log: tuple[str | None, str | None, Path | None] = (None, None, None),
) -> None:
    """One recorded run -> the scenario that reproduces it, on stdout (``output`` None) or written to
    ``output`` (with the scenarios of its conversations beside it); the summary on stderr. The path
    of ``calibrate TRACE`` and of ``init --from LOG``. ``log``: the log's format, model and config."""
    from agentcost.commands.conversations import calibrate_log, write_log_calibration
    from agentcost.replay import load_trace

    format_in, model, config = log
    loaded = load_trace(trace, format_in=format_in, model=model, config=config)
    result = calibrate_log(loaded, as_of=as_of, user_prices=user_prices, output=output)
    if output is None:
        sys.stdout.write(result.text)
    else:
        write_log_calibration(result, output, trace_path=trace, force=force)
    calibration_summary(result, output)
