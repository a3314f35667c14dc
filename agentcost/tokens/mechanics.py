"""Provider mechanics on top of the per-provider counts: thinking retention and server-side tools
(inline results, billable uses, free quotas, the iteration cap's continuations)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from agentcost.infra.record import record
from agentcost.scenario.model import Round, Scenario
from agentcost.tokens.counts import RoundTokens
from agentcost.tokens.rules import Notes, maker_of

if TYPE_CHECKING:
    from agentcost.facts import Retention
    from agentcost.tokens.rules import Rules

_SCENARIO_RETENTION: dict[str, Retention] = {"keep": "all", "last": "last_turn", "drop": "none"}

# Where a server tool's results go after the response that ran it. The model always reads them
# while it writes that response (``inline``: Anthropic bills results "in search iterations executed
# during a single turn"; Gemini reports them as usageMetadata.toolUsePromptTokenCount; OpenAI bills
# "search content tokens" at the input rate). Whether they are sent again in later requests depends
# on whether they come back as content the client re-sends: on Anthropic every server tool's result
# is a block of the assistant turn ("counted as input tokens ... in subsequent conversation turns");
# Gemini returns grounding and URL-context results as metadata, not content, and OpenAI returns only
# the web search call's action, so those are not re-sent; code execution output is content
# everywhere (Gemini codeExecutionResult parts, OpenAI code_interpreter_call outputs).
_RESULTS_RESENT: dict[str, frozenset[str]] = {
    "anthropic": frozenset({"web_search", "web_fetch", "code_execution"}),
    "openai": frozenset({"code_execution"}),
    "google": frozenset({"code_execution"}),
}

_RETENTION_WORDING: dict[Retention, str] = {
    "all": "re-sent as input in every later request",
    "last_turn": (
        "re-sent as input only in the next request (the provider's 'last assistant turn', "
        "applied per request)"
    ),
    "none": "not re-sent in later requests",
}


def thinking_retention_for(scenario: Scenario, provider: str, model_id: str) -> tuple[Retention, str]:
    """The retention that applies (``all`` | ``last_turn`` | ``none``) and why, for the notes."""
    from agentcost import facts

    if scenario.thinking_retention != "auto":
        return _SCENARIO_RETENTION[scenario.thinking_retention], (
            f"thinking_retention: {scenario.thinking_retention} in the scenario"
        )
    fact = facts.thinking_retention(provider, model_id)
    kind = "a documented default" if facts.is_default(fact) else "the provider's docs"
    return fact.value, f"{model_id}: {fact.value} by model family, from {kind} ({fact.cite})"


@record
class ServerRules:
    """The server-tool facts of one model, looked up once per count."""

    maker: str
    fees: Mapping[str, Any]  # tool -> facts.ServerToolFee
    cap: int | None  # iterations per request before pause_turn (None: no cap)


def server_rules(scenario: Scenario, provider: str, model_id: str) -> ServerRules:
    from agentcost import facts
    from agentcost.errors import UnfitModel

    fees: dict[str, Any] = {}
    for round_ in scenario.rounds:
        for server in round_.server_tools:
            if server.tool in fees:
                continue
            fee = facts.server_tool_fee(provider, model_id, server.tool)
            if fee is None:
                offered = [t for t in facts.SERVER_TOOLS if facts.server_tool_fee(provider, model_id, t)]
                raise UnfitModel(
                    f"{model_id} has no server-side {server.tool} tool",
                    file=scenario.path,
                    line=server.line or round_.line,
                    key="server_tools",
                    hint=f"server tools of {model_id}: {', '.join(offered) or 'none'}",
                )
            fees[server.tool] = fee.value
    cap = facts.server_tool_iteration_cap(provider, model_id) if fees else None
    return ServerRules(maker_of(provider, model_id), fees, cap.value if cap is not None else None)


def with_mechanics(
    counted: RoundTokens, round_: Round, rules: Rules, retention: Retention, server: ServerRules
) -> RoundTokens:
    """One round's counts with its thinking retention and server tools applied (quota excluded)."""
    echo, transient = counted.echo, 0
    if retention == "all":
        echo += round_.thinking
    elif retention == "last_turn":
        transient = round_.thinking
    inline = 0
    raw: dict[str, int] = {}  # uses per tool, in the order the round names them
    resent = _RESULTS_RESENT.get(server.maker, frozenset())
    for use in round_.server_tools:
        result = rules.server_result(use.result) if use.result is not None else 0
        inline += result
        if use.tool in resent:
            echo += result
        raw[use.tool] = raw.get(use.tool, 0) + use.uses
    iterations = sum(raw.values())
    # billable: every use, or once per response for tools billed per request (Gemini 2.5 grounding)
    uses = {t: n if server.fees[t].per == "use" else 1 for t, n in raw.items()}
    continuations = 0
    if server.cap is not None and iterations > server.cap:
        continuations = -(-iterations // server.cap) - 1
    names = tuple(t for t in uses if t not in counted.tools)
    return replace(
        counted,
        tools=counted.tools + names,
        echo=echo,
        transient=transient,
        inline=inline,
        server_uses=tuple(uses.items()),
        continuations=continuations,
    )


def apply_free_quota(
    rounds: list[RoundTokens], scenario: Scenario, provider: str, model_id: str, notes: Notes
) -> list[RoundTokens]:
    """Billable uses after the provider's free quota (``server_tool_quota: available``), in order."""
    from agentcost import facts

    totals: dict[str, int] = {}
    for r in rounds:
        for tool, n in r.server_uses:
            totals[tool] = totals.get(tool, 0) + n
    remaining: dict[str, int] = {}
    for tool, used in totals.items():
        quota = facts.server_tool_free_quota(provider, model_id, tool)
        if quota is None or quota.value.per == "hour":
            continue  # no quota, or one in container hours that uses cannot draw on
        q = quota.value
        what = f"{q.amount:,} {q.per}s per {q.period}, {q.scope}, {quota.cite}"
        if scenario.server_tool_quota == "spent":
            notes.add(
                f"{tool}: the provider's free quota ({what}) is assumed spent, so every use is billed "
                "(server_tool_quota: spent, the default; say available to bill uses inside it at $0)"
            )
            continue
        remaining[tool] = q.amount
        free = min(used, q.amount)
        notes.add(
            f"{tool}: {free:,} of {used:,} billable {q.per}s inside the free quota ({what}) cost $0 "
            "(server_tool_quota: available; the quota is shared org-wide, so this assumes the rest "
            "of the organization has not used it up)"
        )
    if not remaining:
        return rounds
    out: list[RoundTokens] = []
    for r in rounds:
        billable: list[tuple[str, int]] = []
        for tool, n in r.server_uses:
            free = min(n, remaining.get(tool, 0))
            if tool in remaining:
                remaining[tool] -= free
            billable.append((tool, n - free))  # 0 kept: the tool still ran (and names the row)
        new = tuple(billable)
        out.append(r if new == r.server_uses else replace(r, server_uses=new))
    return out


def mechanics_notes(
    scenario: Scenario,
    rounds: Sequence[RoundTokens],
    retention: Retention,
    why: str,
    server: ServerRules,
    notes: Notes,
) -> None:
    thinking = sum(r.thinking for r in scenario.rounds) + scenario.final_thinking
    if thinking:
        notes.add(
            f"thinking: {thinking:,} tokens billed as output; earlier thinking "
            f"{_RETENTION_WORDING[retention]}; {why}"
        )
    declared_notes(scenario, frozenset(server.fees), notes)
    if not server.fees:
        return
    resent = sorted(_RESULTS_RESENT.get(server.maker, frozenset()) & set(server.fees))
    kept = (
        f"; {', '.join(resent)} results are also re-sent in every later request"
        if resent
        else "; they are not re-sent in later requests"
    )
    notes.add(
        "server tools: results counted once as input of the request whose response ran them (the "
        f"model reads them before it answers), outside the cached prefix{kept}"
    )
    paused = sum(r.continuations for r in rounds)
    if server.cap is not None and paused:
        notes.add(
            f"server tools: responses with more than {server.cap} server-tool uses stop with "
            f"pause_turn (Anthropic's {server.cap}-iteration cap): {paused} continuation request(s), "
            "each re-sending the whole context with no new output (all uses billed on the first)"
        )
    if any(fee.per == "request" for fee in server.fees.values()):
        per_request = ", ".join(t for t, fee in server.fees.items() if fee.per == "request")
        notes.add(f"{per_request}: billed once per response that uses it, whatever its number of uses")


def declared_notes(scenario: Scenario, used: frozenset[str], notes: Notes) -> None:
    """What the server tools declared in ``tools`` (agentcost.scenario.servers) add: no definition
    tokens (no published size), fees only through the rounds' ``server_tools`` uses (``used``)."""
    if not scenario.server_tool_defs:
        return
    named = ", ".join(
        dict.fromkeys(
            f"{d.kind} ({d.tool}{f', line {d.line}' if d.line else ''})" for d in scenario.server_tool_defs
        )
    )
    notes.add(
        f"server tools in tools: {named}: the provider runs them; their uses and fees are the rounds' "
        "server_tools; their definitions are sent with every request but not counted (agentcost "
        "knows no published size for them)"
    )
    unused = sorted({d.tool for d in scenario.server_tool_defs} - used)
    if unused:
        notes.add(f"server tools declared in tools but used by no round: {', '.join(unused)} (no fees)")
    if any(d.kind.startswith("web_search_preview") for d in scenario.server_tool_defs):
        notes.add(
            "web_search_preview is priced as web_search (the preview's own rate on non-reasoning "
            "models, with free content tokens, is not modelled)"
        )
