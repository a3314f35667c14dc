"""The options an estimate is priced with: the price date, and what replaces the scenario's own model,
service tier and prices.

Every :class:`~agentcost.loop.estimate.Estimate` carries its :class:`PricingOptions`, so that what
estimates it again (insights' levers, the simulation's runs, diff) prices it alike without being
told again. Errors name options by their neutral keys (``as_of``, ``model``, ``service_tier``); the
CLI shows its flags instead (:mod:`agentcost.cli.options`).
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import TYPE_CHECKING

from agentcost.errors import InputError
from agentcost.infra.record import record

if TYPE_CHECKING:
    from agentcost.prices.user import UserPrices


@record
class PricingOptions:
    """How a run is priced: at ``as_of``, on ``model`` instead of the scenario's (None: its own), at
    ``service_tier`` instead of the scenario's ``service_tier`` (None: its own), with the models of a
    loaded price file (``user_prices``) added to the catalog's. ``at_time``: whether ``as_of``'s time
    of day picks time-of-day prices (:func:`has_time`; None: unless it is midnight UTC, a date alone)."""

    as_of: datetime
    service_tier: str | None = None
    user_prices: UserPrices | None = None
    model: str | None = None
    at_time: bool | None = None

    def for_subagent(self) -> PricingOptions:
        """A subagent runs on its own model: the same date and price file, never the parent's model or
        service tier."""
        return PricingOptions(self.as_of, user_prices=self.user_prices, at_time=self.at_time)


def today() -> datetime:
    """The default ``as_of``: the start of today (UTC). Prices are dated by day (genai-prices'
    price changes start on a date), so the whole day prices alike and its runs print alike."""
    now = datetime.now(tz=UTC)
    return datetime(now.year, now.month, now.day, tzinfo=UTC)


AS_OF_RANGE = (date(1970, 1, 1), date(9998, 12, 31))  # the dates --as-of accepts


def parse_as_of(value: str | None) -> datetime:
    """An ISO date or datetime (UTC when no zone is given); default :func:`today`."""
    if value is None:
        return today()
    try:
        parsed = datetime.fromisoformat(value)
        when = parsed.astimezone(UTC) if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)
    except (ValueError, OverflowError):  # OverflowError: a zone offset pushes it past year 1..9999
        raise InputError(
            f"not a usable date: {value!r}", key="as_of", hint="use an ISO date such as 2026-11-30"
        ) from None
    return _in_range(when, repr(value))


def has_time(value: date | datetime | str | None) -> bool:
    """Whether a price date as written gives a time of day: an ISO text with one (``2026-12-01T17:00``,
    ``T00:00`` too) or a datetime; not None (today), a date, or an ISO date alone. Only a time picks a
    model's time-of-day prices (DeepSeek's off-peak hours); a date alone is priced at the day's
    standard rates (:mod:`agentcost.prices.daytime`)."""
    if isinstance(value, datetime):
        return True
    if not isinstance(value, str):
        return False
    try:
        date.fromisoformat(value.strip())
    except ValueError:
        return True  # not a date alone: a datetime (parse_as_of says whether it is a usable one)
    return False


def as_of_datetime(value: date | datetime | str | None) -> datetime:
    """A price date from any spelling the library takes: None (today), an ISO text (:func:`parse_as_of`),
    a naive datetime (UTC), an aware one, or a date (midnight UTC); within :data:`AS_OF_RANGE`."""
    if value is None or isinstance(value, str):
        return parse_as_of(value)
    if isinstance(value, datetime):
        try:
            when = value.astimezone(UTC) if value.tzinfo is not None else value.replace(tzinfo=UTC)
        except OverflowError:
            raise InputError(f"not a usable date: {value!r}", key="as_of") from None
    elif isinstance(value, date):
        when = datetime(value.year, value.month, value.day, tzinfo=UTC)
    else:
        raise TypeError(f"as_of must be a date, a datetime, an ISO text or None, not {type(value).__name__}")
    return _in_range(when, str(value))


def _in_range(when: datetime, shown: str) -> datetime:
    if not AS_OF_RANGE[0] <= when.date() <= AS_OF_RANGE[1]:  # date arithmetic near year 9999 overflows
        raise InputError(
            f"{shown} is outside the supported dates, {AS_OF_RANGE[0]} to {AS_OF_RANGE[1]}",
            key="as_of",
            hint="use an ISO date such as 2026-11-30",
        )
    return when
