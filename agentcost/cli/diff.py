"""``agentcost diff``: the cost before and after a change, and the gates on the increase."""

from pathlib import Path
from typing import Annotated

import typer

from agentcost.cli.options import (
    AllowPathOpt,
    AsOfOpt,
    BudgetOpt,
    ChartOpt,
    CommentOpt,
    FormatOpt,
    GateNewScenariosOpt,
    MaxInputBytesOpt,
    OutputOpt,
    Per,
    PerOpt,
    PricesOpt,
    ServiceTierOpt,
    SetOpt,
    SummaryOpt,
    WarnIncreaseOpt,
    WarnIncreaseUsdOpt,
    parse_budget,
    parse_option,
    parse_usd,
    path_arg,
    read_user_prices,
    set_input_policy,
    tier_name,
)
from agentcost.cli.output import Output, emit, fail
from agentcost.errors import InputError
from agentcost.render.formats import Format


def register(app: typer.Typer) -> None:
    """Add ``diff`` to ``app``."""
    app.command(
        "diff", epilog="Example: agentcost diff scenarios/bugfix.yaml --base-ref main --max-increase 10%"
    )(diff)


def diff(
    ctx: typer.Context,
    base: Annotated[
        Path,
        typer.Argument(
            metavar="BASE", help="The scenario or project file before the change.", parser=path_arg
        ),
    ],
    head: Annotated[
        Path | None,
        typer.Argument(
            metavar="HEAD",
            help="The file after the change (default: BASE itself, with --base-ref).",
            parser=path_arg,
        ),
    ] = None,
    base_ref: Annotated[
        str | None,
        typer.Option(
            "--base-ref", metavar="REF", help="Read the 'before' side of the same files from this git ref."
        ),
    ] = None,
    max_increase: Annotated[
        str | None,
        typer.Option(
            "--max-increase",
            metavar="PERCENT",
            help="Gate: exit 1 when a cost rises more than this, e.g. 10%.",
        ),
    ] = None,
    max_increase_usd: Annotated[
        str | None,
        typer.Option(
            "--max-increase-usd",
            metavar="USD",
            help="Gate: exit 1 when a cost rises more than this many dollars.",
        ),
    ] = None,
    warn_increase: WarnIncreaseOpt = None,
    warn_increase_usd: WarnIncreaseUsdOpt = None,
    gate_new_scenarios: GateNewScenariosOpt = False,
    format_: FormatOpt = Format.table,
    output: OutputOpt = None,
    summary: SummaryOpt = False,
    comment: CommentOpt = None,
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet", "-q", metavar="", help="Print only the change of the total in dollars, for scripts."
        ),
    ] = False,
    chart: ChartOpt = False,
    set_: SetOpt = None,
    budget: BudgetOpt = None,
    as_of: AsOfOpt = None,
    service_tier: ServiceTierOpt = None,
    prices: PricesOpt = None,
    allow_path: AllowPathOpt = None,
    max_input_bytes: MaxInputBytesOpt = None,
    per: PerOpt = Per.run,
) -> None:
    """Compare the cost before and after a change: per scenario, per request, and what changed."""
    from agentcost.commands.diff import diff_gates
    from agentcost.commands.diff_read import diff_paths
    from agentcost.loop.options import parse_as_of
    from agentcost.report.gates import IncreaseLimits, parse_increase

    out = Output(format_, output, summary, quiet, chart)
    try:
        set_input_policy(ctx, allow_path, max_input_bytes)
        if head is None and base_ref is None:
            raise InputError(
                "needs HEAD, or --base-ref REF to compare BASE with its version at REF", key="diff"
            )
        limits = IncreaseLimits(
            fraction=parse_option(parse_increase, max_increase, "--max-increase"),
            usd=parse_usd(max_increase_usd, "--max-increase-usd", allow_zero=True),
            per=per,
            warn_fraction=parse_option(parse_increase, warn_increase, "--warn-increase"),
            warn_usd=parse_usd(warn_increase_usd, "--warn-increase-usd", allow_zero=True),
            gate_new=gate_new_scenarios,
        )
        reader = None
        if base_ref is not None:
            from agentcost.infra.gitread import git_reader

            reader = git_reader(base_ref)
        report = diff_paths(
            base,
            head if head is not None else base,
            as_of=parse_as_of(as_of),
            overrides=tuple(set_ or ()),
            base_reader=reader,
            limits=limits,
            budget_usd=parse_budget(budget),
            service_tier=tier_name(service_tier),
            user_prices=read_user_prices(prices),
        )
        shown: object = report
        if comment is not None:
            from agentcost.cli.comment import as_comment

            shown, out = as_comment(report, comment, out)
        emit(shown, diff_gates(report), out)
    except InputError as err:
        raise fail(err, "as_of", "service_tier") from None
