"""Reading the files ``replay`` and ``calibrate`` take, within the limits of docs/limits.md.

A recorded run (a trace) may be up to :data:`MAX_TRACE_BYTES`; the small files beside it (``--tools``,
``--system``, ``--config``) up to :data:`agentcost.infra.yamlread.MAX_FILE_BYTES`. Either is refused by
its size before it is read. JSON nested more than :data:`agentcost.infra.yamlread.MAX_DEPTH` levels deep,
or with a number of more digits than Python reads, is an :class:`InputError` naming the file and
line, never a ``RecursionError`` or ``ValueError`` from deep inside the counting code.

A reported token count is bounded as a scenario's sizes are (:func:`usage_count`: a whole number from
0 to :data:`MAX_USAGE`), a reported cost as budgets are (:func:`reported_dollars`); a message about a
trace's value names its key and type (:func:`agentcost.infra.validate.shown`), never its text.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from agentcost.errors import InputError
from agentcost.infra.yamlread import MAX_DEPTH, MAX_FILE_BYTES, Unreadable, check_plain, shown
from agentcost.infra.yamlread import read_text as _read_text
from agentcost.scenario.model import MAX_BUDGET_USD
from agentcost.scenario.values import MAX_COUNT

__all__ = [
    "MAX_TRACE_BYTES",
    "MAX_USAGE",
    "TOO_DEEP",
    "loads",
    "number_error",
    "read_small_text",
    "read_text",
    "reported_dollars",
    "usage_count",
]

MAX_TRACE_BYTES = 256_000_000
"""Largest trace (recorded run) read by ``replay`` and ``calibrate``: logs of long runs are large."""

MAX_USAGE = MAX_COUNT
"""Largest token count a trace may report in one field: as for a scenario's sizes (docs/limits.md)."""

TOO_DEEP = f"nested too deeply: more than {MAX_DEPTH} levels of JSON objects and arrays"
_LIMITS = "real logs nest fewer than 20 levels"


def read_text(path: Path, *, key: str | None = None, limit: int = MAX_TRACE_BYTES) -> str:
    """The UTF-8 text of a trace (``limit``: :data:`MAX_TRACE_BYTES`) or of a file beside it
    (``key`` the option that names it, e.g. ``--tools``; pass ``limit=MAX_FILE_BYTES``)."""
    try:
        return _read_text(path, limit=limit)
    except Unreadable as e:
        raise InputError(e.reason, file=path, line=e.line, key=key) from None


def read_small_text(path: Path, *, key: str) -> str:
    """:func:`read_text` for the files beside a trace: ``--tools``, ``--system``, ``--config``."""
    return read_text(path, key=key, limit=MAX_FILE_BYTES)


def number_error(error: ValueError) -> str:
    """The message for a ``ValueError`` of ``json`` that is not bad syntax (a number too long)."""
    import sys

    most = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else 0
    if "digits" in str(error) and most:
        return f"not valid JSON: a number has more than {most:,} digits"
    return "not valid JSON: a value cannot be read"


def loads(text: str, path: Path, *, line: int | None = None, key: str | None = None) -> Any:
    """``json.loads(text)`` of a whole file or of its line ``line``.

    Bad syntax raises ``json.JSONDecodeError`` as ``json.loads`` does (the callers tell a cut tail
    from a mistake); too deep a nesting or too long a number raises :class:`InputError`."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise InputError(TOO_DEEP, file=path, line=line, key=key, hint=_LIMITS) from None
    except ValueError as err:
        raise InputError(number_error(err), file=path, line=line, key=key) from None
    problem = check_plain(value, values=False)
    if problem is not None:
        raise InputError(TOO_DEEP, file=path, line=line, key=key, hint=_LIMITS)
    return value


def usage_count(value: Any, key: str, path: Path, line: int | None = None) -> int:
    """A token count a trace reports at ``key``: a whole number from 0 to :data:`MAX_USAGE` (missing
    or null is 0). Anything else (text, a fraction, ``1e30``, a negative) is an :class:`InputError`
    naming the file, line and key, and the value's type, never its text."""
    if value is None:
        return 0
    if type(value) is not int or not 0 <= value <= MAX_USAGE:
        raise InputError(
            f"must be a whole number from 0 to {MAX_USAGE:,}, got {shown(value, quote=False)}",
            file=path,
            line=line,
            key=key,
        )
    return value


def reported_dollars(value: Any, key: str, path: Path, line: int | None = None) -> Decimal | None:
    """A cost a trace reports at ``key`` (a JSON number: dollars), or None when it is not a number.
    A negative, infinite or larger amount than any budget (``MAX_BUDGET_USD``) is an :class:`InputError`."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return None
    amount = Decimal(str(value)) if isinstance(value, float) else Decimal(value)
    if not amount.is_finite() or not 0 <= amount <= MAX_BUDGET_USD:
        raise InputError(
            f"must be a dollar amount from 0 to {int(MAX_BUDGET_USD):,}, got {shown(value, quote=False)}",
            file=path,
            line=line,
            key=key,
        )
    return amount
