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

Service tiers (``standard``, ``batch``, ``flex``, ``priority``) are genai-prices price variants
selected with a ``price_context``; genai-prices silently falls back to standard prices for a context
no variant matches, so :func:`resolve_model` checks the tier is offered and refuses it otherwise.
A user price file (``--prices``, :mod:`agentcost.prices.user`) overrides or adds models.

The date of the price data: genai-prices does not ship when each price was checked
(``prices_checked`` is excluded from the package), so :func:`price_data_date` is the newest of (a)
the date agentcost's maintainers checked that this genai-prices release was the newest one
(``_CHECKED_RELEASES``) and (b) the newest "verified/checked on DATE" its price comments cite. An
estimate priced more than :data:`STALE_AFTER_DAYS` days after that date warns that prices may have
changed since; a price change genai-prices has scheduled within :data:`SCHEDULED_WITHIN_DAYS` days
after the price date warns too.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any, Literal

from agentcost.errors import InputError

if TYPE_CHECKING:
    from genai_prices.types import ModelInfo, ModelPrice, Provider

    from agentcost.prices.user import UserModel, UserPrices


def _light_genai_prices() -> None:
    """Make ``import genai_prices`` skip its price updater until something needs it.

    genai-prices' package ``__init__`` imports its online price updater, and with it an HTTP client
    and asyncio (~0.45 s, over a third of a cold run); agentcost works offline from the bundled
    snapshot and needs only its submodules (``data_snapshot``, ``types``, ``units``, ...). So the
    package is registered as a bare module whose submodules import as usual, with ``__version__``
    read from its metadata; the first access to anything else it defines (``calc_price``, ``Usage``,
    the updater) runs the real ``__init__`` in it, so every other use of genai-prices is unchanged.
    """
    import sys

    if "genai_prices" in sys.modules:
        return
    import importlib.util
    import types

    spec = importlib.util.find_spec("genai_prices")
    if spec is None or spec.origin is None or spec.loader is None or not spec.submodule_search_locations:
        return  # not installed: the import error comes where it is used
    package = types.ModuleType("genai_prices")
    package.__spec__ = spec
    package.__file__ = spec.origin
    package.__path__ = list(spec.submodule_search_locations)
    package.__package__ = "genai_prices"
    package.__version__ = _installed_version("genai_prices", package.__path__[0])  # type: ignore[attr-defined]
    origin = spec.origin

    def complete(name: str) -> Any:
        """A submodule (``from genai_prices import data_snapshot`` asks for it as an attribute),
        else the real ``__init__``, run in the module on the first access to a name it defines."""
        import importlib
        import os

        if not name.startswith("__") and os.path.exists(os.path.join(package.__path__[0], f"{name}.py")):
            return importlib.import_module(f"genai_prices.{name}")
        if package.__dict__.get("_agentcost_complete"):
            raise AttributeError(f"module 'genai_prices' has no attribute {name!r}")
        package.__dict__["_agentcost_complete"] = True
        del package.__dict__["__getattr__"]
        with open(origin, "rb") as handle:
            code = compile(handle.read(), origin, "exec")
        exec(code, package.__dict__)
        return getattr(package, name)

    package.__getattr__ = complete  # type: ignore[method-assign]
    sys.modules["genai_prices"] = package


def _installed_version(name: str, package_dir: str) -> str:
    """A distribution's version from the dist-info directory beside its package (importlib.metadata
    as the fallback: it imports the email parser)."""
    import glob
    import os

    site = os.path.dirname(package_dir)
    for info in glob.glob(os.path.join(glob.escape(site), f"{name}-*.dist-info")):
        try:
            with open(os.path.join(info, "METADATA"), encoding="utf-8") as handle:
                for line in handle:
                    if line.startswith("Version:"):
                        return line.split(":", 1)[1].strip()
                    if not line.strip():
                        break
        except OSError:
            continue
    from importlib.metadata import version

    return version(name)


SUPPORTED_PROVIDERS = ("anthropic", "openai", "google")
PRICE_SOURCE_NAME = "genai-prices"

SERVICE_TIERS = ("standard", "batch", "flex", "priority")
# The genai-prices price_context that selects each service tier's price variant (the ``when`` keys
# of its data: OpenAI and Gemini flex/priority are ``service_tier``; batch is ``processing`` for
# every provider; standard is no context at all). Anthropic's ``speed: fast`` is not a service tier.
SERVICE_TIER_CONTEXT: dict[str, dict[str, str]] = {
    "standard": {},
    "batch": {"processing": "batch"},
    "flex": {"service_tier": "flex"},
    "priority": {"service_tier": "priority"},
}

# genai-prices releases whose data agentcost's maintainers checked was the newest release on a date
# (shared/reference/pricing-facts.md §0: "genai-prices==0.2.3 ... latest release on 2026-11-30").
_CHECKED_RELEASES: dict[str, date] = {"0.2.3": date(2026, 11, 30)}
STALE_AFTER_DAYS = 30  # warn when prices are looked up this long after the price data's date
SCHEDULED_WITHIN_DAYS = 30  # warn about a scheduled price change this close after the price date
_VERIFIED = re.compile(r"\b(?:verified|checked)(?:\s+on)?\s+(\d{4}-\d{2}-\d{2})\b", re.IGNORECASE)

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
    # Server-tool uses, genai-prices usage keys (priced where the model has web_searches_kcount /
    # code_executions_kcount; agentcost.loop.estimate.pricer_for prices the rest from facts.yaml).
    web_searches: int = 0
    code_executions: int = 0

    def __post_init__(self) -> None:
        for name in (
            "input_tokens",
            "output_tokens",
            "cache_read_tokens",
            "cache_write_tokens",
            "cache_write_1h_tokens",
            "web_searches",
            "code_executions",
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
class Rate:
    """One price of a model: a token rate (USD per MTok) or a per-use fee (USD per 1,000 uses)."""

    key: str  # the genai-prices price key, e.g. "input_mtok", "web_searches_kcount"
    label: str  # "input", "cache write 5m", "web searches"
    per: int  # how many tokens or uses the price is for: 1,000,000 or 1,000
    base: Decimal  # the price below any long-context tier
    tiers: tuple[tuple[int, Decimal], ...] = ()  # (above this many input tokens, price), ascending

    @property
    def is_tokens(self) -> bool:
        return self.key.endswith("_mtok")

    def at(self, input_tokens: int) -> Decimal:
        """The price a request of ``input_tokens`` pays (tiers are cliffs)."""
        crossed = [price for start, price in self.tiers if input_tokens > start]
        return crossed[-1] if crossed else self.base

    def text(self) -> str:
        """``$3/MTok``, ``$1.25/MTok (>200k: $2.5)``, ``$10 per 1,000 web searches``."""
        tiers = "".join(f" ({tier_name(start)}: {_dollars(p)})" for start, p in self.tiers)
        if self.is_tokens:
            return f"{_dollars(self.base)}/MTok{tiers}"
        return f"{_dollars(self.base)} per {self.per:,} {self.label}{tiers}"


@dataclass(frozen=True)
class PriceChange:
    """A price change genai-prices has scheduled: the rates that differ from the day before.

    ``before[i]`` and ``after[i]`` are the same price key; None where the price does not exist.
    """

    on: date
    before: tuple[Rate | None, ...]
    after: tuple[Rate | None, ...]

    def text(self) -> str:
        """``input $2 → $4/MTok, output $10 → $20/MTok``."""
        parts: list[str] = []
        for old, new in zip(self.before, self.after, strict=True):
            rate = old if old is not None else new
            if rate is None:  # pragma: no cover - a change has at least one side
                continue
            unit = "/MTok" if rate.is_tokens else f" per {rate.per:,}"
            parts.append(f"{rate.label} {_value_text(old)} → {_value_text(new)}{unit}")
        return ", ".join(parts)


def tier_name(threshold: int) -> str:
    """``200000`` -> ``">200k"``; ``1000000`` -> ``">1M"``; ``131072`` -> ``">131,072"``."""
    if threshold and threshold % 1_000_000 == 0:
        return f">{threshold // 1_000_000}M"
    if threshold and threshold % 1_000 == 0:
        return f">{threshold // 1_000}k"
    return f">{threshold:,}"


def _dollars(d: Decimal) -> str:
    """An exact price without exponent or trailing zeros: ``$0.3``, ``$2.5``, ``$10``."""
    text = format(d, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return f"${text or '0'}"


def _value_text(rate: Rate | None) -> str:
    if rate is None:
        return "none"
    tiers = "".join(f" ({tier_name(start)}: {_dollars(p)})" for start, p in rate.tiers)
    return _dollars(rate.base) + tiers


@dataclass(frozen=True)
class PriceSource:
    """Where prices came from and for which moment.

    genai-prices: ``name`` "genai-prices", ``version`` its version, ``data_date`` the date its data
    is last known current (:func:`price_data_date`). A user price file: ``name`` the file as given,
    ``version`` the entry's ``source:`` text, ``basis`` what the rates derive from (a discount).
    """

    name: str  # "genai-prices", or the user price file as given on the command line
    version: str  # genai_prices.__version__, or the user entry's source text
    as_of: datetime  # the timestamp prices were looked up at (tz-aware UTC)
    urls: tuple[str, ...]  # the provider's pricing pages
    kind: Literal["genai-prices", "user"] = "genai-prices"
    data_date: date | None = None
    basis: str | None = None  # e.g. "20% off claude-sonnet-4-5 in genai-prices 0.2.3"

    @property
    def label(self) -> str:
        """One line for reports: ``genai-prices 0.2.3 (current on 2026-11-30)``,
        ``prices.yaml (contract 2026-07)``."""
        if self.kind == "user":
            basis = f"; {self.basis}" if self.basis else ""
            return f"{self.name} ({self.version}{basis})"
        when = f" (current on {self.data_date.isoformat()})" if self.data_date is not None else ""
        return f"{self.name} {self.version}{when}"


@dataclass(frozen=True)
class PricedUnit:
    """One price of a model as genai-prices applies it: the usage it prices (``usage_key``, with the
    unit's ``dimensions``), per how many, and the rate (``tiers`` in genai-prices' own order)."""

    key: str  # the price key, e.g. "cache_read_mtok"
    usage_key: str  # the usage it prices, e.g. "cache_read_tokens"
    per: int
    dimensions: tuple[tuple[str, str], ...]  # e.g. (("direction", "input"), ("family", "tokens"), ...)
    base: Decimal
    tiers: tuple[tuple[int, Decimal], ...] = ()  # (start, price) as genai-prices lists them
    tiered: bool = False  # a genai-prices TieredPrices (the request's input tokens pick the rate)

    @property
    def direction(self) -> str | None:
        return dict(self.dimensions).get("direction")


@dataclass(frozen=True)
class PriceTable:
    """A resolved price row as plain data: everything :meth:`ModelPrices.cost` needs to price a
    request exactly as genai-prices' ``ModelPrice.calc_price`` does, without genai-prices.

    ``units`` are in genai-prices' order (the order it sums them in); ``reported`` are the
    dimensions of the usage keys :class:`Usage` reports (for genai-prices' inference rule: a priced
    usage not reported is 0, unless reported usage implies it must have been given)."""

    units: tuple[PricedUnit, ...]
    reported: tuple[tuple[str, tuple[tuple[str, str], ...]], ...]
    rates: tuple[Rate, ...]

    def cost(self, usage: Usage) -> Cost:
        """genai-prices' arithmetic: each priced unit's leaf count (its usage less the usage of the
        more specific priced units inside it) times its rate over ``per``; a tiered rate is chosen
        by the request's whole input (a cliff); input and output sums by the unit's direction."""
        values: dict[str, int] = {
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "cache_read_tokens": usage.cache_read_tokens,
            "cache_write_tokens": usage.cache_write_tokens + usage.cache_write_1h_tokens,
            "cache_write_5m_tokens": usage.cache_write_tokens,
            "cache_write_1h_tokens": usage.cache_write_1h_tokens,
            "web_searches": usage.web_searches,
            "code_executions": usage.code_executions,
        }
        counts = self._leaf_counts(values)
        total_input = usage.input_tokens if self._tiered else 0
        input_usd = output_usd = total_usd = Decimal(0)
        for unit, direction in self._directions:
            price = unit.base
            if unit.tiered:
                for start, tier_price in reversed(unit.tiers):
                    if total_input > start:
                        price = tier_price
                        break
            amount = price * Decimal(counts[unit.usage_key]) / unit.per
            total_usd += amount
            if direction == "input":
                input_usd += amount
            elif direction == "output":
                output_usd += amount
        return Cost(input_usd=input_usd, output_usd=output_usd, total_usd=total_usd)

    @cached_property
    def _tiered(self) -> bool:
        return any(u.tiered for u in self.units)

    @cached_property
    def _directions(self) -> tuple[tuple[PricedUnit, str | None], ...]:
        return tuple((u, u.direction) for u in self.units)

    @cached_property
    def _plan(self) -> tuple[tuple[PricedUnit, tuple[str, ...]], ...]:
        """genai-prices' order of leaf computation (more dimensions first), each unit with the
        priced units nested in it."""
        priced = [u for u in self.units if u.usage_key != "requests"]
        order = sorted(priced, key=lambda u: (-len(u.dimensions), u.usage_key))
        return tuple(
            (
                unit,
                tuple(
                    other.usage_key
                    for other in order
                    if other is not unit and set(unit.dimensions) <= set(other.dimensions)
                ),
            )
            for unit in order
        )

    def _leaf_counts(self, values: dict[str, int]) -> dict[str, int]:
        leaves: dict[str, int] = {}
        for unit, nested in self._plan:
            leaf = self._usage(unit, values) - sum(leaves[k] for k in nested)
            if leaf < 0:
                raise ValueError(f"Invalid usage data: more-specific usage exceeds {unit.usage_key}")
            leaves[unit.usage_key] = leaf
        if any(u.usage_key == "requests" for u in self.units):
            leaves["requests"] = 1
        return leaves

    def _usage(self, unit: PricedUnit, values: dict[str, int]) -> int:
        """A usage value as genai-prices' ``Usage`` gives it: the reported value, else 0 -- or an
        error where positive reported usage is more specific than the unit (or joins into it)."""
        if unit.usage_key in values:
            return values[unit.usage_key]
        wanted = set(unit.dimensions)
        positive = [(k, set(d)) for k, d in self.reported if values.get(k, 0) > 0]
        inside = sorted(k for k, d in positive if wanted <= d and d != wanted)
        if inside:
            raise ValueError(
                f"Missing usage for {unit.usage_key}: reported descendant usage keys "
                f"{', '.join(inside)} require explicit {unit.usage_key}"
            )
        ordered = sorted(positive)
        for i, (left, ldims) in enumerate(ordered):
            for right, rdims in ordered[i + 1 :]:
                lmap, rmap = dict(ldims), dict(rdims)
                compatible = all(rmap.get(k, v) == v for k, v in lmap.items())
                if compatible and not ldims <= rdims and not rdims <= ldims and ldims | rdims == wanted:
                    raise ValueError(
                        f"Missing usage for {unit.usage_key}: reported overlapping usage keys "
                        f"{left}, {right} require explicit {unit.usage_key}"
                    )
        return 0


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
    service_tier: str = "standard"  # the tier these prices are for (SERVICE_TIERS)
    service_tiers: tuple[str, ...] = ("standard",)  # the tiers the model offers at source.as_of
    base_id: str | None = None  # a user model's ``base:``: its counting and caching rules apply
    deprecated: bool = False
    price_comments: str | None = None  # genai-prices' notes on this model's prices
    # Price changes genai-prices has scheduled after source.as_of, in date order.
    changes: tuple[PriceChange, ...] = ()
    warnings: tuple[str, ...] = ()  # scheduled changes soon, stale price data
    _price: ModelPrice | None = field(default=None, repr=False, compare=False)
    _info: ModelInfo | None = field(default=None, repr=False, compare=False)
    # the resolved prices as plain data (None: genai-prices' price object prices every request)
    table: PriceTable | None = field(default=None, repr=False, compare=False)

    @property
    def rules_id(self) -> str:
        """The model id whose counting and caching rules (tokenizer, facts.yaml rows) apply."""
        return self.base_id or self.model_id

    def tier_label(self, input_tokens: int) -> str | None:
        """``">200k"`` when a request of ``input_tokens`` is priced at a long-context tier, else None.

        Tiers are cliffs (genai-prices ``TieredPrices``): a request with MORE than the threshold
        input tokens pays the tier's rates on all its tokens.
        """
        crossed = [t for t in self.tier_thresholds if input_tokens > t]
        return tier_name(max(crossed)) if crossed else None

    def rates(self) -> tuple[Rate, ...]:
        """Every price of the model in force at ``source.as_of`` (token rates, then per-use fees)."""
        if self.table is not None:
            return self.table.rates
        if self._price is None:
            raise RuntimeError("ModelPrices without a resolved price; use resolve_model()")
        return _rates(self._price, self.provider)

    def cost(self, usage: Usage) -> Cost:
        """Price one request at the prices in force at ``source.as_of``: with :class:`PriceTable`
        (our Decimal arithmetic, equal to genai-prices' to the last digit: tests/test_cache.py
        compares them on every model), else with genai-prices' price object."""
        if usage.cache_write_1h_tokens and self.cache_write_1h_mtok is None:
            raise InputError(
                f"{self.model_id} has no 1-hour cache-write price",
                hint="1-hour cache writes are an Anthropic feature; use 5-minute writes",
            )
        if self.table is not None:
            try:
                return self.table.cost(usage)
            except ValueError as error:
                raise InputError(f"cannot price {self.model_id}: {error}") from None
        return self.genai_cost(usage)

    def genai_cost(self, usage: Usage) -> Cost:
        """Price one request with genai-prices' own ``calc_price`` (the reference :meth:`cost` is
        tested against; needs the price object, so not on a row read from the cache)."""
        if self._price is None:
            raise RuntimeError("ModelPrices without a resolved price; use resolve_model()")
        _light_genai_prices()
        from genai_prices import Usage as GPUsage

        gp_usage = GPUsage(
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cache_read_tokens=usage.cache_read_tokens,
            # genai-prices: cache_write_tokens is ALL writes; the 5m/1h buckets are parts of it.
            cache_write_tokens=usage.cache_write_tokens + usage.cache_write_1h_tokens,
            cache_write_5m_tokens=usage.cache_write_tokens,
            cache_write_1h_tokens=usage.cache_write_1h_tokens,
            web_searches=usage.web_searches,
            code_executions=usage.code_executions,
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
    _light_genai_prices()
    from genai_prices import data_snapshot

    return data_snapshot.get_snapshot()


def _providers() -> dict[str, Provider]:
    found = {p.id: p for p in _snapshot().providers if p.id in SUPPORTED_PROVIDERS}
    return {pid: found[pid] for pid in SUPPORTED_PROVIDERS if pid in found}


def _is_foreign(provider_id: str, model_id: str) -> bool:
    return model_id.startswith(_FOREIGN_PREFIXES.get(provider_id, ()))


def _latest_price(info: ModelInfo) -> ModelPrice:
    _light_genai_prices()
    from genai_prices.types import ModelPrice

    if isinstance(info.prices, ModelPrice):
        return info.prices
    return info.prices[-1].prices


def _priced_per_token(price: ModelPrice) -> bool:
    return price.input_mtok is not None and price.output_mtok is not None


def known_model_ids(provider: str | None = None) -> list[str]:
    """genai-prices ids of the chat models we can price, in SUPPORTED_PROVIDERS order.

    Left out: models of another maker (Claude on Vertex), models without per-token input and output
    prices, and models their own id does not find (genai-prices' ``ft:gpt-4o`` matches only
    ``ft:gpt-4o:...`` references).
    """
    return list(_known_ids(provider))


@lru_cache(maxsize=8)
def _known_ids(provider: str | None) -> tuple[str, ...]:
    if provider is not None:
        _check_provider(provider)
    ids: list[str] = []
    for pid, prov in _providers().items():
        if provider is not None and pid != provider:
            continue
        for info in prov.models:
            if _is_foreign(pid, info.id) or not _priced_per_token(_latest_price(info)):
                continue
            if prov.find_model(info.id) is not info:
                continue
            if info.id not in ids:
                ids.append(info.id)
    return tuple(ids)


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


def _suggest(model: str, provider: str | None, user_prices: UserPrices | None = None) -> str:
    candidates = known_model_ids(provider)
    if user_prices is not None:
        candidates += [m.id for m in user_prices.models if provider in (None, m.provider)]
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
    _light_genai_prices()
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


def resolve_model(
    model: str,
    *,
    provider: str | None = None,
    as_of: datetime,
    service_tier: str = "standard",
    user_prices: UserPrices | None = None,
) -> ModelPrices:
    """Find ``model`` (optionally of ``provider``) and fix its prices in force at ``as_of``.

    ``model`` may carry its provider as a prefix (``"openai/gpt-5"``). ``service_tier`` picks the
    tier's prices (:data:`SERVICE_TIERS`). ``user_prices`` (a loaded ``--prices`` file) is searched
    first, and its models replace genai-prices models of the same provider and id (aliases too).

    Raises :class:`InputError` (key ``model``, ``provider`` or ``service_tier``) for an unknown model
    (with close names suggested), a model of an unsupported provider, a model not of the given
    provider, or a service tier the model does not offer at ``as_of`` (naming the ones it offers).
    """
    when = _utc(as_of)
    _check_service_tier(service_tier)
    key = _row_key(model, provider, when, service_tier, user_prices)
    cached = _cached_row(key, when)
    if cached is not None:
        return cached
    prices = _resolve(model, provider, when, service_tier, user_prices)
    _store_row(key, prices)
    return prices


def _resolve(
    model: str, provider: str | None, when: datetime, service_tier: str, user_prices: UserPrices | None
) -> ModelPrices:
    written = ref = model.strip()
    if not ref:
        raise InputError("model must not be empty", key="model", hint=_suggest("", provider, user_prices))
    head, slash, tail = ref.partition("/")
    if slash and head.lower() in SUPPORTED_PROVIDERS and provider in (None, head.lower()):
        provider, ref = head.lower(), tail.strip()  # "openai/gpt-5", as LiteLLM writes it
    if provider is not None:
        _check_provider(provider)

    if user_prices is not None:
        mine = user_prices.find(ref, provider)
        if mine is not None:
            return _user_model_prices(written, mine, user_prices, when, service_tier)
        elsewhere = user_prices.find(ref, None) if provider is not None else None
        if elsewhere is not None and provider is not None and _find(ref, provider) is None:
            raise InputError(
                f"model {ref!r} belongs to provider {elsewhere.provider!r} in {user_prices.shown},"
                f" not {provider!r}",
                key="model",
                hint=f"set provider: {elsewhere.provider}, or leave provider out",
            )

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
        raise InputError(f"unknown model {ref!r}", key="model", hint=_suggest(ref, provider, user_prices))

    pid, info = found
    if user_prices is not None:  # an alias ("claude-sonnet-4-5-20250929") of a model the file overrides
        mine = user_prices.find(info.id, pid)
        if mine is not None:
            return _user_model_prices(written, mine, user_prices, when, service_tier)
    return _model_prices(written, pid, info, when, service_tier)


# --------------------------------------------------------------------------------------------
# The price-row cache (agentcost.infra.diskcache): a repeated lookup loads no genai-prices at all
# --------------------------------------------------------------------------------------------


def _row_key(
    model: str, provider: str | None, when: datetime, service_tier: str, user_prices: UserPrices | None
) -> str:
    """Everything a resolved row depends on: the model and provider as asked, the price date (the
    whole timestamp if some price applies by time of day), the service tier, the installed
    genai-prices, a user price file's models, and agentcost's own code."""
    from agentcost.infra import diskcache

    user = None if user_prices is None else (user_prices.shown, repr(user_prices.models))
    return diskcache.digest(
        "price-row/1",
        model.strip(),
        provider,
        when.date().isoformat(),
        service_tier,
        diskcache.package_fingerprint("genai_prices"),
        user,
        diskcache.source_digest(),
    )


def _cached_row(key: str, when: datetime) -> ModelPrices | None:
    from agentcost.infra import diskcache

    cache = diskcache.get_cache()
    stored = cache.get_blob("price", key) if cache is not None else None
    if stored is None:
        return None
    try:
        row = diskcache.decode(stored)
    except diskcache.CodecError:
        return None
    if not isinstance(row, ModelPrices) or row.table is None:
        return None
    return replace(row, source=replace(row.source, as_of=when))


def _store_row(key: str, prices: ModelPrices) -> None:
    """Cache a resolved row (not when our arithmetic cannot price it, nor when some price of the
    supported providers applies by time of day: then the date is not enough of a key)."""
    from agentcost.infra import diskcache

    cache = diskcache.get_cache()
    if cache is None or prices.table is None or not _prices_follow_dates():
        return
    try:
        data = diskcache.encode(replace(prices, _price=None, _info=None))
    except diskcache.CodecError:
        return
    cache.put_blob("price", key, data, now=False)


@lru_cache(maxsize=1)
def _prices_follow_dates() -> bool:
    """Whether every price of the supported providers changes only with the date (genai-prices'
    ``StartDateConstraint``), never with the time of day: then a row holds for a whole UTC day."""
    _light_genai_prices()
    from genai_prices.types import ConditionalPrice, StartDateConstraint

    for provider in _providers().values():
        for info in provider.models:
            constraints: list[object] = [v.constraint for v in info.price_variants or ()]
            if isinstance(info.prices, list):
                constraints += [p.constraint for p in info.prices if isinstance(p, ConditionalPrice)]
            if any(c is not None and not isinstance(c, StartDateConstraint) for c in constraints):
                return False
    return True


def _check_service_tier(service_tier: str) -> None:
    if service_tier not in SERVICE_TIERS:
        raise InputError(
            f"unknown service tier {service_tier!r}",
            key="service_tier",
            hint="one of: " + ", ".join(SERVICE_TIERS),
        )


def offered_service_tiers(info: ModelInfo, when: datetime) -> tuple[str, ...]:
    """The service tiers genai-prices has prices for at ``when``: standard, then each tier with an
    active price variant whose ``when`` its context satisfies."""
    offered = ["standard"]
    for tier in SERVICE_TIERS[1:]:
        if any(_variant_matches(v, tier) and _active(v.constraint, when) for v in info.price_variants or ()):
            offered.append(tier)
    return tuple(offered)


def _variant_matches(variant: Any, tier: str) -> bool:
    context = SERVICE_TIER_CONTEXT[tier]
    prices = [p for p in variant.prices.__dict__.values() if p is not None]
    return bool(prices) and all(context.get(key) == value for key, value in variant.when.items())


def _active(constraint: Any, when: datetime) -> bool:
    return constraint is None or bool(constraint.active(when))


def _tier_starts(info: ModelInfo, tier: str, when: datetime) -> date | None:
    """The first date after ``when`` from which genai-prices has prices for ``tier``, if any."""
    _light_genai_prices()
    from genai_prices.types import StartDateConstraint

    starts = [
        v.constraint.start_date
        for v in info.price_variants or ()
        if _variant_matches(v, tier)
        and isinstance(v.constraint, StartDateConstraint)
        and v.constraint.start_date > when.date()
    ]
    return min(starts, default=None)


def _tier_error(
    model_id: str, tier: str, offered: tuple[str, ...], starts: date | None, hint: str | None = None
) -> InputError:
    later = f"; genai-prices has its {tier} prices from {starts.isoformat()}" if starts else ""
    return InputError(
        f"{model_id} does not offer the {tier} service tier (it offers: {', '.join(offered)}){later}",
        key="service_tier",
        hint=hint or f"use one of: {', '.join(offered)}",
    )


def _model_prices(
    ref: str, pid: str, info: ModelInfo, when: datetime, service_tier: str = "standard"
) -> ModelPrices:
    _light_genai_prices()
    import genai_prices

    offered = offered_service_tiers(info, when)
    if service_tier not in offered:
        raise _tier_error(info.id, service_tier, offered, _tier_starts(info, service_tier, when))
    context = SERVICE_TIER_CONTEXT[service_tier]
    try:
        price: ModelPrice = info.get_prices(when, context or None)
    except (LookupError, ValueError) as error:
        raise InputError(f"cannot price {info.id}: {error}", key="model") from None
    prov = _providers()[pid]
    source = PriceSource(
        name=PRICE_SOURCE_NAME,
        version=genai_prices.__version__,
        as_of=when,
        urls=tuple(prov.pricing_urls or ()),
        data_date=price_data_date(),
    )
    changes = _changes(info, pid, when, context)
    return _build(
        ref=ref,
        model_id=info.id,
        name=info.name or info.id,
        provider=pid,
        context_window=info.context_window,
        source=source,
        price=price,
        service_tier=service_tier,
        offered=offered,
        changes=changes,
        warnings=_warnings(info.id, service_tier, changes, source),
        info=info,
        deprecated=bool(info.deprecated),
        comments=info.price_comments,
    )


def _build(
    *,
    ref: str,
    model_id: str,
    name: str,
    provider: str,
    context_window: int | None,
    source: PriceSource,
    price: ModelPrice,
    service_tier: str,
    offered: tuple[str, ...],
    changes: tuple[PriceChange, ...] = (),
    warnings: tuple[str, ...] = (),
    info: ModelInfo | None = None,
    base_id: str | None = None,
    deprecated: bool = False,
    comments: str | None = None,
) -> ModelPrices:
    _light_genai_prices()
    from genai_prices.types import TieredPrices

    input_mtok = _base(price.input_mtok)
    output_mtok = _base(price.output_mtok)
    if input_mtok is None or output_mtok is None:
        raise InputError(
            f"{model_id} has no per-token input and output prices at {source.as_of:%Y-%m-%d}",
            key="model",
            hint="agentcost prices chat models; run 'agentcost models' to list them",
        )
    values = [v for v in price.__dict__.values() if v is not None]
    thresholds = sorted({t.start for v in values if isinstance(v, TieredPrices) for t in v.tiers})
    write_5m = price.cache_write_5m_mtok  # Anthropic's 5m rate is usually keyed cache_write_mtok
    rates = _rates(price, provider)
    return ModelPrices(
        model_ref=ref,
        model_id=model_id,
        name=name,
        provider=provider,
        context_window=context_window,
        source=source,
        input_mtok=input_mtok,
        output_mtok=output_mtok,
        cache_read_mtok=_base(price.cache_read_mtok),
        cache_write_mtok=_base(write_5m if write_5m is not None else price.cache_write_mtok),
        cache_write_1h_mtok=_base(price.cache_write_1h_mtok),
        has_tiers=bool(thresholds),
        tier_thresholds=tuple(thresholds),
        service_tier=service_tier,
        service_tiers=offered,
        base_id=base_id,
        deprecated=deprecated,
        price_comments=comments,
        changes=changes,
        warnings=warnings,
        _price=price,
        _info=info,
        table=_price_table(price, rates),
    )


# Usage keys :class:`Usage` reports to genai-prices (``ModelPrices.genai_cost``); PriceTable needs
# their unit dimensions for genai-prices' inference rule.
_REPORTED_USAGE = (
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "cache_write_5m_tokens",
    "cache_write_1h_tokens",
    "web_searches",
    "code_executions",
)


def _price_table(price: ModelPrice, rates: tuple[Rate, ...]) -> PriceTable | None:
    """``price`` as a :class:`PriceTable`, from genai-prices' own resolution of its units (the
    same order, the same validation). None where genai-prices warns about or refuses the price:
    such a model is priced by genai-prices itself, and never cached."""
    import warnings

    _light_genai_prices()
    from genai_prices.types import TieredPrices, _collect_resolved_model_prices
    from genai_prices.units import _get_registry
    from genai_prices.validation import validate_priced_units

    registry = _get_registry()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            resolved = _collect_resolved_model_prices(price, registry)
            validate_priced_units(tuple(unit for unit, _ in resolved), registry)
        reported = tuple(
            (key, tuple(sorted(registry.units[key].dimensions.items()))) for key in _REPORTED_USAGE
        )
    except (Warning, ValueError, KeyError):
        return None
    units: list[PricedUnit] = []
    for unit, value in resolved:
        dims = tuple(sorted(unit.dimensions.items()))
        if isinstance(value, TieredPrices):
            tiers = tuple((int(t.start), t.price) for t in value.tiers)
            units.append(PricedUnit(unit.price_key, unit.usage_key, unit.per, dims, value.base, tiers, True))
        else:
            units.append(PricedUnit(unit.price_key, unit.usage_key, unit.per, dims, value))
    return PriceTable(tuple(units), reported, rates)


# --------------------------------------------------------------------------------------------
# Rates, scheduled changes, the date of the price data
# --------------------------------------------------------------------------------------------

_KEY_ORDER = (
    "input_mtok",
    "cache_write_mtok",
    "cache_write_5m_mtok",
    "cache_write_1h_mtok",
    "cache_read_mtok",
    "output_mtok",
)
_PER = {"_mtok": 1_000_000, "_kcount": 1_000}


def _label(key: str, provider: str) -> str:
    if key == "cache_write_mtok":
        return "cache write 5m" if provider == "anthropic" else "cache write"
    if key == "cache_write_5m_mtok":
        return "cache write 5m"
    if key == "cache_write_1h_mtok":
        return "cache write 1h"
    for suffix in _PER:
        key = key.removesuffix(suffix)
    return key.replace("_", " ")


def _rates(price: ModelPrice, provider: str) -> tuple[Rate, ...]:
    _light_genai_prices()
    from genai_prices.types import TieredPrices

    items = {k: v for k, v in price.__dict__.items() if v is not None and not k.startswith("_")}
    keys = [k for k in _KEY_ORDER if k in items] + [k for k in items if k not in _KEY_ORDER]
    rates: list[Rate] = []
    for key in keys:
        value = items[key]
        per = next((n for suffix, n in _PER.items() if key.endswith(suffix)), 1)
        if isinstance(value, TieredPrices):
            tiers = tuple((t.start, t.price) for t in sorted(value.tiers, key=lambda t: t.start))
            rates.append(Rate(key, _label(key, provider), per, value.base, tiers))
        elif isinstance(value, Decimal):
            rates.append(Rate(key, _label(key, provider), per, value))
    return tuple(rates)


def _changes(
    info: ModelInfo,
    pid: str,
    when: datetime,
    context: dict[str, str],
    transform: Callable[[ModelPrice], ModelPrice] | None = None,
) -> tuple[PriceChange, ...]:
    """Price changes genai-prices has scheduled after ``when`` (StartDateConstraint dates of the
    model's prices and price variants), for this service tier, in date order."""
    _light_genai_prices()
    from genai_prices.types import ConditionalPrice, StartDateConstraint

    constraints: list[object] = [v.constraint for v in info.price_variants or ()]
    if isinstance(info.prices, list):
        constraints += [p.constraint for p in info.prices if isinstance(p, ConditionalPrice)]
    dates = sorted(
        {
            c.start_date
            for c in constraints
            if isinstance(c, StartDateConstraint) and c.start_date > when.date()
        }
    )

    def rates_at(moment: datetime) -> dict[str, Rate]:
        price = info.get_prices(moment, context or None)
        if transform is not None:
            price = transform(price)
        return {r.key: r for r in _rates(price, pid)}

    previous = rates_at(when)
    changes: list[PriceChange] = []
    for day in dates:
        current = rates_at(datetime.combine(day, time(), tzinfo=UTC))
        keys = list(previous) + [k for k in current if k not in previous]
        differing = [k for k in keys if previous.get(k) != current.get(k)]
        if differing:
            changes.append(
                PriceChange(
                    on=day,
                    before=tuple(previous.get(k) for k in differing),
                    after=tuple(current.get(k) for k in differing),
                )
            )
        previous = current
    return tuple(changes)


def _warnings(
    model_id: str, service_tier: str, changes: tuple[PriceChange, ...], source: PriceSource
) -> tuple[str, ...]:
    """Scheduled changes within SCHEDULED_WITHIN_DAYS after the price date; stale price data."""
    day = source.as_of.date()
    horizon = day + timedelta(days=SCHEDULED_WITHIN_DAYS)
    tier = "" if service_tier == "standard" else f" {service_tier}"
    warnings = [
        f"{model_id}{tier} prices change on {c.on.isoformat()} ({c.text()})"
        for c in changes
        if c.on <= horizon
    ]
    if source.data_date is not None and (day - source.data_date).days > STALE_AFTER_DAYS:
        warnings.append(
            f"the price data ({PRICE_SOURCE_NAME} {source.version}) is last known current on"
            f" {source.data_date.isoformat()}, {(day - source.data_date).days} days before the price"
            f" date {day.isoformat()}: prices may have changed since (upgrade genai-prices, or give"
            " your own prices with --prices FILE)"
        )
    return tuple(warnings)


@lru_cache(maxsize=1)
def price_data_date() -> date | None:
    """The last date the installed genai-prices data is known to be current (see the module doc):
    the newer of the date this release was checked to be the newest (``_CHECKED_RELEASES``) and
    the newest "verified/checked on DATE" cited in its price comments. None if neither is known."""
    _light_genai_prices()
    import genai_prices

    found: list[date] = []
    checked = _CHECKED_RELEASES.get(genai_prices.__version__)
    if checked is not None:
        found.append(checked)
    for provider in _snapshot().providers:
        texts = [provider.price_comments or ""] + [m.price_comments or "" for m in provider.models]
        for text in texts:
            for cited in _VERIFIED.findall(text):
                try:
                    found.append(date.fromisoformat(cited))
                except ValueError:
                    continue
    return max(found, default=None)


# --------------------------------------------------------------------------------------------
# User prices (--prices FILE)
# --------------------------------------------------------------------------------------------


def _user_model_prices(
    ref: str, entry: UserModel, user_prices: UserPrices, when: datetime, service_tier: str
) -> ModelPrices:
    _light_genai_prices()
    import genai_prices

    _light_genai_prices()
    from genai_prices.types import ModelPrice

    base = _find(entry.base, entry.provider) if entry.base is not None else None
    if entry.base is not None and base is None:  # checked on loading; the data cannot change since
        raise user_prices.error(entry, "base", f"unknown {entry.provider} model {entry.base!r}")
    basis: str | None = None
    changes: tuple[PriceChange, ...] = ()
    warnings: tuple[str, ...] = ()
    data_date: date | None = None
    if entry.discount is not None:
        if base is None:  # pragma: no cover - the loader requires base with discount
            raise user_prices.error(entry, "discount", "a discount needs base: the model it applies to")
        offered = offered_service_tiers(base, when)
        if service_tier not in offered:
            raise _tier_error(entry.id, service_tier, offered, _tier_starts(base, service_tier, when))
        context = SERVICE_TIER_CONTEXT[service_tier]
        factor = 1 - entry.discount

        def discounted(price: ModelPrice) -> ModelPrice:
            return _scaled(price, factor)

        try:
            price = discounted(base.get_prices(when, context or None))
        except (LookupError, ValueError) as error:
            raise InputError(f"cannot price {base.id}: {error}", key="model") from None
        basis = f"{_percent(entry.discount)} off {base.id} in {PRICE_SOURCE_NAME} {genai_prices.__version__}"
        changes = _changes(base, entry.provider, when, context, transform=discounted)
        data_date = price_data_date()
    else:
        offered = ("standard",)
        if service_tier != "standard":
            raise _tier_error(
                entry.id,
                service_tier,
                offered,
                None,
                hint=f"{user_prices.shown} gives standard prices only; add a model with the"
                f" {service_tier} rates, or use 'discount:' with 'base:' to follow the base model's tiers",
            )
        rates = {
            "input_mtok": entry.input_mtok,
            "output_mtok": entry.output_mtok,
            "cache_read_mtok": entry.cache_read_mtok,
            "cache_write_mtok": entry.cache_write_mtok,
            "cache_write_1h_mtok": entry.cache_write_1h_mtok,
        }
        fees: dict[str, Any] = {}
        if base is not None:  # per-use fees (web searches...) follow the base model
            base_price = base.get_prices(when)
            fees = {
                k: v
                for k, v in base_price.__dict__.items()
                if v is not None and not k.startswith("_") and not k.endswith("_mtok")
            }
        price = ModelPrice(**{k: v for k, v in rates.items() if v is not None}, **fees)
    source = PriceSource(
        name=user_prices.shown,
        version=entry.source,
        as_of=when,
        urls=(),
        kind="user",
        data_date=data_date,
        basis=basis,
    )
    if entry.discount is not None:
        warnings = _warnings(entry.id, service_tier, changes, source)
    context_window = entry.context_window
    if context_window is None and base is not None:
        context_window = base.context_window
    return _build(
        ref=ref,
        model_id=entry.id,
        name=entry.id,
        provider=entry.provider,
        context_window=context_window,
        source=source,
        price=price,
        service_tier=service_tier,
        offered=offered,
        changes=changes,
        warnings=warnings,
        info=None,
        base_id=base.id if base is not None else None,
        comments=None,
    )


def _scaled(price: ModelPrice, factor: Decimal) -> ModelPrice:
    """A copy of ``price`` with every token rate (``*_mtok``, tiers included) times ``factor``;
    per-use fees unchanged."""
    _light_genai_prices()
    from genai_prices.types import ModelPrice, Tier, TieredPrices

    values: dict[str, Any] = {}
    for key, value in price.__dict__.items():
        if key.startswith("_") or value is None:
            continue
        if key.endswith("_mtok") and isinstance(value, TieredPrices):
            value = TieredPrices(
                base=value.base * factor, tiers=[Tier(t.start, t.price * factor) for t in value.tiers]
            )
        elif key.endswith("_mtok") and isinstance(value, Decimal):
            value = value * factor
        values[key] = value
    return ModelPrice(**values)


def _percent(fraction: Decimal) -> str:
    text = format(fraction * 100, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return f"{text}%"


# --------------------------------------------------------------------------------------------
# Listing
# --------------------------------------------------------------------------------------------


def list_models(
    *, as_of: datetime, pattern: str | None = None, user_prices: UserPrices | None = None
) -> list[ModelPrices]:
    """Known models of the supported providers whose id matches ``pattern`` (a substring, or a glob
    such as ``claude-*``; ``anthropic/*`` filters by provider), priced at ``as_of``, in genai-prices'
    order per provider. Models of ``user_prices`` replace the genai-prices models they override and
    follow the others of their provider."""
    import fnmatch

    provider: str | None = None
    if pattern and "/" in pattern:
        provider, _, pattern = pattern.partition("/")

    def matches(model_id: str) -> bool:
        if not pattern:
            return True
        if any(c in pattern for c in "*?["):
            return fnmatch.fnmatch(model_id, pattern)
        return pattern in model_id

    out: list[ModelPrices] = []
    for pid in SUPPORTED_PROVIDERS if provider is None else (provider,):
        mine = [] if user_prices is None else [m for m in user_prices.models if m.provider == pid]
        overridden = {m.id.lower() for m in mine}
        for model_id in known_model_ids(pid):
            if matches(model_id) and model_id.lower() not in overridden:
                out.append(resolve_model(model_id, provider=pid, as_of=as_of))
        for entry in mine:
            if matches(entry.id):
                out.append(resolve_model(entry.id, provider=pid, as_of=as_of, user_prices=user_prices))
    return out


_VERSION_PART = re.compile(r"\d{1,3}")


def release_key(model_id: str) -> tuple[int, ...]:
    """A proxy for release order (genai-prices has no release dates): the version numbers in the
    id, up to the first part that is not one (``claude-opus-4-5`` -> (4, 5), ``gpt-5.4-mini`` ->
    (5, 4), ``claude-3-5-haiku-latest`` -> (3, 5), ``gemini-2.5-pro`` -> (2, 5)). Dates
    (``2024-05-13``) and sizes (``31b``) are not version numbers."""
    parts = re.split(r"[-.]", model_id.lower())
    numbers: list[int] = []
    for part in parts[1:]:
        if part.startswith("v") and part[1:].isdigit() and not numbers:
            part = part[1:]  # claude-v1
        if _VERSION_PART.fullmatch(part):
            numbers.append(int(part))
        elif numbers:
            break
        elif part[:1].isdigit() and part.rstrip("o").isdigit():  # gpt-4o
            numbers.append(int(part.rstrip("o")))
    if not numbers and parts[0][:1] == "o" and parts[0][1:].isdigit():  # o3, o4-mini
        numbers.append(int(parts[0][1:]))
    return tuple(numbers)


def newest_first(models: list[ModelPrices]) -> list[ModelPrices]:
    """``models`` by provider (in SUPPORTED_PROVIDERS order), then by :func:`release_key`
    descending, then by id: the order of ``agentcost models``."""
    order = {pid: i for i, pid in enumerate(SUPPORTED_PROVIDERS)}
    by_id = sorted(models, key=lambda m: m.model_id)

    def key(m: ModelPrices) -> tuple[int, tuple[int, ...]]:
        version = (*release_key(m.model_id), 0, 0, 0, 0)[:4]  # gpt-5 is (5, 0): older than gpt-5.4
        return order.get(m.provider, len(order)), tuple(-n for n in version)

    return sorted(by_id, key=key)
