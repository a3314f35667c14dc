"""CI gates: checks on a report that make ``agentcost`` exit 1 when one trips.

Every command that reads a scenario evaluates the gates that apply to it; each gate yields one
``Gate`` with its own one-line message and, when known, the scenario file (and line) to point a
GitHub Actions ``::error`` annotation at. Warning gates (``--warn-increase``, names ``warn_*``) are
reported the same way, as ``::warning``, and never make the run fail. Pure functions over reports;
no I/O.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Literal

from agentcost.infra.record import record
from agentcost.report.estimate import Report, all_subagents, unit_cost
from agentcost.report.fmt import ARROW, mean_count, percent, signed, usd, usd_pair

if TYPE_CHECKING:
    from agentcost.loop.simulate import Simulation

GateName = Literal[
    "budget",
    "context_window",
    "max_increase",
    "max_increase_usd",
    "warn_increase",
    "warn_increase_usd",
    "max_tokens",  # agentcost mcp footprint --max-tokens
]


@record
class Gate:
    """One CI gate: whether it tripped, its one-line message and the file and line it points at."""

    name: GateName
    tripped: bool
    message: str  # one line, says what was checked and the figures
    file: str | None = None
    line: int | None = None

    @property
    def warning(self) -> bool:
        """A warning-level gate (``--warn-increase``): tripped, it is reported, and the run exits 0."""
        return self.name.startswith("warn_")


@record
class IncreaseLimits:
    """``--max-increase 10%`` (a fraction, 0.10) and ``--max-increase-usd 0.02``; the warning-level
    ``--warn-increase`` / ``--warn-increase-usd``; None = not set. ``gate_new``
    (``--gate-new-scenarios``): added and removed scenarios count in the increase gates too."""

    fraction: Decimal | None = None
    usd: Decimal | None = None
    per: str = "run"  # "task" (--per task): costs compared per completed task (report.estimate.unit_cost)
    warn_fraction: Decimal | None = None
    warn_usd: Decimal | None = None
    gate_new: bool = False


def budget_gate(report: Report) -> Gate | None:
    """Total over the budget (``--budget`` or ``limits.budget_usd``); None when there is no budget.
    A budget checked per task (``--per task``) compares the expected cost per completed task."""
    b = report.budget
    if b is None:
        return None
    total = unit_cost(report, b.per)
    verdict, relation = ("over budget", ">") if b.over else ("within budget", "<=")
    unit = " per completed task" if b.per == "task" else ""
    return Gate(
        name="budget",
        tripped=b.over,
        message=(
            f"{report.scenario_path}: {verdict}: estimated {_versus(total, relation, b.limit_usd)}"
            f"{unit} ({b.source})"
        ),
        file=report.scenario_path,
        line=report.budget_line,
    )


def context_gate(report: Report) -> Gate | None:
    """A single request larger than the model's context window; None when the window is unknown
    (not a pass: the report's warnings say "context window of <model> unknown: not checked").
    A subagent's request over its own model's window trips it too (the first such subagent is named)."""
    own = _own_context_gate(report)
    if own is not None and own.tripped:
        return own
    for sub in all_subagents(report):
        gate = _own_context_gate(sub.report)
        if gate is not None and gate.tripped:
            return Gate(
                name=gate.name,
                tripped=True,
                message=f"subagent {sub.label} of {report.scenario_path}: {gate.message}",
                file=gate.file,
                line=gate.line,
            )
    return own


def _own_context_gate(report: Report) -> Gate | None:
    window = report.context_window
    if window is None:
        return None
    biggest = report.max_input_tokens
    over = biggest > window
    relation = ">" if over else "<="
    return Gate(
        name="context_window",
        tripped=over,
        message=(
            f"{report.scenario_path}: largest request {biggest:,} input tokens {relation}"
            f" {report.model_id} context window {window:,}"
        ),
        file=report.scenario_path,
        line=report.model_line,
    )


def estimate_gates(report: Report) -> tuple[Gate, ...]:
    return tuple(g for g in (budget_gate(report), context_gate(report)) if g is not None)


def percentile_budget_gate(report: Report, simulation: Simulation, at: str) -> Gate:
    """The simulated cost at ``at`` (``p90``, ``mean``, ``max``) over the budget (there must be one)."""
    from agentcost.report.sections import judged_at  # the verdict the budget line prints

    b = judged_at(report, simulation, at).budget
    assert b is not None, "a percentile gate needs a budget"
    cost, over = b.judged_usd, b.over
    verdict, relation = ("over budget", ">") if over else ("within budget", "<=")
    share = simulation.over_budget_share
    runs = f"{simulation.runs:,} runs, seed {simulation.seed}" + (
        f"; {percent(share)} of runs over" if share is not None else ""
    )
    return Gate(
        name="budget",
        tripped=over,
        message=(
            f"{report.scenario_path}: {verdict} at {at}: simulated {_versus(cost, relation, b.limit_usd)}"
            f" ({b.source}; {runs})"
        ),
        file=report.scenario_path,
        line=report.budget_line,
    )


def simulation_gates(report: Report, simulation: Simulation, at: str | None) -> tuple[Gate, ...]:
    """``estimate --simulate``: with ``--at`` the budget is checked at that statistic of the runs,
    else on the estimate at the medians; the context window on the estimate."""
    if at is None:
        return estimate_gates(report)
    gates = [percentile_budget_gate(report, simulation, at), context_gate(report)]
    return tuple(g for g in gates if g is not None)


def increase_gates(
    label: str,
    base_usd: Decimal,
    head_usd: Decimal,
    limits: IncreaseLimits,
    *,
    file: str | None = None,
    note: str = "",
    runs: Decimal | None = None,
) -> tuple[Gate, ...]:
    """The ``--max-increase`` / ``--max-increase-usd`` gates for one before/after pair, then the
    warning-level ``--warn-increase`` / ``--warn-increase-usd`` ones. ``note`` ends every message
    (what the compared amounts leave out). ``runs``: the amounts are totals over that many runs (a
    project's month), so a dollar limit, which is per run, allows that many times itself.

    One verdict per check: where the error-level gate of a check (the percentage, or the dollars)
    trips, its warning-level twin is left out (it would only repeat the failure as a warning)."""
    gates: list[Gate] = []
    levels: tuple[tuple[GateName, GateName, Decimal | None, Decimal | None, str], ...] = (
        ("max_increase", "max_increase_usd", limits.fraction, limits.usd, "allowed increase"),
        ("warn_increase", "warn_increase_usd", limits.warn_fraction, limits.warn_usd, "warning threshold"),
    )
    failed: set[str] = set()  # the checks whose error-level gate tripped
    for name, name_usd, fraction, dollars, what in levels:
        if fraction is not None and "fraction" not in failed:
            gate = _fraction_gate(name, label, base_usd, head_usd, fraction, what, file, note)
            gates.append(gate)
            if gate.tripped and not gate.warning:
                failed.add("fraction")
        if dollars is not None and "usd" not in failed:
            gate = _usd_gate(name_usd, label, base_usd, head_usd, dollars, what, file, note, runs)
            gates.append(gate)
            if gate.tripped and not gate.warning:
                failed.add("usd")
    return tuple(gates)


def _fraction_gate(
    name: GateName,
    label: str,
    base_usd: Decimal,
    head_usd: Decimal,
    limit: Decimal,
    what: str,
    file: str | None,
    note: str,
) -> Gate:
    delta = head_usd - base_usd
    if base_usd > 0:
        change = delta / base_usd
        tripped = change > limit
        shown = ("+" if change > 0 else "") + percent(change)
    else:
        tripped = delta > 0
        shown = "new cost" if delta > 0 else "no change"
    relation = ">" if tripped else "<="
    return Gate(
        name=name,
        tripped=tripped,
        message=(
            f"{label}: cost {_change(base_usd, head_usd)} ({shown}) {relation} {what} {percent(limit)}{note}"
        ),
        file=file,
    )


def _usd_gate(
    name: GateName,
    label: str,
    base_usd: Decimal,
    head_usd: Decimal,
    limit: Decimal,
    what: str,
    file: str | None,
    note: str,
    runs: Decimal | None = None,
) -> Gate:
    delta = head_usd - base_usd
    allowed_usd = limit if runs is None else limit * runs
    tripped = delta > allowed_usd
    increase, allowed = usd_pair(delta, allowed_usd)
    if runs is not None:  # ($0.0200 per run x 31,500 runs)
        allowed += f" ({usd(limit)} per run × {_runs(runs)} runs)"
    relation = ">" if tripped else "<="
    return Gate(
        name=name,
        tripped=tripped,
        message=(
            f"{label}: cost {_change(base_usd, head_usd)} ({signed(delta, increase)})"
            f" {relation} {what} {allowed}{note}"
        ),
        file=file,
    )


def _runs(runs: Decimal) -> str:
    """``31,500`` runs, or ``7,575.0`` when a ``runs_per_day`` has decimals."""
    return f"{int(runs):,}" if runs == runs.to_integral_value() else mean_count(runs)


def _versus(amount: Decimal, relation: str, limit: Decimal) -> str:
    """``$0.0312 <= $0.1000``: an amount and the limit it is checked against, by the money policy
    (4 decimals, more only where two different amounts would read the same)."""
    shown, limit_shown = usd_pair(amount, limit)
    return f"{shown} {relation} {limit_shown}"


def _change(base: Decimal, head: Decimal) -> str:
    """``$0.0312 → $0.0350``: a cost before and after."""
    before, after = usd_pair(base, head)
    return f"{before} {ARROW} {after}"


def parse_increase(value: str) -> Decimal:
    """``10%`` or ``10`` (percent either way) -> Decimal('0.1'). ValueError with a message otherwise."""
    text = value.strip().removesuffix("%").strip()
    try:
        fraction = Decimal(text) / 100
    except ArithmeticError:
        raise ValueError(f"not a percentage: {value!r} (e.g. 10%)") from None
    if not fraction.is_finite() or fraction < 0:
        raise ValueError(f"must be a percentage >= 0, got {value!r}")
    return fraction
