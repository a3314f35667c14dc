"""``agentcost compare``: one scenario priced on several models, cheapest first."""

from pathlib import Path
from typing import Annotated

import typer

from agentcost.cli.colour import echo_err
from agentcost.cli.options import (
    AllowPathOpt,
    AsOfOpt,
    ChartOpt,
    CountOpt,
    FormatOpt,
    MaxInputBytesOpt,
    OutputOpt,
    Per,
    PerOpt,
    PricesOpt,
    QuietOpt,
    ServiceTierOpt,
    SetOpt,
    SummaryOpt,
    VerboseOpt,
    parse_budget,
    path_arg,
    read_user_prices,
    set_input_policy,
    tier_name,
    use_count,
)
from agentcost.cli.output import Output, emit, fail
from agentcost.cli.progress import working
from agentcost.errors import InputError
from agentcost.render.formats import Format


def register(app: typer.Typer) -> None:
    """Add ``compare`` to ``app``."""
    app.command(
        "compare",
        epilog="Example: agentcost compare scenarios/bugfix.yaml -m claude-sonnet-4-5 -m 'openai/*'",
    )(compare)


def compare(
    ctx: typer.Context,
    scenario: Annotated[
        Path, typer.Argument(metavar="SCENARIO", help="A scenario YAML file.", parser=path_arg)
    ],
    model: Annotated[
        list[str] | None,
        typer.Option(
            "--model",
            "-m",
            metavar="MODEL",
            help="A model, a glob ('claude-sonnet-*') or a provider selector ('anthropic/*'); repeatable.",
        ),
    ] = None,
    models_file: Annotated[
        Path | None,
        typer.Option(
            "--models",
            metavar="FILE",
            help="A file of model selectors: a YAML list, or one per line.",
            parser=path_arg,
        ),
    ] = None,
    format_: FormatOpt = Format.table,
    output: OutputOpt = None,
    summary: SummaryOpt = False,
    quiet: QuietOpt = False,
    chart: ChartOpt = False,
    set_: SetOpt = None,
    as_of: AsOfOpt = None,
    service_tier: ServiceTierOpt = None,
    prices: PricesOpt = None,
    allow_path: AllowPathOpt = None,
    max_input_bytes: MaxInputBytesOpt = None,
    verbose: VerboseOpt = False,
    per: PerOpt = Per.run,
    count: CountOpt = None,
    budget: Annotated[
        str | None,
        typer.Option(
            "--budget",
            metavar="USD",
            help="Judge each model against this many dollars per run (in place of limits.budget_usd):"
            " exit 1 when any is over.",
        ),
    ] = None,
) -> None:
    """Estimate one scenario on several models: a row per model, cheapest first.

    Each model as typed is a row, beside the price row it resolved to. A model the scenario cannot
    run on (a server tool it lacks) is a row marked unfit; the others are compared. With a budget
    (limits.budget_usd or --budget) each model is judged, and the run exits 1 when any is over, as
    estimate does. --quiet prints the cheapest model's total.
    """
    from agentcost.commands.compare import compare_gates, compare_models, select_models, skipped_note
    from agentcost.loop.options import has_time, parse_as_of
    from agentcost.scenario.load import read_scenario as load_scenario

    out = Output(format_, output, summary, quiet, chart, verbose=verbose)
    try:
        set_input_policy(ctx, allow_path, max_input_bytes)
        use_count(count)
        when = parse_as_of(as_of)
        limit = parse_budget(budget)
        user_prices = read_user_prices(prices)
        tier = tier_name(service_tier)
        loaded = load_scenario(scenario, overrides=tuple(set_ or ()))
        chosen = select_models(
            model or [],
            as_of=when,
            models_file=models_file,
            user_prices=user_prices,
            service_tier=tier if tier is not None else loaded.service_tier,
        )
        note = skipped_note(chosen.skipped)
        if note is not None:
            echo_err(f"agentcost: note: {note}")
        working(f"pricing {len(chosen.models)} model{'' if len(chosen.models) == 1 else 's'}")
        report = compare_models(
            loaded,
            chosen.models,
            as_of=when,
            service_tier=tier,
            user_prices=user_prices,
            per=per,
            at_time=has_time(as_of),
            budget_usd=limit,
        )
        emit(report, compare_gates(report), out)
    except InputError as err:
        raise fail(err, "as_of", "model", "service_tier", "models_file") from None
