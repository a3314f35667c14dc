"""Agent dynamics on the token-count side: parallel calls, retries, result trimming and routing.

* Parallel calls (``Round.calls`` with several calls) are counted by the provider rules as one
  response with N tool calls and one set of N results (:func:`agentcost.tokens.count.count_tokens`);
  :func:`sequential_equivalent` makes the same calls one per round, for the comparison.
* Retries: :func:`failures_per_round` spreads the failing calls of ``Scenario.retries`` evenly over
  the tool rounds, and drops those of rounds that call only strict tools (:func:`strict_round`);
  :func:`insert_retries` puts ``retries.attempts - 1`` failed attempts (``RoundTokens.failed``)
  before each round per failing call: the round's response written again
  (output), every call answered by the error result; each stays in the conversation like any other
  turn, so the next attempt carries it.
* Result trimming: :func:`cap_results` caps every result body at ``trim.max_tokens``;
  ``trim.keep_last`` is a clearing of old results at every request (:func:`trim_editing`), applied
  by the accountant like context editing, with the same cache consequence (the prefix after the
  first replaced result is written again).
* Container time: :func:`container_seconds` is what a round's code-execution container is billed
  for (``RoundTokens.container_seconds``), priced by :func:`agentcost.loop.caching.pricer_for`.
* Output cap: :func:`cap_output` cuts every response's output (thinking included) at
  ``limits.max_tokens``, keeping what it cut (``RoundTokens.output_cut``) for the report's warning.
* Routing: ``RoundTokens.model`` is the round's ``model``; inserted requests (tool search, failed
  attempts) run on the model of the round they precede (:func:`route_inserted`).

See docs/accounting.md ("Agent dynamics").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING

from agentcost.scenario.model import Content, ContextEditing, ResultTrim, Round, Scenario
from agentcost.tokens.counts import RoundTokens

if TYPE_CHECKING:
    from agentcost.tokens.rules import Rules

DEFAULT_ERROR_TOKENS = 40
"""Body of a validation error sent back for a failed call when ``retries.error`` is not given. Ours:
the size of a one-line tool error naming the bad parameter (e.g. ``InputValidationError: Read failed
due to the following issue: The required parameter `file_path` is missing``)."""

TRIM_PLACEHOLDER_TOKENS = 10
"""Body of the placeholder an older result becomes under ``trim.keep_last`` (e.g. ``[result of Read
removed to save context]``). Ours; context editing's ``placeholder`` has the same default."""


# ---------------------------------------------------------------------------------------------
# Parallel calls


def sequential_equivalent(scenario: Scenario) -> Scenario:
    """The same scenario with every parallel batch made one call per round, in order.

    The first round of a split batch keeps the response's text, thinking and server tools; each
    keeps the batch's ``model`` and ``seconds`` (every round is a model call and a tool run).
    ``limits.max_rounds`` is scaled so that the same calls run: the split rounds of the first
    ``max_rounds`` batches.
    """
    rounds: list[Round] = []
    run_calls = 0  # split rounds of the first max_rounds rounds
    limit = scenario.limits.max_rounds
    for n, round_ in enumerate(scenario.rounds):
        if len(round_.calls) <= 1:
            rounds.append(round_)
        else:
            first, *rest = round_.calls
            rounds.append(replace(round_, calls=(first,)))
            rounds.extend(
                Round(calls=(call,), line=round_.line, model=round_.model, seconds=round_.seconds)
                for call in rest
            )
        if limit is not None and n < limit:
            run_calls = len(rounds)
    limits = scenario.limits if limit is None else replace(scenario.limits, max_rounds=max(run_calls, 1))
    return replace(scenario, rounds=tuple(rounds), limits=limits)


def has_parallel_calls(scenario: Scenario) -> bool:
    return any(len(r.calls) > 1 for r in scenario.rounds)


# ---------------------------------------------------------------------------------------------
# Retries


def failures(scenario: Scenario) -> int:
    """Failed calls in all: ``retries.count``, else ``retries.share`` of the tool rounds (rounded
    half up)."""
    retries = scenario.retries
    if retries.count:
        return retries.count
    tool_rounds = sum(1 for r in scenario.rounds if r.calls)
    return int((retries.share * tool_rounds).to_integral_value(rounding=ROUND_HALF_UP))


def failures_per_round(scenario: Scenario) -> tuple[int, ...]:
    """How many failed attempts precede each round: ``f`` failures spread evenly over the ``n`` tool
    rounds (tool round ``j`` gets ``floor((j+1)f/n) - floor(jf/n)``); chat turns never fail, nor
    does a round whose every call is to a strict tool (:func:`strict_round`): its share is dropped."""
    return tuple(
        0 if strict_round(scenario, r) else n for r, n in zip(scenario.rounds, _spread(scenario), strict=True)
    )


def strict_failures(scenario: Scenario) -> tuple[int, tuple[str, ...]]:
    """The failures spread onto rounds that call only strict tools (dropped), and those tools."""
    dropped = [
        (r, n)
        for r, n in zip(scenario.rounds, _spread(scenario), strict=True)
        if n and strict_round(scenario, r)
    ]
    tools = dict.fromkeys(c.tool for r, _ in dropped for c in r.calls)
    return sum(n for _, n in dropped), tuple(tools)


def strict_round(scenario: Scenario, round_: Round) -> bool:
    """Whether every call of the round is to a tool defined with ``strict: true``: its arguments then
    always match the schema, so it cannot fail validation. Anthropic: strict tool use "guarantees
    Claude's tool inputs match your JSON Schema" (no "need to validate and retry tool calls"),
    https://platform.claude.com/docs/en/agents-and-tools/tool-use/strict-tool-use; OpenAI: with
    ``strict: true`` the arguments exactly match the function's JSON Schema (structured outputs),
    https://platform.openai.com/docs/guides/function-calling; both read 2026-12-07."""
    strict = {t.name for t in scenario.tools if t.strict}
    return bool(round_.calls) and all(c.tool in strict for c in round_.calls)


def _spread(scenario: Scenario) -> list[int]:
    f = failures(scenario)
    n = sum(1 for r in scenario.rounds if r.calls)
    out: list[int] = []
    j = 0
    for round_ in scenario.rounds:
        if not round_.calls or f == 0:
            out.append(0)
            continue
        out.append((j + 1) * f // n - j * f // n)
        j += 1
    return out


def failed_round(round_: Round, error: Content | None) -> Round:
    """The failed attempt of a round: the same response, every call answered by the error."""
    result = error if error is not None else Content(tokens=DEFAULT_ERROR_TOKENS)
    calls = tuple(replace(call, result=result, subagent=None) for call in round_.calls)
    return Round(
        calls=calls, thinking=round_.thinking, text=round_.text, line=round_.line, model=round_.model
    )


def insert_retries(
    scenario: Scenario, rounds: Sequence[RoundTokens], count: Callable[[Round], RoundTokens]
) -> list[RoundTokens]:
    """``rounds`` (one per scenario round) with each round's failed attempts before it (``attempts -
    1`` per failing call); ``count`` turns a failed attempt (a :class:`Round`) into its tokens."""
    per_round = failures_per_round(scenario)
    if not any(per_round):
        return list(rounds)
    out: list[RoundTokens] = []
    memo: dict[Round, RoundTokens] = {}
    for round_, counted, fails in zip(scenario.rounds, rounds, per_round, strict=True):
        if fails:
            attempt = memo.get(round_)
            if attempt is None:
                attempt = replace(count(failed_round(round_, scenario.retries.error)), failed=True)
                memo[round_] = attempt
            out.extend([attempt] * (fails * scenario.retries.failed_per_call))
        out.append(counted)
    return out


# ---------------------------------------------------------------------------------------------
# Container time


def container_seconds(round_: Round) -> Decimal | None:
    """The code-execution container time a round's response is billed for: its
    ``container_seconds``, else its ``seconds`` when it runs ``code_execution`` (0 without them: the
    provider's minimum applies); None when it runs no container."""
    if round_.container_seconds is not None:
        return round_.container_seconds
    if any(use.tool == "code_execution" for use in round_.server_tools):
        return round_.seconds if round_.seconds is not None else Decimal(0)
    return None


# ---------------------------------------------------------------------------------------------
# Result trimming


def cap_results(round_: Round, rules: Rules, trim: ResultTrim | None) -> Round:
    """The round with every result body capped at ``trim.max_tokens`` (as the provider counts it)."""
    if trim is None or trim.max_tokens is None or not round_.calls:
        return round_
    cap = trim.max_tokens
    calls = tuple(
        replace(call, result=Content(tokens=cap)) if rules.server_result(call.result) > cap else call
        for call in round_.calls
    )
    return round_ if calls == round_.calls else replace(round_, calls=calls)


def trim_editing(trim: ResultTrim | None) -> ContextEditing | None:
    """``trim.keep_last`` as a clearing at every request: results older than the last ``keep_last``
    become :data:`TRIM_PLACEHOLDER_TOKENS` (None: nothing to clear)."""
    if trim is None or trim.keep_last is None:
        return None
    return ContextEditing(
        trigger=0, keep=trim.keep_last, clear_at_least=0, placeholder=TRIM_PLACEHOLDER_TOKENS
    )


# ---------------------------------------------------------------------------------------------
# Output cap


def cap_output(
    rounds: Sequence[RoundTokens], final_output: int, cap: int | None
) -> tuple[list[RoundTokens], int, int]:
    """``limits.max_tokens``: every response's output cut at ``cap`` tokens -> (the rounds, the final
    answer's output, what was cut from it). The cap counts the whole output, thinking included: the
    providers bound the response's generated tokens with it, reasoning and all (Anthropic:
    ``budget_tokens`` must be less than ``max_tokens``,
    https://platform.claude.com/docs/en/build-with-claude/extended-thinking; OpenAI:
    ``max_output_tokens`` is "an upper bound for the number of tokens that can be generated for a
    response, including visible output tokens and reasoning tokens",
    https://platform.openai.com/docs/api-reference/responses/create; Gemini: thought tokens count
    against ``maxOutputTokens`` as observed in https://github.com/googleapis/python-genai/issues/2062;
    all read 2026-12-07). What is re-sent later (``echo``) is left as written: a real run would be
    truncated there, which the report's warning says."""
    if cap is None:
        return list(rounds), final_output, 0
    out = [r if r.output <= cap else replace(r, output=cap, output_cut=r.output - cap) for r in rounds]
    return out, min(final_output, cap), max(final_output - cap, 0)


# ---------------------------------------------------------------------------------------------
# Routing


def route_inserted(rounds: Sequence[RoundTokens]) -> list[RoundTokens]:
    """Inserted requests (tool search, failed attempts) run on the model of the round they precede."""
    out = list(rounds)
    following: str | None = None
    for i in range(len(out) - 1, -1, -1):
        r = out[i]
        if r.inserted:
            if r.model != following:
                out[i] = replace(r, model=following)
        else:
            following = r.model
    return out


def routed_models(scenario: Scenario) -> tuple[str, ...]:
    """The models rounds are routed to, in first-use order (the scenario's own model excluded)."""
    return tuple(dict.fromkeys(r.model for r in scenario.rounds if r.model is not None))


def without_routing(scenario: Scenario, model: str | None = None) -> Scenario:
    """Every request on one model: the scenario's (``model`` None) or ``model``."""
    rounds = tuple(replace(r, model=None) if r.model is not None else r for r in scenario.rounds)
    if model is None:
        return replace(scenario, rounds=rounds)
    return replace(scenario, rounds=rounds, model=model, provider=None)
