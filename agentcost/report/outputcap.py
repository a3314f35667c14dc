"""The warning of ``limits.max_tokens``: how many requests of a ledger the output cap cut, and by how much."""

from __future__ import annotations

from agentcost.loop.accountant import Ledger


def output_cap_warning(ledger: Ledger, cap: int | None) -> list[str]:
    """One warning when ``cap`` cut the output of some request of ``ledger`` (``LedgerRow.output_cut``,
    from :func:`agentcost.tokens.dynamics.cap_output`), else none."""
    cut = [r.output_cut for r in ledger.rows if r.output_cut]
    if cap is None or not cut:
        return []
    return [
        f"limits.max_tokens {cap:,} cut the output of {len(cut):,} of {ledger.totals.requests:,} requests"
        f" (by {sum(cut):,} tokens): a real run would be truncated there"
    ]
