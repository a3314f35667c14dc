"""``agentcost prices MODEL`` and ``agentcost models``: which rates apply, where each comes from.

:func:`price_sheet` gathers, for one model at one date, every rate genai-prices (or a ``--prices``
file) has for it (long-context tiers, cache writes and reads, per-use fees), the same rates in the
other service tiers the model offers, the price changes scheduled after the date, the billing facts
agentcost adds itself (tool-use system prompt, minimum cacheable prompt, token ratio) with the public
page each was read from and the date, and one example request worked out line by line
(:meth:`agentcost.prices.model.ModelPrices.itemise`: the parts the accountant's own pricing sums).
The renderers only format.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from rich.console import Group, RenderableType
from rich.text import Text

from agentcost.infra.text import plain, rich
from agentcost.prices.lookup import resolve_model
from agentcost.prices.model import CostLine, ModelPrices, Usage
from agentcost.prices.rates import Rate, tier_name
from agentcost.render.fit import Cell, Col, FitTable
from agentcost.render.jsonfmt import dumps, envelope
from agentcost.render.schema import COUNT, USD, USD_OR_NULL, object_schema
from agentcost.report.fmt import exact

if TYPE_CHECKING:
    from agentcost.prices.user import UserPrices

MODELS_ORDER = (
    "by provider, then newest first by the version number in the model id (genai-prices has no"
    " release dates), then by id"
)


# --------------------------------------------------------------------------------------------
# Token count accuracy
# --------------------------------------------------------------------------------------------


def count_accuracy(provider: str, model_id: str) -> str:
    """``exact`` where agentcost reproduces the model's tokenizer (OpenAI models with tiktoken, an
    installed offline tokenizer), else ``approximate``: by the model's family
    (:func:`agentcost.tokens.rules.family_of`, as :func:`agentcost.tokens.rules.rules_for` chooses
    the rules: ``claude-*`` on any provider is Claude)."""
    from agentcost.tokens.rules import family_of

    return "exact" if family_of(provider, model_id).exact else "approximate"


def served_line(p: ModelPrices) -> str | None:
    """How a hosted model is priced and counted (None for a provider's own model): ``Served by aws
    (bedrock): genai-prices' aws row regional.anthropic.claude-...; counting and caching rules: those
    of claude-sonnet-4-5-20250929.``"""
    if p.source.kind == "user" or (
        p.host is None and p.price_provider == p.provider and p.rules_id == p.model_id
    ):
        return None
    host = f" ({p.host})" if p.host not in (None, p.provider) else ""
    row = f"{p.price_provider} row {p.model_id}"
    if p.price_provider != p.provider:
        row += f", as {p.provider} bills it"
    rules = f"counting and caching rules: those of {p.rules_id}"
    return f"Served by {p.provider}{host}: genai-prices' {row}; {rules}."


def time_of_day_line(p: ModelPrices) -> str | None:
    """The daily windows in which the model's prices differ (DeepSeek), and the time priced at."""
    if not p.time_of_day:
        return None
    windows = ", ".join(f"{start}–{end}" for start, end in p.time_of_day)
    return (
        f"Prices change by the time of day: {windows} UTC has its own rates; these are the rates at"
        f" {p.source.as_of:%H:%M} UTC (choose the time with --as-of, e.g. 2026-11-30T10:00Z)."
    )


# --------------------------------------------------------------------------------------------
# agentcost prices MODEL
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FactLine:
    """A billing fact agentcost adds itself (:mod:`agentcost.facts`), with the public page it was read
    from (``url``, None when there is none), the date, and a public note."""

    name: str
    value: str
    url: str | None
    read: date | None
    note: str | None = None

    @property
    def source(self) -> str:
        """The public citation: the URL(s), and the note."""
        url = self.url or ""
        return f"{url} ({self.note})" if url and self.note else url or self.note or ""


@dataclass(frozen=True)
class Example:
    usage: Usage
    tier: str | None  # the long-context tier the example crosses
    lines: tuple[CostLine, ...]  # ModelPrices.itemise: the parts ModelPrices.cost sums
    total_usd: Decimal  # the sum of the lines
    genai_prices_usd: Decimal  # ModelPrices.cost(usage).total_usd: the figure estimates use


@dataclass(frozen=True)
class PriceSheet:
    prices: ModelPrices
    rates: tuple[Rate, ...]  # the selected service tier's
    service_tiers: tuple[tuple[str, tuple[Rate, ...]], ...]  # every offered tier, standard first
    facts: tuple[FactLine, ...]
    token_counts: str  # "exact" | "approximate"
    example: Example


def default_example(prices: ModelPrices) -> Usage:
    """10,000 input tokens (2,000 read from cache and 1,000 written where the model has those
    prices), 1,000 output tokens."""
    return Usage(
        input_tokens=10_000,
        output_tokens=1_000,
        cache_read_tokens=2_000 if prices.cache_read_mtok is not None else 0,
        cache_write_tokens=1_000 if prices.cache_write_mtok is not None else 0,
    )


def price_sheet(
    model: str,
    *,
    as_of: datetime,
    service_tier: str = "standard",
    user_prices: UserPrices | None = None,
    example: Usage | None = None,
) -> PriceSheet:
    """Everything ``agentcost prices`` shows for ``model`` at ``as_of``. Raises InputError."""
    prices = resolve_model(model, as_of=as_of, service_tier=service_tier, user_prices=user_prices)
    tiers: list[tuple[str, tuple[Rate, ...]]] = []
    for tier in prices.service_tiers:
        same = tier == prices.service_tier
        other = prices if same else _in_tier(prices, tier, as_of, user_prices)
        tiers.append((tier, other.rates()))
    usage = example if example is not None else default_example(prices)
    return PriceSheet(
        prices=prices,
        rates=prices.rates(),
        service_tiers=tuple(tiers),
        facts=_facts(prices),
        token_counts=count_accuracy(prices.provider, prices.rules_id),
        example=_example(prices, usage),
    )


def _in_tier(prices: ModelPrices, tier: str, as_of: datetime, user_prices: UserPrices | None) -> ModelPrices:
    return resolve_model(
        prices.model_id, provider=prices.provider, as_of=as_of, service_tier=tier, user_prices=user_prices
    )


def _facts(prices: ModelPrices) -> tuple[FactLine, ...]:
    from agentcost import facts

    out: list[FactLine] = []
    rules = prices.rules_id
    if prices.provider == "anthropic" or rules.startswith("claude-"):
        auto = facts.anthropic_tool_prompt_tokens(rules, "auto")
        any_ = facts.anthropic_tool_prompt_tokens(rules, "any")
        name = "tool-use system prompt"
        if auto is None or any_ is None:
            out.append(
                FactLine(
                    name,
                    "not published for this model (estimates use the largest published size)",
                    "https://platform.claude.com/docs/en/agents-and-tools/tool-use/overview#pricing",
                    None,
                    "the page lists no size for this model",
                )
            )
        else:
            value = (
                f"{auto.value:,} tokens per request with tools (tool_choice auto or none),"
                f" {any_.value:,} (any or tool)"
            )
            same = auto.url == any_.url and auto.note == any_.note
            url = auto.url if same or auto.url == any_.url else f"{auto.url}, {any_.url}"
            note = auto.note if same else "; ".join(n for n in (auto.note, any_.note) if n) or None
            out.append(FactLine(name, value, url, auto.read, note))
    mechanics = facts.host_mechanics(prices.provider, rules)
    cacheable = mechanics.min_tokens
    if cacheable is not None:
        value = f"{cacheable.value:,} tokens (shorter prefixes are not cached)"
        out.append(FactLine("minimum cacheable prompt", value, cacheable.url, cacheable.read, cacheable.note))
    elif mechanics.caching == "none" and mechanics.kind is not None:
        kind = mechanics.kind
        value = f"none: {prices.provider} caches no prompts"
        out.append(FactLine("minimum cacheable prompt", value, kind.url, kind.read, kind.note))
    else:
        out.append(FactLine("minimum cacheable prompt", "unknown: no public page gives one", None, None))
    out.append(_token_counts(prices.provider, rules))
    return tuple(out)


def _token_counts(provider: str, rules: str) -> FactLine:
    """How the model's tokens are counted: the measured o200k_base ratio of facts.yaml where it has
    one (the three main providers' families), else the counting family's own method and source."""
    from agentcost import facts
    from agentcost.tokens.rules import family_of

    try:
        prose = facts.token_ratio(provider, rules, "prose")
        json_ = facts.token_ratio(provider, rules, "json")
    except facts.FactsDataError:
        family = family_of(provider, rules)
        return FactLine("token counts", family.method, family.source, None, family.note)
    if prose.value == 1 and json_.value == 1:
        ratio = "o200k_base counts unchanged"
    else:
        ratio = f"o200k_base x {exact(prose.value)} (prose), x {exact(json_.value)} (JSON)"
    return FactLine("token counts", ratio, prose.url, prose.read, prose.note)


def _example(prices: ModelPrices, usage: Usage) -> Example:
    worked = prices.itemise(usage)
    return Example(
        usage=usage,
        tier=prices.tier_label(usage.input_tokens),
        lines=worked.lines,
        total_usd=worked.total_usd,
        genai_prices_usd=worked.cost.total_usd,
    )


# --------------------------------------------------------------------------------------------
# Text (Rich)
# --------------------------------------------------------------------------------------------


def _cell(rate: Rate | None) -> str:
    if rate is None:
        return "-"
    tiers = "".join(f" ({tier_name(start)}: ${exact(p)})" for start, p in rate.tiers)
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
        [rich(label), *(_cell(rates.get(key)) for rates in by_tier)] for key, label in keys.items()
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
    lines.extend(line for line in (served_line(p), time_of_day_line(p)) if line is not None)
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


def _rate_dict(rate: Rate) -> dict[str, Any]:
    return {
        "key": rate.key,
        "label": rate.label,
        "per": rate.per,
        "usd": exact(rate.base),
        "tiers": [{"above_input_tokens": start, "usd": exact(p)} for start, p in rate.tiers],
    }


def _source_dict(p: ModelPrices) -> dict[str, Any]:
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


def price_sheet_dict(sheet: PriceSheet) -> dict[str, Any]:
    p = sheet.prices
    ex = sheet.example
    return {
        "model": p.model_id,
        "model_ref": p.model_ref,
        "name": p.name,
        "provider": p.provider,
        "price_provider": p.price_provider,
        "host": p.host,
        "rules_id": p.rules_id,
        "time_of_day": [{"start": a, "end": b} for a, b in p.time_of_day],
        "as_of": p.source.as_of.isoformat(),
        "service_tier": p.service_tier,
        "source": _source_dict(p),
        "comments": p.price_comments,
        "base": p.base_id,
        "context_window": p.context_window,
        "tier_thresholds": list(p.tier_thresholds),
        "rates": [_rate_dict(r) for r in sheet.rates],
        "service_tiers": [
            {"tier": t, "rates": [_rate_dict(r) for r in rates]} for t, rates in sheet.service_tiers
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
            "total_usd": exact(ex.total_usd),
            "genai_prices_usd": exact(ex.genai_prices_usd),
        },
        "warnings": list(p.warnings),
    }


def render_price_sheet_json(sheet: PriceSheet) -> str:
    return dumps(envelope("prices", price_sheet_dict(sheet)))


# --------------------------------------------------------------------------------------------
# JSON Schemas (agentcost schema --report)
# --------------------------------------------------------------------------------------------

_STR = {"type": "string"}
_STR_OR_NULL = {"type": ["string", "null"]}
PROVIDER = {
    "type": "string",
    "description": "a genai-prices provider id (anthropic, aws, azure, deepseek, ...)",
}
_HOST = {"enum": [None, "bedrock", "azure", "vertex", "openrouter"]}
SERVICE_TIER = {"enum": ["standard", "batch", "flex", "priority"]}
_RATE = object_schema(
    {
        "key": _STR,
        "label": _STR,
        "per": {"type": "integer", "minimum": 1},
        "usd": USD,
        "tiers": {
            "type": "array",
            "items": object_schema({"above_input_tokens": COUNT, "usd": USD}),
        },
    }
)

MODELS_JSON_SCHEMA: dict[str, Any] = {
    "as_of": {"type": "string", "format": "date-time"},
    "order": _STR,
    "models": {
        "type": "array",
        "items": object_schema(
            {
                "model": _STR,
                "name": _STR,
                "provider": PROVIDER,
                "price_provider": {
                    **PROVIDER,
                    "description": "the provider whose genai-prices row prices it",
                },
                "host": _HOST,
                "rules_id": {
                    **_STR_OR_NULL,
                    "description": "the model whose counting and caching rules apply",
                },
                "estimable": {"type": "boolean", "description": "whether agentcost can estimate with it"},
                "chat": {"type": "boolean", "description": "an estimable text-generation chat model"},
                "why": {
                    **_STR_OR_NULL,
                    "description": "why it cannot be estimated, or what it is if not chat",
                },
                "per_mtok_usd": {
                    "anyOf": [
                        object_schema(
                            {
                                "input": USD,
                                "output": USD,
                                "cache_read": USD_OR_NULL,
                                "cache_write": USD_OR_NULL,
                                "cache_write_1h": USD_OR_NULL,
                            }
                        ),
                        {"type": "null"},
                    ]
                },
                "tier_thresholds": {"type": "array", "items": COUNT},
                "service_tiers": {"type": "array", "items": SERVICE_TIER},
                "context_window": {"type": ["integer", "null"]},
                "token_counts": {"enum": ["exact", "approximate", None]},
                "deprecated": {"type": "boolean"},
                "source": _STR_OR_NULL,
            }
        ),
    },
    "providers": {
        "type": "array",
        "items": object_schema(
            {
                "provider": PROVIDER,
                "name": _STR,
                "models": COUNT,
                "estimable": COUNT,
                "chat": COUNT,
                "listed": {"type": "boolean"},
            }
        ),
    },
}

PRICES_JSON_SCHEMA: dict[str, Any] = {
    "model": _STR,
    "model_ref": _STR,
    "name": _STR,
    "provider": PROVIDER,
    "price_provider": PROVIDER,
    "host": _HOST,
    "rules_id": _STR,
    "time_of_day": {"type": "array", "items": object_schema({"start": _STR, "end": _STR})},
    "as_of": {"type": "string", "format": "date-time"},
    "service_tier": SERVICE_TIER,
    "source": object_schema(
        {
            "kind": {"enum": ["genai-prices", "user"]},
            "name": _STR,
            "version": _STR,
            "label": _STR,
            "data_date": {"type": ["string", "null"], "format": "date"},
            "basis": _STR_OR_NULL,
            "urls": {"type": "array", "items": _STR},
        }
    ),
    "comments": _STR_OR_NULL,
    "base": _STR_OR_NULL,
    "context_window": {"type": ["integer", "null"]},
    "tier_thresholds": {"type": "array", "items": COUNT},
    "rates": {"type": "array", "items": _RATE},
    "service_tiers": {
        "type": "array",
        "items": object_schema({"tier": SERVICE_TIER, "rates": {"type": "array", "items": _RATE}}),
    },
    "changes": {
        "type": "array",
        "items": object_schema(
            {
                "on": {"type": "string", "format": "date"},
                "text": _STR,
                "rates": {
                    "type": "array",
                    "items": object_schema(
                        {
                            "key": _STR_OR_NULL,
                            "before": {"anyOf": [_RATE, {"type": "null"}]},
                            "after": {"anyOf": [_RATE, {"type": "null"}]},
                        }
                    ),
                },
            }
        ),
    },
    "facts": {
        "type": "array",
        "items": object_schema(
            {
                "name": _STR,
                "value": _STR,
                "source": {**_STR, "description": "the public citation: url, and note in parentheses"},
                "url": {**_STR_OR_NULL, "description": "the public page the fact was read from"},
                "note": {**_STR_OR_NULL, "description": "a quote from the page, or why a default"},
                "read": {"type": ["string", "null"], "format": "date"},
            }
        ),
    },
    "token_counts": {"enum": ["exact", "approximate"]},
    "example": object_schema(
        {
            "input_tokens": COUNT,
            "cache_read_tokens": COUNT,
            "cache_write_tokens": COUNT,
            "cache_write_1h_tokens": COUNT,
            "output_tokens": COUNT,
            "tier": _STR_OR_NULL,
            "lines": {
                "type": "array",
                "items": object_schema(
                    {"label": _STR, "tokens": COUNT, "per_mtok_usd": USD, "usd": USD, "note": _STR_OR_NULL}
                ),
            },
            "total_usd": USD,
            "genai_prices_usd": USD,
        }
    ),
    "warnings": {"type": "array", "items": _STR},
}

__all__ = [
    "MODELS_JSON_SCHEMA",
    "MODELS_ORDER",
    "PRICES_JSON_SCHEMA",
    "PriceSheet",
    "count_accuracy",
    "price_sheet",
    "render_price_sheet",
    "render_price_sheet_json",
]
