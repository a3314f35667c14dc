"""The one place that turns numbers into text. ``None`` means unknown and shows as "-", never 0."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal


def tokens(n: int | None) -> str:
    return "-" if n is None else f"{n:,}"


def usd(d: Decimal | None, places: int = 4) -> str:
    """Dollars for display, rounded half-up to ``places`` decimals (reports keep the exact value)."""
    if d is None:
        return "-"
    q = d.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    sign = "-" if q < 0 else ""
    return f"{sign}${abs(q):,.{places}f}"


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
