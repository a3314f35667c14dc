"""The thin command-line layer: parse options, call the library, render, choose the exit code.

Exit codes: 0 ok; 1 a budget was exceeded; 2 bad input or usage (one line on stderr, no traceback).
Anything else that escapes is a bug and shows its traceback. Heavy modules are imported inside the
commands so that ``agentcost --help`` starts fast.
"""

from __future__ import annotations

import sys
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from agentcost import __version__
from agentcost.errors import InputError
from agentcost.spec import MAX_BUDGET_USD

app = typer.Typer(
    name="agentcost",
    help="Estimate what an LLM tool-using agent loop will cost before it runs.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)

# Typer's usage errors (unknown option, missing argument...) are Click exceptions; Typer bundles its
# own Click, so reach the base class through the public BadParameter instead of importing Click.
_ClickException: type[Exception] = next(
    c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException"
)


class Format(StrEnum):
    table = "table"
    json = "json"


def _fail(message: str) -> typer.Exit:
    typer.echo(f"agentcost: error: {message}", err=True)
    return typer.Exit(code=2)


def _parse_budget(value: str | None) -> Decimal | None:
    if value is None:
        return None
    try:
        budget = Decimal(value.strip().lstrip("$"))
    except InvalidOperation:
        raise InputError(
            f"not a dollar amount: {value!r}", key="--budget", hint="e.g. --budget 0.05"
        ) from None
    if not budget.is_finite() or budget <= 0 or budget > MAX_BUDGET_USD:
        raise InputError(
            f"must be a dollar amount above 0 and at most {MAX_BUDGET_USD:,}, got {value!r}", key="--budget"
        )
    return budget


@app.command()
def estimate(
    scenario: Annotated[Path, typer.Argument(help="A scenario YAML file (see docs/scenario.md).")],
    format_: Annotated[Format, typer.Option("--format", "-f", help="Output format.")] = Format.table,
    budget: Annotated[
        str | None,
        typer.Option(
            help="Fail (exit 1) when the estimate is over this many dollars; overrides limits.budget_usd."
        ),
    ] = None,
    as_of: Annotated[
        str | None,
        typer.Option("--as-of", help="Price date (ISO date or datetime, UTC). Default: now."),
    ] = None,
    model: Annotated[str | None, typer.Option(help="Price a different model than the scenario's.")] = None,
) -> None:
    """Estimate one scenario: a row per billed request, totals, and the assumptions behind them."""
    from agentcost.estimate import estimate as run_estimate
    from agentcost.estimate import parse_as_of
    from agentcost.report import build_report

    try:
        est = run_estimate(scenario, as_of=parse_as_of(as_of), model=model, budget_usd=_parse_budget(budget))
    except InputError as err:
        raise _fail(str(err)) from None
    report = build_report(est)
    from agentcost.report.fmt import exact

    if format_ is Format.json:
        from agentcost.report.jsonfmt import render_json

        sys.stdout.write(render_json(report))
    else:
        from rich.console import Console

        from agentcost.report.table import render_table

        Console().print(render_table(report))
    if report.budget is not None and report.budget.over:
        b = report.budget
        typer.echo(
            f"agentcost: over budget: {report.scenario_path} estimates ${exact(report.totals.cost_usd)}"
            f" > ${exact(b.limit_usd)} ({b.source})",
            err=True,
        )
        raise typer.Exit(code=1)


@app.command()
def models(
    pattern: Annotated[
        str | None,
        typer.Argument(help="Filter: a substring, a glob such as 'claude-*', or 'openai/*'."),
    ] = None,
    as_of: Annotated[
        str | None,
        typer.Option("--as-of", help="Price date (ISO date or datetime, UTC). Default: now."),
    ] = None,
) -> None:
    """List the models agentcost can price, with their rates."""
    from rich.console import Console

    from agentcost.catalog.prices import list_models
    from agentcost.estimate import parse_as_of
    from agentcost.report.table import render_models

    try:
        found = list_models(as_of=parse_as_of(as_of), pattern=pattern)
    except InputError as err:
        raise _fail(str(err)) from None
    if not found:
        raise _fail(f"no known model matches {pattern!r} (try a shorter filter, or none)")
    Console().print(render_models(found))


@app.command()
def schema() -> None:
    """Print the JSON Schema of scenario files (for editors: yaml-language-server, VS Code)."""
    import json

    from agentcost.scenario import json_schema

    sys.stdout.write(json.dumps(json_schema(), indent=2) + "\n")


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"agentcost {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version_callback, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    """Estimate what an LLM tool-using agent loop will cost before it runs."""


def run(argv: list[str] | None = None) -> int:
    """Run the CLI and return its exit code (what ``main`` passes to ``sys.exit``)."""
    try:
        result = app(args=argv, prog_name="agentcost", standalone_mode=False)
    except _ClickException as err:
        format_message = getattr(err, "format_message", None)
        message = format_message() if callable(format_message) else str(err)
        if message:  # no message: the bare command, which has already printed its help
            typer.echo(f"agentcost: error: {message} (see 'agentcost --help')", err=True)
        return int(getattr(err, "exit_code", 2))
    except typer.Abort:
        typer.echo("agentcost: aborted", err=True)
        return 1
    return result if isinstance(result, int) else 0


EXIT_BUG = 3


def main() -> None:
    """The console script. A bug (any exception that is not bad input) prints its traceback and
    exits 3, so that CI never mistakes it for an over-budget result (exit 1)."""
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
