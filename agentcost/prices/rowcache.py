"""The price-row cache (agentcost.infra.diskcache): a repeated lookup loads no genai-prices at all.

A resolved :class:`~agentcost.prices.model.ModelPrices` with a :class:`~agentcost.prices.model.PriceTable`
is stored under :func:`row_key` (the lookup's own inputs; the store's key adds agentcost's code and
the installed genai-prices) and read back by :func:`agentcost.prices.lookup.resolve_model` before it
looks the model up in genai-prices.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from functools import lru_cache
from typing import TYPE_CHECKING

from agentcost.prices.genai import light_genai_prices, providers
from agentcost.prices.model import ModelPrices

if TYPE_CHECKING:
    from agentcost.prices.user import UserPrices


def row_key(
    model: str, provider: str | None, when: datetime, service_tier: str, user_prices: UserPrices | None
) -> str:
    """The inputs a resolved row depends on: the model and provider as asked, the price date (the
    whole timestamp if some price applies by time of day), the service tier and a user price file's
    models. The store adds the rest (:func:`agentcost.infra.diskcache.key`: agentcost's own code,
    the installed genai-prices and every other dependency)."""
    from agentcost.infra import diskcache

    user = None if user_prices is None else (user_prices.shown, repr(user_prices.models))
    return diskcache.digest(model.strip(), provider, when.date().isoformat(), service_tier, user)


def cached_row(key: str, when: datetime) -> ModelPrices | None:
    """The row stored under ``key``, as looked up at ``when`` (None if there is none usable)."""
    from agentcost.infra import cachecodec, diskcache

    cache = diskcache.get_cache()
    stored = cache.get_blob("price", key) if cache is not None else None
    if stored is None:
        return None
    try:
        row = cachecodec.decode(stored)
    except cachecodec.CodecError:
        return None
    if not isinstance(row, ModelPrices) or row.table is None:
        return None
    return replace(row, source=replace(row.source, as_of=when))


def store_row(key: str, prices: ModelPrices) -> None:
    """Cache a resolved row (not when our arithmetic cannot price it, nor when some price of the
    supported providers applies by time of day: then the date is not enough of a key)."""
    from agentcost.infra import cachecodec, diskcache

    cache = diskcache.get_cache()
    if cache is None or prices.table is None or not _prices_follow_dates():
        return
    try:
        data = cachecodec.encode(replace(prices, _price=None, _info=None))
    except cachecodec.CodecError:
        return
    cache.put_blob("price", key, data, now=False)


@lru_cache(maxsize=1)
def _prices_follow_dates() -> bool:
    """Whether every price of the supported providers changes only with the date (genai-prices'
    ``StartDateConstraint``), never with the time of day: then a row holds for a whole UTC day."""
    light_genai_prices()
    from genai_prices.types import ConditionalPrice, StartDateConstraint

    for provider in providers().values():
        for info in provider.models:
            constraints: list[object] = [v.constraint for v in info.price_variants or ()]
            if isinstance(info.prices, list):
                constraints += [p.constraint for p in info.prices if isinstance(p, ConditionalPrice)]
            if any(c is not None and not isinstance(c, StartDateConstraint) for c in constraints):
                return False
    return True
