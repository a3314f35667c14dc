"""``limits.max_budget_usd`` counts subagents' spending in the order requests happen (issue 16)."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

from agentcost.loop.accountant import run_accountant
from agentcost.loop.caching import pricer_for
from agentcost.loop.engines import PerRunEngine
from agentcost.loop.estimate import estimate
from agentcost.render.jsonfmt import render_json
from agentcost.report.build import build_report
from tests.test_subagents import PARENT, RESEARCHER

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)
ROOT = Path(__file__).resolve().parent.parent
RESEARCH = ROOT / "scenarios" / "subagent-research.yaml"

# PARENT (gpt-4o) hands one research call to RESEARCHER (gpt-4o-mini); tests/test_subagents.py
# computes their ledgers by hand.


def costs(ledger: object) -> list[Decimal]:
    return [r.cost.total_usd for r in ledger.rows]  # type: ignore[attr-defined]


def test_subagent_research_stops_at_the_first_request_over_the_budget() -> None:
    whole = estimate(RESEARCH, as_of=AS_OF)
    # In order: parent request 1, its researcher (5 requests), parent request 2, its researcher...
    parent = [Decimal("0.006384"), Decimal("0.006447")]
    researcher = [
        Decimal("0.001284"),
        Decimal("0.002669"),
        Decimal("0.00772775"),
        Decimal("0.00549995"),
        Decimal("0.00770965"),
    ]
    assert costs(whole.ledger)[:2] == parent
    assert costs(whole.subagents[(0, 0)].ledger) == costs(whole.subagents[(1, 0)].ledger) == researcher
    assert whole.total_usd > Decimal("0.05")
    # running: 0.006384 | +0.02489035 = 0.03127435 | +0.006447 = 0.03772135 | second researcher:
    # 0.03900535, 0.04167435, 0.0494021, then 0.05490205 > 0.05 at its request 4: it stops, the
    # parent too.
    assert parent[0] + sum(researcher) + parent[1] + sum(researcher[:3]) <= Decimal("0.05")
    spent = parent[0] + sum(researcher) + parent[1] + sum(researcher[:4])
    assert spent == Decimal("0.05490205")

    est = estimate(RESEARCH, as_of=AS_OF, overrides=["limits.max_budget_usd=0.05"])
    ledger = est.ledger
    assert (ledger.budget_stop, ledger.budget_subagent) == (2, (1, 0))  # after request 2, inside (1, 0)
    assert costs(ledger) == parent  # the parent sends no further request
    assert list(est.subagents) == [(0, 0), (1, 0)]  # round 2's and 3's subagents never start
    assert costs(est.subagents[(0, 0)].ledger) == researcher
    stopped = est.subagents[(1, 0)].ledger
    assert costs(stopped) == researcher[:4] and stopped.budget_stop == 4
    assert est.total_usd == ledger.spent_usd == spent
    assert (ledger.rounds_run, ledger.truncated) == (2, True)

    report = build_report(est, overrun=False, outcome=False)
    assert report.totals.cost_usd == spent
    assert report.totals.requests == 2 + 5 + 4
    assert any("stopped by limits.max_budget_usd (0.05 USD) after request 2" in w for w in report.warnings)


def test_a_budget_crossed_by_a_parent_request_starts_no_more_subagents() -> None:
    # 0.03127435 after the first researcher; parent request 2 brings it to 0.03772135 > 0.035
    est = estimate(RESEARCH, as_of=AS_OF, overrides=["limits.max_budget_usd=0.035"])
    assert (est.ledger.budget_stop, est.ledger.budget_subagent) == (2, None)
    assert list(est.subagents) == [(0, 0)]
    assert est.total_usd == Decimal("0.03772135")


def test_a_budget_above_the_full_cost_changes_nothing() -> None:
    whole = estimate(RESEARCH, as_of=AS_OF)
    capped = estimate(RESEARCH, as_of=AS_OF, overrides=[f"limits.max_budget_usd={whole.total_usd}"])
    assert capped.ledger.budget_stop is None and capped.ledger.spent_usd == whole.total_usd
    assert render_json(build_report(capped)) == render_json(build_report(whole))


def test_crossed_by_a_subagent_last_request_the_parent_stops(tmp_path: Path) -> None:
    (tmp_path / "researcher.yaml").write_text(RESEARCHER, encoding="utf-8")
    top = tmp_path / "top.yaml"
    top.write_text(PARENT + "limits: {max_budget_usd: 0.0006}\n", encoding="utf-8")
    est = estimate(top, as_of=AS_OF)
    # parent 0.0005675, researcher 0.00002205 (0.00058955) then 0.00018045: 0.00077 > 0.0006 at the
    # researcher's last request; the parent's final request is not sent.
    assert costs(est.ledger) == [Decimal("0.0005675")]
    assert (est.ledger.budget_stop, est.ledger.budget_subagent) == (1, (0, 0))
    sub = est.subagents[(0, 0)].ledger
    assert costs(sub) == [Decimal("0.00002205"), Decimal("0.00018045")] and sub.budget_stop is None
    assert est.total_usd == Decimal("0.00077")
    # the per-run engine of the simulation runs the subagents inside the ledger the same way
    cost, requests, tokens, cut, stopped = PerRunEngine(est).one(est.scenario)
    assert (cost, requests, tokens, cut, stopped) == (Decimal("0.00077"), 3, 107 + 67 + 603, False, True)


def test_the_accountant_gives_each_subagent_the_budget_left(tmp_path: Path) -> None:
    (tmp_path / "researcher.yaml").write_text(RESEARCHER, encoding="utf-8")
    top = tmp_path / "top.yaml"
    top.write_text(PARENT, encoding="utf-8")
    est = estimate(top, as_of=AS_OF)
    given: list[Decimal | None] = []

    def sub(left: Decimal | None) -> Decimal:
        given.append(left)
        return Decimal("0.0001")

    pricer = pricer_for(est.prices)
    run = run_accountant(
        est.counts, pricer, max_budget_usd=Decimal("0.001"), subagents={0: [(0, sub), (1, sub)]}
    )
    assert given == [Decimal("0.001") - Decimal("0.0005675"), Decimal("0.001") - Decimal("0.0006675")]
    assert run.budget_stop is None and run.spent_usd == Decimal("0.0005675") + Decimal("0.0002") + Decimal(
        "0.0027575"
    )
    given.clear()  # a cap crossed by the first of two subagents: the second never starts
    run = run_accountant(
        est.counts, pricer, max_budget_usd=Decimal("0.00066"), subagents={0: [(0, sub), (1, sub)]}
    )
    assert len(given) == 1 and (run.budget_stop, run.budget_subagent) == (1, (0, 0))
    assert run.spent_usd == Decimal("0.0006675") and len(run.rows) == 1
    given.clear()  # no cap: every subagent is told None
    run_accountant(est.counts, pricer, subagents={0: [(0, sub)]})
    assert given == [None]


def test_the_report_says_where_the_budget_stopped_the_run() -> None:
    """The warning names the request, and the subagent when the crossing happened inside one
    (round and call as the scenario counts them, 1-based); a parent request's crossing names none."""
    inside = build_report(estimate(RESEARCH, as_of=AS_OF, overrides=["limits.max_budget_usd=0.05"]))
    assert (
        "run stopped by limits.max_budget_usd (0.05 USD) after request 2, inside the subagent of"
        " round 2's call 1: 2 of 4 rounds, no final answer"  # the second researcher's request 4
    ) in inside.warnings
    parent = build_report(estimate(RESEARCH, as_of=AS_OF, overrides=["limits.max_budget_usd=0.035"]))
    assert (
        "run stopped by limits.max_budget_usd (0.035 USD) after request 2: 2 of 4 rounds, no final answer"
    ) in parent.warnings
