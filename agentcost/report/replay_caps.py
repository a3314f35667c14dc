"""Runtime caps held against recorded runs (``agentcost replay DIR --caps FILE``): for each run,
whether the caps of ``agentcost caps`` would have stopped it, after which request, and what it spent
past that point; and the same summed over the runs. Built by :mod:`agentcost.commands.replay_caps`;
:mod:`agentcost.render.replay_many` shows it.

The SDKs stop between requests (docs/caps.md): ``max_turns`` N lets N model requests of the agent
run (its subagents' requests are theirs), and ``max_budget_usd`` X stops the agent after the request
whose running cost passed X (that request is billed; a budget passed by the run's last request stops
nothing). ``max_tokens`` cuts one response, and what an agent does with a cut response is its own:
the report names the first request whose output was larger, never a stop.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Literal

from agentcost.infra.record import record

StopCap = Literal["max_turns", "max_budget_usd"]
STOP_CAPS: tuple[StopCap, ...] = ("max_turns", "max_budget_usd")


@record
class Caps:
    """The caps a caps file gives (None: that cap is not set)."""

    path: str
    max_turns: int | None
    max_budget_usd: Decimal | None
    max_tokens: int | None


@record
class CapCheck:
    """One run against the caps."""

    turns: int  # the requests of the run's own agent
    stopped_by: StopCap | None  # the cap that would have stopped it first (None: none)
    stopped_after: int | None  # the last request it would have sent (1-based)
    beyond_usd: Decimal  # what it spent after that request (0 when not stopped)
    turns_stop: int | None  # max_turns would stop it after this request
    budget_stop: int | None  # max_budget_usd would stop it after this request
    over_tokens_request: int | None  # the first request whose output was over max_tokens
    over_tokens: int | None  # that request's output tokens


@record
class CapsOutcome:
    """The runs against the caps, summed."""

    caps: Caps
    runs: int
    stopped: int  # runs a cap would have stopped
    by_turns: int  # runs max_turns would have stopped (whichever cap came first)
    by_budget: int
    over_tokens: int  # runs with a request over max_tokens
    beyond_usd: Decimal  # what the stopped runs spent past their stop, in all

    @property
    def stopped_share(self) -> Decimal:
        return Decimal(self.stopped) / self.runs if self.runs else Decimal(0)


__all__ = ["STOP_CAPS", "CapCheck", "Caps", "CapsOutcome", "StopCap"]
