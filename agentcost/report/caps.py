"""The report of ``agentcost caps SCENARIO``: runtime caps for an agent SDK, read off the tail of the
simulated runs (:mod:`agentcost.loop.caps`), and each SDK's setting derived from them, once.

How each SDK counts what it caps (read 2026-12-07; docs/caps.md says the same with the quotes):

* **OpenAI Agents SDK** ``Runner.run(..., max_turns=N)``: "A turn is defined as one AI invocation
  (including any tool calls that might occur)"; the runner adds 1 before each model call and raises
  ``MaxTurnsExceeded`` when the count is over N, so N model requests run
  (:data:`OPENAI_MAX_TURNS_URL`). max_turns = the run's requests.
* **Claude Agent SDK** ``ClaudeAgentOptions(max_turns=N, max_budget_usd=X)``: a turn is one round
  trip of the loop (a response and the tools it called), and its worked example counts the final
  text-only response as a turn too (:data:`CLAUDE_TURNS_URL`): max_turns = the run's requests (one
  request more than the tool rounds, so a count of tool rounds only would stop nothing either).
  ``max_budget_usd``: "The query will stop if this budget is exceeded" (:data:`CLAUDE_OPTIONS_URL`),
  checked between requests: the request that passes it is billed (docs/accounting.md).
* **LangGraph** ``{"recursion_limit": N}``: every super-step counts; a run of S super-steps needs
  N >= S (the loop stops at ``step > recursion_limit`` counting from 0 after the input step:
  :data:`LANGGRAPH_LOOP_URL`). A ReAct agent (``create_react_agent``: a model node, then a tools
  node running all the calls of one response) takes one step per model request and one per tool
  round: 2 x requests - 1 (:func:`recursion_limit`).
* **per request** ``max_tokens``: "The maximum number of tokens to generate before stopping"
  (Anthropic's Messages API, :data:`ANTHROPIC_MAX_TOKENS_URL`; the OpenAI Agents SDK's
  ``ModelSettings(max_tokens=...)``: "The maximum number of output tokens to generate",
  :data:`OPENAI_MAX_TOKENS_URL`). Thinking counts as output, so it is in the largest request's size.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from agentcost.infra.record import record

if TYPE_CHECKING:
    from agentcost.loop.caps import CapRuns
    from agentcost.report.estimate import Report

READ = "2026-12-07"
"""The day the SDK facts below were read."""
# lines 290-292 (the definition) and 1441-1442 (current_turn += 1; current_turn > max_turns)
OPENAI_MAX_TURNS_URL = (
    "https://github.com/openai/openai-agents-python/blob/7f7a44f8dc0650296bd5ab6c745c9bcbaa6ac3b7"
    "/src/agents/run.py"
)
OPENAI_MAX_TOKENS_URL = (
    "https://github.com/openai/openai-agents-python/blob/7f7a44f8dc0650296bd5ab6c745c9bcbaa6ac3b7"
    "/src/agents/model_settings.py"
)  # line 129
CLAUDE_TURNS_URL = "https://code.claude.com/docs/en/agent-sdk/agent-loop"  # "Turns and messages"
CLAUDE_OPTIONS_URL = (
    "https://github.com/anthropics/claude-agent-sdk-python/blob/e8bde60164f9ef820068ec36ffe6b7be6bd8fd26"
    "/src/claude_agent_sdk/types.py"
)  # ClaudeAgentOptions.max_turns and max_budget_usd, lines 2015-2026
LANGGRAPH_LOOP_URL = (
    "https://github.com/langchain-ai/langgraph/blob/f09cfe8ffc1eeffd68f4b628ed69c30f7cad229f"
    "/libs/langgraph/langgraph/pregel/_loop.py"
)  # lines 607-608 (step > stop: out_of_steps) and 1700-1701 (stop = step + recursion_limit + 1)
ANTHROPIC_MAX_TOKENS_URL = "https://platform.claude.com/docs/en/api/messages"
SOURCES = (
    ("OpenAI Agents SDK max_turns", OPENAI_MAX_TURNS_URL),
    ("Claude Agent SDK turns", CLAUDE_TURNS_URL),
    ("Claude Agent SDK max_turns, max_budget_usd", CLAUDE_OPTIONS_URL),
    ("LangGraph recursion_limit", LANGGRAPH_LOOP_URL),
    ("max_tokens (Anthropic API)", ANTHROPIC_MAX_TOKENS_URL),
    ("max_tokens (OpenAI Agents SDK)", OPENAI_MAX_TOKENS_URL),
)


def recursion_limit(turns: int) -> int:
    """LangGraph's ``recursion_limit`` for a ReAct agent allowed ``turns`` model requests: a step per
    request and one per tool round between two requests (2 x turns - 1)."""
    return 2 * turns - 1


@record
class CapsReport:
    """Caps for one scenario at one statistic of its runs, and each SDK's setting."""

    estimate: Report  # the scenario's estimate at its medians: name, model, prices
    runs: CapRuns

    @property
    def max_turns(self) -> int:
        return self.runs.caps.max_turns

    @property
    def max_budget_usd(self) -> Decimal:
        return self.runs.caps.max_budget_usd

    @property
    def max_tokens(self) -> int:
        return self.runs.caps.max_tokens

    @property
    def claude_max_turns(self) -> int:
        return self.max_turns

    @property
    def openai_max_turns(self) -> int:
        return self.max_turns

    @property
    def langgraph_recursion_limit(self) -> int:
        return recursion_limit(self.max_turns)

    @property
    def beyond_any_share(self) -> Decimal:
        return self.runs.share(self.runs.beyond_any)

    def notes(self) -> tuple[str, ...]:
        """What the caps rest on, one line each (the table's lines under the settings, JSON ``notes``)."""
        r = self.runs
        out = []
        if not r.simulated:
            out.append(
                "The scenario has no distribution: the caps are its one run's figures, with no margin"
                + ("" if r.margin == 0 else " but the one asked")
                + " (write counts or sizes as distributions for a tail)."
            )
        if r.margin:
            out.append(f"Margin: {r.margin.normalize():f}% added before rounding up.")
        out.append(
            "Rounded up: turns to a whole request, dollars to the cent, max_tokens to a multiple of 256."
        )
        out.append(
            "A turn is one model request (OpenAI Agents SDK, Claude Agent SDK); LangGraph's ReAct agent "
            "takes 2 steps per tool round plus one."
        )
        if r.subagents:
            out.append(
                "Subagents' requests are counted in max_turns and their cost in max_budget_usd; "
                "max_tokens is the scenario's own largest request."
            )
        if self.estimate.approximate:
            out.append("Output token counts are approximate: this model's tokenizer is not public.")
        return tuple(out)


__all__ = ["SOURCES", "CapsReport", "recursion_limit"]
