"""Estimating subagents: the runs a parent scenario's tool calls hand to other agent loops.

A subagent (``subagent:`` on a call, loaded with the scenario by :mod:`agentcost.scenario.subagents`)
has its own model, system prompt, tools, caching and rounds; its requests are billed on its own
model, and only its final answer goes back to the parent as the call's tool result.

Estimating (:func:`estimate_subagents`) runs each subagent's own estimate (the caller passes the
estimator: same ``as_of`` and price file, never the parent's ``--model``, ``--service-tier`` or budget),
keyed by (round index, call index) of the parent, both 0-based in the unrolled rounds. Subagents of
rounds the parent never runs (past ``limits.max_rounds``) are not started.

With a budget (``limits.max_budget_usd``), :class:`SubagentRuns` gives the parent's accountant each
subagent as a run it starts when it reaches it, with what is left of the budget: the subagent's
spending counts in order with the parent's requests, and a subagent that crosses the budget stops
at that request (then the parent sends nothing more).

A subagent inherits none of its parent's caching settings (``caching``, ``cache_ttl``, an explicit
cache): each scenario is estimated the same alone or as a subagent. :func:`ttl_not_inherited` says so
when it matters: the parent's TTL is not the default and a subagent that says none gets 5m.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from decimal import Decimal
from typing import Generic, TypeVar

from agentcost.errors import InputError
from agentcost.loop.accountant import SubagentRun
from agentcost.scenario.model import Scenario, ToolUse
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


class SubagentRuns(Generic[E]):
    """A parent's subagents as runs its accountant starts in order (``run_accountant(subagents=...)``).

    ``estimate(sub, left)``: the subagent's estimate, stopping once it has spent more than ``left``
    (None: no cap beyond its own); ``spent(e)``: what that estimate spent (``Ledger.spent_usd``). Each
    distinct subagent is estimated once with no cap; it is estimated again with ``left`` only when it
    spent more than that (it would cross the budget). :attr:`started` holds the estimates of the
    subagents the run started, keyed as :func:`estimate_subagents` keys them. ``whole``: the uncapped
    estimates by ``id`` of the subagent's scenario, to share between runs of one parent.
    """

    def __init__(
        self,
        scenario: Scenario,
        estimate: Callable[[Scenario, Decimal | None], E],
        spent: Callable[[E], Decimal],
        whole: dict[int, E] | None = None,
    ) -> None:
        self.scenario = scenario
        self._estimate = estimate
        self._spent = spent
        self._whole: dict[int, E] = {} if whole is None else whole  # may be shared by many runs
        self.started: dict[SubagentKey, E] = {}

    def by_round(self) -> Mapping[int, Sequence[tuple[int, SubagentRun]]]:
        """For ``run_accountant``: by round index, the (call index, run) of each subagent call."""
        out: dict[int, list[tuple[int, SubagentRun]]] = {}
        for i, r in enumerate(self.scenario.rounds):
            for j, call in enumerate(r.calls):
                if call.subagent is not None:
                    out.setdefault(i, []).append((j, self._run(i, j)))
        return out

    def _run(self, i: int, j: int) -> SubagentRun:
        def run(left: Decimal | None) -> Decimal:
            call = self.scenario.rounds[i].calls[j]
            sub = call.subagent
            assert sub is not None
            try:
                if id(sub) not in self._whole:
                    self._whole[id(sub)] = self._estimate(sub, None)
                est = self._whole[id(sub)]
                if left is not None and self._spent(est) > left:
                    est = self._estimate(sub, left)
            except InputError as err:
                raise err.located(file=sub.path, line=call.subagent_line) from None
            self.started[(i, j)] = est
            return self._spent(est)

        return run


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


# --- --simulate: subagents drawn per run ------------------------------------------------------------


def uncertain_subagents(scenario: Scenario) -> bool:
    """Whether a subagent the scenario starts (at any depth) has a distribution of its own."""
    return any(
        c.subagent is not None and (c.subagent.uncertain or uncertain_subagents(c.subagent))
        for r in scenario.rounds
        for c in r.calls
    )


def drawn_subagents(
    scenario: Scenario, seed: int, one_run: Callable[[Scenario, int], Scenario], nested: bool = False
) -> Scenario:
    """One run's scenario with every uncertain subagent its calls start replaced by one run of that
    subagent, drawn afresh for each call (``one_run(sub, seed)``: its round counts, sizes and final
    answer, as ``--simulate`` draws them; its own subagents the same way, here), all from ``seed``;
    the call's result is the drawn run's final answer. ``nested``: the subagents of a drawn subagent
    (their stream is told apart from the one ``one_run`` drew that subagent with)."""
    import numpy as np

    gen = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, 1] if nested else [seed])))
    rounds = []
    for r in scenario.rounds:
        calls = tuple(
            c
            if c.subagent is None or not (c.subagent.uncertain or uncertain_subagents(c.subagent))
            else _with_run(c, one_run, int(gen.integers(0, 2**63 - 1)))
            for c in r.calls
        )
        rounds.append(r if calls == r.calls else replace(r, calls=calls))
    return replace(scenario, rounds=tuple(rounds))


def _with_run(call: ToolUse, one_run: Callable[[Scenario, int], Scenario], seed: int) -> ToolUse:
    assert call.subagent is not None
    sub = drawn_subagents(one_run(call.subagent, seed), seed, one_run, nested=True)
    return replace(call, subagent=sub, result=sub.final if sub.final is not None else call.result)
