"""How one request's dollars split into uncached input, cache reads, cache writes, output and fees.

The stacked bars of ``--chart`` and ``--format svg`` draw these figures. They are the parts the
pricer put on the ledger line (:class:`~agentcost.tokens.request.RequestCost`, from
:meth:`agentcost.prices.pricing.ModelPrices.price`): read here, never re-derived from tokens and
rates, so no report or renderer prices a request a second time. Cache writes are priced per
lifetime there (5-minute and 1-hour writes, each at its own rate) and drawn as one part.

The parts sum to the request's cost exactly. A request routed to another model is split like the
others: its line holds the parts its own model's prices gave. Where the ledger line has no parts (a
pricer that gives the sums only), the input is left as one part.
"""

from __future__ import annotations

from decimal import Decimal

from agentcost.infra.record import record
from agentcost.tokens.request import RequestCost

ZERO = Decimal(0)


@record
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


def split_cost(cost: RequestCost) -> CostParts:
    """The ledger line ``cost`` in the charts' parts: its own parts, read (a line without parts:
    :func:`unsplit`)."""
    uncached = cost.uncached_input_usd
    if uncached is None:
        return unsplit(cost)
    write = cost.cache_write_5m_usd + cost.cache_write_1h_usd
    return CostParts(uncached, cost.cache_read_usd, write, cost.output_usd, cost.fees_usd)
