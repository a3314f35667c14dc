"""The estimate, models, prices, --simulate and --explain tables at 60, 80 and 120 columns (issue 14).

Each output is pinned by a golden file per width (``tests/golden/widths/``), made in-process with the
output going to a pipe (COLUMNS=N). A few runs go through a real pseudo-terminal too (a subprocess
whose stdout is the terminal, its window N columns wide): the same bytes, ``\\r`` aside. At every
width: no line wider than the terminal, no ``…``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from rich.cells import cell_len
from typer.testing import CliRunner

from agentcost.cli import app
from tests.conftest import TERMINAL_ENV, GoldenCheck, run_in_pty

pytestmark = pytest.mark.usefixtures("no_ctok")

ROOT = Path(__file__).resolve().parent.parent
AS_OF = "2026-11-30"
WIDTHS = (60, 80, 120)

COMMANDS: dict[str, tuple[str, ...]] = {
    "estimate-bugfix": ("estimate", "scenarios/bugfix.yaml"),
    "estimate-subagent-research": ("estimate", "scenarios/subagent-research.yaml"),
    "models": ("models",),
    "prices-claude-sonnet-4-5": ("prices", "claude-sonnet-4-5"),
    "simulate": ("estimate", "scenarios/uncertain-steps.yaml", "--simulate", "200", "--seed", "1"),
    "explain": ("estimate", "scenarios/mcp-40-tools.yaml", "--explain"),
}


def check_width(out: str, width: int) -> None:
    assert out.strip()
    for line in out.splitlines():
        assert cell_len(line) <= width, f"{cell_len(line)} > {width} columns: {line!r}"
    assert "…" not in out


def piped(args: tuple[str, ...], width: int) -> str:
    env = {**TERMINAL_ENV, "COLUMNS": str(width), "LINES": "50", "NO_COLOR": "1"}
    result = CliRunner().invoke(app, [*args, "--as-of", AS_OF], env=env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_width_golden(name: str, width: int, golden: GoldenCheck, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    out = piped(COMMANDS[name], width)
    check_width(out, width)
    golden(f"widths/{name}-{width}.txt", out)


def test_narrow_columns_are_named_not_cropped(monkeypatch: pytest.MonkeyPatch) -> None:
    """At 80 columns `models` drops secondary columns and says which (it used to crop its right
    side); the ledger keeps #, what the model did, input, output and cost."""
    monkeypatch.chdir(ROOT)
    models = piped(("models",), 80)
    assert "Not shown at 80 columns:" in models
    ledger = piped(("estimate", "scenarios/subagent-research.yaml"), 60)
    for header in ("#", "model did", "input", "output*", "cost"):
        assert header in ledger
    assert "↳ subagent" in ledger


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a POSIX pseudo-terminal")
@pytest.mark.parametrize("width", (80,))  # one subprocess: the pipe goldens cover every width
@pytest.mark.usefixtures("seeded_cache")
def test_a_real_terminal_gets_the_same_table(width: int, golden: GoldenCheck) -> None:
    env = {k: v for k, v in os.environ.items() if k not in TERMINAL_ENV}
    env.update(COLUMNS=str(width), LINES="50", TERM="xterm-256color", NO_COLOR="1")
    out = run_in_pty([*COMMANDS["estimate-bugfix"], "--as-of", AS_OF], width, cwd=ROOT, env=env)
    check_width(out, width)
    golden(f"widths/estimate-bugfix-{width}.txt", out)
