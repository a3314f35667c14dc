"""A scenario with distributions says its cost is at their medians, and with a budget how often a run
goes over: a quick seeded simulation of ``QUICK_RUNS`` runs whose count is what ``estimate --simulate
QUICK_RUNS --seed 0`` reports (issue 14)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from agentcost.cli import run
from agentcost.loop.estimate import estimate
from agentcost.loop.simulate import simulate
from agentcost.report.build import QUICK_RUNS, QUICK_SEED, build_report, quick_overrun
from agentcost.report.notes import estimate_notes

ROOT = Path(__file__).resolve().parent.parent
UNCERTAIN = ROOT / "scenarios" / "uncertain-steps.yaml"
AS_OF = "2026-11-30"
WHEN = datetime(2026, 11, 30, tzinfo=UTC)
MEDIANS = "Cost at the medians of its distributions; --simulate N for percentiles."


def cli_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    run([*args, "--as-of", AS_OF, "-f", "json"])
    data: dict[str, object] = json.loads(capsys.readouterr().out)
    return data


def test_the_quick_overrun_is_what_simulate_reports(capsys: pytest.CaptureFixture[str]) -> None:
    quick = cli_json(capsys, "estimate", str(UNCERTAIN))
    simulated = cli_json(
        capsys, "estimate", str(UNCERTAIN), "--simulate", str(QUICK_RUNS), "--seed", str(QUICK_SEED)
    )
    overrun = quick["budget"]["overrun"]  # type: ignore[index]
    sim = simulated["simulation"]
    assert overrun == {
        "runs": QUICK_RUNS,
        "seed": QUICK_SEED,
        "over_budget_runs": sim["over_budget_runs"],  # type: ignore[index]
        "probability": sim["overrun_probability"],  # type: ignore[index]
    }
    assert overrun["over_budget_runs"] == 27  # type: ignore[index]
    assert simulated["budget"]["overrun"] is None  # type: ignore[index]  # --simulate says it itself
    texts = [n["text"] for n in quick["notes"]]  # type: ignore[attr-defined]
    assert MEDIANS in texts
    assert "P(over budget) ≈ 2.7% (1,000 simulated runs)." in texts


def test_the_table_says_so_in_its_short_notes(
    capsys: pytest.CaptureFixture[str], fixed_terminal: None
) -> None:
    assert run(["estimate", str(UNCERTAIN), "--as-of", AS_OF]) == 0
    out = capsys.readouterr().out
    assert MEDIANS in out
    assert "P(over budget) ≈ 2.7% (1,000 simulated runs)." in out
    assert out.index("Prices: ") < out.index(MEDIANS)


def test_quick_overrun_is_seeded_and_matches_the_simulation() -> None:
    est = estimate(UNCERTAIN, as_of=WHEN)
    assert est.budget is not None
    limit = est.budget.limit_usd
    first, again = quick_overrun(est, limit), quick_overrun(est, limit)
    assert first is not None and first == again
    sim = simulate(est, QUICK_RUNS, seed=QUICK_SEED, budget_usd=limit)
    assert (first.runs, first.seed, first.over) == (sim.runs, sim.seed, sim.over_budget)
    assert first.share == Decimal("0.027")
    cheap = quick_overrun(est, Decimal("5"))
    assert cheap is not None and cheap.over == 0
    notes = {
        n.kind: n.text
        for n in estimate_notes(build_report(estimate(UNCERTAIN, as_of=WHEN, budget_usd=Decimal(5))))
    }
    assert notes["overrun"] == "P(over budget) ≈ 0: none of 1,000 simulated runs goes over."


def test_without_a_budget_only_the_medians_are_said() -> None:
    est = estimate(UNCERTAIN, as_of=WHEN, overrides=["limits.budget_usd=null"])
    report = build_report(est)
    assert report.uncertain and report.budget is None
    kinds = [n.kind for n in estimate_notes(report) if n.level == "essential"]
    assert "distributions" in kinds and "overrun" not in kinds


def test_a_fixed_scenario_says_nothing_of_distributions() -> None:
    report = build_report(estimate(ROOT / "scenarios" / "bugfix.yaml", as_of=WHEN))
    assert not report.uncertain and report.budget is not None and report.budget.overrun is None
    assert {"distributions", "overrun"}.isdisjoint(n.kind for n in estimate_notes(report))


# Retries insert requests: only the slow per-run engine simulates this, so no quick figure is given
PER_RUN = """\
version: 1
model: gpt-4o
task: fix it
retries: {share: 0.5}
rounds:
  - {tool: Read, call_tokens: 20, result: {uniform: [100, 900]}, repeat: {uniform: [2, 6]}}
final: 50
limits: {budget_usd: 0.01}
"""


def test_only_the_vectorized_engine_runs_by_default(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(PER_RUN, encoding="utf-8")
    report = build_report(estimate(path, as_of=WHEN))
    assert report.uncertain and report.budget is not None and report.budget.overrun is None
    kinds = [n.kind for n in estimate_notes(report) if n.level == "essential"]
    assert "distributions" in kinds and "overrun" not in kinds
