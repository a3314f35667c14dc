"""Issue 30, layout and money: ``models --all`` and ``reconcile`` at 60, 80 and 120 columns, one money
policy (monthly figures at cents, rates without binary-float noise) and the small wording points."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from agentcost.cli import run
from agentcost.report import fmt

AS_OF = "2026-11-30"


def _piped(
    args: list[str], width: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> list[str]:
    monkeypatch.setenv("COLUMNS", str(width))
    assert run(args) == 0
    return capsys.readouterr().out.splitlines()


@pytest.mark.usefixtures("fixed_terminal")
def test_models_all_fits_60_columns_in_about_the_lines_of_120(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """It printed 16,464 lines at 60 columns (every row stacked: four rates such as
    0.27999999999999997 made the rate columns 20 wide) against 2,488 at 120."""
    from agentcost.loop.options import parse_as_of
    from agentcost.prices.listing import listing
    from agentcost.render.output import print_rich
    from agentcost.render.table import render_models
    from agentcost.report.models import models_report

    # the command's own steps (agentcost.cli.catalog.models), the listing made once for both widths
    when = parse_as_of(AS_OF)
    found = listing(as_of=when, pattern=None, user_prices=None, provider=None, every=True)
    report = models_report(found, as_of=when)
    lines = {}
    for width in (60, 120):
        monkeypatch.setenv("COLUMNS", str(width))
        print_rich(render_models(report))
        lines[width] = capsys.readouterr().out.splitlines()
    assert {w: len(out) for w, out in lines.items()} == {60: 2354, 120: 2318}
    assert len(lines[60]) <= 1.5 * len(lines[120])
    for width, out in lines.items():
        assert max(map(len, out)) <= width
        assert not any("…" in line for line in out)
    # a float-computed rate reads as it is meant, every published digit kept
    assert "$0.27999999999999997" not in "\n".join(lines[120])
    assert fmt.per_mtok(Decimal("0.27999999999999997")) == "$0.28"
    assert fmt.per_mtok(Decimal("0.10875")) == "$0.10875"
    assert fmt.rate(Decimal("1.0399999999999998")) == "$1.04/MTok"
    row = next(line for line in lines[60] if line.startswith("│ claude-haiku-4-5*"))
    assert row.split() == ["│", "claude-haiku-4-5*", "│", "$1", "│", "$5", "│"]
    assert "Not shown at 60 columns: cache write, tiers, cache read, " in lines[60]


USAGE_EXPORTS = Path(__file__).parent / "data" / "usage-exports"
RECONCILE = [
    "reconcile",
    *(
        str(USAGE_EXPORTS / name)
        for name in ("anthropic-usage.json", "anthropic-cost.json", "openai-usage.json", "openai-costs.json")
    ),
]


@pytest.mark.usefixtures("fixed_terminal")
def test_reconcile_is_a_table_that_fits_60_80_and_120_columns(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """It was plain text at a fixed 80 columns, model ids cut to 22 characters with "…"."""
    lines = {w: _piped(RECONCILE, w, monkeypatch, capsys) for w in (60, 80, 120)}
    assert {w: len(out) for w, out in lines.items()} == {60: 62, 80: 52, 120: 47}
    for width, out in lines.items():
        assert max(map(len, out)) <= width
        assert not any("…" in line for line in out)
        text = "\n".join(out)
        for figure in ("-$0.0450", "$5.5235", "$1.8450", "$1.8060", "$0.5400", "$0.0060"):
            assert figure in text
        row = next(line for line in out if line.startswith("│ gpt-4o-mini-2024-07-18 "))
        assert row.split("│")[2:5] == [
            "   $0.5400 ",
            "       - ",
            "          - " if width > 60 else "        - ",
        ]
    assert lines[60][0] == "Reconciled difference: -$0.0450 (export minus agentcost)"
    assert "Not shown at 60 columns: status (a wider terminal or " in lines[60]
    # the status the narrow table leaves out is in each row's details
    assert any(line.startswith("2026-11-03 claude-sonnet-4-5 (differs): anthropic,") for line in lines[60])
    assert "│ claude-sonnet-4-5      │   $1.1700 │ $1.1250 │   -$0.0450 │ differs │" in lines[120]
