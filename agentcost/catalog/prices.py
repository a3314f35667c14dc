"""The one module that talks to genai-prices (pydantic's price database, offline).

``resolve_model`` looks a model up once, at a fixed timestamp, and keeps genai-prices' price object;
``ModelPrices.cost`` then prices one request with it: exact Decimals, long-context tiers applied per
request (crossing a tier reprices ALL tokens of that request), no clock. genai-prices is imported
lazily (it costs ~170 ms) and its ``LookupError``/``ValueError`` are turned into :class:`InputError`
here.

Usage semantics are genai-prices': ``input_tokens`` counts EVERY prompt token; cache reads and writes
are parts of it. Cache writes on a model without a cache-write price are billed at the plain input
rate (no write premium: OpenAI before GPT-5.6, Gemini implicit caching). 1-hour writes need a
1-hour price (Anthropic); asking for them elsewhere is an error.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from agentcost.errors import InputError

if TYPE_CHECKING:
    from genai_prices.types import ModelInfo, ModelPrice, Provider

SUPPORTED_PROVIDERS = ("anthropic", "openai", "google")
PRICE_SOURCE_NAME = "genai-prices"

# The serving provider must be the model's maker: Claude on Google Vertex (genai-prices lists
# claude-* models under "google") is billed differently and uses Anthropic's caching, so it is
# refused for now rather than mixed with Gemini mechanics.
_FOREIGN_PREFIXES: dict[str, tuple[str, ...]] = {"google": ("claude-",)}


@dataclass(frozen=True)
class Usage:
    """One billed request. ``input_tokens`` counts EVERY prompt token, cached or not."""

    input_tokens: int
    output_tokens: int
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0  # 5-minute writes (or the provider's only write bucket)
    cache_write_1h_tokens: int = 0  # Anthropic 1-hour writes

    def __post_init__(self) -> None:
        for name in (
            "input_tokens",
            "output_tokens",
            "cache_read_tokens",
            "cache_write_tokens",
            "cache_write_1h_tokens",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InputError(f"{name} must be a whole number >= 0, got {value!r}")
        cached = self.cache_read_tokens + self.cache_write_tokens + self.cache_write_1h_tokens
        if cached > self.input_tokens:
            raise InputError(
                f"cache reads and writes ({cached:,} tokens) exceed the request's input tokens "
                f"({self.input_tokens:,})",
                hint="input_tokens counts every prompt token, cached or not",
            )


@dataclass(frozen=True)
class Cost:
    """Dollars for one request, exact. ``input_usd`` includes cache reads and writes."""

    input_usd: Decimal
    output_usd: Decimal
    total_usd: Decimal


@dataclass(frozen=True)
class PriceSource:
    """Where prices came from and for which moment."""

    name: str  # "genai-prices"
    version: str  # genai_prices.__version__
    as_of: datetime  # the timestamp prices were looked up at (tz-aware UTC)
    urls: tuple[str, ...]  # the provider's pricing pages


@dataclass(frozen=True)
class ModelPrices:
    """The prices of one model in force at ``source.as_of``.

    The ``*_mtok`` fields are USD per million tokens, the base (below any tier) rates, for display;
    ``cost`` applies tiers itself. ``None`` means "no such price" (never read it as 0).
    """

    model_ref: str  # what the user wrote
    model_id: str  # genai-prices' id
    name: str
    provider: str  # "anthropic" | "openai" | "google"
    context_window: int | None
    source: PriceSource
    input_mtok: Decimal
    output_mtok: Decimal
    cache_read_mtok: Decimal | None
    cache_write_mtok: Decimal | None
    cache_write_1h_mtok: Decimal | None
    has_tiers: bool
    # Input-token thresholds above which a whole request is repriced (empty without tiers).
    tier_thresholds: tuple[int, ...] = ()
    _price: ModelPrice | None = field(default=None, repr=False, compare=False)
    _info: ModelInfo | None = field(default=None, repr=False, compare=False)

    def cost(self, usage: Usage) -> Cost:
        """Price one request with genai-prices' price object resolved at ``source.as_of``."""
        if usage.cache_write_1h_tokens and self.cache_write_1h_mtok is None:
            raise InputError(
                f"{self.model_id} has no 1-hour cache-write price",
                hint="1-hour cache writes are an Anthropic feature; use 5-minute writes",
            )
        if self._price is None:
            raise RuntimeError("ModelPrices without a resolved price; use resolve_model()")
        from genai_prices import Usage as GPUsage

        gp_usage = GPUsage(
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cache_read_tokens=usage.cache_read_tokens,
            # genai-prices: cache_write_tokens is ALL writes; the 5m/1h buckets are parts of it.
            cache_write_tokens=usage.cache_write_tokens + usage.cache_write_1h_tokens,
            cache_write_5m_tokens=usage.cache_write_tokens,
            cache_write_1h_tokens=usage.cache_write_1h_tokens,
        )
        try:
            result = self._price.calc_price(gp_usage)
        except (ValueError, LookupError) as error:
            raise InputError(f"cannot price {self.model_id}: {error}") from None
        return Cost(
            input_usd=result["input_price"],
            output_usd=result["output_price"],
            total_usd=result["total_price"],
        )


def _snapshot() -> Any:
    from genai_prices import data_snapshot

    return data_snapshot.get_snapshot()


def _providers() -> dict[str, Provider]:
    found = {p.id: p for p in _snapshot().providers if p.id in SUPPORTED_PROVIDERS}
    return {pid: found[pid] for pid in SUPPORTED_PROVIDERS if pid in found}


def _is_foreign(provider_id: str, model_id: str) -> bool:
    return model_id.startswith(_FOREIGN_PREFIXES.get(provider_id, ()))


def _latest_price(info: ModelInfo) -> ModelPrice:
    from genai_prices.types import ModelPrice

    if isinstance(info.prices, ModelPrice):
        return info.prices
    return info.prices[-1].prices


def _priced_per_token(price: ModelPrice) -> bool:
    return price.input_mtok is not None and price.output_mtok is not None


def known_model_ids(provider: str | None = None) -> list[str]:
    """genai-prices ids of the chat models we can price, in SUPPORTED_PROVIDERS order."""
    if provider is not None:
        _check_provider(provider)
    ids: list[str] = []
    for pid, prov in _providers().items():
        if provider is not None and pid != provider:
            continue
        for info in prov.models:
            if _is_foreign(pid, info.id) or not _priced_per_token(_latest_price(info)):
                continue
            if info.id not in ids:
                ids.append(info.id)
    return ids


def _check_provider(provider: str) -> None:
    if provider not in SUPPORTED_PROVIDERS:
        raise InputError(
            f"unsupported provider {provider!r}",
            key="provider",
            hint="supported providers: " + ", ".join(SUPPORTED_PROVIDERS),
        )


def _find(model: str, provider_id: str) -> ModelInfo | None:
    """The model as ``provider_id`` serves it (no cross-provider fallback)."""
    info: ModelInfo | None = _providers()[provider_id].find_model(model)
    if info is None or _is_foreign(provider_id, info.id):
        return None
    return info


def _suggest(model: str, provider: str | None) -> str:
    candidates = known_model_ids(provider)
    close = difflib.get_close_matches(model.lower(), candidates, n=3, cutoff=0.6)
    listing = "run 'agentcost models' to list known models"
    return f"did you mean: {', '.join(close)}? {listing}" if close else listing


def _other_provider(model: str) -> str | None:
    """The genai-prices provider (not one of ours) that knows this model, if any."""
    try:
        provider, _ = _snapshot().find_provider_model(model, None, None, None)
    except (LookupError, ValueError):
        return None
    pid: str = provider.id
    return pid


def _base(value: object) -> Decimal | None:
    from genai_prices.types import TieredPrices

    if value is None:
        return None
    if isinstance(value, TieredPrices):
        return value.base
    if isinstance(value, Decimal):
        return value
    raise TypeError(f"unexpected genai-prices price value {value!r}")


def _utc(as_of: datetime) -> datetime:
    if as_of.tzinfo is None:
        raise ValueError("as_of must be timezone-aware")  # a caller bug, not user input
    return as_of.astimezone(UTC)


def resolve_model(model: str, *, provider: str | None = None, as_of: datetime) -> ModelPrices:
    """Find ``model`` (optionally of ``provider``) and fix its prices in force at ``as_of``.

    ``model`` may carry its provider as a prefix (``"openai/gpt-5"``).

    Raises :class:`InputError` (key ``model`` or ``provider``) for an unknown model (with close
    names suggested), a model of an unsupported provider, or a model not of the given provider.
    """
    when = _utc(as_of)
    written = ref = model.strip()
    if not ref:
        raise InputError("model must not be empty", key="model", hint=_suggest("", provider))
    head, slash, tail = ref.partition("/")
    if slash and head.lower() in SUPPORTED_PROVIDERS and provider in (None, head.lower()):
        provider, ref = head.lower(), tail.strip()  # "openai/gpt-5", as LiteLLM writes it
    if provider is not None:
        _check_provider(provider)

    found: tuple[str, ModelInfo] | None = None
    for pid in (provider,) if provider is not None else SUPPORTED_PROVIDERS:
        info = _find(ref, pid)
        if info is not None:
            found = (pid, info)
            break

    if found is None:
        if provider is not None:
            for pid in SUPPORTED_PROVIDERS:
                if pid != provider and _find(ref, pid) is not None:
                    raise InputError(
                        f"model {ref!r} belongs to provider {pid!r}, not {provider!r}",
                        key="model",
                        hint=f"set provider: {pid}, or leave provider out",
                    )
        other = _other_provider(ref)
        if other is not None and other not in SUPPORTED_PROVIDERS:
            raise InputError(
                f"model {ref!r} is served by {other!r}, which agentcost does not support",
                key="model",
                hint="supported providers: " + ", ".join(SUPPORTED_PROVIDERS),
            )
        raise InputError(f"unknown model {ref!r}", key="model", hint=_suggest(ref, provider))

    pid, info = found
    return _model_prices(written, pid, info, when)


def _model_prices(ref: str, pid: str, info: ModelInfo, when: datetime) -> ModelPrices:
    import genai_prices
    from genai_prices.types import TieredPrices

    prov = _providers()[pid]
    try:
        price: ModelPrice = info.get_prices(when)
    except (LookupError, ValueError) as error:
        raise InputError(f"cannot price {info.id}: {error}", key="model") from None
    input_mtok = _base(price.input_mtok)
    output_mtok = _base(price.output_mtok)
    if input_mtok is None or output_mtok is None:
        raise InputError(
            f"{info.id} has no per-token input and output prices at {when:%Y-%m-%d}",
            key="model",
            hint="agentcost prices chat models; run 'agentcost models' to list them",
        )
    values = [v for v in price.__dict__.values() if v is not None]
    thresholds = sorted({t.start for v in values if isinstance(v, TieredPrices) for t in v.tiers})
    write_5m = price.cache_write_5m_mtok  # Anthropic's 5m rate is usually keyed cache_write_mtok
    return ModelPrices(
        model_ref=ref,
        model_id=info.id,
        name=info.name or info.id,
        provider=pid,
        context_window=info.context_window,
        source=PriceSource(
            name=PRICE_SOURCE_NAME,
            version=genai_prices.__version__,
            as_of=when,
            urls=tuple(prov.pricing_urls or ()),
        ),
        input_mtok=input_mtok,
        output_mtok=output_mtok,
        cache_read_mtok=_base(price.cache_read_mtok),
        cache_write_mtok=_base(write_5m if write_5m is not None else price.cache_write_mtok),
        cache_write_1h_mtok=_base(price.cache_write_1h_mtok),
        has_tiers=bool(thresholds),
        tier_thresholds=tuple(thresholds),
        _price=price,
        _info=info,
    )


def list_models(*, as_of: datetime, pattern: str | None = None) -> list[ModelPrices]:
    """Known models of the supported providers whose id matches ``pattern`` (a substring, or a glob
    such as ``claude-*``; ``anthropic/*`` filters by provider), priced at ``as_of``."""
    import fnmatch

    provider: str | None = None
    if pattern and "/" in pattern:
        provider, _, pattern = pattern.partition("/")
    out: list[ModelPrices] = []
    for pid in SUPPORTED_PROVIDERS if provider is None else (provider,):
        for model_id in known_model_ids(pid):
            if pattern and not (
                fnmatch.fnmatch(model_id, pattern)
                if any(c in pattern for c in "*?[")
                else pattern in model_id
            ):
                continue
            out.append(resolve_model(model_id, provider=pid, as_of=as_of))
    return out
