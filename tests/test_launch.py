"""The console script's replay of warm runs (agentcost.launch): a second identical ``estimate`` (or
``--help``) prints exactly what the first printed and exits the same way, without importing typer,
rich, pydantic, tiktoken or genai-prices; anything that could change the output makes it run for real."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import pytest

from agentcost import launch
from agentcost.infra import diskcache, files
from tests.conftest import copy_seed

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def shared_home(tmp_path_factory: pytest.TempPathFactory, _seed_database: Path) -> Path:
    home = tmp_path_factory.mktemp("launch-cache")
    copy_seed(_seed_database, home)  # only the first test's changed file is cold then
    return home


@pytest.fixture
def warm(shared_home: Path, private_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """This module's subprocesses share one cache: a test's first run finds the token counts, price
    rows and scenarios earlier tests stored (a cold start costs most of a second of CPU). Replay
    entries stay each test's own: their key holds the whole environment, PYTEST_CURRENT_TEST too."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(shared_home))


def in_process(
    argv: Sequence[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[object, str, str]:
    """The console script's ``main`` in this process, from the checkout: exit code, stdout, stderr."""
    from agentcost import replayable
    from agentcost.scenario import cache as scenariocache

    monkeypatch.setattr(scenariocache, "on_miss", scenariocache.on_miss)  # the CLI sets it: restore
    monkeypatch.setattr(replayable, "_replayable", frozenset())  # as in a new process: no run marked
    monkeypatch.setattr(sys, "argv", ["agentcost", *argv])
    monkeypatch.chdir(ROOT)
    capsys.readouterr()
    with pytest.raises(SystemExit) as done:
        launch.main()
    diskcache.flush()
    out, err = capsys.readouterr()
    return done.value.code, out, err


def stored(argv: list[str]) -> bool:
    """Whether this process's cache holds a replay entry for ``argv`` run here, now."""
    store = diskcache.get_cache()
    assert store is not None
    return store.get_blob(launch.KIND, launch._key(argv)) is not None


def agentcost(
    *args: str, cwd: Path = ROOT, env: dict[str, str] | None = None, importtime: bool = False
) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, *(["-X", "importtime"] if importtime else []), "-m", "agentcost", *args]
    merged = {**os.environ, "COLUMNS": "100", **(env or {})}
    merged.pop("GITHUB_ACTIONS", None)
    return subprocess.run(cmd, cwd=cwd, env=merged, capture_output=True, text=True, check=False)


def imported(stderr: str) -> set[str]:
    """Module names from ``-X importtime`` output."""
    return {line.split("|")[-1].strip() for line in stderr.splitlines() if line.startswith("import time:")}


def same_twice(args: Sequence[str], **kw: object) -> subprocess.CompletedProcess[str]:
    first = agentcost(*args, **kw)  # type: ignore[arg-type]
    second = agentcost(*args, importtime=True, **kw)  # type: ignore[arg-type]
    err = "\n".join(line for line in second.stderr.splitlines() if not line.startswith("import time:"))
    assert (second.returncode, second.stdout, err) == (
        first.returncode,
        first.stdout,
        first.stderr.rstrip("\n"),
    )
    assert not {"typer", "rich", "pydantic", "tiktoken", "genai_prices"} & imported(second.stderr), args
    return first


@pytest.mark.parametrize(
    "args",
    [
        ("estimate", "scenarios/bugfix.yaml"),
        ("estimate", "scenarios/bugfix.yaml", "--as-of", "2026-11-30", "-f", "json"),
        ("estimate", "scenarios/research.yaml", "--as-of", "2026-11-30", "-f", "markdown", "--explain"),
        ("estimate", "scenarios/uncertain-steps.yaml", "--as-of", "2026-11-30", "--simulate", "500", "-q"),
        ("compare", "scenarios/bugfix.yaml", "-m", "claude-*-4-5", "-m", "gpt-5", "--as-of", "2026-11-30"),
    ],
)
@pytest.mark.usefixtures("warm")
def test_a_warm_run_replays_the_first_exactly(args: tuple[str, ...]) -> None:
    assert same_twice(args).returncode == 0


@pytest.mark.usefixtures("warm")
def test_a_tripped_gate_replays_with_exit_1() -> None:
    first = same_twice(
        ("estimate", "scenarios/bugfix.yaml", "--as-of", "2026-11-30", "--budget", "0.01", "-q")
    )
    assert first.returncode == 1 and first.stdout == "0.0320049\n"
    assert first.stderr.startswith("agentcost: gate failed: scenarios/bugfix.yaml: over budget")


@pytest.mark.usefixtures("warm")
def test_a_changed_file_runs_for_real(tmp_path: Path) -> None:
    (tmp_path / "result.txt").write_text("short result")
    (tmp_path / "s.yaml").write_text(
        "version: 1\nmodel: gpt-4o\ntask: Go.\nrounds:\n  - tool: t\n    call_tokens: 5\n"
        "    result: {file: result.txt}\nfinal: 5\n"
    )
    args = ("estimate", "s.yaml", "--as-of", "2026-11-30", "-q")
    first = agentcost(*args, cwd=tmp_path)
    assert agentcost(*args, cwd=tmp_path).stdout == first.stdout
    (tmp_path / "result.txt").write_text("a much longer result " * 50)
    changed = agentcost(*args, cwd=tmp_path, importtime=True)
    assert changed.stdout != first.stdout and "typer" in imported(changed.stderr)


@pytest.mark.usefixtures("warm")
def test_a_recorded_file_swapped_for_a_fifo_is_not_waited_on(tmp_path: Path) -> None:
    """Issue 13, groups 1 and 4: the replay check reads recorded files like every other read, bounded
    and regular files only. A file swapped for a FIFO no one writes once hung the check forever; now
    the run goes for real and refuses it (exit 2)."""
    (tmp_path / "result.txt").write_text("short result")
    (tmp_path / "s.yaml").write_text(
        "version: 1\nmodel: gpt-4o\ntask: Go.\nrounds:\n  - tool: t\n    call_tokens: 5\n"
        "    result: {file: result.txt}\nfinal: 5\n"
    )
    args = ("estimate", "s.yaml", "--as-of", "2026-11-30", "-q")
    assert agentcost(*args, cwd=tmp_path).returncode == 0  # stored
    (tmp_path / "result.txt").unlink()
    os.mkfifo(tmp_path / "result.txt")
    cmd = [sys.executable, "-m", "agentcost", *args]
    done = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2 and "result.txt" in done.stderr and "FIFO" in done.stderr.upper()


def test_errors_and_side_effects_always_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Nothing is stored for them, so the next identical run has nothing to replay."""
    plain = ["estimate", "scenarios/bugfix.yaml", "--as-of", "2026-11-30", "-f", "json"]
    code, stdout, _ = in_process(plain, monkeypatch, capsys)
    assert code == 0 and '"kind": "estimate"' in stdout and stored(plain)  # the check itself works
    bad = ["estimate", "no-such.yaml"]
    for _ in range(2):
        code, _, err = in_process(bad, monkeypatch, capsys)
        assert code == 2 and "no-such.yaml" in err and not stored(bad)
    out = tmp_path / "report.json"
    args = [*plain, "-o", str(out)]
    for _ in range(2):
        out.unlink(missing_ok=True)
        assert in_process(args, monkeypatch, capsys)[0] == 0 and out.exists() and not stored(args)


@pytest.mark.usefixtures("warm")
def test_the_key_covers_terminal_width() -> None:
    narrow = agentcost("estimate", "scenarios/bugfix.yaml", env={"COLUMNS": "80"})
    wide = agentcost("estimate", "scenarios/bugfix.yaml", env={"COLUMNS": "140"})
    assert max(map(len, narrow.stdout.splitlines())) <= 80 < max(map(len, wide.stdout.splitlines()))


def test_the_cache_switch_turns_replays_off(
    private_cache: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("AGENTCOST_CACHE", "off")
    for _ in range(2):
        code, stdout, _ = in_process(["estimate", "scenarios/bugfix.yaml"], monkeypatch, capsys)
        assert code == 0 and "Fix POST /orders validation" in stdout
    assert not private_cache.exists()  # no entry to replay, nor any other


def test_the_key_changes_with_the_date_the_environment_and_the_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    argv = ["estimate", "scenarios/bugfix.yaml"]
    base = launch._key(argv)
    assert launch._key(["estimate", "scenarios/research.yaml"]) != base
    monkeypatch.setenv("NO_COLOR", "1")
    assert launch._key(argv) != base
    monkeypatch.delenv("NO_COLOR")
    assert launch._key(argv) == base

    class Tomorrow(datetime):
        @classmethod
        def now(cls, tz: object = None) -> datetime:  # type: ignore[override]
            return datetime(2099, 1, 2, tzinfo=UTC)

    monkeypatch.setattr(launch, "datetime", Tomorrow)
    assert launch._key(argv) != base


@pytest.mark.parametrize(
    "name", ["FORCE_COLOR", "AGENTCOST_A_SWITCH_NOT_YET_WRITTEN", "SOME_LIBRARY_OPTION", "TERM", "LC_ALL"]
)
def test_any_new_environment_variable_changes_the_key(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The key holds the whole environment (no list of the names that matter to keep up to date)."""
    monkeypatch.delenv(name, raising=False)
    argv = ["estimate", "scenarios/bugfix.yaml"]
    base = launch._key(argv)
    monkeypatch.setenv(name, "1")
    assert launch._key(argv) != base
    monkeypatch.setenv(name, "2")
    assert launch._key(argv) not in (base, launch._key(["estimate", "scenarios/research.yaml"]))


def test_what_a_shell_changes_between_runs_is_left_out(monkeypatch: pytest.MonkeyPatch) -> None:
    argv = ["estimate", "scenarios/bugfix.yaml"]
    base = launch._key(argv)
    for name in sorted(launch.ENV_IGNORED):
        monkeypatch.setenv(name, "/somewhere/else/entirely")
        assert launch._key(argv) == base, name


@pytest.mark.usefixtures("warm")
def test_a_run_in_a_subshell_after_cd_replays() -> None:
    args = ("estimate", "scenarios/bugfix.yaml", "--as-of", "2026-11-30", "-q")
    first = agentcost(*args, env={"SHLVL": "1", "OLDPWD": "/", "_": "/usr/bin/agentcost"})
    again = agentcost(*args, env={"SHLVL": "3", "OLDPWD": "/tmp", "_": "/usr/bin/python3"}, importtime=True)
    assert again.stdout == first.stdout and "typer" not in imported(again.stderr)
    new = agentcost(*args, env={"SHLVL": "3", "AGENTCOST_SOMETHING_NEW": "1"}, importtime=True)
    assert new.stdout == first.stdout and "typer" in imported(new.stderr)  # a new variable: runs


def test_every_file_read_is_recorded(tmp_path: Path) -> None:
    target = tmp_path / "x.txt"
    target.write_text("hello")
    with files.recording() as reads:
        files.read_text(target)
    assert reads == [[str(target), "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"]]
    assert files._RECORDING is None


def test_a_corrupt_entry_runs_for_real() -> None:
    class Store:
        def get_blob(self, kind: str, key: str) -> bytes:
            return b"{not json"

    assert launch._replay(Store(), "k") is None


@pytest.mark.parametrize(
    ("argv", "code"),
    [(["--help"], 0), (["-h"], 0), ([], 2), (["estimate", "--help"], 0), (["models", "-h"], 0)],
)
def test_help_replays_the_first_run_exactly(
    argv: list[str], code: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Help reads no files: any run that printed it is stored, the bare command's exit 2 too."""
    first = in_process(argv, monkeypatch, capsys)
    assert first[0] == code and "Usage: agentcost" in first[1] and first[2] == "" and stored(argv)
    import agentcost.cli

    def not_run() -> None:
        raise AssertionError("the CLI ran: no replay")

    monkeypatch.setattr(agentcost.cli, "main", not_run)
    assert in_process(argv, monkeypatch, capsys) == first


def test_a_help_replay_imports_no_typer_or_rich() -> None:
    assert "Usage: agentcost [OPTIONS] COMMAND [ARGS]..." in same_twice(("--help",)).stdout


@pytest.mark.parametrize("value", ["--help", "-h"])
def test_help_as_an_option_value_is_not_stored(
    value: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--as-of --help`` passes "--help" as the date: no help is printed, so nothing is stored (a
    guess from the command line would have stored this error, exit 2, as help)."""
    argv = ["estimate", "scenarios/bugfix.yaml", "--as-of", value]
    code, out, err = in_process(argv, monkeypatch, capsys)
    assert (code, out) == (2, "") and f"--as-of: not a usable date: '{value}'" in err
    assert not stored(argv)


def test_the_launcher_opens_the_store_only_for_runs_it_may_replay() -> None:
    assert launch._may_replay([]) and launch._may_replay(["estimate", "s.yaml"])
    assert launch._may_replay(["compare", "s.yaml"]) and launch._may_replay(["models", "-h"])
    assert launch._may_replay(["diff", "a.yaml", "--base-ref", "main"])
    assert not launch._may_replay(["models"]) and not launch._may_replay(["replay", "--help=x"])
