"""Estimating subagents: the runs a parent scenario's tool calls hand to other agent loops.

A subagent (``subagent:`` on a call, loaded with the scenario by :mod:`agentcost.scenario.subagents`)
has its own model, system prompt, tools, caching and rounds; its requests are billed on its own
model, and only its final answer goes back to the parent as the call's tool result.

Estimating (:func:`estimate_subagents`) runs each subagent's own estimate (the caller passes the
estimator: same ``as_of`` and price file, never the parent's ``--model``, ``--service-tier`` or budget),
keyed by (round index, call index) of the parent, both 0-based in the unrolled rounds. Subagents of
rounds the parent never runs (past ``limits.max_rounds``) are not started.

A subagent inherits none of its parent's caching settings (``caching``, ``cache_ttl``, an explicit
cache): each scenario is estimated the same alone or as a subagent. :func:`ttl_not_inherited` says so
when it matters: the parent's TTL is not the default and a subagent that says none gets 5m.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import TypeVar

from agentcost.errors import InputError
from agentcost.scenario.model import Scenario
from agentcost.tokens.request import CachePolicy

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


def ttl_not_inherited(
    parent: Scenario, policy: CachePolicy, subagents: Mapping[SubagentKey, tuple[Scenario, CachePolicy]]
) -> list[str]:
    """A warning per distinct subagent that runs with the default 5m cache TTL while its parent runs
    with another (``cache_ttl: 1h`` or two TTLs), because it does not set ``cache_ttl`` itself: a
    subagent does not inherit it. Only where a TTL is priced (Anthropic's explicit breakpoints,
    caching on) on both sides. ``subagents``: each subagent's scenario and cache policy."""
    if not _ttl_priced(policy) or policy.ttl_label == "5m":
        return []
    out: dict[str, None] = {}
    for sub, sub_policy in subagents.values():
        if sub.cache_ttl_given or not _ttl_priced(sub_policy):
            continue
        out.setdefault(
            f"subagent {_label(parent, sub)}: cache TTL {sub_policy.ttl_label}, not its parent's "
            f"{policy.ttl_label}: a subagent does not inherit cache_ttl (set cache_ttl in its scenario "
            "to change it)"
        )
    return list(out)


def _ttl_priced(policy: CachePolicy) -> bool:
    return policy.style == "explicit" and policy.mode != "none"


def _label(parent: Scenario, sub: Scenario) -> str:
    """The subagent as reports name it: its file as the parent names it, or ``inline``."""
    if sub.path != parent.path:
        return os.path.relpath(sub.path, parent.path.parent)
    return f"inline {sub.name!r}" if sub.name else "inline"
