"""The thin command-line layer: parse options, call the library, render, choose the exit code.

Exit codes: 0 ok; 1 a gate tripped (budget, increase, context window); 2 bad input or usage (one
line on stderr, no traceback); 3 a bug in agentcost (its traceback is printed). Heavy modules are
imported inside the commands so that ``agentcost --help`` starts fast.
"""

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from agentcost.cli import catalog as cli_catalog
from agentcost.cli import reconcile as cli_reconcile
from agentcost.cli.colour import echo_err
from agentcost.cli.options import (
    AllOpt,
    AllowPathOpt,
    AsOfOpt,
    AtOpt,
    BudgetOpt,
    ChartOpt,
    CommentOpt,
    CountOpt,
    EstimateModelOpt,
    ExplainOpt,
    FormatInOpt,
    FormatOpt,
    GateNewScenariosOpt,
    JobsOpt,
    MaxFilesOpt,
    MaxInputBytesOpt,
    MaxTotalBytesOpt,
    OutputOpt,
    Per,
    PerOpt,
    PricesOpt,
    QuietOpt,
    RunConfigOpt,
    SeedOpt,
    ServiceTierOpt,
    SetOpt,
    SimulateOpt,
    SummaryOpt,
    TraceModelOpt,
    VerboseOpt,
    WarnIncreaseOpt,
    WarnIncreaseUsdOpt,
    is_project,
    parse_budget,
    parse_option,
    parse_usd,
    path_arg,
    read_user_prices,
    set_input_policy,
    show_version,
    tier_name,
    use_count,
)
from agentcost.cli.output import (
    Output,
    calibration_summary,
    fail,
    guarded_run,
    output_checked,
    simulated,
    write_report,
)
from agentcost.cli.progress import working
from agentcost.errors import InputError, one_line
from agentcost.render.formats import Format

if TYPE_CHECKING:
    from agentcost.report.gates import Gate

app = typer.Typer(
    name="agentcost",
    help="Estimate what an LLM tool-using agent loop will cost before it runs.",
    no_args_is_help=True,
    add_completion=True,  # --install-completion, --show-completion
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_show_locals=False,
    rich_markup_mode=None,  # Click's plain help, as gh and llm print it: no Rich to load for --help
)

# Typer's usage errors (unknown option, missing argument...) are Click exceptions; Typer bundles its
# own Click, so reach the base class through the public BadParameter instead of importing Click.
_ClickException: type[Exception] = next(
    c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException"
)

EXIT_GATE = 1
EXIT_BUG = 3


def _emit(report: object, gates: "Sequence[Gate]", out: Output) -> None:
    """Write the report as asked, report tripped gates, and exit 1 if any tripped."""
    if write_report(report, gates, out):
        raise typer.Exit(code=EXIT_GATE)


@app.command(epilog="Example: agentcost estimate scenarios/bugfix.yaml --budget 0.05")
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
    quiet: QuietOpt = False,
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
    from agentcost.loop.options import parse_as_of

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
            from agentcost.report.estimate import build_report
            from agentcost.report.gates import estimate_gates
            from agentcost.scenario.load import read_scenario as load_scenario

            loaded = load_scenario(scenarios[0], overrides=overrides)
            est = estimate_scenario(
                loaded, as_of=when, model=model, budget_usd=limit, service_tier=tier, user_prices=user_prices
            )
            report = build_report(est, overrun=simulate is None and at is None, per=per)  # --simulate says it
            if all_:  # --all: the table shows every request
                from dataclasses import replace

                report = replace(report, show_all=True)
            gates = estimate_gates(report)
            if simulate is not None or at is not None:  # with --explain: one report with both
                report, gates = simulated(report, est, simulate, seed, at, quiet, explain)  # type: ignore[assignment]
            elif explain:
                from agentcost.loop.insights import explain as run_explain
                from agentcost.report.sections import ExplainedReport, with_footprint

                working("explaining")
                report = with_footprint(ExplainedReport(report, run_explain(est)), est)
        elif simulate is not None or at is not None:
            raise InputError(
                "simulates one scenario file at a time",
                key="--simulate" if simulate is not None else "--at",
                hint="run it once per scenario: agentcost estimate SCENARIO --simulate N",
            )
        elif explain:
            raise InputError(
                "explains one scenario file at a time",
                key="--explain",
                hint="run it once per scenario: agentcost estimate SCENARIO --explain",
            )
        else:
            from agentcost.commands.batch import batch_gates, batch_report_for_paths

            batch = batch_report_for_paths(
                scenarios,
                as_of=when,
                model=model,
                budget_usd=limit,
                overrides=overrides,
                service_tier=tier,
                user_prices=user_prices,
                per=per,
            )
            report, gates = batch, batch_gates(batch)  # type: ignore[assignment]
        _emit(report, gates, out)
    except InputError as err:
        raise fail(err, "as_of", "model", "service_tier", "at", "runs") from None


@app.command(epilog="Example: agentcost compare scenarios/bugfix.yaml -m claude-sonnet-4-5 -m 'openai/*'")
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
) -> None:
    """Estimate one scenario on several models: a row per model, cheapest first.

    --quiet prints the cheapest model's total.
    """
    from agentcost.commands.compare import compare_gates, compare_models, select_models, skipped_note
    from agentcost.loop.options import parse_as_of
    from agentcost.scenario.load import read_scenario as load_scenario

    out = Output(format_, output, summary, quiet, chart, verbose=verbose)
    try:
        set_input_policy(ctx, allow_path, max_input_bytes)
        use_count(count)
        when = parse_as_of(as_of)
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
            loaded, chosen.models, as_of=when, service_tier=tier, user_prices=user_prices, per=per
        )
        _emit(report, compare_gates(report), out)
    except InputError as err:
        raise fail(err, "as_of", "model", "service_tier", "models_file") from None


@app.command(epilog="Example: agentcost diff scenarios/bugfix.yaml --base-ref main --max-increase 10%")
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
        _emit(shown, diff_gates(report), out)
    except InputError as err:
        raise fail(err, "as_of", "service_tier") from None


cli_catalog.register(app)  # models, prices
cli_reconcile.register(app)  # reconcile


@app.command(epilog="Example: agentcost replay run.traj --format json")
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

        if is_many(traces):  # several files, a directory or a glob: many runs, summarised
            limits = (jobs, max_files, max_total_bytes)
            given = (format_in, model, config, tools, system)
            return replay_many(traces, out, when, user_prices, given, limits)
        loaded = load_trace(
            traces[0], format_in=format_in, model=model, config=config, tools=tools, system=system
        )
        _emit(replay_trace(loaded, as_of=when, user_prices=user_prices), (), out)
    except InputError as err:  # --model is the run's model: its errors keep the key model
        raise fail(err, "as_of") from None


@app.command(epilog="Example: agentcost calibrate run.traj -o scenarios/run.yaml")
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
    from agentcost.commands.conversations import calibrate_log, write_log_calibration
    from agentcost.loop.options import parse_as_of
    from agentcost.replay import load_trace

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
            from agentcost.cli.calibrate import calibrate_many

            return calibrate_many(traces, output, force, when, user_prices, (format_in, model, config))
        trace = traces[0]
        loaded = load_trace(trace, format_in=format_in, model=model, config=config)
        result = calibrate_log(loaded, as_of=when, user_prices=user_prices, output=output)
        if output is None:
            sys.stdout.write(result.text)
        else:
            write_log_calibration(result, output, trace_path=trace, force=force)
        calibration_summary(result, output)
    except InputError as err:
        raise fail(err, "as_of", "output") from None


@app.command(epilog="Example: agentcost schema > agentcost.schema.json")
def schema(
    report: Annotated[
        bool, typer.Option("--report", metavar="", help="Print the JSON Schema of the JSON reports instead.")
    ] = False,
) -> None:
    """Print the JSON Schema of scenario files (for editors: yaml-language-server, VS Code)."""
    import json

    if report:
        from agentcost.render.schema import report_schema

        sys.stdout.write(json.dumps(report_schema(), indent=2) + "\n")
        return
    from agentcost.scenario.format import json_schema

    sys.stdout.write(json.dumps(json_schema(), indent=2) + "\n")


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=show_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    """Estimate what an LLM tool-using agent loop will cost before it runs."""


def run(argv: list[str] | None = None) -> int:
    """Run the CLI and return its exit code (what ``main`` passes to ``sys.exit``). Faults of standard
    output and of the working directory end it with an exact code (``cli_output.guarded_run``)."""
    return guarded_run(_run, sys.argv[1:] if argv is None else argv)


def _command() -> Callable[..., object]:
    """The Click command Typer builds from ``app`` (as ``Typer.__call__`` does), once a process: the
    build reads every command's type hints, ~35 ms that each in-process :func:`run` would repeat."""
    global _CLICK
    if _CLICK is None:
        _CLICK = typer.main.get_command(app)
    return _CLICK


_CLICK: Callable[..., object] | None = None


def _run(argv: list[str]) -> int:
    try:
        result = _command()(args=argv, prog_name="agentcost", standalone_mode=False)
    except _ClickException as err:
        format_message = getattr(err, "format_message", None)
        message = format_message() if callable(format_message) else str(err)
        if type(err).__name__ == "NoArgsIsHelpError":  # the bare command: its message is the help
            typer.echo(message)
        elif message:
            ctx = getattr(err, "ctx", None)  # the (sub)command the error is about
            where = getattr(ctx, "command_path", None) or "agentcost"
            echo_err(f"agentcost: error: {one_line(message)} (see '{where} --help')")
        return int(getattr(err, "exit_code", 2))
    except typer.Abort:
        typer.echo("agentcost: aborted", err=True)
        return 1
    return result if isinstance(result, int) else 0


def main() -> None:
    """The console script. A bug (any exception that is not bad input) prints its traceback and
    exits 3, so that CI never mistakes it for a tripped gate (exit 1)."""
    from agentcost.infra.writes import tolerant_encoding

    tolerant_encoding(sys.stdout)  # PYTHONIOENCODING=ascii: escape what it cannot encode
    try:
        code = run()
    except KeyboardInterrupt:
        code = 130
    except Exception:
        import traceback

        traceback.print_exc()
        typer.echo(
            "agentcost: internal error (a bug, not your input): please report it with the traceback above",
            err=True,
        )
        code = EXIT_BUG
    sys.exit(code)
