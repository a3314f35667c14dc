"""agentcost.render.jsontext writes exactly what ``json.dumps(data, indent=2, ensure_ascii=False)`` writes."""

from __future__ import annotations

import enum
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentcost.render.jsontext import indented

GOLDEN = Path(__file__).parent / "golden"


def _same(data: Any) -> None:
    assert indented(data) == json.dumps(data, indent=2, ensure_ascii=False)


@pytest.mark.parametrize("path", sorted(GOLDEN.rglob("*.json")), ids=lambda p: p.name)
def test_every_json_golden_is_written_the_same(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    data = json.loads(text)
    _same(data)


class Colour(enum.StrEnum):
    red = "red"


class Level(enum.IntEnum):
    high = 3


def test_edge_values() -> None:
    _same(
        {
            "empty": [{}, [], (), ""],
            "text": 'é "quoted" \\ back\nline\tsep\u2028\x00\x1f\u202e',
            "numbers": [0, -1, 10**40, 1.5, -0.0, 1e300, 1e-7, float("nan"), float("inf"), -float("inf")],
            "flags": [True, False, None],
            "enums": [Colour.red, Level.high],
            "tuple": (1, (2, [3])),
            "nested": {"a": {"b": {"c": [[[]]]}}},
        }
    )


@pytest.mark.parametrize("data", [{1: "int key"}, {None: 1}, {"x": {1.5: 2}}, {"d": object()}])
def test_what_it_does_not_take_goes_to_json(data: Any) -> None:
    try:
        expected = json.dumps(data, indent=2, ensure_ascii=False)
    except TypeError:
        with pytest.raises(TypeError):
            indented(data)
    else:
        assert indented(data) == expected


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=30,
)


@given(json_values)
def test_any_json_value(data: Any) -> None:
    _same(data)
