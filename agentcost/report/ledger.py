"""The ledger a person reads: a long one as its first and last requests, the middle summed in one line."""

from __future__ import annotations

from decimal import Decimal

from agentcost.infra.record import record
from agentcost.report.estimate import Report, RequestLine

ELIDE_OVER = 50
"""A ledger of more requests than this is shown elided (``--all``: every request)."""
HEAD = 20  # requests shown at the start of an elided ledger
TAIL = 10  # and at its end


@record
class Middle:
    """The requests an elided ledger leaves out (``first`` to ``last``, their # numbers), summed as the
    table's rows would show them: each request's own figures plus the subagents folded under it."""

    first: int
    last: int
    requests: int  # request rows left out (their subagents' requests not counted)
    input_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    output_tokens: int
    cost_usd: Decimal
    running_usd: Decimal  # the running total after the last request left out


@record
class LedgerView:
    """The requests a table shows: the first ones, the middle summed, and the last ones."""

    head: tuple[RequestLine, ...]
    middle: Middle | None  # None: every request is in ``head``
    tail: tuple[RequestLine, ...]


def ledger_view(report: Report, *, show_all: bool = False) -> LedgerView:
    """The requests a table shows: all of them when there are at most :data:`ELIDE_OVER` (or
    ``show_all``), else the first :data:`HEAD`, a :class:`Middle` and the last :data:`TAIL`."""
    rows = report.requests
    if show_all or len(rows) <= ELIDE_OVER:
        return LedgerView(rows, None, ())
    hidden = rows[HEAD : len(rows) - TAIL]
    subs = [s.report.totals for r in hidden for s in r.subagents]
    writes = sum(r.cache_write_tokens for r in hidden) + sum(t.cache_write_tokens for t in subs)
    middle = Middle(
        first=hidden[0].index,
        last=hidden[-1].index,
        requests=len(hidden),
        input_tokens=sum(r.input_tokens for r in hidden) + sum(t.input_tokens for t in subs),
        cache_read_tokens=sum(r.cache_read_tokens for r in hidden) + sum(t.cache_read_tokens for t in subs),
        cache_write_tokens=writes,
        output_tokens=sum(r.output_tokens for r in hidden) + sum(t.output_tokens for t in subs),
        cost_usd=sum((r.cost_usd for r in hidden), Decimal(0))
        + sum((s.cost_usd for r in hidden for s in r.subagents), Decimal(0)),
        running_usd=hidden[-1].running_usd,
    )
    return LedgerView(rows[:HEAD], middle, rows[len(rows) - TAIL :])
