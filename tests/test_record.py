"""`agentcost.infra.record`: a record behaves as the `@dataclass` it stands for.

Each test builds a record and its stdlib twin from one class body and holds them to the same
behaviour: construction, repr, equality, hashing, immutability, `dataclasses.replace`/`asdict`.
"""

from __future__ import annotations

import dataclasses
import pickle
from dataclasses import FrozenInstanceError, dataclass, field
from typing import Any

import pytest

from agentcost.infra.record import record


def twins(frozen: bool = True, eq: bool = True) -> tuple[Any, Any]:
    """The same class made by `record` and by `dataclass`."""

    def body() -> type:
        class Point:
            """A point with a label that equality ignores."""

            x: int
            y: float = 0.0
            tags: tuple[str, ...] = ()
            label: str = field(default="", compare=False)
            seen: list[int] = field(default_factory=list, repr=False, hash=False)

        return Point

    return record(frozen=frozen, eq=eq)(body()), dataclass(frozen=frozen, eq=eq)(body())


def test_a_record_is_a_dataclass_with_the_same_fields_and_init() -> None:
    rec, std = twins()
    assert dataclasses.is_dataclass(rec)
    assert [f.name for f in dataclasses.fields(rec)] == ["x", "y", "tags", "label", "seen"]
    assert [(f.name, f.default, f.compare, f.repr) for f in dataclasses.fields(rec)] == [
        (f.name, f.default, f.compare, f.repr) for f in dataclasses.fields(std)
    ]
    made = rec(1, 2.5, ("a",), label="l")
    assert (made.x, made.y, made.tags, made.label, made.seen) == (1, 2.5, ("a",), "l", [])
    with pytest.raises(TypeError):
        rec()  # x has no default, as with the dataclass


def test_repr_is_the_dataclass_repr() -> None:
    rec, std = twins()
    assert repr(rec(1, 2.0, ("a",), "l")) == repr(std(1, 2.0, ("a",), "l"))
    assert repr(rec(3)) == "twins.<locals>.body.<locals>.Point(x=3, y=0.0, tags=(), label='')"


@pytest.mark.parametrize(
    ("a", "b", "equal"),
    [
        ((1, 2.0), (1, 2.0), True),
        ((1, 2.0), (1, 3.0), False),
        ((1, 2.0, (), "left"), (1, 2.0, (), "right"), True),  # label: compare=False
        ((1, float("nan")), (1, float("nan")), False),  # two NaNs: the tuples hold different objects
    ],
)
def test_equality_and_hash_match_the_dataclass(a: tuple[Any, ...], b: tuple[Any, ...], equal: bool) -> None:
    rec, std = twins()
    assert (rec(*a) == rec(*b)) is equal is (std(*a) == std(*b))
    assert hash(rec(*a)) == hash(std(*a))  # the same tuple of the same fields is hashed
    if equal:
        assert hash(rec(*a)) == hash(rec(*b))
    assert rec(*a) != std(*a)  # another class is never equal, as between two dataclasses
    assert rec(1).__eq__(object()) is NotImplemented


def test_a_frozen_record_refuses_assignment_and_deletion_after_init() -> None:
    rec, _ = twins()
    made = rec(1)
    with pytest.raises(FrozenInstanceError):
        made.x = 2
    with pytest.raises(FrozenInstanceError):
        made.other = 2  # a name that is no field
    with pytest.raises(FrozenInstanceError):
        del made.x
    assert made.x == 1
    assert dataclasses.replace(made, x=5).x == 5
    assert dataclasses.asdict(made) == {"x": 1, "y": 0.0, "tags": (), "label": "", "seen": []}


def test_a_record_pickles_and_copies() -> None:
    rec = record(Pickled)
    made = rec(1, "a")
    assert pickle.loads(pickle.dumps(made)) == made
    assert dataclasses.replace(made) == made


@dataclass(frozen=True)  # the record is made from it in the test: pickle finds the class by name
class Pickled:
    a: int
    b: str


def test_a_mutable_record_is_unhashable_as_the_dataclass() -> None:
    rec, std = twins(frozen=False)
    made = rec(1)
    made.x = 4
    assert made == rec(4)
    with pytest.raises(TypeError):
        hash(made)
    with pytest.raises(TypeError):
        hash(std(1))


def test_eq_false_keeps_identity() -> None:
    rec, _ = twins(eq=False)
    one = rec(1)
    assert one != rec(1)
    assert one == one
    assert hash(one) == object.__hash__(one)


def test_a_class_keeps_the_methods_it_writes_and_subclasses_add_fields() -> None:
    @record
    class Base:
        a: int

        def __repr__(self) -> str:
            return f"Base<{self.a}>"

    @record
    class Child(Base):
        b: int = 0

    assert repr(Base(1)) == "Base<1>"
    assert Child(1, 2) == Child(1, 2) != Child(1, 3)
    assert hash(Child(1, 2)) == hash((1, 2))
    with pytest.raises(FrozenInstanceError):
        Child(1).b = 1


def test_post_init_may_set_derived_fields_with_object_setattr() -> None:
    @record
    class Derived:
        a: int
        double: int = field(init=False, default=0)

        def __post_init__(self) -> None:
            object.__setattr__(self, "double", self.a * 2)

    assert Derived(3).double == 6
    assert Derived(3) == Derived(3)


def test_one_compared_field_and_none() -> None:
    @record
    class One:
        a: int

    @record
    class Nothing:
        a: int = field(compare=False)

    assert One(1) == One(1) != One(2)
    assert hash(One(1)) == hash((1,))
    assert repr(One(1)) == "test_one_compared_field_and_none.<locals>.One(a=1)"
    assert Nothing(1) == Nothing(2)
    assert hash(Nothing(1)) == hash(())


@pytest.mark.parametrize("frozen", [True, False])
def test_a_class_that_writes_eq_alone_is_hashed_as_the_dataclass_would(frozen: bool) -> None:
    def body() -> type:
        class Named:
            """Equal by name, whatever the case."""

            name: str

            def __eq__(self, other: object) -> bool:
                return isinstance(other, Named) and self.name.lower() == other.name.lower()

        return Named

    rec, std = record(frozen=frozen)(body()), dataclass(frozen=frozen)(body())
    assert rec("A") == rec("a")
    if frozen:  # a generated hash, as @dataclass(frozen=True) adds one
        assert hash(rec("A")) == hash(std("A")) == hash(("A",))
    else:
        assert rec.__hash__ is None and std.__hash__ is None


def test_init_takes_the_dataclass_parameters_and_refuses_what_a_record_does_not_support() -> None:
    import inspect
    from dataclasses import InitVar

    rec, std = twins()
    ours, theirs = inspect.signature(rec).parameters, inspect.signature(std).parameters
    assert [(p.name, p.kind) for p in ours.values()] == [(p.name, p.kind) for p in theirs.values()]
    assert rec(1, tags=("t",)).seen == [] and rec(1).seen is not rec(1).seen  # a list per instance
    with pytest.raises(TypeError, match="unexpected keyword"):
        rec(1, nope=2)

    @record
    class Later:
        """A field outside __init__, made by its factory."""

        a: int
        made: list[int] = field(init=False, default_factory=list)

    assert Later(1).made == [] and "made" not in inspect.signature(Later).parameters

    class Order:
        """A default before a field without one."""

        a: int = 0
        b: int  # type: ignore[misc]

    with pytest.raises(TypeError, match="non-default argument 'b' follows default argument"):
        record(Order)

    class Init:
        """An InitVar, which a record does not take."""

        a: InitVar[int]

    with pytest.raises(TypeError, match="InitVar"):
        record(Init)


def test_a_class_that_writes_init_keeps_it() -> None:
    @record
    class Scaled:
        """Made from a number of thousands."""

        n: int

        def __init__(self, thousands: int) -> None:
            object.__setattr__(self, "n", thousands * 1000)

    assert Scaled(2).n == 2000 and Scaled(2) == Scaled(2)
