"""JSON Schema from the typed definitions of the JSON reports: one definition, two uses.

A report kind's JSON shape is written once, as :class:`typing.TypedDict` classes in ``report/``
(e.g. :mod:`agentcost.report.prices_json`). Its renderer builds the JSON as those types (mypy checks
every key), and :func:`schema_of` turns the same classes into the JSON Schema published as
``docs/report.schema.json`` (``agentcost schema --report``):

- a TypedDict -> ``{"type": "object", "properties", "required", "additionalProperties": false}``;
  keys marked ``NotRequired`` are left out of ``required``; the class docstring is its description;
- ``str``, ``int``, ``bool``, ``None`` -> their JSON types; ``X | None`` -> ``anyOf`` (or a list of
  types for simple ones); ``list[X]`` -> an array; ``dict[str, X]`` -> an object of ``X`` values;
  ``Literal[...]`` -> ``enum`` (``const`` for one value);
- ``Annotated[X, ...]`` adds to X's schema: a ``str`` is its description, :class:`Keywords` are
  merged in as JSON Schema keywords (``Keywords(format="date")``, ``Keywords(minimum=1)``);
- a TypedDict used in more than one place (in one kind or across kinds, or inside itself) is
  written once under ``$defs`` and referenced (:func:`schemas_of` generates every kind at once);
- :func:`one_of` checks a report's string against a ``Literal`` when the JSON is written.

Only :mod:`typing` is used: building the JSON imports nothing of this module, and no pydantic.
"""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Iterator
from typing import (
    Annotated,
    Any,
    Literal,
    NotRequired,
    Required,
    TypeVar,
    get_args,
    get_origin,
    is_typeddict,
)


class Keywords:
    """JSON Schema keywords for ``Annotated`` metadata (hashable, as typing needs its metadata to be):
    ``Annotated[str, Keywords(format="date")]``."""

    def __init__(self, **keywords: Any) -> None:
        self.items = tuple(keywords.items())

    def __hash__(self) -> int:
        return hash(tuple((k, repr(v)) for k, v in self.items))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Keywords) and self.items == other.items

    def __repr__(self) -> str:
        return f"Keywords({', '.join(f'{k}={v!r}' for k, v in self.items)})"


USD = Annotated[str, Keywords(pattern=r"^-?\d+(\.\d+)?$", description="US dollars, an exact decimal")]
"""US dollars as an exact decimal string (``"0.0123"``): every amount of money in JSON."""
COUNT = Annotated[int, Keywords(minimum=0)]
"""A count of tokens, requests or uses."""
DECIMAL = Annotated[str, Keywords(pattern=r"^\d+(\.\d+)?$")]
"""A non-negative exact decimal that is not money (a share, hours, seconds, a probability)."""
SIGNED_DECIMAL = Annotated[str, Keywords(pattern=r"^-?\d+(\.\d+)?$", description="an exact decimal")]
"""An exact decimal that may be negative (an error, a change)."""
POSITIVE = Annotated[int, Keywords(minimum=1)]
"""A count of at least one (runs, a 1-based index)."""

_V = TypeVar("_V")


def one_of(values: tuple[_V, ...], value: object, what: str) -> _V:
    """``value`` as one of a definition's ``Literal`` values (``values``: the Literal's
    :func:`typing.get_args`); a value outside it is refused when the JSON is written, not published."""
    if value not in values:
        raise ValueError(f"{what} {value!r} is not in the report's JSON definition")
    return value  # narrowed to the Literal by the check above


_SIMPLE = {str: "string", int: "integer", bool: "boolean", float: "number", type(None): "null"}


def _typeddicts(tp: Any) -> Iterator[type]:
    """Every TypedDict ``tp`` refers to, directly or inside another type (itself included)."""
    origin = get_origin(tp)
    if is_typeddict(tp):
        yield tp
        return
    if origin is Annotated:
        yield from _typeddicts(get_args(tp)[0])
        return
    for arg in get_args(tp):
        if origin is not Literal:
            yield from _typeddicts(arg)


@functools.cache
def _hints(td: type) -> dict[str, Any]:
    """A TypedDict's resolved annotations, once per type (a schema resolves each many times)."""
    return typing.get_type_hints(td, include_extras=True)


class _Generator:
    def __init__(self, roots: tuple[type, ...], defs_prefix: str | None) -> None:
        self.defs: dict[str, dict[str, Any]] = {}
        self.prefix = defs_prefix
        uses: dict[type, int] = dict.fromkeys(roots, 1)  # a root referred to again (recursion) is shared
        seen: set[type] = set(roots)
        for root in roots:
            self._count(root, uses, seen)
        self.shared = {td for td, n in uses.items() if n > 1}

    def def_name(self, td: type) -> str:
        """``prefix`` + the class name; without a prefix, the defining module's name less ``_json``
        (``prices_json.RateJson`` -> ``prices_RateJson``), so that kinds share one entry per shape."""
        prefix = self.prefix
        if prefix is None:
            prefix = td.__module__.rpartition(".")[2].removesuffix("_json") + "_"
        return f"{prefix}{td.__name__}"

    def _count(self, td: type, uses: dict[type, int], seen: set[type]) -> None:
        for hint in _hints(td).values():
            for inner in _typeddicts(hint):
                uses[inner] = uses.get(inner, 0) + 1
                if inner not in seen:
                    seen.add(inner)
                    self._count(inner, uses, seen)

    def object(self, td: type) -> dict[str, Any]:
        properties: dict[str, Any] = {}
        required: list[str] = []
        optional: frozenset[str] = getattr(td, "__optional_keys__", frozenset())
        for key, hint in _hints(td).items():
            origin = get_origin(hint)
            # NotRequired/Required as written (a module with postponed annotations leaves the class's
            # __optional_keys__ unaware of them), else as the class says
            is_required = origin is Required or (origin is not NotRequired and key not in optional)
            if origin in (NotRequired, Required):
                hint = get_args(hint)[0]
            properties[key] = self.schema(hint)
            if is_required:
                required.append(key)
        out: dict[str, Any] = {"type": "object"}
        doc = " ".join((td.__doc__ or "").split()).replace("``", "")  # reST literals: plain text
        if doc:
            out["description"] = doc
        out |= {"properties": properties, "required": required, "additionalProperties": False}
        return out

    def schema(self, tp: Any) -> dict[str, Any]:
        origin = get_origin(tp)
        if origin is Annotated:
            base, *extras = get_args(tp)
            out = dict(self.schema(base))
            for extra in extras:
                if isinstance(extra, str):
                    out["description"] = extra
                elif isinstance(extra, Keywords):
                    out |= dict(extra.items)
            return out
        if is_typeddict(tp):
            if tp not in self.shared:
                return self.object(tp)
            name = self.def_name(tp)
            if name not in self.defs:
                self.defs[name] = {}  # reserved first: a shape that contains itself
                self.defs[name] = self.object(tp)
            return {"$ref": f"#/$defs/{name}"}
        if isinstance(tp, type) and tp in _SIMPLE:
            return {"type": _SIMPLE[tp]}
        if origin is Literal:
            values = list(get_args(tp))
            return {"const": values[0]} if len(values) == 1 else {"enum": values}
        if origin in (types.UnionType, typing.Union):
            args = get_args(tp)
            if all(isinstance(a, type) and a in _SIMPLE for a in args):
                return {"type": [_SIMPLE[a] for a in args]}
            if all(get_origin(a) is Literal or a is type(None) for a in args):
                return {"enum": [v for a in args for v in (get_args(a) if a is not type(None) else (None,))]}
            return {"anyOf": [self.schema(a) for a in args]}
        if origin is list:
            (item,) = get_args(tp)
            return {"type": "array", "items": self.schema(item)}
        if origin is dict:
            key, value = get_args(tp)
            if key is not str:
                raise TypeError(f"JSON object keys are strings, not {key!r}")
            return {"type": "object", "additionalProperties": self.schema(value)}
        raise TypeError(f"no JSON Schema for {tp!r}")


def schema_of(td: type, *, defs_prefix: str | None = "") -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """The JSON Schema of the TypedDict ``td`` and the ``$defs`` its ``$ref``\\ s point to (named
    ``defs_prefix`` + the class name, to be merged into the root schema's ``$defs``)."""
    (schema,), defs = schemas_of(td, defs_prefix=defs_prefix)
    return schema, defs


def schemas_of(
    *tds: type, defs_prefix: str | None = None
) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """The JSON Schemas of several TypedDicts (every report kind) and one ``$defs`` for all of them:
    a shape used more than once, in one kind or across kinds, or inside itself, is one entry, named
    as :meth:`_Generator.def_name` says. Each root is written out in full (the kind's body), and
    also under ``$defs`` when something refers to it (an estimate's subagents are estimates)."""
    for td in tds:
        if not is_typeddict(td):
            raise TypeError(f"{td!r} is not a TypedDict")
    gen = _Generator(tds, defs_prefix)
    schemas = [gen.object(td) for td in tds]
    return schemas, gen.defs
