"""Validating plain values with pydantic: the strict :class:`Spec` base, and errors -> one InputError.

* :class:`Spec`: the strict pydantic base of every mapping (``extra="forbid"``, strict types);
* :func:`validate`: validate plain values with a pydantic model and turn the first error (by line)
  into one :class:`~agentcost.errors.InputError` with ``file:line: key: message (hint)``;
* :class:`SchemaGenerator`: the JSON Schema generator of the published schemas.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator
from pydantic.json_schema import GenerateJsonSchema
from pydantic_core import PydanticCustomError

from agentcost.errors import InputError
from agentcost.infra.doc import Doc, KeyPath

__all__ = [
    "ErrorHints",
    "SchemaGenerator",
    "Spec",
    "allowed_hint",
    "closest",
    "int_to_decimal",
    "shown",
    "validate",
]

T = TypeVar("T")


# --------------------------------------------------------------------------------------------
# The strict pydantic base of every mapping, and helpers for models
# --------------------------------------------------------------------------------------------


class Spec(BaseModel):
    """Base of every mapping in the format: strict types, no unknown keys."""

    model_config = ConfigDict(extra="forbid", strict=True)

    @classmethod
    def allowed_keys(cls) -> list[str]:
        return [info.alias or name for name, info in cls.model_fields.items()]

    @classmethod
    def misplaced(cls, key: str) -> tuple[str, str] | None:
        """A message and a hint for an unknown ``key`` that belongs to another kind of mapping
        (None: just an unknown key)."""
        return None

    @model_validator(mode="before")
    @classmethod
    def _reject_unknown_keys(cls, data: Any) -> Any:
        # extra="forbid" alone would reject them too, but without saying which keys are allowed.
        if isinstance(data, dict):
            allowed = cls.allowed_keys()
            for key in data:
                if key not in allowed:
                    ctx = {"key": key, "allowed": ", ".join(allowed)}
                    misplaced = cls.misplaced(key)
                    if misplaced is not None:
                        ctx["message"], ctx["hint"] = misplaced
                    raise PydanticCustomError("unknown_key", "unknown key", ctx)
        return data


def int_to_decimal(value: Any) -> Any:
    """An ``int`` as a ``Decimal``, anything else as it is (a ``BeforeValidator`` for money fields:
    strict validation refuses an ``int`` where a ``Decimal`` is expected)."""
    return Decimal(value) if type(value) is int else value


class SchemaGenerator(GenerateJsonSchema):
    """The generator of the published JSON Schemas: without field titles."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False  # titles like "Call Tokens" add nothing to the descriptions


# --------------------------------------------------------------------------------------------
# Pydantic errors -> one InputError
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ErrorHints:
    """What one file format adds to the messages of :func:`validate`."""

    missing: Mapping[str, str] = field(default_factory=lambda: {"version": "add 'version: 1' at the top"})
    """Hint for a missing required key, by its name, or by ``PARENT.name`` for a parent in ``parents``."""
    parents: tuple[str, ...] = ()
    """Keys whose children have hints of their own in ``missing`` (``PARENT.name``)."""
    expected: Mapping[str, str] = field(default_factory=dict)
    """What a value should be, by pydantic error type (the format's own custom errors)."""
    mapping_problem: Callable[[str, KeyPath, dict[str, Any]], tuple[KeyPath, str, str] | None] | None = None
    """For an error of a custom type about a non-empty mapping: a better (key path, message, hint)
    than "expected ..., got a mapping" (None: keep that)."""


def validate(
    adapter: Callable[[Any], T], doc: Doc, value: Any, at: KeyPath, hints: ErrorHints | None = None
) -> T:
    """``adapter(value)`` (a pydantic validation); its first error by line as an :class:`InputError`
    about ``doc``, where ``value`` is at key path ``at``, with the format's ``hints``."""
    try:
        return adapter(value)
    except ValidationError as e:
        hints = hints if hints is not None else _DEFAULT_HINTS
        errors = [_convert(error, doc, value, at, hints) for error in e.errors()]
        raise min(errors, key=lambda err: err.line if err.line is not None else 1 << 62) from None


def _data_path(loc: Sequence[str | int], value: Any) -> KeyPath:
    """The part of a pydantic location that exists in the data (union tags are left out)."""
    path: list[str | int] = []
    for part in loc:
        if _has_child(value, part):
            value = value[part]
            path.append(part)
    return tuple(path)


def _has_child(value: Any, part: str | int) -> bool:
    if isinstance(value, dict):
        return isinstance(part, str) and part in value
    return isinstance(value, list) and type(part) is int and 0 <= part < len(value)


def _convert(error: Any, doc: Doc, value: Any, at: KeyPath, hints: ErrorHints) -> InputError:
    loc = error["loc"]
    path = _data_path(loc, value)
    kind, given, ctx = error["type"], error["input"], error.get("ctx") or {}
    if kind == "unknown_key":
        allowed = ctx["allowed"].split(", ")
        allowed_text = allowed_hint(ctx["key"], allowed)
        if "message" in ctx:  # a key of another kind of mapping (see Spec.misplaced)
            return doc.error((*at, *path, ctx["key"]), ctx["message"], f"{ctx['hint']}; {allowed_text}")
        return doc.error((*at, *path, ctx["key"]), "unknown key", allowed_text)
    if kind == "missing":
        name = loc[-1]
        parent = next((part for part in hints.parents if part in loc), None)
        hint = hints.missing.get(f"{parent}.{name}" if parent else name)
        return doc.error((*at, *path, name), "required key is missing", hint)
    message, hint = _describe(kind, given, ctx, error["msg"], hints)
    if hints.mapping_problem is not None and isinstance(given, dict) and given:
        problem = hints.mapping_problem(kind, path, given)
        if problem is not None:
            path, message, hint = problem
    return doc.error((*at, *path), message, hint)


def allowed_hint(word: str, allowed: Sequence[str]) -> str:
    """``allowed: a, b, c`` and, for a ``word`` close to one of them, ``; did you mean 'b'?``."""
    hint = "allowed: " + ", ".join(allowed)
    close = closest(word, allowed)
    return hint + (f"; did you mean {close!r}?" if close else "")


def closest(word: str, choices: Iterable[str]) -> str | None:
    """The choice closest to ``word`` (ignoring case), or None if none is close."""
    by_lower = {choice.lower(): choice for choice in choices}
    found = difflib.get_close_matches(str(word).lower(), list(by_lower), n=1, cutoff=0.6)
    return by_lower[found[0]] if found else None


_EXPECTED = {
    "int_type": "an integer",
    "string_type": "text",
    "bool_type": "true or false",
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
    "list_type": "a list",
    "is_instance_of": "a number",
    "decimal_type": "a number",
}

_DEFAULT_HINTS = ErrorHints()


def _describe(
    kind: str, given: Any, ctx: dict[str, Any], default: str, hints: ErrorHints
) -> tuple[str, str | None]:
    """Message and hint for a pydantic error that is about a value."""
    hint = _value_hint(kind, given)
    if kind in _EXPECTED:
        return f"expected {_EXPECTED[kind]}, got {shown(given)}", hint
    if kind in hints.expected:
        return f"expected {hints.expected[kind]}, got {shown(given)}", hint
    if kind in ("greater_than_equal", "greater_than"):
        sign = ">=" if kind == "greater_than_equal" else ">"
        return f"must be {sign} {ctx.get('ge', ctx.get('gt'))}, got {shown(given)}", hint
    if kind in ("less_than_equal", "less_than"):
        sign = "<=" if kind == "less_than_equal" else "<"
        bound = str(ctx.get("le", ctx.get("lt")))  # pydantic gives e.g. "Decimal('1000000000')"
        digits = re.fullmatch(r"(?:Decimal\(')?(\d+)(?:'\))?", bound)
        limit = f"{int(digits.group(1)):,}" if digits else bound
        return f"must be {sign} {limit}, got {shown(given)}", hint
    if kind == "string_too_short":
        return "must not be empty", None
    if kind == "literal_error":
        choices = re.findall(r"'([^']*)'", str(ctx.get("expected", "")))
        message = f"must be one of {', '.join(choices)}; got {shown(given)}"
        close = closest(given, choices) if isinstance(given, str) else None
        if close:
            hint = f"did you mean {close!r}?"
        elif isinstance(given, bool) and "none" in choices:
            hint = "YAML reads no/off/false as a boolean; write none"
        return message, hint
    return default[:1].lower() + default[1:], hint


def _value_hint(kind: str, given: Any) -> str | None:
    if isinstance(given, bool):
        return "YAML reads yes/no/on/off/true/false as booleans; quote the value if it is text"
    if kind == "string_type" and isinstance(given, int | Decimal):
        return f"quote it if it is text: '{given}'"
    if kind == "list_type" and isinstance(given, dict):
        return "start each item with '- '"
    return None


def shown(value: Any) -> str:
    """A value as an error message names it: ``the boolean true``, ``text 'abc'``, ``a list``..."""
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if value is None:
        return "nothing (null)"
    if isinstance(value, int | Decimal):
        return str(value)
    if isinstance(value, str):
        return "text " + repr(value if len(value) <= 40 else value[:37] + "...")
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__
