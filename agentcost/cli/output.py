"""What the CLI's commands do with a report: write it as the output options say and report its
gates; ``estimate --simulate``'s run with its progress bar; ``calibrate``'s summary on stderr.

:func:`emit` writes a report and exits 1 when a gate tripped (:data:`EXIT_GATE`; the other exit
codes live in :mod:`agentcost.cli.core`). Heavy modules are imported inside the functions, as in the
CLI.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from agentcost.cli.colour import colour_system, echo_err
from agentcost.cli.options import DEFAULT_SIMULATION_RUNS, flagged
from agentcost.errors import InputError, one_line
from agentcost.infra.record import record
from agentcost.render.formats import Format

if TYPE_CHECKING:
    from agentcost.commands.conversations import LogCalibration
    from agentcost.loop.estimate import Estimate
    from agentcost.report.estimate import Report
    from agentcost.report.gates import Gate
    from agentcost.report.sections import ExplainedReport, SimulatedReport


@record
class Output:
    """What to do with a report: its format, where it goes and how much of it (the output options)."""

    format: Format
    path: Path | None
    summary: bool
    quiet: bool
    chart: bool
    verbose: bool = False  # --verbose: every note under the table (the table format)


EXIT_GATE = 1
"""The exit code of a tripped gate (budget, increase, context window)."""


def emit(report: object, gates: Sequence[Gate], out: Output) -> None:
    """Write the report as asked, report tripped gates, and exit 1 if any tripped."""
    if write_report(report, gates, out):
        raise typer.Exit(code=EXIT_GATE)


def write_report(report: object, gates: Sequence[Gate], out: Output) -> bool:
    """Write the report as asked and report tripped gates; True if any tripped (the CLI exits 1)."""
    from agentcost.render import output

    if out.summary:  # refused before anything is written: a symlink, a device, an input of this run
        check_summary()
    if out.quiet:
        text = output.quiet_total(report)
    else:  # colour only for the table on standard output (agentcost.cli.colour), never in a file
        width = 110 if out.path is not None else terminal_width()
        colour = colour_system(sys.stdout) if out.path is None and out.format is Format.table else None
        text = output.render_text(
            report, out.format, gates=gates, chart=out.chart, width=width, colour=colour, verbose=out.verbose
        )
    if out.path is not None:
        try:  # refused: an input of the run, a directory, a device (agentcost.infra.writes)
            output.write_atomic(out.path, text)
        except OSError as err:
            raise InputError(
                f"cannot write the report: {err.strerror}", file=out.path, key="--output"
            ) from None
    elif text:
        sys.stdout.write(text)
    if out.format is Format.table and not out.quiet:  # the table's warnings, on stderr
        for warning in output.warning_lines(report):
            echo_err(f"agentcost: warning: {one_line(warning)}")
    if out.summary:
        markdown = output.render_text(report, Format.markdown, gates=gates)
        try:
            appended = output.append_step_summary(markdown)
        except OSError as err:  # a directory, unwritable, a missing directory, refused
            raise _summary_error(err) from None
        if appended is None:
            echo_err("agentcost: note: --summary: GITHUB_STEP_SUMMARY is not set; nothing appended")
    tripped = [g for g in gates if g.tripped and not g.warning]  # a warning gate never fails the run
    in_actions = os.environ.get("GITHUB_ACTIONS") == "true"
    for gate in (g for g in gates if g.tripped):
        echo_err(f"agentcost: {'warning' if gate.warning else 'gate failed'}: {one_line(gate.message)}")
        if in_actions:
            typer.echo(output.annotation(gate), err=True)  # never coloured: GitHub reads the line
    return bool(tripped)


def check_summary() -> None:
    """Refuse a ``$GITHUB_STEP_SUMMARY`` that ``--summary`` would not append to (a symlink, a
    directory, anything but a regular file, an input of this run), before the report is written."""
    from agentcost.infra.writes import check_append

    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if target:
        try:
            check_append(target, "GITHUB_STEP_SUMMARY")
        except OSError as err:
            raise _summary_error(err) from None


def _summary_error(err: OSError) -> InputError:
    return InputError(
        f"cannot append the report to GITHUB_STEP_SUMMARY: {err.strerror or err}",
        file=os.environ.get("GITHUB_STEP_SUMMARY"),
        key="--summary",
        hint=getattr(err, "hint", None),
    )


def simulated(
    report: Report,
    est: Estimate,
    runs: int | None,
    seed: int,
    at: str | None,
    quiet: bool,
    explain: bool = False,
) -> tuple[SimulatedReport | ExplainedReport, tuple[Gate, ...]]:
    """``estimate --simulate N [--seed S] [--at LABEL]``: the report with a Simulation section and
    its gates (the budget read at ``--at`` when given). The runs are priced as ``est`` was. With
    ``--explain``, an Insights section follows, steps per task read off the simulation."""
    from agentcost.loop.simulate import parse_at, simulate
    from agentcost.report.gates import simulation_gates
    from agentcost.report.sections import SimulatedReport, judged_at

    label = None if at is None else parse_at(at)
    if label is not None and report.budget is None:
        raise InputError(
            f"--at {label} gates a budget, and there is none",
            key="--at",
            hint="give --budget DOLLARS or limits.budget_usd in the scenario",
        )
    check_seed(seed)
    n = runs if runs is not None else DEFAULT_SIMULATION_RUNS
    with progress_bar(enabled=not quiet) as progress:
        sim = simulate(
            est,
            n,
            seed=seed,
            budget_usd=None if report.budget is None else report.budget.limit_usd,
            at=() if label is None else (label,),
            progress=progress,
            sensitivity_at="p90" if label is None else label,
        )
    gates = simulation_gates(report, sim, label)
    report = judged_at(report, sim, label)  # the budget line says what the gate decided
    if not explain:
        return SimulatedReport(report, sim, label), gates
    from agentcost.loop.insights import explain as run_explain
    from agentcost.report.sections import ExplainedReport, with_footprint

    explained = ExplainedReport(SimulatedReport(report, sim, label), run_explain(est, sim))
    return with_footprint(explained, est), gates


def check_seed(seed: int) -> None:
    """``--seed``: a whole number from 0 to 2**63 - 1."""
    if not 0 <= seed < 2**63:
        raise InputError(f"must be a whole number from 0 to 2**63 - 1, got {seed}", key="--seed")


@contextmanager
def progress_bar(enabled: bool) -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar on stderr for long simulations, when stderr is a terminal (instead of the
    spinner, :mod:`agentcost.cli.progress`, which it erases)."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    from agentcost.cli import progress as cli_progress

    cli_progress.stop()
    from rich.console import Console
    from rich.progress import Progress

    console = Console(stderr=True, color_system=colour_system(sys.stderr), emoji=False)
    with Progress(console=console, transient=True) as bar:
        task = bar.add_task("simulating", total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


def calibration_summary(result: LogCalibration, output: Path | None) -> None:
    """``calibrate``'s lines on stderr: what was written, the replayed and re-estimated totals, notes."""
    error = f"{result.error * 100:+.2f}%" if result.error is not None else "n/a"
    where = f"wrote {output}" if output is not None else "calibrated"
    if result.scenarios:
        names = ", ".join(one_line(str(path)) for path, _ in result.scenarios)
        if output is None:
            typer.echo(
                f"the log holds {len(result.scenarios)} separate conversations: printed the project "
                f"file; pass -o FILE to write the scenarios it lists ({names}) beside FILE",
                err=True,
            )
        else:
            where += f" (project) and {names}"
    typer.echo(
        f"{where}: {result.requests} requests; replayed ${result.replayed_usd}, "
        f"re-estimated ${result.estimated_usd} ({error})",
        err=True,
    )
    for note in result.notes:
        echo_err(f"note: {one_line(note)}")


# The commands with -o/--output: their value is checked before the run, as given (``out/`` names a
# directory: a Path would drop the slash).


def output_checked(path: Path) -> Path:
    """``path``, refused before the run when it is a directory or not a regular file (key ``output``)."""
    from agentcost.infra.writes import check_output

    check_output(path, "output")
    return path


def terminal_width() -> int:
    import shutil

    return shutil.get_terminal_size((110, 24)).columns


def fail(message: str | InputError, *options: str) -> typer.Exit:
    """Print the one-line error; exit 2. ``options``: the neutral keys of the command's options
    (``as_of``, ``model``...), named in the line by the command's flags (``--as-of``, ``--model``)."""
    error = flagged(message, options) if isinstance(message, InputError) else None
    text = one_line(str(error) if error is not None else str(message))
    echo_err(f"agentcost: error: {text}")
    if os.environ.get("GITHUB_ACTIONS") == "true":  # bad input is listed on the check too
        typer.echo(input_annotation(text, error), err=True)
    return typer.Exit(code=2)


def input_annotation(text: str, error: InputError | None) -> str:
    """A GitHub Actions ``::error`` line for bad input (exit 2), pointing at the file (and line) the
    error names, escaped as :func:`agentcost.render.output.annotation` escapes a gate's."""
    from agentcost.infra.text import workflow_data, workflow_property

    props = []
    if error is not None and error.file is not None:
        props.append(f"file={workflow_property(str(error.file))}")
        if error.line is not None:
            props.append(f"line={error.line}")
    props.append(f"title={workflow_property('agentcost input error')}")
    return f"::error {','.join(props)}::{workflow_data(text)}"
