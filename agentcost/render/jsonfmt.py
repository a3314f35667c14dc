"""Reports -> JSON text: one versioned envelope for every command, documented in docs/json.md.

``{"version": 1, "kind": ..., <the kind's fields>, "gates": [...]}``. Dollar amounts are strings of
exact decimals; token counts are integers; unknown values are null.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from agentcost.render.dynamics import agent_dict, editing_dict, tool_search_dict
from agentcost.report.estimate import Carry, Overrun, Report, RequestLine, Totals, cheapest_ttl
from agentcost.report.estimate_json import (
    CACHE_TTLS,
    CACHING_KINDS,
    CACHING_MODES,
    CARRY_GROUPS,
    ON_FAILURE,
    REQUEST_KINDS,
    TTL_CHOICES,
)
from agentcost.report.fmt import exact, exact_places
from agentcost.report.notes import estimate_notes
from agentcost.report.outcome import OutcomeLine
from agentcost.report.prices_json import service_tier
from agentcost.report.schemagen import one_of

if TYPE_CHECKING:  # the JSON's one definition (report/estimate_json.py), also its JSON Schema
    from agentcost.report.envelope_json import GateJson
    from agentcost.report.estimate_json import (
        BudgetJson,
        CarryBlockJson,
        ContainerJson,
        EstimateJson,
        OutcomeJson,
        OverrunJson,
        RequestJson,
        TotalsJson,
    )
    from agentcost.report.gates import Gate
    from agentcost.report.sections import Block

JSON_VERSION = 1


def _usd(d: Decimal | None) -> str | None:
    return None if d is None else exact(d)


def _container_dict(t: Totals) -> ContainerJson:
    """Code-execution container time of the run (``totals.container``): seconds and price."""
    return {"seconds": exact(t.container_seconds or Decimal(0)), "usd": _usd(t.container_usd)}


def _overrun_dict(o: Overrun | None) -> OverrunJson | None:
    if o is None:
        return None
    return {"runs": o.runs, "seed": o.seed, "over_budget_runs": o.over, "probability": exact(o.share)}


def _outcome_dict(o: OutcomeLine) -> OutcomeJson:
    out: OutcomeJson = {
        "success": exact(o.success),
        "on_failure": one_of(ON_FAILURE, o.on_failure, "on_failure"),
        "max_attempts": o.max_attempts,
        "cost_per_run_usd": exact(o.cost_per_run_usd),
        "runs_per_task": exact(o.runs_per_task),
        "completion_probability": exact(o.completion),
        "cost_per_task_usd": exact(o.cost_per_task_usd),
        "cost_per_completed_task_usd": exact(o.cost_per_completed_usd),
    }
    # failure_rounds and what a failed run cut there costs, only with failure_rounds; the
    # distribution success is the median of, only with one
    if o.failure_rounds is not None and o.failure_cost_usd is not None:
        out["failure_rounds"] = o.failure_rounds
        out["failure_cost_usd"] = exact(o.failure_cost_usd)
    if o.success_dist is not None:
        out["success_distribution"] = o.success_dist
    return out


def report_dict(report: Report) -> EstimateJson:
    body = _report_body(report)
    if report.outcome is not None:  # only with the scenario's outcome: other reports are unchanged
        body["outcome"] = _outcome_dict(report.outcome)
    return body


def _request_dict(r: RequestLine) -> RequestJson:
    return {
        "index": r.index,
        "kind": one_of(REQUEST_KINDS, r.kind, "request kind"),
        "tool": None if not r.tools else (r.tools[0] if len(r.tools) == 1 else list(r.tools)),
        "input_tokens": r.input_tokens,
        "cache_read_tokens": r.cache_read_tokens,
        "cache_write_tokens": r.cache_write_tokens,
        "output_tokens": r.output_tokens,
        "cost_usd": exact(r.cost_usd),
        "running_usd": exact(r.running_usd),
        "tier": r.tier,
        "cache_expired": r.cache_expired,
        "failed": r.failed,
        "model": r.model,
        "subagents": [
            {
                "path": sub.path,
                "label": sub.label,
                "inline": sub.inline,
                "call": sub.call,
                "model": sub.model_id,
                "requests": sub.requests,
                "cost_usd": exact(sub.cost_usd),
                "estimate": report_dict(sub.report),
            }
            for sub in r.subagents
        ],
    }


def _report_body(report: Report) -> EstimateJson:
    t = report.totals
    carry = report.carry
    if carry is None:  # every estimate's report has one (build_report)
        raise ValueError("the report has no carry cost")
    split = carry.split
    totals: TotalsJson = {
        "requests": t.requests,
        "input_tokens": t.input_tokens,
        "cache_read_tokens": t.cache_read_tokens,
        "cache_write_tokens": t.cache_write_tokens,
        "output_tokens": t.output_tokens,
        "input_usd": exact(t.input_usd),
        "output_usd": exact(t.output_usd),
        "cost_usd": exact(t.cost_usd),
        "storage_usd": exact(t.storage_usd),
        "cache_creation_usd": exact(t.cache_creation_usd),
        "subagents_usd": exact(t.subagents_usd),
        "subagent_requests": t.subagent_requests,
        "fixed_usd": exact(split.fixed_usd),
        "history_usd": exact(split.history_usd),
        "other_usd": exact(split.other_usd),
    }
    if t.container_seconds is not None:
        totals["container"] = _container_dict(t)
    budget: BudgetJson | None = None
    if report.budget is not None:
        budget = {
            "limit_usd": exact(report.budget.limit_usd),
            "source": report.budget.source,
            "over": report.budget.over,
            "headroom_usd": exact(report.budget.headroom_usd),
            "overrun": _overrun_dict(report.budget.overrun),
        }
        if report.budget.per == "task":
            budget["per"] = "task"
        j = report.budget.judged
        if j is not None:
            budget["judged"] = {"stat": j.stat, "stat_usd": exact(j.stat_usd), "runs": j.runs}
    return {
        "scenario": {"path": report.scenario_path, "name": report.scenario_name},
        "model": report.model_id,
        "model_ref": report.model,
        "provider": report.provider,
        "price_provider": report.price_provider or report.provider,
        "host": report.host,
        "prices": {
            "source": report.price_source,
            "version": report.price_version,
            "as_of": report.as_of,
            "urls": list(report.pricing_urls),
            "per_mtok_usd": {
                "input": _usd(report.rates["input"]),
                "output": _usd(report.rates["output"]),
                "cache_read": _usd(report.rates["cache_read"]),
                "cache_write": _usd(report.rates["cache_write"]),
                "cache_write_1h": _usd(report.rates["cache_write_1h"]),
            },
            "label": report.price_label,
            "data_date": report.price_data_date,
            "service_tier": service_tier(report.service_tier),
            "tier_thresholds": list(report.tier_thresholds),
            "time_of_day": [{"start": start, "end": end} for start, end in report.time_windows],
            "in_time_window": report.in_time_window,
        },
        "caching": {
            "mode": one_of(CACHING_MODES, report.caching_mode, "caching mode"),
            "default": report.caching_is_default,
            "kind": one_of(CACHING_KINDS, report.caching_kind, "caching kind"),
            "note": report.caching_note,
            "ttl": one_of(CACHE_TTLS, report.cache_ttl, "cache TTL"),
            "min_cacheable_tokens": report.cache_min_tokens,
            "cache_expiries": t.cache_expiries,
            "ttl_comparison": [
                {
                    "ttl": one_of(TTL_CHOICES, c.ttl, "TTL"),
                    "cost_usd": exact(c.cost_usd),
                    "extra_usd": exact(c.extra_usd),
                    "cache_expiries": c.cache_expiries,
                }
                for c in report.ttl_comparison
            ],
            "cheapest_ttl": None
            if (best := cheapest_ttl(report)) is None
            else one_of(TTL_CHOICES, best.ttl, "TTL"),
            "storage": None
            if (s := report.cache_storage) is None
            else {
                "tokens": s.tokens,
                "creations": s.creations,
                "hours": exact(s.hours),
                "usd_per_mtok_hour": exact(s.usd_per_mtok_hour),
                "creation_usd": exact(s.creation_usd),
                "storage_usd": exact(s.storage_usd),
            },
        },
        "counts": {
            "counter": report.encoding,
            "encoding": report.encoding,
            "approximate": report.approximate,
            "method": report.count_method,
            "notes": list(report.count_notes),
            "family": report.count_family,
            "exact": report.exact,
            "api": None
            if report.count_api is None
            else {"counted": report.count_api[0], "not_counted": report.count_api[1]},
            "family_method": report.family_method,
            "source": report.family_source,
        },
        "requests": [_request_dict(r) for r in report.requests],
        "totals": totals,
        "budget": budget,
        "rounds": {
            "planned": report.rounds_planned,
            "run": report.rounds_run,
            "truncated": report.truncated,
        },
        "context_window": report.context_window,
        "max_input_tokens": report.max_input_tokens,
        "approximate": report.approximate,
        "uncertain": report.uncertain,
        "warnings": list(report.warnings),
        "notes": [{"level": n.level, "kind": n.kind, "text": n.text} for n in estimate_notes(report)],
        "context_editing": editing_dict(report.context_editing),
        "tool_search": tool_search_dict(report.tool_search),
        "agent_dynamics": agent_dict(report),
        "carry": [_carry_dict(carry, b) for b in carry.blocks],
        "carry_complete": carry.complete,
    }


def _carry_dict(carry: Carry, b: Block) -> CarryBlockJson:
    share = carry.share(b)
    return {
        "block": b.name,
        "group": one_of(CARRY_GROUPS, b.group, "carry group"),
        "round": b.round,
        "tokens": b.tokens,
        "times_sent": b.times_sent,
        "cost_usd": exact(b.cost_usd),
        "share": None if share is None else exact_places(share, 4),
    }


def gate_dict(gate: Gate) -> GateJson:
    return {
        "name": gate.name,
        "tripped": gate.tripped,
        "message": gate.message,
        "file": gate.file,
        "line": gate.line,
    }


def envelope(kind: str, body: Mapping[str, Any], gates: Sequence[Gate] = ()) -> dict[str, Any]:
    """The one top-level shape of every JSON report: version, kind, the kind's fields, gates."""
    return {"version": JSON_VERSION, "kind": kind, **body, "gates": [gate_dict(g) for g in gates]}


def dumps(data: dict[str, Any]) -> str:
    """JSON text, non-ASCII as itself; DEL, C1 and bidi controls, line separators and ``##[``
    written as ``\\u`` escapes (the same string to a JSON reader), so that the text is safe to
    print in a terminal or a CI log (:func:`agentcost.infra.text.guard`)."""
    from agentcost.infra.text import guard
    from agentcost.render.jsontext import indented  # json.dumps(indent=2, ensure_ascii=False)'s text

    return guard(indented(data) + "\n", "json")


def render_json(report: Report, gates: Sequence[Gate] = ()) -> str:
    return dumps(envelope("estimate", report_dict(report), gates))
