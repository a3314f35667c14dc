"""The one place that turns numbers into text. ``None`` means unknown and shows as "-", never 0."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal


def tokens(n: int | None) -> str:
    return "-" if n is None else f"{n:,}"


MONEY_PLACES = 4
"""Dollars shown to people carry 4 decimals everywhere (cells, totals, gates, budgets, per-day and
per-month figures); JSON and CSV carry the exact value (:func:`exact`)."""

ARROW = "→"
"""The one arrow of a change, before → after, in every output."""


def usd(d: Decimal | None, places: int = MONEY_PLACES) -> str:
    """Dollars for people: rounded half-up to 4 decimals; a non-zero amount under $0.0001 keeps two
    significant digits (``$0.000012``) so that it never reads as zero. Reports keep the exact value."""
    if d is None:
        return "-"
    if d and abs(d) < Decimal(1).scaleb(-places):
        places = max(places, 1 - d.adjusted())  # the second significant digit
    q = d.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    sign = "-" if q < 0 else ""
    return f"{sign}${abs(q):,.{places}f}"


def usd_pair(a: Decimal, b: Decimal) -> tuple[str, str]:
    """Two amounts compared (a total and its limit, before and after): shown with the usual 4
    decimals, or with as many more as it takes for two different amounts not to read the same."""
    places = MONEY_PLACES
    while a != b and usd(a, places) == usd(b, places) and places < 28:
        places += 1
    return usd(a, places), usd(b, places)


def signed_usd(d: Decimal) -> str:
    """A change in dollars with its sign: ``+$0.0312``, ``-$0.0050``, ``$0.0000``."""
    text = usd(d)
    return text if text.startswith("-") or not d else "+" + text


def exact(d: Decimal) -> str:
    """An exact decimal string without exponent, for JSON (e.g. ``Decimal('1E-7')`` -> ``"0.0000001"``)."""
    text = format(d, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text or "0"


def rate(d: Decimal | None) -> str:
    """A price per million tokens, e.g. ``$3/MTok``."""
    return "-" if d is None else f"${exact(d)}/MTok"


def percent(d: Decimal | None, places: int = 1) -> str:
    if d is None:
        return "-"
    q = (d * 100).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    return f"{q}%"


def ratio(d: Decimal | None) -> str:
    """A multiple, e.g. ``3.42×``."""
    return "-" if d is None else f"{d:,.2f}×"


def csv_bool(value: bool | None) -> str:
    """``true``/``false`` for CSV cells; unknown is an empty cell."""
    return "" if value is None else str(value).lower()
