"""JSON text of values read from scenario and tool files.

Numbers with a fraction are read as ``Decimal`` (never float), which ``json.dumps`` refuses; this
writes them as their own text and is otherwise ``json.dumps``. Shared by the scenario loader and the
token counters, which must see the same text.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any


def dump_json(value: Any, *, separators: tuple[str, str] = (",", ":"), ensure_ascii: bool = False) -> str:
    """JSON text of a plain value as ``json.dumps(value, separators=..., ensure_ascii=...)`` writes
    it, except that a ``Decimal`` (any number with a fraction read from a scenario or tool file)
    is written as its own text. The defaults give the compact form used for tool-call inputs."""
    try:  # the common case, and fast: no Decimal in the value
        return json.dumps(value, separators=separators, ensure_ascii=ensure_ascii)
    except TypeError:
        parts: list[str] = []
        _encode(value, parts, separators, ensure_ascii)
        return "".join(parts)


def _encode(value: Any, out: list[str], separators: tuple[str, str], ascii_only: bool) -> None:
    comma, colon = separators
    if isinstance(value, dict):
        out.append("{")
        for i, (key, item) in enumerate(value.items()):
            out.append(comma if i else "")
            out.append(json.dumps(str(key), ensure_ascii=ascii_only) + colon)
            _encode(item, out, separators, ascii_only)
        out.append("}")
    elif isinstance(value, list | tuple):
        out.append("[")
        for i, item in enumerate(value):
            out.append(comma if i else "")
            _encode(item, out, separators, ascii_only)
        out.append("]")
    elif isinstance(value, Decimal):
        out.append(str(value))
    else:
        out.append(json.dumps(value, ensure_ascii=ascii_only))
