"""``agentcost prices MODEL``: the price sheet (:mod:`agentcost.report.prices`) as a Rich table with
its notes, and as JSON (its shape and JSON Schema: :mod:`agentcost.report.prices_json`).

Formatting only: every rate, fact and the worked example come from the report.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.text import Text

from agentcost.infra.text import plain, rich
from agentcost.render.fit import Cell, Col, FitTable
from agentcost.render.jsonfmt import dumps, envelope
from agentcost.report.fmt import exact
from agentcost.report.prices import ModelPrices, PriceSheet, Rate
from agentcost.report.prices_json import host, service_tier

if TYPE_CHECKING:  # the JSON's one definition (report/prices_json.py), also its JSON Schema
    from agentcost.report.prices_json import PricesJson, RateJson, SourceJson

# --------------------------------------------------------------------------------------------
# Text (Rich)
# --------------------------------------------------------------------------------------------


def _cell(rate: Rate | None, names: dict[int, str]) -> str:
    if rate is None:
        return "-"
    tiers = "".join(f" ({names[start]}: ${exact(p)})" for start, p in rate.tiers)
    per = "" if rate.is_tokens else f" per {rate.per:,}"
    return f"${exact(rate.base)}{per}{tiers}"


def render_price_sheet(sheet: PriceSheet, *, verbose: bool = False) -> RenderableType:
    """The rates in a table, what they mean, where they come from, and the example request worked out;
    ``verbose`` adds genai-prices' notes, the date its data is current on, and the billing facts
    agentcost adds with their sources."""
    p = sheet.prices
    day = p.source.as_of.date().isoformat()
    tier = "" if p.service_tier == "standard" else f", {p.service_tier} tier"
    title = rich(f"{p.model_id} · {p.name} ({p.provider}): prices in force on {day}{tier}")
    columns = [Col("rate", justify="left", text=True, min_width=0)]
    for tier, _ in sheet.service_tiers:
        used = " (used)" if tier == p.service_tier and len(sheet.service_tiers) > 1 else ""
        columns.append(Col(f"{tier}{used}", text=True, min_width=0))  # folds between words only
    keys: dict[str, str] = {}
    for _, rates in sheet.service_tiers:
        for r in rates:
            keys.setdefault(r.key, r.label)
    by_tier = [{r.key: r for r in rates} for _, rates in sheet.service_tiers]
    cells: list[list[Cell]] = [
        [rich(label), *(_cell(rates.get(key), sheet.tier_names) for rates in by_tier)]
        for key, label in keys.items()
    ]
    table = FitTable(columns, cells)

    lines: list[str] = [
        "Token rates are USD per million tokens (MTok); fees are USD per 1,000 uses."
        " Input counts every prompt token; cache reads and writes are the parts of it priced"
        " at their own rates."
    ]
    if p.tier_thresholds:
        names = ", ".join(f"more than {t:,}" for t in p.tier_thresholds)
        lines.append(
            f"Long-context tier: a request with {names} input tokens is priced whole (all its tokens)"
            " at the tier's rates."
        )
    lines.append(
        "Service tiers offered: "
        + ", ".join(t for t, _ in sheet.service_tiers)
        + " (choose with service_tier: in the scenario, or --service-tier)."
    )
    if p.changes:
        for change in p.changes:
            lines.append(f"Scheduled change on {change.on.isoformat()}: {change.text()}.")
    elif p.source.kind == "genai-prices" or p.source.basis:
        lines.append(f"Scheduled changes: none known after {day}.")
    s = p.source
    name = s.label if s.kind == "user" or verbose else f"{s.name} {s.version}"  # one date unless verbose
    lines.append(f"Prices from {name}.")
    if s.urls:
        lines.append("Pricing pages: " + ", ".join(s.urls))
    if p.price_comments and verbose:
        lines.append(f"genai-prices notes: {' '.join(p.price_comments.split())}")
    if p.base_id is not None:
        lines.append(f"Counting and caching rules: those of {p.base_id} (base).")
    lines.extend(line for line in (sheet.served, sheet.time_of_day) if line is not None)
    lines.append("")
    lines.append("Billing facts genai-prices does not carry, from the providers' docs:")
    for fact in sheet.facts:
        read = f", read {fact.read.isoformat()}" if fact.read is not None else ""
        source = f" Source: {fact.source.rstrip('.')}{read}." if verbose and fact.source else ""
        lines.append(f"  {fact.name}: {fact.value}.{source}")
    lines.append(f"  token count accuracy: {sheet.token_counts}.")
    lines.append("")
    lines.extend(_example_lines(sheet))
    lines.extend(f"Warning: {w}" for w in p.warnings)
    if not verbose:
        lines.append("Sources of the billing facts, genai-prices' notes: --verbose.")
    return Group(title, table, Text("\n".join(map(plain, lines))))  # a --prices file's names: escaped


def _example_lines(sheet: PriceSheet) -> list[str]:
    ex = sheet.example
    u = ex.usage
    parts = []
    if u.cache_read_tokens:
        parts.append(f"{u.cache_read_tokens:,} read from cache")
    if u.cache_write_tokens:
        parts.append(f"{u.cache_write_tokens:,} written to it")
    if u.cache_write_1h_tokens:
        parts.append(f"{u.cache_write_1h_tokens:,} written for 1 hour")
    cached = f" ({', '.join(parts)})" if parts else ""
    tier = ""
    if ex.tier is not None:
        tier = f", over the long-context tier ({ex.tier}): every token at the tier's rates"
    head = (
        f"Example request ({sheet.prices.service_tier} tier): {u.input_tokens:,} input tokens{cached},"
        f" {u.output_tokens:,} output tokens{tier}:"
    )
    rows = [
        (line.label, f"{line.tokens:,} × ${exact(line.per_mtok_usd)}/MTok", f"${exact(line.usd)}", line.note)
        for line in ex.lines
    ]
    rows += [
        (fee.label, f"{fee.uses:,} × ${exact(fee.usd_per)} per {fee.per:,}", f"${exact(fee.usd)}", None)
        for fee in ex.fees
    ]
    w1 = max(len(r[0]) for r in rows)
    w2 = max(len(r[1]) for r in rows)
    out = [head]
    for label, calc, usd, note in rows:
        extra = f"  ({note})" if note else ""
        out.append(f"  {label:<{w1}}  {calc:<{w2}} = {usd}{extra}")
    check = (
        "the same as genai-prices computes"
        if ex.genai_prices_usd == ex.total_usd
        else f"genai-prices computes ${exact(ex.genai_prices_usd)}"
    )
    out.append(f"  {'total':<{w1}}  {'':<{w2}} = ${exact(ex.total_usd)}  ({check})")
    return out


# --------------------------------------------------------------------------------------------
# JSON
# --------------------------------------------------------------------------------------------


def _rate_dict(rate: Rate) -> RateJson:
    return {
        "key": rate.key,
        "label": rate.label,
        "per": rate.per,
        "usd": exact(rate.base),
        "tiers": [{"above_input_tokens": start, "usd": exact(p)} for start, p in rate.tiers],
    }


def _source_dict(p: ModelPrices) -> SourceJson:
    s = p.source
    return {
        "kind": s.kind,
        "name": s.name,
        "version": s.version,
        "label": s.label,
        "data_date": None if s.data_date is None else s.data_date.isoformat(),
        "basis": s.basis,
        "urls": list(s.urls),
    }


def _change_key(before: Rate | None, after: Rate | None) -> str | None:
    rate = before if before is not None else after
    return None if rate is None else rate.key


def price_sheet_dict(sheet: PriceSheet) -> PricesJson:
    p = sheet.prices
    ex = sheet.example
    return {
        "model": p.model_id,
        "model_ref": p.model_ref,
        "name": p.name,
        "provider": p.provider,
        "price_provider": p.price_provider,
        "host": host(p.host),
        "rules_id": p.rules_id,
        "time_of_day": [{"start": a, "end": b} for a, b in p.time_of_day],
        "as_of": p.source.as_of.isoformat(),
        "service_tier": service_tier(p.service_tier),
        "source": _source_dict(p),
        "comments": p.price_comments,
        "base": p.base_id,
        "context_window": p.context_window,
        "tier_thresholds": list(p.tier_thresholds),
        "rates": [_rate_dict(r) for r in sheet.rates],
        "service_tiers": [
            {"tier": service_tier(t), "rates": [_rate_dict(r) for r in rates]}
            for t, rates in sheet.service_tiers
        ],
        "changes": [
            {
                "on": c.on.isoformat(),
                "text": c.text(),
                "rates": [
                    {
                        "key": _change_key(b, a),
                        "before": None if b is None else _rate_dict(b),
                        "after": None if a is None else _rate_dict(a),
                    }
                    for b, a in zip(c.before, c.after, strict=True)
                ],
            }
            for c in p.changes
        ],
        "facts": [
            {
                "name": f.name,
                "value": f.value,
                "source": f.source,
                "url": f.url,
                "note": f.note,
                "read": None if f.read is None else f.read.isoformat(),
            }
            for f in sheet.facts
        ],
        "token_counts": sheet.token_counts,
        "example": {
            "input_tokens": ex.usage.input_tokens,
            "cache_read_tokens": ex.usage.cache_read_tokens,
            "cache_write_tokens": ex.usage.cache_write_tokens,
            "cache_write_1h_tokens": ex.usage.cache_write_1h_tokens,
            "output_tokens": ex.usage.output_tokens,
            "tier": ex.tier,
            "lines": [
                {
                    "label": line.label,
                    "tokens": line.tokens,
                    "per_mtok_usd": exact(line.per_mtok_usd),
                    "usd": exact(line.usd),
                    "note": line.note,
                }
                for line in ex.lines
            ],
            "fees": [
                {
                    "label": fee.label,
                    "uses": fee.uses,
                    "per": fee.per,
                    "usd_per": exact(fee.usd_per),
                    "usd": exact(fee.usd),
                }
                for fee in ex.fees
            ],
            "total_usd": exact(ex.total_usd),
            "genai_prices_usd": exact(ex.genai_prices_usd),
        },
        "warnings": list(p.warnings),
    }


def render_price_sheet_json(sheet: PriceSheet) -> str:
    return dumps(envelope("prices", price_sheet_dict(sheet)))


__all__ = ["render_price_sheet", "render_price_sheet_json"]
