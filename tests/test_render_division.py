"""Renderers never divide (issue 27, "renderers never add").

A share, a percentage, a mean or a per-anything figure is a quotient; the report computes it once
(``agentcost/report/``, or a property of the data the loop stage built, such as
:class:`~agentcost.loop.simulate.Simulation`) and :mod:`agentcost.report.fmt` turns it into text. This
scans ``agentcost/render/*.py`` for ``/`` and ``//`` (binary or augmented). Only the drawing modules
keep division, for geometry: the pixels of the SVG charts and the character cells of the terminal
bar charts. The simulation's histogram bars need none: each bin carries its exact height
(:attr:`agentcost.loop.simulate.Bin.height`) and :func:`agentcost.render.simulation.bar_length`
multiplies it by the bars' width.
"""

from __future__ import annotations

import ast
from fractions import Fraction
from pathlib import Path

import pytest

RENDER = Path(__file__).resolve().parents[1] / "agentcost" / "render"

# Modules whose division is drawing geometry, each with the reason. A figure a reader sees does not
# belong here: compute it in the report and format it.
GEOMETRY: dict[str, str] = {
    "svg.py": "pixels: axis ticks and scale, bar slots, centres and heights on the canvas",
    "chart.py": "character cells: the label column's share of the terminal, cells per unit of the longest bar",
}


def divisions(source: str) -> list[tuple[int, str]]:
    """(line, code) of every ``/`` and ``//`` in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.BinOp, ast.AugAssign)) and isinstance(node.op, (ast.Div, ast.FloorDiv)):
            found.append((node.lineno, ast.get_source_segment(source, node) or ""))
    return sorted(found)


def test_renderers_do_not_divide() -> None:
    found = [
        f"agentcost/render/{path.name}:{line}: {code}"
        for path in sorted(RENDER.glob("*.py"))
        if path.name not in GEOMETRY
        for line, code in divisions(path.read_text(encoding="utf-8"))
    ]
    assert not found, (
        "renderers format, never divide: compute the share or quotient in the report (report/*.py, or"
        " a property of the section's data) and format it with agentcost.report.fmt:\n" + "\n".join(found)
    )


def test_the_geometry_modules_exist() -> None:
    """An exemption outliving its module would exempt a new one of that name unread."""
    assert all((RENDER / name).is_file() for name in GEOMETRY)


def test_the_simulation_renderer_does_not_divide() -> None:
    source = (RENDER / "simulation.py").read_text(encoding="utf-8")
    assert divisions(source) == []


@pytest.mark.parametrize(
    "code",
    [  # the division issue 27 moved out of render/simulation.py, as it was written there
        "return fmt.percent(Decimal(runs) / total)",
        'bar = "█" * (round(bar_max * b.runs / most) if most else 0)',
        "width = total // count",
        "share /= runs",
    ],
)
def test_the_scan_catches_division(code: str) -> None:
    assert divisions(code), code


@pytest.mark.parametrize(
    "code",
    ['path = "a/b"', 'f"{low} / {high}"', "bar = round(longest * height)", "n = a * b - c"],
)
def test_the_scan_leaves_text_and_products_alone(code: str) -> None:
    assert not divisions(code), code


def test_bar_length_draws_what_the_quotient_drew() -> None:
    """The exact height gives every bar the length ``round(longest * runs / most)`` gave, ties to even
    included (a Decimal quotient would not: 1/60 of a 30-character bar)."""
    from agentcost.render.simulation import bar_length

    for most in [*range(1, 61), 97, 1_000, 20_000]:
        for runs in {*range(min(most, 61)), most // 3, most // 2, most - 1, most}:
            for longest in range(10, 41):
                assert bar_length(Fraction(runs, most), longest) == round(longest * runs / most)


def test_the_roundings_the_renderers_dropped_are_fmts() -> None:
    """The JSON shares and means and the table's mean counts, rounded half-up by fmt (issue 27)."""
    from decimal import Decimal

    from agentcost.report import fmt

    assert fmt.exact_places(Decimal("0.03345"), 4) == "0.0335"
    assert fmt.exact_places(Decimal(1) / 3, 10) == "0.3333333333"
    assert fmt.exact_places(Decimal("8.995"), 2) == "9"
    assert fmt.mean_count(Decimal("78160.87")) == "78,160.9"
    assert fmt.mean_count(Decimal("9")) == "9.0"
