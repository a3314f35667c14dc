"""A project file, several scenario files and a diff replay from the output cache like one scenario:
the console script stores the run, a second identical run prints it again without running the CLI,
and an edit of any file read (or a ``--base-ref`` that names another commit) makes it run for real
(agentcost.launch)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import git_in as _git
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


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_diff_against_a_ref_replays_until_the_ref_moves(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``diff --base-ref`` reads the base at a commit: the replay resolves the ref again, and a ref
    that names another commit (a new commit on it) makes the diff run for real."""
    repo = project.parent
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "base")
    bugfix = repo / "bugfix.yaml"
    bugfix.write_text(bugfix.read_text(encoding="utf-8").replace("budget_usd: 0.10", "budget_usd: 0.20"))
    bugfix.write_text(bugfix.read_text(encoding="utf-8").replace("tool_choice: auto", "tool_choice: any"))
    argv = ["diff", str(bugfix), "--base-ref", "HEAD", "--as-of", "2026-11-30"]
    first = in_process(argv, monkeypatch, capsys)
    assert first[0] in (0, 1) and stored(argv)
    assert "+$0.0" in first[1] or "-$0.0" in first[1]  # tool_choice any: 46 not 56 per tool_use
    with monkeypatch.context() as patched:
        _no_cli(patched)
        assert in_process(argv, patched, capsys) == first
    _git(repo, "commit", "-q", "-am", "the change")  # HEAD moves: the base is now the change itself
    again = in_process(argv, monkeypatch, capsys)
    assert again[0] == 0 and again[1] != first[1]


def test_a_diff_with_a_comment_is_not_stored(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    here = project.parent
    argv = ["diff", str(here / "bugfix.yaml"), str(here / "research.yaml"), "--comment", "github"]
    code, out, _ = in_process([*argv, "--as-of", "2026-11-30"], monkeypatch, capsys)
    assert code in (0, 1) and "<!-- agentcost-cost-report -->" in out
    assert not stored([*argv, "--as-of", "2026-11-30"])
