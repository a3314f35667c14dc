"""Reading the providers' usage and cost exports (bounded, untrusted) for ``agentcost reconcile``.

Reads four documented JSON responses (the formats, read 2026-12-02):

- Anthropic Usage & Cost Admin API, ``GET /v1/organizations/usage_report/messages``
  (https://platform.claude.com/docs/en/api/admin/usage_report/retrieve_messages): ``data`` is a list
  of time buckets (``starting_at``, ``ending_at``, ``results``); a result holds ``model``,
  ``service_tier``, ``context_window``, ``uncached_input_tokens``, ``cache_read_input_tokens``,
  ``cache_creation`` (``ephemeral_5m_input_tokens``, ``ephemeral_1h_input_tokens``),
  ``output_tokens`` and ``server_tool_use.web_search_requests``.
- Anthropic ``GET /v1/organizations/cost_report``
  (https://platform.claude.com/docs/en/api/admin/cost_report): the same buckets; a result's
  ``amount`` is a decimal string in the currency's lowest units (cents: ``"123.45"`` USD is $1.23),
  with ``currency``, ``cost_type``, ``model`` (null for non-token costs) and ``service_tier``.
- OpenAI Usage API, ``GET /v1/organization/usage/completions``
  (https://platform.openai.com/docs/api-reference/usage/completions): ``object: page``, buckets with
  ``start_time``/``end_time`` (Unix seconds) and results of ``object:
  organization.usage.completions.result`` holding ``input_tokens`` (cached ones included),
  ``input_cached_tokens``, ``output_tokens``, ``num_model_requests``, ``model``, ``batch`` and
  ``service_tier``.
- OpenAI Costs API, ``GET /v1/organization/costs``
  (https://platform.openai.com/docs/api-reference/usage/costs): results of ``object:
  organization.costs.result`` with ``amount.value`` (dollars) and ``amount.currency``; its
  ``line_item`` values are not documented, so OpenAI costs are compared per day only.

Every problem is one :class:`~agentcost.errors.InputError` naming the file, the key path in it
(``data[0].results[2].output_tokens``) and the fix.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from agentcost.errors import InputError
from agentcost.infra.record import record
from agentcost.prices.billing import anthropic_server_tools, search_preview_calls

if TYPE_CHECKING:
    from agentcost.commands.reconcile_google import GoogleRow

T = TypeVar("T")

MAX_EXPORT_BYTES = 10_000_000
MAX_TOKENS = 10**15  # a count beyond this is not usage
ANTHROPIC_TIERS = {"standard": "standard", "batch": "batch", "priority": "priority", "flex": "flex"}
HINT = (
    "give the JSON response of Anthropic's /v1/organizations/usage_report/messages or cost_report,"
    " or OpenAI's /v1/organization/usage/completions or /v1/organization/costs"
)


@record
class UsageLine:
    """One model's usage on one day at one service tier, summed over an export's results."""

    provider: str
    day: date
    model: str | None
    tier: str
    uncached_input: int = 0
    cache_read: int = 0
    cache_write_5m: int = 0
    cache_write_1h: int = 0
    output: int = 0
    web_searches: int = 0
    long_context: bool = False
    tier_known: bool = True


@record
class CostLine:
    """One amount of a cost export, in dollars: a model's (tokens) or the day's (``model`` None)."""

    provider: str
    day: date
    model: str | None
    usd: Decimal


@record
class Export:
    """One file read: which export it is and what it holds."""

    path: str
    kind: str  # anthropic-usage, anthropic-cost, openai-usage, openai-cost, empty
    usage: tuple[UsageLine, ...] = ()
    costs: tuple[CostLine, ...] = ()
    more_pages: bool = False
    notes: tuple[str, ...] = ()  # what the reading left out (a Google export's other SKUs)


# ---------------------------------------------------------------------------------------------
# Reading the exports
# ---------------------------------------------------------------------------------------------


class _Place:
    """Where in a file a value is: the file, and a key path such as ``data[0].results[2].model``."""

    def __init__(self, path: str, where: str = "") -> None:
        self.path = path
        self.where = where

    def at(self, part: str | int) -> _Place:
        step = f"[{part}]" if isinstance(part, int) else (f".{part}" if self.where else part)
        return _Place(self.path, self.where + step)

    def error(self, message: str, hint: str) -> InputError:
        return InputError(message, file=self.path, key=self.where or None, hint=hint)


def _obj(value: object, place: _Place) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise place.error(f"expected an object, got {_kind(value)}", HINT)
    return value


def _list(value: object, place: _Place) -> list[Any]:
    if not isinstance(value, list):
        raise place.error(f"expected a list, got {_kind(value)}", HINT)
    return value


def _kind(value: object) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "true/false"}.get(
        type(value), "null" if value is None else "a number"
    )


def _count(row: Mapping[str, Any], key: str, place: _Place, *, required: bool = False) -> int:
    value = row.get(key)
    if value is None and not required:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_TOKENS:
        raise place.at(key).error(
            f"expected a whole number of tokens from 0 to {MAX_TOKENS:,}, got {_shown(value)}",
            "the export's counts are whole numbers; re-download it",
        )
    return value


def _text(row: Mapping[str, Any], key: str, place: _Place) -> str | None:
    value = row.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > 200:
        raise place.at(key).error(f"expected a name, got {_shown(value)}", HINT)
    return value.strip()


def _shown(value: object) -> str:
    text = json.dumps(value, default=str) if not isinstance(value, Decimal) else str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _day_of(bucket: Mapping[str, Any], place: _Place) -> date:
    if "starting_at" in bucket:
        value = bucket["starting_at"]
        try:
            if not isinstance(value, str):
                raise ValueError
            when = datetime.fromisoformat(value.replace("Z", "+00:00"))
            if when.tzinfo is None:
                raise ValueError
        except ValueError:
            raise place.at("starting_at").error(
                f"expected an RFC 3339 time, got {_shown(value)}", "e.g. 2026-11-02T00:00:00Z"
            ) from None
        return when.astimezone(UTC).date()
    value = bucket.get("start_time")
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**35:
        raise place.at("start_time").error(
            f"expected Unix seconds, got {_shown(value)}", "each bucket has start_time, e.g. 1730419200"
        )
    return datetime.fromtimestamp(value, UTC).date()


def read_exports(paths: Iterable[Path]) -> list[Export]:
    """Read the export files in order, each within :data:`MAX_EXPORT_BYTES` and all of them within
    the run's input budget (``--max-input-bytes``, 64 MiB by default): the first file that would
    take the total over it is refused by its size, before it is read (every export is parsed and
    held at once: 100 files of 10 MB of JSON would take gigabytes)."""
    import os

    from agentcost.infra.policy import current_policy

    budget = current_policy().max_input_bytes
    read: list[Export] = []
    total = 0
    for path in paths:
        try:
            size = os.stat(path).st_size
        except (OSError, ValueError):
            size = 0  # read_export says what is wrong with it
        if total + size > budget:
            raise InputError(
                f"more than {budget:,} bytes of exports in all: {total + size:,} with this file",
                file=str(path),
                hint="reconcile a shorter period, or raise the limit with --max-input-bytes N",
            )
        read.append(read_export(path, limit=min(MAX_EXPORT_BYTES, budget - total)))
        total += size
    return read


def read_export(path: Path, *, limit: int = MAX_EXPORT_BYTES) -> Export:
    """Read one export file (at most ``limit`` bytes), or raise :class:`InputError` naming the file,
    key and fix."""
    from agentcost.infra.files import Unreadable, read_text

    shown = str(path)
    try:
        text = read_text(path, limit=limit)
    except Unreadable as e:
        raise InputError(
            e.reason, file=shown, line=e.line, hint="give a usage or cost export (JSON)"
        ) from None
    from agentcost.commands import reconcile_google as google

    if google.looks_like_csv(text):  # a Google Cloud Billing export as CSV
        return google_export(shown, google.read_csv(text, shown))
    try:
        data = json.loads(text, parse_float=Decimal, parse_constant=_no_constant)
    except (ValueError, RecursionError) as e:
        rows = google.jsonl_rows(text, shown)  # or its rows as JSON Lines
        if rows is not None:
            return google_export(shown, google.read_rows(rows, shown))
        where = f" (line {e.lineno})" if isinstance(e, json.JSONDecodeError) else ""
        raise InputError(f"not JSON{where}", file=shown, hint=HINT) from None
    return parse_export(data, shown)


def google_export(path: str, rows: Sequence[GoogleRow]) -> Export:
    """A Google Cloud Billing export's rows (:mod:`agentcost.commands.reconcile_google`) as usage
    and costs: a Gemini token SKU's tokens and cost under its model, another Gemini SKU's cost under
    its day only, and a note for the rows of other SKUs, left out."""
    from agentcost.commands.reconcile_google import KIND, PROVIDER

    usage: list[UsageLine] = []
    costs: list[CostLine] = []
    others, other_usd, money, money_usd = 0, Decimal(0), 0, Decimal(0)
    for r in rows:
        if r.model is None:
            others, other_usd = others + 1, other_usd + r.usd
            continue
        if r.kind is None:
            money, money_usd = money + 1, money_usd + r.usd
            costs.append(CostLine(PROVIDER, r.day, None, r.usd))
            continue
        usage.append(
            UsageLine(
                PROVIDER,
                r.day,
                r.model,
                r.tier,
                uncached_input=r.tokens if r.kind == "uncached_input" else 0,
                cache_read=r.tokens if r.kind == "cache_read" else 0,
                output=r.tokens if r.kind == "output" else 0,
                long_context=r.long_context,
            )
        )
        costs.append(CostLine(PROVIDER, r.day, r.model, r.usd))
    from agentcost.report.fmt import usd

    notes: list[str] = []
    if money:
        notes.append(
            f"{path}: {_rows(money)} of Gemini SKUs not billed in tokens (caching storage, other"
            f" modalities, tax, adjustments: {usd(money_usd)}) are in the days' costs, not in a model's"
        )
    if others:
        notes.append(f"{path}: {_rows(others)} of SKUs that name no Gemini model left out ({usd(other_usd)})")
    return Export(path, KIND, tuple(usage), tuple(costs), notes=tuple(notes))


def _rows(n: int) -> str:
    return f"{n:,} row" + ("" if n == 1 else "s")


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number")


def parse_export(data: object, path: str) -> Export:
    """An export's parsed JSON -> :class:`Export` (which of the four it is, by its documented shape)."""
    from agentcost.commands import reconcile_google as google

    if google.is_rows(data):  # a Google Cloud Billing export's rows as JSON
        assert isinstance(data, list)
        return google_export(path, google.read_rows(data, path))
    top = _obj(data, _Place(path))
    place = _Place(path, "data")
    buckets = _list(top.get("data"), place)
    first = next((r for b in buckets if isinstance(b, dict) for r in (b.get("results") or [])), None)
    more = top.get("has_more") is True
    if first is None:
        for i, bucket in enumerate(buckets):
            _list(_obj(bucket, place.at(i)).get("results"), place.at(i).at("results"))
        return Export(path, "empty", more_pages=more)
    if not isinstance(first, dict):
        raise place.error(f"a result is {_kind(first)}, not an object", HINT)
    anthropic = isinstance(buckets[0], dict) and "starting_at" in buckets[0]
    kinds: list[tuple[bool, str, Callable[[Mapping[str, Any], date, _Place], Any]]] = [
        (anthropic and "uncached_input_tokens" in first, "anthropic-usage", _anthropic_usage),
        (anthropic and "amount" in first, "anthropic-cost", _anthropic_cost),
        (first.get("object") == "organization.usage.completions.result", "openai-usage", _openai_usage),
        (first.get("object") == "organization.costs.result", "openai-cost", _openai_cost),
    ]
    for found, kind, read in kinds:
        if found:
            lines = tuple(_lines(buckets, place, read))
            if kind.endswith("usage"):
                return Export(path, kind, usage=lines, more_pages=more)
            return Export(path, kind, costs=lines, more_pages=more)
    raise place.error("not a usage or cost export agentcost reads", HINT)


def _lines(
    buckets: list[Any], place: _Place, read: Callable[[Mapping[str, Any], date, _Place], T]
) -> Iterable[T]:
    for i, bucket in enumerate(buckets):
        where = place.at(i)
        b = _obj(bucket, where)
        day = _day_of(b, where)
        for j, result in enumerate(_list(b.get("results"), where.at("results"))):
            yield read(_obj(result, where.at("results").at(j)), day, where.at("results").at(j))


def _anthropic_usage(r: Mapping[str, Any], day: date, place: _Place) -> UsageLine:
    cache = _obj(r.get("cache_creation") or {}, place.at("cache_creation"))
    tools = _obj(r.get("server_tool_use") or {}, place.at("server_tool_use"))
    uses = anthropic_server_tools(tools, lambda _, key: _count(tools, key, place.at("server_tool_use")), "")
    tier = _text(r, "service_tier", place) or "standard"
    return UsageLine(
        provider="anthropic",
        day=day,
        model=_text(r, "model", place),
        tier=ANTHROPIC_TIERS.get(tier, tier),
        uncached_input=_count(r, "uncached_input_tokens", place, required=True),
        cache_read=_count(r, "cache_read_input_tokens", place),
        cache_write_5m=_count(cache, "ephemeral_5m_input_tokens", place.at("cache_creation")),
        cache_write_1h=_count(cache, "ephemeral_1h_input_tokens", place.at("cache_creation")),
        output=_count(r, "output_tokens", place, required=True),
        web_searches=uses.web_searches,
        long_context=r.get("context_window") == "200k-1M",
        tier_known=tier in ANTHROPIC_TIERS,
    )


def _openai_usage(r: Mapping[str, Any], day: date, place: _Place) -> UsageLine:
    total = _count(r, "input_tokens", place, required=True)
    cached = _count(r, "input_cached_tokens", place)
    if cached > total:
        raise place.at("input_cached_tokens").error(
            f"{cached:,} cached tokens exceed the {total:,} input tokens",
            "input_tokens counts every input token, cached ones included",
        )
    batch = r.get("batch")
    if batch is not None and not isinstance(batch, bool):
        raise place.at("batch").error(f"expected true, false or null, got {_shown(batch)}", HINT)
    tier = _text(r, "service_tier", place)
    known = tier in (None, "default", "standard", "flex", "priority")
    chosen = "batch" if batch else ("standard" if tier in (None, "default") else tier)
    model = _text(r, "model", place)
    requests = _count(r, "num_model_requests", place)
    return UsageLine(
        provider="openai",
        day=day,
        model=model,
        tier=chosen,
        uncached_input=total - cached,
        cache_read=cached,
        output=_count(r, "output_tokens", place, required=True),
        # a search model's requests each run a web search preview call (agentcost.prices.billing)
        web_searches=search_preview_calls("openai", model or "", requests),
        tier_known=known,
    )


def _anthropic_cost(r: Mapping[str, Any], day: date, place: _Place) -> CostLine:
    _currency(r.get("currency"), place.at("currency"))
    amount = r.get("amount")
    try:
        if not isinstance(amount, str):
            raise ValueError
        cents = Decimal(amount)
        if not cents.is_finite() or abs(cents) > 10**13:
            raise ValueError
    except (ValueError, ArithmeticError):
        raise place.at("amount").error(
            f"expected a decimal string of cents, got {_shown(amount)}", 'e.g. "123.45" (that is $1.2345)'
        ) from None
    return CostLine("anthropic", day, _text(r, "model", place), cents / 100)


def _openai_cost(r: Mapping[str, Any], day: date, place: _Place) -> CostLine:
    amount = _obj(r.get("amount"), place.at("amount"))
    _currency(amount.get("currency"), place.at("amount").at("currency"))
    value = amount.get("value")
    if isinstance(value, int) and not isinstance(value, bool):
        value = Decimal(value)
    if not isinstance(value, Decimal) or not value.is_finite() or abs(value) > 10**11:
        raise place.at("amount").at("value").error(f"expected dollars, got {_shown(value)}", "e.g. 0.06")
    return CostLine("openai", day, None, value)


def _currency(value: object, place: _Place) -> None:
    if value is not None and (not isinstance(value, str) or value.lower() != "usd"):
        raise place.error(f"only USD amounts are compared, got {_shown(value)}", "export the costs in USD")
