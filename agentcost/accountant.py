"""The loop accountant: token counts + prices + cache policy -> ledger. Pure functions, no I/O.

Request 1 carries the fixed prefix (tools, system), the task and the per-request framing. Every later
request re-sends all of that plus, for each earlier round, the assistant's tool call (echoed) and the
tool result. ``n`` tool rounds make ``n + 1`` billed requests; the last one returns the final answer.
With caching off and uniform rounds, request ``i`` carries ``B + (i - 1) * r`` input tokens and the run
``n * B + r * n * (n - 1) / 2`` for its first ``n`` requests (tests check this identity).

Caching is modelled per request from what earlier requests left in the cache, assuming the agent runs
without pauses longer than the cache TTL (pacing arrives with the provider-mechanics issue):

* ``explicit`` (Anthropic): cache breakpoints at the end of the stable prefix (tools -> system) and, in
  ``conversation`` mode, at the last message of every request. A breakpoint shorter than the model's
  minimum cacheable length writes nothing. A request reads the longest entry earlier requests wrote
  and writes what lies between that and its own longest eligible breakpoint.
* ``automatic`` (OpenAI, Gemini implicit): no breakpoints; a request reads the part of its prompt that
  an earlier request already sent, once that part reaches the minimum length, in steps of
  ``increment`` tokens. Writes are billed only where the model has a cache-write price.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from agentcost.counts import TokenCounts
from agentcost.spec import CacheTTL, CachingMode

CacheStyle = Literal["explicit", "automatic"]
RequestKind = Literal["tool_use", "final"]


@dataclass(frozen=True)
class RequestUsage:
    """Tokens of one billed request. ``input_tokens`` counts every prompt token, cached or not."""

    input_tokens: int
    output_tokens: int
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0  # 5-minute writes, or the provider's only write bucket
    cache_write_1h_tokens: int = 0


@dataclass(frozen=True)
class RequestCost:
    input_usd: Decimal
    output_usd: Decimal
    total_usd: Decimal


Pricer = Callable[[RequestUsage], RequestCost]
"""Prices one request; must be deterministic (the price date is fixed before the accountant runs)."""


@dataclass(frozen=True)
class CachePolicy:
    mode: CachingMode
    style: CacheStyle
    min_tokens: int  # prefixes shorter than this are not cached (no error, just no cache)
    ttl: CacheTTL = "5m"
    increment: int = 1  # automatic caching hits in steps of this many tokens past the minimum
    bills_writes: bool = True  # False where the provider does not charge for cache writes


NO_CACHE = CachePolicy(mode="none", style="automatic", min_tokens=0)


@dataclass(frozen=True)
class LedgerRow:
    index: int  # 1-based request number
    kind: RequestKind
    tools: tuple[str, ...]  # tools called in this response (empty for the final answer)
    usage: RequestUsage
    cost: RequestCost
    running_usd: Decimal

    @property
    def cache_write_total(self) -> int:
        return self.usage.cache_write_tokens + self.usage.cache_write_1h_tokens


@dataclass(frozen=True)
class LedgerTotals:
    requests: int
    input_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int  # 5m and 1h together
    output_tokens: int
    input_usd: Decimal
    output_usd: Decimal
    cost_usd: Decimal
    max_input_tokens: int  # the largest single request, for context-window checks


@dataclass(frozen=True)
class Ledger:
    rows: tuple[LedgerRow, ...]
    totals: LedgerTotals
    policy: CachePolicy
    rounds_planned: int
    rounds_run: int
    truncated: bool  # max_rounds stopped the run before the final answer


def request_inputs(counts: TokenCounts, rounds: int) -> list[int]:
    """Input tokens of requests 1..rounds+1 with no caching: the plain B + history growth."""
    base = counts.tools + counts.system + counts.task + counts.per_request
    sizes = [base]
    for r in counts.rounds[:rounds]:
        sizes.append(sizes[-1] + r.appended)
    return sizes


def _automatic_hit(sent_before: int, policy: CachePolicy) -> int:
    """How much of an already-sent prefix an automatic cache returns."""
    if sent_before < policy.min_tokens or sent_before <= 0:
        return 0
    step = max(policy.increment, 1)
    return policy.min_tokens + (sent_before - policy.min_tokens) // step * step


def _cache_split(
    policy: CachePolicy, prefix: int, cacheable: int, cached: int, previous: int | None
) -> tuple[int, int, int]:
    """(read, write, new cached length) for one request.

    ``prefix``: tools + system; ``cacheable``: the request's prompt before its uncacheable tail;
    ``cached``: the longest entry already in the cache; ``previous``: the previous request's cacheable
    length (None for the first request).
    """
    if policy.mode == "none":
        return 0, 0, cached
    if policy.style == "explicit":
        breakpoints = [prefix] if policy.mode == "prefix" else [prefix, cacheable]
        eligible = [b for b in breakpoints if b >= policy.min_tokens and b > 0]
        target = max(eligible, default=0)
        read = cached if cached <= cacheable else 0
        write = max(target - read, 0)
        return read, write, max(read, target)
    # automatic
    if previous is None:
        read = 0
    elif policy.mode == "prefix":
        read = _automatic_hit(prefix, policy)
    else:
        read = _automatic_hit(previous, policy)
    reach = _automatic_hit(prefix if policy.mode == "prefix" else cacheable, policy)
    write = max(reach - read, 0) if policy.bills_writes else 0
    return read, write, max(read, reach)


def run_accountant(
    counts: TokenCounts,
    pricer: Pricer,
    policy: CachePolicy = NO_CACHE,
    *,
    max_rounds: int | None = None,
) -> Ledger:
    """Build the per-request ledger. O(rounds); every dollar is an exact Decimal from ``pricer``."""
    planned = len(counts.rounds)
    run = planned if max_rounds is None else min(planned, max_rounds)
    truncated = run < planned
    prefix = counts.prefix
    cacheable = prefix + counts.task
    cached = 0
    previous: int | None = None
    running = Decimal(0)
    rows: list[LedgerRow] = []
    n_requests = run if truncated else run + 1
    for k in range(n_requests):
        is_final = k == run
        if k > 0:
            cacheable += counts.rounds[k - 1].appended
        read, write, cached = _cache_split(policy, prefix, cacheable, cached, previous)
        previous = cacheable
        kind: RequestKind = "final" if is_final else "tool_use"
        output = counts.final_output if is_final else counts.rounds[k].output
        tools = () if is_final else counts.rounds[k].tools
        one_hour = policy.ttl == "1h" and policy.style == "explicit"
        usage = RequestUsage(
            input_tokens=cacheable + counts.per_request,
            output_tokens=output,
            cache_read_tokens=read,
            cache_write_tokens=0 if one_hour else write,
            cache_write_1h_tokens=write if one_hour else 0,
        )
        cost = pricer(usage)
        running += cost.total_usd
        rows.append(LedgerRow(k + 1, kind, tools, usage, cost, running))
    return Ledger(
        rows=tuple(rows),
        totals=_totals(rows),
        policy=policy,
        rounds_planned=planned,
        rounds_run=run,
        truncated=truncated,
    )


def _totals(rows: list[LedgerRow]) -> LedgerTotals:
    return LedgerTotals(
        requests=len(rows),
        input_tokens=sum(r.usage.input_tokens for r in rows),
        cache_read_tokens=sum(r.usage.cache_read_tokens for r in rows),
        cache_write_tokens=sum(r.cache_write_total for r in rows),
        output_tokens=sum(r.usage.output_tokens for r in rows),
        input_usd=sum((r.cost.input_usd for r in rows), Decimal(0)),
        output_usd=sum((r.cost.output_usd for r in rows), Decimal(0)),
        cost_usd=sum((r.cost.total_usd for r in rows), Decimal(0)),
        max_input_tokens=max((r.usage.input_tokens for r in rows), default=0),
    )
