"""Per-tool footprint (``agentcost estimate --explain``): what each tool definition costs over a run,
and how many tools a request keeps active against its maker's published advice.

A definition's tokens per request are its marginal tokens in the tool prefix under the model's own
counting rules (``rules.tools((t, t)) - rules.tools((t,))``, framing included): the definitions sum to
the request's tool prefix less a residual of one-off parts (Anthropic's hidden tool-use system prompt,
OpenAI's closing tokens, the tool-search tool's own definition), which is reported as such. A deferred
tool costs its stub until a search loads it (:func:`agentcost.tokens.context.stub_tokens`).

Dollars come from the accountant, never a formula: the run is priced again with every definition
taken out of the tool prefix (calls, results, residual and stops kept), and the difference
(``definitions_usd``) is shared among the tools by their tokens over the run (a share, so labelled).
"""

from __future__ import annotations

import dataclasses
from decimal import Decimal

from agentcost import facts
from agentcost.infra.record import record
from agentcost.loop.caching import pricer_for
from agentcost.loop.estimate import Estimate, PricedModel, run_ledger
from agentcost.scenario.model import Scenario
from agentcost.tokens.counts import Route, TokenCounts
from agentcost.tokens.rules import Rules, rules_for


@record
class ToolFootprint:
    """One tool definition over the run (this run's own requests; subagents have their own tools)."""

    name: str
    tokens: int  # definition tokens in request 1 (on the scenario's model), framing included
    deferred: bool  # defer_loading: ``tokens`` is its stub, until a tool search loads it
    requests: int  # the requests it is sent in (every request of the run carries the tool prefix)
    run_tokens: int  # its tokens summed over those requests (each on the model it ran on)
    calls: int  # calls to it in the rounds that ran
    result_tokens: int  # result tokens of those calls sent back (framing included)
    usd: Decimal  # its share of ``Footprint.definitions_usd``, by ``run_tokens``


@record
class ActiveTools:
    """The request's active (not deferred) tools against the maker's advice (facts.yaml)."""

    active: int
    guidance: facts.Fact[facts.ActiveToolsGuidance]

    @property
    def exceeded(self) -> bool:
        return self.active > self.guidance.value.max_active


@record
class Footprint:
    """Every tool definition's footprint, most dollars first (then most tokens, then by name)."""

    tools: tuple[ToolFootprint, ...]
    prefix_tokens: int  # the tool prefix of request 1 (TokenCounts.tools)
    residual_tokens: int  # prefix_tokens - the tools' tokens: hidden tool-use prompt, framing...
    residual_parts: str  # what the residual is, in words
    requests: int
    run_usd: Decimal  # this run's ledger, priced as the accountant prices it
    without_usd: Decimal  # the same run with no tool definitions in the prefix
    active: ActiveTools | None  # None: the maker publishes no advice (nothing flagged)

    @property
    def definitions_usd(self) -> Decimal:
        """What the definitions cost over the run: the run with them less the run without them."""
        return self.run_usd - self.without_usd

    @property
    def tools_tokens(self) -> int:
        """The tools' definition tokens in request 1 (``prefix_tokens - residual_tokens``)."""
        return sum(t.tokens for t in self.tools)


def footprint(est: Estimate) -> Footprint | None:
    """The footprint of ``est``'s tool definitions; None when the scenario defines no tool."""
    s = est.scenario
    if not s.tools:
        return None
    main = definition_sizes(s, est.prices.provider, est.prices.rules_id)
    own = PricedModel(est.prices, pricer_for(est.prices), est.ledger.policy)
    routes = dict(est.counts.routes)
    routed = dict(est.routed)
    sizes: dict[str | None, dict[str, int]] = {None: main}
    for name in routes:
        prices = routed[name].prices if name in routed else est.prices
        sizes[name] = definition_sizes(s, prices.provider, prices.rules_id)
    ran = run_ledger(s, est.counts, own)
    per_model: dict[str | None, int] = {}
    for row in ran.rows:
        key = row.model if row.model in routes else None
        per_model[key] = per_model.get(key, 0) + 1
    stripped = _without_definitions(est.counts, main, {n: sizes[n] for n in routes})
    without = run_ledger(s, stripped, own).totals.cost_usd
    run_usd = ran.totals.cost_usd
    run_tokens = {t.name: sum(sizes[m][t.name] * n for m, n in per_model.items()) for t in s.tools}
    calls, results = _calls_and_results(est, rules_for(est.prices.provider, est.prices.rules_id))
    shares = _shares(run_usd - without, [run_tokens[t.name] for t in s.tools])
    tools = [
        ToolFootprint(
            name=t.name,
            tokens=main[t.name],
            deferred=t.defer_loading,
            requests=ran.totals.requests,
            run_tokens=run_tokens[t.name],
            calls=calls.get(t.name, 0),
            result_tokens=results.get(t.name, 0),
            usd=share,
        )
        for t, share in zip(s.tools, shares, strict=True)
    ]
    tools.sort(key=lambda t: (-t.usd, -t.run_tokens, t.name))
    residual = est.counts.tools - sum(main.values())
    guidance = facts.active_tools_guidance(est.prices.provider, est.prices.rules_id)
    active = sum(1 for t in s.tools if not t.defer_loading)
    return Footprint(
        tools=tuple(tools),
        prefix_tokens=est.counts.tools,
        residual_tokens=residual,
        residual_parts=_residual_parts(est, main),
        requests=ran.totals.requests,
        run_usd=run_usd,
        without_usd=without,
        active=None if guidance is None else ActiveTools(active, guidance),
    )


SHARE_QUANTUM = Decimal("1e-12")
"""Dollar shares are cut to this (far below a cent); they still sum to the definitions' dollars
exactly (:func:`_shares`)."""


def _shares(amount: Decimal, weights: list[int]) -> list[Decimal]:
    """``amount`` shared by ``weights``: each share the step between running totals, each running
    total ``amount × weights so far / all weights`` cut to :data:`SHARE_QUANTUM`, so the shares sum
    to ``amount`` (cut the same way) exactly."""
    total = sum(weights)
    if not total:
        return [Decimal(0) for _ in weights]
    out: list[Decimal] = []
    running, before = 0, Decimal(0)
    for w in weights:
        running += w
        upto = (amount * running / total).quantize(SHARE_QUANTUM)
        out.append(upto - before)
        before = upto
    return out


def definition_sizes(scenario: Scenario, provider: str, model_id: str) -> dict[str, int]:
    """Each tool's tokens in the tool prefix under the model's rules: the marginal tokens of one more
    copy of its definition (one-off framing left out), or its stub when it is deferred."""
    rules = rules_for(provider, model_id)
    choice = scenario.tool_choice
    sizes = {t.name: rules.tools((t, t), choice) - rules.tools((t,), choice) for t in scenario.tools}
    deferred = [t for t in scenario.tools if t.defer_loading]
    if deferred:
        from agentcost.tokens.context import stub_tokens, tool_search_support

        support = tool_search_support(scenario, provider, model_id).value
        sizes.update(stub_tokens(scenario, rules, support))
    return sizes


def _without_definitions(
    counts: TokenCounts, main: dict[str, int], routes: dict[str, dict[str, int]]
) -> TokenCounts:
    """``counts`` with every definition taken out of the tool prefix (its own and its routes')."""
    new_routes = tuple(
        (
            name,
            Route(
                dataclasses.replace(r.counts, tools=r.counts.tools - sum(routes[name].values()), routes=()),
                r.pricer,
                r.policy,
            ),
        )
        for name, r in counts.routes
    )
    return dataclasses.replace(counts, tools=counts.tools - sum(main.values()), routes=new_routes)


def _calls_and_results(est: Estimate, rules: Rules) -> tuple[dict[str, int], dict[str, int]]:
    """Calls to each tool in the scenario rounds that ran, and the result tokens sent back for them:
    a round's result tokens (framing included) go to its tool; a round of parallel calls to several
    tools splits them by each call's result body, the rest (framing) to its first tool."""
    from agentcost.loop.insights import ran_rounds

    calls: dict[str, int] = {}
    results: dict[str, int] = {}
    for r, rows in ran_rounds(est):
        index = rows[0].round
        if r.reply or r.inserted or index is None:
            continue
        uses = est.scenario.rounds[index].calls
        for c in uses:
            calls[c.tool] = calls.get(c.tool, 0) + 1
        if not uses or r.result <= 0:
            continue
        names = list(dict.fromkeys(c.tool for c in uses))
        if len(names) == 1:
            results[names[0]] = results.get(names[0], 0) + r.result
            continue
        bodies = [(c.tool, rules.server_result(c.result)) for c in uses]
        rest = r.result - sum(n for _, n in bodies)
        for i, (tool, n) in enumerate(bodies):
            results[tool] = results.get(tool, 0) + n + (rest if i == 0 else 0)
    return calls, results


def _residual_parts(est: Estimate, sizes: dict[str, int]) -> str:
    """What the part of the tool prefix that belongs to no tool is made of, on this provider."""
    if est.counts.tools == sum(sizes.values()):
        return "nothing: this provider's tool list has no one-off framing"
    parts = []
    if est.prices.provider == "anthropic" or est.prices.rules_id.startswith("claude-"):
        parts.append("the hidden tool-use system prompt and tool framing")
    else:
        parts.append("the tool list's one-off framing")
    if est.counts.tool_search_prefix:
        parts.append("the tool-search tool's definition")
    return " and ".join(parts)
