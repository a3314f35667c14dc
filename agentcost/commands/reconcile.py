"""``agentcost reconcile``: providers' usage and cost exports against what agentcost says that usage costs.

The exports are read by :mod:`agentcost.commands.reconcile_read` (the four documented formats and
their references, read 2026-12-02).

Each model's tokens of a day are priced by agentcost (:func:`agentcost.prices.lookup.resolve_model`
at that day, 00:00 UTC, at the row's service tier, and :func:`agentcost.loop.caching.pricer_for`),
at the rates of a request under any long-context tier: an export gives no request sizes. Rows
agentcost cannot price (an unknown model, a tier the model does not offer, long-context rows) stay
unknown, never $0. Where a cost export is given, a row that differs is checked against the usual
causes (1-hour cache writes billed at the 5-minute rate, batch or standard prices, server-tool fees),
and the first that accounts for the difference is named.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import field
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any, TypeVar

from agentcost.commands.reconcile_read import Export
from agentcost.errors import InputError
from agentcost.infra.record import record
from agentcost.report.fmt import usd
from agentcost.report.reconcile import Day, Reconciliation, Row

if TYPE_CHECKING:
    from agentcost.prices.pricing import ModelPrices

MATCH_TOLERANCE = Decimal("0.01")
"""An export's cost and agentcost's agree when they differ by less than one cent."""

MAX_ROWS = 20_000  # (provider, day, model, tier) rows of one reconciliation


# ---------------------------------------------------------------------------------------------
# Pricing and comparing
# ---------------------------------------------------------------------------------------------

_FIELDS = ("uncached_input", "cache_read", "cache_write_5m", "cache_write_1h", "output", "web_searches")


@record(frozen=False)
class _Sum:
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(_FIELDS, 0))
    long_context: bool = False
    tier_known: bool = True


Rates = dict[str, Decimal]
RateFinder = Callable[[str, str, date, str], Rates]


def unit_rates(provider: str, model: str, day: date, tier: str) -> Rates:
    """Dollars per token (per use for web searches) of ``model`` at ``tier`` on ``day``, from
    agentcost's own pricer: a one-token request of each kind priced by ``pricer_for``."""
    from agentcost.loop.caching import pricer_for
    from agentcost.prices.billing import is_search_preview
    from agentcost.prices.lookup import resolve_model
    from agentcost.tokens.request import RequestUsage

    when = datetime(day.year, day.month, day.day, tzinfo=UTC)
    try:
        prices = resolve_model(model, provider=provider, as_of=when, service_tier=tier)
    except InputError as e:
        prices = _batch_prices_from_later(e, provider, model, when, tier)
    price = pricer_for(prices)
    # an OpenAI search model's searches are web search preview calls (agentcost.prices.billing)
    search = (
        RequestUsage(0, 0, web_search_previews=1)
        if is_search_preview(model)
        else RequestUsage(0, 0, web_searches=1)
    )
    one = {
        "uncached_input": RequestUsage(1, 0),
        "cache_read": RequestUsage(1, 0, cache_read_tokens=1),
        "cache_write_5m": RequestUsage(1, 0, cache_write_tokens=1),
        "output": RequestUsage(0, 1),
        "web_searches": search,
    }
    rates = {name: price(usage).total_usd for name, usage in one.items()}
    if provider == "anthropic":
        rates["cache_write_1h"] = price(RequestUsage(1, 0, cache_write_1h_tokens=1)).total_usd
    return rates


BATCH_SOURCE = "https://platform.openai.com/docs/guides/batch"
"""OpenAI's Batch API: "a 50% cost discount compared to synchronous APIs" since its launch
(2024-04-15; read 2026-12-03 through public copies); pricing-facts.md §A: Batch = 50% of standard."""


def _batch_prices_from_later(
    error: InputError, provider: str, model: str, when: datetime, tier: str
) -> ModelPrices:
    """OpenAI batch prices for a day before genai-prices has them (its batch rows start 2026-10-14):
    the first batch prices genai-prices has, when the model's standard prices on that day are the
    ones in force then (batch is half the standard input and output, :data:`BATCH_SOURCE`); else the
    ``error``."""
    from agentcost.prices.lookup import resolve_model, tier_start

    if provider != "openai" or tier != "batch" or error.key != "service_tier":
        raise error
    starts = tier_start(model, provider, when, tier)
    if starts is None:
        raise error
    then = datetime(starts.year, starts.month, starts.day, tzinfo=UTC)
    before, after = (resolve_model(model, provider=provider, as_of=t) for t in (when, then))
    if _token_rates(before) != _token_rates(after):
        raise error
    return resolve_model(model, provider=provider, as_of=then, service_tier=tier)


def _token_rates(prices: ModelPrices) -> tuple[Decimal | None, ...]:
    return (prices.input_mtok, prices.output_mtok, prices.cache_read_mtok, prices.cache_write_mtok)


def _cost(counts: Mapping[str, int], rates: Rates) -> tuple[Decimal, Decimal]:
    """(tokens, fees) in dollars."""
    tokens = sum((counts[f] * rates.get(f, Decimal(0)) for f in _FIELDS if f != "web_searches"), Decimal(0))
    return tokens, counts["web_searches"] * rates["web_searches"]


def reconcile(exports: Sequence[Export], rates_of: RateFinder = unit_rates) -> Reconciliation:
    """Price every model's usage per day, and compare it with the cost exports' amounts."""
    sums: dict[tuple[str, date, str | None, str], _Sum] = {}
    for line in (u for e in exports for u in e.usage):
        s = sums.setdefault((line.provider, line.day, line.model, line.tier), _Sum())
        if len(sums) > MAX_ROWS:
            raise InputError(f"more than {MAX_ROWS:,} model rows", hint="reconcile a shorter period")
        for f in _FIELDS:
            s.counts[f] += getattr(line, f)
        s.long_context |= line.long_context
        s.tier_known &= line.tier_known
    model_costs: dict[tuple[str, date, str], Decimal] = {}
    day_costs: dict[tuple[str, date], Decimal] = {}
    unattributed: dict[tuple[str, date], Decimal] = {}
    cost_providers = {c.provider for e in exports for c in e.costs}
    for c in (c for e in exports for c in e.costs):
        day_costs[(c.provider, c.day)] = day_costs.get((c.provider, c.day), Decimal(0)) + c.usd
        if c.model is None:
            unattributed[(c.provider, c.day)] = unattributed.get((c.provider, c.day), Decimal(0)) + c.usd
        else:
            key = (c.provider, c.day, c.model)
            model_costs[key] = model_costs.get(key, Decimal(0)) + c.usd
    groups: dict[tuple[str, date, str | None], list[tuple[str, _Sum]]] = {}
    for (provider, day, model, tier), s in sorted(
        sums.items(), key=lambda kv: (kv[0][1], kv[0][0], str(kv[0][2]))
    ):
        groups.setdefault((provider, day, model), []).append((tier, s))
    rows = [_row(key, tiers, model_costs, cost_providers, _memo(rates_of)) for key, tiers in groups.items()]
    for provider, day, model in sorted(set(model_costs) - {(r.provider, r.day, r.model) for r in rows}):
        rows.append(_export_only(provider, day, model, model_costs[(provider, day, model)]))
    rows.sort(key=lambda r: (r.day, r.provider, r.model))
    all_days = sorted({(r.day, r.provider) for r in rows} | {(d, p) for p, d in day_costs})
    days = tuple(
        _day(
            p,
            d,
            [r for r in rows if (r.day, r.provider) == (d, p)],
            day_costs.get((p, d)),
            unattributed.get((p, d)),
        )
        for d, p in all_days
    )
    notes = [
        f"{e.path}: has_more is true: only this page was read; export the other pages too"
        for e in exports
        if e.more_pages
    ]
    notes += [n for e in exports for n in e.notes]
    notes += _provider_mismatch(exports)
    return Reconciliation(tuple((e.path, e.kind) for e in exports), tuple(rows), days, tuple(notes))


def _provider_mismatch(exports: Sequence[Export]) -> list[str]:
    """A note for each provider with costs and no usage export, or usage and no cost export, when the
    other provider has the missing kind: one provider's usage held against another's costs."""
    usage = {e.kind.split("-")[0] for e in exports if e.kind.endswith("-usage")}
    costs = {e.kind.split("-")[0] for e in exports if e.kind.endswith("-cost")}
    if not usage or not costs or usage & costs == usage | costs:
        return []
    return [
        f"provider mismatch: the usage export is {', '.join(sorted(usage))}'s and the cost export "
        f"{', '.join(sorted(costs))}'s: {', '.join(sorted(usage ^ costs))} is compared with nothing; give "
        "the usage and cost exports of the same provider"
    ]


def _memo(rates_of: RateFinder) -> RateFinder:
    """``rates_of``, each (provider, model, day, tier) looked up once, its error too."""
    seen: dict[tuple[str, str, date, str], Rates | InputError] = {}

    def once(provider: str, model: str, day: date, tier: str) -> Rates:
        key = (provider, model, day, tier)
        if key not in seen:
            try:
                seen[key] = rates_of(*key)
            except InputError as e:
                seen[key] = e
        found = seen[key]
        if isinstance(found, InputError):
            raise found
        return found

    return once


def _export_only(provider: str, day: date, model: str, amount: Decimal) -> Row:
    return Row(provider, day, model, (), 0, 0, 0, 0, 0, 0, None, None, amount, "no-usage",
               ("a cost without usage in the usage export",))  # fmt: skip


def _row(
    key: tuple[str, date, str | None],
    tiers: list[tuple[str, _Sum]],
    model_costs: Mapping[tuple[str, date, str], Decimal],
    cost_providers: set[str],
    rates_of: RateFinder,
) -> Row:
    provider, day, model = key
    counts = {f: sum(s.counts[f] for _, s in tiers) for f in _FIELDS}
    reasons: list[str] = []
    priced: list[tuple[str, Mapping[str, int], Rates]] = []
    for tier, s in tiers:
        why = _unpriceable(provider, model, tier, s, rates_of, day)
        if isinstance(why, str):
            reasons.append(why)
        else:
            priced.append((tier, s.counts, why))
    exported = model_costs.get((provider, day, model)) if model is not None else None
    base = Row(provider, day, model or "(all models)", tuple(t for t, _ in tiers),
               counts["uncached_input"], counts["cache_read"], counts["cache_write_5m"],
               counts["cache_write_1h"], counts["output"], counts["web_searches"],
               None, None, exported, "unknown")  # fmt: skip
    if reasons:
        return _with(base, status="unknown", reasons=tuple(reasons))
    parts = [_cost(c, r) for _, c, r in priced]
    tokens = sum((t for t, _ in parts), Decimal(0))
    fees = sum((f for _, f in parts), Decimal(0))
    priced_row = _with(base, agentcost_usd=tokens + fees, fees_usd=fees)
    if provider not in cost_providers:
        return _with(priced_row, status="no-costs")
    if exported is None:  # OpenAI costs, or Anthropic costs not grouped by description: per day only
        return _with(priced_row, status="per-day")
    if abs(exported - tokens) < MATCH_TOLERANCE:
        return _with(priced_row, status="match")
    cause = _explain(exported, provider, model or "", day, priced, rates_of)
    present = _present(counts, tiers)
    return _with(priced_row, status="differs", reasons=(cause,) if cause else ("unexplained", *present))


R = TypeVar("R", Row, Day)


def _with(row: R, **changes: Any) -> R:
    from dataclasses import replace

    return replace(row, **changes)


def _unpriceable(
    provider: str, model: str | None, tier: str, s: _Sum, rates_of: RateFinder, day: date
) -> str | Rates:
    """The row's rates, or why agentcost cannot price it."""
    if model is None:
        return "the export is not grouped by model (group_by=model)"
    if not s.tier_known:
        return f"service tier {tier!r}: agentcost knows no such tier"
    if s.long_context:
        return "long-context requests (200k-1M): their rates depend on each request's size"
    try:
        return rates_of(provider, model, day, tier)
    except InputError as e:
        if e.key == "service_tier":
            return f"{tier} tier: agentcost has no {tier} prices for {model} on {day.isoformat()}"
        return f"unknown model: agentcost cannot price {model!r}"


def _present(counts: Mapping[str, int], tiers: list[tuple[str, _Sum]]) -> tuple[str, ...]:
    """What a row holds that often explains a difference, named beside an unexplained one."""
    found = []
    if counts["cache_write_5m"] or counts["cache_write_1h"]:
        found.append(
            "cache writes "
            + "+".join(t for t, f in (("5m", "cache_write_5m"), ("1h", "cache_write_1h")) if counts[f])
        )
    if counts["cache_read"]:
        found.append("cache reads")
    found += [f"{tier} tier" for tier, _ in tiers if tier != "standard"]
    if counts["web_searches"]:
        found.append("server-tool fees (compared per day)")
    return tuple(found)


def _explain(
    exported: Decimal,
    provider: str,
    model: str,
    day: date,
    priced: list[tuple[str, Mapping[str, int], Rates]],
    rates_of: RateFinder,
) -> str | None:
    """The first usual cause under which agentcost's price of the row equals the export's."""

    def total(rates_for: Callable[[str, Rates], Rates | None]) -> Decimal | None:
        amount = Decimal(0)
        for tier, counts, rates in priced:
            chosen = rates_for(tier, rates)
            if chosen is None:
                return None
            amount += _cost(counts, chosen)[0]
        return amount

    def other(tier_wanted: str) -> Callable[[str, Rates], Rates | None]:
        def pick(tier: str, rates: Rates) -> Rates | None:
            if tier == tier_wanted:
                return rates
            try:
                return rates_of(provider, model, day, tier_wanted)
            except InputError:
                return None

        return pick

    causes: list[tuple[str, Callable[[str, Rates], Rates | None]]] = [
        ("1h cache writes billed at the 5m rate", lambda _, r: {**r, "cache_write_1h": r["cache_write_5m"]}),
        ("cache writes billed at the input rate", lambda _, r: {**r, "cache_write_5m": r["uncached_input"],
                                                                 "cache_write_1h": r["uncached_input"]}),
        ("billed at standard prices, not the tier's", other("standard")),
        ("billed at batch prices", other("batch")),
    ]  # fmt: skip
    for cause, rates_for in causes:
        amount = total(rates_for)
        if (
            amount is not None
            and amount != total(lambda _, r: r)
            and abs(exported - amount) < MATCH_TOLERANCE
        ):
            return cause
    return None


def _day(
    provider: str, d: date, rows: list[Row], exported: Decimal | None, unattributed: Decimal | None
) -> Day:
    """One provider's day. A cost with no usage behind it (a model of the cost export missing from the
    usage export, or a day the usage export does not have) stays in the comparison and the day never
    matches over it: only rows agentcost cannot price are left out of both sides."""
    known = [r for r in rows if r.agentcost_usd is not None]
    ours = sum((r.agentcost_usd for r in known if r.agentcost_usd is not None), Decimal(0))
    fees = sum((r.fees_usd for r in known if r.fees_usd is not None), Decimal(0))
    unpriced = [r for r in rows if r.agentcost_usd is None and r.status != "no-usage"]
    unknown = len(unpriced)
    excluded = sum((r.export_usd for r in unpriced if r.export_usd is not None), Decimal(0))
    reasons: list[str] = []
    if unknown:
        left = f" (and {usd(excluded)} of the export)" if excluded else ""
        reasons.append(f"{unknown} row(s) agentcost cannot price left out{left}")
    if exported is None:
        return Day(provider, d, ours, unknown, None, "no-costs", tuple(reasons))
    without = [r for r in rows if r.status == "no-usage" and r.export_usd]
    no_usage = all(r.status == "no-usage" for r in rows)
    cost_without_usage = bool(without) or (no_usage and exported != 0)
    if no_usage and cost_without_usage:
        reasons.append(f"{usd(exported)} of cost and no usage in the usage export")
    else:
        reasons += [f"{r.model}: {usd(r.export_usd or Decimal(0))} of cost without usage" for r in without]
    if unattributed and fees:
        reasons.append("costs without a model include server-tool fees")
    day = Day(provider, d, ours, unknown, exported, "differs", (), excluded)
    diff = day.difference_usd or Decimal(0)
    if abs(diff) < MATCH_TOLERANCE and not cost_without_usage:
        return _with(day, status="match", reasons=tuple(reasons))
    if fees and abs(diff + fees) < MATCH_TOLERANCE:
        reasons.append("server-tool fees are not in the cost export")
    elif not cost_without_usage and not any(r.status == "differs" for r in rows):
        reasons.append("unexplained" if unknown == 0 else "unexplained, or usage agentcost cannot price")
    reasons += sorted({f"{r.model}: {x}" for r in rows if r.status == "differs" for x in r.reasons})
    return _with(day, reasons=tuple(reasons))
