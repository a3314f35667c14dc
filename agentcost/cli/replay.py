"""``agentcost replay``: a recorded run (or many) counted and priced request by request."""

from pathlib import Path
from typing import Annotated

import typer

from agentcost.cli.options import (
    AllowPathOpt,
    AsOfOpt,
    FormatInOpt,
    FormatOpt,
    JobsOpt,
    MaxFilesOpt,
    MaxInputBytesOpt,
    MaxTotalBytesOpt,
    OutputOpt,
    PricesOpt,
    QuietOpt,
    RunConfigOpt,
    SummaryOpt,
    TraceModelOpt,
    path_arg,
    read_user_prices,
    set_input_policy,
)
from agentcost.cli.output import Output, emit, fail
from agentcost.errors import InputError
from agentcost.render.formats import Format


def register(app: typer.Typer) -> None:
    """Add ``replay`` to ``app``."""
    app.command("replay", epilog="Example: agentcost replay run.traj --format json")(replay)


def replay(
    ctx: typer.Context,
    traces: Annotated[
        list[Path],
        typer.Argument(
            metavar="TRACE...",
            help="A recorded run: SWE-agent .traj, Anthropic/OpenAI API log, Claude Code log. Several"
            " files, directories or globs: many runs, summarised as distributions per run.",
            parser=path_arg,
        ),
    ],
    format_in: FormatInOpt = None,
    model: TraceModelOpt = None,
    config: RunConfigOpt = None,
    tools: Annotated[
        Path | None,
        typer.Option(
            "--tools",
            metavar="FILE",
            help="Tool definitions (JSON) the log does not record, added to each request.",
            parser=path_arg,
        ),
    ] = None,
    system: Annotated[
        Path | None,
        typer.Option(
            "--system",
            metavar="FILE",
            help="The system prompt (text) the log does not record, added to each request.",
            parser=path_arg,
        ),
    ] = None,
    format_: FormatOpt = Format.table,
    output: OutputOpt = None,
    summary: SummaryOpt = False,
    quiet: QuietOpt = False,
    as_of: AsOfOpt = None,
    prices: PricesOpt = None,
    allow_path: AllowPathOpt = None,
    max_input_bytes: MaxInputBytesOpt = None,
    jobs: JobsOpt = 1,
    max_files: MaxFilesOpt = None,
    max_total_bytes: MaxTotalBytesOpt = None,
    caps: Annotated[
        Path | None,
        typer.Option(
            "--caps",
            metavar="FILE",
            help="Hold each run against the caps of agentcost caps --format json: which would have"
            " stopped it, where, and what it spent past them (the runs summarised, one file too).",
            parser=path_arg,
        ),
    ] = None,
    outcomes: Annotated[
        Path | None,
        typer.Option(
            "--outcomes",
            metavar="FILE",
            help="With many runs: a CSV of run,success (the log file relative to FILE's folder,"
            " true/false), over what the logs record; gives the cost per completed task.",
            parser=path_arg,
        ),
    ] = None,
) -> None:
    """Replay a recorded run: our count of every request beside the reported usage, and its cost."""
    from agentcost.loop.options import parse_as_of
    from agentcost.replay import load_trace
    from agentcost.replay import replay as replay_trace

    out = Output(format_, output, summary, quiet, chart=False)
    try:
        set_input_policy(ctx, allow_path, max_input_bytes)
        when = parse_as_of(as_of)
        user_prices = read_user_prices(prices)
        from agentcost.cli.replay_many import is_many, replay_many

        if is_many(traces) or caps is not None:  # several files, a directory or a glob: many runs
            limits = (jobs, max_files, max_total_bytes)
            given = (format_in, model, config, tools, system)
            return replay_many(traces, out, when, user_prices, given, limits, caps, outcomes)
        if outcomes is not None:
            raise InputError(
                "labels many runs: one run has no cost per completed task",
                key="--outcomes",
                hint="give the directory of the runs: agentcost replay DIR --outcomes FILE",
            )
        loaded = load_trace(
            traces[0],
            format_in=format_in,
            model=model,
            config=config,
            tools=tools,
            system=system,
            subagents=True,
        )
        emit(replay_trace(loaded, as_of=when, user_prices=user_prices), (), out)
    except InputError as err:  # --model is the run's model: its errors keep the key model
        raise fail(err, "as_of") from None
