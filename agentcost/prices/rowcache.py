"""The price-row cache (agentcost.infra.diskcache): a repeated lookup loads no genai-prices at all.

A resolved :class:`~agentcost.prices.pricing.ModelPrices` with a :class:`~agentcost.prices.pricing.PriceTable`
is stored under :func:`row_key` (the lookup's own inputs; the store's key adds agentcost's code and
the installed genai-prices) and read back by :func:`agentcost.prices.lookup.resolve_model` before it
looks the model up in genai-prices. A row some of whose prices apply by the time of day (DeepSeek's
peak hours) is stored under its timestamp (a date alone: under the day's standard rates), and the
day's key holds a marker saying so (:class:`ByTimeOfDay`).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from agentcost.infra.record import record
from agentcost.prices.pricing import ModelPrices

if TYPE_CHECKING:
    from agentcost.prices.user import UserPrices


@record
class ByTimeOfDay:
    """Stored under a day's key: the row's prices follow the time of day, so it is stored under the
    key and the timestamp, or a date alone's standard rates (:func:`_timed_key`)."""

    windows: tuple[tuple[str, str], ...]


def _timed_key(key: str, when: datetime, at_time: bool) -> str:
    from agentcost.infra import diskcache

    return diskcache.digest(key, when.isoformat() if at_time else "standard rates of the day")


def row_key(
    model: str, provider: str | None, when: datetime, service_tier: str, user_prices: UserPrices | None
) -> str:
    """The inputs a resolved row depends on: the model and provider as asked, the price date (a row
    whose prices follow the time of day is stored under the timestamp too, :class:`ByTimeOfDay`),
    the service tier and a user price file's models. The store adds the rest
    (:func:`agentcost.infra.diskcache.key`: agentcost's own code, the installed genai-prices and
    every other dependency)."""
    from agentcost.infra import diskcache

    user = None if user_prices is None else (user_prices.shown, repr(user_prices.models))
    return diskcache.digest(model.strip(), provider, when.date().isoformat(), service_tier, user)


def cached_row(key: str, when: datetime, at_time: bool = True) -> ModelPrices | None:
    """The row stored under ``key``, as looked up at ``when`` (``at_time``: by its time of day; False:
    a date alone, :func:`agentcost.prices.lookup.resolve_model`), None if there is none usable."""
    from agentcost.infra import cachecodec, diskcache

    cache = diskcache.get_cache()
    if cache is None:
        return None
    stored = cache.get_blob("price", key)
    try:
        row = cachecodec.decode(stored) if stored is not None else None
        if isinstance(row, ByTimeOfDay):
            stored = cache.get_blob("price", _timed_key(key, when, at_time))
            row = cachecodec.decode(stored) if stored is not None else None
    except cachecodec.CodecError:
        return None
    if not isinstance(row, ModelPrices) or row.table is None:
        return None
    return replace(row, source=replace(row.source, as_of=when), at_time=at_time or not row.time_of_day)


def store_row(key: str, prices: ModelPrices) -> None:
    """Cache a resolved row (not when our arithmetic cannot price it); a row whose prices follow
    the time of day under its timestamp, with a :class:`ByTimeOfDay` marker under the day's key."""
    from agentcost.infra import cachecodec, diskcache

    cache = diskcache.get_cache()
    if cache is None or prices.table is None:
        return
    try:
        data = cachecodec.encode(replace(prices, _price=None, _info=None))
        if prices.time_of_day:
            marker = cachecodec.encode(ByTimeOfDay(prices.time_of_day))
            cache.put_blob("price", key, marker, now=False)
            key = _timed_key(key, prices.source.as_of, prices.at_time)
    except cachecodec.CodecError:
        return
    cache.put_blob("price", key, data, now=False)
