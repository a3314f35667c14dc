"""The context window: published windows genai-prices lacks (facts.yaml), the note when a window is
unknown, the gate over it, and the warning for a price date before the model's release."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from agentcost import facts
from agentcost.cli import run

AS_OF = "2026-11-30"
UNKNOWN = "gemini-3-pro-preview"  # neither genai-prices nor facts.yaml knows its window
pytestmark = pytest.mark.usefixtures("no_ctok")


def scenario(tmp_path: Path, model: str, tokens: int) -> Path:
    path = tmp_path / "s.yaml"
    path.write_text(
        f"version: 1\nname: s\nmodel: {model}\nsystem: {{tokens: {tokens}}}\ntask: hi\nfinal: 10\n",
        encoding="utf-8",
    )
    return path


def estimate(
    capsys: pytest.CaptureFixture[str], path: Path, as_of: str = AS_OF
) -> tuple[int, dict[str, Any]]:
    code = run(["estimate", str(path), "--as-of", as_of, "-f", "json"])
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("model", ["gemini-2.5-pro", "gemini-3.1-pro-preview"])
def test_a_published_gemini_window_is_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], model: str
) -> None:
    fact = facts.context_window("google", model)
    assert fact is not None and fact.value == 1_048_576 and fact.read == date(2026, 12, 1)
    assert "https://ai.google.dev/gemini-api/docs/models" in fact.source
    code, data = estimate(capsys, scenario(tmp_path, model, 1000))
    assert code == 0 and data["context_window"] == 1_048_576
    assert not any("context window" in w for w in data["warnings"])
    code, data = estimate(capsys, scenario(tmp_path, model, 1_500_000))
    assert code == 1  # the README's promise: a request over the window fails the run
    gate = next(g for g in data["gates"] if g["name"] == "context_window")
    assert gate["tripped"] and f"> {model} context window 1,048,576" in gate["message"]
    assert any("exceeds the context window" in w for w in data["warnings"])


def test_an_unknown_window_is_said_in_every_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert facts.context_window("google", UNKNOWN) is None
    path = scenario(tmp_path, UNKNOWN, 1_500_000)
    note = f"context window of {UNKNOWN} unknown: not checked"
    code, data = estimate(capsys, path)
    assert code == 0 and data["context_window"] is None  # not checked: no gate, but said so
    assert note in data["warnings"]
    assert "context_window" not in [g["name"] for g in data["gates"]]
    for fmt in ("table", "markdown"):
        assert run(["estimate", str(path), "--as-of", AS_OF, "-f", fmt]) == 0
        out, err = capsys.readouterr()
        if fmt == "table":  # a table's warnings go to stderr, one line each (issue 30)
            assert f"agentcost: warning: {note}\n" in err and note not in " ".join(out.split())
        else:
            assert note in " ".join(out.split())


def test_a_known_window_has_no_note(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, data = estimate(capsys, scenario(tmp_path, "claude-sonnet-4-5", 1000))
    assert data["context_window"] == 200_000
    assert not any("unknown: not checked" in w for w in data["warnings"])


def test_a_price_date_before_the_release_warns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    released = facts.release_date("anthropic", "claude-sonnet-4-5")
    assert released is not None and released.value == date(2025, 9, 29)
    path = scenario(tmp_path, "claude-sonnet-4-5", 1000)
    warning = "priced before claude-sonnet-4-5 was released (2025-09-29)"
    _, data = estimate(capsys, path, "2024-01-01")
    assert warning in data["warnings"]
    for day in ("2025-09-29", AS_OF):  # from the release day on: silent
        _, data = estimate(capsys, path, day)
        assert warning not in data["warnings"]


def test_no_known_release_date_says_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert facts.release_date("openai", "gpt-4o") is None
    _, data = estimate(capsys, scenario(tmp_path, "gpt-4o", 1000), "2024-06-01")
    assert not any("priced before" in w for w in data["warnings"])
