"""``agentcost init``: a commented starter scenario that validates and estimates as written, the few
questions it asks on a terminal, its refusal to overwrite, ``-`` for stdout and ``--from LOG``."""

from __future__ import annotations

import io
import re
from decimal import Decimal
from pathlib import Path

import pytest
import yaml

import agentcost
from agentcost.cli import init as init_cli
from agentcost.cli import run
from agentcost.errors import InputError
from agentcost.scenario.format import json_schema
from agentcost.scenario.starter import DEFAULT_PATH, Answers, starter_text
from tests.conftest import validate_json

TRAJ = Path(__file__).parent / "data" / "swe-agent" / "swe-agent__test-repo-i1.traj"
AS_OF = "2026-11-30"


@pytest.fixture(autouse=True)
def _no_terminal(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Each test in its own directory, with standard input not a terminal unless it says otherwise."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(init_cli, "_is_terminal", lambda: False)


def test_init_then_estimate_works(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's acceptance: `agentcost init starter.yaml` then `agentcost estimate starter.yaml`."""
    assert run(["init", "starter.yaml"]) == 0
    err = capsys.readouterr().err
    assert err == (
        "wrote starter.yaml: claude-sonnet-4-5, 3 tools, 6 tool calls, budget $0.25; edit it, then: "
        "agentcost estimate starter.yaml\n"
    )
    text = (tmp_path / "starter.yaml").read_text(encoding="utf-8")
    assert text == starter_text(Answers(), path="starter.yaml")
    assert run(["estimate", "starter.yaml", "--as-of", AS_OF]) == 0  # within its own budget
    result = agentcost.estimate("starter.yaml", as_of=AS_OF)
    assert result.total_cost_usd == Decimal("0.04554015")  # 7 requests, within the $0.25 budget
    assert len(result.requests) == 7 and result.passed


@pytest.mark.parametrize(
    "answers",
    [
        Answers(),
        Answers(model="gpt-5", tools=1, rounds=5, budget_usd=Decimal(0)),
        Answers(model="gemini-2.5-pro", tools=0, rounds=0, budget_usd=Decimal("1")),
        Answers(tools=9, rounds=12, budget_usd=Decimal("2.5")),
    ],
)
def test_every_starter_validates_against_the_published_schema_and_explains_each_key(answers: Answers) -> None:
    text = starter_text(answers)
    value = yaml.safe_load(text)
    validate_json(value, json_schema())  # the schema `agentcost schema` prints
    assert value["model"] == answers.model
    assert len(value["tools"]) == answers.tools
    assert sum(r.get("repeat", 1) for r in value["rounds"]) == answers.rounds
    assert value.get("limits", {}).get("budget_usd") == (float(answers.budget_usd) or None)
    keys = [line for line in text.splitlines() if re.match(r"[a-z_]+:", line)]
    assert [k.split(":")[0] for k in keys] == [
        "version", "name", "model", "system", "tools", "task",
        *(["defaults", "rounds"] if answers.rounds else ["rounds"]),
        "final", "caching", *(["limits"] if answers.budget_usd else []),
    ]  # fmt: skip
    assert all(" # " in line for line in keys)  # every top-level key has its comment beside it
    assert all(len(line) <= 100 for line in text.splitlines())


def test_a_one_tool_starter_repeats_its_round(tmp_path: Path) -> None:
    text = starter_text(Answers(tools=1, rounds=5))
    assert (
        "  - tool: Read\n    repeat: 4                     # the same round this many times in a row\n"
        in text
    )


def test_init_refuses_to_overwrite_without_force(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mine = tmp_path / "starter.yaml"
    mine.write_text("version: 1  # my own\n", encoding="utf-8")
    assert run(["init", "starter.yaml", "--tools", "1"]) == 2
    assert capsys.readouterr().err == (
        "agentcost: error: starter.yaml: the file exists (pass --force to overwrite it)\n"
    )
    assert mine.read_text(encoding="utf-8") == "version: 1  # my own\n"
    assert run(["init", "starter.yaml", "--tools", "1", "--rounds", "2", "--force"]) == 0
    assert yaml.safe_load(mine.read_text(encoding="utf-8"))["rounds"] == [
        {"tool": "Read", "input": {"path": "src/orders.py"}, "result": 1500},
        {"tool": "Read"},
    ]


def test_init_with_no_path_writes_the_default_file_once(tmp_path: Path) -> None:
    assert run(["init"]) == 0
    assert (tmp_path / DEFAULT_PATH).read_text(encoding="utf-8") == starter_text(Answers(), path=DEFAULT_PATH)
    assert run(["init"]) == 2


def test_dash_prints_the_starter_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["init", "-", "-m", "gpt-5", "--tools", "2", "--rounds", "3", "--budget", "0"]) == 0
    out, err = capsys.readouterr()
    assert out == starter_text(Answers("gpt-5", 2, 3, Decimal(0)), path="FILE")
    assert err == ""
    assert list(tmp_path.iterdir()) == []
    assert "# limits:" in out and "\nlimits:" not in out  # no budget: the key is there to uncomment


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--tools", "0", "--rounds", "3"], "--rounds: with 0 tools there are no tool calls: give 0 rounds, or 1 tool or more"),
        (["--rounds", "201"], "--rounds: must be a whole number from 0 to 200, got 201"),
        (["--budget", "cheap"], "--budget: not a dollar amount: 'cheap' (e.g. --budget 0.05)"),
        (["--from", str(TRAJ), "--tools", "2"], "--tools: is for a starter scenario: a calibrated one takes its sizes from the log (leave it out, or leave out --from)"),
    ],
)  # fmt: skip
def test_bad_answers_are_one_line_and_exit_2(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["init", "s.yaml", *args]) == 2
    assert capsys.readouterr().err == f"agentcost: error: {message}\n"
    assert list(tmp_path.iterdir()) == []


def test_no_tools_means_no_rounds(tmp_path: Path) -> None:
    assert run(["init", "s.yaml", "--tools", "0"]) == 0
    assert yaml.safe_load((tmp_path / "s.yaml").read_text(encoding="utf-8"))["rounds"] == []


def test_ask_takes_defaults_and_asks_again_until_an_answer_is_usable(
    capsys: pytest.CaptureFixture[str],
) -> None:
    typed = iter(["", "ten", "2", "", "$0.10"])
    asked: list[tuple[str, str]] = []

    def prompt(question: str, default: str) -> str:
        asked.append((question.split()[0], default))
        return next(typed)

    answers = init_cli.ask(Answers(), prompt)
    assert answers == Answers("claude-sonnet-4-5", 2, 6, Decimal("0.10"))
    assert asked == [
        ("Model", "claude-sonnet-4-5"),
        ("How", "3"),
        ("How", "3"),
        ("How", "6"),
        ("Budget", "0.25"),
    ]
    assert capsys.readouterr().err == "agentcost: error: tools: not a whole number: 'ten'; try again\n"


def test_ask_rechecks_the_model_and_a_zero_tool_answer_sets_zero_rounds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    typed = iter(["gpt-55", "gpt-5", "0", "", "0"])

    def check(model: str) -> None:
        if model != "gpt-5":
            raise InputError(f"unknown model {model!r}", key="model")

    answers = init_cli.ask(Answers(), lambda q, d: next(typed), check_model=check)
    assert answers == Answers("gpt-5", 0, 0, Decimal(0))
    assert capsys.readouterr().err == "agentcost: error: model: unknown model 'gpt-55'; try again\n"


def test_on_a_terminal_init_asks_on_stderr_and_writes_the_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(init_cli, "_is_terminal", lambda: True)
    monkeypatch.setattr("sys.stdin", io.StringIO("gpt-5\n1\n2\n0.5\n"))
    assert run(["init", "s.yaml"]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("Model (the id the API takes; `agentcost models` lists them) [claude-sonnet-4-5]: ")
    assert err.endswith(
        "wrote s.yaml: gpt-5, 1 tools, 2 tool calls, budget $0.5; edit it, then: agentcost estimate s.yaml\n"
    )
    assert (tmp_path / "s.yaml").read_text(encoding="utf-8") == starter_text(
        Answers("gpt-5", 1, 2, Decimal("0.5")), path="s.yaml"
    )


def test_yes_and_options_ask_nothing_on_a_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(init_cli, "_is_terminal", lambda: True)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # a question would read nothing and abort
    assert run(["init", "a.yaml", "-y"]) == 0
    assert run(["init", "b.yaml", "-m", "gpt-5", "--tools", "1", "--rounds", "1", "--budget", "1"]) == 0
    assert (tmp_path / "a.yaml").read_text(encoding="utf-8") == starter_text(Answers(), path="a.yaml")


def test_init_from_a_recorded_run_is_calibrate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = TRAJ.read_bytes()
    assert run(["init", "--from", str(TRAJ), "cal.yaml", "--as-of", AS_OF]) == 0
    assert capsys.readouterr().err == (
        "wrote cal.yaml: 5 requests; replayed $0.53839, re-estimated $0.53839 (+0.00%)\n"
    )
    text = (tmp_path / "cal.yaml").read_text(encoding="utf-8")
    assert text.startswith(f"# Calibrated by agentcost calibrate from {TRAJ} (swe-agent, 5 requests)")
    assert 'model: "gpt-4-1106-preview"' in text and "system: {tokens: 9377}\ntask: {tokens: 823}\n" in text
    assert agentcost.estimate("cal.yaml", as_of=AS_OF).total_cost_usd == Decimal("0.53839")
    assert TRAJ.read_bytes() == before
    assert run(["init", "--from", str(TRAJ), "cal.yaml"]) == 2  # refuses to overwrite it too
    assert "cal.yaml: the file exists (pass --force to overwrite it)" in capsys.readouterr().err
