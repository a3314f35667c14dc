"""Report lines and JSON of agent dynamics (agentcost.tokens.dynamics: parallel calls, retries, routing,
max_budget_usd), context editing and deferred tools (agentcost.loop.context and agentcost.tokens.context)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agentcost.infra.text import plain
from agentcost.loop.context import ContextEditingEffect, ToolSearchEffect
from agentcost.report import fmt
from agentcost.report.estimate import Report


def _versus(saving: Any, baseline: Any, what: str) -> str:
    if saving >= 0:
        return f"saves {fmt.usd(saving, 6)} against {what} ({fmt.usd(baseline, 6)})"
    return f"costs {fmt.usd(abs(saving), 6)} more than {what} ({fmt.usd(baseline, 6)})"


def editing_line(e: ContextEditingEffect) -> str:
    if not e.edits:
        return (
            "Context editing: never triggered, no tool result cleared"
            f" ({fmt.usd(e.cost_usd, 6)}, the same as without editing)."
        )
    results = "result" if e.results_cleared == 1 else "results"
    requests = "request" if e.edits == 1 else "requests"
    return (
        f"Context editing: cleared {e.results_cleared} tool {results} ({e.tokens_cleared:,} tokens)"
        f" before {e.edits} {requests}; the cache is written again after each edit point;"
        f" {_versus(e.saving_usd, e.baseline_usd, 'no editing')}."
    )


def tool_search_line(t: ToolSearchEffect, show: Callable[[str], str] = plain) -> str:
    """``show``: how a tool name is written (:func:`agentcost.infra.text.plain` or ``markdown``)."""
    tools = "tool" if len(t.deferred) == 1 else "tools"
    loaded = (
        f"{len(t.loaded)} loaded by {t.searches} tool-search request{'' if t.searches == 1 else 's'}"
        f" ({', '.join(map(show, t.loaded))})"
        if t.loaded
        else "none loaded"
    )
    return (
        f"Deferred tools: {len(t.deferred)} {tools} cost {t.prefix_tokens:,} prefix tokens"
        f" (stubs + the tool-search tool) instead of {t.definitions_tokens:,}; {loaded};"
        f" {_versus(t.saving_usd, t.baseline_usd, 'loading every tool up front')}."
    )


def agent_lines(report: Report, show: Callable[[str], str] = plain) -> list[str]:
    """Parallel calls vs one call per round, failed attempts' share, routing vs one model (``show``:
    how a model name is written)."""
    lines: list[str] = []
    d = report.agent_dynamics
    if d is not None and d.sequential_usd is not None:
        versus = _versus(d.parallel_saving_usd, d.sequential_usd, "the same calls made one per round")
        lines.append(f"Parallel calls: {versus}.")
    if report.failed_requests:
        attempts = "attempt" if report.failed_requests == 1 else "attempts"
        lines.append(
            f"Retries: {report.failed_requests} failed {attempts} (invalid call + error result) cost"
            f" {fmt.usd(report.failed_usd, 6)}, {fmt.percent(report.failed_share)} of this run's cost."
        )
    if d is not None and d.baselines:
        shown = ", ".join(f"all on {show(model)} {fmt.usd(usd, 6)}" for model, usd in d.baselines)
        lines.append(
            f"Routing: {fmt.usd(d.cost_usd, 6)} routed; {shown} (a model switch writes the cache again)."
        )
    return lines


def dynamics_lines(report: Report, show: Callable[[str], str] = plain) -> list[str]:
    """The agent-dynamics lines of a report (parallel calls, retries, routing), then context editing
    and deferred tools; none when nothing of that is used. The table and Markdown both show them
    (a ``max_budget_usd`` stop is a warning of the report, shown with the other warnings);
    ``show`` writes the names in them (:func:`agentcost.infra.text.plain` or ``markdown``)."""
    lines: list[str] = agent_lines(report, show)
    if report.context_editing is not None:
        lines.append(editing_line(report.context_editing))
    if report.tool_search is not None:
        lines.append(tool_search_line(report.tool_search, show))
    return lines


def editing_dict(e: ContextEditingEffect | None) -> dict[str, Any] | None:
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


def agent_dict(report: Report) -> dict[str, Any] | None:
    """Parallel calls, retries, routing and the budget stop, for the JSON report (None: none of
    them is in play)."""
    d = report.agent_dynamics
    if d is None and not report.failed_requests and report.budget_stop is None:
        return None
    parallel = None
    saving = None if d is None else d.parallel_saving_usd
    if d is not None and d.sequential_usd is not None and saving is not None:
        parallel = {
            "sequential_usd": fmt.exact(d.sequential_usd),
            "saving_usd": fmt.exact(saving),
        }
    retries = None
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


def tool_search_dict(t: ToolSearchEffect | None) -> dict[str, Any] | None:
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
