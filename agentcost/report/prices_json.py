"""The JSON of ``agentcost prices MODEL`` and ``agentcost models``, defined once.

:mod:`agentcost.render.prices` and :mod:`agentcost.render.models` build their JSON bodies as these
types; :func:`agentcost.report.schemagen.schema_of` turns the same types into the kinds' JSON Schema
(``docs/report.schema.json``). A field is added here, or mypy refuses the renderer that writes it.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypedDict, get_args

from agentcost.report.schemagen import COUNT, USD, Keywords

Provider = Annotated[str, "a genai-prices provider id (anthropic, aws, azure, deepseek, ...)"]
Host = None | Literal["bedrock", "azure", "vertex", "openrouter"]
ServiceTier = Literal["standard", "batch", "flex", "priority"]
DateTime = Annotated[str, Keywords(format="date-time")]
Date = Annotated[str, Keywords(format="date")]
TokenCounts = Literal["exact", "approximate"]

_HOSTS: tuple[str, ...] = get_args(get_args(Host)[1])
_TIERS: tuple[str, ...] = get_args(ServiceTier)


def host(value: str | None) -> Host:
    """``value`` as the JSON's host: one the schema lists (a new host is added to :data:`Host`)."""
    if value is None:
        return None
    if value not in _HOSTS:
        raise ValueError(f"host {value!r} is not in the report's JSON definition")
    return value  # type: ignore[return-value]  # checked against Host's values above


def service_tier(value: str) -> ServiceTier:
    """``value`` as the JSON's service tier: one the schema lists."""
    if value not in _TIERS:
        raise ValueError(f"service tier {value!r} is not in the report's JSON definition")
    return value  # type: ignore[return-value]  # checked against ServiceTier's values above


# --- agentcost models ----------------------------------------------------------------------------


class PerMtokJson(TypedDict):
    input: USD
    output: USD
    cache_read: USD | None
    cache_write: USD | None
    cache_write_1h: USD | None


class ModelJson(TypedDict):
    model: str
    name: str
    provider: Provider
    price_provider: Annotated[Provider, "the provider whose genai-prices row prices it"]
    host: Host
    rules_id: Annotated[str | None, "the model whose counting and caching rules apply"]
    estimable: Annotated[bool, "whether agentcost can estimate with it"]
    chat: Annotated[bool, "an estimable text-generation chat model"]
    why: Annotated[str | None, "why it cannot be estimated, or what it is if not chat"]
    per_mtok_usd: PerMtokJson | None
    tier_thresholds: list[COUNT]
    service_tiers: list[ServiceTier]
    context_window: int | None
    token_counts: TokenCounts | None
    deprecated: bool
    source: str | None


class ProviderJson(TypedDict):
    provider: Provider
    name: str
    models: COUNT
    estimable: COUNT
    chat: COUNT
    listed: bool


class ModelsJson(TypedDict):
    """``agentcost models --format json``: every model, estimable or not, and every provider."""

    as_of: DateTime
    order: str
    models: list[ModelJson]
    providers: list[ProviderJson]


# --- agentcost prices MODEL ----------------------------------------------------------------------


class TierPriceJson(TypedDict):
    above_input_tokens: COUNT
    usd: USD


class RateJson(TypedDict):
    """One price of the model and its long-context tiers; usd is for every per tokens or uses
    (per: 1,000,000 tokens, or 1,000 uses)."""

    key: str
    label: str
    per: Annotated[int, Keywords(minimum=1)]
    usd: USD
    tiers: list[TierPriceJson]


class WindowJson(TypedDict):
    start: str
    end: str


class SourceJson(TypedDict):
    kind: Literal["genai-prices", "user"]
    name: str
    version: str
    label: str
    data_date: Annotated[str | None, Keywords(format="date")]
    basis: str | None
    urls: list[str]


class ServiceTierJson(TypedDict):
    tier: ServiceTier
    rates: list[RateJson]


class RateChangeJson(TypedDict):
    key: str | None
    before: RateJson | None
    after: RateJson | None


class ChangeJson(TypedDict):
    on: Date
    text: str
    rates: list[RateChangeJson]


class FactJson(TypedDict):
    name: str
    value: str
    source: Annotated[str, "the public citation: url, and note in parentheses"]
    url: Annotated[str | None, "the public page the fact was read from"]
    note: Annotated[str | None, "a quote from the page, or why a default"]
    read: Annotated[str | None, Keywords(format="date")]


class ExampleLineJson(TypedDict):
    label: str
    tokens: COUNT
    per_mtok_usd: USD
    usd: USD
    note: str | None


class ExampleFeeJson(TypedDict):
    label: Annotated[str, "the rate's label: requests (a per-request fee), web searches..."]
    uses: COUNT
    per: Annotated[int, "the rate is USD per this many uses"]
    usd_per: USD
    usd: USD


class ExampleJson(TypedDict):
    input_tokens: COUNT
    cache_read_tokens: COUNT
    cache_write_tokens: COUNT
    cache_write_1h_tokens: COUNT
    output_tokens: COUNT
    tier: str | None
    lines: list[ExampleLineJson]
    fees: Annotated[list[ExampleFeeJson], "the per-use prices the request pays, part of total_usd"]
    total_usd: USD
    genai_prices_usd: USD


class PricesJson(TypedDict):
    """``agentcost prices MODEL --format json``: the rates in force, where each comes from, an example."""

    model: str
    model_ref: str
    name: str
    provider: Provider
    price_provider: Provider
    host: Host
    rules_id: str
    time_of_day: list[WindowJson]
    as_of: DateTime
    service_tier: ServiceTier
    source: SourceJson
    comments: str | None
    base: str | None
    context_window: int | None
    tier_thresholds: list[COUNT]
    rates: list[RateJson]
    service_tiers: list[ServiceTierJson]
    changes: list[ChangeJson]
    facts: list[FactJson]
    token_counts: TokenCounts
    example: ExampleJson
    warnings: list[str]
