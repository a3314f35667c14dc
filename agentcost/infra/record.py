"""`record`: a frozen dataclass whose class is cheap to create.

``@record`` on a class makes it a standard :mod:`dataclasses` dataclass (``fields``, ``replace``,
``asdict`` and type checkers see one), frozen by default, with value equality, a hash and a
``repr`` — the behaviour of ``@dataclass(frozen=True)``. The difference is the cost of defining the
class. On Python 3.11-3.13, ``@dataclass(frozen=True)`` writes six methods per class as source text
and compiles each (``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``,
``__delattr__``): about 0.7 ms a class, and an estimate defines over a hundred record types on its
way, which was a third of its run (docs/performance.md). ``record`` compiles ``__init__`` alone
(:func:`_init`, as the dataclass writes it: each field set once with ``object.__setattr__``) and
gives every record the same five other functions, defined once below, which read the class's
field names from a tuple computed when the class is made: about 0.2 ms a class.

What differs from ``@dataclass(frozen=True)``, measured in docs/performance.md: making an instance
costs the same, while ``==`` and ``hash`` (the same fields in the same order;
``field(compare=False)`` and ``field(hash=...)`` honoured, through one ``operator.attrgetter``)
take about twice as long. A record takes no ``InitVar`` and no ``kw_only`` field (it says so when
the class is made).

A class that writes one of these methods itself keeps its own. ``frozen=False`` gives a mutable
record (equality and ``repr``, no hash, as ``@dataclass`` does); ``eq=False`` keeps identity
equality and hashing.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import MISSING, Field, FrozenInstanceError, dataclass, field, fields
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
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


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


_FACTORY = object()
"""The default of an ``__init__`` parameter whose field has a ``default_factory``: call it."""


def _init(cls: type, fs: tuple[Field[Any], ...]) -> Callable[..., None]:
    """``cls.__init__``, written as ``@dataclass(frozen=True)`` writes it: each field set once with
    ``object.__setattr__`` (so the frozen ``__setattr__`` never runs while the instance is made),
    defaults and default factories as the dataclass's, then ``__post_init__`` if the class has one."""
    annotations = inspect.get_annotations(cls)  # the class's own, as strings under postponed evaluation
    if any("InitVar" in str(kind) for kind in annotations.values()) or any(f.kw_only is True for f in fs):
        raise TypeError(f"{cls.__qualname__}: record takes no InitVar or kw_only field; use @dataclass")
    env: dict[str, Any] = {"__record_set": object.__setattr__, "__record_factory": _FACTORY}
    params: list[str] = []
    lines: list[str] = []
    defaulted = False
    for f in fs:
        if f.name == "self":
            raise TypeError(f"{cls.__qualname__}: a record field may not be named 'self'")
        if f.default is not MISSING:
            env[f"__record_default_{f.name}"] = f.default
            value = f"__record_default_{f.name}"
        elif f.default_factory is not MISSING:
            env[f"__record_make_{f.name}"] = f.default_factory
            value = f"__record_make_{f.name}()"
        else:
            value = ""
        if not f.init:
            if value:
                lines.append(f"__record_set(self, {f.name!r}, {value})")
            continue
        if value and f.default_factory is not MISSING:
            params.append(f"{f.name}=__record_factory")
            value = f"{value} if {f.name} is __record_factory else {f.name}"
        elif value:
            params.append(f"{f.name}={value}")
            value = f.name
        elif defaulted:
            raise TypeError(f"non-default argument {f.name!r} follows default argument")
        else:
            params.append(f.name)
            value = f.name
        defaulted = defaulted or f.default is not MISSING or f.default_factory is not MISSING
        lines.append(f"__record_set(self, {f.name!r}, {value})")
    if hasattr(cls, "__post_init__"):
        lines.append("self.__post_init__()")
    source = f"def __init__({', '.join(['self', *params])}) -> None:\n    " + "\n    ".join(lines or ["pass"])
    exec(source, env)  # field names and our own names only: no text from input
    made: Callable[..., None] = env["__init__"]
    made.__qualname__ = f"{cls.__qualname__}.__init__"
    return made


def _set(cls: type, name: str, value: Any) -> None:
    if name not in cls.__dict__:  # the class's own method wins, as with @dataclass
        setattr(cls, name, value)


def _make(cls: T, frozen: bool, eq: bool) -> T:
    made: Any = dataclass(cls, init=False, repr=False, eq=False)  # the fields, no method compiled
    fs = fields(made)
    if "__init__" not in cls.__dict__:  # the class's own wins, as with @dataclass
        made.__init__ = _init(made, fs)
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
