"""A project's monthly risk (issue 31): ``runs_per_day`` as a distribution, ``--simulate N`` of a
project giving N simulated 30-day months, and ``monthly_budget_usd`` with its gate and the share of
months over it (docs/project.md#monthly-risk).

The scenario is deterministic (no distribution: every run costs its estimate ``c``), so a month's
total is exactly (its runs) x ``c`` and every figure can be checked against the runs alone.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from agentcost.cli import run
from agentcost.commands.batch import batch_gates, batch_report_for_paths
from agentcost.errors import InputError
from agentcost.render.schema import report_schema
from agentcost.scenario.project import load_project
from tests.conftest import validate_json

pytestmark = pytest.mark.usefixtures("no_ctok", "fixed_terminal")

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)
SCENARIO = "version: 1\nmodel: gpt-5\ntask: t\nfinal: 1\n"


def project(tmp_path: Path, runs: str, extra: str = "") -> Path:
    (tmp_path / "s.yaml").write_text(SCENARIO)
    path = tmp_path / "agentcost.yml"
    path.write_text(f"version: 1\n{extra}scenarios:\n  - path: s.yaml\n    runs_per_day: {runs}\n")
    return path


def test_a_constant_rate_of_a_deterministic_scenario_is_exactly_30_x_runs_x_cost(tmp_path: Path) -> None:
    path = project(tmp_path, "200", "monthly_budget_usd: 100\n")
    report = batch_report_for_paths([path], as_of=AS_OF, months=50, seed=3)
    c = report.rows[0].cost_per_run_usd
    # gpt-5 at genai-prices 0.2.3 on 2026-11-30: $1.25 input, $10 output per MTok; 8 input tokens
    # and 1 output token: 8 x 1.25 / 10^6 + 10 / 10^6 = $0.00002 a run
    assert c == Decimal("0.00002")
    m = report.month
    assert m is not None and m.months == 50 and m.days == 30
    month = 30 * 200 * c  # 6,000 runs a month, each costing c: $0.12
    assert month == Decimal("0.12")
    assert (m.cost.min, m.cost.p50, m.cost.p90, m.cost.p99, m.cost.max) == (month,) * 5
    assert m.cost.mean == month.quantize(Decimal("1E-10"))
    assert m.scenarios[0].runs.p50 == 6000 and m.scenarios[0].runs.max == 6000
    assert month == report.totals.cost_per_month_usd  # the simulation agrees with the per-month figure
    assert m.budget_usd == 100 and m.over_budget == (50 if month > 100 else 0)


def test_the_budget_compares_exactly(tmp_path: Path) -> None:
    base = batch_report_for_paths([project(tmp_path, "200")], as_of=AS_OF)
    month = base.totals.cost_per_month_usd
    assert month is not None
    for budget, over in ((month, 0), (month - Decimal("1E-12"), 20)):  # "over" is strictly above
        path = project(tmp_path, "200", f"monthly_budget_usd: {budget}\n")
        report = batch_report_for_paths([path], as_of=AS_OF, months=20)
        assert report.month is not None and report.month.over_budget == over
        assert report.project is not None and report.project.monthly_budget is not None
        assert report.project.monthly_budget.over is bool(over)
        gate = batch_gates(report)[-1]
        assert gate.tripped is bool(over) and gate.line == 2  # the monthly_budget_usd line


def test_a_distribution_of_runs_a_day_has_the_closed_form_mean(tmp_path: Path) -> None:
    # uniform [100, 300]: every whole number equally likely, mean 200 runs a day, variance
    # (201^2 - 1) / 12 = 3,366.67; a month of 30 independent days: mean 6,000 runs, sd
    # sqrt(30 x 3,366.67) = 317.8. Over 1,000 months the mean's standard error is 317.8 / sqrt(1000)
    # = 10.0 runs, 0.17% of 6,000: the 0.6% tolerance is 3.6 standard errors (seed fixed anyway).
    path = project(tmp_path, "{uniform: [100, 300]}")
    loaded = load_project(path)
    assert loaded.entries[0].runs_per_day == 200  # its median: the per-day figure without --simulate
    report = batch_report_for_paths([path], as_of=AS_OF, months=1000, seed=7)
    c = report.rows[0].cost_per_run_usd
    m = report.month
    assert m is not None
    expected = 30 * 200 * c
    assert abs(m.cost.mean - expected) <= expected * Decimal("0.006")
    runs = m.scenarios[0].runs
    assert abs(runs.mean - 6000) <= 36  # the same 0.6%
    assert runs.min >= 3000 and runs.max <= 9000  # 30 days of 100 to 300
    assert m.cost.p50 == runs.p50 * c and m.cost.p90 == runs.p90 * c  # one scenario, one cost a run
    assert m.scenarios[0].runs_per_day == "uniform 100\N{EN DASH}300"
    again = batch_report_for_paths([path], as_of=AS_OF, months=1000, seed=7)
    assert again.month == m  # the seed gives the same months

    # A budget at the computed p90: the months above it are the 100 costlier than the 900th
    # cheapest (nearest rank), less the months tied with it (a month's runs spread over about
    # 2,000 values, so a few at most): about 10%, never more.
    budgeted = project(tmp_path, "{uniform: [100, 300]}", f"monthly_budget_usd: {m.cost.p90}\n")
    judged = batch_report_for_paths([budgeted], as_of=AS_OF, months=1000, seed=7).month
    assert judged is not None and judged.over_budget is not None and judged.over_budget_share is not None
    assert 95 <= judged.over_budget <= 100
    assert judged.over_budget_share == Decimal(judged.over_budget) / 1000


def test_a_fractional_rate_adds_a_run_with_the_fractions_probability(tmp_path: Path) -> None:
    # 0.05 a day: 1.5 runs a month, i.e. 1 run, and a second one with probability 0.5
    report = batch_report_for_paths([project(tmp_path, "0.05")], as_of=AS_OF, months=400, seed=1)
    m = report.month
    assert m is not None
    runs = m.scenarios[0].runs
    assert (runs.min, runs.max) == (1, 2)
    assert abs(runs.mean - Decimal("1.5")) <= Decimal("0.1")  # sd of the mean 0.5 / sqrt(400) = 0.025


def test_errors_name_the_file_line_and_key(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(SCENARIO)
    bad = tmp_path / "bad.yml"
    bad.write_text("version: 1\nscenarios:\n  - path: s.yaml\n    runs_per_day: {pert: [300, 200, 400]}\n")
    with pytest.raises(InputError) as e:
        load_project(bad)
    assert str(e.value) == (
        f"{bad}:4: scenarios[0].runs_per_day.pert: min 300, most likely 200, max 400 are not in order"
        " (write [min, most likely, max] with min <= most likely <= max)"
    )
    no_runs = tmp_path / "none.yml"
    no_runs.write_text("version: 1\nmonthly_budget_usd: 5\nscenarios:\n  - path: s.yaml\n")
    with pytest.raises(InputError) as e:
        batch_report_for_paths([no_runs], as_of=AS_OF)
    assert str(e.value).startswith(f"{no_runs}:2: monthly_budget_usd: monthly_budget_usd needs runs_per_day")
    half = tmp_path / "half.yml"
    half.write_text("version: 1\nscenarios:\n  - path: s.yaml\n  - path: s.yaml\n    runs_per_day: 3\n")
    with pytest.raises(InputError, match="a month needs runs_per_day for every scenario"):
        batch_report_for_paths([half], as_of=AS_OF, months=10)


def test_the_cli_prints_the_months_and_exits_with_the_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = project(tmp_path, "{uniform: [100, 300]}", "monthly_budget_usd: 0.01\n")
    code = run(["estimate", str(path), "--simulate", "200", "--as-of", "2026-11-30", "--format", "json"])
    out, err = capsys.readouterr()
    body = json.loads(out)
    assert code == 1 and "over budget" in err  # the printed verdict is the exit code's
    assert body["month"]["months"] == 200 and body["month"]["over_budget_months"] == 200
    assert body["project"]["monthly_budget"]["over"] is True
    validate_json(body, report_schema())  # the published schema knows month and monthly_budget
    code = run(["estimate", str(path), "--simulate", "200", "--as-of", "2026-11-30"])
    out, _ = capsys.readouterr()
    assert code == 1
    assert "Simulated 200 months (seed 0):" in out
    assert "Months over the monthly budget $0.0100: 100.0% (200 of 200)." in out
    code = run(["estimate", str(path), "--simulate", "200", "--as-of", "2026-11-30", "--format", "markdown"])
    out, _ = capsys.readouterr()
    assert code == 1
    assert "): **over budget** by $" in out and "Simulated 200 months (seed 0):" in out
