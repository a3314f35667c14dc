"""Issue 16 items 4 and 7: subagent concurrency in the pacing, missing stop rules, --explain --simulate."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from agentcost.errors import InputError
from agentcost.loop.accountant import request_gaps
from agentcost.loop.estimate import estimate
from agentcost.report import fmt
from agentcost.scenario.load import read_scenario

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)
MTOK = Decimal(1_000_000)

# Claude Sonnet 4.5 under 5-minute caching (explicit breakpoints): $3 input, $3.75 a 5m write,
# $0.30 a read, $15 output per MTok. Round 0's response starts four subagents that take 60, 80,
# 90 and 100 seconds (their own pacing); the parent's own round takes 0 seconds.
SUB = "      - {{tool: ask, call_tokens: 10, subagent: {{model: claude-haiku-4-5, task: 50, rounds: [{{tool: s, call_tokens: 5, result: 100, seconds: {s}}}], final: 40}}}}\n"
PARENT = (
    "version: 1\nmodel: claude-sonnet-4-5\ncaching: conversation\ntask: {tokens: 3000}\nLIMITSrounds:\n"
    "  - calls:\n"
    + "".join(SUB.format(s=s) for s in (60, 80, 90, 100))
    + "  - {tool: t, call_tokens: 10, result: 50}\nfinal: 100\n"
)


def parent(tmp_path: Path, limits: str = "") -> Path:
    path = tmp_path / "top.yaml"
    path.write_text(PARENT.replace("LIMITS", limits), encoding="utf-8")
    return path


@pytest.mark.parametrize(("n", "wait"), [(None, 0), (4, 100), (3, 90 + 100), (2, 80 + 100), (1, 330)])
def test_waves_of_subagents_add_to_the_parents_gap(tmp_path: Path, n: int | None, wait: int) -> None:
    limits = "" if n is None else f"limits: {{max_concurrent_subagents: {n}}}\n"
    scenario = read_scenario(parent(tmp_path, limits))
    assert request_gaps(scenario) == (Decimal(wait), Decimal(0))


def test_past_300_seconds_the_parents_cache_read_becomes_a_write(tmp_path: Path) -> None:
    four = estimate(parent(tmp_path, "limits: {max_concurrent_subagents: 4}\n"), as_of=AS_OF)
    one = estimate(parent(tmp_path, "limits: {max_concurrent_subagents: 1}\n"), as_of=AS_OF)
    a, b = four.ledger.rows[1], one.ledger.rows[1]
    assert (a.start_seconds, b.start_seconds) == (Decimal(100), Decimal(330))
    assert not a.cache_expired and b.cache_expired
    # N=4: request 2 reads what request 1 wrote; N=1: it reads nothing and writes it all again
    first = four.ledger.rows[0].usage
    assert a.usage.cache_read_tokens == first.cache_write_tokens > 3000
    assert b.usage.cache_read_tokens == 0
    assert b.usage.cache_write_tokens == a.usage.cache_write_tokens + a.usage.cache_read_tokens
    assert a.usage.input_tokens == b.usage.input_tokens
    # the dollars: the read tokens move from $0.30 to $3.75 per MTok; nothing else changes
    read = a.usage.cache_read_tokens
    assert b.cost.total_usd - a.cost.total_usd == read * (Decimal("3.75") - Decimal("0.30")) / MTOK
    assert one.total_usd - four.total_usd == read * Decimal("3.45") / MTOK
    assert one.subagents_usd == four.subagents_usd


@pytest.mark.parametrize("value", ["0", "-1", "1.5", "two"])
def test_max_concurrent_subagents_must_be_a_positive_whole_number(tmp_path: Path, value: str) -> None:
    with pytest.raises(InputError) as err:
        read_scenario(parent(tmp_path, f"limits: {{max_concurrent_subagents: {value}}}\n"))
    text = str(err.value)
    assert "limits.max_concurrent_subagents" in text and "\n" not in text


# ---------------------------------------------------------------------------------------------
# --explain: a scenario with no step limit and no spend cap

# gpt-4o, no caching ($2.50 input, $10 output per MTok): a run of k rounds sends k + 1 requests of
# B, B + a, ..., B + k·a input tokens; cut at max_rounds c < k it sends c requests and no final.
LOOP = """\
version: 1
model: gpt-4o
caching: none
task: {tokens: 400}
rounds:
  - {tool: read, call_tokens: 20, result: 300, repeat: {empirical: [REPEAT]}}
final: 100
LIMITS"""
TAIL = [3, 4, 5, 6] * 49 + [3, 4, 5] + [60]  # 1 run in 200 does not converge (60 rounds)


def loop(tmp_path: Path, limits: str = "") -> Path:
    path = tmp_path / "loop.yaml"
    text = LOOP.replace("REPEAT", ", ".join(map(str, TAIL))).replace("LIMITS", limits)
    path.write_text(text, encoding="utf-8")
    return path


def closed_form(est: object) -> Callable[[int, int | None], Decimal]:
    """A run's dollars by rounds k and step limit c, from the run at the medians' first requests."""
    rows = est.ledger.rows  # type: ignore[attr-defined]
    b, a = rows[0].usage.input_tokens, rows[1].usage.input_tokens - rows[0].usage.input_tokens
    o, f = rows[0].usage.output_tokens, rows[-1].usage.output_tokens

    def cost(k: int, cap: int | None = None) -> Decimal:
        if cap is not None and k > cap:  # cap requests, no final answer
            return (cap * b + a * cap * (cap - 1) // 2) * Decimal("2.5") / MTOK + cap * o * 10 / MTOK
        return ((k + 1) * b + a * k * (k + 1) // 2) * Decimal("2.5") / MTOK + (k * o + f) * 10 / MTOK

    return cost


def test_missing_stop_rules_with_the_simulated_cost_of_a_run_that_does_not_converge(tmp_path: Path) -> None:
    from agentcost.loop.insights import STOP_RUNS, STOP_SEED, explain, rounds_per_run
    from agentcost.loop.simulate import nearest_rank

    est = estimate(loop(tmp_path), as_of=AS_OF)
    stops = explain(est).stops
    assert stops is not None
    assert stops.missing == ("limits.max_rounds", "limits.max_budget_usd")
    assert (stops.runs, stops.seed) == (STOP_RUNS, STOP_SEED) == (400, 0)
    rounds = sorted(rounds_per_run(est.scenario, STOP_RUNS, STOP_SEED))
    assert set(rounds) <= set(TAIL) and rounds[-1] == 60  # the seeded draws include the tail
    cap = rounds[nearest_rank(rounds, Decimal(99))]
    assert stops.cap_rounds == cap == 6
    cost = closed_form(est)
    assert stops.uncapped is not None and stops.capped is not None
    assert stops.uncapped.p99 == cost(cap, None)
    assert stops.uncapped.max == cost(60, None)
    # cut at 6 rounds, a run of 60 sends 6 requests and no final answer: cheaper than 6 rounds done
    assert cost(60, cap) < cost(cap, None)
    assert stops.capped.max == max(cost(k, cap) for k in rounds) == cost(cap, None)
    mean = sum(cost(k, None) for k in rounds) / STOP_RUNS
    capped_mean = sum(cost(k, cap) for k in rounds) / STOP_RUNS
    assert abs(stops.uncapped.mean - mean) < Decimal("1E-10")
    assert abs(stops.capped.mean - capped_mean) < Decimal("1E-10")
    assert stops.capped.mean < stops.uncapped.mean


def test_the_stop_rules_line(tmp_path: Path) -> None:
    from agentcost.loop.insights import explain
    from agentcost.render.insights import insight_lines

    est = estimate(loop(tmp_path), as_of=AS_OF)
    insights = explain(est)
    stops = insights.stops
    assert stops is not None and stops.uncapped is not None and stops.capped is not None
    name, text = insight_lines(insights)[-1]
    assert name == "stop rules"
    assert text == (
        "no step limit (limits.max_rounds), no spend cap (limits.max_budget_usd); 400 runs (seed 0): "
        f"mean {fmt.usd(stops.uncapped.mean)}, p99 {fmt.usd(stops.uncapped.p99)}; with max_rounds: 6 "
        f"(their p99 rounds): mean {fmt.usd(stops.capped.mean)}, p99 {fmt.usd(stops.capped.p99)}"
    )


@pytest.mark.parametrize(
    ("limits", "missing"),
    [
        ("limits: {max_rounds: 80}\n", ("limits.max_budget_usd",)),
        ("limits: {max_budget_usd: 1}\n", ("limits.max_rounds",)),
        ("limits: {max_rounds: 80, max_budget_usd: 1}\n", None),
    ],
)
def test_only_the_missing_rule_is_named(tmp_path: Path, limits: str, missing: tuple[str, ...] | None) -> None:
    from agentcost.loop.insights import explain

    stops = explain(estimate(loop(tmp_path, limits), as_of=AS_OF)).stops
    assert (stops.missing if stops is not None else None) == missing
    if stops is not None and "limits.max_rounds" not in stops.missing:
        assert stops.runs == 0 and stops.uncapped is None  # a step limit is set: nothing to simulate


def test_fixed_round_counts_are_not_simulated(tmp_path: Path) -> None:
    from agentcost.loop.insights import explain

    path = tmp_path / "fixed.yaml"
    path.write_text(LOOP.replace("{empirical: [REPEAT]}", "4").replace("LIMITS", ""), encoding="utf-8")
    stops = explain(estimate(path, as_of=AS_OF)).stops
    assert stops is not None and stops.missing == ("limits.max_rounds", "limits.max_budget_usd")
    assert stops.runs == 0 and stops.uncapped is None and stops.note is None


def test_an_unbounded_round_count_says_why_it_is_not_simulated(tmp_path: Path) -> None:
    from agentcost.loop.insights import explain
    from agentcost.render.insights import stops_text

    path = tmp_path / "open.yaml"
    text = LOOP.replace("{empirical: [REPEAT]}", "{lognormal: {median: 5, p90: 20}}").replace("LIMITS", "")
    path.write_text(text, encoding="utf-8")
    stops = explain(estimate(path, as_of=AS_OF)).stops
    assert (
        stops is not None and stops.runs == 0 and stops.note == "a lognormal round count has no upper bound"
    )
    assert stops_text(stops).endswith("; not simulated: a lognormal round count has no upper bound")


# ---------------------------------------------------------------------------------------------
# --explain --simulate N: one report


def test_explain_and_simulate_make_one_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from agentcost.cli import run
    from agentcost.render.schema import report_schema
    from tests.conftest import validate_json

    path = str(loop(tmp_path))
    argv = ["estimate", path, "--explain", "--simulate", "300", "--as-of", "2026-11-30", "-f", "json"]
    assert run(argv) == 0
    out, _ = capsys.readouterr()
    data = json.loads(out)
    validate_json(data, report_schema())
    steps, sim = data["insights"]["steps"], data["simulation"]
    assert steps == {"runs": 300, "seed": 0, "requests": sim["requests"]}
    # steps per task: requests per run = its rounds + the final answer (no cap, nothing inserted)
    from agentcost.loop.insights import rounds_per_run
    from agentcost.loop.simulate import nearest_rank

    rounds = sorted(rounds_per_run(read_scenario(Path(path)), 300, 0))
    for q in (50, 90, 99):
        assert steps["requests"][f"p{q}"] == rounds[nearest_rank(rounds, Decimal(q))] + 1
    assert data["insights"]["stop_rules"]["missing"] == ["limits.max_rounds", "limits.max_budget_usd"]


@pytest.mark.usefixtures("fixed_terminal")
def test_explain_and_simulate_fit_80_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentcost.cli import run

    monkeypatch.setenv("COLUMNS", "80")
    path = str(loop(tmp_path))
    assert run(["estimate", path, "--explain", "--simulate", "300", "--as-of", "2026-11-30"]) == 0
    out, _ = capsys.readouterr()
    assert "Simulation: 300 runs" in out and "Insights" in out
    assert out.index("Simulation: 300 runs") < out.index("Insights")
    assert "p50 " in out and "requests per run (300" in out and "stop rules" in out
    assert max(len(line) for line in out.splitlines()) <= 80
