"""The persistent cache's value codec: tagged JSON, rebuilt through agentcost's own dataclasses.

:func:`encode` / :func:`decode` store the types agentcost's frozen dataclasses hold; :func:`decode`
rebuilds only dataclasses defined in ``agentcost`` modules, through their constructors (never
pickle: the cache directory is the user's, but a cache should not be a way to run code).
"""

from __future__ import annotations

import dataclasses
import json
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path, PurePath
from typing import Any


class CodecError(ValueError):
    """A value the codec cannot store exactly (the caller then does not cache it)."""


_SHARE_MIN = 64  # strings at least this long are stored once and referenced after


def encode(value: object) -> bytes:
    """JSON bytes for ``value``: None, bool, int, float, str, Decimal, date, datetime, paths, tuples,
    lists, dicts, frozensets and dataclasses of ``agentcost`` modules (their ``init`` fields). Objects
    and long strings seen twice are stored once. Raises :class:`CodecError` for anything else."""
    refs: dict[int, int] = {}
    keep: list[object] = []  # keeps encoded objects alive so that their ids stay unique
    strings: dict[str, int] = {}
    counter = [0]

    def enc(v: object) -> Any:
        kind = type(v)
        if v is None or kind is bool or kind is int or kind is float:
            return v
        if kind is str:
            assert isinstance(v, str)
            if len(v) < _SHARE_MIN:
                return v
            index = strings.get(v)
            if index is not None:
                return ["r", index]
            strings[v] = counter[0]
            counter[0] += 1
            return ["S", v]
        if isinstance(v, Decimal):
            return ["D", str(v)]
        if isinstance(v, datetime):  # before date: a datetime is a date
            return ["T", v.isoformat()]
        if isinstance(v, date):
            return ["a", v.isoformat()]
        if isinstance(v, PurePath):
            if type(v) is not type(Path()):
                raise CodecError(f"cannot cache a {type(v).__name__}")
            return ["P", str(v)]
        if isinstance(v, tuple):
            return ["t", *(enc(x) for x in v)]
        if isinstance(v, list):
            return ["l", *(enc(x) for x in v)]
        if isinstance(v, frozenset):
            return ["s", *(enc(x) for x in v)]
        if isinstance(v, dict):
            out: list[Any] = ["d"]
            for k, x in v.items():
                out.append(enc(k))
                out.append(enc(x))
            return out
        if dataclasses.is_dataclass(v) and not isinstance(v, type):
            index = refs.get(id(v))
            if index is not None:
                return ["r", index]
            cls = type(v)
            if not cls.__module__.startswith("agentcost.") or "<" in cls.__qualname__:
                raise CodecError(f"cannot cache a {cls.__module__}.{cls.__qualname__}")
            refs[id(v)] = counter[0]
            keep.append(v)
            counter[0] += 1
            fields = [f for f in dataclasses.fields(v) if f.init]
            return ["o", f"{cls.__module__}:{cls.__qualname__}", *(enc(getattr(v, f.name)) for f in fields)]
        raise CodecError(f"cannot cache a {type(v).__module__}.{type(v).__qualname__}")

    try:
        return json.dumps(enc(value), ensure_ascii=False, separators=(",", ":")).encode(
            "utf-8", "surrogatepass"
        )
    except RecursionError:
        raise CodecError("too deeply nested to cache") from None


_CLASSES: dict[str, tuple[type, tuple[str, ...]]] = {}


def _class(name: str) -> tuple[type, tuple[str, ...]]:
    found = _CLASSES.get(name)
    if found is None:
        import importlib

        module_name, _, qualname = name.partition(":")
        if not module_name.startswith("agentcost.") or not qualname.isidentifier():
            raise CodecError(f"not an agentcost class: {name!r}")
        try:
            cls = getattr(importlib.import_module(module_name), qualname)
        except (ImportError, AttributeError):
            raise CodecError(f"no such class: {name!r}") from None
        if not isinstance(cls, type) or not dataclasses.is_dataclass(cls):
            raise CodecError(f"not a dataclass: {name!r}")
        found = _CLASSES[name] = (cls, tuple(f.name for f in dataclasses.fields(cls) if f.init))
    return found


def decode(data: bytes) -> Any:
    """The value :func:`encode` stored. Raises :class:`CodecError` for anything malformed."""
    table: list[object] = []

    def dec(v: Any) -> Any:
        if not isinstance(v, list):
            return v
        tag = v[0]
        if tag == "S":
            table.append(v[1])
            return v[1]
        if tag == "r":
            return table[v[1]]
        if tag == "o":
            cls, names = _class(v[1])
            if len(v) - 2 != len(names):
                raise CodecError(f"{v[1]}: {len(v) - 2} values for {len(names)} fields")
            index = len(table)
            table.append(None)
            obj = cls(**{n: dec(x) for n, x in zip(names, v[2:], strict=True)})
            table[index] = obj
            return obj
        if tag == "t":
            return tuple(dec(x) for x in v[1:])
        if tag == "l":
            return [dec(x) for x in v[1:]]
        if tag == "d":
            return {dec(v[i]): dec(v[i + 1]) for i in range(1, len(v), 2)}
        if tag == "D":
            return Decimal(v[1])
        if tag == "a":
            return date.fromisoformat(v[1])
        if tag == "T":
            return datetime.fromisoformat(v[1])
        if tag == "P":
            return Path(v[1])
        if tag == "s":
            return frozenset(dec(x) for x in v[1:])
        raise CodecError(f"unknown tag {tag!r}")

    try:
        return dec(json.loads(data.decode("utf-8", "surrogatepass")))
    except CodecError:
        raise
    except Exception as err:  # malformed JSON, wrong shapes, a constructor refusing its values
        raise CodecError(f"malformed cache entry ({type(err).__name__})") from None
