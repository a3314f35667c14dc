"""The CLI's conventions (issue 14): -h, shell completion, metavars in help, an example per command,
errors that list the choices and point to the subcommand's help."""

from __future__ import annotations

import re

import pytest

from agentcost.cli import run

COMMANDS = ["estimate", "compare", "diff", "models", "prices", "replay", "calibrate", "schema", "caps"]


@pytest.fixture(autouse=True)
def _columns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setenv("TERM", "dumb")
    monkeypatch.setenv("NO_COLOR", "1")


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = run(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def help_of(capsys: pytest.CaptureFixture[str], *command: str) -> str:
    code, out, _ = cli(capsys, *command, "--help")
    assert code == 0
    return " ".join(out.replace("│", " ").split())  # rich's box and wrapping, as plain words


@pytest.mark.parametrize("command", [[], *([c] for c in COMMANDS)])
def test_h_is_help_everywhere(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, short, _ = cli(capsys, *command, "-h")
    assert code == 0
    _, long, _ = cli(capsys, *command, "--help")
    assert short == long
    assert "Usage: agentcost" in short and "-h" in short


def test_completion_options(capsys: pytest.CaptureFixture[str]) -> None:
    text = help_of(capsys)
    assert "--install-completion Install completion for the current shell." in text
    assert "--show-completion" in text


@pytest.mark.parametrize("command", COMMANDS)
def test_help_shows_no_python_types(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    text = help_of(capsys, command)
    for python in ("<bool>", "<str>", "<int>", "<path>", "<list[", "int range"):  # [x>=1] is Click's range
        assert python not in text, f"agentcost {command} --help shows {python}"


def test_help_metavars(capsys: pytest.CaptureFixture[str]) -> None:
    text = help_of(capsys, "estimate")
    # Typer's usage line: a required argument in braces, an optional one in brackets
    assert "Usage: agentcost estimate [OPTIONS] {SCENARIO...}" in text
    for shown in (
        "--as-of DATE",
        "--budget USD",
        "-o, --output FILE",
        "--set PATH=VALUE",
        "-m, --model MODEL",
    ):
        assert shown in text
    assert re.search(r"-q, --quiet Print only", text)  # a flag takes no value
    assert "-m, --model MODEL" in help_of(capsys, "compare")
    assert "Usage: agentcost diff [OPTIONS] {BASE} [HEAD]" in help_of(capsys, "diff")
    assert "--input-tokens N Example request" in help_of(capsys, "prices")


@pytest.mark.parametrize("command", COMMANDS)
def test_one_example_per_command(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    text = help_of(capsys, command)
    assert text.count("Example: agentcost ") == 1
    assert text.rstrip().split("Example: ")[1].startswith(f"agentcost {command}")  # at the end
    assert "Example: agentcost estimate scenarios/bugfix.yaml --budget 0.05" in help_of(capsys, "estimate")


def test_bad_choice_lists_them_and_points_to_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "estimate", "scenarios/bugfix.yaml", "--format", "yaml")
    assert (code, out) == (2, "")
    assert err == (
        "agentcost: error: Invalid value for '--format' / '-f': 'yaml' is not one of 'table', 'json',"
        " 'markdown', 'csv', 'svg'. (see 'agentcost estimate --help')\n"
    )
    code, _, err = cli(capsys, "models", "--format", "csv")
    assert code == 2 and "Value error" not in err and err.endswith("(see 'agentcost models --help')\n")
    code, _, err = cli(capsys, "estimat", "x.yaml")
    assert code == 2 and err.endswith("(see 'agentcost --help')\n")


def test_diff_and_prices_help_say_what_they_do(capsys: pytest.CaptureFixture[str]) -> None:
    diff = help_of(capsys, "diff")
    assert "-q, --quiet Print only the change of the total in dollars, for scripts." in diff
    assert "Print only the total" not in diff
    prices = help_of(capsys, "prices")
    assert "scenario" not in prices.lower()
    assert "--service-tier TIER Price at this service tier (default: standard;" in prices


def test_estimate_m_is_model(capsys: pytest.CaptureFixture[str]) -> None:
    """``-m`` names the model in estimate as it does in compare: the same total as ``--model``."""
    args = ["estimate", "scenarios/bugfix.yaml", "--as-of", "2026-11-30", "--quiet"]
    assert run([*args, "-m", "gpt-5"]) == 0
    short = capsys.readouterr().out
    assert run([*args, "--model", "gpt-5"]) == 0
    assert short == capsys.readouterr().out
    assert run(args) == 0
    assert capsys.readouterr().out != short  # the scenario's own model (Claude) costs something else
