"""Issue 30: the verdict printed is the verdict the exit code carries.

``--simulate --at pXX`` judges the budget at pXX: the budget line says so with the pXX figure and
the gap ("over budget at p99 by $X"), the sensitivity list names pXX, ``-q`` prints the pXX figure.
One wording for over and within everywhere: "over budget by $X", never a negative headroom. The
figures are those of the shipped scenarios at ``--as-of 2026-11-30`` (seed 0), each also read back
from the JSON report of the same run, so that the text and the exit code are checked against the
numbers the report derived.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path

import pytest

from agentcost.cli import run

ROOT = Path(__file__).resolve().parent.parent
UNCERTAIN = str(ROOT / "scenarios" / "uncertain-steps.yaml")
BUGFIX = str(ROOT / "scenarios" / "bugfix.yaml")
AS_OF = ("--as-of", "2026-11-30")
AT_P99 = (UNCERTAIN, *AS_OF, "--simulate", "5000", "--at", "p99", "--budget", "0.50")


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = run(["estimate", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def columns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "120")


def test_at_p99_over_budget_says_so_first_and_exits_1(
    capsys: pytest.CaptureFixture[str], columns: None
) -> None:
    """The issue's command: p99 $0.5943 of 5,000 runs over a $0.50 budget (the medians' $0.2015 is
    within it). Exit 1, and the first budget line on stdout is the p99 verdict."""
    code, out, err = cli(capsys, *AT_P99)
    assert code == 1
    verdicts = [line for line in out.splitlines() if "budget" in line.lower()]
    assert verdicts[0] == (
        "Budget $0.5000 (--budget): over budget at p99 by $0.0943 (p99 of 5,000 simulated runs: $0.5943)."
    )
    assert "within budget" not in out and "headroom" not in out
    assert "Which input moves p99 cost most (each held at its median in turn)" in out
    assert "moves p90" not in out
    sensitivity = [line for line in out.splitlines() if re.match(r"\d\. ", line)]
    assert len(sensitivity) == 8 and all(": p99 $" in line for line in sensitivity)
    assert sensitivity[0].startswith(
        "1. rounds[0].result (line 26), lognormal median 900, p90 4,000: p99 $0.4429"
    )
    assert err.splitlines()[-1] == (
        f"agentcost: gate failed: {UNCERTAIN}: over budget at p99: simulated $0.5943 > $0.5000"
        " (--budget; 5,000 runs, seed 0; 3.0% of runs over)"
    )


def test_at_p99_figures_are_the_simulations(capsys: pytest.CaptureFixture[str]) -> None:
    """JSON: the budget is judged at p99 (budget.judged), over and headroom of that figure, the
    sensitivity list read at p99; ``-q`` prints that same p99 figure, exactly."""
    code, out, _ = cli(capsys, *AT_P99, "-f", "json")
    data = json.loads(out)
    sim, budget = data["simulation"], data["budget"]
    p99 = Decimal(sim["cost_usd"]["p99"])
    assert code == 1 and p99 == Decimal("0.5942982")
    assert budget["judged"] == {"stat": "p99", "stat_usd": str(p99), "runs": 5000}
    assert budget["over"] is True and Decimal(budget["headroom_usd"]) == Decimal("0.50") - p99
    assert data["totals"]["cost_usd"] == "0.20151555"  # the medians: within the budget, not judged
    assert sim["sensitivity_at"] == "p99"
    first = sim["sensitivity"][0]
    assert first["where"] == "rounds[0].result"
    assert Decimal(first["drop_usd"]) == Decimal("0.15137265") > 0
    assert [g["tripped"] for g in data["gates"] if g["name"] == "budget"] == [True]
    code, out, err = cli(capsys, *AT_P99, "-q")
    assert (code, out) == (1, "0.5942982\n")
    assert "over budget at p99" in err


def test_at_p90_within_budget_states_the_p90_figure(
    capsys: pytest.CaptureFixture[str], columns: None
) -> None:
    code, out, err = cli(capsys, UNCERTAIN, *AS_OF, "--simulate", "2000", "--at", "p90", "--budget", "0.50")
    assert code == 0 and "gate failed" not in err
    line = next(line for line in out.splitlines() if line.startswith("Budget "))
    assert line == (
        "Budget $0.5000 (--budget): within budget at p90, headroom $0.0888"
        " (p90 of 2,000 simulated runs: $0.4112)."
    )
    assert "Which input moves p90 cost most" in out


def test_quiet_under_simulate_is_the_gates_figure_not_the_mean(capsys: pytest.CaptureFixture[str]) -> None:
    """Without --at the budget gate reads the estimate at the medians: -q prints it, with or
    without --simulate (the mean, $0.2967 over 2,000 runs, is in the report, not in -q)."""
    plain = cli(capsys, UNCERTAIN, *AS_OF, "--budget", "0.30", "-q")
    simulated = cli(capsys, UNCERTAIN, *AS_OF, "--simulate", "2000", "--budget", "0.30", "-q")
    assert plain == simulated == (0, "0.20151555\n", "")


def test_over_budget_reads_over_by_never_a_negative_headroom(
    capsys: pytest.CaptureFixture[str], columns: None
) -> None:
    """bugfix.yaml costs $0.0286497 a run: $0.0186497 over a $0.01 budget, in the table and in
    Markdown alike."""
    code, out, _ = cli(capsys, BUGFIX, *AS_OF, "--budget", "0.01")
    assert code == 1 and "Budget $0.0100 (--budget): over budget by $0.0186." in out
    code, out, _ = cli(capsys, BUGFIX, *AS_OF, "--budget", "0.01", "-f", "markdown")
    assert code == 1 and "Budget $0.0100 (--budget): **over budget** by $0.0186." in out
    assert "headroom -" not in out
    code, out, _ = cli(capsys, BUGFIX, *AS_OF, "--budget", "0.05")
    assert code == 0 and "Budget $0.0500 (--budget): within budget, headroom $0.0214." in out


def test_project_over_budget_wording(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], columns: None
) -> None:
    """A project over its budget_usd: gpt-5 at 1,007 input tokens x $1.25/MTok + 100 output x
    $10/MTok = $0.00225875 a run, over $0.001 by $0.00125875 (tests/test_cli.py's SMALL_OVER)."""
    (tmp_path / "small.yaml").write_text("version: 1\nmodel: gpt-5\ntask: {tokens: 1000}\nfinal: 100\n")
    project = tmp_path / "agentcost.yml"
    project.write_text("version: 1\nbudget_usd: 0.001\nscenarios:\n  - path: small.yaml\n")
    code, out, err = cli(capsys, str(project), *AS_OF)
    assert code == 1 and "over budget" in err
    text = " ".join(out.split())  # the sentence as read, wherever the terminal wrapped it
    assert f"({project}): over budget by $0.0013." in text and "headroom -" not in text
    code, out, _ = cli(capsys, str(project), *AS_OF, "-f", "markdown")
    assert "**over budget** by $0.0013." in out and "headroom -" not in out
    assert "-0.00125875" in cli(capsys, str(project), *AS_OF, "-f", "json")[1]  # exact in JSON


def test_a_tables_warnings_go_to_stderr(capsys: pytest.CaptureFixture[str], columns: None) -> None:
    """bugfix.yaml cut at 2 rounds: the truncation warning goes to stderr, not under the table."""
    args = (BUGFIX, *AS_OF, "--model", "o3", "--set", "limits.max_rounds=2")
    code, out, err = cli(capsys, *args)
    assert code == 0 and "Warning" not in out and "truncated" not in out
    assert err == "agentcost: warning: run truncated by limits.max_rounds: 2 of 8 rounds, no final answer\n"
    _, out, _ = cli(capsys, *args, "-f", "json")
    assert json.loads(out)["warnings"] == [
        "run truncated by limits.max_rounds: 2 of 8 rounds, no final answer"
    ]
