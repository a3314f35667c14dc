"""``agentcost estimate``: scenarios priced request by request, one report, the gates it trips."""

from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from agentcost.cli.options import (
    AllOpt,
    AllowPathOpt,
    AsOfOpt,
    AtOpt,
    BudgetOpt,
    ChartOpt,
    CountOpt,
    EstimateModelOpt,
    EstimateQuietOpt,
    ExplainOpt,
    FormatOpt,
    MaxInputBytesOpt,
    OutputOpt,
    Per,
    PerOpt,
    PricesOpt,
    SeedOpt,
    ServiceTierOpt,
    SetOpt,
    SimulateOpt,
    SummaryOpt,
    VerboseOpt,
    is_project,
    parse_budget,
    path_arg,
    read_user_prices,
    set_input_policy,
    tier_name,
    use_count,
)
from agentcost.cli.output import (
    Output,
    emit,
    fail,
    simulated,
)
from agentcost.cli.progress import working
from agentcost.errors import InputError
from agentcost.render.formats import Format


def register(app: typer.Typer) -> None:
    """Add ``estimate`` to ``app``."""
    app.command("estimate", epilog="Example: agentcost estimate scenarios/bugfix.yaml --budget 0.05")(
        estimate
    )


def estimate(
    ctx: typer.Context,
    scenarios: Annotated[
        list[Path],
        typer.Argument(
            metavar="SCENARIO...",
            help="Scenario YAML files, or a project file that lists scenarios (agentcost schema prints the"
            " scenario format).",
            parser=path_arg,
        ),
    ],
    format_: FormatOpt = Format.table,
    output: OutputOpt = None,
    summary: SummaryOpt = False,
    quiet: EstimateQuietOpt = False,
    chart: ChartOpt = False,
    set_: SetOpt = None,
    budget: BudgetOpt = None,
    as_of: AsOfOpt = None,
    model: EstimateModelOpt = None,
    service_tier: ServiceTierOpt = None,
    prices: PricesOpt = None,
    explain: ExplainOpt = False,
    simulate: SimulateOpt = None,
    seed: SeedOpt = 0,
    at: AtOpt = None,
    allow_path: AllowPathOpt = None,
    max_input_bytes: MaxInputBytesOpt = None,
    verbose: VerboseOpt = False,
    per: PerOpt = Per.run,
    all_: AllOpt = False,
    count: CountOpt = None,
) -> None:
    """Estimate scenarios: a row per billed request, totals, and the assumptions behind them.

    Several scenarios (or a project file) give one summary row per scenario and a grand total.
    """
    from agentcost.loop.options import has_time, parse_as_of

    out = Output(format_, output, summary, quiet, chart, verbose=verbose)
    overrides = tuple(set_ or ())
    try:
        set_input_policy(ctx, allow_path, max_input_bytes)
        use_count(count)
        when = parse_as_of(as_of)
        limit = parse_budget(budget)
        user_prices = read_user_prices(prices)
        tier = tier_name(service_tier)
        if len(scenarios) == 1 and not is_project(scenarios[0]):
            from agentcost.loop.estimate import estimate_scenario
            from agentcost.report.build import build_report
            from agentcost.report.gates import estimate_gates
            from agentcost.scenario.load import read_scenario as load_scenario

            loaded = load_scenario(scenarios[0], overrides=overrides)
            est = estimate_scenario(
                loaded,
                as_of=when,
                model=model,
                budget_usd=limit,
                service_tier=tier,
                user_prices=user_prices,
                at_time=has_time(as_of),
            )
            report = build_report(est, overrun=simulate is None and at is None, per=per)  # --simulate says it
            # --all: the table shows every request; a table's warnings go to stderr (write_report)
            report = replace(report, show_all=all_, warnings_apart=format_ is Format.table)
            gates = estimate_gates(report)
            if simulate is not None or at is not None:  # with --explain: one report with both
                report, gates = simulated(report, est, simulate, seed, at, quiet, explain)  # type: ignore[assignment]
            elif explain:
                from agentcost.loop.insights import explain as run_explain
                from agentcost.report.sections import ExplainedReport, with_footprint

                working("explaining")
                report = with_footprint(ExplainedReport(report, run_explain(est)), est)
        elif at is not None or explain or (simulate is not None and len(scenarios) > 1):
            option = "--simulate" if simulate is not None else "--at" if at is not None else "--explain"
            raise InputError(
                f"{'explains' if option == '--explain' else 'simulates'} one scenario file at a time",
                key=option,
                hint=f"run it once per scenario: agentcost estimate SCENARIO {option}"
                + (" N" if option == "--simulate" else ""),
            )
        else:  # several scenarios or a project; a project's months under --simulate (docs/project.md)
            from agentcost.cli.output import check_seed
            from agentcost.commands.batch import batch_gates, batch_report_for_paths

            if simulate is not None:
                check_seed(seed)
            batch = batch_report_for_paths(
                scenarios,
                as_of=when,
                model=model,
                budget_usd=limit,
                overrides=overrides,
                service_tier=tier,
                user_prices=user_prices,
                per=per,
                at_time=has_time(as_of),
                months=simulate,
                seed=seed,
            )
            batch = replace(batch, warnings_apart=format_ is Format.table)  # on stderr (write_report)
            report, gates = batch, batch_gates(batch)  # type: ignore[assignment]
        emit(report, gates, out)
    except InputError as err:
        raise fail(err, "as_of", "model", "service_tier", "at", "runs") from None
