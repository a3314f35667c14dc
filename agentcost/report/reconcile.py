"""The report of ``agentcost reconcile``: providers' usage and cost exports held against what agentcost
says that usage costs, per model and day (:class:`Row`), per day (:class:`Day`) and in total
(:class:`Reconciliation`), built by :func:`agentcost.commands.reconcile.reconcile`;
:class:`ProjectComparison` holds a project's estimate against each day (``--project``).
:mod:`agentcost.render.reconcile` formats them.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from agentcost.infra.record import record


@record
class Row:
    """One model on one day: its tokens, agentcost's price of them, and the export's cost."""

    provider: str
    day: date
    model: str
    tiers: tuple[str, ...]
    input_tokens: int  # uncached
    cache_read_tokens: int
    cache_write_5m_tokens: int
    cache_write_1h_tokens: int
    output_tokens: int
    web_searches: int
    agentcost_usd: Decimal | None  # tokens and fees; None: agentcost cannot price it
    fees_usd: Decimal | None  # server-tool fees, part of agentcost_usd
    export_usd: Decimal | None  # the cost export's amount for this model and day (None: not given)
    status: str  # match, differs, unknown, no-usage, no-costs, per-day
    reasons: tuple[str, ...] = ()

    @property
    def tokens_usd(self) -> Decimal | None:
        """agentcost's price of the row's tokens, fees left out (they are compared per day)."""
        if self.agentcost_usd is None or self.fees_usd is None:
            return None
        return self.agentcost_usd - self.fees_usd

    @property
    def difference_usd(self) -> Decimal | None:
        """Export minus agentcost, for the model's token costs (fees are compared per day)."""
        tokens = self.tokens_usd
        return None if self.export_usd is None or tokens is None else self.export_usd - tokens


@record
class Day:
    """One provider's day: agentcost's total of the rows it can price beside the cost export's total."""

    provider: str
    day: date
    agentcost_usd: Decimal
    unknown_rows: int
    export_usd: Decimal | None
    status: str
    reasons: tuple[str, ...] = ()
    excluded_usd: Decimal = Decimal(0)  # the export's amounts for rows agentcost cannot price

    @property
    def compared_export_usd(self) -> Decimal | None:
        return None if self.export_usd is None else self.export_usd - self.excluded_usd

    @property
    def difference_usd(self) -> Decimal | None:
        """Export minus agentcost, the export's amounts for rows agentcost cannot price left out."""
        compared = self.compared_export_usd
        return None if compared is None else compared - self.agentcost_usd


@record
class Reconciliation:
    """What ``agentcost reconcile`` reports: rows per model and day, days, totals, notes."""

    sources: tuple[tuple[str, str], ...]  # (path, kind)
    rows: tuple[Row, ...]
    days: tuple[Day, ...]
    notes: tuple[str, ...] = ()

    @property
    def agentcost_usd(self) -> Decimal:
        return sum((d.agentcost_usd for d in self.days), Decimal(0))

    @property
    def compared_agentcost_usd(self) -> Decimal:
        """agentcost's total over the days a cost export covers."""
        return sum((d.agentcost_usd for d in self.days if d.export_usd is not None), Decimal(0))

    @property
    def export_usd(self) -> Decimal | None:
        given = [d.export_usd for d in self.days if d.export_usd is not None]
        return sum(given, Decimal(0)) if given else None

    @property
    def excluded_usd(self) -> Decimal:
        """The export's amounts for rows agentcost cannot price (left out of the difference)."""
        return sum((d.excluded_usd for d in self.days), Decimal(0))

    @property
    def difference_usd(self) -> Decimal | None:
        """Export minus agentcost over the days a cost export covers, rows agentcost cannot price
        left out on both sides."""
        given = [d.difference_usd for d in self.days if d.difference_usd is not None]
        return sum(given, Decimal(0)) if given else None

    @property
    def unknown_rows(self) -> int:
        return sum(1 for r in self.rows if r.agentcost_usd is None)

    @property
    def period(self) -> tuple[date, date] | None:
        return (self.days[0].day, self.days[-1].day) if self.days else None
