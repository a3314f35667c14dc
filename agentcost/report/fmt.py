"""The one place that turns numbers into text. ``None`` means unknown and shows as "-", never 0."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Context, Decimal, localcontext


def tokens(n: int | None) -> str:
    return "-" if n is None else f"{n:,}"


MONEY_PLACES = 4
"""Dollars shown to people carry 4 decimals everywhere (cells, totals, gates, budgets, per-day and
per-month figures); JSON and CSV carry the exact value (:func:`exact`)."""

ARROW = "→"
"""The one arrow of a change, before → after, in every output."""


_WIDE = Context(prec=200)  # enough digits to quantize any amount to any places shown


def usd(d: Decimal | None, places: int = MONEY_PLACES) -> str:
    """Dollars for people: rounded half-up to 4 decimals; a non-zero amount under $0.0001 keeps two
    significant digits (``$0.000012``) so that it never reads as zero. Reports keep the exact value."""
    if d is None:
        return "-"
    if d and abs(d) < Decimal(1).scaleb(-places):
        wider = max(places, 1 - d.adjusted())  # the second significant digit
        if abs(d.quantize(Decimal(1).scaleb(-wider), ROUND_HALF_UP, _WIDE)) < Decimal(1).scaleb(-places):
            places = wider  # else it rounds up to the usual last digit: $0.0001, not $0.000100
    q = d.quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP, _WIDE)
    sign = "-" if q < 0 else ""
    with localcontext(_WIDE):  # format() rounds to the context's precision: keep every digit
        return f"{sign}${abs(q):,.{places}f}"


def usd_pair(a: Decimal, b: Decimal) -> tuple[str, str]:
    """Two amounts compared (a total and its limit, before and after): shown with the usual 4
    decimals, or with as many more as it takes for two different amounts not to read the same."""
    first, second = usd_series((a, b))
    return first, second


def usd_series(amounts: Sequence[Decimal]) -> list[str]:
    """Amounts read side by side (a histogram's bin edges): all with the same decimals, the usual 4 or
    as many more as it takes for different amounts not to read the same (at most 28)."""
    places = MONEY_PLACES

    def shown(p: int) -> list[str]:
        return [usd(d, p) for d in amounts]

    while places < 28 and len(set(shown(places))) < len(set(amounts)):
        places += 1
    return shown(places)


def signed_usd(d: Decimal) -> str:
    """A change in dollars with its sign: ``+$0.0312``, ``-$0.0050``, ``$0.0000``."""
    return signed(d, usd(d))


def signed(d: Decimal, text: str) -> str:
    """``text`` (``d`` shown by :func:`usd` or :func:`usd_pair`) with a ``+`` when ``d`` is positive."""
    return "+" + text if d > 0 else text


def exact(d: Decimal) -> str:
    """An exact decimal string without exponent, for JSON (e.g. ``Decimal('1E-7')`` -> ``"0.0000001"``)."""
    text = format(d, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text or "0"


def exact_places(d: Decimal, places: int) -> str:
    """:func:`exact` of ``d`` rounded half-up to ``places`` decimals: a share or a mean for JSON and
    CSV (``Decimal('0.03349')``, 4 -> ``"0.0335"``)."""
    return exact(d.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def mean_count(d: Decimal) -> str:
    """A mean of counts (requests, tokens) for people: one decimal, half-up, thousands separated
    (``78,160.9``)."""
    return f"{d.quantize(Decimal('0.1'), rounding=ROUND_HALF_UP):,}"


RATE_DIGITS = 12
"""A price per million tokens shown to people keeps at most this many significant digits: every
published rate whole (``$0.10875``), a rate genai-prices computed in binary floating point as it reads
(``0.27999999999999997`` -> ``$0.28``). JSON and CSV carry the exact value (:func:`exact`)."""


def per_mtok(d: Decimal | None) -> str:
    """A price per million tokens for people, without its unit: ``$3``, ``$0.28`` (:data:`RATE_DIGITS`)."""
    if d is None:
        return "-"
    if d and d.adjusted() - RATE_DIGITS + 1 < 0:
        d = d.quantize(Decimal(1).scaleb(d.adjusted() - RATE_DIGITS + 1), ROUND_HALF_UP, _WIDE)
    return f"${exact(d)}"


def rate(d: Decimal | None) -> str:
    """A price per million tokens, e.g. ``$3/MTok`` (see :data:`RATE_DIGITS`)."""
    return "-" if d is None else f"{per_mtok(d)}/MTok"


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


def signed_tokens(n: int) -> str:
    """A change in tokens: ``+1,240`` / ``-85`` / ``0``."""
    return ("+" if n > 0 else "") + tokens(n)


def signed_percent(d: Decimal | None) -> str:
    """A change as a share: ``+25.0%`` / ``-3.1%``; ``-`` when unknown (a change from nothing)."""
    text = percent(d)
    return "+" + text if d is not None and d > 0 else text
