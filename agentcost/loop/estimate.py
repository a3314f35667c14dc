"""The pipeline: scenario file -> scenario -> token counts -> ledger, with the assumptions it used.

This is the library entry point (``agentcost.loop.estimate``); the CLI calls it like any other caller.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING

from agentcost.errors import InputError
from agentcost.loop.accountant import (
    TTL_SECONDS,
    CachePolicy,
    Ledger,
    Pricer,
    RequestCost,
    RequestUsage,
    Route,
    TtlOption,
    request_gaps,
    run_accountant,
    ttl_options,
)
from agentcost.loop.context import (
    ContextEditingEffect,
    ToolSearchEffect,
    context_editing_effect,
    tool_search_effect,
)
from agentcost.prices.model import ModelPrices, Usage
from agentcost.scenario.model import CacheTTL, CachingMode, Scenario
from agentcost.tokens.counts import TokenCounts

if TYPE_CHECKING:
    from agentcost.prices.user import UserPrices

DEFAULT_CACHING: dict[str, CachingMode] = {
    # Anthropic: agents (Claude Code, the Agent SDK, automatic caching) put a breakpoint on the last
    # message of every request; an agent that sets no cache_control should say `caching: none`.
    "anthropic": "conversation",
    # OpenAI caches every prompt prefix of 1,024+ tokens automatically.
    "openai": "conversation",
    # Gemini's implicit caching gives "no cost saving guarantee": assume none unless the scenario asks.
    "google": "none",
}

# OpenAI's prompt-caching guide: cache hits "in increments of 128 tokens" past the first 1,024
# (pricing-facts.md §B.2, older guide; the current page no longer says so, so this is conservative).
OPENAI_CACHE_INCREMENT = 128

# OpenAI's in-memory prompt cache is kept "5-10 min idle, up to 1 h" (pricing-facts.md §B.2,
# retention): the short end is assumed, so a pause over 5 minutes loses the cache. Gemini implicit
# caching publishes no retention at all (§B.3); it is assumed to behave like OpenAI's.
AUTOMATIC_IDLE_SECONDS = 300

# Gemini explicit caches: "default TTL 1 hour" (pricing-facts.md §B.3, G-CACHE).
GEMINI_EXPLICIT_TTL_SECONDS = 3_600


@dataclass(frozen=True)
class Budget:
    limit_usd: Decimal
    source: str  # "--budget" or "limits.budget_usd"


@dataclass(frozen=True)
class Estimate:
    scenario: Scenario
    prices: ModelPrices
    counts: TokenCounts
    ledger: Ledger
    caching_is_default: bool
    budget: Budget | None
    ttl_comparison: tuple[TtlOption, ...] = ()  # none / 5m / 1h costs for the pacing (Anthropic)
    # the subagents the run starts, by (round index, call index), 0-based (agentcost.loop.subagents)
    subagents: Mapping[tuple[int, int], Estimate] = field(default_factory=dict)
    context_editing: ContextEditingEffect | None = None  # clearing old tool results vs not clearing
    tool_search: ToolSearchEffect | None = None  # deferred tools vs every tool loaded up front
    dynamics: DynamicsEffect | None = None  # parallel calls and routing vs their baselines

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


def cache_policy(scenario: Scenario, prices: ModelPrices) -> tuple[CachePolicy, bool]:
    """The cache policy for this scenario and model, and whether the mode is the provider default.

    Entries expire after their TTL unused: Anthropic's ``cache_ttl`` (5 min or 1 h, refreshed on every
    hit; ``{prefix: 1h, conversation: 5m}`` gives the prefix breakpoint its own TTL); OpenAI and
    Gemini implicit caching :data:`AUTOMATIC_IDLE_SECONDS`. ``caching: explicit``
    (Gemini only) stores the stable prefix in a Gemini explicit cache with Google's default TTL, 1 h.
    """
    from agentcost.facts import gemini_cache_storage_usd_per_mtok_hour, min_cacheable_tokens

    provider = prices.provider
    mode = scenario.caching if scenario.caching is not None else DEFAULT_CACHING[provider]
    if scenario.prefix_cache_ttl is not None and provider != "anthropic":
        raise InputError(
            f"cache_ttl: {{prefix, conversation}} sets Anthropic cache breakpoints; {prices.model_id} is a "
            f"{provider} model",
            file=scenario.path,
            key="cache_ttl",
            hint="give one TTL (5m or 1h)",
        )
    minimum = min_cacheable_tokens(provider, prices.rules_id).value  # a user model: its base's
    if mode == "explicit":
        if provider != "google":
            raise InputError(
                f"caching: explicit is Gemini's explicit context caching; {prices.model_id} is a "
                f"{provider} model",
                file=scenario.path,
                key="caching",
                hint="use prefix or conversation (Anthropic breakpoints, OpenAI automatic caching)",
            )
        storage = gemini_cache_storage_usd_per_mtok_hour(prices.rules_id, prices.source.as_of.date())
        if storage is None:
            raise InputError(
                f"no explicit-cache storage price is known for {prices.model_id}",
                file=scenario.path,
                key="caching",
                hint="use prefix or conversation (Gemini implicit caching), or none",
            )
        policy = CachePolicy(
            mode=mode,
            style="stored",
            min_tokens=minimum,
            ttl="1h",
            ttl_seconds=GEMINI_EXPLICIT_TTL_SECONDS,
            bills_writes=False,
            storage_usd_per_mtok_hour=storage.value,
        )
    elif provider == "anthropic":
        policy = CachePolicy(
            mode=mode,
            style="explicit",
            min_tokens=minimum,
            ttl=scenario.cache_ttl,
            ttl_seconds=TTL_SECONDS[scenario.cache_ttl],
            prefix_ttl=scenario.prefix_cache_ttl,
        )
    else:
        policy = CachePolicy(
            mode=mode,
            style="automatic",
            min_tokens=minimum,
            increment=OPENAI_CACHE_INCREMENT if provider == "openai" else 1,
            bills_writes=prices.cache_write_mtok is not None,
            ttl_seconds=AUTOMATIC_IDLE_SECONDS,
        )
    return policy, scenario.caching is None


def ttl_comparison(
    scenario: Scenario, prices: ModelPrices, counts: TokenCounts, policy: CachePolicy, pricer: Pricer
) -> tuple[TtlOption, ...]:
    """No caching vs 5-minute vs 1-hour cache entries for this scenario's pacing (Anthropic only;
    ``()`` elsewhere). 1 h is left out where the model has no 1-hour write price."""
    if policy.style != "explicit":
        return ()
    ttls: tuple[CacheTTL, ...] = ("5m", "1h") if prices.cache_write_1h_mtok is not None else ("5m",)
    return ttl_options(
        counts,
        pricer,
        policy,
        ttls=ttls,
        max_rounds=scenario.limits.max_rounds,
        gaps=request_gaps(scenario),
        max_budget_usd=scenario.limits.max_budget_usd,
    )


# Server tools -> their genai-prices usage key (None: genai-prices has no such key).
_SERVER_TOOL_USAGE_KEYS: dict[str, str | None] = {
    "web_search": "web_searches",
    "web_fetch": None,
    "code_execution": "code_executions",
}


def pricer_for(prices: ModelPrices) -> Pricer:
    """Adapt the catalog's ``cost`` to the accountant's ``Pricer`` signature.

    Server-tool uses are priced by genai-prices where the model has a rate for them
    (``web_searches_kcount``, ``code_executions_kcount``), otherwise from facts.yaml
    ``server_tool_fees`` (web fetch $0, Anthropic code execution $0 per use, OpenAI code
    interpreter $0.03 per response...). Fees are part of ``total_usd`` and shown as ``fees_usd``,
    never of ``input_usd``/``output_usd``.
    """
    from agentcost import facts

    try:
        priced = {rate.key for rate in prices.rates()}
    except RuntimeError:  # no genai-prices price object (a user model): facts.yaml prices every tool
        priced = set()
    own: dict[str, Decimal] = {}  # tool -> USD per 1,000 uses, for tools genai-prices does not price
    for tool, key in _SERVER_TOOL_USAGE_KEYS.items():
        if key is None or f"{key}_kcount" not in priced:
            fee = facts.server_tool_fee(prices.provider, prices.rules_id, tool)
            own[tool] = fee.value.usd_per_1000 if fee is not None else Decimal(0)

    def price(usage: RequestUsage) -> RequestCost:
        uses = {
            "web_search": usage.web_searches,
            "web_fetch": usage.web_fetches,
            "code_execution": usage.code_executions,
        }
        cost = prices.cost(
            Usage(
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                cache_read_tokens=usage.cache_read_tokens,
                cache_write_tokens=usage.cache_write_tokens,
                cache_write_1h_tokens=usage.cache_write_1h_tokens,
                web_searches=0 if "web_search" in own else usage.web_searches,
                code_executions=0 if "code_execution" in own else usage.code_executions,
            )
        )
        # genai-prices puts per-use fees in total_price only (they have no input/output direction)
        fees = cost.total_usd - cost.input_usd - cost.output_usd
        fees += sum((own[t] * n / 1000 for t, n in uses.items() if n and t in own), Decimal(0))
        return RequestCost(cost.input_usd, cost.output_usd, cost.input_usd + cost.output_usd + fees, fees)

    return price


def today() -> datetime:
    """The default ``--as-of``: the start of today (UTC). Prices are dated by day (genai-prices'
    price changes start on a date), so the whole day prices alike and its runs print alike."""
    now = datetime.now(tz=UTC)
    return datetime(now.year, now.month, now.day, tzinfo=UTC)


def parse_as_of(value: str | None) -> datetime:
    """``--as-of``: an ISO date or datetime (UTC when no zone is given); default :func:`today`."""
    if value is None:
        return today()
    try:
        parsed = datetime.fromisoformat(value)
        return parsed.astimezone(UTC) if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)
    except (ValueError, OverflowError):  # OverflowError: a zone offset pushes it past year 1..9999
        raise InputError(
            f"not a usable date: {value!r}", key="--as-of", hint="use an ISO date such as 2026-11-30"
        ) from None


def estimate_scenario(
    scenario: Scenario,
    *,
    as_of: datetime,
    model: str | None = None,
    budget_usd: Decimal | None = None,
    service_tier: str | None = None,
    user_prices: UserPrices | None = None,
    compare: bool = True,
) -> Estimate:
    """Estimate an already-loaded scenario. ``model`` overrides the scenario's model, ``service_tier``
    (``--service-tier``) its ``service_tier``; ``user_prices`` is a loaded ``--prices`` file.
    ``compare``: also re-estimate the baselines of parallel calls and routing (``Estimate.dynamics``)."""
    from agentcost.prices.lookup import resolve_model
    from agentcost.tokens.count import count_tokens

    if model is not None and not model.strip():
        raise InputError("must name a model", key="--model", hint="e.g. --model gpt-5")
    try:
        prices = resolve_model(
            model if model is not None else scenario.model,
            provider=None if model is not None else scenario.provider,
            as_of=as_of,
            service_tier=service_tier if service_tier is not None else scenario.service_tier,
            user_prices=user_prices,
        )
    except InputError as err:
        if err.key == "service_tier":
            raise _service_tier_error(err, scenario, service_tier is not None) from None
        if model is not None:  # the option, not the scenario's model: key, is what to fix
            raise InputError(err.message, key="--model", hint=err.hint) from None
        setter = _override_of(scenario, "model")
        if setter is not None:  # the model came from --set model=..., so point there
            from agentcost.scenario.load import OverrideError

            raise OverrideError(
                err.message, file=scenario.path, override=setter, key="model", hint=err.hint
            ) from None
        raise err.located(file=scenario.path, line=scenario.model_line, key="model") from None
    counts = count_tokens(scenario, provider=prices.provider, model_id=prices.rules_id)
    counts = replace(counts, routes=model_routes(scenario, prices, as_of, service_tier, user_prices))
    policy, is_default = cache_policy(scenario, prices)
    pricer = pricer_for(prices)

    def rerun(other: TokenCounts) -> Ledger:  # the run on these counts (baselines: on others), same stops
        return run_accountant(
            other,
            pricer,
            policy,
            max_rounds=scenario.limits.max_rounds,
            gaps=request_gaps(scenario),
            max_budget_usd=scenario.limits.max_budget_usd,
        )

    ledger = rerun(counts)
    ttls = ttl_comparison(scenario, prices, counts, policy, pricer)
    editing = context_editing_effect(counts, ledger, rerun)
    searching = tool_search_effect(
        scenario,
        counts,
        ledger,
        lambda other: count_tokens(other, provider=prices.provider, model_id=prices.rules_id),
        rerun,
    )
    budget: Budget | None = None
    if budget_usd is not None:
        budget = Budget(budget_usd, "--budget")
    elif scenario.limits.budget_usd is not None:
        setter = _override_of(scenario, "limits.budget_usd")
        budget = Budget(scenario.limits.budget_usd, f"--set {setter}" if setter else "limits.budget_usd")
    subagents: Mapping[tuple[int, int], Estimate] = {}
    # agentcost.loop.subagents (and the YAML loader it needs) only when the scenario has subagents
    if any(call.subagent is not None for round_ in scenario.rounds for call in round_.calls):
        from agentcost.loop.subagents import estimate_subagents

        # each on its own model, with the same date and price file
        subagents = estimate_subagents(
            scenario,
            ledger.rounds_run,
            lambda sub: estimate_scenario(sub, as_of=as_of, user_prices=user_prices),
        )
    return Estimate(
        scenario,
        prices,
        counts,
        ledger,
        is_default,
        budget,
        ttls,
        subagents,
        context_editing=editing,
        tool_search=searching,
        dynamics=(
            dynamics_effect(
                scenario,
                ledger.totals.cost_usd,
                routed=tuple(name for name, _ in counts.routes),
                as_of=as_of,
                model=model,
                service_tier=service_tier,
                user_prices=user_prices,
            )
            if compare
            else None
        ),
    )


def _service_tier_error(err: InputError, scenario: Scenario, from_option: bool) -> InputError:
    """A tier the model does not offer: point at --service-tier, --set service_tier=... or the line."""
    if from_option:
        return InputError(err.message, key="--service-tier", hint=err.hint)
    setter = _override_of(scenario, "service_tier")
    if setter is not None:
        from agentcost.scenario.load import OverrideError

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
    from agentcost.scenario.cache import load_scenario  # the validated scenario, cached on disk

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
# Agent dynamics: routing and the baselines of parallel calls and routing (agentcost.tokens.dynamics)


@dataclass(frozen=True)
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


def model_routes(
    scenario: Scenario,
    prices: ModelPrices,
    as_of: datetime,
    service_tier: str | None,
    user_prices: UserPrices | None,
) -> tuple[tuple[str, Route], ...]:
    """A route for every model rounds name (a model that resolves to the run's own needs none)."""
    from agentcost.prices.lookup import resolve_model
    from agentcost.tokens.count import count_tokens
    from agentcost.tokens.dynamics import routed_models

    routes: list[tuple[str, Route]] = []
    for name in routed_models(scenario):
        line = next((r.line for r in scenario.rounds if r.model == name), None)
        try:
            other = resolve_model(
                name,
                as_of=as_of,
                service_tier=service_tier if service_tier is not None else scenario.service_tier,
                user_prices=user_prices,
            )
        except InputError as err:
            raise err.located(file=scenario.path, line=line, key="model") from None
        if other.model_id == prices.model_id:
            continue
        counts = count_tokens(scenario, provider=other.provider, model_id=other.rules_id)
        policy, _ = cache_policy(scenario, other)
        if policy.style == "stored":
            raise InputError(
                "routing is not modelled with caching: explicit (Gemini explicit caches)",
                file=scenario.path,
                line=line,
                key="model",
                hint="use caching: conversation or prefix, or remove the round's model",
            )
        routes.append((name, Route(counts, pricer_for(other), policy)))
    return tuple(routes)


def dynamics_effect(
    scenario: Scenario,
    cost_usd: Decimal,
    *,
    routed: tuple[str, ...],
    as_of: datetime,
    model: str | None,
    service_tier: str | None,
    user_prices: UserPrices | None,
) -> DynamicsEffect | None:
    """Re-estimate the scenario with its parallel batches made one call per round, and with every
    request on one model (the scenario's, then each of the ``routed`` models: those with a route).
    None: neither applies."""
    from agentcost.tokens.dynamics import has_parallel_calls, sequential_equivalent, without_routing

    if not routed and not has_parallel_calls(scenario):
        return None

    def cost(other: Scenario, on: str | None = model) -> Decimal:
        again = estimate_scenario(
            other, as_of=as_of, model=on, service_tier=service_tier, user_prices=user_prices, compare=False
        )
        return again.ledger.totals.cost_usd

    sequential = cost(sequential_equivalent(scenario)) if has_parallel_calls(scenario) else None
    baselines: list[tuple[str, Decimal]] = []
    if routed:
        own = model if model is not None else scenario.model
        baselines.append((own, cost(without_routing(scenario))))
        baselines.extend((name, cost(without_routing(scenario), name)) for name in routed)
    return DynamicsEffect(cost_usd, sequential, tuple(baselines))
