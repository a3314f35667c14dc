"""One billed request: its token usage, the pricer that prices it, and the cache policy that splits its
input into cached reads, writes and uncached tokens.

The vocabulary the accountant (:mod:`agentcost.loop.accountant`) and routed token counts
(:class:`~agentcost.tokens.counts.Route`) share; data types only, no I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from agentcost.infra.record import record
from agentcost.scenario.model import CacheTTL, CachingMode, cache_ttl_label

CacheStyle = Literal["explicit", "automatic", "stored"]

TTL_SECONDS: dict[CacheTTL, int] = {"5m": 300, "1h": 3_600}
"""Lifetime of an Anthropic cache entry after its last use (pricing-facts.md §B.1)."""


@record
class RequestUsage:
    """Tokens of one billed request. ``input_tokens`` counts every prompt token, cached or not."""

    input_tokens: int
    output_tokens: int
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0  # 5-minute writes, or the provider's only write bucket
    cache_write_1h_tokens: int = 0
    # billable server-tool uses of this response (the first request of a round with continuations)
    web_searches: int = 0
    web_fetches: int = 0
    code_executions: int = 0
    container_seconds: Decimal | None = None  # code-execution container time billed (None: no container)
    # OpenAI chat search models (gpt-4o-search-preview...): web searches of the preview tool, priced
    # per call by facts.yaml ``web_search_preview`` (agentcost.prices.billing counts them)
    web_search_previews: int = 0


@dataclass(frozen=True, slots=True)  # slots: one per ledger row, made on the accountant's hot path
class RequestCost:
    """One request's price, exact, as :meth:`agentcost.prices.pricing.ModelPrices.price` works it out:
    the sums and the parts they are made of. The ledger keeps it per request and reports read its
    parts; nothing after the pricer multiplies tokens by a rate.

    ``input_usd`` is ``uncached_input_usd + cache_read_usd + cache_write_5m_usd + cache_write_1h_usd``
    (a cached part without a price of its own is billed at the input rate, and shown in its own part
    at that rate); ``fees_usd`` is the sum of ``fees`` (container time included); ``total_usd`` is
    ``input_usd + output_usd + fees_usd``."""

    input_usd: Decimal
    output_usd: Decimal
    total_usd: Decimal  # input + output + fees
    fees_usd: Decimal = Decimal(0)  # server-tool fees (no input/output direction)
    container_usd: Decimal | None = Decimal(0)  # container time, part of fees_usd (None: rate unknown)
    # input_usd in parts; None: not split (a pricer that gives the sums only: all of it is input)
    uncached_input_usd: Decimal | None = None
    cache_read_usd: Decimal = Decimal(0)
    cache_write_5m_usd: Decimal = Decimal(0)  # 5-minute writes, or the provider's only write bucket
    cache_write_1h_usd: Decimal = Decimal(0)
    # fees_usd in parts, each fee the request pays: ("web_search", usd), ("code_execution", usd),
    # ("web_fetch", usd), ("container", usd), or another per-use price of the model by its usage
    fees: tuple[tuple[str, Decimal], ...] = ()


Pricer = Callable[[RequestUsage], RequestCost]
"""Prices one request (:meth:`agentcost.prices.pricing.ModelPrices.price`, or a test's stand-in); must
be deterministic (the price date is fixed before the accountant runs)."""


@record
class CachePolicy:
    """How a provider caches the prompt: the mode, the style, the minimum prefix and the TTL."""

    mode: CachingMode
    style: CacheStyle
    min_tokens: int  # prefixes shorter than this are not cached (no error, just no cache)
    ttl: CacheTTL = "5m"
    increment: int = 1  # automatic caching hits in steps of this many tokens past the minimum
    bills_writes: bool = True  # False where the provider does not charge for cache writes
    ttl_seconds: int | None = None  # entries expire after this long unused (None: never)
    storage_usd_per_mtok_hour: Decimal | None = None  # ``stored`` caches: storage price
    prefix_ttl: CacheTTL | None = None  # explicit style: the prefix breakpoint's own TTL (None: ``ttl``)

    @property
    def ttl_label(self) -> str:
        """``5m``, ``1h``, or ``PREFIX+CONVERSATION`` (``1h+5m``) with two TTLs."""
        return cache_ttl_label(self.ttl, self.prefix_ttl if self.style == "explicit" else None)

    def prefix_ttl_seconds(self) -> int | None:
        """How long the prefix breakpoint's entry lives unused, when it outlives the others."""
        if self.style != "explicit" or self.prefix_ttl is None or self.ttl_seconds is None:
            return None
        seconds = TTL_SECONDS[self.prefix_ttl]
        return seconds if seconds > self.ttl_seconds else None
