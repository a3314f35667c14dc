"""Two estimates of the same agent(s) -> what changed: the report of ``agentcost diff BASE HEAD``.

:func:`build_diff` lines up pairs of estimates (one scenario on both sides): per scenario, per
request (by index) and in total, with the change in tokens and dollars, and one line per input that
changed ("tools: +1 definition (+fetch), +12 tokens per request") derived from the two estimates'
token counts and scenarios. Reading and estimating both sides (files, a git ref, project files) is
:mod:`agentcost.commands.diff_read`.

Every figure a renderer shows is computed here (``agentcost.render.diff`` only formats), and the
gates are evaluated here too, so the report carries its own verdicts (the Markdown shows them).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from decimal import Decimal
from itertools import zip_longest

from agentcost.infra.record import record
from agentcost.loop.estimate import Estimate
from agentcost.report import fmt
from agentcost.report.batch import DAYS_PER_MONTH
from agentcost.report.build import build_report
from agentcost.report.diff import (
    ZERO,
    Amounts,
    DiffKind,
    DiffReport,
    DiffStatus,
    DiffTotals,
    GatedTotal,
    InputChange,
    PerDay,
    RequestDiff,
    ScenarioDiff,
    TotalScope,
    TotalUnit,
    fraction,
)
from agentcost.report.estimate import Report, RequestLine, Totals, joined_price_label, unit_cost
from agentcost.report.fmt import ARROW, signed_tokens
from agentcost.report.gates import Gate, IncreaseLimits, estimate_gates, increase_gates
from agentcost.report.outcome import PER_TASK_NOTE

DIFF_VERSION = 1
NO_LIMITS = IncreaseLimits()


# --------------------------------------------------------------------------------------------
# The gates (the report itself: agentcost.report.diff)
# --------------------------------------------------------------------------------------------


def diff_gates(report: DiffReport) -> tuple[Gate, ...]:
    """The gates of a diff: increase limits per scenario (and in total for projects), then the
    head side's budget and context-window gates."""
    return report.gates


# --------------------------------------------------------------------------------------------
# Building the report from estimates (pure)
# --------------------------------------------------------------------------------------------


@record
class Pair:
    """One scenario on both sides; ``base`` or ``head`` is None when it exists on one side only."""

    path: str
    base: Estimate | None
    head: Estimate | None
    base_runs_per_day: Decimal | None = None
    head_runs_per_day: Decimal | None = None
    name: str | None = None  # a label from the project file; default: the scenario's name


def _amounts(x: RequestLine | Totals | None) -> Amounts:
    if x is None:
        return ZERO
    return Amounts(x.input_tokens, x.cache_read_tokens, x.cache_write_tokens, x.output_tokens, x.cost_usd)


def _plus(a: Amounts, b: Amounts) -> Amounts:
    return Amounts(
        a.input_tokens + b.input_tokens,
        a.cache_read_tokens + b.cache_read_tokens,
        a.cache_write_tokens + b.cache_write_tokens,
        a.output_tokens + b.output_tokens,
        a.cost_usd + b.cost_usd,
    )


def _minus(after: RequestLine | Totals | None, before: RequestLine | Totals | None) -> Amounts:
    a, b = _amounts(after), _amounts(before)
    return Amounts(
        a.input_tokens - b.input_tokens,
        a.cache_read_tokens - b.cache_read_tokens,
        a.cache_write_tokens - b.cache_write_tokens,
        a.output_tokens - b.output_tokens,
        a.cost_usd - b.cost_usd,
    )


def _total(amounts: Iterable[Amounts]) -> Amounts:
    return functools.reduce(_plus, amounts, ZERO)


def _request_diffs(base: Report | None, head: Report | None) -> tuple[RequestDiff, ...]:
    before_lines = base.requests if base is not None else ()
    after_lines = head.requests if head is not None else ()
    diffs: list[RequestDiff] = []
    for i, (before, after) in enumerate(zip_longest(before_lines, after_lines), start=1):
        change = _minus(after, before)
        status: DiffStatus
        if before is None:
            status = "added"
        elif after is None:
            status = "removed"
        elif change.is_zero and before.label == after.label:
            status = "unchanged"
        else:
            status = "changed"
        diffs.append(RequestDiff(index=i, status=status, before=before, after=after, change=change))
    return tuple(diffs)


def _plural(n: int, word: str) -> str:
    return f"{signed_tokens(n)} {word}{'' if abs(n) == 1 else 's'}"


def _tokens_line(part: str, before: int, after: int, unit: str) -> InputChange | None:
    if before == after:
        return None
    return InputChange(part, before, after, f"{part}: {signed_tokens(after - before)} {unit}")


def input_changes(base: Estimate, head: Estimate) -> tuple[InputChange, ...]:
    """What changed in a scenario's inputs, from the two estimates' counts and scenarios.

    Token figures are in each side's own counting (a new model can count the same text
    differently); "per request" parts are re-sent in every request, "in all" parts are summed over
    the scenario's rounds (calls and results over tool rounds, replies and user messages over chat
    turns).
    """
    b, h = base, head
    lines: list[InputChange] = []
    if b.prices.model_id != h.prices.model_id:
        lines.append(
            InputChange(
                "model",
                b.prices.model_id,
                h.prices.model_id,
                f"model: {b.prices.model_id} {ARROW} {h.prices.model_id}",
            )
        )
    b_counter, h_counter = b.counts.encoding, h.counts.encoding
    if b_counter != h_counter:  # token figures differ by counter too, not only by input (issue 29)
        lines.append(
            InputChange("counter", b_counter, h_counter, f"counter: {b_counter} {ARROW} {h_counter}")
        )
    b_mode, h_mode = b.ledger.policy.mode, h.ledger.policy.mode
    if b_mode != h_mode:
        lines.append(InputChange("caching", b_mode, h_mode, f"caching: {b_mode} {ARROW} {h_mode}"))
    b_ttl, h_ttl = b.scenario.cache_ttl_label, h.scenario.cache_ttl_label
    if b_ttl != h_ttl and "anthropic" in (b.prices.provider, h.prices.provider):
        lines.append(InputChange("cache_ttl", b_ttl, h_ttl, f"cache TTL: {b_ttl} {ARROW} {h_ttl}"))
    tools = _tools_line(b, h)
    if tools is not None:
        lines.append(tools)
    if b.scenario.tool_choice != h.scenario.tool_choice:
        lines.append(
            InputChange(
                "tool_choice",
                b.scenario.tool_choice,
                h.scenario.tool_choice,
                f"tool_choice: {b.scenario.tool_choice} {ARROW} {h.scenario.tool_choice}",
            )
        )
    bc, hc = b.counts, h.counts
    for part, before, after, unit in (
        ("system", bc.system, hc.system, "tokens per request"),
        ("task", bc.task, hc.task, "tokens per request"),
    ):
        line = _tokens_line(part, before, after, unit)
        if line is not None:
            lines.append(line)
    b_rounds, h_rounds = b.ledger.rounds_planned, h.ledger.rounds_planned
    if b_rounds != h_rounds:
        lines.append(InputChange("rounds", b_rounds, h_rounds, f"rounds: {b_rounds:,} {ARROW} {h_rounds:,}"))
    b_run, h_run = b.ledger.rounds_run, h.ledger.rounds_run
    if b_run != h_run and (b.ledger.truncated or h.ledger.truncated):
        limit = h.scenario.limits.max_rounds
        why = f" (limits.max_rounds {limit:,})" if limit is not None else ""
        lines.append(InputChange("rounds_run", b_run, h_run, f"rounds run: {b_run:,} {ARROW} {h_run:,}{why}"))
    b_think = sum(r.thinking for r in b.scenario.rounds)
    h_think = sum(r.thinking for r in h.scenario.rounds)
    b_parts, h_parts = _round_parts(b), _round_parts(h)
    for part, before, after, unit in (
        ("calls", b_parts.calls, h_parts.calls, "output tokens in all"),
        ("replies", b_parts.replies, h_parts.replies, "output tokens in all"),
        ("thinking", b_think, h_think, "output tokens in all"),
        ("results", b_parts.results, h_parts.results, "tokens in all"),
        ("user_messages", b_parts.user_messages, h_parts.user_messages, "tokens in all"),
        ("final", bc.final_output, hc.final_output, "output tokens"),
    ):
        line = _tokens_line(part, before, after, unit)
        if line is not None:
            lines.append(line)
    b_budget = fmt.exact(b.budget.limit_usd) if b.budget is not None else None
    h_budget = fmt.exact(h.budget.limit_usd) if h.budget is not None else None
    if b_budget != h_budget:
        shown = [fmt.usd(e.budget.limit_usd) if e.budget is not None else "none" for e in (b, h)]
        if b.budget is not None and h.budget is not None:
            shown = list(fmt.usd_pair(b.budget.limit_usd, h.budget.limit_usd))
        lines.append(InputChange("budget", b_budget, h_budget, f"budget: {shown[0]} {ARROW} {shown[1]}"))
    return tuple(lines)


@record
class _RoundParts:
    """Token sums over a scenario's rounds: tool rounds (calls, results) and chat turns (replies,
    user messages); output without thinking."""

    calls: int
    replies: int
    results: int
    user_messages: int


def _round_parts(e: Estimate) -> _RoundParts:
    calls = replies = results = user_messages = 0
    own = [r for r in e.counts.rounds if not r.inserted]  # no tool searches or failed attempts
    for spec, counted in zip(e.scenario.rounds, own, strict=True):
        if counted.reply:
            replies += counted.output - spec.thinking
            user_messages += counted.result
        else:
            calls += counted.output - spec.thinking
            results += counted.result
    return _RoundParts(calls, replies, results, user_messages)


def _tools_line(b: Estimate, h: Estimate) -> InputChange | None:
    b_names = [t.name for t in b.scenario.tools]
    h_names = [t.name for t in h.scenario.tools]
    b_tokens, h_tokens = b.counts.tools, h.counts.tools
    if b_names == h_names and b_tokens == h_tokens:
        return None
    parts: list[str] = []
    added = [n for n in h_names if n not in b_names]
    removed = [n for n in b_names if n not in h_names]
    count_change = len(h_names) - len(b_names)
    if count_change:
        parts.append(_plural(count_change, "definition"))
    names = ", ".join([f"+{n}" for n in added] + [f"-{n}" for n in removed])
    if names:
        if parts:
            parts[-1] += f" ({names})"
        else:
            parts.append(names)
    if b_tokens != h_tokens:
        parts.append(f"{signed_tokens(h_tokens - b_tokens)} tokens per request")
    if not parts:  # the same tools in another order
        parts.append("reordered")
    return InputChange("tools", b_tokens, h_tokens, "tools: " + ", ".join(parts))


def _scenario_diff(pair: Pair, per: str = "run") -> ScenarioDiff:
    base = build_report(pair.base, per=per) if pair.base is not None else None
    head = build_report(pair.head, per=per) if pair.head is not None else None
    change = _minus(head.totals if head else None, base.totals if base else None)
    inputs = input_changes(pair.base, pair.head) if pair.base is not None and pair.head is not None else ()
    requests = _request_diffs(base, head)
    status: DiffStatus
    if base is None:
        status = "added"
    elif head is None:
        status = "removed"
    elif inputs or any(r.status != "unchanged" for r in requests):
        status = "changed"
    else:
        status = "unchanged"
    side = head if head is not None else base
    assert side is not None, "a pair has at least one side"
    per_day = _per_day(
        unit_cost(base, per) if base is not None else None,
        unit_cost(head, per) if head is not None else None,
        pair.base_runs_per_day,
        pair.head_runs_per_day,
    )
    return ScenarioDiff(
        path=pair.path,
        name=pair.name if pair.name is not None else side.scenario_name,
        status=status,
        base=base,
        head=head,
        change=change,
        change_fraction=fraction(change.cost_usd, base.totals.cost_usd if base is not None else None),
        requests=requests,
        inputs=inputs,
        file=side.scenario_path,
        per_day=per_day,
    )


def _per_day(
    before: Decimal | None, after: Decimal | None, runs_before: Decimal | None, runs_after: Decimal | None
) -> PerDay | None:
    """Per-day figures when every side that exists says how often it runs."""
    if (before is not None and runs_before is None) or (after is not None and runs_after is None):
        return None
    before_day = before * runs_before if before is not None and runs_before is not None else None
    after_day = after * runs_after if after is not None and runs_after is not None else None
    change = (after_day or Decimal(0)) - (before_day or Decimal(0))
    return PerDay(
        runs_before=runs_before if before is not None else None,
        runs_after=runs_after if after is not None else None,
        before_usd=before_day,
        after_usd=after_day,
        change_usd=change,
        change_per_month_usd=change * DAYS_PER_MONTH,
        before_per_month_usd=None if before_day is None else before_day * DAYS_PER_MONTH,
        after_per_month_usd=None if after_day is None else after_day * DAYS_PER_MONTH,
    )


def _total_per_day(scenarios: Sequence[ScenarioDiff]) -> PerDay | None:
    days = [s.per_day for s in scenarios]
    if not days or any(d is None for d in days):
        return None
    known = [d for d in days if d is not None]
    change = sum((d.change_usd for d in known), Decimal(0))
    before = sum((d.before_usd for d in known if d.before_usd is not None), Decimal(0))
    after = sum((d.after_usd for d in known if d.after_usd is not None), Decimal(0))
    return PerDay(
        runs_before=None,
        runs_after=None,
        before_usd=before,
        after_usd=after,
        change_usd=change,
        change_per_month_usd=change * DAYS_PER_MONTH,
        before_per_month_usd=before * DAYS_PER_MONTH,
        after_per_month_usd=after * DAYS_PER_MONTH,
    )


def _unit(report: Report | None, per: str) -> Decimal:
    """One side's cost per run (or per completed task); 0 for a side that does not exist."""
    return Decimal(0) if report is None else unit_cost(report, per)


def _gated_total(scenarios: Sequence[ScenarioDiff], per: str, gate_new: bool) -> GatedTotal:
    """The one total (:class:`GatedTotal`): per 30-day month when every scenario has
    ``runs_per_day``, else per run (per completed task with ``--per task``); over the scenarios on
    both sides, or over all of them with ``--gate-new-scenarios`` or when none is on both sides."""
    paired = [s for s in scenarios if s.base is not None and s.head is not None]
    scope: TotalScope = "all" if gate_new or not paired else "paired"
    summed = paired if scope == "paired" else list(scenarios)
    left_out = [s for s in scenarios if s not in summed]
    days = [s.per_day for s in scenarios]
    unit: TotalUnit = "task" if per == "task" else "run"
    runs: Decimal | None = None
    if days and all(d is not None for d in days):
        unit = "month"

        def month(s: ScenarioDiff, side: str) -> Decimal:
            assert s.per_day is not None
            amount = s.per_day.before_usd if side == "before" else s.per_day.after_usd
            return DAYS_PER_MONTH * (amount or Decimal(0))

        runs = DAYS_PER_MONTH * sum(
            (s.per_day.runs_after or Decimal(0) for s in summed if s.per_day is not None), Decimal(0)
        )
    else:

        def month(s: ScenarioDiff, side: str) -> Decimal:
            return _unit(s.base if side == "before" else s.head, per)

    added = [s for s in left_out if s.status == "added"]
    removed = [s for s in left_out if s.status == "removed"]
    return GatedTotal(
        unit=unit,
        scope=scope,
        scenarios=len(summed),
        before_usd=sum((month(s, "before") for s in summed), Decimal(0)),
        after_usd=sum((month(s, "after") for s in summed), Decimal(0)),
        added=len(added),
        added_usd=sum((month(s, "after") for s in added), Decimal(0)),
        removed=len(removed),
        removed_usd=sum((month(s, "before") for s in removed), Decimal(0)),
        runs_per_month=runs,
    )


def _increase_gates(
    scenarios: Sequence[ScenarioDiff],
    total: GatedTotal,
    kind: DiffKind,
    limits: IncreaseLimits,
    total_file: str | None,
) -> list[Gate]:
    """The increase gates (error and warning level): every scenario on both sides (and, with
    ``--gate-new-scenarios``, every added one), then a project's total: the report's one total
    (:func:`_gated_total`, the figure its headline shows), which names what it leaves out."""
    per = limits.per
    unit = " per completed task" if per == "task" else ""
    gates: list[Gate] = []
    for s in scenarios:
        if (s.base is not None and s.head is not None) or (limits.gate_new and s.status == "added"):
            b, h = _unit(s.base, per), _unit(s.head, per)
            gates.extend(increase_gates(s.path + unit, b, h, limits, file=s.file))
    if kind != "project" or all(s.base is None for s in scenarios):  # nothing to compare with
        return gates
    label = f"total {total.label}"
    gates.extend(
        increase_gates(
            label,
            total.before_usd,
            total.after_usd,
            limits,
            file=total_file,
            note=left_out_note(total),
            runs=total.runs_per_month,
        )
    )
    return gates


def left_out_note(total: GatedTotal) -> str:
    """``; scenarios on both sides only, not gated: 1 added +$0.0181``: what the total leaves out
    (in its unit), or nothing."""
    parts = []
    if total.added:
        parts.append(f"{total.added} added {fmt.signed_usd(total.added_usd)}")
    if total.removed:
        parts.append(f"{total.removed} removed {fmt.signed_usd(-total.removed_usd)}")
    return f"; scenarios on both sides only, not gated: {', '.join(parts)}" if parts else ""


def build_diff(
    pairs: Sequence[Pair],
    *,
    base_label: str,
    head_label: str,
    kind: DiffKind = "scenario",
    limits: IncreaseLimits = NO_LIMITS,
    total_file: str | None = None,
    head_gates: Sequence[Gate] | None = None,
) -> DiffReport:
    """Line up estimated pairs into a :class:`DiffReport` and evaluate its gates. No I/O.

    Gates: ``--max-increase``/``--max-increase-usd`` (and the warning-level ``--warn-increase*``)
    for every scenario present on both sides (an added scenario has nothing to compare with), for
    the total of those when comparing project files that both list scenarios (pointing at
    ``total_file``; a project file new on the head side is gated by its budgets alone; see
    :func:`_increase_gates` for ``--gate-new-scenarios``), and the head side's budget and
    context-window gates: ``head_gates`` when given (a project's, from ``batch_gates``), else
    ``estimate_gates`` of every head scenario. ``limits.per == "task"`` (``--per task``): the
    increase gates, budgets and per-day figures use the expected cost per completed task.
    """
    if not pairs:
        raise ValueError("build_diff needs at least one pair")
    per = limits.per
    scenarios = tuple(_scenario_diff(p, per) for p in pairs)
    before = _total(_amounts(s.base.totals) for s in scenarios if s.base is not None)
    after = _total(_amounts(s.head.totals) for s in scenarios if s.head is not None)
    change = _total(s.change for s in scenarios)
    paired = [s for s in scenarios if s.base is not None and s.head is not None]
    totals = DiffTotals(
        scenarios=len(scenarios),
        changed=sum(s.status == "changed" for s in scenarios),
        unchanged=sum(s.status == "unchanged" for s in scenarios),
        added=sum(s.status == "added" for s in scenarios),
        removed=sum(s.status == "removed" for s in scenarios),
        before=before,
        after=after,
        change=change,
        change_fraction=fraction(change.cost_usd, before.cost_usd),
        gated=_gated_total(scenarios, per, limits.gate_new),
        per_day=_total_per_day(scenarios),
        before_task_usd=sum((s.before_task_usd or Decimal(0) for s in scenarios), Decimal(0)),
        after_task_usd=sum((s.after_task_usd or Decimal(0) for s in scenarios), Decimal(0)),
        paired_before_usd=sum((_unit(s.base, per) for s in paired), Decimal(0)),
        paired_after_usd=sum((_unit(s.head, per) for s in paired), Decimal(0)),
        added_usd=sum((_unit(s.head, per) for s in scenarios if s.status == "added"), Decimal(0)),
        removed_usd=sum((_unit(s.base, per) for s in scenarios if s.status == "removed"), Decimal(0)),
    )
    gates = _increase_gates(scenarios, totals.gated, kind, limits, total_file)
    if head_gates is not None:
        gates.extend(head_gates)
    else:
        for s in scenarios:
            if s.head is not None:
                gates.extend(estimate_gates(s.head))
    reports = [r for s in scenarios for r in (s.base, s.head) if r is not None]
    heads = [(s.path, s.head) for s in scenarios if s.head is not None]
    warnings = tuple(f"{path}: {w}" for path, head in heads for w in head.warnings if w != PER_TASK_NOTE)
    if per == "task" and any(r.outcome is None for r in (s.head or s.base for s in scenarios) if r):
        warnings += (PER_TASK_NOTE,)
    return DiffReport(
        version=DIFF_VERSION,
        kind=kind,
        base_label=base_label,
        head_label=head_label,
        as_of=reports[0].as_of,
        scenarios=scenarios,
        totals=totals,
        limits=limits,
        gates=tuple(gates),
        price_source=reports[0].price_source,
        price_version=reports[0].price_version,
        approximate=any(r.approximate for r in reports),
        warnings=warnings,
        price_label=joined_price_label(reports),
        price_sources=joined_price_label(reports, dated=False),
        per=per,
    )
