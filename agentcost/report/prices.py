"""The reports of ``agentcost prices MODEL`` and ``agentcost models``: which rates apply, where each
comes from.

:func:`price_sheet` gathers, for one model at one date, every rate genai-prices (or a ``--prices``
file) has for it (long-context tiers, cache writes and reads, per-use fees), the same rates in the
other service tiers the model offers, the price changes scheduled after the date, the billing facts
agentcost adds itself (tool-use system prompt, minimum cacheable prompt, token ratio) with the public
page each was read from and the date, and one example request worked out line by line
(:meth:`agentcost.prices.pricing.ModelPrices.itemise`: the parts of :meth:`ModelPrices.price
<agentcost.prices.pricing.ModelPrices.price>`, the function the accountant prices every request with).
Every lookup happens here; :mod:`agentcost.render.prices` only formats the :class:`PriceSheet`.

The sheet carries the price stage's own data types (:class:`ModelPrices`, :class:`Rate`,
:class:`CostLine`, :class:`FeeLine`, :class:`Usage`) unchanged; they are re-exported here as the
renderers' vocabulary.
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal
from typing import TYPE_CHECKING

from agentcost.infra.record import record
from agentcost.prices.lookup import resolve_model
from agentcost.prices.pricing import CostLine, FeeLine, ModelPrices, Usage
from agentcost.prices.rates import Rate, tier_name
from agentcost.report.fmt import exact

if TYPE_CHECKING:
    from agentcost.prices.user import UserPrices
    from agentcost.report.prices_json import TokenCounts

MODELS_ORDER = (
    "by provider, then newest first by the version number in the model id (genai-prices has no"
    " release dates), then by id"
)


# --------------------------------------------------------------------------------------------
# Token count accuracy
# --------------------------------------------------------------------------------------------


def count_accuracy(provider: str, model_id: str) -> TokenCounts:
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
    """The windows in which the model is cheaper by the time of day, and which rates the sheet shows:
    the note an estimate carries (:func:`agentcost.report.notes.time_of_day_text`)."""
    if not p.off_peak:
        return None
    from agentcost.prices.catalog import provider_name
    from agentcost.report.notes import time_of_day_text

    when = f"{p.source.as_of:%H:%M}" if p.at_time else None
    return time_of_day_text(provider_name(p.provider), p.off_peak, when, (p.source.label, *p.source.urls))


# --------------------------------------------------------------------------------------------
# agentcost prices MODEL
# --------------------------------------------------------------------------------------------


@record
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


@record
class Example:
    usage: Usage
    tier: str | None  # the long-context tier the example crosses
    lines: tuple[CostLine, ...]  # ModelPrices.itemise: the parts ModelPrices.price gives
    total_usd: Decimal  # the sum of the lines and the fees
    genai_prices_usd: Decimal  # ModelPrices.price(usage).total_usd: the figure estimates use
    fees: tuple[FeeLine, ...] = ()  # the per-use prices the request pays (Perplexity's per-request fee)


@record
class PriceSheet:
    prices: ModelPrices
    rates: tuple[Rate, ...]  # the selected service tier's
    service_tiers: tuple[tuple[str, tuple[Rate, ...]], ...]  # every offered tier, standard first
    facts: tuple[FactLine, ...]
    token_counts: TokenCounts
    example: Example
    tier_names: dict[int, str]  # every long-context threshold of the rates -> its name, e.g. ">200k"
    served: str | None  # how a hosted model is priced and counted (served_line)
    time_of_day: str | None  # the daily windows its prices differ in (time_of_day_line)


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
    every = [*prices.rates(), *(r for _, rates in tiers for r in rates)]
    every += [r for c in prices.changes for r in (*c.before, *c.after) if r is not None]
    return PriceSheet(
        prices=prices,
        rates=prices.rates(),
        service_tiers=tuple(tiers),
        facts=_facts(prices),
        token_counts=count_accuracy(prices.provider, prices.rules_id),
        example=_example(prices, usage),
        tier_names={start: tier_name(start) for r in every for start, _ in r.tiers},
        served=served_line(prices),
        time_of_day=time_of_day_line(prices),
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
                    "unknown: not published for this model (estimates count the largest published size,"
                    " an upper bound)",
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
        fees=worked.fees,
    )


__all__ = [
    "MODELS_ORDER",
    "CostLine",
    "Example",
    "FactLine",
    "FeeLine",
    "ModelPrices",
    "PriceSheet",
    "Rate",
    "Usage",
    "count_accuracy",
    "default_example",
    "price_sheet",
]
