"""Prices that follow the time of day (DeepSeek's off-peak hours): which rates a date alone is priced
at, and the discounted windows a report names.

A price date without a time is a day, not midnight: it is priced at the day's standard rates, the
highest of its time-of-day prices (:func:`standard_moment`), and the report says which windows are
cheaper and by how much (:func:`off_peak_windows`). Only a time given with the date (``--as-of
2026-12-01T17:00``) picks a window's rates. Everything here is read from genai-prices' row; nothing
is written in by hand. genai-prices is not imported here: the row (``ModelInfo``) is passed in.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from decimal import Decimal
from typing import TYPE_CHECKING

from agentcost.infra.record import record

if TYPE_CHECKING:
    from genai_prices.types import ModelInfo, ModelPrice

# the rates compared to rank a moment's prices and to measure a discount, most telling first
_RATES = ("input_mtok", "output_mtok", "cache_read_mtok")


@record
class OffPeak:
    """A daily UTC window (``"HH:MM"``, end excluded; an end before its start runs past midnight) whose
    rates are below the standard ones, by ``discount_min`` to ``discount_max`` (fractions: 0.5 is
    50% off) across the input, output and cache-read rates."""

    start: str
    end: str
    discount_min: Decimal
    discount_max: Decimal


def _boundaries(windows: tuple[tuple[str, str], ...]) -> list[time]:
    """Midnight and every window's start and end: the day is one price between two of them."""
    marks = {time(0)}
    for start, end in windows:
        marks.add(time.fromisoformat(start))
        marks.add(time.fromisoformat(end))
    return sorted(marks)


def _rate(price: ModelPrice, key: str) -> Decimal | None:
    from genai_prices.types import TieredPrices

    value = getattr(price, key, None)
    if isinstance(value, TieredPrices):
        return value.base
    return value if isinstance(value, Decimal) else None


def _rank(price: ModelPrice) -> tuple[Decimal, ...]:
    return tuple(_rate(price, key) or Decimal(0) for key in _RATES)


def _segments(
    info: ModelInfo, day: date, windows: tuple[tuple[str, str], ...], context: dict[str, str] | None
) -> list[tuple[time, time, ModelPrice]]:
    """The day cut at its window boundaries: (start, end, prices) with end ``time(0)`` for midnight."""
    marks = _boundaries(windows)
    ends = [*marks[1:], time(0)]
    return [
        (start, end, info.get_prices(datetime.combine(day, start, tzinfo=UTC), context or None))
        for start, end in zip(marks, ends, strict=True)
    ]


def standard_moment(
    info: ModelInfo, day: date, windows: tuple[tuple[str, str], ...], context: dict[str, str] | None
) -> datetime:
    """The first moment of ``day`` (UTC) whose prices are the day's standard ones: the highest
    input rate, then output, then cache read, of its time-of-day prices."""
    segments = _segments(info, day, windows, context)
    start = max(segments, key=lambda s: _rank(s[2]))[0]  # max keeps the first of equals
    return datetime.combine(day, start, tzinfo=UTC)


def off_peak_windows(
    info: ModelInfo, day: date, windows: tuple[tuple[str, str], ...], context: dict[str, str] | None
) -> tuple[OffPeak, ...]:
    """The windows of ``day`` priced below its standard rates, adjacent ones at the same rates
    merged (across midnight too), each with its discount off the standard rates."""
    segments = _segments(info, day, windows, context)
    standard = max((s[2] for s in segments), key=_rank)
    runs: list[tuple[time, time, ModelPrice]] = []
    for start, end, price in segments:
        if _rank(price) == _rank(standard):
            continue
        if runs and runs[-1][1] == start and _rank(runs[-1][2]) == _rank(price):
            runs[-1] = (runs[-1][0], end, price)
        else:
            runs.append((start, end, price))
    if len(runs) > 1 and runs[-1][1] == runs[0][0] == time(0) and _rank(runs[0][2]) == _rank(runs[-1][2]):
        last = runs.pop()  # 16:30-24:00 and 00:00-00:30: one window, 16:30-00:30
        runs[0] = (last[0], runs[0][1], last[2])
    out = []
    for start, end, price in runs:
        fractions = [
            1 - off / std
            for key in _RATES
            if (std := _rate(standard, key)) and (off := _rate(price, key)) is not None
        ]
        if fractions:
            out.append(OffPeak(f"{start:%H:%M}", f"{end:%H:%M}", min(fractions), max(fractions)))
    return tuple(sorted(out, key=lambda o: o.start))
