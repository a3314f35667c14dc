"""A replayed run's parts: the price row of each model it names, and its subtotals per model (a
Claude Code session mixing Haiku and Opus) and per subagent transcript (``<session>/subagents/
agent-*.jsonl``), and the note on requests whose reported output is only a streaming-start snapshot.

The sums here add the dollars :func:`agentcost.replay.ledger.replay` priced per request with
:meth:`~agentcost.prices.pricing.ModelPrices.price`; nothing here prices a token.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Protocol

from agentcost.errors import InputError
from agentcost.infra.record import record
from agentcost.infra.validate import shown
from agentcost.prices.lookup import resolve_model

if TYPE_CHECKING:
    from agentcost.prices.pricing import ModelPrices
    from agentcost.prices.user import UserPrices

__all__ = ["AgentCost", "ModelCost", "model_prices", "per_agent", "per_model", "snapshot_note"]

SNAPSHOT_MAX_OUTPUT = 8
"""Largest ``output_tokens`` taken for Claude Code's streaming-start usage snapshot when the log
has no final usage to tell it by: the ``message_start`` event carries the output counted so far,
and a line written then, with ``stop_reason: null``, is all the log keeps of some requests. In the
real sessions of github.com/marot/spotter (test/fixtures/transcripts, Claude Code 2.1.39, read
2026-12-07), 238 of 899 requests end on such a line with 1 to 8 output tokens and 131 more with 9
to 27; every one of the 530 others carries the final usage's ``server_tool_use``, none of these."""


class _Row(Protocol):
    """A replayed request, as :class:`agentcost.replay.trace.ReplayRequest` carries it."""

    @property
    def model(self) -> str | None: ...
    @property
    def agent(self) -> str | None: ...
    @property
    def reported_input(self) -> int | None: ...
    @property
    def reported_output(self) -> int | None: ...
    @property
    def counted_output(self) -> int | None: ...
    @property
    def output_snapshot(self) -> bool: ...
    @property
    def cost_usd(self) -> Decimal: ...


@record
class ModelCost:
    """The requests of one model in a run that names several, and their dollars."""

    model: str  # as the log names it
    model_id: str  # genai-prices' id it was priced as
    requests: int
    cost_usd: Decimal


@record
class AgentCost:
    """A transcript of a session with subagents: its requests and their dollars."""

    agent: str | None  # the subagent transcript's name, e.g. ``agent-a2898e3``; None: the session's own
    model: str | None  # the model most of its requests name
    requests: int
    reported_input: int | None  # None when a request of it reports nothing
    reported_output: int | None
    cost_usd: Decimal


def model_prices(
    name: str, path: str, *, as_of: datetime, user_prices: UserPrices | None, given: bool
) -> ModelPrices:
    """The price row of ``name``: the model ``--model`` gives (``given``; its own errors) or one the
    log names (an error naming the log, the model shown by its size, never quoted)."""
    try:
        return resolve_model(name, as_of=as_of, user_prices=user_prices)
    except InputError as e:
        if given:
            raise
        raise InputError(
            f"cannot price the model the log names, {shown(name, quote=False)}",
            file=path,
            key="model",
            hint="pass --model to name a model agentcost knows" + (f"; {e.hint}" if e.hint else ""),
        ) from None


def per_model(rows: Sequence[_Row], ids: dict[str, str]) -> tuple[ModelCost, ...]:
    """Requests and dollars per model (``ids``: each model's genai-prices id), most requests
    first; empty when every request is of one model."""
    names = Counter(r.model for r in rows if r.model is not None)
    if len(names) < 2:
        return ()
    return tuple(
        ModelCost(m, ids[m], n, sum((r.cost_usd for r in rows if r.model == m), Decimal(0)))
        for m, n in names.most_common()
    )


def per_agent(rows: Sequence[_Row]) -> tuple[AgentCost, ...]:
    """Requests and dollars of the session's own requests, then of each subagent transcript in the
    order they were folded; empty when no request is a subagent's."""
    if all(r.agent is None for r in rows):
        return ()
    out: list[AgentCost] = []
    for agent in dict.fromkeys(r.agent for r in rows):
        own = [r for r in rows if r.agent == agent]
        models = Counter(r.model for r in own if r.model is not None)
        reported = all(r.reported_input is not None for r in own)
        out.append(
            AgentCost(
                agent=agent,
                model=models.most_common(1)[0][0] if models else None,
                requests=len(own),
                reported_input=sum(r.reported_input or 0 for r in own) if reported else None,
                reported_output=sum(r.reported_output or 0 for r in own) if reported else None,
                cost_usd=sum((r.cost_usd for r in own), Decimal(0)),
            )
        )
    return tuple(out)


def snapshot_note(rows: Sequence[_Row]) -> str | None:
    """The note on requests whose only usage is Claude Code's streaming-start snapshot, or None."""
    flagged = [r for r in rows if r.output_snapshot]
    if not flagged:
        return None
    n = len(flagged)
    reported = sum(r.reported_output or 0 for r in flagged)
    counted = sum(r.counted_output or 0 for r in flagged)
    return (
        f"{n:,} request{'s' if n != 1 else ''} carry only the streaming-start usage snapshot "
        f"(stop_reason null; output 1 to {SNAPSHOT_MAX_OUTPUT} tokens, or no final usage with "
        f"server_tool_use where the log's other requests have one: {reported:,} output tokens "
        f"reported in all): their output is priced from our count of the recorded response "
        f"({counted:,} tokens), their input from the reported usage"
    )
