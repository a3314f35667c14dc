"""Uncertainty: distributions in scenarios, ``estimate --simulate``, percentile gates (issue 7).

Acceptance checks: with every distribution fixed the simulation gives exactly the deterministic
estimate (every shipped example, both engines); simulated percentiles, mean and shares match the
closed form of a uniform round count with fixed sizes within sampling error; a seed gives the same
numbers every time, whatever the number of runs or the chunking. Dollar figures come from genai-prices
0.2.3 at 2026-11-30 (gpt-4o: $2.50 input, $10 output per MTok; shared/reference/pricing-facts.md §A.0).
"""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcost.cli import run
from agentcost.errors import InputError
from agentcost.loop.engines import PerRunEngine, VectorEngine, realize, task_totals
from agentcost.loop.estimate import Estimate, estimate_scenario
from agentcost.loop.simulate import (
    _simulate,
    _Streams,
    nearest_rank,
    parse_at,
    simulate,
    slot_counts,
)
from agentcost.report.build import build_report
from agentcost.scenario.dists import describe, median, normal_ppf, normal_ppf_fast, sample, upper
from agentcost.scenario.load import read_scenario as load_scenario
from agentcost.scenario.model import Dist
from tests.conftest import fuzz_examples, validate_json

pytestmark = pytest.mark.usefixtures("no_ctok")

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)
ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"
MILLION = Decimal(1_000_000)


def write(tmp_path: Path, text: str, name: str = "s.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def estimate_file(path: Path, overrides: tuple[str, ...] = ()) -> Estimate:
    return estimate_scenario(load_scenario(path, overrides=overrides), as_of=AS_OF)


def dist(kind: str, *params: int | str, minimum: int = 0) -> Dist:
    return Dist(kind, tuple(Decimal(p) for p in params), "x", None, minimum)  # type: ignore[arg-type]


# --- distributions ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("d", "expected"),
    [
        (dist("fixed", 800), 800),
        (dist("uniform", 4, 12), 8),  # floor(4 + 0.5 * 9)
        (dist("triangular", 4, 6, 12), 7),  # 12 - sqrt(0.5 * 8 * 6) = 7.10
        (dist("triangular", 0, 100, 1000), 329),  # 1000 - sqrt(0.5 * 1000 * 900) = 329.2
        (dist("pert", 0, 50, 100), 50),  # symmetric
        (dist("lognormal", 800, 3000), 800),
        (dist("empirical", 1, 2, 2, 9), 2),  # the draw at u = 0.5: the third of four sorted values
        (dist("uniform", 0, 3, minimum=1), 2),
        (dist("fixed", 0, minimum=1), 1),
    ],
)
def test_median_is_the_draw_at_one_half(d: Dist, expected: int) -> None:
    assert median(d) == expected
    assert int(sample(d, np.array([0.5]))[0]) == expected


def test_bounds_and_descriptions() -> None:
    assert upper(dist("uniform", 4, 12)) == 12
    assert upper(dist("lognormal", 800, 3000)) is None
    assert describe(dist("triangular", 4, 6, 12)) == "triangular 4\u201312, most likely 6"
    assert describe(dist("lognormal", 800, 3000)) == "lognormal median 800, p90 3,000"
    assert describe(dist("empirical", 1, 5, 9)) == "empirical, 3 values 1\u20139"


U = np.random.Generator(np.random.PCG64(12345)).random(400_000)


def test_uniform_draws_every_whole_number_equally() -> None:
    draws = sample(dist("uniform", 3, 7), U)
    assert set(draws.tolist()) == {3, 4, 5, 6, 7}
    for v in range(3, 8):
        assert abs(np.mean(draws == v) - 0.2) < 0.004  # 6 standard errors of 0.00063


def test_triangular_median_and_pert_mean_match_their_formulas() -> None:
    tri = sample(dist("triangular", 0, 100, 1000), U)
    assert abs(np.median(tri) - (1000 - math.sqrt(0.5 * 1000 * 900))) < 3
    assert abs(tri.mean() - 1100 / 3) < 2
    pert = sample(dist("pert", 0, 100, 1000), U)
    assert abs(pert.mean() - (0 + 4 * 100 + 1000) / 6) < 1.5
    assert pert.min() >= 0 and pert.max() <= 1000


def test_lognormal_draws_have_the_given_median_and_p90() -> None:
    draws = sample(dist("lognormal", 800, 3000), U)
    assert abs(np.quantile(draws, 0.5) / 800 - 1) < 0.01
    assert abs(np.quantile(draws, 0.9) / 3000 - 1) < 0.015


def test_empirical_draws_each_observed_value_equally() -> None:
    draws = sample(dist("empirical", 1, 1, 2, 9), U)
    assert abs(np.mean(draws == 1) - 0.5) < 0.005 and abs(np.mean(draws == 9) - 0.25) < 0.005


def test_normal_quantile_is_exact_and_the_table_within_1e5() -> None:
    points = [1e-300, 1e-12, 1e-5, 0.001, 0.02, 0.3, 0.5, 0.77, 0.975, 0.999, 1 - 1e-9]
    exact = [statistics.NormalDist().inv_cdf(p) for p in points]
    assert np.allclose(normal_ppf(np.array(points[1:])), exact[1:], rtol=0, atol=1e-12)
    assert abs(normal_ppf_fast(U) - normal_ppf(U)).max() < 1e-5


# --- scenario files -----------------------------------------------------------------------------------

HEAD = "version: 1\nmodel: gpt-4o\ntask: Go.\n"


def test_distributions_are_read_with_their_place_and_estimated_at_the_median(tmp_path: Path) -> None:
    (tmp_path / "runs.txt").write_text("# steps\n6, 5\n7\n\n12 4\n")
    s = load_scenario(
        write(
            tmp_path,
            HEAD
            + "defaults:\n  result: {lognormal: {median: 800, p90: 3000}}\n  call_tokens: 20\n"
            + "rounds:\n  - tool: a\n    repeat: {triangular: [4, 6, 12]}\n"
            + "  - tool: b\n    result: 5\n    repeat: {empirical: {file: runs.txt}}\n"
            + "final: {pert: [100, 200, 900]}\nfinal_thinking: {uniform: [0, 100]}\n",
        )
    )
    assert len(s.rounds) == 7 + 6  # the triangle's median and the observed values' (4 5 6 7 12 -> 6)
    first, second = s.spreads
    assert (first.first, first.count, second.first, second.count) == (0, 7, 7, 6)
    assert first.repeat == Dist("triangular", (Decimal(4), Decimal(6), Decimal(12)), "rounds[0].repeat", 9)
    assert first.sizes == (
        ("result", 0, Dist("lognormal", (Decimal(800), Decimal(3000)), "defaults.result", 5)),
    )
    assert second.repeat is not None and second.repeat.params == tuple(map(Decimal, (4, 5, 6, 7, 12)))
    assert s.rounds[0].calls[0].result.tokens == 800
    assert s.final.tokens == median(Dist("pert", (Decimal(100), Decimal(200), Decimal(900)), "f"))
    assert s.final_thinking == 50


def test_a_fixed_distribution_is_the_plain_number(tmp_path: Path) -> None:
    plain = HEAD + "rounds:\n  - tool: a\n    call_tokens: 20\n    result: 700\n    repeat: 3\nfinal: 50\n"
    fixed = plain.replace("result: 700", "result: {fixed: 700}").replace("repeat: 3", "repeat: {fixed: 3}")
    a, b = estimate_file(write(tmp_path, plain, "a.yaml")), estimate_file(write(tmp_path, fixed, "b.yaml"))
    assert a.total_usd == b.total_usd and a.ledger.totals == b.ledger.totals


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "rounds:\n  - tool: a\n    result: 5\n    call_tokens: 9\n    repeat: {triangular: [4, 13, 12]}\n",
            "s.yaml:8: rounds[0].repeat.triangular: min 4, most likely 13, max 12 are not in order "
            "(write [min, most likely, max] with min <= most likely <= max)",
        ),
        (
            "rounds:\n  - tool: a\n    call_tokens: 9\n    result: {lognormal: {median: 800, p90: 800}}\n",
            "s.yaml:7: rounds[0].result.lognormal.p90: p90 (800) must be above the median (800) "
            "(nine runs in ten are below p90; half are below the median)",
        ),
        (
            "rounds:\n  - tool: a\n    call_tokens: 9\n    result: {unifrom: [1, 2]}\n",
            "s.yaml:7: rounds[0].result.unifrom: unknown key (allowed: tokens, text, file; or a "
            "distribution: did you mean 'uniform'?)",
        ),
        (
            "rounds:\n  - tool: a\n    result: 5\n    call_tokens: {uniform: [9, 3]}\n",
            "s.yaml:7: rounds[0].call_tokens.uniform: min 9 is above max 3 (write [min, max])",
        ),
        (
            "rounds:\n  - tool: a\n    result: 5\n    call_tokens: {uniform: [0, 0]}\n",
            "s.yaml:7: rounds[0].call_tokens.uniform: every value is below 1 (a draw is at least 1)",
        ),
        (
            "rounds:\n  - tool: a\n    result: 5\n    call_tokens: 9\n    repeat: {normal: [1, 2]}\n",
            "s.yaml:8: rounds[0].repeat.normal: unknown key (allowed: fixed, uniform, triangular, pert, "
            "lognormal, empirical; did you mean 'lognormal'?)",
        ),
        (
            "rounds:\n  - tool: a\n    result: 5\n    call_tokens: 9\n    repeat: {uniform: [1, 200000]}\n",
            "s.yaml:8: rounds[0].repeat: more than 100,000 rounds after repeats at the maximum",
        ),
    ],
)
def test_bad_distributions_are_one_line_errors(tmp_path: Path, body: str, message: str) -> None:
    path = write(tmp_path, HEAD + body + "final: 5\n")
    with pytest.raises(InputError) as caught:
        load_scenario(path)
    assert str(caught.value) == str(tmp_path / message)


def test_a_bad_value_in_a_file_of_observed_values_names_its_line(tmp_path: Path) -> None:
    (tmp_path / "runs.txt").write_text("6\n7 x8\n")
    path = write(tmp_path, HEAD + "rounds:\n  - tool: a\n    result: 5\n    call_tokens: 9\n"
                 "    repeat: {empirical: {file: runs.txt}}\nfinal: 5\n")  # fmt: skip
    with pytest.raises(InputError) as caught:
        load_scenario(path)
    assert str(caught.value) == (
        f"{tmp_path / 'runs.txt'}:2: not a whole number from 0 to 1,000,000,000: text (2 characters) "
        "(observed values for rounds[0].repeat.empirical, one or more per line)"
    )
    (tmp_path / "runs.txt").write_text("# nothing yet\n")
    with pytest.raises(InputError, match=r"runs\.txt: no values"):
        load_scenario(path)


# --- the closed form: a uniform round count with fixed sizes --------------------------------------

CLOSED = HEAD + (
    "caching: none\ndefaults: {call_tokens: 20, result: 300}\n"
    "rounds:\n  - tool: search\n    repeat: {uniform: [1, 12]}\nfinal: 100\n"
)
GPT_4O_IN, GPT_4O_OUT = Decimal("2.50"), Decimal(10)


def closed_form(est: Estimate, k: int) -> Decimal:
    """A k-round run: (k + 1) requests, input (k + 1) B + r k (k + 1) / 2 (request i carries
    B + (i - 1) r), output k o + f, at gpt-4o's list prices."""
    c = est.counts
    b = c.prefix + c.task + c.per_request
    r, o, f = c.rounds[0].appended, c.rounds[0].output, c.final_output
    tokens_in = (k + 1) * b + r * k * (k + 1) // 2
    return (GPT_4O_IN * tokens_in + GPT_4O_OUT * (k * o + f)) / MILLION


@pytest.fixture(scope="module")
def closed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Estimate, list[Decimal]]:
    path = write(tmp_path_factory.mktemp("closed"), CLOSED)
    est = estimate_file(path)
    costs = [closed_form(est, k) for k in range(1, 13)]
    for k in (1, 6, 12):  # the formula is the accountant's
        assert estimate_file(path, (f"rounds[0].repeat={k}",)).total_usd == costs[k - 1]
    return path, est, costs


def test_closed_form_percentiles_mean_and_shares(closed: tuple[Path, Estimate, list[Decimal]]) -> None:
    _, est, costs = closed
    n = 20_000
    limit = costs[8]  # runs with 10, 11 or 12 rounds are over: 3 in 12
    sim = simulate(est, n, seed=3, budget_usd=limit, at=("p75",), sensitivity=False)
    assert sim.engine == "vectorized"
    # nearest rank: P(K <= 10) = 0.833 < 0.9 <= P(K <= 11); P(K <= 11) = 0.917 < 0.99
    assert sim.cost.p90 == costs[10] and sim.cost.p99 == costs[11] and sim.cost.max == costs[11]
    assert sim.cost.min == costs[0]
    assert sim.cost_at("p75") == costs[8]  # P(K <= 9) = 0.75 exactly: 9 or 10
    mean = sum(costs) / 12
    sd = Decimal(statistics.pstdev([float(c) for c in costs]))
    assert abs(sim.cost.mean - mean) < 4 * sd / Decimal(math.sqrt(n))
    share = Decimal(sim.over_budget or 0) / n
    assert abs(share - Decimal(3) / 12) < 4 * Decimal(math.sqrt(0.25 * 0.75 / n))
    assert sim.requests.p90 == 12 and sim.requests.max == 13
    assert sim.hit_max_rounds == 0 and sim.max_rounds is None


def test_runs_over_max_rounds_are_cut_and_counted(closed: tuple[Path, Estimate, list[Decimal]]) -> None:
    path, _, costs = closed
    est = estimate_file(path, ("limits.max_rounds=9",))
    n = 20_000
    sim = simulate(est, n, seed=4, sensitivity=False)
    share = sim.hit_max_rounds / n
    assert abs(share - 0.25) < 4 * math.sqrt(0.25 * 0.75 / n)
    # a cut run sends 9 requests and no final answer: its cost is the first 9 requests of costs[8]'s run
    cut = costs[8] - (GPT_4O_IN * (est.counts.prefix + est.counts.task + est.counts.per_request
                                   + 9 * est.counts.rounds[0].appended)
                      + GPT_4O_OUT * est.counts.final_output) / MILLION  # fmt: skip
    assert sim.cost.max == max(cut, costs[8]) and sim.requests.max == 10


def test_the_shares_and_bar_heights_are_the_reports(closed: tuple[Path, Estimate, list[Decimal]]) -> None:
    """What the renderer shows as shares and bars is computed here, once (issue 27)."""
    path, _, costs = closed
    est = estimate_file(path, ("limits.max_rounds=9",))
    n = 2_000
    sim = simulate(est, n, seed=5, budget_usd=costs[4], sensitivity=False)
    assert sim.hit_max_rounds_share == Decimal(sim.hit_max_rounds) / n
    assert sim.stopped_by_budget_share == Decimal(sim.stopped_by_budget) / n == 0
    assert sim.over_budget_share == Decimal(sim.over_budget or 0) / n
    assert sim.completed_share is None  # no outcome
    most = max(b.runs for b in sim.histogram)
    assert [b.height for b in sim.histogram] == [Fraction(b.runs, most) for b in sim.histogram]
    assert max(b.height for b in sim.histogram) == 1


# --- acceptance: fixed distributions give the deterministic estimate ---------------------------------

EXAMPLES = sorted(p.name for p in SCENARIOS.glob("*.yaml") if p.name != "uncertain-steps.yaml")


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_example_with_fixed_distributions_simulates_to_its_estimate(name: str) -> None:
    overrides = ("rounds[0].repeat={fixed: 2}", "final_thinking={fixed: 7}")
    est = estimate_file(SCENARIOS / name, overrides)
    assert est.scenario.uncertain
    totals = build_report(est).totals
    sim = simulate(est, 12, sensitivity=False)
    for stat in (sim.cost,):
        assert stat.min == stat.max == stat.p50 == stat.mean == est.total_usd
    assert sim.requests.min == sim.requests.max == totals.requests
    assert sim.input_tokens.min == sim.input_tokens.max == totals.input_tokens


def test_the_uncertain_example_at_fixed_medians_is_its_estimate() -> None:
    """Holding every input of the shipped uncertain example at its median (the sensitivity switch
    for all at once) reproduces the deterministic estimate in every run."""
    est = estimate_file(SCENARIOS / "uncertain-steps.yaml")
    s = est.scenario
    fixed = replace(
        s,
        spreads=tuple(
            replace(
                sp,
                repeat=None if sp.repeat is None else Dist("fixed", (Decimal(sp.count),), sp.repeat.where),
                sizes=tuple((f, j, Dist("fixed", (Decimal(median(d)),), d.where)) for f, j, d in sp.sizes),
            )
            for sp in s.spreads
        ),
        final_dist=Dist("fixed", (Decimal(s.final.tokens or 0),), "final"),
    )
    sim = simulate(replace(est, scenario=fixed), 50, sensitivity=False)
    assert sim.cost.min == sim.cost.max == est.total_usd


# --- the engines agree run by run ------------------------------------------------------------------------

ENGINE_CASES = {
    "openai-automatic-caching": """version: 1
model: gpt-5
task: {tokens: 1500}
system: {tokens: 2000}
defaults:
  result: {lognormal: {median: 3000, p90: 20000}}
  call_tokens: {uniform: [20, 80]}
  thinking: {triangular: [0, 200, 2000]}
rounds:
  - tool: search
    repeat: {lognormal: {median: 8, p90: 20}}
  - calls:
      - {tool: fetch, result: {pert: [100, 5000, 40000]}}
      - {tool: fetch, result: 700, call_tokens: 30}
    server_tools: [{tool: web_search, uses: 2, result: 500}]
final: {empirical: [300, 500, 800, 1200]}
limits: {max_rounds: 25}
""",
    "gemini-long-context-tier": """version: 1
model: gemini-2.5-pro
task: {tokens: 50000}
defaults:
  result: {lognormal: {median: 20000, p90: 60000}}
  call_tokens: 50
rounds:
  - tool: read
    repeat: {uniform: [2, 15]}
final: 500
final_thinking: {uniform: [100, 3000]}
""",
    "claude-chat-turns-1h-prefix": """version: 1
model: claude-haiku-4-5
cache_ttl: 1h
caching: prefix
system: {tokens: 9000}
task: hello there
rounds:
  - reply: {uniform: [50, 400]}
    user: {triangular: [10, 40, 300]}
    repeat: {empirical: [0, 1, 1, 2, 3, 7]}
    thinking: {uniform: [0, 500]}
  - tool: Bash
    call_tokens: {fixed: 30}
    result: {fixed: 900}
final: 200
pacing: {round_seconds: 30}
""",
    "no-caching-max-rounds": """version: 1
model: claude-sonnet-4-5
caching: none
task: {tokens: 300}
rounds:
  - tool: a
    call_tokens: 40
    result: {uniform: [100, 100000]}
    repeat: {pert: [1, 3, 10]}
final: 10
limits: {max_rounds: 5}
""",
}


@pytest.mark.parametrize("name", sorted(ENGINE_CASES))
def test_the_vectorized_engine_matches_the_accountant_run_by_run(tmp_path: Path, name: str) -> None:
    est = estimate_file(write(tmp_path, ENGINE_CASES[name]))
    slots = slot_counts(est.scenario)
    fast, exact = VectorEngine(est, slots), PerRunEngine(est)
    draws = _Streams(est.scenario, 11, slots, None).next(60)
    a, b = fast.run(draws, 60), exact.run(draws, 60)
    costs_a = [Decimal(int(u)) / fast.scale for u in a.cost_units]
    costs_b = [Decimal(int(u)) / exact.scale for u in b.cost_units]
    assert costs_a == costs_b
    assert a.requests.tolist() == b.requests.tolist() and a.input_tokens.tolist() == b.input_tokens.tolist()
    assert a.truncated.tolist() == b.truncated.tolist()
    assert len(set(costs_a)) > 30  # the draws really vary


def test_what_the_vectorized_engine_does_not_model_runs_per_run(tmp_path: Path) -> None:
    text = ENGINE_CASES["no-caching-max-rounds"].replace("caching: none\n", "pacing: {round_seconds: 400}\n")
    est = estimate_file(write(tmp_path, text))
    sim = simulate(est, 30, sensitivity=False)
    assert (sim.engine, sim.engine_note) == ("per run", "pauses longer than the cache TTL (cache expiry)")


NESTED_SUBAGENTS = """version: 1
model: claude-sonnet-4-5
task: {tokens: 300}
rounds:
  - tool: delegate
    call_tokens: 50
    repeat: 2
    subagent:
      model: claude-haiku-4-5
      task: {tokens: 200}
      rounds:
        - tool: deeper
          call_tokens: 30
          subagent:
            model: gpt-4o
            task: {tokens: 100}
            rounds:
              - {tool: web_search, call_tokens: 30, result: 1200, repeat: 2}
            final: {tokens: 80}
      final: {tokens: 180}
      caching: conversation
final: 400
caching: conversation
"""


@pytest.mark.parametrize("nested", [False, True], ids=["subagent-research", "nested"])
def test_a_subagents_totals_are_its_reports_totals(tmp_path: Path, nested: bool) -> None:
    """The per-run engine takes a subagent's cost, requests and input tokens from its estimate
    (task_totals, layer 5), equal to the report's totals (build_report), subagents' own included."""
    path = write(tmp_path, NESTED_SUBAGENTS) if nested else SCENARIOS / "subagent-research.yaml"
    est = estimate_file(path)
    subs = list(est.subagents.values())
    assert subs and (not nested or all(sub.subagents for sub in subs))
    for e in (est, *subs, *(s for sub in subs for s in sub.subagents.values())):
        t = build_report(e).totals
        assert task_totals(e) == (t.cost_usd, t.requests, t.input_tokens)
    t = build_report(est).totals
    assert t.subagent_requests > 0 and t.cost_usd > est.ledger.totals.cost_usd
    cost, requests, tokens, _, _ = PerRunEngine(est).one(est.scenario)
    assert (cost, requests, tokens) == (t.cost_usd, t.requests, t.input_tokens)


def test_one_run_is_the_scenario_with_its_drawn_values() -> None:
    s = load_scenario(SCENARIOS / "uncertain-steps.yaml")
    one = realize(s, [2, 1, 0], [{("result", 0): [111, 222], ("call", 0): [5, 6], ("thinking", 0): [0, 9]},
                                 {("call", 0): [60], ("thinking", 0): [8]},
                                 {("result", 0): [], ("call", 0): [], ("thinking", 0): []}], 77)  # fmt: skip
    assert [r.calls[0].tool for r in one.rounds] == ["Read", "Read", "Edit"]
    assert [r.calls[0].result.tokens for r in one.rounds[:2]] == [111, 222]
    assert [r.calls[0].input.tokens for r in one.rounds] == [5, 6, 60]
    assert [r.thinking for r in one.rounds] == [0, 9, 8]
    assert one.final.tokens == 77 and not one.uncertain


# --- determinism -----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def uncertain() -> Estimate:
    return estimate_file(SCENARIOS / "uncertain-steps.yaml")


def test_the_same_seed_gives_the_same_numbers(uncertain: Estimate) -> None:
    a = simulate(uncertain, 3_000, seed=9)
    b = simulate(uncertain, 3_000, seed=9)
    c = simulate(uncertain, 3_000, seed=10)
    assert a == b
    assert a.cost != c.cost


def test_runs_do_not_depend_on_how_many_there_are(uncertain: Estimate) -> None:
    slots = slot_counts(uncertain.scenario)
    engine = VectorEngine(uncertain, slots)
    short = _simulate(uncertain, engine, 500, 1, slots)
    long = _simulate(uncertain, engine, 5_000, 1, slots)
    assert short.units.tolist() == long.units[:500].tolist()


def test_holding_one_input_leaves_the_other_draws_alone(uncertain: Estimate) -> None:
    s = uncertain.scenario
    slots = slot_counts(s)
    free = _Streams(s, 2, slots, None).next(100)
    held = _Streams(s, 2, slots, "rounds[0].result").next(100)
    assert (held.sizes[0][("result", 0)] == 900).all()
    assert free.counts[0].tolist() == held.counts[0].tolist()
    assert free.sizes[2][("result", 0)].tolist() == held.sizes[2][("result", 0)].tolist()
    assert free.sizes[0][("thinking", 0)].tolist() == held.sizes[0][("thinking", 0)].tolist()


def test_seed_zero_numbers_are_pinned(uncertain: Estimate) -> None:
    """The same numbers on every machine: PCG64's doubles and our own transforms only."""
    sim = simulate(uncertain, 2_000, seed=0, sensitivity=False)
    assert (sim.cost.p50, sim.cost.p90, sim.cost.p99) == PINNED


PINNED = (Decimal("0.28044975"), Decimal("0.41118915"), Decimal("0.56080785"))


def test_sensitivity_ranks_the_long_tailed_sizes_first(uncertain: Estimate) -> None:
    sim = simulate(uncertain, 5_000, seed=0)
    ranked = [x.input.where for x in sim.sensitivity]
    assert ranked[0] == "rounds[0].result"
    assert set(ranked) == {i.where for i in sim.inputs} and len(ranked) == 8
    first = sim.sensitivity[0]
    assert sim.sensitivity_at == "p90" and first.drop_usd == sim.cost.p90 - first.cost_usd > 0


# --- percentiles and the command line ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "label"), [("p90", "p90"), ("P99.50", "p99.5"), ("95", "p95"), ("mean", "mean")]
)
def test_at_labels(text: str, label: str) -> None:
    assert parse_at(text) == label


@pytest.mark.parametrize("text", ["p0", "p100", "px", "median", "", "p-5"])
def test_bad_at_labels(text: str) -> None:
    with pytest.raises(InputError, match="not a percentile"):
        parse_at(text)


def test_nearest_rank() -> None:
    values = list(range(1, 11))
    assert [values[nearest_rank(values, Decimal(q))] for q in (10, 50, 90, 91, 99)] == [1, 5, 9, 10, 10]


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = run(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


EXAMPLE = str(SCENARIOS / "uncertain-steps.yaml")


def test_cli_json_has_the_percentiles_and_the_overrun_probability(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "estimate", EXAMPLE, "--as-of", "2026-11-30", "--simulate", "2000",
                       "--budget", "0.30", "--at", "p90", "--format", "json")  # fmt: skip
    data = json.loads(out)
    validate_json(data, json.loads((ROOT / "docs" / "report.schema.json").read_text()))
    sim = data["simulation"]
    assert sim["runs"] == 2000 and sim["seed"] == 0 and sim["engine"] == "vectorized"
    assert Decimal(sim["cost_usd"]["p90"]) > Decimal("0.30") and code == 1
    over = sim["over_budget_runs"]
    assert sim["overrun_probability"] == str((Decimal(over) / 2000).quantize(Decimal("0.0001")).normalize())
    assert data["gates"][0]["message"].startswith(f"{EXAMPLE}: over budget at p90: simulated $")


def test_cli_percentile_gate_passes_under_budget(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "estimate", EXAMPLE, "--as-of", "2026-11-30", "--at", "p90", "-q")
    assert code == 0 and err == ""
    assert Decimal(out.strip().lstrip("$")) < Decimal("0.50")  # limits.budget_usd


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--at", "p90", "--set", "limits.budget_usd=null"],
            "agentcost: error: --at: --at p90 gates a budget, and there is none (give --budget DOLLARS or limits.budget_usd in the scenario)",
        ),
        (
            ["--at", "p100", "--budget", "1"],
            "agentcost: error: --at: not a percentile: 'p100' (mean, max, or p50, p90, p99 (any p1 to p99.9))",
        ),
        (["--simulate", "0"], "agentcost: error: --simulate: must be from 1 to 10,000,000 runs, got 0"),
        (
            ["--simulate", "10", "--seed", "-1"],
            "agentcost: error: --seed: must be a whole number from 0 to 2**63 - 1, got -1",
        ),
    ],
)
def test_cli_simulation_errors(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    code, out, err = cli(capsys, "estimate", EXAMPLE, "--as-of", "2026-11-30", *argv)
    assert (code, out, err) == (2, "", message + "\n")


def test_cli_simulates_one_scenario_at_a_time(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, "estimate", EXAMPLE, str(SCENARIOS / "bugfix.yaml"), "--simulate", "5")
    assert code == 2 and err.startswith("agentcost: error: --simulate: simulates one scenario file at a time")


def test_an_unbounded_round_count_needs_max_rounds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, HEAD + "rounds:\n  - tool: a\n    result: 5\n    call_tokens: 9\n"
                 "    repeat: {lognormal: {median: 5, p90: 20}}\nfinal: 5\n")  # fmt: skip
    code, _, err = cli(capsys, "estimate", str(path), "--simulate", "10", "--as-of", "2026-11-30")
    assert (code, err) == (2, f"agentcost: error: {path}:8: rounds[0].repeat: a lognormal round count has no "
                              "upper bound (set limits.max_rounds (runs are cut there), or give a bounded "
                              "distribution)\n")  # fmt: skip


def test_markdown_and_csv_reports(capsys: pytest.CaptureFixture[str], golden: Any) -> None:
    code, out, _ = cli(
        capsys, "estimate", EXAMPLE, "--as-of", "2026-11-30", "--simulate", "2000", "-f", "markdown"
    )
    assert code == 0
    golden("simulate-uncertain-steps.md", out[out.index("##### Simulation") :])
    code, out, _ = cli(
        capsys, "estimate", EXAMPLE, "--as-of", "2026-11-30", "--simulate", "2000", "-f", "csv"
    )
    lines = out.splitlines()
    assert lines[0] == "quantity,mean,p50,p90,p99,min,max"
    assert lines[1].startswith("cost_usd,") and lines[1].split(",")[3] == "0.41118915"  # the pinned p90


def test_a_progress_bar_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    from agentcost.cli import output as cli_output

    with cli_output.progress_bar(enabled=True) as progress:  # pytest's stderr is not a terminal
        assert progress is None
    monkeypatch.setattr(cli_output.sys.stderr, "isatty", lambda: True)
    with cli_output.progress_bar(enabled=True) as progress:
        assert progress is not None
        progress(5, 10)
    with cli_output.progress_bar(enabled=False) as progress:
        assert progress is None


# --- the engines agree on random scenarios --------------------------------------------------------------

MODELS = ["claude-sonnet-4-5", "claude-haiku-4-5", "gpt-5", "gpt-4o", "gemini-2.5-pro", "gemini-2.5-flash"]


@st.composite
def dist_text(draw: st.DrawFn, low: int, high: int) -> str:
    a = draw(st.integers(low, high))
    b = draw(st.integers(a, high))
    mode = draw(st.integers(a, b))
    return draw(
        st.sampled_from(
            [
                f"{{fixed: {a}}}",
                f"{{uniform: [{a}, {b}]}}",
                f"{{triangular: [{a}, {mode}, {b}]}}",
                f"{{pert: [{a}, {mode}, {b}]}}",
                f"{{lognormal: {{median: {max(a, 1)}, p90: {max(a, 1) * 3 + 1}}}}}",
                f"{{empirical: [{a}, {mode}, {b}]}}",
            ]
        )
    )


@st.composite
def random_scenario(draw: st.DrawFn) -> str:
    lines = [
        "version: 1",
        f"model: {draw(st.sampled_from(MODELS))}",
        f"system: {{tokens: {draw(st.integers(0, 5000))}}}",
        "task: Find the cause.",
    ]
    caching = draw(st.sampled_from([None, "none", "prefix", "conversation"]))
    if caching:
        lines.append(f"caching: {caching}")
    if lines[1].startswith("model: claude") and draw(st.booleans()):
        lines.append("cache_ttl: 1h")
    lines.append("rounds:")
    for _ in range(draw(st.integers(1, 3))):
        if draw(st.integers(0, 4)) == 0:
            lines.append(f"  - reply: {draw(dist_text(1, 400))}\n    user: {draw(dist_text(1, 300))}")
        elif draw(st.integers(0, 3)) == 0:
            lines.append("  - calls:")
            for _ in range(2):
                lines.append(
                    f"      - {{tool: t, call_tokens: {draw(dist_text(1, 90))}, result: {draw(dist_text(0, 30000))}}}"
                )
        else:
            lines.append(
                f"  - tool: t\n    call_tokens: {draw(dist_text(1, 90))}\n    result: {draw(dist_text(0, 30000))}"
            )
        lines.append(f"    repeat: {draw(dist_text(0, 8))}")
        if draw(st.booleans()):
            lines.append(f"    thinking: {draw(dist_text(0, 2000))}")
        if draw(st.integers(0, 5)) == 0:
            lines.append("    server_tools: [{tool: web_search, uses: 2, result: 300}]")
    lines.append(f"final: {draw(dist_text(0, 900))}")
    if draw(st.booleans()):
        lines.append(f"final_thinking: {draw(dist_text(0, 900))}")
    # a lognormal round count needs max_rounds; 60 never cuts the other distributions here
    lines.append(f"limits: {{max_rounds: {draw(st.sampled_from([1, 3, 5, 8, 12, 60]))}}}")
    return "\n".join(lines) + "\n"


@settings(
    max_examples=fuzz_examples(12), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=random_scenario(), seed=st.integers(0, 2**32))
def test_engines_agree_on_random_scenarios(tmp_path: Path, text: str, seed: int) -> None:
    est = estimate_file(write(tmp_path, text))
    slots = slot_counts(est.scenario)
    fast, exact = VectorEngine(est, slots), PerRunEngine(est)
    draws = _Streams(est.scenario, seed, slots, None).next(15)
    a, b = fast.run(draws, 15), exact.run(draws, 15)
    assert [Decimal(int(u)) / fast.scale for u in a.cost_units] == [
        Decimal(int(u)) / exact.scale for u in b.cost_units
    ], text
    assert a.requests.tolist() == b.requests.tolist() and a.input_tokens.tolist() == b.input_tokens.tolist()
    assert a.truncated.tolist() == b.truncated.tolist()


def test_the_limits_hold_at_the_largest_round_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    calls = "".join("      - {tool: a, call_tokens: 5, result: 5}\n" for _ in range(300))
    path = write(
        tmp_path, HEAD + "rounds:\n  - calls:\n" + calls + "    repeat: {empirical: [1, 1, 1000]}\nfinal: 5\n"
    )
    code, _, err = cli(capsys, "estimate", str(path), "--simulate", "10", "--as-of", "2026-11-30")
    assert (code, err) == (
        2,
        f"agentcost: error: {path}:306: rounds[0].repeat: at its largest round count a run has 300,000 tool "
        "calls, more than the 200,000 tool calls a run may have (lower the distribution's maximum, or set "
        "limits.max_rounds (runs are cut there))\n",
    )
