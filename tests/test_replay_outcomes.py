"""Success labels of replayed runs (issue 31): SWE-agent's ``info.exit_status``, ``replay DIR
--outcomes FILE``, and the cost per completed task of many runs (agentcost.commands.outcomes).

The runs are the real samples of tests/data/swe-agent (PROVENANCE.md there), both recorded with
``info.exit_status: submitted``. Their costs, by hand (genai-prices 0.2.3 at 2026-11-30):

* ``swe-agent__test-repo-i1.traj``: priced from its reported totals, 52,861 input and 326 output
  tokens of gpt-4-1106-preview at $10 / $30 per MTok: 0.52861 + 0.00978 = $0.53839.
* ``swe-agent-1x__marshmallow-1867.traj``: its zeros report nothing, so our counts: 37,382 input
  and 884 output tokens of gpt-4o at $2.50 / $10 per MTok: 0.093455 + 0.00884 = $0.102295.
"""

from __future__ import annotations

import json
import shutil
from decimal import Decimal
from pathlib import Path

import pytest

from agentcost.cli import run
from agentcost.commands.outcomes import read_outcomes
from agentcost.errors import InputError
from agentcost.render.schema import report_schema
from agentcost.replay.swe_agent import exit_status
from tests.conftest import validate_json

SWE = Path(__file__).parent / "data" / "swe-agent"
I1, V1 = "swe-agent__test-repo-i1.traj", "swe-agent-1x__marshmallow-1867.traj"
I1_USD, V1_USD = Decimal("0.53839"), Decimal("0.102295")


def runs(root: Path) -> Path:
    """The two samples, and the 0.x one again in a subfolder (with its run configuration beside)."""
    folder = root / "runs"
    (folder / "sub").mkdir(parents=True)
    for name in (I1, V1, "test-repo-i1.args.yaml"):
        shutil.copy(SWE / name, folder / name)
    shutil.copy(SWE / I1, folder / "sub" / "again.traj")
    shutil.copy(SWE / "test-repo-i1.args.yaml", folder / "sub" / "test-repo-i1.args.yaml")
    return folder


def replay_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict:  # type: ignore[type-arg]
    code = run(["replay", *args, "--as-of", "2026-11-30", "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    doc: dict = json.loads(out)  # type: ignore[type-arg]
    return doc


@pytest.mark.parametrize(
    ("info", "status", "succeeded"),
    [
        ({"exit_status": "submitted"}, "submitted", True),  # the agent ran its submit command
        (
            {"exit_status": "submitted (exit_cost)"},
            "submitted (exit_cost)",
            False,
        ),  # autosubmitted at a limit
        ({"exit_status": "exit_context"}, "exit_context", False),  # stopped, nothing submitted
        ({"exit_status": "exit_command"}, "exit_command", False),  # the agent's own exit
        ({}, None, None),
        ({"exit_status": 3}, None, None),
        ({"exit_status": "x" * 201}, None, None),  # longer than any status: not one
    ],
)
def test_the_exit_status_says_whether_the_run_completed(
    info: dict[str, object], status: str | None, succeeded: bool | None
) -> None:
    assert exit_status({"info": info}) == {"exit_status": status, "succeeded": succeeded}


def test_the_logs_label_the_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = replay_json(capsys, str(runs(tmp_path)))
    costs = {Path(r["path"]).name: Decimal(r["cost_usd"]) for r in doc["runs"]}
    assert costs == {I1: I1_USD, V1: V1_USD, "again.traj": I1_USD}
    assert {(r["succeeded"], r["outcome_from"]) for r in doc["runs"]} == {(True, "log")}
    o = doc["summary"]["outcomes"]
    assert (o["succeeded"], o["failed"], o["unknown"], o["from_logs"], o["from_outcomes"]) == (3, 0, 0, 3, 0)
    # (0.53839 x 2 + 0.102295) / 3 = 1.179075 / 3 = 0.393025
    assert Decimal(o["cost_per_completed_task_usd"]) == Decimal("0.393025")


def test_an_outcomes_file_labels_runs_over_their_logs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = runs(tmp_path)
    (folder / "outcomes.csv").write_text(
        f"run,success,note\n{I1},false,tests still fail\nsub/again.traj,TRUE,\n\ngone.traj,true,\n",
        encoding="utf-8",
    )
    doc = replay_json(capsys, str(folder), "--outcomes", str(folder / "outcomes.csv"))
    labels = {Path(r["path"]).name: (r["succeeded"], r["outcome_from"]) for r in doc["runs"]}
    assert labels == {I1: (False, "outcomes"), "again.traj": (True, "outcomes"), V1: (True, "log")}
    o = doc["summary"]["outcomes"]
    assert (o["succeeded"], o["failed"], o["unknown"], o["from_outcomes"], o["from_logs"]) == (2, 1, 0, 2, 1)
    # all three runs' cost, the failed one's too: 1.179075 / 2 succeeded = 0.5895375
    assert Decimal(o["cost_per_completed_task_usd"]) == Decimal("0.5895375")
    assert (o["unmatched"], o["first_unmatched"]) == (1, ["gone.traj"])
    validate_json(doc, report_schema())
    code = run(["replay", str(folder), "--outcomes", str(folder / "outcomes.csv"), "--as-of", "2026-11-30"])
    out = capsys.readouterr().out
    assert code == 0
    assert "2 succeeded, 1 failed, 0 unknown (labelled 1 by their logs, 2 by" in out
    assert "$0.5895 = total cost $1.1791 / 2 succeeded" in out


def test_no_run_succeeded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = runs(tmp_path)
    rows = "".join(f"false,{name}\n" for name in (I1, V1, "sub/again.traj"))
    (folder / "o.csv").write_text("success,run\n" + rows, encoding="utf-8")  # columns in any order
    o = replay_json(capsys, str(folder), "--outcomes", str(folder / "o.csv"))["summary"]["outcomes"]
    assert (o["succeeded"], o["failed"], o["cost_per_completed_task_usd"]) == (0, 3, None)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("path,ok\na.traj,true\n", "o.csv:1: expected a header row naming the columns run and success"),
        ("run,success\na.traj,maybe\n", "o.csv:2: success: expected true or false"),
        ("run,success\na.traj\n", "o.csv:2: expected a run and its success on this row"),
        ("run,success\n,true\n", "o.csv:2: run: empty: expected a run's log file"),
        (
            "run,success\na.traj,true\n./a.traj,false\n",
            "o.csv:3: run: the run is labelled twice (first on line 2)",
        ),
        ('run,success\n"a.traj,true\n', "o.csv:2: not valid CSV"),
        ("", "o.csv: no header row: the file is empty"),
        ("run,success\n" + "a,true\n" * 3, "o.csv:3: run: the run is labelled twice (first on line 2)"),
    ],
)
def test_outcomes_file_errors_are_located_and_quote_nothing(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "o.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as e:
        read_outcomes(path)
    shown = str(e.value).replace(str(tmp_path) + "/", "")
    assert shown.startswith(message)
    assert "maybe" not in shown


def test_outcomes_file_bounds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "o.csv"
    path.write_text("run,success\n" + "a.traj,true\n" * 10, encoding="utf-8")
    with pytest.raises(InputError) as e:
        read_outcomes(path, limit=50)  # 12 + 10 x 12 = 132 bytes
    assert str(e.value).startswith(
        f"{path}: --outcomes: file too large: 132 bytes, over the limit of 50 bytes"
    )
    (tmp_path / "bin.csv").write_bytes(b"run,success\n\xff\xfe,true\n")
    with pytest.raises(InputError) as e:
        read_outcomes(tmp_path / "bin.csv")
    assert str(e.value).startswith(
        f"{tmp_path / 'bin.csv'}:2: --outcomes: not UTF-8 text (byte 0xff on line 2)"
    )
    code = run(["replay", str(SWE / I1), "--outcomes", str(path)])
    assert code == 2 and "--outcomes: labels many runs" in capsys.readouterr().err
