"""The JSON of ``agentcost caps SCENARIO`` (kind ``caps``), defined once: the caps, each SDK's
setting, the runs they are read from and how many runs each cap would stop.

:mod:`agentcost.render.caps` builds the body as these types; its JSON Schema is generated from the
same types (:mod:`agentcost.report.schemagen`). ``agentcost replay DIR --caps FILE`` reads
``max_turns``, ``max_budget_usd`` and ``max_tokens`` back from it.
"""

from __future__ import annotations

from typing import Annotated, TypedDict

from agentcost.report.schemagen import COUNT, DECIMAL, POSITIVE, USD, Keywords


class CapsAtJson(TypedDict):
    """The runs' figures at the statistic, before the margin and the rounding up."""

    requests: COUNT
    cost_usd: USD
    largest_output_tokens: Annotated[COUNT, "output tokens of the run's largest request"]


class ClaudeAgentSdkJson(TypedDict):
    max_turns: POSITIVE
    max_budget_usd: USD


class OpenAiAgentsSdkJson(TypedDict):
    max_turns: POSITIVE
    max_tokens: Annotated[POSITIVE, "ModelSettings(max_tokens=...)"]


class LangGraphJson(TypedDict):
    recursion_limit: Annotated[POSITIVE, "a ReAct agent: 2 x max_turns - 1 super-steps"]


class SdkCapsJson(TypedDict):
    claude_agent_sdk: ClaudeAgentSdkJson
    openai_agents_sdk: OpenAiAgentsSdkJson
    langgraph: LangGraphJson


class BeyondJson(TypedDict):
    """Simulated runs beyond each cap (0 of 1 without distributions)."""

    turns: COUNT
    budget: COUNT
    max_tokens: COUNT
    any: COUNT
    any_share: DECIMAL


class SourceJson(TypedDict):
    what: str
    url: str


class CapsJson(TypedDict):
    """Runtime caps for an agent SDK: ``agentcost caps SCENARIO``."""

    scenario: str
    name: str | None
    model: str
    as_of: Annotated[str, Keywords(format="date-time")]
    prices: str
    percentile: Annotated[str, "the statistic of the runs the caps are read at: p99, max..."]
    runs: Annotated[POSITIVE, "runs the caps are read from: 1 when the scenario has no distribution"]
    seed: int | None
    engine: str | None
    margin_percent: DECIMAL
    max_turns: POSITIVE
    max_budget_usd: USD
    max_tokens: POSITIVE
    at: CapsAtJson
    sdk: SdkCapsJson
    beyond: BeyondJson
    notes: list[str]
    sources: list[SourceJson]
    sources_read: Annotated[str, Keywords(format="date")]
