"""JSON of agent dynamics (agentcost.tokens.dynamics: parallel calls, retries, routing, max_budget_usd),
context editing and deferred tools (agentcost.loop.context and agentcost.tokens.context). Their report
lines are notes of the estimate (agentcost.report.notes)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentcost.report import fmt
from agentcost.report.estimate import ContextEditingEffect, Report, ToolSearchEffect

if TYPE_CHECKING:  # the JSON's one definition (report/estimate_json.py), also its JSON Schema
    from agentcost.report.estimate_json import (
        AgentDynamicsJson,
        ContextEditingJson,
        ParallelJson,
        RetriesJson,
        ToolSearchJson,
    )


def editing_dict(e: ContextEditingEffect | None) -> ContextEditingJson | None:
    if e is None:
        return None
    return {
        "edits": e.edits,
        "results_cleared": e.results_cleared,
        "tokens_cleared": e.tokens_cleared,
        "cost_usd": fmt.exact(e.cost_usd),
        "baseline_usd": fmt.exact(e.baseline_usd),
        "saving_usd": fmt.exact(e.saving_usd),
    }


def agent_dict(report: Report) -> AgentDynamicsJson | None:
    """Parallel calls, retries, routing and the budget stop, for the JSON report (None: none of
    them is in play)."""
    d = report.agent_dynamics
    if d is None and not report.failed_requests and report.budget_stop is None:
        return None
    parallel: ParallelJson | None = None
    saving = None if d is None else d.parallel_saving_usd
    if d is not None and d.sequential_usd is not None and saving is not None:
        parallel = {
            "sequential_usd": fmt.exact(d.sequential_usd),
            "saving_usd": fmt.exact(saving),
        }
    retries: RetriesJson | None = None
    if report.failed_requests:
        retries = {
            "failed_requests": report.failed_requests,
            "failed_usd": fmt.exact(report.failed_usd),
            "failed_share": None if report.failed_share is None else fmt.exact(report.failed_share),
        }
    return {
        "parallel": parallel,
        "retries": retries,
        "routing": [
            {"model": model, "cost_usd": fmt.exact(usd)} for model, usd in (d.baselines if d else ())
        ],
        "budget_stop": report.budget_stop,
    }


def tool_search_dict(t: ToolSearchEffect | None) -> ToolSearchJson | None:
    if t is None:
        return None
    return {
        "deferred": list(t.deferred),
        "loaded": list(t.loaded),
        "searches": t.searches,
        "definitions_tokens": t.definitions_tokens,
        "prefix_tokens": t.prefix_tokens,
        "cost_usd": fmt.exact(t.cost_usd),
        "baseline_usd": fmt.exact(t.baseline_usd),
        "saving_usd": fmt.exact(t.saving_usd),
    }
