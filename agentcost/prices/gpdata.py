"""genai-prices' bundled price data, offline and loaded lazily: :func:`snapshot`.

genai-prices is imported lazily, inside functions (it costs ~0.15 s): a run whose price rows are
in the price-row cache (:mod:`agentcost.prices.rowcache`) never imports it. The modules that find
models in the data build on this one (:mod:`agentcost.prices.catalog`, :mod:`agentcost.prices.locate`).
"""

from __future__ import annotations

from typing import Any

PRICE_SOURCE_NAME = "genai-prices"
# The providers `agentcost models` lists first (and alone without a filter): the makers agentcost
# started with, whose counting rules are exact or measured.
MAIN_PROVIDERS = ("anthropic", "openai", "google")


def snapshot() -> Any:
    """genai-prices' bundled price data (its ``DataSnapshot``)."""
    from genai_prices import data_snapshot

    return data_snapshot.get_snapshot()
