"""The estimate report with an Insights section (``agentcost estimate --explain``): the seven checks
and the levers of :mod:`agentcost.loop.insights`, in the table, Markdown and JSON formats.

An :class:`ExplainedReport` is a single-scenario :class:`~agentcost.report.Report` plus its
:class:`~agentcost.loop.insights.Insights`; it renders as the estimate report followed by the section, and
its JSON is the estimate's with an ``insights`` object (JSON kind ``estimate``). With ``--simulate``
the inner report is the :class:`~agentcost.report.sections.SimulatedReport`: its JSON has both
``simulation`` and ``insights``.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.text import Text

from agentcost.infra.text import markdown, plain, rich
from agentcost.render.fit import Cell, Col, FitTable
from agentcost.render.output import with_section
from agentcost.render.simulation import stat_count_dict, stat_usd_dict
from agentcost.report import fmt
from agentcost.report.schemagen import one_of
from agentcost.report.sections import (
    Carried,
    Checks,
    ExplainedReport,
    Insights,
    Lever,
    Split,
    Stat,
    Steps,
    StopRules,
)
from agentcost.report.sections_json import STOP_RULES

if TYPE_CHECKING:  # the JSON's one definition (report/sections_json.py), also its JSON Schema
    from agentcost.report.sections_json import CarriedJson, InsightsJson, StatUsdJson, StopRulesJson

MINUS = "\N{MINUS SIGN}"
SHARE_PLACES = 4  # decimals of a share in JSON


# --- text shared by the formats ----------------------------------------------------------------------


def check_lines(c: Checks, show: Callable[[str], str] = plain) -> list[tuple[str, str]]:
    """Six of the seven checks as (name, value) pairs; ``show`` writes the tool names in them."""
    steps = f"{c.requests} requests, {c.tool_rounds} tool rounds"
    for n, what in (
        (c.chat_turns, "chat turn"),
        (c.tool_searches, "tool search"),
        (c.failed_attempts, "failed attempt"),
    ):
        if n:
            steps += f", {n} {what}{'' if n == 1 else 'es' if what.endswith('search') else 's'}"
    definitions = f"{fmt.tokens(c.definition_tokens)} tokens per request"
    if c.definition_share is not None:
        definitions += f", {fmt.percent(c.definition_share)} of all input"
    results = (
        ", ".join(
            f"{show(r.tool)} {fmt.tokens(r.tokens)} ({r.calls} call{'' if r.calls == 1 else 's'})"
            for r in c.result_tokens
        )
        or "none"
    )
    retries = f"{fmt.usd(c.retry_usd)}, {fmt.percent(c.retry_share)} of cost ({c.retry_note})"
    return [
        ("steps per task", steps),
        ("tool definitions", definitions),
        ("result tokens per tool", results),
        ("fees per task", f"{fmt.usd(c.fees_usd)} (server tools)"),
        ("repeated/failed rounds", retries),
        ("cached share of input", fmt.percent(c.cached_share)),
    ]


def insight_lines(insights: Insights, show: Callable[[str], str] = plain) -> list[tuple[str, str]]:
    """The checks (steps per task as a distribution when simulated), then the seventh, the stop rules
    the scenario lacks (none: the row is left out)."""
    lines = check_lines(insights.checks, show)
    if insights.steps is not None:
        lines[0] = ("steps per task", f"{steps_text(insights.steps)}; at the medians: {lines[0][1]}")
    if insights.split is not None:  # the run's cost by what it paid for: prefix, history, output
        lines.append(("cost split", split_text(insights.split)))
    if insights.stops is not None:
        lines.append(("stop rules", stops_text(insights.stops, show)))
    return lines


def split_text(split: Split) -> str:
    """``fixed prefix $0.0021 (0.6%), re-sent history $0.2933 (90.7%), output $0.0282 (8.7%)``, and
    other charges when there are any."""
    parts = [
        ("fixed prefix", split.fixed_usd),
        ("re-sent history", split.history_usd),
        ("output", split.output_usd),
    ]
    if split.other_usd:
        parts.append(("fees and cache storage", split.other_usd))
    return ", ".join(f"{name} {fmt.usd(usd)} ({fmt.percent(split.fraction(usd))})" for name, usd in parts)


def carried_text(c: Carried, levers: tuple[Lever, ...], show: Callable[[str], str] = plain) -> str:
    """``round 2 result (fetch_page): 3,513 tokens in 29 requests (re-sent 28 times), $0.0167, 5.2% of
    the cost. Cut it: ...``, with the saving of the priced lever that makes that change when
    ``levers`` has it."""
    b = c.block
    times = "time" if b.resent == 1 else "times"
    text = (
        f"{show(b.name)}: {fmt.tokens(b.tokens)} tokens in {b.times_sent} requests (re-sent {b.resent}"
        f" {times}), {fmt.usd(b.cost_usd)}, {fmt.percent(c.share)} of the cost. Cut it: {c.lever}"
    )
    priced = [  # priced over the whole run, not this block alone
        f"lever {n} above, {MINUS}{fmt.usd(lever.saved_usd)}"
        for n, lever in enumerate(levers, 1)
        if lever.name in c.lever_names
    ]
    if priced:
        text += f" ({'; '.join(priced)} per task over the whole run)"
    return text


_CARRIED_TITLE = "Heaviest re-sent blocks, most $ first"


def steps_text(steps: Steps) -> str:
    """``p50 12, p90 20, p99 31 requests per run (1,000 runs)``."""
    r = steps.requests
    spread = ", ".join(f"{label} {int(v):,}" for label, v in (("p50", r.p50), ("p90", r.p90), ("p99", r.p99)))
    return f"{spread} requests per run ({steps.runs:,} runs)"


_NAMES = {
    "limits.max_rounds": "no step limit",
    "limits.max_budget_usd": "no spend cap",
    "limits.max_tokens": "no output cap on responses of unbounded size",
}


def stops_text(stops: StopRules, show: Callable[[str], str] = plain) -> str:
    """Which stop rules are missing and, when simulated, what a run that does not converge costs
    with and without a step limit."""
    text = ", ".join(f"{_NAMES[key]} ({key})" for key in stops.missing)
    if stops.uncapped is not None:
        text += (
            f"; {stops.runs:,} runs (seed {stops.seed}): mean {fmt.usd(stops.uncapped.mean)}, "
            f"p99 {fmt.usd(stops.uncapped.p99)}"
        )
        if stops.capped is not None:
            text += (
                f"; with max_rounds: {stops.cap_rounds} (their p99 rounds): mean "
                f"{fmt.usd(stops.capped.mean)}, p99 {fmt.usd(stops.capped.p99)}"
            )
        else:
            text += f"; max_rounds at their p99 ({stops.cap_rounds} rounds) would cut no run"
    elif stops.note is not None:
        text += f"; not simulated: {show(stops.note)}"
    return text


def lever_text(lever: Lever, base_usd: Decimal, show: Callable[[str], str] = plain) -> str:
    """``defer 31 unused tools: −$0.0410 per task (−22.0%), $0.1452 instead of $0.1862``: the lever's
    total instead of the run's (``Insights.base_usd``, which ``saved_usd`` is measured from); ``show``
    writes its description, which may name models and tools."""
    cost, base = fmt.usd_pair(lever.cost_usd, base_usd)
    text = (
        f"{show(lever.description)}: {MINUS}{fmt.usd(lever.saved_usd)} per task"
        f" ({MINUS}{fmt.percent(lever.saved_fraction)}), {cost} instead of {base}"
    )
    if lever.tradeoff:
        text += f" [{show(lever.tradeoff)}]"
    return text


_NO_LEVERS = "No single change priced here makes this run cheaper."


# --- renderers ---------------------------------------------------------------------------------------


def render_insights_rich(insights: Insights) -> RenderableType:
    checks = FitTable(
        [Col("check", justify="left", text=True), Col("per task", justify="left", text=True)],
        [[name, rich(value)] for name, value in insight_lines(insights)],
        title=Text("Insights", style="table.title"),
    )
    carried = _carried_rich(insights)
    if not insights.levers:
        return Group(checks, Text(_NO_LEVERS), *carried)
    rows: list[list[Cell]] = []
    for n, lever in enumerate(insights.levers, 1):
        change = lever.description + (f" [{lever.tradeoff}]" if lever.tradeoff else "")
        rows.append(
            [
                str(n),
                rich(change),
                f"{MINUS}{fmt.usd(lever.saved_usd)}",
                f"{MINUS}{fmt.percent(lever.saved_fraction)}",
                fmt.usd(lever.cost_usd),
            ]
        )
    levers = FitTable(  # what each change saves is the answer: a narrow terminal drops new total, then %
        [
            Col("#"),
            Col("change", justify="left", text=True),
            Col("saved"),
            Col("%", drop=1),
            Col("new total", drop=2),
        ],
        rows,
        title=Text("Levers (each re-estimated with one change), most saved first", style="table.title"),
    )
    return Group(checks, levers, *carried)


def _carried_rich(insights: Insights) -> list[RenderableType]:
    if not insights.carried:
        return []
    lines: list[RenderableType] = [Text(_CARRIED_TITLE, style="table.title")]
    lines += [rich(f"{n}. {carried_text(c, insights.levers)}") for n, c in enumerate(insights.carried, 1)]
    return lines


def render_insights_markdown(insights: Insights) -> str:
    lines = ["##### Insights", ""]
    lines += [f"- **{name}**: {value}" for name, value in insight_lines(insights, markdown)]
    lines.append("")
    if not insights.levers:
        lines.append(_NO_LEVERS)
    else:
        lines.append("Levers, each re-estimated with one change, most saved first:")
        lines.append("")
        lines += [
            f"{n}. {lever_text(lever, insights.base_usd, markdown)}"
            for n, lever in enumerate(insights.levers, 1)
        ]
    if insights.carried:
        lines += ["", f"{_CARRIED_TITLE}:", ""]
        lines += [
            f"{n}. {carried_text(c, insights.levers, markdown)}" for n, c in enumerate(insights.carried, 1)
        ]
    return "\n".join(lines) + "\n"


def insights_dict(insights: Insights) -> InsightsJson:
    c = insights.checks
    return {
        "base_usd": fmt.exact(insights.base_usd),
        "checks": {
            "requests": c.requests,
            "tool_rounds": c.tool_rounds,
            "chat_turns": c.chat_turns,
            "tool_searches": c.tool_searches,
            "failed_attempts": c.failed_attempts,
            "definition_tokens_per_request": c.definition_tokens,
            "definition_share": _fraction(c.definition_share),
            "result_tokens": [
                {"tool": r.tool, "calls": r.calls, "tokens": r.tokens} for r in c.result_tokens
            ],
            "fees_usd": fmt.exact(c.fees_usd),
            "retry_usd": fmt.exact(c.retry_usd),
            "retry_share": _fraction(c.retry_share),
            "retry_note": c.retry_note,
            "cached_share": _fraction(c.cached_share),
        },
        "stop_rules": None if insights.stops is None else _stops_dict(insights.stops),
        "steps": None
        if insights.steps is None
        else {
            "runs": insights.steps.runs,
            "seed": insights.steps.seed,
            "requests": stat_count_dict(insights.steps.requests),
        },
        "levers": [
            {
                "name": lever.name,
                "description": lever.description,
                "cost_usd": fmt.exact(lever.cost_usd),
                "saved_usd": fmt.exact(lever.saved_usd),
                "saved_fraction": _fraction(lever.saved_fraction),
                "tradeoff": lever.tradeoff,
            }
            for lever in insights.levers
        ],
        "carried": [_carried_dict(c) for c in insights.carried],
    }


def _carried_dict(c: Carried) -> CarriedJson:
    b = c.block
    return {
        "block": b.name,
        "tokens": b.tokens,
        "times_sent": b.times_sent,
        "resent": b.resent,
        "cost_usd": fmt.exact(b.cost_usd),
        "share": _fraction(c.share),
        "lever": c.lever,
        "lever_names": list(c.lever_names),
    }


def _stops_dict(stops: StopRules) -> StopRulesJson:
    def cost(stat: Stat | None) -> StatUsdJson | None:
        return None if stat is None else stat_usd_dict(stat)

    return {
        "missing": [one_of(STOP_RULES, rule, "stop rule") for rule in stops.missing],
        "runs": stops.runs,
        "seed": stops.seed,
        "uncapped_usd": cost(stops.uncapped),
        "max_rounds": stops.cap_rounds,
        "capped_usd": cost(stops.capped),
        "note": stops.note,
    }


def _fraction(d: Decimal | None) -> str | None:
    """A share for JSON: an exact decimal string rounded half-up to 4 places (as ``cached_share``
    in the batch and compare reports); None when unknown."""
    return None if d is None else fmt.exact_places(d, SHARE_PLACES)


RENDERERS = (
    ExplainedReport,
    with_section(
        lambda e: e.report,
        "insights",
        lambda e: e.insights,
        lambda x: dict(insights_dict(x)),
        render_insights_rich,
        render_insights_markdown,  # CSV stays the per-request rows: insights have no row shape
    ),
)
