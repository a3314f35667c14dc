"""The loop accountant: token counts + prices + cache policy + pacing -> ledger. Pure functions, no I/O.

Request 1 carries the fixed prefix (tools, system), the task and the per-request framing. Every later
request re-sends all of that plus, for each earlier round, the assistant's tool call (echoed) and the
tool result. ``n`` tool rounds make ``n + 1`` billed requests; the last one returns the final answer.
With caching off and uniform rounds, request ``i`` carries ``B + (i - 1) * r`` input tokens and the run
``n * B + r * n * (n - 1) / 2`` for its first ``n`` requests (tests check this identity).

Besides the history, a request may carry input that is never cached and never re-sent: a round's
``inline`` tokens (server-tool results the model reads while writing that round's response) in the
round's own request, and its ``transient`` tokens (thinking kept for one turn) in the next request. A
round with ``continuations`` (Anthropic ``pause_turn``) costs that many more requests right after its
own, each re-sending the same prompt with no new output.

Time (pacing): request 1 starts at 0 and the request after round ``i`` starts ``gaps[i]`` seconds
after round ``i``'s request (continuations start at once). Caching is modelled per request from what
earlier requests left in the cache:

* ``explicit`` (Anthropic): cache breakpoints at the end of the stable prefix (tools -> system) and, in
  ``conversation`` mode, at the last message of every request (never more than
  :data:`MAX_BREAKPOINTS`). A breakpoint shorter than the model's minimum cacheable length writes
  nothing. A request reads the longest entry earlier requests wrote and writes what lies between that
  and its own longest eligible breakpoint.
* ``automatic`` (OpenAI, Gemini implicit): no breakpoints; a request reads the part of its prompt that
  an earlier request already sent, once that part reaches the minimum length, in steps of
  ``increment`` tokens. Writes are billed only where the model has a cache-write price.
* ``stored`` (Gemini explicit caches): the stable prefix (tools, system, task) is put in a cache once,
  its creation billed at the input price; every request reads it. Storage is billed per hour of the
  cache's TTL (``Ledger.storage``), and a cache past its TTL is created again (and stored again).

Expiry: every request uses (and so refreshes) every live entry, since each is a prefix of its prompt;
so all entries share one last-use time, and when the gap before a request is longer than
``ttl_seconds`` they have all expired: the request reads nothing and writes its prefix again.
With two TTLs (``CachePolicy.prefix_ttl``, explicit style only) the entry at the prefix breakpoint
lives for ``prefix_ttl`` and the entries beyond it for ``ttl``: tokens written up to the prefix
breakpoint are billed at the prefix TTL's rate and the rest at ``ttl``'s; after a gap longer than
``ttl`` but not ``prefix_ttl`` the request reads the prefix entry and writes the rest again.
``stored`` caches are not refreshed by use: they expire ``ttl_seconds`` after they were created.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from decimal import Decimal
from typing import Literal

from agentcost.infra.record import record
from agentcost.loop.editing import ContextEditor
from agentcost.scenario.model import CacheTTL, CachingMode, Scenario

# Route and the request vocabulary live below the accountant (routed counts name them); importers
# of ``agentcost.loop.accountant`` may keep using them from here (explicit re-exports).
from agentcost.tokens.counts import Route, TokenCounts
from agentcost.tokens.request import TTL_SECONDS, CachePolicy, Pricer, RequestCost, RequestUsage

RequestKind = Literal["tool_use", "reply", "final"]  # reply: a chat turn's plain-text answer

MAX_BREAKPOINTS = 4
"""Anthropic allows up to 4 ``cache_control`` breakpoints per request; our modes use at most 2."""

_MILLION = Decimal(1_000_000)
_HOUR = Decimal(3_600)


NO_CACHE = CachePolicy(mode="none", style="automatic", min_tokens=0)


@record
class LedgerRow:
    """One billed request: its usage, its exact cost and the running total."""

    index: int  # 1-based request number
    kind: RequestKind
    tools: tuple[str, ...]  # tools called in this response (empty for the final answer and plain replies)
    usage: RequestUsage
    cost: RequestCost
    running_usd: Decimal  # requests 1..index, without the per-run cache storage
    start_seconds: Decimal = Decimal(0)  # when the request is sent, from the start of the run
    cache_expired: bool = False  # the cache entries this request would have read had expired
    continuation: bool = False  # a pause_turn continuation of the previous request's response
    round: int | None = None  # 0-based index of the round whose response this is (None: the final
    # answer, or a tool-search request made before the round that calls a deferred tool)
    # context editing: tool results cleared just before this request, and the input tokens that saved
    cleared_results: int = 0
    cleared_tokens: int = 0
    failed: bool = False  # a failed attempt (retries): an invalid call answered by an error result
    model: str | None = None  # routing: the model this request ran on (None: the scenario's)
    output_cut: int = 0  # limits.max_tokens: output tokens cut from this response

    @property
    def cache_write_total(self) -> int:
        return self.usage.cache_write_tokens + self.usage.cache_write_1h_tokens


@record
class CacheStorage:
    """A Gemini explicit cache over the run: created ``creations`` times, each stored for ``ttl_hours``."""

    tokens: int
    creations: int
    ttl_hours: Decimal
    usd_per_mtok_hour: Decimal
    creation_usd: Decimal  # every creation at the standard input price
    storage_usd: Decimal  # tokens x usd_per_mtok_hour / 1M x ttl_hours x creations

    @property
    def hours(self) -> Decimal:
        return self.ttl_hours * self.creations


@record
class LedgerTotals:
    """The ledger's sums: tokens of each kind and exact dollars."""

    requests: int
    input_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int  # 5m and 1h together
    output_tokens: int
    input_usd: Decimal
    output_usd: Decimal
    cost_usd: Decimal  # requests + cache_creation_usd + storage_usd
    max_input_tokens: int  # the largest single request, for context-window checks
    fees_usd: Decimal = Decimal(0)  # server-tool fees, part of the requests' cost
    storage_usd: Decimal = Decimal(0)  # explicit-cache storage (Gemini), per run
    cache_creation_usd: Decimal = Decimal(0)  # explicit-cache creation (Gemini), per run
    cache_expiries: int = 0  # requests that found the cache expired
    failed_requests: int = 0  # failed attempts (retries)
    failed_usd: Decimal = Decimal(0)  # what the failed attempts themselves cost, part of cost_usd
    container_seconds: Decimal | None = None  # code-execution container time billed (None: none ran)
    container_usd: Decimal | None = Decimal(0)  # its price, part of fees_usd (None: the rate is unknown)

    @property
    def failed_share(self) -> Decimal | None:
        """The failed attempts' share of the cost (None when the run costs nothing)."""
        return self.failed_usd / self.cost_usd if self.cost_usd else None


@record
class Ledger:
    """The accountant's result: one row per request, the totals and the cache policy applied."""

    rows: tuple[LedgerRow, ...]
    totals: LedgerTotals
    policy: CachePolicy
    rounds_planned: int
    rounds_run: int
    truncated: bool  # max_rounds stopped the run before the final answer
    storage: CacheStorage | None = None  # the explicit cache, when the policy stores one
    budget_stop: int | None = None  # max_budget_usd stopped the run after this request (1-based)
    # the budget was crossed inside this subagent (round, call; 0-based), started by request budget_stop
    budget_subagent: tuple[int, int] | None = None
    spent_usd: Decimal = Decimal(0)  # what the budget check saw last: requests + subagents' spent_usd


SubagentRun = Callable[[Decimal | None], Decimal]
"""Runs one subagent given what is left of the budget (None: no cap), stopping once its running
total passes it, and returns what it spent (its ``Ledger.spent_usd``)."""


@record
class TtlOption:
    """The run's cost with one cache lifetime (``label``: ``none``, ``5m`` or ``1h``)."""

    label: str
    cost_usd: Decimal
    cache_expiries: int


def request_inputs(counts: TokenCounts, rounds: int) -> list[int]:
    """Input tokens of requests 1..rounds+1 with no caching: the plain B + history growth."""
    base = counts.tools + counts.system + counts.task + counts.per_request
    sizes = [base]
    for r in counts.rounds[:rounds]:
        sizes.append(sizes[-1] + r.appended)
    return sizes


def request_gaps(scenario: Scenario) -> tuple[Decimal, ...]:
    """Seconds from each round's request to the next: its own ``seconds``, else
    ``pacing.round_seconds``, else 0 (no pause); with ``limits.max_concurrent_subagents``, plus the
    time of the subagents the round's response starts (:func:`subagent_wait`)."""
    default = scenario.pacing.round_seconds if scenario.pacing.round_seconds is not None else Decimal(0)
    own = tuple(r.seconds if r.seconds is not None else default for r in scenario.rounds)
    if scenario.limits.max_concurrent_subagents is None:
        return own
    return tuple(g + subagent_wait(scenario, i) for i, g in enumerate(own))


def subagent_wait(scenario: Scenario, index: int) -> Decimal:
    """Seconds the parent waits after round ``index`` for the subagents its response starts, when
    ``limits.max_concurrent_subagents`` (N) is set (else 0): they run in call order in waves of at
    most N, each wave as long as its slowest subagent, a subagent as long as its own request gaps
    (its pacing, from its first request to its final one)."""
    n = scenario.limits.max_concurrent_subagents
    if n is None:
        return Decimal(0)
    times = [
        sum(request_gaps(c.subagent), Decimal(0))
        for c in scenario.rounds[index].calls
        if c.subagent is not None
    ]
    return sum((max(times[k : k + n]) for k in range(0, len(times), n)), Decimal(0))


def _automatic_hit(sent_before: int, policy: CachePolicy) -> int:
    """How much of an already-sent prefix an automatic cache returns."""
    if sent_before < policy.min_tokens or sent_before <= 0:
        return 0
    step = max(policy.increment, 1)
    return policy.min_tokens + (sent_before - policy.min_tokens) // step * step


def _cache_split(
    policy: CachePolicy, prefix: int, stable: int, cacheable: int, cached: int, previous: int | None
) -> tuple[int, int, int]:
    """(read, write, new cached length) for one request.

    ``prefix``: tools + system; ``stable``: prefix + task; ``cacheable``: the request's prompt before
    its uncacheable tail; ``cached``: the longest live entry; ``previous``: the cacheable length of
    the previous request while its entries live (None for the first request or after expiry).
    """
    if policy.mode == "none":
        return 0, 0, cached
    if policy.style == "stored":
        stored = stable if stable >= policy.min_tokens and stable > 0 else 0
        return stored, 0, stored
    if policy.style == "explicit":
        # the longest eligible breakpoint: the prefix's, and in conversation mode the last message's
        # (2 <= MAX_BREAKPOINTS); a breakpoint below the minimum length (or empty) writes nothing
        floor = max(policy.min_tokens, 1)
        target = prefix if prefix >= floor else 0
        if policy.mode != "prefix" and cacheable >= floor:
            target = max(target, cacheable)
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


_USAGE_KEYS = {"web_search": "web_searches", "web_fetch": "web_fetches", "code_execution": "code_executions"}


def server_use_counts(uses: Sequence[tuple[str, int]]) -> dict[str, int]:
    """RoundTokens.server_uses as RequestUsage keyword arguments."""
    out: dict[str, int] = {}
    for tool, n in uses:
        key = _USAGE_KEYS[tool]
        out[key] = out.get(key, 0) + n
    return out


def _gap(gaps: Sequence[Decimal], index: int) -> Decimal:
    gap = gaps[index] if index < len(gaps) else Decimal(0)
    if gap < 0:
        raise ValueError(f"gaps[{index}] is negative: {gap}")
    return gap


class _Model:
    """The model a request runs on (the scenario's, or a route's): its counts, pricer and cache policy,
    with what the accountant reads of the policy on every request worked out once."""

    def __init__(self, counts: TokenCounts, pricer: Pricer, policy: CachePolicy) -> None:
        self.counts, self.pricer, self.policy = counts, pricer, policy
        self.prefix = counts.prefix  # tools + system
        self.stable = self.prefix + counts.task
        # the prefix breakpoint when it is cacheable, else 0
        self.prefix_bp = self.prefix if self.prefix >= policy.min_tokens and self.prefix > 0 else 0
        self.explicit = policy.style == "explicit"
        self.stored = policy.style == "stored"
        self.outlives = policy.prefix_ttl_seconds()  # two TTLs: the prefix entry's, if it lives longer
        # explicit writes up to the prefix breakpoint, and past it, are 1-hour writes; automatic
        # caching with a 1-hour TTL (Kimi K3's prompt_cache_options) writes every entry for an hour
        self.prefix_1h = self.explicit and (policy.prefix_ttl or policy.ttl) == "1h"
        self.rest_1h = policy.ttl == "1h" and policy.style in ("explicit", "automatic")


def run_accountant(
    counts: TokenCounts,
    pricer: Pricer,
    policy: CachePolicy = NO_CACHE,
    *,
    max_rounds: int | None = None,
    gaps: Sequence[Decimal] = (),
    max_budget_usd: Decimal | None = None,
    routes: Mapping[str, Route] | None = None,
    subagents: Mapping[int, Sequence[tuple[int, SubagentRun]]] | None = None,
    budget_left: Decimal | None = None,
    keep_rows: bool = True,
) -> Ledger:
    """Build the per-request ledger. O(rounds x models); every dollar is an exact Decimal from a pricer.

    ``gaps[i]``: seconds from round ``i``'s request to the next request (missing: 0).
    ``max_budget_usd``: once the running cost passes it, no further request is sent (the Claude Agent
    SDK checks after every response); ``Ledger.budget_stop`` is the last request sent.
    ``routes``: the models rounds name (``RoundTokens.model``; default ``counts.routes``); a request on
    another model than the one before it reads no cache (it writes again). A round whose model has no
    route runs on the scenario's model.
    ``subagents``: by scenario round, the (call index, run) of each subagent its response starts, run
    in call order after the round's response (and its continuations) and before the next request;
    what they spend counts against the budget like the run's own requests, and a subagent is given
    what is left of it, so it stops at the request that crosses it (``Ledger.budget_subagent``).
    ``budget_left``: a parent's budget left when this run (a subagent) starts; the run stops once its
    spending passes it as for ``max_budget_usd`` (the tighter of the two applies).
    ``keep_rows``: False leaves ``Ledger.rows`` empty (the same run, the same totals, no rows kept).
    """
    routes = dict(counts.routes) if routes is None else routes
    for name, route in routes.items():
        if len(route.counts.rounds) != len(counts.rounds):
            raise ValueError(f"route {name}: its counts are not aligned with the scenario's")
        if route.policy.style == "stored" and route.policy.mode != "none":
            raise ValueError("routing with a stored (Gemini explicit) cache is not modelled")
    route_cacheable = {name: r.counts.prefix + r.counts.task for name, r in routes.items()}
    own = _Model(counts, pricer, policy)
    models = {name: _Model(r.counts, r.pricer, r.policy) for name, r in routes.items()}
    last_model: str | None = None
    budget_stop: int | None = None
    budget_subagent: tuple[int, int] | None = None
    caps = [c for c in (max_budget_usd, budget_left) if c is not None]
    cap = min(caps) if caps else None  # the budget this run checks after every response
    spent = Decimal(0)  # the running cost with the subagents started so far
    # tool-search requests (RoundTokens.search) are not scenario rounds: max_rounds, gaps and
    # LedgerRow.round count scenario rounds only
    position = [i for i, r in enumerate(counts.rounds) if not r.inserted]  # scenario round -> index
    planned = len(position)
    run = planned if max_rounds is None else min(planned, max_rounds)
    truncated = run < planned
    stop = position[run] if truncated else len(counts.rounds)  # the first round not run
    while truncated and stop > 0 and counts.rounds[stop - 1].inserted:
        stop -= 1  # nor the tool search or failed attempts before it
    scenario_round = {i: n for n, i in enumerate(position)}
    editor = None if counts.context_editing is None else ContextEditor(counts.context_editing, counts)
    cacheable = own.stable
    cached = 0
    held = 0  # two TTLs: the length of the live entry at the prefix breakpoint (0: none)
    previous: int | None = None
    clock = Decimal(0)
    last_use: Decimal | None = None  # when live entries were last used (stored: created)
    creations = 0
    sums = _Sums()
    answered = 0  # scenario rounds whose response came back
    rows: list[LedgerRow] = []
    n_requests = stop if truncated else stop + 1
    for k in range(n_requests):
        is_final = k == stop
        transient = 0
        if k > 0:
            before = counts.rounds[k - 1]
            cacheable += before.appended
            transient = before.transient
            clock += Decimal(0) if before.inserted else _gap(gaps, scenario_round[k - 1])
            for name, route in routes.items():
                route_cacheable[name] += route.counts.rounds[k - 1].appended
        this = None if is_final else counts.rounds[k]
        model = None if this is None or this.model not in routes else this.model
        if model != last_model:  # another model's cache cannot be read: write again
            cached, previous, held = 0, None, 0
        last_model = model
        on = own if model is None else models[model]  # routing: counted and priced with its own model
        if model is not None:
            transient = on.counts.rounds[k - 1].transient if k > 0 else 0
            this = on.counts.rounds[k]
        inline = this.inline if this is not None else 0
        extra = 1 + (this.continuations if this is not None else 0)
        wanted = cacheable + transient + inline + counts.per_request  # the input before any clearing
        edit = None if editor is None else editor.before(k, wanted)
        if editor is not None and edit is not None:  # context editing clears old tool results first
            cacheable -= edit.saved
            for name in route_cacheable:  # the same results cleared, as each model counts them
                route_cacheable[name] -= editor.on(edit, routes[name].counts).saved
            keep = editor.on(edit, on.counts).keep_cached  # in the counts of the live entries' model
            cached = min(cached, keep)
            held = held if held <= cached else 0
            previous = None if previous is None else min(previous, keep)
        run_cacheable = cacheable if model is None else route_cacheable[model]
        round_ = None if this is None or this.inserted else scenario_round[k]
        ttl = on.policy.ttl_seconds  # live entries unused for longer have expired (None: never)
        for part in range(extra):
            expired = cached > 0 and ttl is not None and last_use is not None and clock - last_use > ttl
            if expired:  # with two TTLs the prefix entry may outlive the rest
                assert last_use is not None
                cached = held if on.outlives is not None and clock - last_use <= on.outlives else 0
                previous = None
            read, write, cached = _cache_split(
                on.policy, on.prefix, on.stable, run_cacheable, cached, previous
            )
            # the prefix breakpoint (if cacheable) and the part of this write up to it
            held = on.prefix_bp if on.explicit and 0 < on.prefix_bp <= cached else 0
            prefix_write = min(max(on.prefix_bp - read, 0), write) if on.explicit else 0
            if on.stored and read and (last_use is None or expired):
                creations += 1
                last_use = clock
            elif not on.stored:
                last_use = clock
            previous = run_cacheable
            write_1h = (prefix_write if on.prefix_1h else 0) + (write - prefix_write if on.rest_1h else 0)
            first = part == 0
            uses = server_use_counts(this.server_uses) if this is not None and first else {}
            usage = RequestUsage(
                input_tokens=run_cacheable + transient + inline + on.counts.per_request,
                output_tokens=(counts.final_output if this is None else this.output) if first else 0,
                cache_read_tokens=read,
                cache_write_tokens=write - write_1h,
                cache_write_1h_tokens=write_1h,
                web_searches=uses.get("web_searches", 0),
                web_fetches=uses.get("web_fetches", 0),
                code_executions=uses.get("code_executions", 0),
                container_seconds=this.container_seconds if this is not None and first else None,
            )
            cost = on.pricer(usage)
            failed = this is not None and this.failed
            sums.add(usage, cost, expired, failed)
            spent += cost.total_usd
            if keep_rows:
                rows.append(
                    LedgerRow(
                        index=sums.requests,
                        kind="final" if this is None else "reply" if this.reply else "tool_use",
                        tools=() if this is None else this.tools,
                        usage=usage,
                        cost=cost,
                        running_usd=sums.requests_usd,
                        start_seconds=clock,
                        cache_expired=expired,
                        continuation=not first,
                        round=round_,
                        cleared_results=edit.results if edit is not None and first else 0,
                        cleared_tokens=edit.saved if edit is not None and first else 0,
                        failed=failed,
                        model=model,
                        output_cut=(this.output_cut if this else counts.final_output_cut) if first else 0,
                    )
                )
            if first and round_ is not None:
                answered += 1
            more = part < extra - 1 or k < n_requests - 1
            if cap is not None and spent > cap and more:
                budget_stop = sums.requests  # the agent stops before its next request
                break
        if budget_stop is not None:
            break
        started = (
            () if subagents is None or this is None or this.inserted else subagents.get(scenario_round[k], ())
        )
        for n, (call, sub) in enumerate(started):  # subagents run before the next request
            spent += sub(None if cap is None else cap - spent)
            if cap is not None and spent > cap:  # crossed inside it: it stopped there
                if k < n_requests - 1 or n < len(started) - 1:  # and nothing more is sent
                    budget_stop, budget_subagent = sums.requests, (scenario_round[k], call)
                break
        if budget_stop is not None:
            break
    if budget_stop is not None:  # the scenario rounds whose response came back
        run = answered
    storage = _storage(policy, own.stable, creations, pricer)
    return Ledger(
        rows=tuple(rows),
        totals=sums.totals(storage),
        policy=policy,
        rounds_planned=planned,
        rounds_run=run,
        truncated=truncated or budget_stop is not None,
        storage=storage,
        budget_stop=budget_stop,
        budget_subagent=budget_subagent,
        spent_usd=spent,
    )


def _storage(policy: CachePolicy, tokens: int, creations: int, pricer: Pricer) -> CacheStorage | None:
    """What a ``stored`` cache costs besides the requests that read it."""
    if policy.style != "stored" or policy.mode == "none" or creations == 0:
        return None
    rate = policy.storage_usd_per_mtok_hour
    if rate is None:
        raise ValueError("a stored cache needs storage_usd_per_mtok_hour")
    ttl_hours = Decimal(policy.ttl_seconds if policy.ttl_seconds is not None else TTL_SECONDS["1h"]) / _HOUR
    creation = pricer(RequestUsage(input_tokens=tokens, output_tokens=0)).total_usd
    return CacheStorage(
        tokens=tokens,
        creations=creations,
        ttl_hours=ttl_hours,
        usd_per_mtok_hour=rate,
        creation_usd=creation * creations,
        storage_usd=tokens * rate / _MILLION * ttl_hours * creations,
    )


class _Sums:
    """The ledger's totals as running sums, added request by request in the ledger's order (the
    Decimal additions of summing its rows, from ``Decimal(0)``): what :class:`LedgerTotals` holds."""

    def __init__(self) -> None:
        self.requests = self.input_tokens = self.cache_read_tokens = self.cache_write_tokens = 0
        self.output_tokens = self.max_input_tokens = self.expiries = self.failed_requests = 0
        self.input_usd = self.output_usd = self.fees_usd = Decimal(0)
        self.requests_usd = self.failed_usd = Decimal(0)
        self.container_seconds: Decimal | None = None  # None until a request runs a container
        self.container_usd: Decimal | None = Decimal(0)  # None once a container's rate is unknown

    def add(self, usage: RequestUsage, cost: RequestCost, expired: bool, failed: bool) -> None:
        self.requests += 1
        self.input_tokens += usage.input_tokens
        self.cache_read_tokens += usage.cache_read_tokens
        self.cache_write_tokens += usage.cache_write_tokens + usage.cache_write_1h_tokens
        self.output_tokens += usage.output_tokens
        if self.requests == 1 or usage.input_tokens > self.max_input_tokens:
            self.max_input_tokens = usage.input_tokens
        self.input_usd += cost.input_usd
        self.output_usd += cost.output_usd
        self.requests_usd += cost.total_usd
        self.fees_usd += cost.fees_usd
        self.expiries += expired
        if failed:
            self.failed_requests += 1
            self.failed_usd += cost.total_usd
        if usage.container_seconds is not None:  # container time, over the requests that ran one
            seconds = Decimal(0) if self.container_seconds is None else self.container_seconds
            self.container_seconds = seconds + (usage.container_seconds or Decimal(0))
            usd, box = self.container_usd, cost.container_usd
            self.container_usd = None if usd is None or box is None else usd + (box or Decimal(0))

    def totals(self, storage: CacheStorage | None) -> LedgerTotals:
        storage_usd = storage.storage_usd if storage is not None else Decimal(0)
        creation_usd = storage.creation_usd if storage is not None else Decimal(0)
        return LedgerTotals(
            requests=self.requests,
            input_tokens=self.input_tokens,
            cache_read_tokens=self.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens,
            output_tokens=self.output_tokens,
            input_usd=self.input_usd,
            output_usd=self.output_usd,
            cost_usd=self.requests_usd + creation_usd + storage_usd,
            max_input_tokens=self.max_input_tokens,
            fees_usd=self.fees_usd,
            storage_usd=storage_usd,
            cache_creation_usd=creation_usd,
            cache_expiries=self.expiries,
            failed_requests=self.failed_requests,
            failed_usd=self.failed_usd,
            container_seconds=self.container_seconds,
            container_usd=self.container_usd,
        )


def ttl_options(
    counts: TokenCounts,
    pricer: Pricer,
    policy: CachePolicy,
    *,
    ttls: Sequence[CacheTTL] = ("5m", "1h"),
    max_rounds: int | None = None,
    gaps: Sequence[Decimal] = (),
    max_budget_usd: Decimal | None = None,
    subagents: Mapping[int, Sequence[tuple[int, SubagentRun]]] | None = None,
    budget_left: Decimal | None = None,
    ran: tuple[CachePolicy, Decimal, int] | None = None,
) -> tuple[TtlOption, ...]:
    """The run's cost with no caching and with each of ``ttls`` (Anthropic's explicit caching), for
    the same pacing and the same ``max_budget_usd`` stop (``subagents`` and ``budget_left`` as
    :func:`run_accountant` takes them), in that order. A policy whose mode is ``none`` is compared
    with ``conversation`` caching, what agents usually do. ``ran``: a run already made with the same
    counts, pricer and stops (its policy, cost and cache expiries); an option of that very policy
    takes its figures instead of running the accountant again."""
    stops = _Stops(max_rounds, gaps, max_budget_usd, subagents, budget_left)
    mode: CachingMode = policy.mode if policy.mode in ("prefix", "conversation") else "conversation"
    options = [TtlOption("none", *_cost(counts, pricer, NO_CACHE, stops))]
    for ttl in ttls:
        variant = replace(
            policy, mode=mode, style="explicit", ttl=ttl, ttl_seconds=TTL_SECONDS[ttl], prefix_ttl=None
        )
        if ran is not None and variant == ran[0]:  # the run's own ledger: the same run, made already
            options.append(TtlOption(ttl, ran[1], ran[2]))
            continue
        options.append(TtlOption(ttl, *_cost(counts, pricer, variant, stops)))
    if policy.ttl_label not in TTL_SECONDS:  # the policy's own two TTLs (explicit style only)
        own = replace(policy, mode=mode)
        options.append(TtlOption(policy.ttl_label, *_cost(counts, pricer, own, stops)))
    return tuple(options)


def cheapest(options: Sequence[TtlOption]) -> TtlOption:
    """The cheapest option; on a tie the first (no caching before 5m before 1h)."""
    return min(options, key=lambda option: option.cost_usd)


@record
class _Stops:
    """The stops and subagents of :func:`run_accountant` that every TTL option shares."""

    max_rounds: int | None
    gaps: Sequence[Decimal]
    max_budget_usd: Decimal | None
    subagents: Mapping[int, Sequence[tuple[int, SubagentRun]]] | None
    budget_left: Decimal | None


def _cost(counts: TokenCounts, pricer: Pricer, policy: CachePolicy, stops: _Stops) -> tuple[Decimal, int]:
    totals = run_accountant(
        counts,
        pricer,
        policy,
        max_rounds=stops.max_rounds,
        gaps=stops.gaps,
        max_budget_usd=stops.max_budget_usd,
        subagents=stops.subagents,
        budget_left=stops.budget_left,
        keep_rows=False,
    ).totals
    return totals.cost_usd, totals.cache_expiries
