"""The pipeline: scenario file -> scenario -> token counts -> ledger, with the assumptions it used.

This is the library entry point (``agentcost.estimate``); the CLI calls it like any other caller.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

from agentcost.accountant import CachePolicy, Ledger, Pricer, RequestCost, RequestUsage, run_accountant
from agentcost.catalog.prices import ModelPrices, Usage
from agentcost.counts import TokenCounts
from agentcost.errors import InputError
from agentcost.spec import CachingMode, Scenario

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

    @property
    def over_budget(self) -> bool:
        return self.budget is not None and self.ledger.totals.cost_usd > self.budget.limit_usd


def cache_policy(scenario: Scenario, prices: ModelPrices) -> tuple[CachePolicy, bool]:
    """The cache policy for this scenario and model, and whether the mode is the provider default."""
    from agentcost.catalog.facts import min_cacheable_tokens

    provider = prices.provider
    mode = scenario.caching if scenario.caching is not None else DEFAULT_CACHING[provider]
    minimum = min_cacheable_tokens(provider, prices.model_id).value
    if provider == "anthropic":
        policy = CachePolicy(mode=mode, style="explicit", min_tokens=minimum, ttl=scenario.cache_ttl)
    else:
        policy = CachePolicy(
            mode=mode,
            style="automatic",
            min_tokens=minimum,
            increment=OPENAI_CACHE_INCREMENT if provider == "openai" else 1,
            bills_writes=prices.cache_write_mtok is not None,
        )
    return policy, scenario.caching is None


def pricer_for(prices: ModelPrices) -> Pricer:
    """Adapt the catalog's ``cost`` to the accountant's ``Pricer`` signature."""

    def price(usage: RequestUsage) -> RequestCost:
        cost = prices.cost(
            Usage(
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                cache_read_tokens=usage.cache_read_tokens,
                cache_write_tokens=usage.cache_write_tokens,
                cache_write_1h_tokens=usage.cache_write_1h_tokens,
            )
        )
        return RequestCost(cost.input_usd, cost.output_usd, cost.total_usd)

    return price


def parse_as_of(value: str | None) -> datetime:
    """``--as-of``: an ISO date or datetime (UTC when no zone is given); default now."""
    if value is None:
        return datetime.now(tz=UTC)
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
) -> Estimate:
    """Estimate an already-loaded scenario. ``model`` overrides the scenario's model."""
    from agentcost.catalog.prices import resolve_model
    from agentcost.tokens import count_tokens

    if model is not None and not model.strip():
        raise InputError("must name a model", key="--model", hint="e.g. --model gpt-5")
    try:
        prices = resolve_model(
            model if model is not None else scenario.model,
            provider=None if model is not None else scenario.provider,
            as_of=as_of,
        )
    except InputError as err:
        if model is not None:  # the option, not the scenario's model: key, is what to fix
            raise InputError(err.message, key="--model", hint=err.hint) from None
        setter = _override_of(scenario, "model")
        if setter is not None:  # the model came from --set model=..., so point there
            from agentcost.scenario import OverrideError

            raise OverrideError(
                err.message, file=scenario.path, override=setter, key="model", hint=err.hint
            ) from None
        raise err.located(file=scenario.path, line=scenario.model_line, key="model") from None
    counts = count_tokens(scenario, provider=prices.provider, model_id=prices.model_id)
    policy, is_default = cache_policy(scenario, prices)
    ledger = run_accountant(
        counts,
        pricer_for(prices),
        policy,
        max_rounds=scenario.limits.max_rounds,
    )
    budget: Budget | None = None
    if budget_usd is not None:
        budget = Budget(budget_usd, "--budget")
    elif scenario.limits.budget_usd is not None:
        setter = _override_of(scenario, "limits.budget_usd")
        budget = Budget(scenario.limits.budget_usd, f"--set {setter}" if setter else "limits.budget_usd")
    return Estimate(scenario, prices, counts, ledger, is_default, budget)


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
) -> Estimate:
    """Load a scenario file (with ``--set`` overrides) and estimate it: the library's main entry point."""
    from agentcost.scenario import load_scenario

    scenario = load_scenario(path, overrides=overrides)
    return estimate_scenario(
        scenario,
        as_of=as_of if as_of is not None else datetime.now(tz=UTC),
        model=model,
        budget_usd=budget_usd,
    )
