"""``agentcost caps``: runtime caps for an agent SDK from the tail of the simulated runs."""

from pathlib import Path
from typing import Annotated

import typer

from agentcost.cli.options import (
    AllowPathOpt,
    AsOfOpt,
    EstimateModelOpt,
    FormatOpt,
    MaxInputBytesOpt,
    OutputOpt,
    PricesOpt,
    SeedOpt,
    ServiceTierOpt,
    SetOpt,
    SummaryOpt,
    path_arg,
    read_user_prices,
    set_input_policy,
    tier_name,
)
from agentcost.cli.output import Output, emit, fail
from agentcost.errors import InputError
from agentcost.render.formats import Format


def register(app: typer.Typer) -> None:
    """Add ``caps`` to ``app``."""
    app.command("caps", epilog="Example: agentcost caps scenarios/uncertain-steps.yaml --at p99")(caps)


def caps(
    ctx: typer.Context,
    scenario: Annotated[
        Path,
        typer.Argument(metavar="SCENARIO", help="A scenario YAML file.", parser=path_arg),
    ],
    at: Annotated[
        str,
        typer.Option(
            "--at", metavar="STAT", help="The statistic of the runs to cap at: p99 (default), p95, max..."
        ),
    ] = "p99",
    simulate: Annotated[
        int | None,
        typer.Option("--simulate", metavar="N", help="Runs to simulate (default 10,000)."),
    ] = None,
    seed: SeedOpt = 0,
    margin: Annotated[
        str | None,
        typer.Option(
            "--margin", metavar="PCT", help="Add this percentage before rounding up (default none)."
        ),
    ] = None,
    format_: FormatOpt = Format.table,
    output: OutputOpt = None,
    summary: SummaryOpt = False,
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet", "-q", metavar="", help="Print only max_budget_usd (one number), for scripts."
        ),
    ] = False,
    set_: SetOpt = None,
    as_of: AsOfOpt = None,
    model: EstimateModelOpt = None,
    service_tier: ServiceTierOpt = None,
    prices: PricesOpt = None,
    allow_path: AllowPathOpt = None,
    max_input_bytes: MaxInputBytesOpt = None,
) -> None:
    """Recommend runtime caps (max_turns, max_budget_usd, max_tokens) from the simulated runs' tail.

    The settings for the Claude Agent SDK, the OpenAI Agents SDK and LangGraph are printed ready to
    paste; --format json is what agentcost replay DIR --caps FILE checks recorded runs against.
    """
    from agentcost.commands.caps import DEFAULT_RUNS
    from agentcost.commands.caps import caps as build_caps
    from agentcost.loop.options import has_time, parse_as_of

    out = Output(format_, output, summary, quiet, chart=False)
    try:
        if format_ is Format.svg:
            raise InputError("caps have no chart", key="--format", hint="table, json, markdown or csv")
        set_input_policy(ctx, allow_path, max_input_bytes)
        report = build_caps(
            scenario,
            at=at,
            runs=DEFAULT_RUNS if simulate is None else simulate,
            seed=seed,
            margin=margin,
            as_of=parse_as_of(as_of),
            model=model,
            overrides=tuple(set_ or ()),
            service_tier=tier_name(service_tier),
            user_prices=read_user_prices(prices),
            at_time=has_time(as_of),
        )
        emit(report, (), out)
    except InputError as err:
        raise fail(err, "as_of", "model", "service_tier", "at", "runs") from None
