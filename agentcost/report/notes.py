"""The lines under an estimate's table: essential ones (shown by default), details (``-v``), warnings.

:func:`estimate_notes` derives them once from a :class:`~agentcost.report.estimate.Report`, in the order
``--verbose`` prints them; the default output keeps the essential ones (the total, the budget, the
price source, the caveats that change what the number means (:func:`caveats`, always) and at most
:data:`MAX_SHORT_NOTES` other short notes) and the warnings. Every renderer (table, Markdown, JSON
``notes``) shows the same split. Money is written
with :func:`agentcost.report.fmt.usd` at its default places; names from input files are in the text
as written (renderers pass each line through :mod:`agentcost.infra.text`).
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Literal, get_args

from agentcost.infra.record import record
from agentcost.loop.context import ContextEditingEffect, ToolSearchEffect
from agentcost.report import fmt
from agentcost.report.estimate import BudgetLine, OffPeak, Overrun, Report, all_subagents, cheapest_ttl
from agentcost.report.outcome import OutcomeLine

Level = Literal["essential", "detail", "warning"]
LEVELS: tuple[Level, ...] = ("essential", "detail", "warning")
NoteKind = Literal[
    "total",  # essential: the total, requests and cache share
    "cost_parts",  # the total split into input, output, fees and explicit cache
    "subagents",
    "budget",  # essential when a budget is set
    "prices",  # essential: the price source and the day whose prices are in force
    "price_data",  # the date the price data is last known current, and the pricing pages
    "model",  # the model's rates
    "caching",
    "cache_storage",
    "cache_expiry",
    "cheapest_ttl",
    "parallel",
    "retries",
    "routing",
    "context_editing",
    "tool_search",
    "count_method",
    "count_note",
    "outcome",  # short notes (essential, at most MAX_SHORT_NOTES, best first): cost per completed task
    "distributions",
    "overrun",
    "approximate",
    "caching_unmodelled",  # the host's caching is not (fully) modelled: costs are a bound
    "time_of_day",  # the price date's time of day picks the model's prices (DeepSeek's peak hours)
    "pacing",
    "warning",
]
KINDS: tuple[NoteKind, ...] = get_args(NoteKind)
MAX_SHORT_NOTES = 3
"""Short notes shown by default under the total, the budget and the price source (warnings among them)."""


@record
class Note:
    """One short note under a table: its level, its kind and its text."""

    level: Level
    kind: NoteKind
    text: str


def estimate_notes(report: Report) -> tuple[Note, ...]:
    """Every line under the estimate's table, in the order ``--verbose`` prints them."""
    notes: list[Note] = []

    def add(level: Level, kind: NoteKind, text: str) -> None:
        notes.append(Note(level, kind, text))

    add("essential", "total", total_line(report))
    add("detail", "cost_parts", _cost_parts(report))
    if report.totals.subagent_requests:
        add("detail", "subagents", _subagents_line(report))
    if report.budget is not None:
        add("essential", "budget", budget_line(report))
    add("essential", "prices", prices_line(report))
    data = _price_data_line(report)
    if data is not None:
        add("detail", "price_data", data)
    add("detail", "model", _model_line(report))
    add("detail", "caching", _caching_line(report))
    for kind, text in _cache_lines(report):
        add("detail", kind, text)
    for kind, text in dynamics_lines(report):
        add("detail", kind, text)
    accuracy = "approximate, marked *" if report.approximate else "exact tokenizer"
    add("detail", "count_method", f"Token counts ({accuracy}): {report.count_method}.")
    for n in report.count_notes:
        add("detail", "count_note", f"Note: {n}")
    for kind, text in _caveats(report):
        add("essential", kind, text)
    for i, (kind, text) in enumerate(_short_notes(report)):
        add("essential" if i < MAX_SHORT_NOTES else "detail", kind, text)
    for w in report.warnings:
        add("warning", "warning", w)
    if report.totals.container_seconds is not None and report.totals.container_usd is None:
        add("warning", "warning", CONTAINER_UNKNOWN)
    return tuple(notes)


CONTAINER_UNKNOWN = (
    "container time: unknown. Code runs in a container, and no price by time is known for this "
    "provider: the total leaves it out."
)


# --- essential lines ----------------------------------------------------------------------------------


def total_line(report: Report) -> str:
    """``Total $0.0312 per run: 9 requests, 83.6% of input tokens read from cache.``"""
    t = report.totals
    requests = f"{t.requests:,} request{'' if t.requests == 1 else 's'}"
    if t.subagent_requests:
        requests += f" ({t.subagent_requests:,} by subagents)"
    cached = (
        "" if t.cached_share is None else f", {fmt.percent(t.cached_share)} of input tokens read from cache"
    )
    return f"Total {fmt.usd(t.cost_usd)} per run: {requests}{cached}."


def budget_line(report: Report) -> str:
    """``Budget $0.1000 (limits.budget_usd): within budget, headroom $0.0688.`` (empty: no budget);
    ``Budget $0.5000 (--budget): over budget at p99 by $0.0943 (p99 of 5,000 simulated runs:
    $0.5943).`` when ``--simulate --at p99`` judged it (the verdict the exit code carries)."""
    b = report.budget
    if b is None:
        return ""
    unit = " per completed task" if b.per == "task" else ""
    j = b.judged
    figure = "" if j is None else f" ({j.stat} of {j.runs:,} simulated runs: {fmt.usd(j.stat_usd)})"
    return f"Budget {fmt.usd(b.limit_usd)}{unit} ({b.source}): {budget_verdict(b)}{figure}."


OVER_BUDGET = "over budget"
"""The words of a verdict over budget, the ones renderers emphasise (bold red, Markdown bold)."""


def budget_verdict(b: BudgetLine) -> str:
    """The one wording of a budget's verdict, everywhere (estimate, project, simulate, Markdown):
    ``within budget, headroom $0.0688`` or ``over budget by $0.0220``, never a negative headroom;
    ``over budget at p99 by $0.0943`` when judged at a statistic of simulated runs (``--at``)."""
    at = "" if b.judged is None else f" at {b.judged.stat}"
    if b.over:
        return f"{OVER_BUDGET}{at} by {fmt.usd(b.over_by_usd)}"
    return f"within budget{at}, headroom {fmt.usd(b.headroom_usd)}"


def prices_line(report: Report) -> str:
    """``Prices: genai-prices 0.2.3, in force on 2026-12-01. Counter: o200k_base × ratio.``: the source
    and one date, the day whose prices apply (the date the data is current on is a detail:
    :func:`_price_data_line`), then the counter the tokens were counted with (issue 29: figures from
    different counters differ, so every report names its own)."""
    tier = f", {report.service_tier} service tier" if report.service_tier != "standard" else ""
    return f"Prices: {price_name(report)}{tier}, in force on {report.price_day}. Counter: {report.encoding}."


def price_name(report: Report) -> str:
    """The price source without dates (:attr:`Report.price_name`)."""
    return report.price_name


def caveats(report: Report) -> tuple[str, ...]:
    """The notes without which the total reads as something it is not, shown by every report of the
    estimate (``estimate`` with or without ``--simulate``, ``compare``, a project): a bound rather
    than an estimate (caching not modelled), and prices picked by the time of day."""
    return tuple(text for _, text in _caveats(report))


def labelled_caveats(reports: Sequence[tuple[str, Report]]) -> tuple[str, ...]:
    """The :func:`caveats` of several estimates, each once as ``labels: note`` (the model ids in
    ``compare``, the scenarios of a project that it applies to, comma-separated)."""
    labels: dict[str, list[str]] = {}
    for label, report in reports:
        for text in caveats(report):
            labels.setdefault(text, []).append(label)
    return tuple(f"{', '.join(dict.fromkeys(names))}: {text}" for text, names in labels.items())


def _caveats(report: Report) -> list[tuple[NoteKind, str]]:
    out: list[tuple[NoteKind, str]] = []
    if report.caching_note is not None:
        out.append(("caching_unmodelled", report.caching_note))
    window = time_of_day_line(report)
    if window is not None:
        out.append(("time_of_day", window))
    return out


def _short_notes(report: Report) -> list[tuple[NoteKind, str]]:
    """What else changes the meaning of the number, best first: distributions at their medians and
    the chance of overrunning the budget, approximate counts, the pacing assumed for caching."""
    out: list[tuple[NoteKind, str]] = []
    if report.outcome is not None:
        out.append(("outcome", outcome_text(report.outcome)))
    if report.uncertain:
        out.append(
            ("distributions", "Cost at the medians of its distributions; --simulate N for percentiles.")
        )
        o = None if report.budget is None else report.budget.overrun
        if o is not None:
            out.append(("overrun", _overrun_text(o)))
    if report.approximate:
        out.append(("approximate", f"Token counts marked * are approximate: {_why_approximate(report)}."))
    if report.caching_mode != "none" and not report.paced:
        out.append(("pacing", "No pacing set: requests run back to back, so the cache never expires."))
    return out


def outcome_text(o: OutcomeLine) -> str:
    """``Per completed task: $0.0446 at 70% success (retry up to 3 attempts).``"""
    usd = fmt.usd(o.cost_per_completed_usd)
    dist = "" if o.success_dist is None else f"median of {o.success_dist}; "
    return f"Per completed task: {usd} at {_share(o.success)} success ({dist}{o.policy_text})."


def _share(p: Decimal) -> str:
    """A success probability as a percentage, with no more decimals than it has: ``70%``, ``99.5%``."""
    return f"{fmt.exact(p * 100)}%"


def _overrun_text(o: Overrun) -> str:
    """``P(over budget) ≈ 2.9% (1,000 simulated runs).``; none or all of the runs said as such."""
    if o.over == 0:
        return f"P(over budget) ≈ 0: none of {o.runs:,} simulated runs goes over."
    if o.over == o.runs:
        return f"P(over budget) ≈ 1: all {o.runs:,} simulated runs go over."
    return f"P(over budget) ≈ {fmt.percent(o.share)} ({o.runs:,} simulated runs)."


def _why_approximate(report: Report) -> str:
    family = report.count_family
    if family == "claude" or report.model_id.startswith("claude-") or report.provider == "anthropic":
        return "Claude's tokenizer is not public"
    if family == "gemini" or report.model_id.startswith(("gemini-", "gemma-")) or report.provider == "google":
        return "Gemini's tokenizer is not available offline"
    if report.count_summary:
        return report.count_summary
    return f"counted with {report.encoding}"


def time_of_day_line(report: Report) -> str | None:
    """``DeepSeek prices follow the time of day: standard rates used; off-peak 16:30-00:30 UTC is 50%
    off — give --as-of with a time to price it. Source: genai-prices ...``; None when the model's
    prices do not follow the time of day."""
    return time_of_day_text(
        report.provider_name or report.provider,
        report.off_peak,
        report.as_of[11:16] if report.at_time else None,
        (report.price_label or report.price_name, *report.pricing_urls),
    )


def time_of_day_text(
    provider: str, off_peak: tuple[OffPeak, ...], when: str | None, source: tuple[str, ...]
) -> str | None:
    """The time-of-day note of a model (:func:`time_of_day_line`; ``agentcost prices`` too), priced at
    ``when`` ("HH:MM" UTC; None: a date alone, at the standard rates); ``source``: the price data
    and the provider's pricing pages. None without off-peak windows."""
    if not off_peak:
        return None
    windows = " and ".join(f"{o.start}-{o.end}" for o in off_peak)
    lows = {fmt.percent(o.discount_min, places=0) for o in off_peak}
    highs = {fmt.percent(o.discount_max, places=0) for o in off_peak}
    off = min(lows) if lows == highs and len(lows) == 1 else f"{min(lows)} to {max(highs)}"
    if when is None:
        how = (
            f"standard rates used; off-peak {windows} UTC is {off} off — give --as-of with a time to price it"
        )
    elif any(_within(o, when) for o in off_peak):
        how = f"priced at {when} UTC, in the off-peak window {windows} UTC ({off} off the standard rates)"
    else:
        how = f"priced at {when} UTC, standard rates; off-peak {windows} UTC is {off} off"
    return f"{provider} prices follow the time of day: {how}. Source: {', '.join(source)}."


def _within(o: OffPeak, when: str) -> bool:
    """``when`` ("HH:MM") falls in the window (end excluded; an end before its start runs past midnight)."""
    if o.start <= o.end:
        return o.start <= when < o.end
    return when >= o.start or when < o.end


# --- details ------------------------------------------------------------------------------------------


def _cost_parts(report: Report) -> str:
    t = report.totals
    parts = [f"input {fmt.usd(t.input_usd)}", f"output {fmt.usd(t.output_usd)}"]
    if t.fees_usd or t.container_seconds is not None:
        fees = f"server-tool fees {fmt.usd(t.fees_usd)}"
        if t.container_seconds is not None:  # code-execution container time, part of the fees
            fees += f" (container time: {'unknown' if t.container_usd is None else fmt.usd(t.container_usd)})"
        parts.append(fees)
    if report.cache_storage is not None:
        parts.append(f"explicit cache {fmt.usd(t.explicit_cache_usd)}")
    return f"Total {fmt.usd(t.cost_usd)} = {' + '.join(parts)}."


def _subagents_line(report: Report) -> str:
    """How much of the total the subagents are, and on which models."""
    t, subs = report.totals, all_subagents(report)
    models = ", ".join(dict.fromkeys(s.model_id for s in subs))
    runs = "run" if len(subs) == 1 else "runs"
    return (
        f"Subagents: {len(subs)} {runs} ({models}), {t.subagent_requests} of the {t.requests} requests,"
        f" {fmt.usd(t.subagents_usd)} of the total; each billed on its own model, only its final"
        " answer returned as the call's result."
    )


def _price_data_line(report: Report) -> str | None:
    parts = []
    if report.price_data_date is not None:
        parts.append(f"{price_name(report)}, last known current on {report.price_data_date}")
    if report.pricing_urls:
        parts.append("pricing pages: " + ", ".join(report.pricing_urls))
    return "Price data: " + "; ".join(parts) + "." if parts else None


def _model_line(report: Report) -> str:
    names = {
        "input": "input",
        "output": "output",
        "cache_read": "cache read",
        "cache_write": "cache write",
        "cache_write_1h": "1h cache write",
    }
    rates = ", ".join(
        f"{label} {fmt.rate(report.rates[key])}"
        for key, label in names.items()
        if report.rates[key] is not None
    )
    return f"Model: {report.model_name} [{report.model_id}], provider {report.provider}; {rates}."


def _caching_line(report: Report) -> str:
    default = " (provider default)" if report.caching_is_default else ""
    ttl = (
        f", TTL {report.cache_ttl}"
        if (report.caching_kind == "explicit" and report.caching_mode != "none")
        or report.caching_mode == "explicit"
        or (report.cache_ttl == "1h" and report.caching_mode != "none")  # automatic 1-hour writes (Kimi K3)
        else ""
    )
    if not report.cache_min_published:
        where = f"{report.provider} publishes no minimum cacheable length"
        return f"Caching: {report.caching_mode}{default}{ttl}; {where}."
    return (
        f"Caching: {report.caching_mode}{default}{ttl}; prefixes under"
        f" {report.cache_min_tokens:,} tokens are not cached."
    )


def _cache_lines(report: Report) -> list[tuple[NoteKind, str]]:
    """Explicit-cache storage, cache expiry under the scenario's pacing, and the cheapest TTL."""
    lines: list[tuple[NoteKind, str]] = []
    t, s = report.totals, report.cache_storage
    if s is not None:
        times = "once" if s.creations == 1 else f"{s.creations} times"
        lines.append(
            (
                "cache_storage",
                f"Explicit cache: {s.tokens:,} tokens created {times} at the input price"
                f" ({fmt.usd(s.creation_usd)}) and stored {fmt.exact(s.hours)} h"
                f" x ${fmt.exact(s.usd_per_mtok_hour)}/MTok/hour ({fmt.usd(s.storage_usd)});"
                " reads do not extend its TTL.",
            )
        )
    if t.cache_expiries:
        requests = "request" if t.cache_expiries == 1 else "requests"
        again = (
            "the explicit cache was created again"
            if s is not None
            else "each read nothing and wrote its prefix again"
        )
        lines.append(
            ("cache_expiry", f"Cache expired before {t.cache_expiries} {requests} (past the TTL): {again}.")
        )
    best = cheapest_ttl(report)
    if best is not None:
        names = {"none": "no caching", "5m": "5m TTL", "1h": "1h TTL"}
        others = ", ".join(
            f"{names.get(c.ttl, c.ttl)} {fmt.usd(c.cost_usd)} (+{fmt.usd(c.extra_usd)})"
            for c in report.ttl_comparison
            if c is not best
        )
        lines.append(
            (
                "cheapest_ttl",
                f"Cheapest for this pacing: {names.get(best.ttl, best.ttl)} at {fmt.usd(best.cost_usd)};"
                f" {others}.",
            )
        )
    return lines


# --- agent dynamics, context editing, deferred tools ----------------------------------------------------


def _versus(saving: Decimal, baseline: Decimal, what: str) -> str:
    if saving >= 0:
        return f"saves {fmt.usd(saving)} against {what} ({fmt.usd(baseline)})"
    return f"costs {fmt.usd(abs(saving))} more than {what} ({fmt.usd(baseline)})"


def editing_line(e: ContextEditingEffect) -> str:
    if not e.edits:
        return (
            "Context editing: never triggered, no tool result cleared"
            f" ({fmt.usd(e.cost_usd)}, the same as without editing)."
        )
    results = "result" if e.results_cleared == 1 else "results"
    requests = "request" if e.edits == 1 else "requests"
    return (
        f"Context editing: cleared {e.results_cleared} tool {results} ({e.tokens_cleared:,} tokens)"
        f" before {e.edits} {requests}; the cache is written again after each edit point;"
        f" {_versus(e.saving_usd, e.baseline_usd, 'no editing')}."
    )


def tool_search_line(t: ToolSearchEffect) -> str:
    tools = "tool" if len(t.deferred) == 1 else "tools"
    loaded = (
        f"{len(t.loaded)} loaded by {t.searches} tool-search request{'' if t.searches == 1 else 's'}"
        f" ({', '.join(t.loaded)})"
        if t.loaded
        else "none loaded"
    )
    return (
        f"Deferred tools: {len(t.deferred)} {tools} cost {t.prefix_tokens:,} prefix tokens"
        f" (stubs + the tool-search tool) instead of {t.definitions_tokens:,}; {loaded};"
        f" {_versus(t.saving_usd, t.baseline_usd, 'loading every tool up front')}."
    )


def agent_lines(report: Report) -> list[str]:
    """Parallel calls vs one call per round, failed attempts' share, routing vs one model."""
    return [text for _, text in _agent_notes(report)]


def _agent_notes(report: Report) -> list[tuple[NoteKind, str]]:
    """(kind, line) of :func:`agent_lines`."""
    lines: list[tuple[NoteKind, str]] = []
    d = report.agent_dynamics
    saving = None if d is None else d.parallel_saving_usd
    if d is not None and d.sequential_usd is not None and saving is not None:
        versus = _versus(saving, d.sequential_usd, "the same calls made one per round")
        lines.append(("parallel", f"Parallel calls: {versus}."))
    if report.failed_requests:
        attempts = "attempt" if report.failed_requests == 1 else "attempts"
        lines.append(
            (
                "retries",
                f"Retries: {report.failed_requests} failed {attempts} (invalid call + error result) cost"
                f" {fmt.usd(report.failed_usd)}, {fmt.percent(report.failed_share)} of this run's cost.",
            )
        )
    if d is not None and d.baselines:
        shown = ", ".join(f"all on {model} {fmt.usd(usd)}" for model, usd in d.baselines)
        lines.append(
            (
                "routing",
                f"Routing: {fmt.usd(d.cost_usd)} routed; {shown} (a model switch writes the cache again).",
            )
        )
    return lines


def dynamics_lines(report: Report) -> list[tuple[NoteKind, str]]:
    """(kind, line) of agent dynamics (parallel calls, retries, routing), then context editing and
    deferred tools; none when nothing of that is used (a ``max_budget_usd`` stop is a warning)."""
    lines = _agent_notes(report)
    if report.context_editing is not None:
        lines.append(("context_editing", editing_line(report.context_editing)))
    if report.tool_search is not None:
        lines.append(("tool_search", tool_search_line(report.tool_search)))
    return lines
