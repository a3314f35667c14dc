"""Cost per completed task (the scenario's ``outcome``), with the expected runs worked out by hand.

A run succeeds with probability p (q = 1 - p) and a failed run costs as much as a successful one.
abandon: 1 run per started task, completed with p. retry until success: runs are geometric, 1/p of
them, always completed. retry up to K: E[runs] = 1 + q + ... + q^(K-1) = (1 - q^K)/p, completed with
1 - q^K. Cost per completed task = cost per run x E[runs] / P(completed) = cost per run / p.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from agentcost.api import estimate
from agentcost.cli import run
from agentcost.render.jsonfmt import render_json, report_dict
from agentcost.render.markdown import render_markdown
from agentcost.render.schema import report_schema
from agentcost.report.fmt import exact
from agentcost.report.notes import MAX_SHORT_NOTES, estimate_notes
from agentcost.report.outcome import outcome_line
from agentcost.scenario.model import OnFailure, Outcome
from tests.conftest import validate_json

ROOT = Path(__file__).resolve().parent.parent
RESEARCH = ROOT / "scenarios" / "research.yaml"
AS_OF = "2026-11-30"
SMALL = "version: 1\nmodel: gpt-5\ntask: {tokens: 1000}\nfinal: {tokens: 200}\n"


def test_acceptance_cost_per_completed_task_is_cost_per_run_over_p() -> None:
    report = estimate(RESEARCH, as_of=AS_OF, overrides=["outcome.success=0.7"]).report
    per_run = report.totals.cost_usd
    o = report.outcome
    assert o is not None
    assert o.success == Decimal("0.7") and type(o.success) is Decimal  # read as a decimal, never a float
    assert (o.on_failure, o.max_attempts) == ("retry", None)  # the defaults: retried until it succeeds
    assert o.cost_per_run_usd == per_run
    assert o.cost_per_completed_usd == per_run / Decimal("0.7")
    assert o.runs_per_task == 1 / Decimal("0.7") and o.completion == 1
    assert o.cost_per_task_usd == per_run * (1 / Decimal("0.7"))  # started = completed, up to rounding
    body = report_dict(report)["outcome"]
    assert body["cost_per_completed_task_usd"] == exact(per_run / Decimal("0.7"))
    assert body["cost_per_run_usd"] == report_dict(report)["totals"]["cost_usd"]


def test_k_attempts_by_hand_p_half_k_two() -> None:
    # p = 0.5, K = 2: E[runs] = 1 + 0.5 = 1.5; P(completed) = 1 - 0.5^2 = 0.75
    # per started task 1.5 x $0.03 = $0.045; per completed $0.045 / 0.75 = $0.06 = $0.03 / 0.5
    o = outcome_line(Outcome(Decimal("0.5"), "retry", 2), Decimal("0.03"))
    assert o.runs_per_task == Decimal("1.5")
    assert o.completion == Decimal("0.75")
    assert o.cost_per_task_usd == Decimal("0.045")
    assert o.cost_per_completed_usd == Decimal("0.06")
    assert o.cost_per_task_usd / o.completion == o.cost_per_completed_usd
    assert o.policy_text == "retry up to 2 attempts"


def test_k_attempts_on_a_real_run(tmp_path: Path) -> None:
    # p = 0.7, K = 3: P(completed) = 1 - 0.3^3 = 0.973; E[runs] = 0.973 / 0.7 = 1.39
    (tmp_path / "s.yaml").write_text(SMALL + "outcome: {success: 0.7, max_attempts: 3}\n")
    report = estimate(tmp_path / "s.yaml", as_of=AS_OF).report
    o, c = report.outcome, report.totals.cost_usd
    assert o is not None
    assert (o.completion, o.runs_per_task) == (Decimal("0.973"), Decimal("1.39"))
    assert o.cost_per_task_usd == c * Decimal("1.39")
    assert o.cost_per_completed_usd == c / Decimal("0.7")
    line = next(n for n in estimate_notes(report) if n.kind == "outcome")
    assert line.level == "essential"
    assert (
        line.text
        == f"Per completed task: ${o.cost_per_completed_usd:.4f} at 70% success (retry up to 3 attempts)."
    )


def test_abandon_and_certain_success() -> None:
    # abandon, p = 0.8: one run per started task, completed 80% of the time: $0.04 / 0.8 = $0.05
    o = outcome_line(Outcome(Decimal("0.8"), "abandon"), Decimal("0.04"))
    assert (o.runs_per_task, o.completion, o.cost_per_task_usd) == (
        Decimal(1),
        Decimal("0.8"),
        Decimal("0.04"),
    )
    assert o.cost_per_completed_usd == Decimal("0.05")
    assert o.policy_text == "failed runs abandoned"
    policies: tuple[tuple[OnFailure, int | None], ...] = (("retry", None), ("retry", 4), ("abandon", None))
    for policy, k in policies:
        sure = outcome_line(Outcome(Decimal(1), policy, k), Decimal("0.04"))
        assert sure.cost_per_completed_usd == sure.cost_per_task_usd == Decimal("0.04")
        assert sure.runs_per_task == sure.completion == 1


def test_unlimited_retries_and_many_attempts() -> None:
    # unlimited: geometric runs, 1/0.25 = 4 per task, every task completed: $0.01 x 4 = $0.04
    o = outcome_line(Outcome(Decimal("0.25"), "retry"), Decimal("0.01"))
    assert (o.runs_per_task, o.completion, o.cost_per_task_usd) == (Decimal(4), Decimal(1), Decimal("0.04"))
    assert o.policy_text == "retried until it succeeds"
    huge = outcome_line(Outcome(Decimal("0.5"), "retry", 1_000_000_000), Decimal("0.01"))
    assert huge.completion == 1 and huge.runs_per_task == 2  # (1 - 0.5^K) rounds to 1 at 28 digits


def test_no_outcome_changes_nothing() -> None:
    report = estimate(RESEARCH, as_of=AS_OF).report
    assert report.outcome is None
    assert "outcome" not in report_dict(report)
    assert all(n.kind != "outcome" for n in estimate_notes(report))


def test_outputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "s.yaml").write_text(SMALL + "outcome:\n  success: 0.5\n  on_failure: abandon\n")
    report = estimate(tmp_path / "s.yaml", as_of=AS_OF).report
    o = report.outcome
    assert o is not None and o.cost_per_completed_usd == report.totals.cost_usd * 2
    data = json.loads(render_json(report))
    validate_json(data, report_schema())
    assert data["outcome"] == {
        "success": "0.5",
        "on_failure": "abandon",
        "max_attempts": None,
        "cost_per_run_usd": data["totals"]["cost_usd"],
        "runs_per_task": "1",
        "completion_probability": "0.5",
        "cost_per_task_usd": data["totals"]["cost_usd"],
        "cost_per_completed_task_usd": exact(report.totals.cost_usd * 2),
    }
    text = f"Per completed task: ${o.cost_per_completed_usd:.4f} at 50% success (failed runs abandoned)."
    assert render_markdown(report).count(text) == 1
    assert run(["estimate", str(tmp_path / "s.yaml"), "--as-of", AS_OF]) == 0
    out = capsys.readouterr().out
    assert text in out
    essential = [n for n in estimate_notes(report) if n.level == "essential"]
    assert len(essential) <= 3 + MAX_SHORT_NOTES  # total, budget, prices + the short notes


def test_a_subagent_outcome_is_not_its_parents(tmp_path: Path) -> None:
    (tmp_path / "sub.yaml").write_text(SMALL + "outcome: {success: 0.5}\n")
    (tmp_path / "s.yaml").write_text(
        "version: 1\nmodel: gpt-5\ntask: 100\ntools: [{name: ask, input_schema: {type: object}}]\n"
        "rounds:\n  - {tool: ask, call_tokens: 20, subagent: {file: sub.yaml}}\nfinal: 50\n"
    )
    report = estimate(tmp_path / "s.yaml", as_of=AS_OF).report
    assert report.outcome is None
    sub = next(s for r in report.requests for s in r.subagents)
    assert sub.report.outcome is None
