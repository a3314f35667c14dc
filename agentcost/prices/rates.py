"""A model's rates, the price changes genai-prices has scheduled, and the date of the price data.

:func:`rates_of` lists every price of a genai-prices price object as a :class:`Rate`;
:func:`scheduled_changes` the changes genai-prices has scheduled after the price date
(:class:`PriceChange`). :class:`PriceSource` says where prices came from and for which moment.

The date of the price data: genai-prices does not ship when each price was checked
(``prices_checked`` is excluded from the package), so :func:`price_data_date` is the newest of (a)
the date agentcost's maintainers checked that this genai-prices release was the newest one
(``_CHECKED_RELEASES``) and (b) the newest "verified/checked on DATE" its price comments cite. An
estimate priced more than :data:`STALE_AFTER_DAYS` days after that date warns that prices may have
changed since; a price change genai-prices has scheduled within :data:`SCHEDULED_WITHIN_DAYS` days
after the price date warns too (:func:`price_warnings`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from agentcost.infra.record import record
from agentcost.prices.gpdata import PRICE_SOURCE_NAME, snapshot

if TYPE_CHECKING:
    from genai_prices.types import ModelInfo, ModelPrice

# genai-prices releases whose data agentcost's maintainers checked was the newest release on a date
# (shared/reference/pricing-facts.md §0: "genai-prices==0.2.3 ... latest release on 2026-11-30").
_CHECKED_RELEASES: dict[str, date] = {"0.2.3": date(2026, 11, 30)}
STALE_AFTER_DAYS = 30  # warn when prices are looked up this long after the price data's date
SCHEDULED_WITHIN_DAYS = 30  # warn about a scheduled price change this close after the price date
_VERIFIED = re.compile(r"\b(?:verified|checked)(?:\s+on)?\s+(\d{4}-\d{2}-\d{2})\b", re.IGNORECASE)


@record
class Rate:
    """One price of a model: a token rate (USD per MTok) or a per-use fee (USD per 1,000 uses)."""

    key: str  # the genai-prices price key, e.g. "input_mtok", "web_searches_kcount"
    label: str  # "input", "cache write 5m", "web searches"
    per: int  # how many tokens or uses the price is for: 1,000,000 or 1,000
    base: Decimal  # the price below any long-context tier
    tiers: tuple[tuple[int, Decimal], ...] = ()  # (above this many input tokens, price), ascending

    @property
    def is_tokens(self) -> bool:
        return self.key.endswith("_mtok")

    def at(self, input_tokens: int) -> Decimal:
        """The price a request of ``input_tokens`` pays (tiers are cliffs)."""
        crossed = [price for start, price in self.tiers if input_tokens > start]
        return crossed[-1] if crossed else self.base

    def text(self) -> str:
        """``$3/MTok``, ``$1.25/MTok (>200k: $2.5)``, ``$10 per 1,000 web searches``."""
        tiers = "".join(f" ({tier_name(start)}: {_dollars(p)})" for start, p in self.tiers)
        if self.is_tokens:
            return f"{_dollars(self.base)}/MTok{tiers}"
        return f"{_dollars(self.base)} per {self.per:,} {self.label}{tiers}"


@record
class PriceChange:
    """A price change genai-prices has scheduled: the rates that differ from the day before.

    ``before[i]`` and ``after[i]`` are the same price key; None where the price does not exist.
    """

    on: date
    before: tuple[Rate | None, ...]
    after: tuple[Rate | None, ...]

    def text(self) -> str:
        """``input $2 → $4/MTok, output $10 → $20/MTok``."""
        parts: list[str] = []
        for old, new in zip(self.before, self.after, strict=True):
            rate = old if old is not None else new
            if rate is None:  # pragma: no cover - a change has at least one side
                continue
            unit = "/MTok" if rate.is_tokens else f" per {rate.per:,}"
            parts.append(f"{rate.label} {_value_text(old)} → {_value_text(new)}{unit}")
        return ", ".join(parts)


def tier_name(threshold: int) -> str:
    """``200000`` -> ``">200k"``; ``1000000`` -> ``">1M"``; ``131072`` -> ``">131,072"``."""
    if threshold and threshold % 1_000_000 == 0:
        return f">{threshold // 1_000_000}M"
    if threshold and threshold % 1_000 == 0:
        return f">{threshold // 1_000}k"
    return f">{threshold:,}"


def _dollars(d: Decimal) -> str:
    """An exact price without exponent or trailing zeros: ``$0.3``, ``$2.5``, ``$10``."""
    text = format(d, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return f"${text or '0'}"


def _value_text(rate: Rate | None) -> str:
    if rate is None:
        return "none"
    tiers = "".join(f" ({tier_name(start)}: {_dollars(p)})" for start, p in rate.tiers)
    return _dollars(rate.base) + tiers


@record
class PriceSource:
    """Where prices came from and for which moment.

    genai-prices: ``name`` "genai-prices", ``version`` its version, ``data_date`` the date its data
    is last known current (:func:`price_data_date`). A user price file: ``name`` the file as given,
    ``version`` the entry's ``source:`` text, ``basis`` what the rates derive from (a discount).
    """

    name: str  # "genai-prices", or the user price file as given on the command line
    version: str  # genai_prices.__version__, or the user entry's source text
    as_of: datetime  # the timestamp prices were looked up at (tz-aware UTC)
    urls: tuple[str, ...]  # the provider's pricing pages
    kind: Literal["genai-prices", "user"] = "genai-prices"
    data_date: date | None = None
    basis: str | None = None  # e.g. "20% off claude-sonnet-4-5 in genai-prices 0.2.3"

    @property
    def label(self) -> str:
        """One line for reports: ``genai-prices 0.2.3 (current on 2026-11-30)``,
        ``prices.yaml (contract 2026-07)``."""
        if self.kind == "user":
            basis = f"; {self.basis}" if self.basis else ""
            return f"{self.name} ({self.version}{basis})"
        when = f" (current on {self.data_date.isoformat()})" if self.data_date is not None else ""
        return f"{self.name} {self.version}{when}"


# --------------------------------------------------------------------------------------------
# Rates, scheduled changes, the date of the price data
# --------------------------------------------------------------------------------------------

_KEY_ORDER = (
    "input_mtok",
    "cache_write_mtok",
    "cache_write_5m_mtok",
    "cache_write_1h_mtok",
    "cache_read_mtok",
    "output_mtok",
)
_PER = {"_mtok": 1_000_000, "_kcount": 1_000}


def _label(key: str, provider: str) -> str:
    if key == "cache_write_mtok":
        return "cache write 5m" if provider == "anthropic" else "cache write"
    if key == "cache_write_5m_mtok":
        return "cache write 5m"
    if key == "cache_write_1h_mtok":
        return "cache write 1h"
    for suffix in _PER:
        key = key.removesuffix(suffix)
    return key.replace("_", " ")


def rates_of(price: ModelPrice, provider: str) -> tuple[Rate, ...]:
    """Every price of ``price`` as a :class:`Rate`: the token rates (input, cache writes, cache reads,
    output, then any other), then the per-use fees."""
    from genai_prices.types import TieredPrices

    items = {k: v for k, v in price.__dict__.items() if v is not None and not k.startswith("_")}
    keys = [k for k in _KEY_ORDER if k in items] + [k for k in items if k not in _KEY_ORDER]
    rates: list[Rate] = []
    for key in keys:
        value = items[key]
        per = next((n for suffix, n in _PER.items() if key.endswith(suffix)), 1)
        if isinstance(value, TieredPrices):
            tiers = tuple((t.start, t.price) for t in sorted(value.tiers, key=lambda t: t.start))
            rates.append(Rate(key, _label(key, provider), per, value.base, tiers))
        elif isinstance(value, Decimal):
            rates.append(Rate(key, _label(key, provider), per, value))
    return tuple(rates)


def scheduled_changes(
    info: ModelInfo,
    pid: str,
    when: datetime,
    context: dict[str, str],
    transform: Callable[[ModelPrice], ModelPrice] | None = None,
) -> tuple[PriceChange, ...]:
    """Price changes genai-prices has scheduled after ``when`` (StartDateConstraint dates of the
    model's prices and price variants), for this service tier, in date order."""
    from genai_prices.types import ConditionalPrice, StartDateConstraint

    constraints: list[object] = [v.constraint for v in info.price_variants or ()]
    if isinstance(info.prices, list):
        constraints += [p.constraint for p in info.prices if isinstance(p, ConditionalPrice)]
    dates = sorted(
        {
            c.start_date
            for c in constraints
            if isinstance(c, StartDateConstraint) and c.start_date > when.date()
        }
    )

    def rates_at(moment: datetime) -> dict[str, Rate]:
        price = info.get_prices(moment, context or None)
        if transform is not None:
            price = transform(price)
        return {r.key: r for r in rates_of(price, pid)}

    previous = rates_at(when)
    changes: list[PriceChange] = []
    for day in dates:  # at the same time of day (a price may apply by the time of day: DeepSeek)
        current = rates_at(datetime.combine(day, when.astimezone(UTC).time(), tzinfo=UTC))
        keys = list(previous) + [k for k in current if k not in previous]
        differing = [k for k in keys if previous.get(k) != current.get(k)]
        if differing:
            changes.append(
                PriceChange(
                    on=day,
                    before=tuple(previous.get(k) for k in differing),
                    after=tuple(current.get(k) for k in differing),
                )
            )
        previous = current
    return tuple(changes)


def price_warnings(
    model_id: str, service_tier: str, changes: tuple[PriceChange, ...], source: PriceSource
) -> tuple[str, ...]:
    """Scheduled changes within SCHEDULED_WITHIN_DAYS after the price date; stale price data."""
    day = source.as_of.date()
    horizon = day + timedelta(days=SCHEDULED_WITHIN_DAYS)
    tier = "" if service_tier == "standard" else f" {service_tier}"
    warnings = [
        f"{model_id}{tier} prices change on {c.on.isoformat()} ({c.text()})"
        for c in changes
        if c.on <= horizon
    ]
    if source.data_date is not None and (day - source.data_date).days > STALE_AFTER_DAYS:
        warnings.append(
            f"the price data ({PRICE_SOURCE_NAME} {source.version}) is last known current on"
            f" {source.data_date.isoformat()}, {(day - source.data_date).days} days before the price"
            f" date {day.isoformat()}: prices may have changed since (upgrade genai-prices, or give"
            " your own prices with --prices FILE)"
        )
    return tuple(warnings)


def release_warnings(provider: str, model_id: str, day: date) -> tuple[str, ...]:
    """A price date before the model's release (facts.yaml ``release_date``); nothing when unknown."""
    from agentcost import facts

    released = facts.release_date(provider, model_id)
    if released is None or day >= released.value:
        return ()
    return (f"priced before {model_id} was released ({released.value.isoformat()})",)


@lru_cache(maxsize=1)
def price_data_date() -> date | None:
    """The last date the installed genai-prices data is known to be current (see the module doc):
    the newer of the date this release was checked to be the newest (``_CHECKED_RELEASES``) and
    the newest "verified/checked on DATE" cited in its price comments. None if neither is known."""
    import genai_prices

    found: list[date] = []
    checked = _CHECKED_RELEASES.get(genai_prices.__version__)
    if checked is not None:
        found.append(checked)
    for provider in snapshot().providers:
        texts = [provider.price_comments or ""] + [m.price_comments or "" for m in provider.models]
        for text in texts:
            for cited in _VERIFIED.findall(text):
                try:
                    found.append(date.fromisoformat(cited))
                except ValueError:
                    continue
    return max(found, default=None)
