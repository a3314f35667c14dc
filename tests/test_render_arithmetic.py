"""Renderers format, never add (issue 12, one arithmetic engine).

Every money or token figure a renderer shows is computed once, in the report object (a field of the
builder or a property of the report dataclass) or in the pricing code (``ModelPrices.itemise``). This
scans ``agentcost/render/*.py`` for arithmetic whose operands are named like a money or token figure:
a binary operation, an augmented assignment, a negation or a ``sum()``. Formatting (string joins,
thousands separators, ``len()`` for layout, bar lengths scaled to the largest request) is untouched.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

RENDER = Path(__file__).resolve().parents[1] / "agentcost" / "render"

# A name (attribute or variable) that holds a money or token figure: *_usd, *_tokens, cost, price,
# rate, a share, a saving, fees, headroom ... (whole words of a snake_case name).
FIGURE = re.compile(
    r"(^|_)(usd|tokens?|mtok|costs?|prices?|rates?|shares?|saved|savings?|fees?|headroom|spend|budget)(_|$)"
)

# (file, line of code) a renderer may keep, each with the reason. Keep it short: a figure belongs in
# the report object.
ALLOWED: dict[tuple[str, str], str] = {}


def _names(node: ast.AST) -> list[str]:
    """The names an operand reads: ``r.input_tokens`` -> input_tokens, ``tokens`` -> tokens; a call's
    result (``fmt.tokens(n) + star``: text) reads none."""
    if isinstance(node, ast.Attribute):
        return [node.attr]
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Subscript):
        return _names(node.value)
    if isinstance(node, ast.BinOp):
        return _names(node.left) + _names(node.right)
    if isinstance(node, ast.UnaryOp):
        return _names(node.operand)
    return []


def _is_figure(node: ast.AST) -> bool:
    return any(FIGURE.search(name) for name in _names(node))


def _is_text(node: ast.AST) -> bool:
    """A string literal or an f-string: ``+`` on it joins text."""
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str))


def money_arithmetic(source: str) -> list[tuple[int, str]]:
    """(line, code) of every arithmetic on a money or token figure in ``source``."""
    tree = ast.parse(source)
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        hit = False
        if isinstance(node, ast.BinOp):
            text = _is_text(node.left) or _is_text(node.right)
            hit = not text and (_is_figure(node.left) or _is_figure(node.right))
        elif isinstance(node, ast.AugAssign):
            hit = not _is_text(node.value) and (_is_figure(node.target) or _is_figure(node.value))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            hit = _is_figure(node.operand)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "sum":
            hit = any(
                isinstance(inner, (ast.Attribute, ast.Name)) and _is_figure(inner)
                for arg in node.args
                for inner in ast.walk(arg)
            )
        if hit and isinstance(node, (ast.expr, ast.stmt)):
            found.append((node.lineno, ast.get_source_segment(source, node) or ""))
    return found


def test_renderers_do_no_money_or_token_arithmetic() -> None:
    found = []
    for path in sorted(RENDER.glob("*.py")):
        for line, code in money_arithmetic(path.read_text(encoding="utf-8")):
            if (path.name, code) not in ALLOWED:
                found.append(f"agentcost/render/{path.name}:{line}: {code}")
    assert not found, (
        "renderers format, never add: compute these figures in the report object (report/*.py, the"
        " command's report dataclass) or in the pricing code, then format them:\n" + "\n".join(found)
    )


@pytest.mark.parametrize(
    "code",
    [  # the arithmetic issue 12 moved out of the renderers, as it was written there
        "saving = d.sequential_usd - d.cost_usd",  # render/dynamics.py
        '{"saving_usd": fmt.exact(d.sequential_usd - d.cost_usd)}',  # render/dynamics.py
        "biggest = max((r.input_tokens + r.output_tokens for r in report.requests), default=0)",  # chart
        "_bar(r.cache_read_tokens, r.input_tokens - r.cache_read_tokens, r.output_tokens, scale)",  # chart
        'f"{fmt.usd(s.creation_usd + s.storage_usd)}"',  # render/markdown.py
        'fees += f" + explicit cache {fmt.usd(t.cache_creation_usd + t.storage_usd, 6)}"',  # table
        "base = lever.cost_usd + lever.saved_usd",  # render/insights.py
        "usd = tokens * rate / MILLION",  # render/prices.py, the worked example
        "cached = usage.cache_read_tokens + usage.cache_write_tokens + usage.cache_write_1h_tokens",
        "total_usd = sum((line.usd for line in lines), Decimal(0))",  # render/prices.py
        'f"costs {fmt.usd(-x.drop_usd)}"',
        "total += row.cost_usd",
    ],
)
def test_the_scan_catches_money_arithmetic(code: str) -> None:
    assert money_arithmetic(code), code


@pytest.mark.parametrize(
    "code",
    [  # formatting and layout stay in the renderers
        "cell = fmt.tokens(r.input_tokens) + star",
        'line = "| " + " | ".join(cells) + " |"',
        'text += f" [{lever.tradeoff}]"',
        'fees += f" + explicit cache {fmt.usd(t.explicit_cache_usd, 6)}"',
        "scale = width / biggest if biggest else 0.0",
        'bar = "█" * (round(BAR * b.runs / most) if most else 0)',
        'rule = "|---|---|" + "--:|" * (len(header) - 2)',
        "runs = len(all_subagents(report))",
        "w1 = max(len(r[0]) for r in rows)",
    ],
)
def test_the_scan_leaves_formatting_alone(code: str) -> None:
    assert not money_arithmetic(code), code
