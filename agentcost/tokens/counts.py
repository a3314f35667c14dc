"""Token counts of one scenario: what ``tokens.count_tokens`` returns and the accountant reads.

All numbers are prompt or output tokens as the provider would bill them (framing included), counted
once per distinct text. Data only, no I/O.
"""

from __future__ import annotations

from decimal import Decimal

from agentcost.infra.record import record
from agentcost.scenario.model import ContextEditing
from agentcost.tokens.request import CachePolicy, Pricer


@record
class RoundTokens:
    """Tokens of one round: a tool round, or a chat turn (``reply``).

    ``output``: what the model writes in this response (assistant text, tool_use block(s), thinking),
    billed as output of the request that produced it.
    ``echo``: the same assistant turn when it is sent back as input in every later request (thinking
    excluded unless the provider keeps it).
    ``result``: the tool result message(s), or a chat turn's next user message, framing included,
    added to every later request.
    """

    tools: tuple[str, ...]
    output: int
    echo: int
    result: int
    transient: int = 0  # input only in the NEXT request (thinking kept for one turn), then dropped
    server_uses: tuple[tuple[str, int], ...] = ()  # (tool, billable uses) of server tools in this response
    continuations: int = 0  # extra full requests this response needs (Anthropic pause_turn past the cap)
    inline: int = 0  # input of THIS round's own request only: server-tool results the model reads
    # while it is still writing this response (its later sampling iterations), outside the cached prefix
    reply: bool = False  # a chat turn: a plain-text reply and the user's next message, no tool call
    # context editing: (tool, result body tokens) of each client tool call, what clearing can remove
    # (set only when the scenario edits context; agentcost.tokens.context)
    call_results: tuple[tuple[str, int], ...] = ()
    search: bool = False  # a tool-search request inserted before the next scenario round (deferred
    # tools): not a scenario round, so no pause before the round it loads tools for, not counted by max_rounds
    failed: bool = False  # a failed attempt (retries): the round's response with an invalid call, answered
    # by an error result, inserted before the round it retries; like ``search``, not a scenario round
    model: str | None = None  # routing: the model this round's request runs on (None: the scenario's)
    container_seconds: Decimal | None = None  # code-execution container time billed with this response
    # (agentcost.tokens.dynamics.container_seconds; None: it runs no container)
    output_cut: int = 0  # limits.max_tokens: output tokens cut from this response (``output`` is after it)

    @property
    def inserted(self) -> bool:
        """Not a scenario round: a tool-search request or a failed attempt, inserted before one."""
        return self.search or self.failed

    @property
    def appended(self) -> int:
        """Input tokens this round adds to every later request."""
        return self.echo + self.result


@record
class TokenCounts:
    """Per-part token counts of a scenario for one model's counting rules.

    Request 1 carries ``tools + system + task + per_request``; request i+1 carries that plus the
    ``appended`` tokens of rounds 1..i. ``tools`` includes hidden tool-use system prompts and tool
    framing and is 0 when there are no tools. ``per_request`` is framing added to every request that
    sits after the last message and is never cached (e.g. OpenAI's 3 reply-priming tokens).
    """

    tools: int
    system: int
    task: int
    per_request: int
    rounds: tuple[RoundTokens, ...]
    final_output: int
    encoding: str  # the tokenizer used, e.g. "o200k_base" or "ctok 4.7"
    approximate: bool  # False only where the provider's tokenizer is reproduced exactly
    method: str  # one line: how these counts were made, for the report
    notes: tuple[str, ...] = ()
    context_editing: ContextEditing | None = None  # applied by loop.editing.ContextEditor
    # routing: (model, the other model's counts + pricer + cache policy) for rounds naming a model
    # (RoundTokens.model); set by agentcost.loop.estimate, read by the accountant. A round whose model has
    # no route here runs on the scenario's model (e.g. counts recounted without routes)
    routes: tuple[tuple[str, Route], ...] = ()
    tool_search_prefix: int = 0  # deferred tools: their stubs + the tool-search tool, in ``tools``
    # --count api: (what the provider's counting endpoint counted, what stayed offline); None offline
    api_split: tuple[str, str] | None = None
    final_output_cut: int = 0  # limits.max_tokens: output tokens cut from the final answer

    @property
    def prefix(self) -> int:
        """The stable prefix: tools then system (Anthropic's cache order)."""
        return self.tools + self.system


@record
class Route:
    """Another model that some requests run on (routing): the same scenario counted with that
    model's rules (``counts.rounds`` aligned with the scenario model's), its pricer and cache policy."""

    counts: TokenCounts
    pricer: Pricer
    policy: CachePolicy
