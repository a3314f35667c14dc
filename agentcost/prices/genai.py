"""The genai-prices database (pydantic's price data, offline): loading it, and finding models in it.

The names other stages use, in one place: genai-prices loaded lazily and offline
(:mod:`agentcost.prices.gpdata`), its models of every provider classified
(:mod:`agentcost.prices.catalog`), and what a user writes resolved to one of them
(:mod:`agentcost.prices.locate`). Both :mod:`agentcost.prices.lookup` and the user price file's
loader (:mod:`agentcost.prices.user`) find models through these. The catalog and the resolver are
imported on first use (a run whose prices the row cache holds needs neither).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from agentcost.prices.gpdata import MAIN_PROVIDERS, PRICE_SOURCE_NAME, snapshot

if TYPE_CHECKING:
    from agentcost.prices.locate import Located

__all__ = [
    "MAIN_PROVIDERS",
    "PRICE_SOURCE_NAME",
    "check_provider",
    "known_model_ids",
    "locate",
    "provider_ids",
    "snapshot",
    "suggest_model",
]


def known_model_ids(provider: str | None = None) -> list[str]:
    """:func:`agentcost.prices.catalog.known_model_ids`: the ids agentcost can price."""
    from agentcost.prices import catalog

    return catalog.known_model_ids(provider)


def provider_ids() -> tuple[str, ...]:
    """Every genai-prices provider id (:func:`agentcost.prices.catalog.provider_ids`)."""
    from agentcost.prices import catalog

    return catalog.provider_ids()


def suggest_model(model: str, provider: str | None, more_ids: Iterable[str] = ()) -> str:
    """:func:`agentcost.prices.catalog.suggest_model`: the closest ids, and how to list them."""
    from agentcost.prices import catalog

    return catalog.suggest_model(model, provider, more_ids)


def check_provider(name: str, *, key: str = "provider") -> str:
    """:func:`agentcost.prices.locate.check_provider`: the provider id ``name`` names."""
    from agentcost.prices import locate as resolver

    return resolver.check_provider(name, key=key)


def locate(model: str, provider: str | None = None) -> Located:
    """:func:`agentcost.prices.locate.locate`: the genai-prices row ``model`` resolves to."""
    from agentcost.prices import locate as resolver

    return resolver.locate(model, provider)
