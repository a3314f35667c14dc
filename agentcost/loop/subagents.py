"""Estimating subagents: the runs a parent scenario's tool calls hand to other agent loops.

A subagent (``subagent:`` on a call, loaded with the scenario by :mod:`agentcost.scenario.subagents`)
has its own model, system prompt, tools, caching and rounds; its requests are billed on its own
model, and only its final answer goes back to the parent as the call's tool result.

Estimating (:func:`estimate_subagents`) runs each subagent's own estimate (the caller passes the
estimator: same ``as_of`` and price file, never the parent's ``--model``, ``--service-tier`` or budget),
keyed by (round index, call index) of the parent, both 0-based in the unrolled rounds. Subagents of
rounds the parent never runs (past ``limits.max_rounds``) are not started.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TypeVar

from agentcost.errors import InputError
from agentcost.scenario.model import Scenario

E = TypeVar("E")

SubagentKey = tuple[int, int]
"""(round index, call index) of the parent call that starts a subagent, both 0-based (unrolled rounds)."""


def has_subagents(scenario: Scenario) -> bool:
    return any(c.subagent is not None for r in scenario.rounds for c in r.calls)


def estimate_subagents(
    scenario: Scenario, rounds_run: int, estimate: Callable[[Scenario], E]
) -> Mapping[SubagentKey, E]:
    """``estimate`` of every subagent the parent starts in its first ``rounds_run`` rounds (each
    distinct subagent once; an error points at the parent's ``subagent:`` line)."""
    memo: dict[int, E] = {}
    out: dict[SubagentKey, E] = {}
    for i, r in enumerate(scenario.rounds[:rounds_run]):
        for j, call in enumerate(r.calls):
            sub = call.subagent
            if sub is None:
                continue
            if id(sub) not in memo:
                try:
                    memo[id(sub)] = estimate(sub)
                except InputError as err:
                    raise err.located(file=sub.path, line=call.subagent_line) from None
            out[(i, j)] = memo[id(sub)]
    return out
