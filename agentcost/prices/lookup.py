"""Looking a model up in genai-prices (or a user price file) and fixing its prices: :func:`resolve_model`.

``resolve_model`` finds the row a written id means (:func:`agentcost.prices.locate.locate`: any
genai-prices provider, ``provider/model``, Bedrock, Azure, Vertex and OpenRouter ids), looks it up
once, at a fixed timestamp, and keeps genai-prices' price object;
:meth:`ModelPrices.cost <agentcost.prices.pricing.ModelPrices.cost>` then prices one request with it,
no clock. genai-prices is imported lazily (:mod:`agentcost.prices.genai`) and its
``LookupError``/``ValueError`` are turned into :class:`InputError` here. A row resolved once is
cached (:mod:`agentcost.prices.rowcache`).

Service tiers (``standard``, ``batch``, ``flex``, ``priority``) are genai-prices price variants
selected with a ``price_context``; genai-prices silently falls back to standard prices for a context
no variant matches, so :func:`resolve_model` checks the tier is offered and refuses it otherwise.
A user price file (``--prices``, :mod:`agentcost.prices.user`) overrides or adds models.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from agentcost.errors import InputError, UnfitModel
from agentcost.prices.daytime import OffPeak, off_peak_windows, standard_moment
from agentcost.prices.gpdata import PRICE_SOURCE_NAME
from agentcost.prices.pricing import ModelPrices
from agentcost.prices.rates import (
    PriceChange,
    PriceSource,
    Rate,
    price_data_date,
    price_warnings,
    rates_of,
    release_warnings,
    scheduled_changes,
)
from agentcost.prices.rowcache import cached_row, row_key, store_row
from agentcost.prices.table import REPORTED_USAGE, PricedUnit, PriceTable

if TYPE_CHECKING:
    from genai_prices.types import ModelInfo, ModelPrice

    from agentcost.prices.locate import Located
    from agentcost.prices.user import UserModel, UserPrices

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


def _suggest(model: str, provider: str | None, user_prices: UserPrices | None = None) -> str:
    """:func:`~agentcost.prices.genai.suggest_model`, the models of ``user_prices`` included."""
    from agentcost.prices.catalog import suggest_model

    mine = [] if user_prices is None else [m.id for m in user_prices.models if provider in (None, m.provider)]
    return suggest_model(model, provider, mine)


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


def resolve_model(
    model: str,
    *,
    provider: str | None = None,
    as_of: datetime,
    service_tier: str = "standard",
    user_prices: UserPrices | None = None,
    cached: bool = True,
    at_time: bool | None = None,
) -> ModelPrices:
    """Find ``model`` (optionally of ``provider``) and fix its prices in force at ``as_of``.

    ``model`` may carry its provider as a prefix (``"openai/gpt-5"``). ``service_tier`` picks the
    tier's prices (:data:`SERVICE_TIERS`). ``user_prices`` (a loaded ``--prices`` file) is searched
    first, and its models replace genai-prices models of the same provider and id (aliases too).

    Raises :class:`InputError` (key ``model``, ``provider`` or ``service_tier``) for an unknown model
    (with close names suggested), an unknown provider, a model several providers serve with none of
    them its maker (naming them as ``provider/model``), a model not of the given provider, an Azure
    deployment name, or a service tier the model does not offer at ``as_of`` (naming the ones it
    offers).

    ``cached``: the row is looked up in and stored to the disk cache (one model priced without
    importing genai-prices); a caller pricing every model (``agentcost models``) has genai-prices
    loaded already and passes False: decoding 2,000 stored rows is slower than building them.

    ``at_time``: whether the time of ``as_of`` picks a model's time-of-day prices (DeepSeek's
    off-peak hours). False: ``as_of`` stands for its day, priced at the day's standard rates
    (:mod:`agentcost.prices.daytime`). None: True unless ``as_of`` is midnight UTC, which is what
    a date alone becomes; a caller that knows a time was given (``T00:00``) says so.
    """
    when = _utc(as_of)
    timed = when.time() != time(0) if at_time is None else at_time
    _check_service_tier(service_tier)
    if not cached:
        return _resolve(model, provider, when, service_tier, user_prices, timed)
    key = row_key(model, provider, when, service_tier, user_prices)
    seen = _RESOLVED.get((key, when, timed))
    if seen is not None:
        return seen
    prices = cached_row(key, when, timed)
    if prices is None:
        prices = _resolve(model, provider, when, service_tier, user_prices, timed)
        store_row(key, prices)
    if len(_RESOLVED) >= MAX_RESOLVED:
        del _RESOLVED[next(iter(_RESOLVED))]  # the oldest: a bound, not an LRU (few rows per run)
    _RESOLVED[key, when, timed] = prices
    return prices


MAX_RESOLVED = 256
_RESOLVED: dict[tuple[str, datetime, bool], ModelPrices] = {}
"""Rows resolved in this process, by :func:`~agentcost.prices.rowcache.row_key`, time and timing:
a batch, a comparison or a replay asks for the same few rows again and again, and a row is frozen
and depends on nothing else (the code and the installed genai-prices do not change within a run)."""


def _resolve(
    model: str,
    provider: str | None,
    when: datetime,
    service_tier: str,
    user_prices: UserPrices | None,
    timed: bool = True,
) -> ModelPrices:
    # the catalog and the resolver are imported here: a lookup the row cache answers needs neither
    from agentcost.prices.locate import check_provider, locate, locate_in, split_provider

    written = model.strip()
    if not written:
        raise InputError("model must not be empty", key="model", hint=_suggest("", provider, user_prices))
    pid = None if provider is None else check_provider(provider)
    if user_prices is not None:
        head, ref = split_provider(written)  # "openai/acme-coder": a user id has no "/"
        mine_of = pid if head is None or pid not in (None, head) else head
        mine_ref = ref if head is not None and pid in (None, head) else written
        mine = user_prices.find(mine_ref, mine_of)
        if mine is not None:
            return _user_model_prices(written, mine, user_prices, when, service_tier, timed)
        elsewhere = user_prices.find(mine_ref, None) if mine_of is not None else None
        if elsewhere is not None and mine_of is not None and locate_in(mine_of, mine_ref) is None:
            raise InputError(
                f"model {mine_ref!r} belongs to provider {elsewhere.provider!r} in {user_prices.shown},"
                f" not {mine_of!r}",
                key="model",
                hint=f"set provider: {elsewhere.provider}, or leave provider out",
            )
    try:
        found = locate(written, pid)
    except InputError as error:
        if user_prices is not None and error.key == "model" and error.message.startswith("unknown "):
            raise InputError(error.message, key=error.key, hint=_suggest(written, pid, user_prices)) from None
        raise
    if user_prices is not None:  # an alias ("claude-sonnet-4-5-20250929") of a model the file overrides
        mine = user_prices.find(found.info.id, found.provider)
        if mine is not None:
            return _user_model_prices(written, mine, user_prices, when, service_tier, timed)
    return _model_prices(written, found, when, service_tier, timed)


# --------------------------------------------------------------------------------------------
# Service tiers, and a model's prices from genai-prices
# --------------------------------------------------------------------------------------------


_LISTING = "run 'agentcost models' to list known models"


def unquoted(err: InputError) -> InputError:
    """``err``, an error of :func:`resolve_model` about a model or provider name read from a file whose
    text is never quoted (a subagent file, a ``--models`` file: docs/security.md), as the kind of
    problem alone: no part of the name, and a hint only when it names agentcost's own ids (``did
    you mean``); the file, line and key are kept. Other errors (a service tier) come back as they are."""
    if err.key not in ("model", "provider"):
        return err
    message = "not a model agentcost can price" if err.key == "model" else "not a provider agentcost knows"
    hint = err.hint if err.hint is not None and err.hint.startswith("did you mean") else _LISTING
    return InputError(message, file=err.file, line=err.line, key=err.key, hint=hint)


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
    from genai_prices.types import StartDateConstraint

    starts = [
        v.constraint.start_date
        for v in info.price_variants or ()
        if _variant_matches(v, tier)
        and isinstance(v.constraint, StartDateConstraint)
        and v.constraint.start_date > when.date()
    ]
    return min(starts, default=None)


def tier_start(model: str, provider: str | None, as_of: datetime, service_tier: str) -> date | None:
    """The first date after ``as_of`` from which genai-prices prices ``model`` at ``service_tier``
    (None: no later prices): where a tier's prices start later than a usage export's day."""
    from agentcost.prices.locate import check_provider, locate

    found = locate(model.strip(), None if provider is None else check_provider(provider))
    return _tier_starts(found.info, service_tier, _utc(as_of))


def _tier_error(
    model_id: str, tier: str, offered: tuple[str, ...], starts: date | None, hint: str | None = None
) -> InputError:
    later = f"; genai-prices has its {tier} prices from {starts.isoformat()}" if starts else ""
    return UnfitModel(
        f"{model_id} does not offer the {tier} service tier (it offers: {', '.join(offered)}){later}",
        key="service_tier",
        hint=hint or f"use one of: {', '.join(offered)}",
    )


def _model_prices(
    ref: str, found: Located, when: datetime, service_tier: str = "standard", timed: bool = True
) -> ModelPrices:
    import genai_prices

    from agentcost.prices import catalog

    info, pid = found.info, found.provider
    # genai-prices applies no price variant to another provider's row (azure/gpt-4o batch is the
    # standard price), so such a model offers the standard tier only
    offered = ("standard",) if found.via_fallback else offered_service_tiers(info, when)
    if service_tier not in offered:
        raise _tier_error(info.id, service_tier, offered, _tier_starts(info, service_tier, when))
    context = SERVICE_TIER_CONTEXT[service_tier]
    windows = time_windows(info)
    try:
        price: ModelPrice = info.get_prices(_moment(info, when, windows, context, timed), context or None)
    except (LookupError, ValueError) as error:
        raise InputError(f"cannot price {info.id}: {error}", key="model") from None
    source = PriceSource(
        name=PRICE_SOURCE_NAME,
        version=genai_prices.__version__,
        as_of=when,
        urls=tuple(catalog.provider(pid).pricing_urls or ()),
        data_date=price_data_date(),
    )
    changes = scheduled_changes(info, pid, when, context)
    return _build(
        ref=ref,
        model_id=info.id,
        name=info.name or info.id,
        provider=pid,
        context_window=_context_window(found.price_provider, info),
        source=source,
        price=price,
        service_tier=service_tier,
        offered=offered,
        changes=changes,
        warnings=(
            *price_warnings(info.id, service_tier, changes, source),
            *release_warnings(found.price_provider, info.id, when.date()),
        ),
        info=info,
        deprecated=bool(info.deprecated),
        comments=info.price_comments,
        price_provider=found.price_provider,
        host=found.host,
        underlying_id=found.underlying_id,
        time_of_day=windows,
        off_peak=off_peak_windows(info, when.date(), windows, context) if windows else (),
        at_time=timed or not windows,
    )


def _moment(
    info: ModelInfo,
    when: datetime,
    windows: tuple[tuple[str, str], ...],
    context: dict[str, str],
    timed: bool,
) -> datetime:
    """The moment a row is priced at: ``when``, or for a date alone (``timed`` False) of a row whose
    prices follow the time of day, the day's first moment at its standard rates."""
    return when if timed or not windows else standard_moment(info, when.date(), windows, context)


def time_windows(info: ModelInfo) -> tuple[tuple[str, str], ...]:
    """The daily UTC windows ("HH:MM", "HH:MM") of a row's time-of-day prices, in its data's order."""
    from genai_prices.types import ConditionalPrice, TimeOfDateConstraint

    windows: dict[tuple[str, str], None] = {}
    for conditional in info.prices if isinstance(info.prices, list) else ():
        constraint = conditional.constraint if isinstance(conditional, ConditionalPrice) else None
        if isinstance(constraint, TimeOfDateConstraint):
            windows.setdefault((f"{constraint.start_time:%H:%M}", f"{constraint.end_time:%H:%M}"))
    return tuple(windows)


def _context_window(provider: str, info: ModelInfo) -> int | None:
    """genai-prices' context window, else the published one from facts.yaml; None when unknown."""
    if info.context_window is not None:
        return info.context_window
    from agentcost import facts

    fact = facts.context_window(provider, info.id)
    return None if fact is None else fact.value


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
    price_provider: str = "",
    host: str | None = None,
    underlying_id: str | None = None,
    time_of_day: tuple[tuple[str, str], ...] = (),
    off_peak: tuple[OffPeak, ...] = (),
    at_time: bool = True,
) -> ModelPrices:
    from genai_prices.types import TieredPrices

    input_mtok = _base(price.input_mtok)
    output_mtok = _base(price.output_mtok)
    if input_mtok is None or output_mtok is None:
        raise InputError(
            f"{model_id} has no per-token input and output prices at {source.as_of:%Y-%m-%d}"
            + ("" if any(v is not None for v in price.__dict__.values()) else " (a free row: no prices)"),
            key="model",
            hint="agentcost prices chat models; run 'agentcost models' to list them",
        )
    values = [v for v in price.__dict__.values() if v is not None]
    thresholds = sorted({t.start for v in values if isinstance(v, TieredPrices) for t in v.tiers})
    write_5m = price.cache_write_5m_mtok  # Anthropic's 5m rate is usually keyed cache_write_mtok
    rates = rates_of(price, provider)
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
        price_provider=price_provider,
        host=host,
        underlying_id=underlying_id,
        time_of_day=time_of_day,
        off_peak=off_peak,
        at_time=at_time,
    )


def _price_table(price: ModelPrice, rates: tuple[Rate, ...]) -> PriceTable | None:
    """``price`` as a :class:`PriceTable`, from genai-prices' own resolution of its units (the
    same order, the same validation). None where genai-prices warns about or refuses the price:
    such a model is priced by genai-prices itself, and never cached."""
    import warnings

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
            (key, tuple(sorted(registry.units[key].dimensions.items()))) for key in REPORTED_USAGE
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
# User prices (--prices FILE)
# --------------------------------------------------------------------------------------------


def _user_model_prices(
    ref: str, entry: UserModel, user_prices: UserPrices, when: datetime, service_tier: str, timed: bool = True
) -> ModelPrices:
    import genai_prices
    from genai_prices.types import ModelPrice

    from agentcost.prices.locate import locate

    located: Located | None = None
    if entry.base is not None:
        try:
            located = locate(entry.base, entry.provider)
        except InputError:  # checked on loading; the data cannot change since
            raise user_prices.error(entry, "base", f"unknown {entry.provider} model") from None
    base = None if located is None else located.info
    basis: str | None = None
    changes: tuple[PriceChange, ...] = ()
    warnings: tuple[str, ...] = ()
    data_date: date | None = None
    if entry.discount is not None:
        if base is None:  # pragma: no cover - the loader requires base with discount
            raise user_prices.error(entry, "discount", "a discount needs base: the model it applies to")
        fallback = located is not None and located.via_fallback
        offered = ("standard",) if fallback else offered_service_tiers(base, when)
        if service_tier not in offered:
            raise _tier_error(entry.id, service_tier, offered, _tier_starts(base, service_tier, when))
        context = SERVICE_TIER_CONTEXT[service_tier]
        factor = 1 - entry.discount

        def discounted(price: ModelPrice) -> ModelPrice:
            return _scaled(price, factor)

        windows = time_windows(base) if located is not None else ()
        try:
            price = discounted(base.get_prices(_moment(base, when, windows, context, timed), context or None))
        except (LookupError, ValueError) as error:
            raise InputError(f"cannot price {base.id}: {error}", key="model") from None
        basis = f"{_percent(entry.discount)} off {base.id} in {PRICE_SOURCE_NAME} {genai_prices.__version__}"
        changes = scheduled_changes(base, entry.provider, when, context, transform=discounted)
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
        warnings = price_warnings(entry.id, service_tier, changes, source)
    context_window = entry.context_window
    if context_window is None and located is not None:
        context_window = _context_window(located.price_provider, located.info)
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
        base_id=None if located is None else located.underlying_id or located.info.id,
        comments=None,
        price_provider=located.price_provider if located is not None and entry.discount is not None else "",
        host=None if located is None else located.host,
        time_of_day=time_windows(located.info) if located is not None and entry.discount is not None else (),
        off_peak=(
            off_peak_windows(
                located.info, when.date(), time_windows(located.info), SERVICE_TIER_CONTEXT[service_tier]
            )
            if located is not None and entry.discount is not None
            else ()
        ),
        at_time=timed
        or not (located is not None and entry.discount is not None and time_windows(located.info)),
    )


def _scaled(price: ModelPrice, factor: Decimal) -> ModelPrice:
    """A copy of ``price`` with every token rate (``*_mtok``, tiers included) times ``factor``;
    per-use fees unchanged."""
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
