"""A small validation engine for agentcost's file formats: typed mappings, value shapes, JSON Schema.

A format is declared once, as :class:`Spec` classes whose fields name a :class:`Shape` (how the value is
read and checked) and a description; from them come

* validation (:meth:`Shape.check`): plain values (what :mod:`agentcost.infra.yamlread` builds) in, a
  validated value out (a Spec instance for a mapping), or errors in the form pydantic gives them (a
  location, a type, the input, a context: :data:`Error`), so that the messages of
  :func:`agentcost.infra.validate.validate` and the first-error-by-line rule stay as they were;
* the published JSON Schema (:func:`json_schema`), shaped as pydantic's (draft 2020-12, ``$defs``,
  keys sorted), so that the committed schemas do not change.

The rules are strict, as before: a mapping takes only its own keys (an unknown key names the allowed
ones, :meth:`Spec.misplaced` a key of another kind of mapping); text is text, an integer an integer
(never a boolean), a number a ``Decimal`` (:func:`agentcost.infra.validate.int_to_decimal` reads
``1e3``); a union is either tagged (a function of the value picks the shape: :class:`Tagged`) or tried
shape by shape (:class:`Union`). Standard library only: a load imports no pydantic.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from typing import Any, ClassVar

__all__ = [
    "BAD",
    "AnyValue",
    "Before",
    "Bool",
    "Bounds",
    "Check",
    "Dec",
    "DictOf",
    "Error",
    "Int",
    "Invalid",
    "JsonObject",
    "ListOf",
    "Lit",
    "Model",
    "Nullable",
    "Schema",
    "Shape",
    "Spec",
    "Str",
    "Tagged",
    "Union",
    "field",
    "format_key",
    "json_schema",
]

Loc = tuple[str | int, ...]
Error = dict[str, Any]
"""One error: ``type``, ``loc`` (the data path, with union tags in it as pydantic gives them),
``msg``, ``input`` and ``ctx`` (may be None)."""


class _Bad:
    """The result of a check that failed (its errors were added to the list)."""

    def __repr__(self) -> str:
        return "BAD"


BAD: Any = _Bad()


class Invalid(Exception):
    """Raised by a check function (:class:`Before`, :class:`Check`): the value is refused with an
    error of ``kind``, ``message`` (``{name}`` replaced by ``ctx[name]``) and ``ctx``."""

    def __init__(self, kind: str, message: str, ctx: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.kind, self.message, self.ctx = kind, message, ctx

    def text(self) -> str:
        message = self.message
        for name, value in (self.ctx or {}).items():
            message = message.replace("{" + name + "}", str(value))
        return message


def _error(
    errors: list[Error], kind: str, loc: Loc, msg: str, given: Any, ctx: dict[str, Any] | None = None
) -> Any:
    errors.append({"type": kind, "loc": loc, "msg": msg, "input": given, "ctx": ctx})
    return BAD


class Shape:
    """How a value is read and checked, and its JSON Schema."""

    label = "any"
    """Its name in a location, as a member of a :class:`Union`."""

    def check(self, value: Any, loc: Loc, errors: list[Error]) -> Any:
        """The value checked (and converted), or :data:`BAD` with the errors added to ``errors``."""
        raise NotImplementedError

    def schema(self, defs: dict[str, Any]) -> dict[str, Any]:
        """Its JSON Schema (the mappings it holds are added to ``defs``)."""
        raise NotImplementedError


class AnyValue(Shape):
    def check(self, value: Any, loc: Loc, errors: list[Error]) -> Any:
        return value

    def schema(self, defs: dict[str, Any]) -> dict[str, Any]:
        return {}


class Bool(Shape):
    label = "bool"

    def check(self, value: Any, loc: Loc, errors: list[Error]) -> Any:
        if isinstance(value, bool):
            return value
        return _error(errors, "bool_type", loc, "Input should be a valid boolean", value)

    def schema(self, defs: dict[str, Any]) -> dict[str, Any]:
        return {"type": "boolean"}


class Int(Shape):
    """A whole number (``int``, never a ``bool``)."""

    label = "int"

    def check(self, value: Any, loc: Loc, errors: list[Error]) -> Any:
        if type(value) is int:
            return value
        return _error(errors, "int_type", loc, "Input should be a valid integer", value)

    def schema(self, defs: dict[str, Any]) -> dict[str, Any]:
        return {"type": "integer"}


SMALLEST_EXPONENT = -100
"""A non-zero amount (dollars, seconds, a rate) is at least ``1e-100``: a smaller one, ten characters
as ``1e-99999999``, is no amount anyone means, and showing it would take a hundred million digits."""


class Dec(Shape):
    """A finite ``Decimal`` (an amount: a float never exists; :func:`int_to_decimal` reads the rest)."""

    label = "decimal"

    def check(self, value: Any, loc: Loc, errors: list[Error]) -> Any:
        if not isinstance(value, Decimal):
            msg = "Input should be an instance of Decimal"
            return _error(errors, "is_instance_of", loc, msg, value, {"class": "Decimal"})
        if not value.is_finite():
            return _error(errors, "finite_number", loc, "Input should be a finite number", value)
        return value

    def schema(self, defs: dict[str, Any]) -> dict[str, Any]:
        return {"type": "number"}


class Str(Shape):
    """Text, of ``min_length`` to ``max_length`` characters, matching ``pattern``."""

    label = "str"

    def __init__(
        self, min_length: int | None = None, max_length: int | None = None, pattern: str | None = None
    ):
        self.min_length, self.max_length, self.pattern = min_length, max_length, pattern
        self.regex = re.compile(pattern) if pattern is not None else None

    def check(self, value: Any, loc: Loc, errors: list[Error]) -> Any:
        if not isinstance(value, str):
            return _error(errors, "string_type", loc, "Input should be a valid string", value)
        if self.min_length is not None and len(value) < self.min_length:
            n = self.min_length
            msg = f"String should have at least {n} character{'s' if n != 1 else ''}"
            return _error(errors, "string_too_short", loc, msg, value, {"min_length": n})
        if self.max_length is not None and len(value) > self.max_length:
            n = self.max_length
            msg = f"String should have at most {n} character{'s' if n != 1 else ''}"
            return _error(errors, "string_too_long", loc, msg, value, {"max_length": n})
        if self.regex is not None and not self.regex.search(value):
            msg = f"String should match pattern '{self.pattern}'"
            return _error(errors, "string_pattern_mismatch", loc, msg, value, {"pattern": self.pattern})
        return value

    def schema(self, defs: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "string"}
        if self.min_length is not None:
            out["minLength"] = self.min_length
        if self.max_length is not None:
            out["maxLength"] = self.max_length
        if self.pattern is not None:
            out["pattern"] = self.pattern
        return out


class Lit(Shape):
    """One of a few values (texts, or a version number)."""

    def __init__(self, *choices: str | int):
        self.choices = choices

    def check(self, value: Any, loc: Loc, errors: list[Error]) -> Any:
        for choice in self.choices:
            if type(value) is type(choice) and value == choice:
                return value
        shown = [repr(c) for c in self.choices]
        expected = shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"
        return _error(
            errors, "literal_error", loc, f"Input should be {expected}", value, {"expected": expected}
        )

    def schema(self, defs: dict[str, Any]) -> dict[str, Any]:
        kind = "integer" if isinstance(self.choices[0], int) else "string"
        if len(self.choices) == 1:
            return {"const": self.choices[0], "type": kind}
        return {"enum": list(self.choices), "type": kind}


class Bounds(Shape):
    """``inner``, then bounds on its value (an error about a bound shows the value as given here)."""

    def __init__(self, inner: Shape, *, ge: Any = None, gt: Any = None, le: Any = None):
        self.inner, self.ge, self.gt, self.le = inner, ge, gt, le
        self.label = inner.label

    def check(self, value: Any, loc: Loc, errors: list[Error]) -> Any:
        result = self.inner.check(value, loc, errors)
        if result is BAD:
            return BAD
        if self.le is not None and result > self.le:
            le = f"Decimal('{self.le}')" if isinstance(self.le, Decimal) else self.le
            msg = f"Input should be less than or equal to {le}"
            return _error(errors, "less_than_equal", loc, msg, value, {"le": le})
        if self.ge is not None and result < self.ge:
            msg = f"Input should be greater than or equal to {self.ge}"
            return _error(errors, "greater_than_equal", loc, msg, value, {"ge": self.ge})
        if self.gt is not None and result <= self.gt:
            msg = f"Input should be greater than {self.gt}"
            return _error(errors, "greater_than", loc, msg, value, {"gt": self.gt})
        if isinstance(result, Decimal) and result and result.adjusted() < SMALLEST_EXPONENT:
            msg = f"Input should be 0 or at least 1e{SMALLEST_EXPONENT}"  # 1e-99999999: no amount
            return _error(errors, "too_small", loc, msg, value, {"least": f"1e{SMALLEST_EXPONENT}"})
        return result

    def schema(self, defs: dict[str, Any]) -> dict[str, Any]:
        out = self.inner.schema(defs)
        for key, bound in (("exclusiveMinimum", self.gt), ("maximum", self.le), ("minimum", self.ge)):
            if bound is not None:
                out[key] = int(bound)
        return out


class Before(Shape):
    """``function(value)`` (which may raise :class:`Invalid`), then ``inner``."""

    def __init__(self, function: Callable[[Any], Any], inner: Shape):
        self.function, self.inner, self.label = function, inner, inner.label

    def check(self, value: Any, loc: Loc, errors: list[Error]) -> Any:
        try:
            converted = self.function(value)
        except Invalid as e:
            return _error(errors, e.kind, loc, e.text(), value, e.ctx)
        return self.inner.check(converted, loc, errors)

    def schema(self, defs: dict[str, Any]) -> dict[str, Any]:
        return self.inner.schema(defs)


class Check(Shape):
    """``inner``, then ``function`` of its value (which may raise :class:`Invalid`)."""

    def __init__(self, inner: Shape, function: Callable[[Any], Any]):
        self.function, self.inner, self.label = function, inner, inner.label

    def check(self, value: Any, loc: Loc, errors: list[Error]) -> Any:
        result = self.inner.check(value, loc, errors)
        if result is BAD:
            return BAD
        try:
            return self.function(result)
        except Invalid as e:
            return _error(errors, e.kind, loc, e.text(), value, e.ctx)

    def schema(self, defs: dict[str, Any]) -> dict[str, Any]:
        return self.inner.schema(defs)


class Schema(Shape):
    """``inner`` with its JSON Schema given (``schema``) or completed (``extra``, e.g. a description)."""

    def __init__(self, inner: Shape, schema: dict[str, Any] | None = None, **extra: Any):
        self.inner, self.given, self.extra, self.label = inner, schema, extra, inner.label

    def check(self, value: Any, loc: Loc, errors: list[Error]) -> Any:
        return self.inner.check(value, loc, errors)

    def schema(self, defs: dict[str, Any]) -> dict[str, Any]:
        out = dict(self.given) if self.given is not None else self.inner.schema(defs)
        return {**out, **self.extra}


def _length_error(
    errors: list[Error], loc: Loc, value: Any, kind: str, limit: int, actual: int | None
) -> Any:
    field_type = "List" if isinstance(value, list) else "Dictionary"
    least = kind == "too_short"
    items = f"item{'s' if limit != 1 else ''}"
    msg = (
        f"{field_type} should have at {'least' if least else 'most'} {limit} {items} after validation, "
        f"not {actual if actual is not None else 'more'}"
    )
    ctx = {"field_type": field_type, f"{'min' if least else 'max'}_length": limit, "actual_length": actual}
    return _error(errors, kind, loc, msg, value, ctx)


class ListOf(Shape):
    """A list of ``item``, of ``min_length`` to ``max_length`` items."""

    def __init__(
        self, item: Shape, min_length: int | None = None, max_length: int | None = None, label: str = "list"
    ):
        self.item, self.min_length, self.max_length, self.label = item, min_length, max_length, label

    def check(self, value: Any, loc: Loc, errors: list[Error]) -> Any:
        if not isinstance(value, list):
            return _error(errors, "list_type", loc, "Input should be a valid list", value)
        if self.max_length is not None and len(value) > self.max_length:
            return _length_error(errors, loc, value, "too_long", self.max_length, len(value))
        out, bad = [], False
        for i, item in enumerate(value):
            result = self.item.check(item, (*loc, i), errors)
            bad = bad or result is BAD
            out.append(result)
        if bad:
            return BAD
        if self.min_length is not None and len(value) < self.min_length:
            return _length_error(errors, loc, value, "too_short", self.min_length, len(value))
        return out

    def schema(self, defs: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {"items": self.item.schema(defs)}
        if self.max_length is not None:
            out["maxItems"] = self.max_length
        if self.min_length is not None:
            out["minItems"] = self.min_length
        return {**out, "type": "array"}


class DictOf(Shape):
    """A mapping of ``key`` texts to ``value`` (free JSON, by default), of at most ``max_length`` keys."""

    def __init__(self, key: Shape | None = None, value: Shape | None = None, max_length: int | None = None):
        self.key, self.value, self.max_length = key or Str(), value or AnyValue(), max_length
        self.label = "dict[str,any]"

    def check(self, value: Any, loc: Loc, errors: list[Error]) -> Any:
        if not isinstance(value, dict):
            return _error(errors, "dict_type", loc, "Input should be a valid dictionary", value)
        out, bad = {}, False
        for key, item in value.items():
            checked_key = self.key.check(key, (*loc, key, "[key]"), errors)
            checked = self.value.check(item, (*loc, key), errors)
            bad = bad or checked_key is BAD or checked is BAD
            out[checked_key] = checked
        if bad:
            return BAD
        if self.max_length is not None and len(value) > self.max_length:
            return _length_error(errors, loc, value, "too_long", self.max_length, None)
        return out

    def schema(self, defs: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {"additionalProperties": self.value.schema(defs) or True}
        if self.max_length is not None:
            out["maxProperties"] = self.max_length
        names = self.key.schema(defs)
        names.pop("type", None)
        if names:
            out["propertyNames"] = names
        return {**out, "type": "object"}


JsonObject = DictOf()
"""A free JSON object (a call's input, a tool's schema...): a mapping with text keys."""


class Nullable(Shape):
    """``inner``, or null."""

    def __init__(self, inner: Shape):
        self.inner, self.label = inner, inner.label

    def check(self, value: Any, loc: Loc, errors: list[Error]) -> Any:
        return None if value is None else self.inner.check(value, loc, errors)

    def schema(self, defs: dict[str, Any]) -> dict[str, Any]:
        inner = self.inner.schema(defs)
        members = inner["anyOf"] if isinstance(self.inner, Union) else [inner]
        return {"anyOf": [*members, {"type": "null"}]}


class Union(Shape):
    """The first of ``members`` the value passes; else the errors of each (located under its label)."""

    def __init__(self, *members: Shape):
        self.members = members

    def check(self, value: Any, loc: Loc, errors: list[Error]) -> Any:
        found: list[Error] = []
        for member in self.members:
            own: list[Error] = []
            result = member.check(value, (*loc, member.label), own)
            if result is not BAD:
                return result
            found.extend(own)
        errors.extend(found)
        return BAD

    def schema(self, defs: dict[str, Any]) -> dict[str, Any]:
        return {"anyOf": [member.schema(defs) for member in self.members]}


class Tagged(Shape):
    """The member a function of the value names (its tag); an unnamed value is an error of ``error``
    (its type and message). ``in_schema``: the tags the JSON Schema lists (default: all)."""

    def __init__(
        self,
        tag: Callable[[Any], str | None],
        members: Mapping[str, Shape],
        error: tuple[str, str] | None = None,
        in_schema: Sequence[str] | None = None,
    ):
        self.tag, self.members, self.error = tag, dict(members), error
        self.in_schema = tuple(in_schema) if in_schema is not None else tuple(self.members)

    def check(self, value: Any, loc: Loc, errors: list[Error]) -> Any:
        tag = self.tag(value)
        if tag is None:
            kind, msg = self.error or ("union_tag_not_found", "Unable to extract tag using discriminator")
            return _error(errors, kind, loc, msg, value)
        return self.members[tag].check(value, (*loc, tag), errors)

    def schema(self, defs: dict[str, Any]) -> dict[str, Any]:
        return {"oneOf": [self.members[tag].schema(defs) for tag in self.in_schema]}


# --------------------------------------------------------------------------------------------
# Mappings: Spec classes
# --------------------------------------------------------------------------------------------

_REQUIRED: Any = object()


class Field:
    """One key of a :class:`Spec`: its shape, description, default (required without one) and the key
    written in files when it is not the attribute's name (``alias``)."""

    def __init__(self, shape: Shape, description: str, default: Any, alias: str | None) -> None:
        self.shape, self.description, self.default, self.alias = shape, description, default, alias
        self.name = ""

    @property
    def key(self) -> str:
        return self.alias or self.name

    @property
    def required(self) -> bool:
        return self.default is _REQUIRED


def field(shape: Shape, description: str, *, default: Any = _REQUIRED, alias: str | None = None) -> Any:
    """A key of a :class:`Spec` (``name: type = field(shape, "description", default=...)``)."""
    return Field(shape, description, default, alias)


_FORMAT_KEYS: set[str] = set()  # the key of every field of every Spec defined so far


def format_key(key: str) -> bool:
    """Whether ``key`` is a key of one of agentcost's formats (a field of a :class:`Spec` defined so
    far): a word of ours, that a message may show even from a file whose text it never quotes."""
    return key in _FORMAT_KEYS


class Spec:
    """Base of every mapping in a format: its keys are its :func:`field` attributes, in order; a
    validated mapping is an instance, every field set (defaults too), and ``fields_set`` the names
    of the keys it was given.

    Class options (``class X(Spec, title=...)``): ``title`` (in the JSON Schema; default the class
    name), ``extra_allowed`` (other keys are kept in ``extra`` instead of refused), ``schema_extra``
    (added to its JSON Schema)."""

    fields: ClassVar[tuple[Field, ...]] = ()
    schema_title: ClassVar[str | None] = None
    extra_allowed: ClassVar[bool] = False
    schema_extra: ClassVar[dict[str, Any]] = {}

    fields_set: frozenset[str]
    extra: dict[str, Any]

    def __init__(self, **values: Any) -> None:
        """A mapping made in code (not checked): the given fields, the others' defaults."""
        for f in self.fields:
            if f.name in values:
                self.__dict__[f.name] = values[f.name]
            elif f.required:
                raise TypeError(f"{type(self).__name__}: {f.name} is required")
            else:
                self.__dict__[f.name] = f.default
        unknown = set(values) - {f.name for f in self.fields}
        if unknown:
            raise TypeError(f"{type(self).__name__}: no field {sorted(unknown)[0]}")
        self.fields_set = frozenset(values)
        self.extra = {}

    def __init_subclass__(
        cls,
        *,
        title: str | None = None,
        extra_allowed: bool = False,
        schema_extra: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init_subclass__(**kwargs)
        cls.schema_title, cls.extra_allowed, cls.schema_extra = title, extra_allowed, schema_extra or {}
        own = []
        for name, value in list(vars(cls).items()):
            if isinstance(value, Field):
                value.name = name
                own.append(value)
                delattr(cls, name)  # an instance holds the value
        inherited = {f.name: f for f in cls.fields}
        cls.fields = (*[f for f in inherited.values() if f.name not in {o.name for o in own}], *own)
        cls._by_key = {f.key: f for f in cls.fields}
        _FORMAT_KEYS.update(cls._by_key)

    _by_key: ClassVar[dict[str, Field]] = {}

    @classmethod
    def allowed_keys(cls) -> list[str]:
        return [f.key for f in cls.fields]

    @classmethod
    def misplaced(cls, key: str) -> tuple[str, str] | None:
        """A message and a hint for an unknown ``key`` that belongs to another kind of mapping
        (None: just an unknown key)."""
        return None

    @classmethod
    def from_value(cls, value: Any, loc: Loc, errors: list[Error]) -> Any:
        """``value`` (a mapping) checked as this Spec (or :data:`BAD`, its errors in ``errors``)."""
        if not isinstance(value, dict):
            msg = f"Input should be a valid dictionary or instance of {cls.__name__}"
            return _error(errors, "model_type", loc, msg, value, {"class_name": cls.__name__})
        by_key = cls._by_key
        if not cls.extra_allowed:
            for key in value:
                if key not in by_key:
                    ctx = {"key": key, "allowed": ", ".join(cls.allowed_keys())}
                    misplaced = cls.misplaced(key)
                    if misplaced is not None:
                        ctx["message"], ctx["hint"] = misplaced
                    return _error(errors, "unknown_key", loc, "unknown key", value, ctx)
        made = cls.__new__(cls)
        attrs = made.__dict__
        bad = False
        for f in cls.fields:
            if f.key in value:
                result = f.shape.check(value[f.key], (*loc, f.key), errors)
                bad = bad or result is BAD
                attrs[f.name] = result
            elif f.default is _REQUIRED:
                bad = True
                _error(errors, "missing", (*loc, f.key), "Field required", value)
            else:
                attrs[f.name] = f.default
        if bad:
            return BAD
        attrs["fields_set"] = frozenset(f.name for f in cls.fields if f.key in value)
        attrs["extra"] = {k: v for k, v in value.items() if k not in by_key} if cls.extra_allowed else {}
        return made

    def __repr__(self) -> str:
        shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in self.fields)
        return f"{type(self).__name__}({shown})"

    @classmethod
    def json_schema(cls, defs: dict[str, Any]) -> dict[str, Any]:
        """This mapping's JSON Schema, as pydantic writes a model's."""
        properties: dict[str, Any] = {}
        for f in cls.fields:
            prop = f.shape.schema(defs)
            if not f.required:
                prop["default"] = f.default
            properties[f.key] = {**prop, "description": f.description}
        out: dict[str, Any] = {
            "additionalProperties": cls.extra_allowed,
            "description": inspect.cleandoc(cls.__doc__ or ""),
            "properties": properties,
        }
        required = [f.key for f in cls.fields if f.required]
        if required:
            out["required"] = required
        return {**out, "title": cls.schema_title or cls.__name__, "type": "object", **cls.schema_extra}


class Model(Shape):
    """A mapping checked as a :class:`Spec` (in a JSON Schema: a ``$ref`` to its ``$defs`` entry)."""

    def __init__(self, spec: type[Spec]):
        self.spec, self.label = spec, spec.__name__

    def check(self, value: Any, loc: Loc, errors: list[Error]) -> Any:
        return self.spec.from_value(value, loc, errors)

    def schema(self, defs: dict[str, Any]) -> dict[str, Any]:
        name = self.spec.__name__
        if name not in defs:
            defs[name] = {}  # placeholder: a mapping may hold itself
            defs[name] = self.spec.json_schema(defs)
        return {"$ref": f"#/$defs/{name}"}


def json_schema(spec: type[Spec]) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of files whose top level is ``spec``, for editors: shaped and
    sorted as pydantic's ``model_json_schema`` (keys sorted, except properties and defaults)."""
    defs: dict[str, Any] = {}
    top = spec.json_schema(defs)
    schema = {"$defs": defs, **top} if defs else top
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **_sorted(schema)}


def _sorted(value: Any, parent: str | None = None) -> Any:
    if isinstance(value, dict):
        keys = list(value) if parent in ("properties", "default") else sorted(value)
        return {key: _sorted(value[key], key) for key in keys}
    if isinstance(value, list):
        return [_sorted(item, parent) for item in value]
    return value
