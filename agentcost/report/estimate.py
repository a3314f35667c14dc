"""The report of an estimate (:class:`Report`): every figure a renderer shows, derived once by
:func:`agentcost.report.build.build_report`. Renderers do no arithmetic.

One report, many renderers (the Infracost model): ``table.render_table``, ``jsonfmt.render_json``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field
from decimal import ROUND_HALF_UP, Decimal

from agentcost.infra.record import record

# the context effects a Report carries, re-exported as the renderers' names for them
from agentcost.loop.carry import Carry as Carry
from agentcost.loop.context import ContextEditingEffect as ContextEditingEffect
from agentcost.loop.context import ToolSearchEffect as ToolSearchEffect
from agentcost.loop.estimate import DynamicsEffect
from agentcost.prices.daytime import OffPeak as OffPeak
from agentcost.prices.genai import PRICE_SOURCE_NAME
from agentcost.report.outcome import OutcomeLine
from agentcost.report.split import CostParts

REPORT_VERSION = 1


@record
class RequestLine:
    """One request of the report's ledger: its tokens and dollars by kind."""

    index: int
    kind: str  # "tool_use" | "reply" (a chat turn's plain-text answer) | "final"
    tools: tuple[str, ...]
    input_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    output_tokens: int
    cost_usd: Decimal
    running_usd: Decimal
    continuation: bool = False  # an Anthropic pause_turn continuation of the request before
    cache_expired: bool = False  # the cache entries this request would have read had expired
    tier: str | None = None  # the long-context price tier the request crossed, e.g. ">200k"
    subagents: tuple[SubagentLine, ...] = ()  # subagents this response's calls started
    failed: bool = False  # a failed attempt (retries): an invalid call answered by an error result
    model: str | None = None  # routing: the model this request ran on, when not the scenario's
    parts: CostParts | None = None  # cost_usd split by kind (report.split): what the charts draw

    @property
    def uncached_input_tokens(self) -> int:
        """Input not read from cache (cache writes included)."""
        return self.input_tokens - self.cache_read_tokens

    @property
    def total_tokens(self) -> int:
        """Input and output tokens of the request."""
        return self.input_tokens + self.output_tokens

    @property
    def label(self) -> str:
        expired = " (cache expired)" if self.cache_expired else ""
        if self.kind == "final":
            return "final answer" + expired
        names = ("reply", *self.tools) if self.kind == "reply" else self.tools  # + its server tools
        failed = " (failed, retried)" if self.failed else ""
        routed = f" [{self.model}]" if self.model else ""
        return ", ".join(names) + (" (continued)" if self.continuation else "") + failed + routed + expired


@record
class Totals:
    """The report's totals: tokens of each kind and exact dollars, split by what they paid for."""

    requests: int
    input_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    output_tokens: int
    input_usd: Decimal
    output_usd: Decimal
    cost_usd: Decimal
    cached_share: Decimal | None  # cache reads / all input tokens; None when there is no input
    fees_usd: Decimal = Decimal(0)  # server-tool fees (web search, code execution), part of cost_usd
    storage_usd: Decimal = Decimal(0)  # Gemini explicit-cache storage, part of cost_usd
    cache_creation_usd: Decimal = Decimal(0)  # Gemini explicit-cache creation, part of cost_usd
    cache_expiries: int = 0  # requests that found the cache expired (a pause longer than the TTL)
    subagents_usd: Decimal = Decimal(0)  # what subagents cost, part of cost_usd (and of the other sums)
    subagent_requests: int = 0  # requests made by subagents, part of requests
    container_seconds: Decimal | None = None  # code-execution container time billed (None: none ran)
    container_usd: Decimal | None = Decimal(0)  # its price, part of fees_usd (None: a rate is unknown)

    @property
    def explicit_cache_usd(self) -> Decimal:
        """Gemini explicit-cache creation and storage, part of cost_usd."""
        return self.cache_creation_usd + self.storage_usd


@record
class TtlChoice:
    """The run's cost with one cache lifetime: ``none`` (no caching), ``5m`` or ``1h``."""

    ttl: str
    cost_usd: Decimal
    extra_usd: Decimal  # over the cheapest choice (0 for the cheapest)
    cache_expiries: int


@record
class CacheStorageLine:
    """A Gemini explicit cache: created ``creations`` times at the input price, stored ``hours``."""

    tokens: int
    creations: int
    hours: Decimal
    usd_per_mtok_hour: Decimal
    creation_usd: Decimal
    storage_usd: Decimal

    @property
    def total_usd(self) -> Decimal:
        """Creation and storage."""
        return self.creation_usd + self.storage_usd


@record
class Overrun:
    """How often the budget is overrun: ``over`` of ``runs`` simulated runs (seed ``seed``) drawing the
    scenario's distributions (:func:`agentcost.loop.simulate.simulate`, as ``--simulate RUNS --seed
    SEED`` counts them)."""

    runs: int
    seed: int
    over: int

    @property
    def share(self) -> Decimal:
        """``over / runs``, rounded half up to 4 places (as ``--simulate``'s ``overrun_probability``)."""
        return (Decimal(self.over) / self.runs).quantize(Decimal("0.0001"), rounding=ROUND_HALF_UP)


@record
class Judged:
    """``estimate --simulate N --at STAT``: the budget judged at a statistic of the simulated runs
    (``p99``: the cost ``stat_usd`` that 99% of ``runs`` runs stay within), not at the medians."""

    stat: str  # p99, p90, mean, max (agentcost.loop.simulate.parse_at's labels)
    stat_usd: Decimal
    runs: int


@record
class BudgetLine:
    """The budget check: the limit, where it was set and the headroom (negative when over)."""

    limit_usd: Decimal
    source: str
    over: bool
    headroom_usd: Decimal  # limit - total; negative when over
    overrun: Overrun | None = None  # a scenario with distributions: the quick simulation's share over
    per: str = "run"  # "task": checked against the expected cost per completed task (--per task)
    judged: Judged | None = None  # --simulate --at: over and headroom are of that statistic

    @property
    def over_by_usd(self) -> Decimal:
        """How far the cost judged is over the limit: ``-headroom_usd`` (> 0 when over)."""
        return -self.headroom_usd

    @property
    def judged_usd(self) -> Decimal:
        """The cost the verdict reads: the limit less the headroom (the ``--at`` statistic when judged)."""
        return self.limit_usd - self.headroom_usd


def unit_cost(report: Report, per: str) -> Decimal:
    """What a report's scenario costs per run (``per="run"``) or per completed task (``"task"``: the
    expected cost per completed task where the scenario has an ``outcome``, else per run)."""
    if per == "task" and report.outcome is not None:
        return report.outcome.cost_per_completed_usd
    return report.totals.cost_usd


@record
class SubagentLine:
    """A subagent started by a call, folded under the request whose response made the call.
    ``requests`` and ``cost_usd`` include its own subagents (``report.totals``)."""

    round: int  # 0-based round index in the parent's unrolled rounds
    call: int  # 0-based call index in that round's response
    label: str  # the file as the parent names it (e.g. "researcher.yaml"), or "inline"
    path: str
    inline: bool
    model_id: str
    requests: int
    cost_usd: Decimal
    report: Report

    @property
    def text(self) -> str:
        """``subagent researcher.yaml (claude-haiku-4-5): 6 requests``"""
        s = "" if self.requests == 1 else "s"
        return f"subagent {self.label} ({self.model_id}): {self.requests} request{s}"


@record
class Report:
    """The report of one estimate: every figure a renderer shows, derived once (the module's docstring)."""

    version: int
    scenario_path: str
    scenario_name: str | None
    model_line: int | None  # the scenario's model: line (None when --model chose the model)
    budget_line: int | None  # the scenario's limits.budget_usd line (None when --budget set it)
    model: str
    model_id: str
    model_name: str
    provider: str
    price_source: str  # "genai-prices", or a --prices file as given
    price_version: str  # genai-prices' version, or the user price entry's source text
    as_of: str  # ISO 8601, UTC
    pricing_urls: tuple[str, ...]
    rates: dict[str, Decimal | None]  # per MTok: input, output, cache_read, cache_write, cache_write_1h
    caching_mode: str
    caching_is_default: bool
    cache_ttl: str
    cache_min_tokens: int
    encoding: str
    approximate: bool
    count_method: str
    count_notes: tuple[str, ...]
    requests: tuple[RequestLine, ...]
    totals: Totals
    budget: BudgetLine | None
    truncated: bool
    rounds_planned: int
    rounds_run: int
    context_window: int | None
    max_input_tokens: int
    warnings: tuple[str, ...]
    price_label: str = ""  # one line: "genai-prices 0.2.3 (current on 2026-11-30)", "prices.yaml (...)"
    price_data_date: str | None = None  # ISO date the price data is last known current (genai-prices)
    service_tier: str = "standard"
    tier_thresholds: tuple[int, ...] = ()  # input tokens above which a request is repriced whole
    ttl_comparison: tuple[TtlChoice, ...] = ()  # none / 5m / 1h for the scenario's pacing (Anthropic)
    cache_storage: CacheStorageLine | None = None  # Gemini explicit cache (caching: explicit)
    context_editing: ContextEditingEffect | None = None  # clearing old tool results, vs not clearing
    tool_search: ToolSearchEffect | None = None  # deferred tools, vs every tool loaded up front
    agent_dynamics: DynamicsEffect | None = None  # parallel calls and routing, vs their baselines
    failed_requests: int = 0  # failed attempts (retries), this run's own
    failed_usd: Decimal = Decimal(0)  # what they cost
    failed_share: Decimal | None = None  # failed_usd / this run's cost (subagents excluded)
    budget_stop: int | None = None  # limits.max_budget_usd stopped the run after this request
    uncertain: bool = False  # the scenario has distributions: every figure is at their medians
    paced: bool = False  # the scenario says how long rounds take (pacing, seconds): caches may expire
    price_day: str = ""  # YYYY-MM-DD of as_of: the day whose prices are in force
    price_provider: str = ""  # the genai-prices provider whose row prices the model (azure/gpt-4o: openai)
    host: str | None = None  # the host rule that resolved the id (bedrock, azure, vertex...); None: none
    count_family: str = ""  # the model's counting family (tokens.rules.family_of): openai, claude, ...
    family_method: str = ""  # the family's counting method in one line, e.g. "o200k_base × 1.044 (...)"
    family_source: str = ""  # where the family's method comes from (a public page, or a measurement)
    count_api: tuple[str, str] | None = None  # --count api: (counted by the endpoint, not counted by it)
    count_summary: str = ""  # why counts are approximate, short: "DeepSeek counted as o200k_base × 1.040"
    caching_kind: str = "unknown"  # how the host caches prompts (facts.yaml caching_kind)
    caching_note: str | None = None  # caching not (fully) modelled on this host, in one line
    cache_min_published: bool = True  # the host publishes its minimum cacheable length
    time_windows: tuple[tuple[str, str], ...] = ()  # daily UTC windows priced differently (DeepSeek)
    in_time_window: bool | None = None  # as_of's time falls in one of them; None: no windows, or a date alone
    off_peak: tuple[OffPeak, ...] = ()  # the windows cheaper than the standard rates, and by how much
    at_time: bool = True  # the price date's time picked the rates; False: a date alone, standard rates
    provider_name: str = ""  # the provider's display name ("DeepSeek"), where off_peak says it
    outcome: OutcomeLine | None = None  # the scenario's outcome: cost per completed task
    show_all: bool = False  # --all: the table shows every request (agentcost.report.ledger)
    warnings_apart: bool = False  # the CLI prints the warnings on stderr: the table leaves them out
    carry: Carry | None = field(default=None, compare=False, repr=False)  # carry cost (loop.carry)

    @property
    def over_budget(self) -> bool:
        return self.budget is not None and self.budget.over

    @property
    def gate_usd(self) -> Decimal:
        """The figure the budget gate reads, what ``--quiet`` prints: the total per run; the expected
        cost per completed task with ``--per task`` and a budget; the ``--at`` statistic of the
        simulated runs when ``--simulate --at`` judged the budget (:class:`Judged`)."""
        return self.totals.cost_usd if self.budget is None else self.budget.judged_usd

    @property
    def exact(self) -> bool:
        """Token counts are exact (the model's own tokenizer and framing), not approximate."""
        return not self.approximate

    @property
    def price_name(self) -> str:
        """The price source without dates: ``genai-prices 0.2.3``, or a price file's label."""
        if self.price_source == PRICE_SOURCE_NAME:
            return f"{self.price_source} {self.price_version}"
        return self.price_label or f"{self.price_source} ({self.price_version})"


def joined_price_label(reports: Sequence[Report], *, dated: bool = True) -> str:
    """Where the prices of several reports come from, in one line: the sources' labels (a user
    price file's followed by the models it priced) and the service tier when it is not standard::

        genai-prices 0.2.3 (current on 2026-11-30); prices.yaml (self-hosted) for acme; batch service tier

    ``dated=False`` leaves out the date the price data is current on (the line people read carries
    one date, the day whose prices are in force; JSON keeps both)."""
    sources: dict[str, list[str]] = {}
    user: set[str] = set()
    for r in reports:
        label = (r.price_label or f"{r.price_source} {r.price_version}") if dated else r.price_name
        ids = sources.setdefault(label, [])
        if r.model_id not in ids:
            ids.append(r.model_id)
        if r.price_source != PRICE_SOURCE_NAME:
            user.add(label)
    ordered = sorted(sources.items(), key=lambda item: item[0] in user)  # genai-prices first
    parts = [
        f"{label} for {', '.join(ids)}" if label in user and len(sources) > 1 else label
        for label, ids in ordered
    ]
    tiers: dict[str, list[str]] = {}
    for r in reports:
        names = tiers.setdefault(r.service_tier, [])
        if r.model_id not in names:
            names.append(r.model_id)
    if len(tiers) == 1 and "standard" not in tiers:
        parts.append(f"{next(iter(tiers))} service tier")
    elif len(tiers) > 1:
        parts.append("service tiers: " + "; ".join(f"{t} for {', '.join(ids)}" for t, ids in tiers.items()))
    return "; ".join(parts)


def cheapest_ttl(report: Report) -> TtlChoice | None:
    """The cheapest of the TTL choices (on a tie the first: no caching, then 5m, then 1h)."""
    for choice in report.ttl_comparison:
        if choice.extra_usd == 0:
            return choice
    return None


def all_subagents(report: Report) -> list[SubagentLine]:
    """Every subagent of a report, nested ones included, depth first."""
    out: list[SubagentLine] = []
    for r in report.requests:
        for sub in r.subagents:
            out.append(sub)
            out.extend(all_subagents(sub.report))
    return out
