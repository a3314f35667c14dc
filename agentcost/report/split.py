"""How one request's dollars split into uncached input, cache reads, cache writes, output and fees.

The stacked bars of ``--chart`` and ``--format svg`` draw these figures; they are derived here, from
the ledger's exact dollars and the model's rates, so no renderer re-derives a price from a label.
Cache writes are priced per lifetime: 5-minute writes at the model's (5-minute) write rate, 1-hour
writes at its 1-hour rate (a ``1h+5m`` run has both in one request).

The parts sum to the request's cost exactly: output and fees are the ledger's own figures, cache
reads and writes are tokens x the rate the request paid (its long-context tier's), and uncached
input is what remains of the ledger's input dollars. Where that cannot be done honestly (a request
routed to another model, whose rates the report does not hold; a remainder below zero) the input is
left as one part.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from agentcost.prices.rates import Rate
from agentcost.tokens.request import RequestCost, RequestUsage

ZERO = Decimal(0)


@dataclass(frozen=True)
class CostParts:
    """One request's cost in parts (exact dollars; they sum to the request's ``cost_usd``)."""

    uncached_input_usd: Decimal
    cache_read_usd: Decimal
    cache_write_usd: Decimal  # 5-minute and 1-hour writes, each at its own rate
    output_usd: Decimal
    fees_usd: Decimal  # server-tool fees

    @property
    def total_usd(self) -> Decimal:
        return sum(self.as_tuple(), ZERO)

    def as_tuple(self) -> tuple[Decimal, Decimal, Decimal, Decimal, Decimal]:
        """In the order of the charts' parts: uncached input, cache read, cache write, output, fees."""
        return (
            self.uncached_input_usd,
            self.cache_read_usd,
            self.cache_write_usd,
            self.output_usd,
            self.fees_usd,
        )


def unsplit(cost: RequestCost) -> CostParts:
    """The input as one part (its split is not known)."""
    return CostParts(cost.input_usd, ZERO, ZERO, cost.output_usd, cost.fees_usd)


def split_cost(usage: RequestUsage, cost: RequestCost, rates: Mapping[str, Rate] | None) -> CostParts:
    """``cost`` in parts; ``rates`` (by genai-prices key) are the prices the request was billed at, or
    None when they are not known (a request routed to another model)."""
    if rates is None or "input_mtok" not in rates:
        return unsplit(cost)
    n = usage.input_tokens
    plain = rates["input_mtok"]

    def usd(tokens: int, *keys: str) -> Decimal:
        """``tokens`` at the first of ``keys`` the model prices (a cached part without a price of its
        own is billed as input, as genai-prices bills it)."""
        if not tokens:
            return ZERO
        rate = next((rates[k] for k in keys if k in rates), plain)
        return rate.at(n) * tokens / rate.per

    read = usd(usage.cache_read_tokens, "cache_read_mtok")
    write = usd(usage.cache_write_tokens, "cache_write_5m_mtok", "cache_write_mtok") + usd(
        usage.cache_write_1h_tokens, "cache_write_1h_mtok"
    )
    uncached = cost.input_usd - read - write
    if uncached < 0:
        return unsplit(cost)
    return CostParts(uncached, read, write, cost.output_usd, cost.fees_usd)
