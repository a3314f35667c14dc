"""The ``agentcost`` group builds a command only when it runs (agentcost.cli.core.COMMANDS): the
table it lists without importing anything must say what each command's own help says."""

import importlib
import inspect
import subprocess
import sys

import pytest
import typer

from agentcost.cli import core


@pytest.mark.parametrize("name", list(core.COMMANDS))
def test_the_summary_is_the_first_paragraph_of_the_command_help(name: str) -> None:
    module, summary = core.COMMANDS[name]
    one = typer.Typer()
    importlib.import_module(module).register(one)
    groups = [g for g in one.registered_groups if g.name == name]  # a group (agentcost mcp): its help
    if groups:
        doc = str(groups[0].typer_instance.info.help) if groups[0].typer_instance else ""
    else:
        (info,) = [c for c in one.registered_commands if c.name == name]
        doc = inspect.getdoc(info.callback) or ""
    assert " ".join(doc.split("\n\n")[0].split()) == summary


def test_each_module_registers_exactly_the_commands_the_table_gives_it() -> None:
    for module in {m for m, _ in core.COMMANDS.values()}:
        one = typer.Typer()
        importlib.import_module(module).register(one)
        assert {c.name for c in one.registered_commands} | {g.name for g in one.registered_groups} == {
            name for name, (m, _) in core.COMMANDS.items() if m == module
        }


def test_help_lists_every_command_and_builds_none() -> None:
    probe = (
        "import sys\nfrom agentcost.cli import run\ncode = run(['--help'])\n"
        "print(sorted(m for m in sys.modules if m.startswith('agentcost.cli.')), code)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    listed = [line.split()[0] for line in done.stdout.split("Commands:\n")[1].splitlines()[:-1]]
    assert listed == list(core.COMMANDS)
    loaded = done.stdout.splitlines()[-1]
    assert loaded == "['agentcost.cli.colour', 'agentcost.cli.core', 'agentcost.cli.progress'] 0"


def test_a_command_is_built_once_and_a_typo_still_gets_a_suggestion(
    capsys: pytest.CaptureFixture[str],
) -> None:
    group = core._command()
    commands = group.commands  # type: ignore[attr-defined]
    assert commands["schema"] is commands["schema"]
    assert "nope" not in commands
    assert core.run(["shema"]) == 2
    assert "No such command 'shema'. Did you mean 'schema'?" in capsys.readouterr().err
