"""The thin command-line layer: the ``agentcost`` group, its exit codes and the CLI's wording of
errors. Each command lives in a module of its own (:data:`COMMANDS`), imported and built by Typer
only when it runs, so a command pays for its own options and nothing else, and ``agentcost --help``
builds none of them.

Exit codes: 0 ok; 1 a gate tripped (budget, increase, context window); 2 bad input or usage (one
line on stderr, no traceback); 3 a bug in agentcost (its traceback is printed).
"""

import importlib
import os
import sys
from collections.abc import Callable, Iterator, MutableMapping, Sequence
from typing import Annotated, Any

import typer
import typer.core

from agentcost import __version__
from agentcost.cli.colour import echo_err
from agentcost.cli.progress import spinning
from agentcost.errors import InputError, one_line

COMMANDS: dict[str, tuple[str, str]] = {
    "init": (
        "agentcost.cli.init",
        "Write a starter scenario to edit, every key explained, or one calibrated from a recorded run.",
    ),
    "estimate": (
        "agentcost.cli.estimate",
        "Estimate scenarios: a row per billed request, totals, and the assumptions behind them.",
    ),
    "compare": (
        "agentcost.cli.compare",
        "Estimate one scenario on several models: a row per model, cheapest first.",
    ),
    "diff": (
        "agentcost.cli.diff",
        "Compare the cost before and after a change: per scenario, per request, and what changed.",
    ),
    "models": (
        "agentcost.cli.catalog",
        "List the models agentcost can price, newest first: rates, context window, tiers, count accuracy.",
    ),
    "prices": (
        "agentcost.cli.catalog",
        "Show which rates apply to MODEL and where each comes from, with an example request worked out.",
    ),
    "reconcile": (
        "agentcost.cli.reconcile",
        "Compare the providers' usage and cost exports with what agentcost says the same usage costs.",
    ),
    "replay": (
        "agentcost.cli.replay",
        "Replay a recorded run: our count of every request beside the reported usage, and its cost.",
    ),
    "caps": (
        "agentcost.cli.caps",
        "Recommend runtime caps (max_turns, max_budget_usd, max_tokens) from the simulated runs' tail.",
    ),
    "calibrate": (
        "agentcost.cli.calibrate",
        "Write a scenario that reproduces a recorded run; re-estimating it lands on the replayed total.",
    ),
    "mcp": (
        "agentcost.cli.mcp",
        "Count and price the tool definitions of MCP servers (footprint), or serve agentcost over MCP.",
    ),
    "schema": (
        "agentcost.cli.schema",
        "Print the JSON Schema of scenario files (for editors: yaml-language-server, VS Code).",
    ),
}
"""Each command, in the order ``--help`` lists them: the module whose ``register(app)`` adds it, and
its one-line summary (the first paragraph of its docstring; a test holds the two equal), which
``agentcost --help`` prints without importing the module."""

_SETTINGS: dict[str, Any] = {
    "context_settings": {"help_option_names": ["-h", "--help"]},
    "pretty_exceptions_show_locals": False,
    "rich_markup_mode": None,  # Click's plain help, as gh and llm print it: no Rich to load for --help
}


class _Commands(MutableMapping[str, Any]):
    """The group's commands by name, each built by Typer the first time it is looked up: the names
    (listing, "did you mean") cost nothing, one command costs only its own module and options."""

    def __init__(self) -> None:
        self._built: dict[str, Any] = {}

    def __getitem__(self, name: str) -> Any:
        if name not in self._built:
            if name not in COMMANDS:
                raise KeyError(name)
            module = importlib.import_module(COMMANDS[name][0])
            one = typer.Typer(add_completion=False, **_SETTINGS)
            module.register(one)
            group = next((g for g in one.registered_groups if g.name == name), None)
            if group is not None and group.typer_instance is not None:  # a group: agentcost mcp
                self._built[name] = typer.main.get_group(group.typer_instance)
                return self._built[name]
            one.registered_commands = [c for c in one.registered_commands if c.name == name]
            self._built[name] = typer.main.get_command(one)
        return self._built[name]

    def __setitem__(self, name: str, command: Any) -> None:
        self._built[name] = command

    def __delitem__(self, name: str) -> None:
        del self._built[name]

    def __iter__(self) -> Iterator[str]:
        return iter(COMMANDS)

    def __len__(self) -> int:
        return len(COMMANDS)


class _Group(typer.core.TyperGroup):
    """``agentcost``: a Typer group whose commands are built on demand (:class:`_Commands`)."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self.commands = _Commands()

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """The command list of ``--help``, from the summaries: no command is imported or built."""
        limit = formatter.width - 6 - max(map(len, COMMANDS))
        rows = [
            (name, typer.core.TyperCommand(name=name, help=summary).get_short_help_str(limit))
            for name, (_, summary) in COMMANDS.items()
        ]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


app = typer.Typer(
    name="agentcost",
    cls=_Group,
    help="Estimate what an LLM tool-using agent loop will cost before it runs.",
    no_args_is_help=True,
    add_completion=True,  # --install-completion, --show-completion
    **_SETTINGS,
)

# Typer's usage errors (unknown option, missing argument...) are Click exceptions; Typer bundles its
# own Click, so reach the base class through the public BadParameter instead of importing Click.
_ClickException: type[Exception] = next(
    c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException"
)

EXIT_BUG = 3


def show_version(value: bool) -> None:
    if value:
        typer.echo(f"agentcost {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=show_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    """Estimate what an LLM tool-using agent loop will cost before it runs."""


def run(argv: list[str] | None = None) -> int:
    """Run the CLI and return its exit code (what ``main`` passes to ``sys.exit``). Faults of standard
    output and of the working directory end it with an exact code (:func:`guarded_run`)."""
    return guarded_run(_run, sys.argv[1:] if argv is None else argv)


def guarded_run(run: Callable[[list[str]], int], argv: list[str]) -> int:
    """``run(argv)``'s exit code, with exact codes on faults around it: a deleted working directory
    and a ``-o`` that names a directory or a device are exit 2 before the run; standard output is
    :class:`~agentcost.infra.writes.GuardedStdout` while it runs, so that a closed pipe ends it with
    exit 0 and a full disk or a closed stdout with exit 2 (:func:`~agentcost.infra.writes.stdout_failed`).
    Every file read before starts no longer counts as an input of this run."""
    from agentcost.infra import files, writes

    files.forget_reads()
    try:
        os.getcwd()
        for name in _output_names(argv):
            writes.check_output(name)
    except FileNotFoundError:
        echo_err("agentcost: error: the working directory no longer exists (cd to one that does)")
        return 2
    except InputError as err:
        echo_err(f"agentcost: error: {one_line(str(err))}")
        return 2
    real = sys.stdout
    writes.tolerant_encoding(real)
    guarded = writes.GuardedStdout(real)
    sys.stdout = guarded
    try:
        with spinning(argv):  # on stderr, when a terminal, only after half a second of work
            code = run(argv)
        guarded.flush()
    except writes.StdoutFailed as failure:
        code = writes.stdout_failed(failure, real)
    finally:
        sys.stdout = real
    return code


def _output_names(argv: Sequence[str]) -> list[str]:
    """The values given to ``-o``/``--output`` on a command line of a command that has it."""
    command = next((a for a in argv if not a.startswith("-")), None)
    if command not in _OUTPUT_COMMANDS:
        return []
    names = []
    for i, arg in enumerate(argv):
        if arg == "--":
            break
        if arg in ("-o", "--output") and i + 1 < len(argv):
            names.append(argv[i + 1])
        elif arg.startswith("--output="):
            names.append(arg.removeprefix("--output="))
        elif arg.startswith("-o") and not arg.startswith("--") and len(arg) > 2:
            names.append(arg[2:])
    return names


_OUTPUT_COMMANDS = frozenset({"estimate", "compare", "diff", "replay", "calibrate"})


def _command() -> Callable[..., object]:
    """The Click group Typer builds from ``app`` (as ``Typer.__call__`` does), once a process; its
    commands are built when first asked for (:class:`_Commands`)."""
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
    exits 3, so that CI never mistakes it for a tripped gate (exit 1); Ctrl-C is 130. Standard error
    that cannot be written (a full disk, a closed descriptor) loses its messages, not the exit code:
    a missing file is still exit 2 (:class:`~agentcost.infra.writes.QuietStderr`). The garbage
    collector around a command is :func:`agentcost.cli.main`'s."""
    try:
        from agentcost.infra.writes import QuietStderr, tolerant_encoding

        sys.stderr = QuietStderr(sys.stderr)
        tolerant_encoding(sys.stdout)  # PYTHONIOENCODING=ascii: escape what it cannot encode
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
