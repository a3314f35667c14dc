"""`record`: a frozen dataclass whose class is cheap to create.

``@record`` on a class makes it a standard :mod:`dataclasses` dataclass (``fields``, ``replace``,
``asdict`` and type checkers see one), frozen by default, with value equality, a hash and a
``repr`` — the behaviour of ``@dataclass(frozen=True)``. The difference is the cost of defining the
class. On Python 3.11-3.13, ``@dataclass(frozen=True)`` writes six methods per class as source text
and compiles each (``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``,
``__delattr__``): about 0.7 ms a class, and an estimate defines over a hundred record types on its
way, which was a third of its run (docs/performance.md). ``record`` lets :mod:`dataclasses` write
only ``__init__`` and gives every record the same five other functions, defined once below, which
read the class's field names from a tuple computed when the class is made: about 0.2 ms a class.

What differs from ``@dataclass(frozen=True)``, all of it measured in docs/performance.md:

- Making an instance costs more: the frozen check is a Python ``__setattr__`` that lets
  ``__init__`` set each field once (after ``__init__`` every assignment raises
  :class:`dataclasses.FrozenInstanceError`, as a frozen dataclass does), and it keeps the
  instance's ``__dict__``. A type made once per request on the accountant's path (the ledger row,
  the request's usage and its report line) is therefore a ``@dataclass(frozen=True)``: on 100,000
  rounds ``record`` there cost ~1 s and ~23 MiB more.
- ``==`` and ``hash`` compare the same fields in the same order (``field(compare=False)`` and
  ``field(hash=...)`` are honoured), through one ``operator.attrgetter``.

A class that writes one of these methods itself keeps its own. ``frozen=False`` gives a mutable
record (equality and ``repr``, no hash, as ``@dataclass`` does); ``eq=False`` keeps identity
equality and hashing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, FrozenInstanceError, dataclass, field, fields
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform, overload

__all__ = ["record"]

T = TypeVar("T", bound=type)


def _key_getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """A function from an instance to the tuple of the named fields (always a tuple)."""
    if len(names) == 1:
        get = attrgetter(names[0])
        return lambda obj: (get(obj),)
    if not names:
        return lambda obj: ()
    return attrgetter(*names)  # a tuple for two names or more


def _setattr(self: Any, name: str, value: Any) -> None:
    # __init__ sets each field once; after it, every field is set and any assignment is refused.
    state = self.__dict__
    if name in state or name not in self.__dataclass_fields__:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")
    state[name] = value


def _delattr(self: Any, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is not self.__class__:
        return NotImplemented
    key = self.__class__.__record_compare__  # read on the class: a function there is not bound
    return key(self) == key(other)


def _hash(self: Any) -> int:
    return hash(self.__class__.__record_hash__(self))


def _repr(self: Any) -> str:
    cls = self.__class__
    names = cls.__record_repr__
    values = cls.__record_repr_get__(self)
    shown = ", ".join(f"{name}={value!r}" for name, value in zip(names, values, strict=True))
    return f"{cls.__qualname__}({shown})"


def _set(cls: type, name: str, value: Any) -> None:
    if name not in cls.__dict__:  # the class's own method wins, as with @dataclass
        setattr(cls, name, value)


def _make(cls: T, frozen: bool, eq: bool) -> T:
    made: Any = dataclass(cls, repr=False, eq=False)  # only __init__ is compiled
    fs = fields(made)
    shown = tuple(f.name for f in fs if f.repr)
    made.__record_repr__ = shown
    made.__record_repr_get__ = _key_getter(shown)
    _set(made, "__repr__", _repr)
    if eq:
        compared = tuple(f.name for f in fs if f.compare)
        made.__record_compare__ = _key_getter(compared)
        _set(made, "__eq__", _eq)
    if frozen:
        _set(made, "__setattr__", _setattr)
        _set(made, "__delattr__", _delattr)
    # a class that writes __eq__ alone gets __hash__ = None from Python: not a hash of its own,
    # which is how @dataclass reads it too
    own_hash = cls.__dict__.get("__hash__", MISSING)
    explicit_hash = not (own_hash is MISSING or (own_hash is None and "__eq__" in cls.__dict__))
    if eq and frozen and not explicit_hash:
        hashed = tuple(f.name for f in fs if (f.compare if f.hash is None else f.hash))
        made.__record_hash__ = _key_getter(hashed)
        made.__hash__ = _hash
    elif eq and not explicit_hash:
        made.__hash__ = None  # mutable with value equality: unhashable, as @dataclass
    return made  # type: ignore[no-any-return]


@overload
def record(cls: T, /) -> T: ...


@overload
def record(*, frozen: bool = True, eq: bool = True) -> Callable[[T], T]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def record(cls: T | None = None, /, *, frozen: bool = True, eq: bool = True) -> T | Callable[[T], T]:
    """Make ``cls`` a dataclass, frozen unless ``frozen=False``: see the module's docstring."""
    if cls is None:
        return lambda c: _make(c, frozen, eq)
    return _make(cls, frozen, eq)
