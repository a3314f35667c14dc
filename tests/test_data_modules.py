"""The generated data modules (issue 27): the generator writes any plain value back exactly."""

from __future__ import annotations

import math
from datetime import date, datetime
from pathlib import Path

import pytest

from agentcost.infra import pysource

# --- the generator --------------------------------------------------------------------------------

ODD_VALUES: list[object] = [
    None,
    True,
    0,
    -7,
    1.5,
    "",
    'say "hi"',
    "it's",
    "back\\slash and \\d",
    "line\nbreak\ttab",
    "§ ÷ × — ü",
    "\x00\x7f",
    date(2026, 2, 28),
    (),
    ("one",),
    [],
    {},
    {"a": [1, ("x",), {"b": None}], "c": date(2026, 1, 1)},
]


@pytest.mark.parametrize("depth", [0, 1, 3])
@pytest.mark.parametrize("value", ODD_VALUES, ids=repr)
def test_a_literal_evaluates_to_the_same_value_and_types(value: object, depth: int) -> None:
    text = pysource.literal(value, depth=depth)
    back = eval(text, {"date": date})
    assert back == value and type(back) is type(value)
    assert repr(back) == repr(value)  # nested types too (a tuple stays a tuple)


@pytest.mark.parametrize("value", [datetime(2026, 1, 1), math.inf, math.nan, {1, 2}, b"x"], ids=repr)
def test_a_value_without_an_exact_literal_is_refused(value: object) -> None:
    with pytest.raises(TypeError):
        pysource.literal(value)


def test_a_module_is_the_same_text_for_the_same_values_and_loads_them(tmp_path: Path) -> None:
    values = {"t": (("a", date(2026, 3, 4), {"k": "v"}),)}
    text = pysource.module_text(
        source="x.yaml",
        command="make x",
        purpose="Test rows.",
        assignments=[pysource.Assignment("ROWS", "dict[str, Any]", values)],
    )
    assert text == pysource.module_text(
        source="x.yaml",
        command="make x",
        purpose="Test rows.",
        assignments=[pysource.Assignment("ROWS", "dict[str, Any]", values)],
    )
    assert text.startswith('"""Generated from x.yaml by ``make x``; do not edit.\n')
    namespace: dict[str, object] = {}
    exec(compile(text, "x_data.py", "exec"), namespace)
    assert namespace["ROWS"] == values


def test_write_main_writes_once_and_refuses_other_arguments(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "x_data.py"
    assert pysource.write_main(["--write-data"], target, lambda: "X = 1\n", "make x") == 0
    assert target.read_bytes() == b"X = 1\n"
    assert "wrote" in capsys.readouterr().out
    assert pysource.write_main(["--write-data"], target, lambda: "X = 1\n", "make x") == 0
    assert "up to date" in capsys.readouterr().out
    assert pysource.write_main([], target, lambda: "X = 2\n", "make x") == 2
    assert "usage: make x" in capsys.readouterr().err
    assert target.read_text(encoding="utf-8") == "X = 1\n"
