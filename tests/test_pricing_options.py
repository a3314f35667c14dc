"""One options value (``PricingOptions``) carried by every estimate, neutral option keys in library
errors (the CLI words them with its flags), and baselines that reuse the run's work.

The work counts below (accountant runs, ``count_tokens`` calls) are facts about the pipeline, not
timings: before baselines reused the run's models and counts, scenarios/routing.yaml ran the
accountant 12 times and counted tokens 4 times (three full estimates: the run, then every request on
Sonnet, then every request on Haiku, each with its TTL comparison).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

import agentcost.loop.accountant
import agentcost.loop.estimate
import agentcost.prices.lookup
import agentcost.tokens.count
from agentcost.cli import run
from agentcost.cli.options import flagged
from agentcost.errors import InputError
from agentcost.loop.engines import PerRunEngine
from agentcost.loop.estimate import Estimate, estimate_scenario
from agentcost.loop.insights import explain
from agentcost.loop.options import PricingOptions, parse_as_of
from agentcost.loop.simulate import simulate
from agentcost.prices.user import load_user_prices
from agentcost.scenario.load import read_scenario as load_scenario
from agentcost.scenario.model import Round, Scenario
from agentcost.tokens.dynamics import has_parallel_calls, sequential_equivalent, without_routing
from tests.conftest import ROOT

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)
SCENARIOS = ROOT / "scenarios"
SHIPPED = sorted(SCENARIOS.glob("*.yaml"))

pytestmark = pytest.mark.usefixtures("no_ctok")


@dataclass
class Work:
    accountant: int = 0
    count_tokens: int = 0
    resolve_model: int = 0


@pytest.fixture
def work(monkeypatch: pytest.MonkeyPatch) -> Iterator[Work]:
    """Counts accountant runs, ``count_tokens`` calls and model look-ups, wherever they are made."""
    seen = Work()

    def counting(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            setattr(seen, name, getattr(seen, name) + 1)
            return real(*args, **kwargs)

        return call

    accountant = counting("accountant", agentcost.loop.accountant.run_accountant)
    monkeypatch.setattr(agentcost.loop.accountant, "run_accountant", accountant)  # TTL options
    monkeypatch.setattr(agentcost.loop.estimate, "run_accountant", accountant)
    count = counting("count_tokens", agentcost.tokens.count.count_tokens)
    monkeypatch.setattr(agentcost.tokens.count, "count_tokens", count)
    resolve = counting("resolve_model", agentcost.prices.lookup.resolve_model)
    monkeypatch.setattr(agentcost.prices.lookup, "resolve_model", resolve)
    yield seen


def reset(work: Work) -> None:
    work.accountant = work.count_tokens = work.resolve_model = 0


# ---------------------------------------------------------------------------------------------
# Work done: baselines reuse the run's models, prices and token counts


@pytest.mark.parametrize(
    ("name", "accountant", "count_tokens"),
    [
        # the run, its TTL comparison (none, 1h; 5m is the run itself); then every request on Sonnet
        # and every request on Haiku: one accountant run each on the counts the run has (its own, the
        # route's). Before: 12 runs and 4 counts
        ("routing.yaml", 3 + 2, 2),
        # no routing, no parallel calls: the run and its TTL comparison. Before: the same
        ("bugfix.yaml", 3, 1),
        # the run, its TTL comparison, and one call per round: counted once more, one run. Before:
        # 8 runs (the sequential baseline was a full estimate with its own TTL comparison)
        ("parallel-retries.yaml", 3 + 1, 2),
    ],
)
def test_the_work_an_estimate_does(work: Work, name: str, accountant: int, count_tokens: int) -> None:
    scenario = load_scenario(SCENARIOS / name)
    reset(work)
    est = estimate_scenario(scenario, as_of=AS_OF)
    assert (work.accountant, work.count_tokens) == (accountant, count_tokens)
    assert len(est.ttl_comparison) == 3


def test_routing_baselines_are_one_accountant_run_each(work: Work) -> None:
    scenario = load_scenario(SCENARIOS / "routing.yaml")
    reset(work)
    est = estimate_scenario(scenario, as_of=AS_OF, compare=False)
    assert (work.accountant, work.count_tokens) == (3, 2)  # the run, TTLs none and 1h (5m: the run)
    reset(work)
    estimate_scenario(scenario, as_of=AS_OF)
    assert (work.accountant - 3, work.count_tokens - 2) == (2, 0)  # the baselines: no count, no look-up
    assert est.dynamics is None


PRICES = """\
version: 1
models:
  - id: sonnet-contract
    provider: anthropic
    base: claude-sonnet-4-5
    discount: 50%
    source: a contract
"""


def test_a_routed_model_with_the_same_counting_rules_shares_the_count(work: Work, tmp_path: Path) -> None:
    prices = tmp_path / "prices.yaml"
    prices.write_text(PRICES, encoding="utf-8")
    user_prices = load_user_prices(prices)
    routing = load_scenario(SCENARIOS / "routing.yaml")
    rounds = tuple(replace(r, model="sonnet-contract") if r.model else r for r in routing.rounds)
    scenario = replace(routing, rounds=rounds)
    reset(work)
    est = estimate_scenario(scenario, as_of=AS_OF, user_prices=user_prices)
    assert est.prices.rules_id == est.routed[0][1].prices.rules_id  # both counted as claude-sonnet-4-5
    assert work.count_tokens == 1  # one count for the run and its route
    assert est.dynamics is not None
    [(own, own_usd), (other, other_usd)] = est.dynamics.baselines
    assert (own, other) == ("claude-sonnet-4-5", "sonnet-contract")
    assert other_usd == own_usd / 2  # the same counts at half the price
    assert_baselines_as_full_estimates(est)


def test_per_run_simulation_looks_models_up_once(work: Work) -> None:
    routing = load_scenario(SCENARIOS / "routing.yaml")
    est = estimate_scenario(routing, as_of=AS_OF)
    reset(work)
    engine = PerRunEngine(est)
    cost, *_ = engine.one(routing)
    assert cost == est.total_usd
    assert work.resolve_model == 0  # the routed model was priced by the estimate
    assert work.count_tokens == 2  # the run on Sonnet, and on Haiku for its route
    sim = simulate(est, 3, sensitivity=False, per_run=True)
    assert sim.cost.max == sim.cost.min == est.total_usd
    assert work.resolve_model == 0


# ---------------------------------------------------------------------------------------------
# The baselines are what full estimates of the baseline scenarios give


def assert_baselines_as_full_estimates(est: Estimate) -> None:
    """Each baseline equals the total of a full estimate of its scenario (what they were before)."""
    s, options = est.scenario, est.options

    def total(scenario: Scenario, opts: PricingOptions = options) -> Decimal:
        return estimate_scenario(scenario, options=opts, compare=False).ledger.totals.cost_usd

    if not est.routed and not has_parallel_calls(s):
        assert est.dynamics is None
        return
    assert est.dynamics is not None
    assert est.dynamics.cost_usd == est.ledger.totals.cost_usd
    sequential = total(sequential_equivalent(s)) if has_parallel_calls(s) else None
    assert est.dynamics.sequential_usd == sequential
    expected = []
    if est.routed:
        own = options.model if options.model is not None else s.model
        expected.append((own, total(without_routing(s))))
        expected.extend(
            (name, total(without_routing(s), replace(options, model=name))) for name, _ in est.routed
        )
    assert list(est.dynamics.baselines) == expected


def routed(scenario: Scenario, model: str, every: int = 2, parallel: bool = False) -> Scenario:
    """Every ``every``-th round on ``model``; with ``parallel``, each routed round's calls made twice
    in one response."""
    rounds: list[Round] = []
    for i, r in enumerate(scenario.rounds):
        if i % every == 1:
            r = replace(r, model=model, calls=r.calls * 2 if parallel else r.calls)
        rounds.append(r)
    return replace(scenario, rounds=tuple(rounds))


VARIANTS = [
    (path, model, parallel)
    for path in SHIPPED
    if path.name != "uncertain-steps.yaml"  # its unrolled rounds are routed like any others below
    for model, parallel in (("claude-haiku-4-5", False), ("gpt-5.4-mini", True))  # with tool search
]


@pytest.mark.parametrize(
    ("path", "model", "parallel"), VARIANTS, ids=[f"{p.stem}-{m}" for p, m, _ in VARIANTS]
)
def test_baselines_equal_full_estimates(path: Path, model: str, parallel: bool) -> None:
    scenario = load_scenario(path)
    assert_baselines_as_full_estimates(estimate_scenario(scenario, as_of=AS_OF))
    variant = routed(scenario, model, parallel=parallel)
    est = estimate_scenario(variant, as_of=AS_OF)
    assert (model in [name for name, _ in est.routed]) == (model != scenario.model)  # chat-support: Haiku
    assert est.dynamics is not None or not (est.routed or has_parallel_calls(variant))
    assert_baselines_as_full_estimates(est)
    on_other = PricingOptions(AS_OF, model="claude-opus-4-5", service_tier="batch")
    assert_baselines_as_full_estimates(estimate_scenario(variant, options=on_other))


def test_baselines_of_an_uncertain_scenario_at_its_medians() -> None:
    scenario = routed(load_scenario(SCENARIOS / "uncertain-steps.yaml"), "claude-haiku-4-5", 3, True)
    assert_baselines_as_full_estimates(estimate_scenario(scenario, as_of=AS_OF))


# ---------------------------------------------------------------------------------------------
# The options, carried by the estimate


def test_the_estimate_carries_its_options(tmp_path: Path) -> None:
    scenario = load_scenario(SCENARIOS / "bugfix.yaml")
    est = estimate_scenario(scenario, as_of=AS_OF, model="gpt-5", service_tier="flex")
    assert est.options == PricingOptions(AS_OF, service_tier="flex", model="gpt-5")
    again = estimate_scenario(scenario, options=est.options)
    assert again.total_usd == est.total_usd and again.options == est.options
    # levers and runs are priced the same way with nothing passed again
    for lever in explain(est).levers:
        assert lever.scenario is not None
        assert lever.cost_usd == estimate_scenario(lever.scenario, options=est.options).total_usd
    assert simulate(est, 2, sensitivity=False).deterministic_usd == est.total_usd
    # subagents: the same date and price file, never the parent's model or tier
    assert est.options.for_subagent() == PricingOptions(AS_OF)


def test_subagents_carry_the_options_they_were_priced_with() -> None:
    est = estimate_scenario(
        load_scenario(SCENARIOS / "subagent-research.yaml"), as_of=AS_OF, service_tier="batch"
    )
    assert est.subagents
    assert {sub.options for sub in est.subagents.values()} == {PricingOptions(AS_OF)}


def test_options_or_keywords_not_both() -> None:
    scenario = load_scenario(SCENARIOS / "bugfix.yaml")
    with pytest.raises(TypeError, match="not both"):
        estimate_scenario(scenario, options=PricingOptions(AS_OF), model="gpt-5")
    with pytest.raises(TypeError, match="needs options or as_of"):
        estimate_scenario(scenario)


# ---------------------------------------------------------------------------------------------
# Neutral keys in the library, flags on the command line


def test_library_errors_name_options_by_neutral_keys() -> None:
    scenario = load_scenario(SCENARIOS / "bugfix.yaml")
    with pytest.raises(InputError) as caught:
        parse_as_of("soon")
    assert (caught.value.key, caught.value.file) == ("as_of", None)
    with pytest.raises(InputError) as caught:
        estimate_scenario(scenario, as_of=AS_OF, model=" ")
    assert (caught.value.key, caught.value.file) == ("model", None)
    with pytest.raises(InputError) as caught:
        estimate_scenario(scenario, as_of=AS_OF, model="gpt-5x")
    assert str(caught.value).startswith("model: unknown model 'gpt-5x'")
    with pytest.raises(InputError) as caught:
        estimate_scenario(scenario, as_of=AS_OF, model="gpt-5-nano", service_tier="priority")
    assert str(caught.value).startswith("service_tier: gpt-5-nano does not offer the priority service tier")


def test_the_cli_words_neutral_keys_as_its_flags() -> None:
    options = ("as_of", "model", "output")
    assert str(flagged(InputError("bad", key="as_of"), options)) == "--as-of: bad"
    assert str(flagged(InputError("bad", key="model", hint="h"), options)) == "--model: bad (h)"
    # a key of a file (a scenario's model: line) is not the option
    located = InputError("bad", file="s.yaml", line=2, key="model")
    assert flagged(located, options) is located
    # an option the command does not have keeps its key (prices MODEL is an argument)
    assert str(flagged(InputError("bad", key="service_tier"), options)) == "service_tier: bad"
    # --output names its file
    assert (
        str(flagged(InputError("exists", file="o.yaml", key="output"), options)) == "o.yaml: --output: exists"
    )


def test_cli_lines_name_the_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bugfix = str(SCENARIOS / "bugfix.yaml")
    cases = [
        (["estimate", bugfix, "--as-of", "soon"], "--as-of: not a usable date: 'soon'"),
        (["estimate", bugfix, "--model", "gpt-5x"], "--model: unknown model 'gpt-5x'"),
        (
            ["estimate", bugfix, "--model", "gpt-5-nano", "--service-tier", "priority"],
            "--service-tier: gpt-5-nano does not offer the priority service tier",
        ),
        (["estimate", bugfix, "--simulate", "0"], "--simulate: must be from 1 to 10,000,000 runs"),
        (["diff", bugfix, bugfix, "--as-of", "soon"], "--as-of: not a usable date"),
        (["prices", "gpt-5x"], "model: unknown model 'gpt-5x'"),
        (["prices", "gpt-5-nano", "--service-tier", "priority"], "--service-tier: gpt-5-nano does not"),
    ]
    trace = tmp_path / "run.traj"
    trace.write_bytes(next((ROOT / "tests" / "data" / "swe-agent").glob("*.traj")).read_bytes())
    calibrate = ["calibrate", str(trace), "--model", "gpt-4o", "--as-of", "2026-11-30"]
    cases.append(([*calibrate, "-o", str(trace), "--force"], f"{trace}: --output: refusing to write over"))
    for argv, start in cases:
        assert run(argv) == 2, argv
        assert capsys.readouterr().err.startswith(f"agentcost: error: {start}"), argv
