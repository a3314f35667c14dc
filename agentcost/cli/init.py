"""``agentcost init``: a commented starter scenario to edit, or one calibrated from a recorded run."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from agentcost.cli.colour import echo_err
from agentcost.cli.options import AsOfOpt, FormatInOpt, RunConfigOpt, path_arg
from agentcost.cli.output import fail
from agentcost.errors import InputError, one_line

if TYPE_CHECKING:
    from datetime import datetime

    from agentcost.scenario.starter import Answers

Prompt = Callable[[str, str], str]
"""Asks one question with its default answer shown; returns what the user typed (the default when
they typed nothing)."""


def register(app: typer.Typer) -> None:
    """Add ``init`` to ``app``."""
    app.command(
        "init",
        epilog="Examples: agentcost init my-agent.yaml && agentcost estimate my-agent.yaml;"
        " agentcost init --from run.jsonl my-agent.yaml",
    )(init)


def init(
    path: Annotated[
        Path | None,
        typer.Argument(
            metavar="[PATH]",
            help="The scenario file to write (default agentcost-scenario.yaml); - prints it instead.",
            parser=path_arg,
            show_default=False,
        ),
    ] = None,
    from_log: Annotated[
        Path | None,
        typer.Option(
            "--from",
            metavar="LOG",
            help="Calibrate the scenario from a recorded run (as `agentcost calibrate LOG` does).",
            parser=path_arg,
        ),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            "-m",
            metavar="MODEL",
            help="The model (default claude-sonnet-4-5); with --from: the run's, if the log does not say.",
        ),
    ] = None,
    tools: Annotated[
        int | None, typer.Option("--tools", metavar="N", help="How many tools the agent has (default 3).")
    ] = None,
    rounds: Annotated[
        int | None,
        typer.Option(
            "--rounds", metavar="N", help="How many tool calls it makes before answering (default 6)."
        ),
    ] = None,
    budget: Annotated[
        str | None,
        typer.Option(
            "--budget", metavar="USD", help="Its budget per run in dollars, 0 for none (default 0.25)."
        ),
    ] = None,
    yes: Annotated[
        bool,
        typer.Option("--yes", "-y", metavar="", help="Ask nothing: take the defaults for what is not given."),
    ] = False,
    force: Annotated[bool, typer.Option("--force", metavar="", help="Overwrite an existing file.")] = False,
    as_of: AsOfOpt = None,
    format_in: FormatInOpt = None,
    config: RunConfigOpt = None,
) -> None:
    """Write a starter scenario to edit, every key explained, or one calibrated from a recorded run.

    Without --from, the questions are the model, the number of tools and of tool calls, and the
    budget; they are asked only when standard input is a terminal, and only for what no option
    gives (--yes: none). The file is valid as written: `agentcost estimate PATH` prices it offline.
    """
    from agentcost.infra.writes import check_output
    from agentcost.loop.options import parse_as_of
    from agentcost.scenario.starter import DEFAULT_PATH

    target = path if path is not None else Path(DEFAULT_PATH)
    output = None if str(target) == "-" else target
    try:
        when = parse_as_of(as_of)
        starter = (("--tools", tools), ("--rounds", rounds), ("--budget", budget), ("--yes", yes or None))
        given = [flag for flag, value in starter if value is not None]
        if from_log is not None and given:
            raise InputError(
                "is for a starter scenario: a calibrated one takes its sizes from the log",
                key=given[0],
                hint="leave it out, or leave out --from",
            )
        if output is not None:
            check_output(output, "PATH")  # a directory, a symlink, a device: refused before anything
            if output.exists() and not force:
                raise InputError("the file exists", file=output, hint="pass --force to overwrite it")
        if from_log is not None:
            from agentcost.cli.calibrate import calibrate_one

            calibrate_one(from_log, output, force=force, as_of=when, log=(format_in, model, config))
            return
        answers = given_answers(model, tools, rounds, budget)
        if not yes and _is_terminal() and None in (model, tools, rounds, budget):
            answers = ask(answers, _prompt, check_model=lambda m: _check_model(m, when))
        else:
            _check_model(answers.model, when)
        write_starter(answers, output, force=force)
    except InputError as err:
        raise fail(err, "model", "as_of") from None


def given_answers(model: str | None, tools: int | None, rounds: int | None, budget: str | None) -> Answers:
    """The answers the options give, the defaults for the others; InputError naming the option that
    cannot make a valid scenario."""
    from agentcost.cli.options import parse_usd
    from agentcost.scenario.starter import Answers

    answers = Answers()
    if model is not None:
        answers = replace(answers, model=model)
    if tools is not None:
        answers = replace(answers, tools=tools, rounds=0 if tools == 0 else answers.rounds)
    if rounds is not None:
        answers = replace(answers, rounds=rounds)
    amount = parse_usd(budget, "--budget", allow_zero=True)
    if amount is not None:
        answers = replace(answers, budget_usd=amount)
    problem = answers.problem()
    if problem is not None:
        raise InputError(problem[1], key=f"--{problem[0]}")
    return answers


_QUESTIONS = (
    ("model", "Model (the id the API takes; `agentcost models` lists them)"),
    ("tools", "How many tools does the agent have"),
    ("rounds", "How many tool calls does it make before it answers"),
    ("budget", "Budget per run in dollars (0: none)"),
)


def ask(answers: Answers, prompt: Prompt, *, check_model: Callable[[str], None] | None = None) -> Answers:
    """``answers`` with each of its four answers asked through ``prompt`` (the current one as the
    default); a question is asked again, after a one-line reason on stderr, until its answer is usable.
    ``check_model`` raises InputError for a model that cannot be priced."""
    from agentcost.cli.options import parse_usd

    shown = {
        "model": answers.model,
        "tools": str(answers.tools),
        "rounds": str(answers.rounds),
        "budget": format(answers.budget_usd, "f"),
    }
    for key, question in _QUESTIONS:
        while True:
            text = prompt(question, shown[key]).strip() or shown[key]
            try:
                if key == "model":
                    candidate = replace(answers, model=text)
                elif key == "budget":
                    candidate = replace(
                        answers, budget_usd=parse_usd(text, "budget", allow_zero=True) or Decimal(0)
                    )
                else:
                    if not text.isdigit():
                        raise InputError(f"not a whole number: {text!r}", key=key)
                    number = int(text)
                    candidate = (
                        replace(answers, tools=number) if key == "tools" else replace(answers, rounds=number)
                    )
                problem = candidate.problem()
                if problem is not None and problem[0] == key:
                    raise InputError(problem[1], key=key)
                if key == "model" and check_model is not None:
                    check_model(text)
            except InputError as err:
                echo_err(f"agentcost: error: {one_line(str(err))}; try again")
                continue
            answers = candidate
            if key == "tools" and answers.tools == 0:  # no tools, no tool calls: the default follows
                answers = replace(answers, rounds=0)
                shown["rounds"] = "0"
            break
    return answers


def write_starter(answers: Answers, output: Path | None, *, force: bool) -> None:
    """The starter scenario for ``answers`` to ``output`` (atomically; None: stdout), and on stderr
    what was written and the command that estimates it."""
    from agentcost.infra.writes import write_output
    from agentcost.scenario.starter import starter_text

    name = str(output) if output is not None else "FILE"
    text = starter_text(answers, path=name)
    if output is None:
        sys.stdout.write(text)
        return
    if output.exists() and not force:  # it appeared while the questions were asked
        raise InputError("the file exists", file=output, hint="pass --force to overwrite it")
    try:
        write_output(output, text, newline="\n", key="PATH")
    except OSError as err:
        raise InputError(f"cannot write the scenario: {err.strerror}", file=output) from None
    budget = f"budget ${format(answers.budget_usd, 'f')}" if answers.budget_usd else "no budget"
    typer.echo(
        f"wrote {one_line(name)}: {answers.model}, {answers.tools} tools, {answers.rounds} tool calls, "
        f"{budget}; edit it, then: agentcost estimate {one_line(name)}",
        err=True,
    )


def _check_model(model: str, when: datetime) -> None:
    """InputError (key ``model``, with "did you mean") when ``model`` has no price at ``when``."""
    from agentcost.prices.lookup import resolve_model

    resolve_model(model, as_of=when)


def _is_terminal() -> bool:
    return sys.stdin.isatty()


def _prompt(question: str, default: str) -> str:
    """One question on stderr (stdout may be the scenario: ``init -``), its answer from stdin; the
    end of input aborts (exit 1)."""
    sys.stderr.write(f"{question} [{default}]: ")
    sys.stderr.flush()
    line = sys.stdin.readline()
    if not line:
        sys.stderr.write("\n")
        raise typer.Abort()
    return line.rstrip("\r\n")
