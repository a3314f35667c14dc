"""A project file (or several scenario files) replays from the output cache like one scenario: the
console script stores the run, a second identical run prints it again without running the CLI, and
an edit of any scenario the project lists makes it run for real (agentcost.launch)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.test_launch import ROOT, in_process, stored


@pytest.fixture
def project(tmp_path: Path, seeded_cache: Path) -> Path:
    """A copy of the shipped project and its scenarios (the seeded cache has their counts and prices)."""
    shutil.copytree(ROOT / "scenarios", tmp_path / "scenarios")
    return tmp_path / "scenarios" / "agentcost.yml"


def _no_cli(monkeypatch: pytest.MonkeyPatch) -> None:
    import agentcost.cli

    def not_run() -> None:
        raise AssertionError("the CLI ran: no replay")

    monkeypatch.setattr(agentcost.cli, "main", not_run)


@pytest.mark.parametrize("kind", ["project", "files"])
def test_a_project_replays_and_an_edited_scenario_runs_again(
    kind: str, project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    here = project.parent
    paths = [project] if kind == "project" else [here / "bugfix.yaml", here / "research.yaml"]
    argv = ["estimate", *map(str, paths), "--as-of", "2026-11-30"]
    first = in_process(argv, monkeypatch, capsys)
    assert first[0] in (0, 1) and "Fix POST /orders validation" in first[1] and stored(argv)
    with monkeypatch.context() as patched:
        _no_cli(patched)
        assert in_process(argv, patched, capsys) == first
    # an edit of a listed scenario (the budget of bugfix.yaml) is read again: a real run, new figures
    bugfix = here / "bugfix.yaml"
    bugfix.write_text(bugfix.read_text(encoding="utf-8").replace("model: claude-sonnet-4-5", "model: gpt-5"))
    again = in_process(argv, monkeypatch, capsys)
    assert again[0] in (0, 1) and again[1] != first[1] and "gpt-5" in again[1]


def test_a_project_written_to_a_file_is_not_stored(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["estimate", str(project), "--as-of", "2026-11-30", "--output", str(tmp_path / "out.txt")]
    code, _, _ = in_process(argv, monkeypatch, capsys)
    assert code in (0, 1) and (tmp_path / "out.txt").read_text(encoding="utf-8") and not stored(argv)
