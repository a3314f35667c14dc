"""Every shipped scenario's JSON report at a fixed price date, byte for byte.

The files in tests/golden/shipped/ were recorded before the code was split into stage packages;
any later change to what a shipped scenario costs, counts or says shows here as a diff."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentcost.cli import run
from tests.conftest import ROOT, GoldenCheck

SHIPPED = sorted([*ROOT.glob("scenarios/*.yaml"), *ROOT.glob("scenarios/*.yml")])


@pytest.mark.usefixtures("no_ctok")
@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_shipped_json_is_unchanged(
    path: Path,
    golden: GoldenCheck,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("AGENTCOST_CACHE", "off")
    code = run(["estimate", f"scenarios/{path.name}", "--as-of", "2026-11-30", "--format", "json"])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    golden(f"shipped/{path.stem}.json", out)


def test_every_shipped_scenario_has_a_recorded_report() -> None:
    assert len(SHIPPED) == 10
    assert {p.stem for p in SHIPPED} == {p.stem for p in (ROOT / "tests/golden/shipped").glob("*.json")}
