"""The report of ``agentcost mcp footprint CONFIG``: what the tool definitions of a client config's
MCP servers cost, per server, per tool and per model, with its gates (``--max-tokens``,
``--budget``). Built by :func:`agentcost.mcp.footprint.build_footprint`; every figure is derived
there or here, once; :mod:`agentcost.render.mcp` formats it.

Per request (always): the servers' definitions are tokens of every request's tool prefix, priced as
one request of that many input tokens by ``ModelPrices.price``, uncached and read from the cache.
Per run (``--scenario``): the scenario estimated as written, with the servers' tools added to its
tools, and with them deferred behind the model's tool search where it has one.
"""

from __future__ import annotations

from decimal import Decimal

from agentcost.infra.record import record
from agentcost.report.fmt import tokens, usd_pair
from agentcost.report.gates import Gate


@record
class ToolTokens:
    name: str
    tokens: int  # the definition's tokens in the tool prefix (its marginal tokens, framing included)


@record
class ServerOnModel:
    """One server's definitions on one model."""

    model: str  # the model as given (-m), the key of :class:`ModelFootprint`
    tokens: int  # its tools' tokens, summed
    request_usd: Decimal  # those tokens as uncached input of one request
    cached_request_usd: Decimal | None  # ... read from the cache (None: no cache-read price)
    tools: tuple[ToolTokens, ...]  # most tokens first (then by name)


@record
class ServerFootprint:
    name: str
    transport: str  # stdio, http, sse
    source: str | None  # file, launch, cache; None: its tools are unknown
    tools_file: str | None  # the tools/list file read
    status: str  # "listed", or why not ("not launched: remote server")
    env_names: tuple[str, ...]  # the variables its config sets (never their values)
    tool_count: int | None  # None: unknown
    models: tuple[ServerOnModel, ...]  # one per model, in the order given; empty when unknown


@record
class RunCost:
    """The scenario's run (``--scenario``) on one model: as written, with the servers' tools, deferred."""

    requests: int  # requests of the run with the tools added
    scenario_usd: Decimal  # the scenario as written
    with_tools_usd: Decimal  # with every listed server's tools added to its tools
    deferred_usd: Decimal | None  # with them deferred (tool search); None: the model has none
    tool_search: str | None  # the source of the model's tool search (facts.yaml), when it has one

    @property
    def added_usd(self) -> Decimal:
        return self.with_tools_usd - self.scenario_usd

    @property
    def deferred_added_usd(self) -> Decimal | None:
        return None if self.deferred_usd is None else self.deferred_usd - self.scenario_usd


@record
class ModelFootprint:
    """Every listed server's definitions together, on one model."""

    model: str  # as given
    model_id: str
    provider: str
    approximate: bool  # its counts are approximate (Claude, Gemini)
    counter: str  # how they are counted
    prefix_tokens: int  # the tool prefix of all the listed tools, one-off framing included
    definitions_tokens: int  # the tools' own tokens, summed (prefix_tokens less the framing)
    request_usd: Decimal  # prefix_tokens as uncached input of one request
    cached_request_usd: Decimal | None  # ... read from the cache (None: no cache-read price)
    run: RunCost | None  # with --scenario

    @property
    def gate_usd(self) -> Decimal:
        """The figure ``--budget`` is checked against: the run with the tools (``--scenario``), else
        one request's definitions, uncached."""
        return self.run.with_tools_usd if self.run is not None else self.request_usd


@record
class McpFootprint:
    config: str  # the config file as given
    layout: str  # mcpServers or servers
    as_of: str  # ISO date-time of the prices
    prices_label: str
    scenario: str | None  # --scenario, as given
    servers: tuple[ServerFootprint, ...]
    models: tuple[ModelFootprint, ...]
    max_tokens: int | None
    budget_usd: Decimal | None

    @property
    def listed(self) -> tuple[ServerFootprint, ...]:
        return tuple(s for s in self.servers if s.source is not None)

    @property
    def tool_count(self) -> int:
        return sum(s.tool_count or 0 for s in self.listed)

    @property
    def unknown(self) -> tuple[ServerFootprint, ...]:
        """Servers whose tools are unknown: their tokens are not in any total."""
        return tuple(s for s in self.servers if s.source is None)

    @property
    def largest(self) -> ModelFootprint | None:
        """The model whose tool prefix is largest (the one ``--max-tokens`` is decided on)."""
        return max(self.models, key=lambda m: m.prefix_tokens, default=None)


def footprint_gates(report: McpFootprint) -> tuple[Gate, ...]:
    """``--max-tokens`` on the largest tool prefix of the models, ``--budget`` on every model's
    :attr:`ModelFootprint.gate_usd`: each trips (exit 1) when over."""
    gates = []
    unknown = len(report.unknown)
    uncounted = f" ({unknown} server{'s' * (unknown != 1)} not counted: tools unknown)" if unknown else ""
    largest = report.largest
    if report.max_tokens is not None and largest is not None:
        over = largest.prefix_tokens > report.max_tokens
        verdict, relation = ("over", ">") if over else ("within", "<=")
        gates.append(
            Gate(
                name="max_tokens",
                tripped=over,
                message=(
                    f"{report.config}: {verdict} --max-tokens: the tool definitions are"
                    f" {tokens(largest.prefix_tokens)} {relation} {tokens(report.max_tokens)} tokens"
                    f" per request on {largest.model}{uncounted}"
                ),
                file=report.config,
            )
        )
    if report.budget_usd is not None and report.models:
        worst = max(report.models, key=lambda m: m.gate_usd)
        over = worst.gate_usd > report.budget_usd
        verdict, relation = ("over budget", ">") if over else ("within budget", "<=")
        shown, limit = usd_pair(worst.gate_usd, report.budget_usd)
        what = "per run of the scenario with the tools" if worst.run is not None else "per request"
        gates.append(
            Gate(
                name="budget",
                tripped=over,
                message=(
                    f"{report.config}: {verdict}: {shown} {relation} {limit} {what}"
                    f" on {worst.model} (--budget){uncounted}"
                ),
                file=report.config,
            )
        )
    return tuple(gates)
