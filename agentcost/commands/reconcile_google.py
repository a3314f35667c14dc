"""Reading a Google Cloud Billing export (Gemini on Vertex AI or the Gemini API) for ``agentcost
reconcile``: rows of the standard usage cost data, as CSV or as JSON rows. Bounded and untrusted,
as :mod:`agentcost.commands.reconcile_read`, which sniffs the format and calls :func:`read_csv` or
:func:`read_rows`.

The schema (Cloud Billing "Structure of Standard data export",
https://docs.cloud.google.com/billing/docs/how-to/export-data-bigquery-tables/standard-usage, read
2026-12-07; the table ``gcp_billing_export_v1_<BILLING_ACCOUNT_ID>``): each row is one SKU's usage
in an hourly window, with ``service.description``, ``sku.description``, ``usage_start_time``
(TIMESTAMP), ``cost`` (before credits), ``currency``, ``usage.amount`` and ``usage.unit``, and
``cost_type`` (``regular``, ``tax``, ``adjustment``, ``rounding error``). A CSV of it names those
columns with dots (``sku.description``) or, as a BigQuery query's aliases must, with underscores
(``sku_description``); JSON rows (``bq query --format=json``, or newline-delimited as ``bq
extract`` writes them) nest them (``{"sku": {"description": ...}}``). Other columns are ignored.

Which rows are Gemini tokens is read from the SKU's text. Google names its Vertex AI Gemini SKUs
``Gemini <version> <Pro|Flash|Flash Lite> [GA] [Thinking] Text Input|Output - Predictions``, ``...
Input Text Caching`` and ``... Caching Storage`` (Google's SKU groups, e.g.
https://cloud.google.com/skus/sku-groups/vertex-api-gemini-2-x-skus, as quoted in public code that
reads them, 2026-12-07). So a row is tokens only when its SKU names a Gemini model and says
``Text`` and ``Input`` or ``Output``, and its ``usage.unit`` is a count of tokens (``count``,
``token`` or ``tokens``): ``Input`` with ``Caching`` is cache reads, ``Input`` uncached input,
``Output`` (thinking included) output; ``Batch`` in the SKU is the batch tier, ``Long`` a long-context
row. Every other Gemini row (caching storage, images, audio, grounding, another unit, a ``cost_type``
other than ``regular``) is money only: a cost of its day without a model. Rows whose SKU names no
Gemini model (other services, other models on Vertex AI) are left out, and a note says how many and
how much.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from agentcost.errors import InputError
from agentcost.infra.record import record

PROVIDER = "google"  # genai-prices prices Gemini on Vertex AI and on the Gemini API as google's
KIND = "google-billing"
MAX_ROWS = 1_000_000
MAX_TOKENS = 10**15
MAX_USD = Decimal(10) ** 11
TOKEN_UNITS = ("count", "token", "tokens")
COLUMNS = ("sku_description", "usage_start_time", "cost")  # the columns a row must have
HINT = (
    "give a Cloud Billing export: CSV with the columns sku.description, usage_start_time, cost,"
    " currency, usage.amount, usage.unit (docs/reconcile.md#google-cloud-billing)"
)
_MODEL = re.compile(r"\bgemini\s+(\d+(?:\.\d+)?)\s+(pro|flash[\s-]lite|flash)\b", re.IGNORECASE)


@record
class GoogleRow:
    """One row read: its day, the model its SKU names, what the SKU bills and the amounts."""

    day: date
    model: str | None  # None: the SKU names no Gemini model (the row is left out)
    kind: str | None  # uncached_input, cache_read, output; None: money only
    tier: str
    long_context: bool
    tokens: int
    usd: Decimal


def model_of(sku: str) -> str | None:
    """``Gemini 2.5 Flash Lite Text Input - Predictions`` -> ``gemini-2.5-flash-lite``."""
    found = _MODEL.search(sku)
    if found is None:
        return None
    variant = re.sub(r"[\s-]+", "-", found.group(2).lower())
    return f"gemini-{found.group(1)}-{variant}"


def token_kind(sku: str) -> str | None:
    """What a Gemini SKU bills in tokens (see the module docstring), or None: money only."""
    words = set(re.findall(r"[a-z]+", sku.lower()))
    if "storage" in words or "text" not in words:
        return None
    if "input" in words:
        return "cache_read" if words & {"caching", "cached", "cache"} else "uncached_input"
    if "output" in words:
        return "output"
    return None


class _Where:
    def __init__(self, path: str, line: int | None = None, key: str | None = None) -> None:
        self.path, self.line, self.key = path, line, key

    def error(self, column: str, message: str, hint: str = HINT) -> InputError:
        key = column if self.key is None else f"{self.key}.{column}"
        return InputError(message, file=self.path, line=self.line, key=key, hint=hint)


def _row(fields: Mapping[str, Any], where: _Where) -> GoogleRow:
    """One row's fields (names with underscores) -> :class:`GoogleRow`."""
    sku = fields.get("sku_description")
    if not isinstance(sku, str) or not sku.strip() or len(sku) > 500:
        raise where.error("sku.description", "expected the SKU's description")
    model = model_of(sku)
    currency = fields.get("currency")
    if currency not in (None, "") and (not isinstance(currency, str) or currency.strip().upper() != "USD"):
        raise where.error("currency", "only USD amounts are compared", "export the costs in USD")
    usd = _decimal(fields.get("cost"), where, "cost", MAX_USD, "dollars, e.g. 0.1234")
    day = _day(fields.get("usage_start_time"), where)
    kind = token_kind(sku) if model is not None else None
    cost_type = fields.get("cost_type")
    if cost_type not in (None, "", "regular"):
        kind = None  # tax, adjustment, rounding error: money only
    unit = fields.get("usage_unit")
    if kind is not None and (not isinstance(unit, str) or unit.strip().lower() not in TOKEN_UNITS):
        kind = None  # not a count of tokens: money only
    tokens = 0
    if kind is not None:
        amount = _decimal(fields.get("usage_amount"), where, "usage.amount", Decimal(MAX_TOKENS), "a count")
        if amount < 0 or amount != amount.to_integral_value():
            raise where.error("usage.amount", "expected a whole number of tokens", "re-export the data")
        tokens = int(amount)
    words = set(re.findall(r"[a-z]+", sku.lower()))
    return GoogleRow(
        day, model, kind, "batch" if "batch" in words else "standard", "long" in words, tokens, usd
    )


def _decimal(value: object, where: _Where, column: str, most: Decimal, example: str) -> Decimal:
    if isinstance(value, int | Decimal) and not isinstance(value, bool):
        number = Decimal(value)
    elif isinstance(value, str) and value.strip() and len(value) <= 40:
        try:
            number = Decimal(value.strip())
        except InvalidOperation:
            raise where.error(column, f"expected a number: {example}") from None
    else:
        raise where.error(column, f"expected a number: {example}")
    if not number.is_finite() or abs(number) > most:
        raise where.error(column, f"expected a number: {example}")
    return number


def _day(value: object, where: _Where) -> date:
    """The UTC day of a BigQuery TIMESTAMP: ``2026-11-02 07:00:00 UTC`` (CSV, JSON), RFC 3339, or
    without a zone (then UTC, BigQuery's)."""
    try:
        if not isinstance(value, str) or len(value) > 40:
            raise ValueError
        text = value.strip()
        if text.upper().endswith(" UTC"):
            text = text[:-4] + "+00:00"
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise where.error("usage_start_time", "expected a time", "e.g. 2026-11-02 07:00:00 UTC") from None
    return (when if when.tzinfo is not None else when.replace(tzinfo=UTC)).astimezone(UTC).date()


def _name(column: str) -> str:
    return column.strip().lower().replace(".", "_")


def looks_like_csv(text: str) -> bool:
    """Whether ``text`` starts with a header row naming the columns a billing export row needs."""
    first = text.lstrip("\ufeff").split("\n", 1)[0]
    if first.lstrip().startswith(("{", "[")):
        return False
    names = {_name(c) for c in first.split(",")}
    return all(c in names for c in COLUMNS)


def read_csv(text: str, path: str) -> list[GoogleRow]:
    """The rows of a CSV billing export (header row first)."""
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff"), newline=""), strict=True)
    rows: list[GoogleRow] = []
    try:
        header = [_name(c) for c in next(reader)]
        for cells in reader:
            if not any(c.strip() for c in cells):
                continue
            if len(rows) >= MAX_ROWS:
                raise InputError(f"more than {MAX_ROWS:,} rows", file=path, line=reader.line_num, hint=HINT)
            if len(cells) != len(header):
                raise InputError(
                    f"expected {len(header)} columns as in the header, got {len(cells)}",
                    file=path,
                    line=reader.line_num,
                    hint=HINT,
                )
            rows.append(_row(dict(zip(header, cells, strict=True)), _Where(path, reader.line_num)))
    except csv.Error:
        raise InputError("not valid CSV", file=path, line=reader.line_num, hint=HINT) from None
    return rows


def _flat(value: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """A JSON row's fields, nested records joined with underscores (``sku_description``)."""
    for key, item in value.items():
        name = prefix + _name(str(key))
        if isinstance(item, dict) and len(prefix) < 100:
            yield from _flat(item, name + "_")
        else:
            yield name, item


def is_rows(data: object) -> bool:
    """Whether parsed JSON is a list of billing export rows (its first row has a SKU description)."""
    if not isinstance(data, list) or not data or not isinstance(data[0], dict):
        return False
    return "sku_description" in dict(_flat(data[0]))


def read_rows(data: Iterable[object], path: str) -> list[GoogleRow]:
    """The rows of a billing export as JSON rows (a list, or the objects of a JSON Lines file)."""
    rows: list[GoogleRow] = []
    for i, item in enumerate(data):
        if len(rows) >= MAX_ROWS:
            raise InputError(f"more than {MAX_ROWS:,} rows", file=path, hint=HINT)
        if not isinstance(item, dict):
            raise InputError("expected a row object", file=path, key=f"[{i}]", hint=HINT)
        rows.append(_row(dict(_flat(item)), _Where(path, key=f"[{i}]")))
    return rows


def jsonl_rows(text: str, path: str) -> list[object] | None:
    """The objects of a JSON Lines billing export, or None when ``text`` is not one."""
    import json

    items: list[object] = []
    for n, line in enumerate(text.lstrip("\ufeff").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            items.append(json.loads(line, parse_float=Decimal))
        except (ValueError, RecursionError):
            if not items:
                return None
            raise InputError(f"not JSON (line {n})", file=path, line=n, hint=HINT) from None
    return items if is_rows(items) else None


__all__ = [
    "KIND",
    "PROVIDER",
    "GoogleRow",
    "is_rows",
    "jsonl_rows",
    "looks_like_csv",
    "model_of",
    "read_csv",
    "read_rows",
]
