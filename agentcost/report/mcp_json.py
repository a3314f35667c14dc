"""The JSON of ``agentcost mcp footprint CONFIG`` (kind ``mcp_footprint``), defined once: the tool
definitions of a client config's MCP servers, per server, per tool and per model, in tokens and
dollars per request (and per run of ``--scenario``).

:mod:`agentcost.render.mcp` builds the body as these types; its JSON Schema is generated from the
same types (:mod:`agentcost.report.schemagen`).
"""

from __future__ import annotations

from typing import Annotated, Literal, TypedDict

from agentcost.report.prices_json import DateTime
from agentcost.report.schemagen import COUNT, USD


class McpToolJson(TypedDict):
    name: str
    tokens: Annotated[COUNT, "the definition's tokens in every request's tool prefix (framing included)"]


class McpServerModelJson(TypedDict):
    model: Annotated[str, "the model as given (-m), or the scenario's"]
    tokens: Annotated[COUNT, "the server's tools' tokens, summed"]
    request_usd: Annotated[USD, "those tokens as uncached input of one request"]
    cached_request_usd: Annotated[USD | None, "those tokens read from the cache; null: no cache-read price"]
    tools: Annotated[list[McpToolJson], "most tokens first"]


class McpServerJson(TypedDict):
    name: str
    transport: Literal["stdio", "http", "sse"]
    source: Annotated[
        Literal["file", "launch", "cache"] | None,
        "where its tools/list came from: --tools-list, --launch, the cache; null: unknown",
    ]
    tools_file: Annotated[str | None, "the tools/list file read"]
    status: Annotated[str, "'listed', or why its tools are unknown ('not launched: remote server')"]
    env: Annotated[list[str], "the names of the environment variables its config sets (never values)"]
    tool_count: Annotated[COUNT | None, "null: unknown"]
    models: Annotated[list[McpServerModelJson], "one per model; empty when its tools are unknown"]


class McpRunJson(TypedDict):
    """One run of --scenario on the model: as written, with the tools, with them deferred."""

    requests: COUNT
    scenario_usd: Annotated[USD, "the scenario as written"]
    with_tools_usd: Annotated[USD, "with every listed server's tools added to its tools"]
    added_usd: Annotated[USD, "with_tools_usd - scenario_usd"]
    deferred_usd: Annotated[
        USD | None, "with those tools deferred behind tool search; null: the model has none"
    ]
    deferred_added_usd: Annotated[USD | None, "deferred_usd - scenario_usd"]
    tool_search_source: Annotated[str | None, "where the model's tool search is documented (facts.yaml)"]


class McpModelJson(TypedDict):
    model: str
    model_id: str
    provider: str
    approximate: Annotated[bool, "its counts are approximate (the tokenizer is not public)"]
    counter: str
    prefix_tokens: Annotated[COUNT, "the tool prefix of every listed tool, one-off framing included"]
    definitions_tokens: Annotated[COUNT, "the tools' own tokens, summed"]
    request_usd: Annotated[USD, "prefix_tokens as uncached input of one request"]
    cached_request_usd: Annotated[USD | None, "prefix_tokens read from the cache; null: no cache-read price"]
    gate_usd: Annotated[USD, "what --budget is checked against: run.with_tools_usd, else request_usd"]
    run: Annotated[McpRunJson | None, "null without --scenario"]


class McpFootprintJson(TypedDict):
    """``agentcost mcp footprint CONFIG``: what the tool definitions of its MCP servers cost."""

    config: str
    layout: Annotated[Literal["mcpServers", "servers"], "the config's top-level key"]
    as_of: DateTime
    prices: Annotated[str, "the price source, one line"]
    scenario: Annotated[str | None, "--scenario, as given"]
    tool_count: Annotated[COUNT, "tools of the servers whose tools are known"]
    servers: list[McpServerJson]
    models: list[McpModelJson]
    max_tokens: Annotated[COUNT | None, "--max-tokens, checked on the largest prefix_tokens"]
    budget_usd: Annotated[USD | None, "--budget, checked on each model's gate_usd"]
