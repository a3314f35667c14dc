"""``agentcost mcp footprint``: a client config's MCP servers -> :class:`~agentcost.report.mcp.McpFootprint`.

Tokens: each listed tool becomes a :class:`~agentcost.scenario.model.ToolDef` read exactly as a
scenario's ``tools: - file:`` of a tools/list is read (:mod:`agentcost.mcp.tools`), and is counted by
the model's own rules (``rules_for(provider, rules_id).tools``, the provider's framing included), as
``agentcost estimate`` counts a scenario's tools. A tool's tokens are its marginal tokens in the tool
prefix, ``tools((t, t)) - tools((t,))``, the rule of ``--explain``'s footprint
(:func:`agentcost.loop.footprint.definition_sizes`); the prefix of all of them adds the one-off
framing (Anthropic's hidden tool-use prompt, OpenAI's closing tokens).

Dollars: one request carrying those tokens, priced by ``ModelPrices.price`` (uncached input, and read
from the cache where the model has a cache-read price). With a scenario, its run is estimated by the
estimate pipeline (:func:`agentcost.loop.estimate.estimate_scenario`) three ways: as written, with
the tools added, and with them deferred (``defer_loading``) where the model has tool search
(facts.yaml ``tool_search``), so the run's caching, pacing and growth all count.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal
from pathlib import Path

from agentcost import facts
from agentcost.errors import InputError
from agentcost.loop.estimate import estimate_scenario
from agentcost.loop.options import PricingOptions
from agentcost.mcp.tools import ServerTools, server_tools
from agentcost.prices.lookup import resolve_model
from agentcost.prices.pricing import ModelPrices
from agentcost.report.mcp import (
    McpFootprint,
    ModelFootprint,
    RunCost,
    ServerFootprint,
    ServerOnModel,
    ToolTokens,
)
from agentcost.scenario.mcpconfig import read_config
from agentcost.scenario.model import Scenario, ToolChoice, ToolDef
from agentcost.tokens.request import RequestUsage
from agentcost.tokens.rules import Rules, rules_for

MAX_MODELS = 20


def build_footprint(
    config_path: Path,
    *,
    models: Sequence[str] = (),
    scenario: Scenario | None = None,
    scenario_name: str | None = None,
    tools_lists: dict[str, Path] | None = None,
    launch: bool = False,
    timeout: float = 30.0,
    cache_dir: Path | None = None,
    as_of: datetime,
    at_time: bool | None = None,
    max_tokens: int | None = None,
    budget_usd: Decimal | None = None,
) -> McpFootprint:
    """The footprint of ``config_path``'s servers on each of ``models`` (default: the scenario's)."""
    config = read_config(config_path)
    listed = server_tools(
        config, files=dict(tools_lists or {}), launch=launch, timeout=timeout, cache_dir=cache_dir
    )
    chosen = list(dict.fromkeys(models))
    if not chosen:
        if scenario is None:
            raise InputError("name a model to count on", key="--model", hint="e.g. -m claude-sonnet-4-5")
        chosen = [scenario.model]
    if len(chosen) > MAX_MODELS:
        raise InputError(f"{len(chosen)} models, more than {MAX_MODELS}", key="--model")
    choice: ToolChoice = scenario.tool_choice if scenario is not None else "auto"
    everything = tuple(t for s in listed for t in s.tools)
    per_model = []
    per_server: dict[str, list[ServerOnModel]] = {s.server.name: [] for s in listed}
    label = ""
    for name in chosen:
        options = PricingOptions(as_of, model=name, at_time=at_time)
        if scenario is not None:
            base = estimate_scenario(scenario, options=options, compare=False)
            prices = base.prices
        else:
            base = None
            prices = resolve_model(name, as_of=as_of, at_time=at_time)
        label = prices.source.label
        rules = rules_for(prices.provider, prices.rules_id)
        sizes = [_marginal(rules, t, choice) for t in everything]
        at = 0
        for s in listed:
            own = sizes[at : at + len(s.tools)]
            at += len(s.tools)
            if s.source is None:
                continue
            ranked = sorted(zip(s.tools, own, strict=True), key=lambda p: (-p[1], p[0].name))
            total = sum(own)
            per_server[s.server.name].append(
                ServerOnModel(
                    model=name,
                    tokens=total,
                    request_usd=_request(prices, total),
                    cached_request_usd=_cached(prices, total),
                    tools=tuple(ToolTokens(t.name, n) for t, n in ranked),
                )
            )
        prefix = rules.tools(everything, choice)
        run = None
        if base is not None and scenario is not None:
            run = _run(scenario, everything, options, base.total_usd, prices)
        per_model.append(
            ModelFootprint(
                model=name,
                model_id=prices.model_id,
                provider=prices.provider,
                approximate=rules.approximate,
                counter=rules.method,
                prefix_tokens=prefix,
                definitions_tokens=sum(sizes),
                request_usd=_request(prices, prefix),
                cached_request_usd=_cached(prices, prefix),
                run=run,
            )
        )
    return McpFootprint(
        config=str(config_path),
        layout=config.layout,
        as_of=as_of.isoformat(),
        prices_label=label,
        scenario=scenario_name,
        servers=tuple(_server(s, per_server[s.server.name]) for s in listed),
        models=tuple(per_model),
        max_tokens=max_tokens,
        budget_usd=budget_usd,
    )


def _marginal(rules: Rules, tool: ToolDef, choice: ToolChoice) -> int:
    """The tokens one more copy of ``tool`` adds to the tool prefix (definition_sizes' rule)."""
    return rules.tools((tool, tool), choice) - rules.tools((tool,), choice)


def _request(prices: ModelPrices, tokens: int) -> Decimal:
    """``tokens`` of uncached input in one request, priced."""
    return prices.price(RequestUsage(input_tokens=tokens, output_tokens=0)).total_usd


def _cached(prices: ModelPrices, tokens: int) -> Decimal | None:
    """``tokens`` of input read from the cache in one request, priced; None without a cache-read price."""
    if prices.cache_read_mtok is None:
        return None
    usage = RequestUsage(input_tokens=tokens, output_tokens=0, cache_read_tokens=tokens)
    return prices.price(usage).total_usd


def _run(
    scenario: Scenario,
    added: tuple[ToolDef, ...],
    options: PricingOptions,
    as_written: Decimal,
    prices: ModelPrices,
) -> RunCost:
    """The scenario's run with ``added`` among its tools, loaded up front and deferred."""
    loaded = dataclasses.replace(scenario, tools=(*scenario.tools, *added))
    eager = estimate_scenario(loaded, options=options, compare=False)
    search = facts.tool_search(prices.provider, prices.rules_id)
    deferred_usd = None
    if search is not None and search.value.supported and added:
        lazy = tuple(dataclasses.replace(t, defer_loading=True) for t in added)
        deferred = dataclasses.replace(scenario, tools=(*scenario.tools, *lazy))
        deferred_usd = estimate_scenario(deferred, options=options, compare=False).total_usd
    return RunCost(
        requests=eager.ledger.totals.requests,
        scenario_usd=as_written,
        with_tools_usd=eager.total_usd,
        deferred_usd=deferred_usd,
        tool_search=None if search is None or not search.value.supported else search.url,
    )


def _server(s: ServerTools, models: list[ServerOnModel]) -> ServerFootprint:
    return ServerFootprint(
        name=s.server.name,
        transport=s.server.transport,
        source=s.source,
        tools_file=None if s.path is None else str(s.path),
        status=s.status,
        env_names=s.server.env_names,
        tool_count=None if s.source is None else len(s.tools),
        models=tuple(models),
    )
