"""The pipeline: scenario file -> scenario -> token counts -> ledger, with the assumptions it used.

This is the library entry point (``agentcost.loop.estimate``); the CLI calls it like any other caller.
An estimate carries the options it was priced with (:class:`~agentcost.loop.options.PricingOptions`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import field, replace
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING

from agentcost.errors import InputError
from agentcost.infra.record import record
from agentcost.loop.accountant import (
    Ledger,
    SubagentRun,
    TtlOption,
    request_gaps,
    run_accountant,
)
from agentcost.loop.caching import (
    cache_policy,
    caching_plan,
    pricer_for,
    ttl_comparison,
)
from agentcost.loop.context import (
    ContextEditingEffect,
    ToolSearchEffect,
    context_editing_effect,
    tool_search_effect,
)
from agentcost.loop.options import PricingOptions, today
from agentcost.prices.pricing import ModelPrices
from agentcost.scenario.model import Scenario
from agentcost.tokens.counts import Route, TokenCounts
from agentcost.tokens.request import CachePolicy, Pricer

if TYPE_CHECKING:
    from agentcost.loop.subagents import SubagentRuns
    from agentcost.prices.user import UserPrices


@record
class Budget:
    """The budget an estimate is checked against, and where it was set."""

    limit_usd: Decimal
    source: str  # "--budget" or "limits.budget_usd"


@record
class Estimate:
    """An estimate: the scenario, its prices, its token counts and the ledger, with what shaped them."""

    scenario: Scenario
    prices: ModelPrices
    counts: TokenCounts
    ledger: Ledger
    caching_is_default: bool
    budget: Budget | None
    options: PricingOptions  # how it was priced: what re-estimating it (levers, runs) must reuse
    ttl_comparison: tuple[TtlOption, ...] = ()  # none / 5m / 1h costs for the pacing (Anthropic)
    # the subagents the run starts, by (round index, call index), 0-based (agentcost.loop.subagents)
    subagents: Mapping[tuple[int, int], Estimate] = field(default_factory=dict)
    context_editing: ContextEditingEffect | None = None  # clearing old tool results vs not clearing
    tool_search: ToolSearchEffect | None = None  # deferred tools vs every tool loaded up front
    dynamics: DynamicsEffect | None = None  # parallel calls and routing vs their baselines
    # routing: the models rounds name, priced (the run's own model left out), in first-use order
    routed: tuple[tuple[str, PricedModel], ...] = field(default=(), repr=False, compare=False)
    # one line where the host's caching is not (fully) modelled (CachingPlan.note), else None
    caching_note: str | None = None

    @property
    def subagents_usd(self) -> Decimal:
        """What the subagents cost (theirs and their own subagents'), on top of this run's ledger."""
        return sum((sub.total_usd for sub in self.subagents.values()), Decimal(0))

    @property
    def total_usd(self) -> Decimal:
        """This run's ledger plus all its subagents: what the task costs."""
        return self.ledger.totals.cost_usd + self.subagents_usd

    @property
    def over_budget(self) -> bool:
        return self.budget is not None and self.total_usd > self.budget.limit_usd


def estimate_scenario(
    scenario: Scenario,
    *,
    options: PricingOptions | None = None,
    as_of: datetime | None = None,
    model: str | None = None,
    budget_usd: Decimal | None = None,
    service_tier: str | None = None,
    user_prices: UserPrices | None = None,
    compare: bool = True,
    budget_left: Decimal | None = None,
    at_time: bool | None = None,
) -> Estimate:
    """Estimate an already-loaded scenario, priced as ``options`` say, or as the keyword arguments
    say (``as_of``; ``model`` overrides the scenario's model, ``service_tier`` its ``service_tier``;
    ``user_prices`` is a loaded price file). ``budget_usd`` replaces the scenario's budget.
    ``compare``: also price the baselines of parallel calls and routing (``Estimate.dynamics``).
    ``budget_left``: a subagent's run stops once it has spent more than this (its parent's budget left
    when it starts; ``run_accountant``). ``at_time``: :attr:`PricingOptions.at_time`."""
    opts = _options(options, as_of, model, service_tier, user_prices, at_time)
    prices = _resolve(scenario, opts)
    count = counter(scenario)
    counts = count(prices)
    routed, routes = _routes(scenario, prices, opts, count)
    counts = replace(counts, routes=routes)
    policy, is_default = cache_policy(scenario, prices)
    own = PricedModel(prices, pricer_for(prices), policy)

    runs: Callable[[], SubagentRuns[Estimate]] | None = None  # the subagents, run inside the ledger
    if any(c.subagent for r in scenario.rounds for c in r.calls) and (
        scenario.limits.max_budget_usd is not None or budget_left is not None
    ):
        from agentcost.loop.subagents import SubagentRuns

        whole: dict[int, Estimate] = {}  # each subagent uncapped, estimated once for every run
        runs = lambda: SubagentRuns(  # noqa: E731 -- on its own model, with the same date and price file
            scenario,
            lambda sub, left: estimate_scenario(
                sub, options=opts.for_subagent(), compare=compare, budget_left=left
            ),
            lambda sub: sub.ledger.spent_usd,
            whole,
        )

    def again() -> Mapping[int, Sequence[tuple[int, SubagentRun]]] | None:  # the same subagents, again
        return None if runs is None else runs().by_round()

    def rerun(other: TokenCounts) -> Ledger:  # the run on these counts (baselines: on others), same stops
        return run_ledger(scenario, other, own, subagents=again(), budget_left=budget_left)

    main = None if runs is None else runs()
    ledger = run_ledger(
        scenario, counts, own, subagents=None if main is None else main.by_round(), budget_left=budget_left
    )
    capped = None if main is None else main.started
    # without subagents inside the ledger, the option of the run's own policy is the ledger itself
    ran = None if main is not None else (policy, ledger.totals.cost_usd, ledger.totals.cache_expiries)
    ttls = ttl_comparison(
        scenario, prices, counts, policy, own.pricer, subagents=again(), budget_left=budget_left, ran=ran
    )
    editing = context_editing_effect(counts, ledger, rerun)

    def recount(other: Scenario) -> TokenCounts:
        from agentcost.tokens.count import count_tokens

        return count_tokens(other, provider=prices.provider, model_id=prices.rules_id)

    searching = tool_search_effect(scenario, counts, ledger, recount, rerun)
    budget: Budget | None = None
    if budget_usd is not None:
        budget = Budget(budget_usd, "--budget")
    elif scenario.limits.budget_usd is not None:
        setter = _override_of(scenario, "limits.budget_usd")
        budget = Budget(scenario.limits.budget_usd, f"--set {setter}" if setter else "limits.budget_usd")
    subagents: Mapping[tuple[int, int], Estimate] = {}
    # agentcost.loop.subagents (and the YAML loader it needs) only when the scenario has subagents
    if capped is not None:
        subagents = capped
    elif any(c.subagent for r in scenario.rounds for c in r.calls):
        from agentcost.loop.subagents import estimate_subagents

        subagents = estimate_subagents(  # each on its own model, with the same date and price file
            scenario,
            ledger.rounds_run,
            lambda sub: estimate_scenario(sub, options=opts.for_subagent()),
        )
    return Estimate(
        scenario,
        prices,
        counts,
        ledger,
        is_default,
        budget,
        opts,
        ttls,
        subagents,
        context_editing=editing,
        tool_search=searching,
        dynamics=dynamics_effect(scenario, counts, ledger, own, routed, opts) if compare else None,
        routed=routed,
        caching_note=caching_plan(scenario, prices).note,
    )


def _options(
    options: PricingOptions | None,
    as_of: datetime | None,
    model: str | None,
    service_tier: str | None,
    user_prices: UserPrices | None,
    at_time: bool | None = None,
) -> PricingOptions:
    """``options``, or the options the keyword arguments give (one or the other)."""
    if options is not None:
        if any(v is not None for v in (as_of, model, service_tier, user_prices, at_time)):
            raise TypeError("give options, or as_of, model, service_tier and user_prices, not both")
        return options
    if as_of is None:
        raise TypeError("estimate_scenario needs options or as_of")
    return PricingOptions(
        as_of, service_tier=service_tier, user_prices=user_prices, model=model, at_time=at_time
    )


def _resolve(scenario: Scenario, options: PricingOptions) -> ModelPrices:
    """The prices of the model the run is on: ``options.model``, else the scenario's. An error points
    at the option (neutral keys: ``model``, ``service_tier``), a ``--set`` override or the line."""
    from agentcost.prices.lookup import resolve_model, unquoted

    model, service_tier = options.model, options.service_tier
    if model is not None and not model.strip():
        raise InputError("must name a model", key="model", hint="e.g. --model gpt-5")
    try:
        return resolve_model(
            model if model is not None else scenario.model,
            provider=None if model is not None else scenario.provider,
            as_of=options.as_of,
            service_tier=service_tier if service_tier is not None else scenario.service_tier,
            user_prices=options.user_prices,
            at_time=options.at_time,
        )
    except InputError as err:
        if err.key == "service_tier":
            raise _service_tier_error(err, scenario, service_tier is not None) from None
        if model is not None:  # the option, not the scenario's model: key, is what to fix
            raise InputError(err.message, key="model", hint=err.hint) from None
        setter = _override_of(scenario, "model")
        if setter is not None:  # the model came from --set model=..., so point there
            from agentcost.infra.doc import OverrideError

            raise OverrideError(
                err.message, file=scenario.path, override=setter, key="model", hint=err.hint
            ) from None
        err = err.located(file=scenario.path, line=scenario.model_line, key="model")
        raise (err if scenario.quotes else unquoted(err)) from None


def _service_tier_error(err: InputError, scenario: Scenario, from_option: bool) -> InputError:
    """A tier the model does not offer: point at the option, --set service_tier=... or the line."""
    if from_option:
        return InputError(err.message, key="service_tier", hint=err.hint)
    setter = _override_of(scenario, "service_tier")
    if setter is not None:
        from agentcost.infra.doc import OverrideError

        return OverrideError(
            err.message, file=scenario.path, override=setter, key="service_tier", hint=err.hint
        )
    return InputError(
        err.message, file=scenario.path, line=scenario.service_tier_line, key="service_tier", hint=err.hint
    )


def _override_of(scenario: Scenario, key: str) -> str | None:
    """The last ``--set`` override that set ``key``, if one did (its text, e.g. ``model=gpt-5``)."""
    for text in reversed(scenario.overrides):
        if text.partition("=")[0].strip() == key:
            return text
    return None


def estimate(
    path: Path | str,
    *,
    as_of: datetime | None = None,
    model: str | None = None,
    budget_usd: Decimal | None = None,
    overrides: Sequence[str] = (),
    service_tier: str | None = None,
    user_prices: UserPrices | None = None,
) -> Estimate:
    """Load a scenario file (with ``--set`` overrides) and estimate it: the library's main entry point.

    ``user_prices``: a price file loaded with :func:`agentcost.prices.user.load_user_prices`.
    """
    from agentcost.scenario.load import read_scenario as load_scenario

    scenario = load_scenario(path, overrides=overrides)
    return estimate_scenario(
        scenario,
        as_of=as_of if as_of is not None else today(),
        model=model,
        budget_usd=budget_usd,
        service_tier=service_tier,
        user_prices=user_prices,
    )


# ---------------------------------------------------------------------------------------------
# Models, counts and ledgers, each made once and shared by the run and its baselines


@record
class PricedModel:
    """A model requests run on: its prices, and its pricer and cache policy for the scenario."""

    prices: ModelPrices
    pricer: Pricer
    policy: CachePolicy


Counter = Callable[[ModelPrices], TokenCounts]
"""The token counts of one scenario under a model's counting rules (:func:`counter`)."""


def counter(scenario: Scenario) -> Counter:
    """Counts ``scenario`` for a model, once per counting scheme: models with the same provider and
    rules id (a model and a ``--prices`` model based on it...) share one count."""
    from agentcost.tokens.count import count_tokens

    made: dict[tuple[str, str], TokenCounts] = {}

    def count(prices: ModelPrices) -> TokenCounts:
        key = (prices.provider, prices.rules_id)
        if key not in made:
            made[key] = count_tokens(scenario, provider=prices.provider, model_id=prices.rules_id)
        return made[key]

    return count


def run_ledger(
    scenario: Scenario,
    counts: TokenCounts,
    model: PricedModel,
    *,
    subagents: Mapping[int, Sequence[tuple[int, SubagentRun]]] | None = None,
    budget_left: Decimal | None = None,
) -> Ledger:
    """The accountant's run of ``counts`` on ``model``, with the scenario's pacing and stops
    (``subagents``, ``budget_left``: as ``run_accountant`` takes them)."""
    return run_accountant(
        counts,
        model.pricer,
        model.policy,
        max_rounds=scenario.limits.max_rounds,
        gaps=request_gaps(scenario),
        max_budget_usd=scenario.limits.max_budget_usd,
        subagents=subagents,
        budget_left=budget_left,
    )


# ---------------------------------------------------------------------------------------------
# Agent dynamics: routing and the baselines of parallel calls and routing (agentcost.tokens.dynamics)


@record
class DynamicsEffect:
    """Parallel calls and routing against their baselines (this run's ledger, subagents excluded).

    ``sequential_usd``: the same calls made one per round (None: no parallel batch).
    ``baselines``: (model, cost) with every request on that model -- the scenario's model first, then
    each routed model (empty: no routing).
    """

    cost_usd: Decimal
    sequential_usd: Decimal | None = None
    baselines: tuple[tuple[str, Decimal], ...] = ()

    @property
    def parallel_saving_usd(self) -> Decimal | None:
        return None if self.sequential_usd is None else self.sequential_usd - self.cost_usd


def _routes(
    scenario: Scenario, prices: ModelPrices, options: PricingOptions, count: Counter
) -> tuple[tuple[tuple[str, PricedModel], ...], tuple[tuple[str, Route], ...]]:
    """The models rounds name, priced (a model that resolves to the run's own needs none), and a
    route for each: the scenario counted with its rules."""
    from agentcost.prices.lookup import resolve_model, unquoted
    from agentcost.tokens.dynamics import routed_models

    tier = options.service_tier if options.service_tier is not None else scenario.service_tier
    routed: list[tuple[str, PricedModel]] = []
    routes: list[tuple[str, Route]] = []
    for name in routed_models(scenario):
        line = next((r.line for r in scenario.rounds if r.model == name), None)
        try:
            other = resolve_model(
                name,
                as_of=options.as_of,
                service_tier=tier,
                user_prices=options.user_prices,
                at_time=options.at_time,
            )
        except InputError as err:
            err = err.located(file=scenario.path, line=line, key="model")
            raise (err if scenario.quotes else unquoted(err)) from None
        if other.model_id == prices.model_id:
            continue
        counts = count(other)
        policy, _ = cache_policy(scenario, other)
        if policy.style == "stored":
            raise InputError(
                "routing is not modelled with caching: explicit (Gemini explicit caches)",
                file=scenario.path,
                line=line,
                key="model",
                hint="use caching: conversation or prefix, or remove the round's model",
            )
        model = PricedModel(other, pricer_for(other), policy)
        routed.append((name, model))
        routes.append((name, Route(counts, model.pricer, model.policy)))
    return tuple(routed), tuple(routes)


def model_routes(
    scenario: Scenario, routed: Sequence[tuple[str, PricedModel]], count: Counter
) -> tuple[tuple[str, Route], ...]:
    """A route for every model the rounds of ``scenario`` name, from models already priced
    (``Estimate.routed`` of a scenario with the same routing, e.g. one run of it)."""
    from agentcost.tokens.dynamics import routed_models

    priced = dict(routed)
    return tuple(
        (name, Route(count(priced[name].prices), priced[name].pricer, priced[name].policy))
        for name in routed_models(scenario)
        if name in priced
    )


def dynamics_effect(
    scenario: Scenario,
    counts: TokenCounts,
    ledger: Ledger,
    own: PricedModel,
    routed: Sequence[tuple[str, PricedModel]],
    options: PricingOptions,
) -> DynamicsEffect | None:
    """The run (``counts`` and ``ledger``, on ``own`` and the ``routed`` models) against the scenario
    with its parallel batches made one call per round, and with every request on one model (the
    scenario's, then each routed model). None: neither applies.

    Only a baseline's ledger total is used, so each is one accountant run on what the run already
    has: its models' prices and cache policies, and its token counts (every request on one model is
    the run's counts, or a route's, with no routes). Only the one-call-per-round scenario is counted
    again, once per counting scheme.
    """
    from agentcost.tokens.dynamics import has_parallel_calls, sequential_equivalent

    cost_usd = ledger.totals.cost_usd
    if not routed and not has_parallel_calls(scenario):
        return None
    sequential = None
    if has_parallel_calls(scenario):
        split = sequential_equivalent(scenario)
        count = counter(split)
        split_counts = replace(count(own.prices), routes=model_routes(split, routed, count))
        sequential = run_ledger(split, split_counts, own).totals.cost_usd
    baselines: list[tuple[str, Decimal]] = []
    if routed:  # a request on a model with no route runs on the counts' own model
        name = options.model if options.model is not None else scenario.model
        baselines.append((name, run_ledger(scenario, replace(counts, routes=()), own).totals.cost_usd))
        on = dict(counts.routes)
        for name, model in routed:
            alone = replace(on[name].counts, routes=())
            baselines.append((name, run_ledger(scenario, alone, model).totals.cost_usd))
    return DynamicsEffect(cost_usd, sequential, tuple(baselines))
