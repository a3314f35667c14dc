"""How a scenario's caching is modelled on a model's host, and the price of one request.

:func:`caching_plan` and :func:`cache_policy` choose the caching mode and policy from the scenario's
``caching:`` or the host's default (facts.yaml), :func:`ttl_comparison` prices the cache lifetimes a
host offers, and :func:`pricer_for` gives the accountant its pricer: :meth:`ModelPrices.price
<agentcost.prices.pricing.ModelPrices.price>`, the one function that turns a request's usage into
dollars.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING

from agentcost.errors import InputError
from agentcost.infra.record import record
from agentcost.loop.accountant import (
    SubagentRun,
    TtlOption,
    request_gaps,
    ttl_options,
)
from agentcost.prices.pricing import ModelPrices
from agentcost.scenario.model import CacheTTL, CachingMode, Scenario
from agentcost.tokens.counts import TokenCounts
from agentcost.tokens.request import TTL_SECONDS, CachePolicy, Pricer

if TYPE_CHECKING:
    from agentcost.facts import HostMechanics

DEFAULT_CACHING: dict[str, CachingMode] = {
    # Explicit breakpoints (Claude, on Anthropic's API, Bedrock, Vertex or Foundry): agents (Claude
    # Code, the Agent SDK, automatic caching) put one on the last message of every request; an agent
    # that sets no cache_control should say `caching: none`.
    "explicit": "conversation",
    # Automatic prefix caching (OpenAI, Azure OpenAI, ...: facts.yaml caching_kind) caches every prompt
    # prefix past the provider's minimum; modelled only where that minimum is published.
    "automatic-prefix": "conversation",
    # Gemini's implicit caching gives "no cost saving guarantee": assume none unless the scenario asks.
    "implicit": "none",
    "none": "none",
    "unknown": "none",
}
"""The caching mode a scenario without ``caching:`` gets, by its host's caching kind (facts.yaml)."""

# OpenAI's prompt-caching guide: cache hits "in increments of 128 tokens" past the first 1,024
# (pricing-facts.md §B.2, older guide; the current page no longer says so, so this is conservative).
OPENAI_CACHE_INCREMENT = 128

# OpenAI's in-memory prompt cache is kept "5-10 min idle, up to 1 h" (pricing-facts.md §B.2,
# retention): the short end is assumed, so a pause over 5 minutes loses the cache. Gemini implicit
# caching publishes no retention at all (§B.3); it is assumed to behave like OpenAI's.
AUTOMATIC_IDLE_SECONDS = 300

# Gemini explicit caches: "default TTL 1 hour" (pricing-facts.md §B.3, G-CACHE).
GEMINI_EXPLICIT_TTL_SECONDS = 3_600


@record
class CachingPlan:
    """How a scenario's caching is modelled on a model's host: the mode, whether it is the default,
    the host's facts (facts.yaml host tables) and, where caching is not (fully) modelled, one short
    line that says so."""

    mode: CachingMode
    is_default: bool
    mechanics: HostMechanics
    note: str | None = None


def caching_plan(scenario: Scenario, prices: ModelPrices) -> CachingPlan:
    """The caching mode for this scenario on this model's host, from ``caching:`` or the host's
    caching kind (:data:`DEFAULT_CACHING`).

    Automatic caching is modelled where the host's minimum cacheable length is published; where it
    is not, or how the host caches is unknown, no cache reads are assumed and the plan's note says so
    (the cost is an upper bound). ``caching: prefix|conversation`` there assumes every repeated prefix
    is read (no minimum), and says so. A host without prompt caching (``none``) refuses them."""
    from agentcost.facts import host_mechanics

    mechanics = host_mechanics(prices.provider, prices.rules_id)
    kind = mechanics.caching
    unmodelled = kind == "unknown" or (kind == "automatic-prefix" and mechanics.min_tokens is None)
    if kind == "explicit" and mechanics.min_tokens is None:
        unmodelled = True
    where = _host_name(prices)
    if scenario.caching is None:
        mode = "none" if unmodelled else DEFAULT_CACHING[kind]
        note = None
        if unmodelled and prices.cache_read_mtok is not None:  # a cache price: reads would cost less
            why = f"{where} publishes no minimum" if kind != "unknown" else f"no page says how {where} caches"
            note = f"Caching not modelled: {why}; costs are an upper bound (set caching: to choose)."
        return CachingPlan(mode, True, mechanics, note)
    mode = scenario.caching
    if mode in ("prefix", "conversation"):
        if kind == "none":
            raise InputError(
                f"{where} has no prompt caching for {prices.model_id}, so {mode} caching cannot apply"
                + (f" ({mechanics.kind.url})" if mechanics.kind is not None else ""),
                file=scenario.path,
                key="caching",
                hint="use caching: none",
            )
        if unmodelled:
            return CachingPlan(
                mode,
                False,
                mechanics,
                f"Caching {mode} assumed with no minimum: {where} publishes none; costs are a lower bound.",
            )
    return CachingPlan(mode, False, mechanics)


def _host_name(prices: ModelPrices) -> str:
    """``deepseek``; ``aws (bedrock)`` where a host rule resolved the id."""
    host = prices.host
    return prices.provider if not host or host == prices.provider else f"{prices.provider} ({host})"


def cache_policy(scenario: Scenario, prices: ModelPrices) -> tuple[CachePolicy, bool]:
    """The cache policy for this scenario and model, and whether the mode is the provider default.

    Entries expire after their TTL unused: Anthropic-style ``cache_ttl`` (5 min or 1 h, refreshed on
    every hit; ``{prefix: 1h, conversation: 5m}`` gives the prefix breakpoint its own TTL); automatic
    and implicit caching the host's published lifetime (facts.yaml ``cache_ttl``), else
    :data:`AUTOMATIC_IDLE_SECONDS`. ``caching: explicit`` (Gemini only) stores the stable prefix in a
    Gemini explicit cache with Google's default TTL, 1 h.
    """
    from agentcost.facts import gemini_cache_storage_usd_per_mtok_hour

    plan = caching_plan(scenario, prices)
    provider, mode, mechanics = prices.provider, plan.mode, plan.mechanics
    explicit_style = mechanics.caching == "explicit"
    if scenario.prefix_cache_ttl is not None and not explicit_style:
        raise InputError(
            f"cache_ttl: {{prefix, conversation}} sets Anthropic cache breakpoints; {prices.model_id} is a "
            f"{provider} model",
            file=scenario.path,
            key="cache_ttl",
            hint="give one TTL (5m or 1h)",
        )
    # a user model: its base's; unpublished (caching not modelled, or assumed with no minimum): 1
    minimum = mechanics.min_tokens.value if mechanics.min_tokens is not None else 1
    if mode == "explicit":
        if mechanics.caching != "implicit":
            raise InputError(
                f"caching: explicit is Gemini's explicit context caching; {prices.model_id} is a "
                f"{provider} model",
                file=scenario.path,
                key="caching",
                hint="use prefix or conversation (cache breakpoints, or automatic caching)",
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
    elif explicit_style:
        if "1h" in (scenario.cache_ttl, scenario.prefix_cache_ttl) and prices.cache_write_1h_mtok is None:
            raise InputError(
                f"1h needs a 1-hour cache-write price; {prices.source.name} has none for {prices.model_id}",
                file=scenario.path,
                key="cache_ttl",
                hint="use cache_ttl: 5m",
            )
        policy = CachePolicy(
            mode=mode,
            style="explicit",
            min_tokens=minimum,
            ttl=scenario.cache_ttl,
            ttl_seconds=TTL_SECONDS[scenario.cache_ttl],
            prefix_ttl=scenario.prefix_cache_ttl,
        )
    else:
        ttl = mechanics.ttl_seconds
        # cache_ttl: 1h where the row sells 1-hour writes (Kimi K3): every entry is written for an hour
        hour = scenario.cache_ttl == "1h" and prices.cache_write_1h_mtok is not None
        policy = CachePolicy(
            mode=mode,
            style="automatic",
            min_tokens=minimum,
            ttl="1h" if hour else "5m",
            increment=OPENAI_CACHE_INCREMENT if provider in _STEPS_OF_128 else 1,
            bills_writes=prices.cache_write_mtok is not None,
            ttl_seconds=TTL_SECONDS["1h"] if hour else AUTOMATIC_IDLE_SECONDS if ttl is None else ttl.value,
        )
    return policy, plan.is_default


# Hosts whose automatic caching hits in 128-token steps past the minimum (OpenAI's older guide,
# Azure OpenAI's page: facts.yaml caching_kind notes).
_STEPS_OF_128 = ("openai", "azure")


def ttl_comparison(
    scenario: Scenario,
    prices: ModelPrices,
    counts: TokenCounts,
    policy: CachePolicy,
    pricer: Pricer,
    *,
    subagents: Mapping[int, Sequence[tuple[int, SubagentRun]]] | None = None,
    budget_left: Decimal | None = None,
    ran: tuple[CachePolicy, Decimal, int] | None = None,
) -> tuple[TtlOption, ...]:
    """No caching vs 5-minute vs 1-hour cache entries for this scenario's pacing (Anthropic only;
    ``()`` elsewhere). 1 h is left out where the model has no 1-hour write price. ``subagents`` and
    ``budget_left``: as the run's ledger had them (a budget then counts the subagents' spending).
    ``ran``: the run's own ledger, as :func:`~agentcost.loop.accountant.ttl_options` takes it."""
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
        subagents=subagents,
        budget_left=budget_left,
        ran=ran,
    )


def pricer_for(prices: ModelPrices) -> Pricer:
    """The accountant's ``Pricer`` for a model: :meth:`ModelPrices.price`, the one place a request is
    priced (tokens, server-tool fees and container time, with the parts reports read)."""
    return prices.price
