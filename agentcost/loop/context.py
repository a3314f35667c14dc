"""What context editing and deferred tools did to a run, for the report: each effect against its
baseline run (no editing; every tool loaded up front).

The mechanics themselves are token-side (:mod:`agentcost.tokens.context`) and applied by the
accountant (:mod:`agentcost.loop.accountant`). See docs/accounting.md ("Context editing",
"Deferred tools and tool search").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from decimal import Decimal
from typing import TYPE_CHECKING

from agentcost.infra.record import record
from agentcost.scenario.model import Scenario
from agentcost.tokens.context import without_deferral
from agentcost.tokens.counts import TokenCounts

if TYPE_CHECKING:
    from agentcost.loop.accountant import Ledger


@record
class ContextEditingEffect:
    """What context editing did over the run, and the run's cost without it."""

    edits: int  # requests before which a clearing happened
    results_cleared: int
    tokens_cleared: int  # net tokens removed per request from then on, summed over the clearings
    cost_usd: Decimal
    baseline_usd: Decimal  # the same run with no editing

    @property
    def saving_usd(self) -> Decimal:
        """Positive: editing saves; negative: it costs more (lost cache reads)."""
        return self.baseline_usd - self.cost_usd


@record
class ToolSearchEffect:
    """What deferring tools did, and the run's cost with every tool loaded up front."""

    deferred: tuple[str, ...]
    loaded: tuple[str, ...]
    searches: int
    definitions_tokens: int
    prefix_tokens: int  # stubs + the tool-search tool
    cost_usd: Decimal
    baseline_usd: Decimal  # every tool loaded up front, no search requests

    @property
    def saving_usd(self) -> Decimal:
        return self.baseline_usd - self.cost_usd


def context_editing_effect(
    counts: TokenCounts, ledger: Ledger, rerun: Callable[[TokenCounts], Ledger]
) -> ContextEditingEffect | None:
    """Context editing's effect on ``ledger`` (``rerun``: the accountant on other counts, with the
    same prices, cache policy, pacing and limits); None when the scenario does not edit context."""
    if counts.context_editing is None:
        return None
    baseline = rerun(replace(counts, context_editing=None))
    rows = [r for r in ledger.rows if r.cleared_results]
    return ContextEditingEffect(
        edits=len(rows),
        results_cleared=sum(r.cleared_results for r in rows),
        tokens_cleared=sum(r.cleared_tokens for r in rows),
        cost_usd=ledger.totals.cost_usd,
        baseline_usd=baseline.totals.cost_usd,
    )


def tool_search_effect(
    scenario: Scenario,
    counts: TokenCounts,
    ledger: Ledger,
    recount: Callable[[Scenario], TokenCounts],
    rerun: Callable[[TokenCounts], Ledger],
) -> ToolSearchEffect | None:
    """Deferring tools' effect on ``ledger`` against loading every tool up front (``recount``: the
    token counts of another scenario on the same model); None when no tool is deferred."""
    deferred = tuple(t.name for t in scenario.tools if t.defer_loading)
    if not deferred:
        return None
    full = recount(without_deferral(scenario))
    baseline = rerun(full)
    prefix_tokens = counts.tool_search_prefix  # the stubs (per provider) + the tool-search tool
    called = dict.fromkeys(call.tool for r in scenario.rounds for call in r.calls)  # client calls only
    return ToolSearchEffect(
        deferred=deferred,
        loaded=tuple(name for name in called if name in deferred),
        searches=sum(1 for r in counts.rounds if r.search),
        definitions_tokens=full.tools - counts.tools + prefix_tokens,
        prefix_tokens=prefix_tokens,
        cost_usd=ledger.totals.cost_usd,
        baseline_usd=baseline.totals.cost_usd,
    )
