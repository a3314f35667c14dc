"""Cost per completed task: the expected costs of a scenario's ``outcome`` (docs/scenario.md#outcome)."""

from __future__ import annotations

from decimal import Decimal

from agentcost.infra.record import record
from agentcost.scenario.model import SUCCESS_SCALE, Dist, Outcome

PER_TASK_NOTE = "per task = per run where a scenario has no outcome (every run completes its task)"


@record
class OutcomeLine:
    """Cost per completed task (the scenario's ``outcome``; docs/scenario.md#outcome). A run succeeds
    with probability ``success``; a failed run costs ``failure_cost_usd``: a whole run, or with
    ``failure_rounds`` N the run's first N rounds. ``runs_per_task``: expected runs per started task;
    ``completion``: probability a started task is completed."""

    success: Decimal
    on_failure: str  # "retry" | "abandon"
    max_attempts: int | None  # retry: most runs per task (None: until it succeeds)
    cost_per_run_usd: Decimal
    runs_per_task: Decimal
    completion: Decimal
    cost_per_task_usd: Decimal  # expected cost per started task
    cost_per_completed_usd: Decimal  # c + f (1 - p) / p; c / p when a failure costs a whole run
    failure_rounds: int | None = None  # a failed run is cut after this many rounds
    failure_cost_usd: Decimal | None = None  # f, what a failed run costs (None: cost_per_run_usd)
    success_dist: str | None = None  # success is the median of this distribution ("uniform 0.6–0.9")

    @property
    def failures_per_task(self) -> Decimal:
        """Expected failed runs per started task: runs per task less the completed share."""
        return self.runs_per_task - self.completion

    @property
    def policy_text(self) -> str:
        """``retry up to 3 attempts``, ``retried until it succeeds``, ``failed runs abandoned``, and
        ``, failures cut after 2 rounds`` with ``failure_rounds``."""
        if self.on_failure == "abandon":
            text = "failed runs abandoned"
        elif self.max_attempts is None:
            text = "retried until it succeeds"
        else:
            s = "" if self.max_attempts == 1 else "s"
            text = f"retry up to {self.max_attempts} attempt{s}"
        if self.failure_rounds is not None:
            s = "" if self.failure_rounds == 1 else "s"
            text += f", failures cut after {self.failure_rounds} round{s}"
        return text


def outcome_line(
    outcome: Outcome,
    cost_per_run: Decimal,
    failure_usd: Decimal | None = None,
    success: Decimal | None = None,
) -> OutcomeLine:
    """The expected costs of a run that succeeds with probability p = ``outcome.success`` (q = 1 - p),
    a successful run costing c = ``cost_per_run`` and a failed one f = ``failure_usd`` (None: c):

    * abandon: 1 run per started task, completed with probability p;
    * retry, unlimited: runs until success are geometric, 1/p expected runs, always completed;
    * retry, at most K: E[runs] = sum over k < K of q^k = (1 - q^K) / p, completed with 1 - q^K.

    Failed runs per started task = E[runs] - P(completed); cost per started task = c P(completed) +
    f (E[runs] - P(completed)); cost per completed task = c + f q / p in every case, which is c / p
    when f = c (then computed as that division, and per started task as c E[runs]). ``success``: p
    when not ``outcome.success`` (the model's own, ``success_by_model``)."""
    p = outcome.success if success is None else success
    if outcome.on_failure == "abandon":
        runs, completion = Decimal(1), p
    elif outcome.max_attempts is None:
        runs, completion = 1 / p, Decimal(1)
    else:
        completion = 1 - (1 - p) ** outcome.max_attempts
        runs = completion / p
    if failure_usd is None or failure_usd == cost_per_run:
        per_task, per_completed = cost_per_run * runs, cost_per_run / p
    else:
        per_task = cost_per_run * completion + failure_usd * (runs - completion)
        per_completed = cost_per_run + failure_usd * (1 - p) / p
    return OutcomeLine(
        success=p,
        on_failure=outcome.on_failure,
        max_attempts=outcome.max_attempts,
        cost_per_run_usd=cost_per_run,
        runs_per_task=runs,
        completion=completion,
        cost_per_task_usd=per_task,
        cost_per_completed_usd=per_completed,
        failure_rounds=outcome.failure_rounds,
        failure_cost_usd=cost_per_run if failure_usd is None else failure_usd,
        success_dist=_success_text(outcome.success_dist) if p == outcome.success else None,
    )


def _success_text(dist: Dist | None) -> str | None:
    """``triangular 0.4–0.9, most likely 0.8``: a distribution of ``outcome.success`` (held in
    millionths) in probabilities."""
    if dist is None:
        return None
    v = [str((x / SUCCESS_SCALE).normalize()) for x in dist.params]
    if dist.kind in ("triangular", "pert"):
        return f"{dist.kind} {v[0]}\N{EN DASH}{v[2]}, most likely {v[1]}"
    if dist.kind == "empirical":
        return f"empirical, {len(v)} rates {v[0]}\N{EN DASH}{v[-1]}"
    return f"{dist.kind} {v[0]}\N{EN DASH}{v[-1]}"
