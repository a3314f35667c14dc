"""Reading the files ``replay`` and ``calibrate`` take, within the limits of docs/limits.md.

A recorded run (a trace) may be up to :data:`MAX_TRACE_BYTES`; the small files beside it (``--tools``,
``--system``, ``--config``) up to :data:`agentcost.infra.yamlread.MAX_FILE_BYTES`. Either is refused by
its size before it is read. JSON nested more than :data:`agentcost.infra.yamlread.MAX_DEPTH` levels deep,
or with a number of more digits than Python reads, is an :class:`InputError` naming the file and
line, never a ``RecursionError`` or ``ValueError`` from deep inside the counting code.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentcost.errors import InputError
from agentcost.infra.yamlread import MAX_DEPTH, MAX_FILE_BYTES, Unreadable, check_plain
from agentcost.infra.yamlread import read_text as _read_text

__all__ = ["MAX_TRACE_BYTES", "TOO_DEEP", "loads", "number_error", "read_small_text", "read_text"]

MAX_TRACE_BYTES = 256_000_000
"""Largest trace (recorded run) read by ``replay`` and ``calibrate``: logs of long runs are large."""

TOO_DEEP = f"nested too deeply: more than {MAX_DEPTH} levels of JSON objects and arrays"
_LIMITS = "see docs/limits.md"


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
