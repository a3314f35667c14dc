"""``--simulate`` draws the distributions inside a subagent afresh for every run (and every call that
starts it), as it draws the parent's (issue 31, item 5)."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

from agentcost.loop.estimate import estimate_scenario
from agentcost.loop.simulate import simulate
from agentcost.scenario.load import read_scenario

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)

# gpt-4o, no caching. The subagent's final answer F ~ uniform on the whole numbers 0..2,000 (mean
# 1,000, standard deviation sqrt((2001^2 - 1) / 12) = 577.6): it bills F output tokens at $10/M, and
# goes back to the parent as the call's result, F input tokens of the parent's last request at $2.50/M.
# So a run costs a + 12.5e-6 F dollars, with a the cost at F = 0.
SCENARIO = """version: 1
model: gpt-4o
caching: none
task: {tokens: 100}
rounds:
  - tool: delegate
    call_tokens: 20
    subagent:
      model: gpt-4o
      caching: none
      task: {tokens: 100}
      final: {uniform: [0, 2000]}
final: 10
"""
RUNS = 100


def test_a_subagents_distribution_is_drawn_in_every_run(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO)
    est = estimate_scenario(read_scenario(path), as_of=AS_OF)
    per_token = Decimal("0.0000125")  # $10/M output + $2.50/M input
    a = est.total_usd - 1000 * per_token  # the estimate is at the median, F = 1,000
    sim = simulate(est, RUNS, seed=3, sensitivity=False, at=("p10",))
    assert sim.engine == "per run"
    # every run's cost is a + 12.5e-6 F for a whole F in 0..2,000, and they spread across that range
    assert a <= sim.cost.min and sim.cost.max <= a + 2000 * per_token
    assert (sim.cost.min - a) % per_token == 0 and (sim.cost.max - a) % per_token == 0
    p10, p90 = sim.cost_at("p10"), sim.cost.p90
    assert p90 - p10 > 1000 * per_token  # uniform: p10 ~ F = 200, p90 ~ F = 1,800
    # the mean F lies within 4 standard errors of 1,000: 4 x 577.6 / sqrt(100) = 231 tokens (the
    # seed fixes the draws, so this is deterministic; a wrong expectation by more than that fails)
    mean_f = (sim.cost.mean - a) / per_token
    assert abs(mean_f - 1000) < 231


def test_draws_do_not_depend_on_the_run_count(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO)
    est = estimate_scenario(read_scenario(path), as_of=AS_OF)
    few, more = simulate(est, 20, seed=5, sensitivity=False), simulate(est, 40, seed=5, sensitivity=False)
    # the first 20 runs of both are the same runs (one seed per run): the cheapest of 40 is at most theirs
    assert more.cost.min <= few.cost.min and more.cost.max >= few.cost.max
    assert few.cost.min < few.cost.max  # the subagent's final answer really varies
    assert simulate(est, 20, seed=5, sensitivity=False).cost == few.cost  # the seed fixes every draw


def test_a_subagent_of_a_subagent_is_drawn_too(tmp_path: Path) -> None:
    # the middle subagent is certain; its own subagent's final answer is uniform 0..2,000 and goes back
    # up as the middle one's call result, so the runs spread by up to 2,000 x $2.50/M + 2,000 x $10/M
    nested = SCENARIO.replace("      final: {uniform: [0, 2000]}\n", "      final: 50\n").replace(
        "      task: {tokens: 100}\n",
        "      task: {tokens: 100}\n      rounds:\n        - tool: ask\n          call_tokens: 20\n"
        "          subagent: {model: gpt-4o, caching: none, task: 100, final: {uniform: [0, 2000]}}\n",
    )
    path = tmp_path / "s.yaml"
    path.write_text(nested)
    sim = simulate(estimate_scenario(read_scenario(path), as_of=AS_OF), 20, seed=1, sensitivity=False)
    assert sim.cost.max - sim.cost.min > 1000 * Decimal("0.0000125")
    assert sim.cost.max - sim.cost.min <= 2000 * Decimal("0.0000125")
