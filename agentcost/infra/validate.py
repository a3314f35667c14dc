"""Validating plain values: errors -> one InputError, and the rules for numbers and for echoing values.

* :func:`validate`: validate plain values with a shape of :mod:`agentcost.infra.spec` (a format's
  :class:`~agentcost.infra.spec.Spec` mappings) and turn the first error (by line) into one
  :class:`~agentcost.errors.InputError` with ``file:line: key: message (hint)``;
* :func:`shown`, :func:`quoted`, :func:`bounded`: the one rule for echoing a value in a message
  (bounded and escaped, and never the text of a file the user does not write: docs/limits.md);
* :func:`numeral`, :func:`whole_number`, :func:`int_to_decimal`: the numbers rule for sizes, counts
  and amounts written as text (``1e3``, ``9k``; ``010`` and ``1:30`` refused: docs/scenario.md).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import field
from decimal import Decimal
from typing import Any, TypeVar, overload

from agentcost.errors import InputError
from agentcost.infra.doc import MAX_SHOWN, Doc, KeyPath, bounded, cut
from agentcost.infra.record import record
from agentcost.infra.spec import BAD, Before, Bounds, Dec, Error, Invalid, Model, Schema, Shape, Spec

__all__ = [
    "MAX_SHOWN",
    "ErrorHints",
    "Numeral",
    "Spec",
    "allowed_hint",
    "amount",
    "bounded",
    "closest",
    "int_to_decimal",
    "numeral",
    "numeral_problem",
    "quoted",
    "shown",
    "small_whole",
    "validate",
    "whole_number",
]

SpecT = TypeVar("SpecT", bound=Spec)


# --------------------------------------------------------------------------------------------
# The numbers rule: sizes, counts and amounts written as text (docs/scenario.md#numbers)
# --------------------------------------------------------------------------------------------

_NUMERAL = re.compile(
    r"(?P<sign>[-+]?)(?:"
    r"(?P<radix>0[xXbBoO][0-9a-fA-F_]+)"
    r"|(?P<sexagesimal>[0-9][0-9_]*(?::[0-9_]+)+(?:\.[0-9_]*)?)"
    r"|(?P<grouped>[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]*)?)"
    r"|(?P<mantissa>[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)"
    r"(?:[eE](?P<exponent>[-+]?[0-9]+))?(?P<suffix>[kKmMgGbBtT])?"
    r")"
)
_SUFFIXES = {"k": 3, "K": 3, "M": 6}
_RADIXES = {"x": ("hexadecimal", 16), "b": ("binary", 2), "o": ("octal", 8)}
_LONGEST_NUMERAL = 100  # characters: a longer text that looks like a number has no size worth reading


@record
class Numeral:
    """A text that looks like a number, as the numbers rule reads it (:func:`numeral`)."""

    value: Decimal | None
    """Its value, when it has one plain meaning (``1e3``, ``9k``, ``1_000``, ``12``)."""
    problem: str | None = None
    """Why it is not read as a number: it means different numbers to different readers (``010``,
    ``1:30``, ``1,500``), is not written in decimal (``0x10``) or has an unknown suffix (``5m``)."""
    human: bool = False
    """Written in a form YAML reads as text, not as a number: an exponent (``1e3``), a ``k`` or
    ``M`` suffix (``9k``, ``1.5M``) or ``_`` between digits."""
    readings: tuple[int, ...] = ()
    """The whole numbers it may mean (for hints), when it has a problem."""


def numeral(text: str) -> Numeral | None:
    """``text`` read as a number by the numbers rule, or None when it does not look like one.

    A size, a count or an amount may be written ``1500``, ``1_500``, ``1.5e3``, ``1.5k`` (``k`` is
    a thousand, ``M`` a million); ``010`` (octal to YAML 1.1, ten to people), ``1:30`` (base 60 to
    YAML 1.1), ``1,500``, ``0x10`` and other suffixes (``5m``: minutes, milli or million?) are
    refused, each with what it may mean."""
    match = _NUMERAL.fullmatch(text)
    if match is None:
        return None
    negative = match["sign"] == "-"
    readings: tuple[int, ...]
    if len(text) > _LONGEST_NUMERAL:
        return Numeral(None, f"more than {_LONGEST_NUMERAL} characters long")
    if match["radix"]:
        name, base = _RADIXES[match["radix"][1].lower()]
        digits = match["radix"][2:].replace("_", "")
        try:
            readings = (-int(digits, base) if negative else int(digits, base),)
        except ValueError:  # e.g. 0b12: not binary at all
            readings = ()
        return Numeral(None, f"written in {name}", readings=readings)
    if match["sexagesimal"]:
        whole, _, fraction = match["sexagesimal"].replace("_", "").partition(".")
        reading = 0
        for part in whole.split(":"):
            reading = reading * 60 + int(part or "0")
        readings = () if fraction.strip("0") else (-reading if negative else reading,)
        return Numeral(None, "YAML 1.1 reads ':' as base 60", readings=readings)
    if match["grouped"]:
        grouped = match["grouped"]
        readings = () if "." in grouped else (int(grouped.replace(",", "")),)
        return Numeral(
            None, "',' separates thousands in some languages and decimals in others", readings=readings
        )
    mantissa, exponent, suffix = match["mantissa"], match["exponent"], match["suffix"]
    if re.match(r"0[0-9_]", mantissa):
        digits = mantissa.replace("_", "")
        found: list[int] = []
        if "." not in digits:
            found = [int(digits, 8)] if set(digits) <= set("01234567") else []
            found.append(int(digits))
        readings = tuple(dict.fromkeys(-r if negative else r for r in found))
        return Numeral(None, "a leading 0 makes it octal in YAML 1.1", readings=readings)
    human = bool(exponent or suffix or "_" in mantissa)
    if suffix and suffix not in _SUFFIXES:
        return Numeral(None, "the only suffixes read are k (thousand) and M (million)", human=human)
    _, digits, places = Decimal(mantissa.replace("_", "")).as_tuple()
    assert isinstance(places, int)  # a finite number
    shift = int(exponent or "0") + _SUFFIXES.get(suffix or "", 0)
    return Numeral(Decimal((int(negative), digits, places + shift)), human=human)


def _whole(value: Decimal) -> bool:
    return value.is_finite() and value == value.to_integral_value()


LARGEST_SHOWN_MAGNITUDE = 15
"""A hint shows what a number may mean only below ``10**15``; a larger value is never turned into an
``int`` at all (``1e99999999`` is ten characters, and its ``int`` a hundred million digits)."""


def small_whole(value: Decimal) -> int | None:
    """``value`` as an ``int`` when it is a whole number below ``10**LARGEST_SHOWN_MAGNITUDE`` in size,
    else None: the magnitude is read from the exponent before any conversion, so no text of a few
    characters can make a run build a huge integer (issue 28)."""
    if not value.is_finite() or value.adjusted() >= LARGEST_SHOWN_MAGNITUDE or not _whole(value):
        return None
    return int(value)


def whole_number(value: Any, most: int, least: int = 0) -> Any:
    """A value given where a whole number is expected (a :class:`~agentcost.infra.spec.Before` check): an
    integer, a whole ``Decimal`` (``12.0``, ``1.5e+3``) or a text in a human form (``1e3``, ``9k``) as
    an ``int``; a text by the numbers rule refused; anything else as it is (strict validation refuses
    it). ``most`` and ``least`` are the largest and smallest allowed values: any other is refused
    before it becomes an int."""
    if type(value) is int:
        return value
    if isinstance(value, Decimal):
        number = value
    elif isinstance(value, str):
        read = numeral(value)
        if read is None or not (read.human or read.problem):
            return value  # not a number, or plain digits a user quoted: text
        if read.value is None or not _whole(read.value):
            raise Invalid("numeral", "not a number", {"text": value, "where": "count"})
        number = read.value
    else:
        return value
    if not _whole(number):
        return value
    if number > most:  # both bounds before int(): -1e99999999 would be a hundred million digits
        raise Invalid("less_than_equal", "must be <= {le}", {"le": most})
    if number < least:
        raise Invalid("greater_than_equal", "must be >= {ge}", {"ge": least})
    return int(number)


def int_to_decimal(value: Any) -> Any:
    """A value given where an amount is expected (a :class:`~agentcost.infra.spec.Before` check for money,
    seconds, rates): an ``int`` or a text in a human form (``1e3``, ``1.5k``) as a ``Decimal``; a text
    by the numbers rule refused; anything else as it is (strict validation refuses an ``int`` where a
    ``Decimal`` is expected)."""
    if type(value) is int:
        return Decimal(value)
    if isinstance(value, str):
        read = numeral(value)
        if read is not None and read.problem:
            raise Invalid("numeral", "not a number", {"text": value, "where": "number"})
        if read is not None and read.human and read.value is not None:
            return read.value
    return value


def amount(*, gt: int | None = None, ge: int | None = None, le: int | Decimal) -> Shape:
    """A number (``Decimal``; an int or ``1e3`` read as one by :func:`int_to_decimal`) within bounds:
    money, seconds, rates. A bound is checked on the number, and a message shows it as written."""
    low = {"exclusiveMinimum": gt} if gt is not None else {"minimum": ge}
    bounded = Bounds(Before(int_to_decimal, Dec()), gt=gt, ge=ge, le=le)
    return Schema(bounded, {"type": "number", **low, "maximum": int(le)})


def numeral_problem(text: str, where: str, *, quote: bool = True) -> tuple[str, str | None]:
    """The message and hint for a text refused by the numbers rule, given ``where`` it is: a
    ``count`` (a whole number), a ``number`` (an amount), a ``content`` value (a size in tokens or
    a text) or a ``yaml`` value (anywhere in a file: YAML 1.1 read it as a number)."""
    read = numeral(text) or Numeral(None, "not a decimal number")
    what = quoted(text) if quote else "a number"
    whole = None if read.value is None else small_whole(read.value)
    readings = read.readings or (() if whole is None else (whole,))
    # a reading is the text's own digits: from a file whose text is never quoted, only a short one
    sizes = " or ".join(
        str(r)
        for r in readings
        if abs(r) < 10**LARGEST_SHOWN_MAGNITUDE and (quote or len(str(r)) <= _SHORT_NUMBER)
    )
    if where == "content":
        as_text = f'{{text: "{text}"}}' if quote and len(text) <= MAX_SHOWN else '{text: "..."}'
        size = f"write {sizes}" if sizes else "write a whole number"
        return (
            f"ambiguous: {what} could be a size or a text",
            f"{size} for a size in tokens, or {as_text} for the text",
        )
    if read.problem is None:
        assert read.value is not None
        number = f"{read.value:f}" if abs(read.value.adjusted()) < 20 else None
        return f"not a whole number: {what}" + (f" is {number}" if number and quote else ""), None
    message = f"ambiguous number {what}: {read.problem}"
    digits = f"write {sizes}" if sizes else "write the number in plain digits"
    if where == "yaml":
        as_text = f'{{text: "{text}"}}' if quote and len(text) <= MAX_SHOWN else "{text: ...}"
        return message, f"{digits} for a number, or quote it for text ({as_text} for a content value)"
    return message, digits


# --------------------------------------------------------------------------------------------
# Validation errors -> one InputError
# --------------------------------------------------------------------------------------------


@record
class ErrorHints:
    """What one file format adds to the messages of :func:`validate`."""

    missing: Mapping[str, str] = field(default_factory=lambda: {"version": "add 'version: 1' at the top"})
    """Hint for a missing required key, by its name, or by ``PARENT.name`` for a parent in ``parents``."""
    parents: tuple[str, ...] = ()
    """Keys whose children have hints of their own in ``missing`` (``PARENT.name``)."""
    expected: Mapping[str, str] = field(default_factory=dict)
    """What a value should be, by error type (the format's own errors: :class:`Tagged` unions...)."""
    mapping_problem: Callable[[str, KeyPath, dict[str, Any]], tuple[KeyPath, str, str] | None] | None = None
    """For an error of a custom type about a non-empty mapping: a better (key path, message, hint)
    than "expected ..., got a mapping" (None: keep that)."""


@overload
def validate(
    shape: type[SpecT], doc: Doc, value: Any, at: KeyPath, hints: ErrorHints | None = None
) -> SpecT: ...
@overload
def validate(shape: Shape, doc: Doc, value: Any, at: KeyPath, hints: ErrorHints | None = None) -> Any: ...
def validate(
    shape: Shape | type[Spec], doc: Doc, value: Any, at: KeyPath, hints: ErrorHints | None = None
) -> Any:
    """``value`` checked by ``shape`` (a Spec: as that mapping); its first error by line as an
    :class:`InputError` about ``doc``, where ``value`` is at key path ``at``, with the format's ``hints``."""
    if isinstance(shape, type):
        shape = Model(shape)
    found: list[Error] = []
    result = shape.check(value, (), found)
    if result is not BAD:
        return result
    hints = hints if hints is not None else _DEFAULT_HINTS
    errors = [_convert(error, doc, value, at, hints) for error in found]
    raise min(errors, key=lambda err: err.line if err.line is not None else 1 << 62) from None


def _data_path(loc: Sequence[str | int], value: Any) -> KeyPath:
    """The part of an error's location that exists in the data (union tags are left out)."""
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


def _convert(error: Error, doc: Doc, value: Any, at: KeyPath, hints: ErrorHints) -> InputError:
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
    message, hint = _describe(kind, given, ctx, error["msg"], hints, quote=doc.quotes)
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

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"
"""The shape of an id a file names (a provider): letters, digits, ``-``, ``_`` and ``.``."""


def _describe(
    kind: str, given: Any, ctx: dict[str, Any], default: str, hints: ErrorHints, *, quote: bool
) -> tuple[str, str | None]:
    """Message and hint for an error that is about a value (``quote``: the file's values may
    be echoed, see :func:`shown`)."""
    if kind == "numeral":  # a text refused by the numbers rule (whole_number, int_to_decimal...)
        return numeral_problem(ctx["text"], ctx["where"], quote=quote)
    hint = _value_hint(kind, given, quote=quote)
    got = shown(given, quote=quote)
    if isinstance(given, str) and quote and kind.startswith(("greater", "less", "too_small")):
        got = bounded(given)  # a number written as text (1e12, 9M), out of range: as written
    if kind in _EXPECTED:
        return f"expected {_EXPECTED[kind]}, got {got}", hint
    if kind in hints.expected:
        return f"expected {hints.expected[kind]}, got {got}", hint
    if kind in ("greater_than_equal", "greater_than"):
        sign = ">=" if kind == "greater_than_equal" else ">"
        return f"must be {sign} {ctx.get('ge', ctx.get('gt'))}, got {got}", hint
    if kind in ("less_than_equal", "less_than"):
        sign = "<=" if kind == "less_than_equal" else "<"
        bound = str(ctx.get("le", ctx.get("lt")))  # a Decimal bound is e.g. "Decimal('1000000000')"
        digits = re.fullmatch(r"(?:Decimal\(')?(\d+)(?:'\))?", bound)
        limit = f"{int(digits.group(1)):,}" if digits else bound
        return f"must be {sign} {limit}, got {got}", hint
    if kind == "too_small":
        return f"must be 0 or at least {ctx.get('least')}, got {got}", hint
    if kind == "string_too_short":
        return "must not be empty", None
    if kind == "string_too_long":
        return f"must be at most {ctx.get('max_length')} characters", None
    if kind == "string_pattern_mismatch":  # the value is the user's: never quoted back
        if ctx.get("pattern") == ID_PATTERN:
            return "must be an id of letters, digits, '-', '_' and '.'", None
        return "is not one of the forms this field takes", hint
    if kind == "literal_error":
        choices = re.findall(r"'([^']*)'", str(ctx.get("expected", "")))
        message = f"must be one of {', '.join(choices)}; got {got}"
        close = closest(given, choices) if isinstance(given, str) else None
        if close:
            hint = f"did you mean {close!r}?"
        elif isinstance(given, bool) and "none" in choices:
            hint = "YAML reads no/off/false as a boolean; write none"
        return message, hint
    return default[:1].lower() + default[1:], hint


def _value_hint(kind: str, given: Any, *, quote: bool) -> str | None:
    if isinstance(given, bool):
        return "YAML reads yes/no/on/off/true/false as booleans; quote the value if it is text"
    if kind == "string_type" and isinstance(given, int | Decimal):
        return f"quote it if it is text: '{bounded(str(given))}'" if quote else "quote it if it is text"
    if kind == "list_type" and isinstance(given, dict):
        return "start each item with '- '"
    return None


# --------------------------------------------------------------------------------------------
# Values in messages: bounded, escaped, and never the text of a file the user does not write
# --------------------------------------------------------------------------------------------

_SHORT_NUMBER = 12
"""Most characters of a number shown from a file whose text is never quoted: too few for a secret."""


def quoted(text: str) -> str:
    """``text`` in quotes as a message shows it (a name, a key, a value): ``'abc'``, or bounded and
    escaped as :func:`bounded` does: ``'abc...' (5,000 characters)``."""
    if len(text) <= MAX_SHOWN and text.isprintable():
        return repr(text)
    head, was_cut = cut(text, MAX_SHOWN)
    head = head.replace("'", "\\'")
    return f"'{head}...' ({len(text):,} characters)" if was_cut else f"'{head}'"


def shown(value: Any, *, quote: bool = True) -> str:
    """A value as an error message names it: ``the boolean true``, ``text 'abc'``, ``a list``...

    With ``quote`` (a value the user wrote in a scenario, a project file or ``--set``), text is
    shown bounded and escaped (:func:`quoted`) and numbers bounded; without it (a value read from
    a file the user does not write: a tools file, a price file, a trace...) text is named by its
    length only (``text (12 characters)``) and a number only when it is short."""
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if value is None:
        return "nothing (null)"
    if isinstance(value, int | Decimal | float):
        number = repr(value) if isinstance(value, float) else str(value)
        if quote or len(number) <= _SHORT_NUMBER:
            return bounded(number).replace(" characters)", " digits)")
        return f"a number of {len(number):,} characters"
    if isinstance(value, str):
        if not quote:
            return f"text ({len(value):,} character{'s' if len(value) != 1 else ''})"
        return "text " + quoted(value)
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__
