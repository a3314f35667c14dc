"""``agentcost reconcile``: providers' usage and cost exports held against agentcost's prices."""

import sys
from decimal import Decimal
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from agentcost.cli.options import MaxInputBytesOpt, path_arg, set_input_policy
from agentcost.cli.output import fail
from agentcost.errors import InputError

MAX_EXPORTS = 100


class ReconcileFormat(StrEnum):
    table = "table"
    json = "json"
    markdown = "markdown"
    csv = "csv"


ReconcileFormatOpt = Annotated[
    ReconcileFormat,
    typer.Option(
        "--format", "-f", metavar="FORMAT", help="Output format: table (default), json, markdown or csv."
    ),
]


def register(app: typer.Typer) -> None:
    """Add ``reconcile`` to ``app``."""
    app.command("reconcile", epilog="Example: agentcost reconcile usage_report.json cost_report.json")(
        reconcile
    )


def reconcile(
    ctx: typer.Context,
    exports: Annotated[
        list[Path],
        typer.Argument(
            metavar="EXPORT...",
            help="JSON responses of Anthropic's usage_report/messages and cost_report, or OpenAI's"
            " organization/usage/completions and organization/costs.",
            parser=path_arg,
        ),
    ],
    format_: ReconcileFormatOpt = ReconcileFormat.table,
    project: Annotated[
        Path | None,
        typer.Option(
            "--project",
            metavar="FILE",
            help="Also compare each day with this project (or scenario) file's estimate per day.",
            parser=path_arg,
        ),
    ] = None,
    runs_per_day: Annotated[
        str | None,
        typer.Option(
            "--runs-per-day",
            metavar="N",
            help="With --project: one run of every scenario x N a day (default: the project's runs_per_day).",
        ),
    ] = None,
    max_input_bytes: MaxInputBytesOpt = None,
) -> None:
    """Compare the providers' usage and cost exports with what agentcost says the same usage costs.

    Per model and day: the exported tokens at that day's prices, beside the cost export's amounts.
    """
    from agentcost.commands.reconcile import reconcile as run
    from agentcost.commands.reconcile_read import read_exports

    if len(exports) > MAX_EXPORTS:
        raise fail(f"{len(exports)} exports given; at most {MAX_EXPORTS} (reconcile a shorter period)")
    try:
        set_input_policy(ctx, None, max_input_bytes)
        result = run(read_exports(exports))
        compared = None
        if project is not None:
            from agentcost.commands.reconcile_project import compare_project

            compared = compare_project(result, project, _runs(runs_per_day))
        elif runs_per_day is not None:
            raise InputError("needs --project FILE", key="--runs-per-day")
    except InputError as err:
        raise fail(err) from None
    from agentcost.render import reconcile as render

    if format_ is ReconcileFormat.table:  # laid out at the terminal's width
        from agentcost.cli.colour import print_rich

        print_rich(render.render_table(result, compared))
        return
    shown = {
        ReconcileFormat.json: render.render_json,
        ReconcileFormat.markdown: render.render_markdown,
        ReconcileFormat.csv: render.render_csv,
    }[format_](result, compared)
    if format_ is ReconcileFormat.markdown:  # under GitHub's limit for a comment, as every report
        from agentcost.render.fitmd import fit_markdown

        shown = fit_markdown(shown)
    sys.stdout.write(shown)


MAX_RUNS_PER_DAY = 10_000_000
"""The most runs a day ``--runs-per-day`` takes: more is surely a typo."""


def _runs(text: str | None) -> Decimal | None:
    """``--runs-per-day``: a number above 0 and at most :data:`MAX_RUNS_PER_DAY` (and not below
    ``1e-100``, as any amount: :data:`~agentcost.infra.spec.SMALLEST_EXPONENT`)."""
    from agentcost.infra.spec import SMALLEST_EXPONENT
    from agentcost.infra.validate import quoted

    if text is None:
        return None
    try:
        value = Decimal(text.strip())
        if not value.is_finite() or not 0 < value <= MAX_RUNS_PER_DAY:
            raise ValueError
        if value.adjusted() < SMALLEST_EXPONENT:
            raise ValueError
    except (ValueError, ArithmeticError):
        raise InputError(
            f"expected a number of runs above 0 and at most {MAX_RUNS_PER_DAY:,}, got {quoted(text)}",
            key="--runs-per-day",
            hint="e.g. 200",
        ) from None
    return value
