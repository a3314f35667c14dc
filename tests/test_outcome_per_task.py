"""Failed runs cut short (``outcome.failure_rounds``) and ``--per task``, checked by hand.

Write c for the cost of a run, f for a failed one, p the success and q = 1 - p. A started task has
P(completed) successful runs and E[runs] - P(completed) failed ones, so it costs
c P(completed) + f (E[runs] - P(completed)), and a completed task c + f q / p whatever the policy
(docs/scenario.md#outcome). With failure_rounds N, f is the ledger's running total after round N.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from agentcost.api import estimate
from agentcost.cli import run
from agentcost.commands.batch import batch_gates, batch_report_for_paths
from agentcost.commands.compare import compare_models
from agentcost.commands.diff import diff_gates
from agentcost.commands.diff_read import diff_paths
from agentcost.errors import InputError
from agentcost.loop.options import parse_as_of
from agentcost.render.jsonfmt import render_json
from agentcost.render.output import Format, render_text
from agentcost.render.schema import report_schema
from agentcost.report.gates import IncreaseLimits
from agentcost.report.outcome import PER_TASK_NOTE, outcome_line
from agentcost.scenario.load import read_scenario as load_scenario
from agentcost.scenario.model import Outcome
from tests.conftest import validate_json

AS_OF = "2026-11-30"
WHEN = parse_as_of(AS_OF)
# gpt-5, no caching: 5 tool rounds then the final answer. Each request re-sends the whole context,
# so later rounds cost more: requests 1-6 cost $0.001785, $0.0024925, $0.0032, $0.0039075,
# $0.004615 and $0.0068225 (a run: $0.0228225).
FIVE = """version: 1
model: gpt-5
caching: none
task: {tokens: 1000}
tools: [{name: f, description: d, input_schema: {type: object}}]
rounds:
  - tool: f
    result: 500
    call_tokens: 40
    repeat: 5
final: {tokens: 200}
"""
RUN = Decimal("0.0228225")
TWO_ROUNDS = Decimal("0.001785") + Decimal("0.0024925")  # f with failure_rounds: 2


def _write(tmp_path: Path, outcome: str, name: str = "s.yaml") -> Path:
    path = tmp_path / name
    path.write_text(FIVE + outcome)
    return path


def test_the_ledgers_round_costs() -> None:
    # the figures the other tests take as c and f come from the ledger itself
    costs = [Decimal(x) for x in ("0.001785", "0.0024925", "0.0032", "0.0039075", "0.004615", "0.0068225")]
    assert sum(costs) == RUN


def test_abandoned_after_2_of_5_rounds_by_hand(tmp_path: Path) -> None:
    path = _write(tmp_path, "outcome: {success: 0.7, on_failure: abandon, failure_rounds: 2}\n")
    report = estimate(path, as_of=AS_OF).report
    assert [r.cost_usd for r in report.requests[:2]] == [Decimal("0.001785"), Decimal("0.0024925")]
    assert report.totals.cost_usd == RUN
    o = report.outcome
    assert o is not None
    assert o.failure_cost_usd == TWO_ROUNDS == Decimal("0.0042775")  # the running total after round 2
    # per started task: 0.7 x 0.0228225 + 0.3 x 0.0042775 = 0.01597575 + 0.00128325 = 0.017259
    assert o.cost_per_task_usd == Decimal("0.017259")
    # per completed task: 0.017259 / 0.7 = 0.0228225 + 0.0042775 x 0.3 / 0.7 = 0.024655714...
    assert o.cost_per_completed_usd == RUN + TWO_ROUNDS * Decimal("0.3") / Decimal("0.7")
    assert abs(o.cost_per_completed_usd - Decimal("0.017259") / Decimal("0.7")) < Decimal("1e-25")
    assert str(o.cost_per_completed_usd)[:9] == "0.0246557"
    assert o.cost_per_completed_usd < RUN / Decimal("0.7")  # cheaper than whole failed runs ($0.032604)
    assert o.policy_text == "failed runs abandoned, failures cut after 2 rounds"
    data = json.loads(render_json(report))
    validate_json(data, report_schema())
    assert data["outcome"]["failure_rounds"] == 2
    assert data["outcome"]["failure_cost_usd"] == "0.0042775"
    assert data["outcome"]["cost_per_task_usd"] == "0.017259"


def test_retry_up_to_k_with_cut_failures_by_hand() -> None:
    # p = 0.5, K = 2, c = $0.03, f = $0.01: E[runs] = 1.5, P(completed) = 0.75, failed runs 0.75
    # per started task 0.03 x 0.75 + 0.01 x 0.75 = $0.03; per completed $0.03 / 0.75 = $0.04 = c + f
    o = outcome_line(Outcome(Decimal("0.5"), "retry", 2), Decimal("0.03"), Decimal("0.01"))
    assert (o.runs_per_task, o.completion, o.failures_per_task) == (
        Decimal("1.5"),
        Decimal("0.75"),
        Decimal("0.75"),
    )
    assert o.cost_per_task_usd == Decimal("0.03")
    assert o.cost_per_completed_usd == Decimal("0.04")


def test_retry_until_success_with_cut_failures(tmp_path: Path) -> None:
    # p = 0.8: q / p = 0.25 failed runs per task, each costing the first 2 rounds
    path = _write(tmp_path, "outcome: {success: 0.8, failure_rounds: 2}\n")
    o = estimate(path, as_of=AS_OF).report.outcome
    assert o is not None and o.completion == 1
    assert o.cost_per_completed_usd == RUN + TWO_ROUNDS * Decimal("0.25")  # 0.02389187500
    assert o.cost_per_completed_usd == Decimal("0.02389187500")
    assert o.cost_per_task_usd == o.cost_per_completed_usd


def test_a_run_no_longer_than_n_rounds_fails_at_its_end(tmp_path: Path) -> None:
    path = _write(tmp_path, "outcome: {success: 0.5, failure_rounds: 5}\n")
    o = estimate(path, as_of=AS_OF).report.outcome
    assert o is not None and o.failure_cost_usd == RUN
    assert o.cost_per_completed_usd == RUN / Decimal("0.5")  # the whole-run formula, c / p


def test_failure_rounds_must_be_positive(tmp_path: Path) -> None:
    path = _write(tmp_path, "outcome: {success: 0.5, failure_rounds: 0}\n")
    with pytest.raises(InputError) as caught:
        estimate(path, as_of=AS_OF)
    assert "outcome.failure_rounds" in str(caught.value)


# ---------------------------------------------------------------------------------------------
# --per task


def _compare(tmp_path: Path, per: str) -> object:
    path = _write(tmp_path, "outcome: {success: 0.9, success_by_model: {gpt-5-mini: 0.15}}\n")
    scenario = load_scenario(path)
    return compare_models(scenario, ["gpt-5", "gpt-5-mini"], as_of=WHEN, per=per)


def test_compare_per_task_reorders_when_the_cheaper_model_fails_more(
    tmp_path: Path, fixed_terminal: None
) -> None:
    per_run = _compare(tmp_path, "run")
    assert [r.model_id for r in per_run.rows] == ["gpt-5-mini", "gpt-5"]  # type: ignore[attr-defined]
    report = _compare(tmp_path, "task")
    rows = report.rows  # type: ignore[attr-defined]
    # gpt-5: 0.0228225 / 0.9 = 0.025358...; gpt-5-mini: 0.0045645 / 0.15 = 0.03043
    assert [r.model_id for r in rows] == ["gpt-5", "gpt-5-mini"]
    mini = rows[1]
    assert mini.cost_per_run_usd == Decimal("0.0045645") and mini.cost_usd == Decimal("0.03043")
    assert rows[0].cost_usd == RUN / Decimal("0.9")
    assert mini.ratio_to_cheapest == Decimal("1.20")  # 0.03043 / 0.025358 = 1.2000
    text = render_text(report, Format.table, width=80)
    assert max(len(line) for line in text.splitlines()) <= 80
    lines = text.splitlines()  # the header rows: between the table's top edge and its rule
    top = next(i for i, line in enumerate(lines) if line.startswith("┏"))
    rule = next(i for i, line in enumerate(lines) if line.startswith("┡"))
    header = "".join(lines[top + 1 : rule])  # "per task", wrapped in two lines at 80 columns
    assert "task" in header and "total" not in header
    assert "at $0.0254 per completed task" in text
    data = json.loads(render_text(report, Format.json))
    validate_json(data, report_schema())
    assert data["per"] == "task"
    assert [(m["cost_per_run_usd"], m["cost_per_completed_task_usd"]) for m in data["models"]][1] == (
        "0.0045645",
        "0.03043",
    )


def test_compare_per_task_without_outcome_says_so_once(tmp_path: Path) -> None:
    scenario = load_scenario(_write(tmp_path, ""))
    report = compare_models(scenario, ["gpt-5", "gpt-5-mini"], as_of=WHEN, per="task")
    assert report.warnings.count(PER_TASK_NOTE) == 1
    assert [r.cost_usd for r in report.rows] == [r.cost_per_run_usd for r in report.rows]


def test_batch_per_task_figures_and_budget(tmp_path: Path) -> None:
    _write(tmp_path, "outcome: {success: 0.5}\n", "a.yaml")
    _write(tmp_path, "", "b.yaml")
    (tmp_path / "p.yml").write_text(
        "version: 1\nbudget_usd: 0.06\nscenarios:\n  - path: a.yaml\n    runs_per_day: 10\n"
        "  - path: b.yaml\n    runs_per_day: 10\n"
    )
    runs = batch_report_for_paths([tmp_path / "p.yml"], as_of=WHEN)
    tasks = batch_report_for_paths([tmp_path / "p.yml"], as_of=WHEN, per="task")
    assert runs.totals.cost_usd == 2 * RUN  # $0.045645 <= $0.06
    assert tasks.totals.cost_usd == RUN / Decimal("0.5") + RUN == Decimal("0.0684675")  # > $0.06
    assert tasks.rows[0].cost_per_day_usd == Decimal("0.456450")  # $0.045645 per task x 10
    assert [g.tripped for g in batch_gates(runs) if g.name == "budget"] == [False]
    gate = next(g for g in batch_gates(tasks) if g.name == "budget")
    assert gate.tripped and "one completed task of each" in gate.message
    assert tasks.warnings.count(PER_TASK_NOTE) == 1
    data = json.loads(render_text(tasks, Format.json))
    validate_json(data, report_schema())
    assert data["per"] == "task"
    assert data["scenarios"][0]["cost_per_run_usd"] == "0.0228225"
    assert data["scenarios"][0]["cost_per_completed_task_usd"] == "0.045645"


def test_diff_per_task_gates_on_the_cost_per_completed_task(tmp_path: Path) -> None:
    base = _write(tmp_path, "outcome: {success: 0.9}\n", "base.yaml")
    head = _write(tmp_path, "outcome: {success: 0.45}\n", "head.yaml")
    limits = IncreaseLimits(fraction=Decimal("0.1"))
    by_run = diff_paths(base, head, as_of=WHEN, limits=limits)
    assert not any(g.tripped for g in diff_gates(by_run))  # the same requests: no change per run
    by_task = diff_paths(base, head, as_of=WHEN, limits=IncreaseLimits(fraction=Decimal("0.1"), per="task"))
    gate = next(g for g in diff_gates(by_task) if g.name == "max_increase")
    assert gate.tripped and "per completed task" in gate.message and "+100" in gate.message
    s = by_task.scenarios[0]
    assert (s.before_task_usd, s.after_task_usd) == (RUN / Decimal("0.9"), RUN / Decimal("0.45"))
    data = json.loads(render_text(by_task, Format.json, gates=diff_gates(by_task)))
    validate_json(data, report_schema())
    assert data["per"] == "task"
    assert data["scenarios"][0]["per_task"]["after_usd"] == str(RUN / Decimal("0.45"))


def test_cli_per_task_budget(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "outcome: {success: 0.5}\n")
    args = ["estimate", str(path), "--as-of", AS_OF, "--budget", "0.03"]
    assert run(args) == 0  # $0.0228 per run
    capsys.readouterr()
    assert run([*args, "--per", "task"]) == 1  # $0.0456 per completed task
    captured = capsys.readouterr()
    assert "Budget $0.0300 per completed task" in captured.out
    assert "per completed task" in captured.err


# ---------------------------------------------------------------------------------------------
# success as a distribution, and --simulate drawing outcomes


def test_the_estimate_uses_the_median_of_a_success_distribution(tmp_path: Path) -> None:
    # triangular [0.4, 0.8, 0.9]: u = 0.5 is left of the mode (cut (0.8 - 0.4) / 0.5 = 0.8), so the
    # median is 0.4 + sqrt(0.5 x 0.5 x 0.4) = 0.4 + sqrt(0.1) = 0.716228 (whole millionths)
    path = _write(tmp_path, "outcome: {success: {triangular: [0.4, 0.8, 0.9]}, on_failure: abandon}\n")
    report = estimate(path, as_of=AS_OF).report
    o = report.outcome
    assert o is not None and o.success == Decimal("0.716228")
    assert o.cost_per_completed_usd == RUN / Decimal("0.716228")
    assert o.success_dist == "triangular 0.4\N{EN DASH}0.9, most likely 0.8"
    data = json.loads(render_json(report))
    validate_json(data, report_schema())
    assert data["outcome"]["success"] == "0.716228"
    # uniform [0.6, 0.8]: every millionth from 600,000 to 800,000; the median is 700,000
    path = _write(tmp_path, "outcome: {success: {uniform: [0.6, 0.8]}}\n")
    o = estimate(path, as_of=AS_OF).report.outcome
    assert o is not None and o.success == Decimal("0.7")


@pytest.mark.parametrize(
    ("success", "error"),
    [
        ("{triangular: [0.9, 0.8, 0.4]}", "outcome.success.triangular: min 0.9, most likely 0.8, max 0.4"),
        ("{uniform: [0.5, 1.5]}", "must be above 0 and at most 1, got 1.5"),
        ("{uniform: [0.9, 0.5]}", "outcome.success.uniform: min 0.9 is above max 0.5"),
    ],
)
def test_a_bad_success_distribution_is_one_line(tmp_path: Path, success: str, error: str) -> None:
    path = _write(tmp_path, f"outcome: {{success: {success}}}\n")
    with pytest.raises(InputError) as caught:
        estimate(path, as_of=AS_OF)
    assert error in str(caught.value)


def test_simulate_draws_an_outcome_per_run(tmp_path: Path) -> None:
    from agentcost.loop.estimate import estimate_scenario
    from agentcost.loop.simulate import simulate

    path = _write(tmp_path, "outcome: {success: 0.5, on_failure: abandon, failure_rounds: 2}\n")
    est = estimate_scenario(load_scenario(path), as_of=WHEN)
    sim = simulate(est, 20_000, seed=3, sensitivity=False)
    assert simulate(est, 20_000, seed=3, sensitivity=False) == sim  # seeded: the same numbers
    t = sim.tasks
    assert t is not None and t.cost is not None
    assert sim.cost.p50 == sim.cost.max == RUN  # no distribution: every run costs c
    assert abs(t.completed - 10_000) < 300 and t.success_mean == Decimal("0.5")
    assert sim.completed_share == Decimal(t.completed) / 20_000  # the share the report shows
    # a completed task costs c plus f for each failed run before it: c + k f, k >= 0
    for value in (t.cost.min, t.cost.p50, t.cost.p90, t.cost.p99, t.cost.max):
        k = (value - RUN) / TWO_ROUNDS
        assert k == int(k) >= 0, value
    assert t.cost.min == RUN
    # the mean is c + f q / p = 0.0228225 + 0.0042775 = 0.0271 (runs drawn: within 1%)
    assert abs(t.cost.mean - Decimal("0.0271")) < Decimal("0.000271")
    # every run completes at p = 1: the cost per task is the cost per run
    sure = estimate_scenario(
        load_scenario(_write(tmp_path, "outcome: {success: 1}\n", "one.yaml")), as_of=WHEN
    )
    one = simulate(sure, 500, sensitivity=False).tasks
    assert one is not None and one.completed == 500 and one.cost is not None and one.cost.max == RUN


def test_simulate_json_carries_the_tasks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "outcome: {success: {uniform: [0.2, 0.4]}}\n")
    assert run(["estimate", str(path), "--as-of", AS_OF, "--simulate", "4000", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    validate_json(data, report_schema())
    tasks = data["simulation"]["tasks"]
    assert abs(Decimal(tasks["success_mean"]) - Decimal("0.3")) < Decimal("0.01")  # mean of [0.2, 0.4]
    # mean cost per completed task ~ c / E[p] = 0.0228225 / 0.3 = 0.076075
    mean = Decimal(tasks["cost_per_completed_task_usd"]["mean"])
    assert abs(mean - RUN / Decimal("0.3")) < Decimal("0.004")


def test_estimate_per_task_without_outcome_says_so(tmp_path: Path) -> None:
    from agentcost.loop.estimate import estimate_scenario
    from agentcost.report.build import build_report

    est = estimate_scenario(load_scenario(_write(tmp_path, "")), as_of=WHEN, budget_usd=Decimal("0.03"))
    report = build_report(est, per="task")
    assert report.warnings.count(PER_TASK_NOTE) == 1
    assert report.budget is not None and report.budget.per == "run"  # checked per run: the same
