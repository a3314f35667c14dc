"""The billed items of one request as a provider reports them: the one module that knows which parts
of a reported usage are billed, and how. Replay (every log format's usage) and reconcile (the usage
exports) both call it; :meth:`~agentcost.prices.pricing.ModelPrices.price` prices each item.

The items beside the tokens (input, its cache reads and writes, output):

- **Server-tool uses** (Anthropic ``usage.server_tool_use``): ``web_search_requests`` at $10 per
  1,000, ``web_fetch_requests`` at $0, ``code_execution_requests`` at $0 per use (facts.yaml
  ``server_tool_fees``; https://platform.claude.com/docs/en/about-claude/pricing, read 2026-09-26).
  Counts under other names are not priced, and a note says so.
- **Compaction iterations** (Anthropic ``usage.iterations`` entries of type ``compaction``): "The
  top-level input_tokens and output_tokens do not include compaction iteration usage ... To
  calculate total tokens consumed and billed for a request, sum across all entries in the
  usage.iterations array" (https://platform.claude.com/docs/en/build-with-claude/compaction,
  "Understanding usage", read 2026-12-03). Each compaction iteration is its own sampling step, so it
  is priced as a request of its own (its own long-context tier) beside the top-level usage.
- **Thinking the output leaves out**: a usage whose reported total exceeds input + output (Vertex AI
  Gemini through OpenInference and Langfuse: ``candidates_token_count`` without the thoughts) holds
  the thinking in the rest, and it is billed as output: Gemini's "Output price (including thinking
  tokens)" (https://ai.google.dev/gemini-api/docs/pricing, read 2026-10-07), Anthropic's and OpenAI's
  thinking and reasoning tokens likewise (pricing-facts.md §E).
- **Search-preview calls**: OpenAI's Chat Completions search models (``gpt-4o-search-preview``,
  ``gpt-4o-mini-search-preview`` and their dated ids) "always retrieve information from the web before
  responding" (https://platform.openai.com/docs/guides/tools-web-search, read 2026-12-03): one web
  search preview call per request, at facts.yaml ``web_search_preview``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import field
from decimal import Decimal
from typing import Any

from agentcost.infra.record import record
from agentcost.tokens.request import Pricer, RequestCost, RequestUsage

Count = Callable[[Any, str], int]
"""Reads one count of a usage object: ``count(value, key_path)`` returns a whole number >= 0 (0 for a
missing value) or raises the caller's located :class:`~agentcost.errors.InputError`."""

ANTHROPIC_SERVER_TOOLS: dict[str, str] = {
    "web_search_requests": "web_searches",
    "web_fetch_requests": "web_fetches",
    "code_execution_requests": "code_executions",
}
"""Anthropic ``usage.server_tool_use`` counts -> the :class:`RequestUsage` field each is priced as."""

THINKING_NOTE = (
    "{tokens:,} tokens of the reported totals are neither input nor output: taken as thinking and priced "
    "as output (the providers bill thinking as output; Gemini: 'Output price (including thinking tokens)')"
)


@record
class ServerToolUses:
    """Server-tool uses of one response, by the :class:`RequestUsage` field that prices them."""

    web_searches: int = 0
    web_fetches: int = 0
    code_executions: int = 0
    unpriced: tuple[tuple[str, int], ...] = ()  # (usage key, count) of tools no fee is known for


@record
class BilledRequest:
    """One request's billed items: ``usage`` (the top-level usage, fees included) and ``steps``, other
    sampling steps billed with it (Anthropic compaction iterations), each priced as a request."""

    usage: RequestUsage
    steps: tuple[RequestUsage, ...] = ()

    @property
    def parts(self) -> tuple[RequestUsage, ...]:
        return (self.usage, *self.steps)


def anthropic_server_tools(server_tool_use: Mapping[str, Any], count: Count, at: str) -> ServerToolUses:
    """Anthropic ``usage.server_tool_use`` (at key path ``at``) as the uses each fee prices."""
    found = {field: 0 for field in ANTHROPIC_SERVER_TOOLS.values()}
    unpriced: list[tuple[str, int]] = []
    for key, value in server_tool_use.items():
        if key in ANTHROPIC_SERVER_TOOLS:
            found[ANTHROPIC_SERVER_TOOLS[key]] += count(value, f"{at}.{key}" if at else str(key))
        elif type(value) is int and value > 0:  # a tool no fee is known for: named, never priced
            unpriced.append((str(key), value))
    return ServerToolUses(**found, unpriced=tuple(unpriced))


def anthropic_extras(usage: Mapping[str, Any], count: Count, at: str) -> dict[str, Any]:
    """What an Anthropic ``usage`` (at key path ``at``) bills beside its top-level tokens, as keywords
    of a reported usage: ``web_searches``, ``web_fetches``, ``code_executions`` (from
    ``server_tool_use``) and ``steps`` (the compaction iterations)."""
    tools = usage.get("server_tool_use")
    uses = (
        anthropic_server_tools(tools, count, f"{at}.server_tool_use") if isinstance(tools, Mapping) else None
    )
    return {
        "web_searches": uses.web_searches if uses else 0,
        "web_fetches": uses.web_fetches if uses else 0,
        "code_executions": uses.code_executions if uses else 0,
        "steps": compaction_steps(usage, count, at),
    }


def anthropic_tokens(usage: Mapping[str, Any], count: Count, at: str) -> RequestUsage:
    """Anthropic token usage (top level or one iteration) as a :class:`RequestUsage`: input is
    uncached + cache reads + cache writes; ``cache_creation`` splits the writes into 5-minute and
    1-hour ones (all 5-minute without it)."""
    uncached = count(usage.get("input_tokens"), f"{at}.input_tokens")
    read = count(usage.get("cache_read_input_tokens"), f"{at}.cache_read_input_tokens")
    written = count(usage.get("cache_creation_input_tokens"), f"{at}.cache_creation_input_tokens")
    split = usage.get("cache_creation")
    one_hour = 0
    if isinstance(split, Mapping):
        at_split = f"{at}.cache_creation"
        one_hour = count(split.get("ephemeral_1h_input_tokens"), f"{at_split}.ephemeral_1h_input_tokens")
        if not written:  # an iteration may give the split only
            written = one_hour + count(
                split.get("ephemeral_5m_input_tokens"), f"{at_split}.ephemeral_5m_input_tokens"
            )
    one_hour = min(one_hour, written)
    return RequestUsage(
        uncached + read + written,
        count(usage.get("output_tokens"), f"{at}.output_tokens"),
        cache_read_tokens=read,
        cache_write_tokens=written - one_hour,
        cache_write_1h_tokens=one_hour,
    )


def compaction_steps(usage: Mapping[str, Any], count: Count, at: str) -> tuple[RequestUsage, ...]:
    """The compaction iterations of an Anthropic ``usage`` (``usage.iterations`` entries of type
    ``compaction``), each a sampling step the top-level counts leave out."""
    iterations = usage.get("iterations")
    if not isinstance(iterations, Sequence) or isinstance(iterations, str):
        return ()
    return tuple(
        anthropic_tokens(it, count, f"{at}.iterations[{i}]")
        for i, it in enumerate(iterations)
        if isinstance(it, Mapping) and it.get("type") == "compaction"
    )


def unreported_thinking(input_tokens: int, output_tokens: int, total_tokens: int | None) -> int:
    """The tokens a reported total holds beyond input + output (0 when it holds none): thinking,
    billed as output."""
    if total_tokens is None:
        return 0
    return max(0, total_tokens - input_tokens - output_tokens)


def is_search_preview(model: str) -> bool:
    """An OpenAI Chat Completions search model (``gpt-4o-search-preview``,
    ``gpt-4o-mini-search-preview-2025-03-11``, ``openai/...``), which searches on every request."""
    name = model.rsplit("/", 1)[-1].lower()
    return name.startswith("gpt-") and "-search-preview" in name


def search_preview_calls(provider: str, model: str, requests: int = 1) -> int:
    """Web search preview calls of ``requests`` requests to ``model``: one each on a search model."""
    return requests if provider in ("openai", "azure") and is_search_preview(model) else 0


def price_request(price: Pricer, billed: BilledRequest) -> RequestCost:
    """A request's price: each of its billed parts priced by ``price``, added up part by part."""
    return add_costs([price(part) for part in billed.parts])


def add_costs(costs: Sequence[RequestCost]) -> RequestCost:
    """The sum of several priced parts of one request (a request and its compaction iterations)."""
    if len(costs) == 1:
        return costs[0]
    zero = Decimal(0)
    container: Decimal | None = zero
    fees: dict[str, Decimal] = {}
    for cost in costs:
        box = cost.container_usd
        container = None if container is None or box is None else container + box
        for name, usd in cost.fees:
            fees[name] = fees.get(name, zero) + usd
    split = all(c.uncached_input_usd is not None for c in costs)
    return RequestCost(
        input_usd=sum((c.input_usd for c in costs), zero),
        output_usd=sum((c.output_usd for c in costs), zero),
        total_usd=sum((c.total_usd for c in costs), zero),
        fees_usd=sum((c.fees_usd for c in costs), zero),
        container_usd=container,
        uncached_input_usd=sum((c.uncached_input_usd or zero for c in costs), zero) if split else None,
        cache_read_usd=sum((c.cache_read_usd for c in costs), zero),
        cache_write_5m_usd=sum((c.cache_write_5m_usd for c in costs), zero),
        cache_write_1h_usd=sum((c.cache_write_1h_usd for c in costs), zero),
        fees=tuple(fees.items()),
    )


@record(frozen=False)
class Tally:
    """The billed items of a run's requests beside their tokens, added up for the run's notes."""

    fees: dict[str, tuple[int, Decimal]] = field(default_factory=dict)  # fee -> (uses, dollars)
    steps: int = 0
    steps_usd: Decimal = Decimal(0)
    thinking: int = 0

    def add(self, billed: BilledRequest, price: Pricer, thinking: int = 0) -> RequestCost:
        """Price ``billed`` with ``price`` (as :func:`price_request`), count its items, return its cost."""
        costs = [price(part) for part in billed.parts]
        usage, paid = billed.usage, dict(costs[0].fees)
        for name, n in (
            ("web_search", usage.web_searches),
            ("web_fetch", usage.web_fetches),
            ("code_execution", usage.code_executions),
            ("web_search_preview", usage.web_search_previews),
        ):
            if n:
                uses, dollars = self.fees.get(name, (0, _ZERO))
                self.fees[name] = (uses + n, dollars + paid.get(name, _ZERO))
        self.steps += len(billed.steps)
        self.steps_usd += sum((c.total_usd for c in costs[1:]), _ZERO)
        self.thinking += thinking
        return add_costs(costs)

    def notes(self) -> list[str]:
        """What the run's prices include beside tokens, each item with its count and dollars."""
        found = [
            f"{n:,} {_FEE_NAMES.get(name, name)} priced: {_usd(dollars)} (in the total)"
            for name, (n, dollars) in sorted(self.fees.items())
        ]
        if self.steps:
            found.append(
                f"{self.steps:,} compaction iteration(s) (usage.iterations, left out of the top-level "
                f"usage) priced as requests of their own: {_usd(self.steps_usd)}"
            )
        if self.thinking:
            found.append(THINKING_NOTE.format(tokens=self.thinking))
        return found


_ZERO = Decimal(0)


def _usd(amount: Decimal) -> str:
    """Dollars exactly as priced (no rounding): ``$0.0225``."""
    return f"${amount.normalize():f}" if amount else "$0"


_FEE_NAMES = {
    "web_search": "web searches",
    "web_fetch": "web fetches (no fee)",
    "code_execution": "code executions",
    "web_search_preview": "web search preview calls (one per request of a search model)",
}
