"""docs/api.md: its examples run, in order, and assert real figures; it describes every field of
the published result types."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import pytest

from agentcost import api
from tests.conftest import ROOT

DOC = ROOT / "docs" / "api.md"
pytestmark = pytest.mark.usefixtures("no_ctok")


def python_blocks(text: str) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```$", text, flags=re.DOTALL | re.MULTILINE)


def test_the_examples_run_and_their_figures_hold(monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = python_blocks(DOC.read_text(encoding="utf-8"))
    assert len(blocks) == 9
    assert all("assert " in block for block in blocks)  # each checks its figures, not just shows them
    monkeypatch.chdir(ROOT)
    namespace: dict[str, Any] = {"__name__": "docs_api"}
    for number, block in enumerate(blocks, start=1):
        exec(compile(block, f"docs/api.md, python block {number}", "exec"), namespace)


def test_a_failing_example_fails_the_test(monkeypatch: pytest.MonkeyPatch) -> None:
    """The runner above does not swallow a wrong figure."""
    monkeypatch.chdir(ROOT)
    (first,) = python_blocks(DOC.read_text(encoding="utf-8"))[:1]
    wrong = first.replace('Decimal("0.0286497")', 'Decimal("0.0286496")', 1)
    assert wrong != first
    with pytest.raises(AssertionError):
        exec(compile(wrong, "docs/api.md, altered", "exec"), {})


@pytest.mark.parametrize(
    "kind",
    [api.EstimateResult, api.Request, api.Totals, api.Gate, api.CompareResult, api.ModelCost, api.CapsResult],
)
def test_every_public_field_is_described(kind: type) -> None:
    section = DOC.read_text(encoding="utf-8").partition("## The result types")[2]
    assert f"`{kind.__name__}`" in section
    for item in dataclasses.fields(kind):
        if not item.name.startswith("_"):
            assert f"`{item.name}" in section, f"{kind.__name__}.{item.name} is not in docs/api.md"
