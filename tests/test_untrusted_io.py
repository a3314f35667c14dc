"""Issue 13, groups 5 (overwriting with ``-o``), 6 (a cache directory agentcost does not own) and 7
(exit codes on I/O faults).

Each test's docstring names its group. Each fails on the code before the change: ``-o`` replaced any
input, device or path given (and made every file 0600); any cache directory was used; a closed pipe,
a full disk, a closed stdout, an ASCII stdout, a directory as step summary, ``--as-of 9999-12-31``
and a deleted working directory ended with exit 1, 3 or 120 and a traceback. Faults of the process's
own streams and directory run ``python -m agentcost`` in a subprocess (with a timeout)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from agentcost.cli import run

OK = "version: 1\nmodel: gpt-5\ntask: hi\nfinal: 10\n"
WITH_SYSTEM = "version: 1\nmodel: gpt-5\ntask: hi\nsystem: {file: sys.md}\nfinal: 10\n"
PROJECT = "version: 1\nname: P\nscenarios:\n  - path: a.yaml\n  - path: b.yaml\n"
PRICES = "version: 1\nmodels:\n  - id: acme\n    provider: openai\n    input_mtok: 1\n    output_mtok: 2\n    source: test\n"
ANTHROPIC = (  # one call of the Anthropic Messages API, as a JSONL log line
    '{"request": {"model": "claude-sonnet-4-5", "max_tokens": 100, "messages": [{"role": "user", '
    '"content": "hi"}]}, "response": {"model": "claude-sonnet-4-5", "content": [{"type": "text", '
    '"text": "hello"}], "usage": {"input_tokens": 8, "output_tokens": 2}}}\n'
)
AS_OF = ["--as-of", "2026-11-30"]
TIMEOUT = 120
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
INPUT = "is an input of this run: writing the report there would replace it (give another file name)"


def files(tmp_path: Path, **named: str) -> None:
    for name, text in named.items():
        (tmp_path / name.replace("__", ".")).write_text(text, encoding="utf-8")


def error(capsys: pytest.CaptureFixture[str]) -> str:
    return capsys.readouterr().err


def agentcost(
    *args: str, cwd: Path, env: dict[str, str] | None = None, **kwargs: object
) -> subprocess.CompletedProcess[bytes]:
    """``python -m agentcost ARGS`` (the console script, with its cache) in a subprocess."""
    full = {**os.environ, **(env or {})}
    return subprocess.run(  # type: ignore[call-overload, no-any-return]
        [sys.executable, "-m", "agentcost", *args],
        cwd=cwd,
        env=full,
        capture_output="stdout" not in kwargs,
        timeout=TIMEOUT,
        check=False,
        **kwargs,
    )


# --------------------------------------------------------------------------------------------
# Group 5: -o never replaces an input, a directory or a device; atomic, with open()'s mode
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "target"),
    [
        (["estimate", "a.yaml"], "a.yaml"),  # the scenario
        (["estimate", "a.yaml"], "sys.md"),  # a file it includes
        (["estimate", "agentcost.yml"], "b.yaml"),  # a project member
        (["estimate", "agentcost.yml"], "agentcost.yml"),  # the project file
        (["estimate", "a.yaml", "--prices", "prices.yaml"], "prices.yaml"),
        (["compare", "a.yaml", "-m", "gpt-5"], "sys.md"),
        (["diff", "a.yaml", "b.yaml"], "b.yaml"),
        (["replay", "log.jsonl"], "log.jsonl"),  # the trace
        (["replay", "log.jsonl", "--prices", "prices.yaml"], "prices.yaml"),
    ],
)
def test_output_refuses_an_input_of_the_run(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    target: str,
) -> None:
    """Group 5: ``-o`` naming the scenario, an included file, a project member, a --prices file or a
    trace is exit 2, and the input is left as it was."""
    files(tmp_path, a__yaml=WITH_SYSTEM, b__yaml=OK, sys__md="be brief", agentcost__yml=PROJECT)
    files(tmp_path, prices__yaml=PRICES, log__jsonl=ANTHROPIC)
    monkeypatch.chdir(tmp_path)
    before = (tmp_path / target).read_bytes()
    assert run([*argv, *AS_OF, "-o", target]) == 2
    assert error(capsys) == f"agentcost: error: {target}: --output: {INPUT}\n"
    assert (tmp_path / target).read_bytes() == before


def test_output_refuses_an_input_through_a_hard_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Group 5: another name of an input (a hard link) is the same file: refused. (A symlink is
    refused as such: tests/test_untrusted_files.py.)"""
    files(tmp_path, a__yaml=WITH_SYSTEM, sys__md="be brief")
    monkeypatch.chdir(tmp_path)
    os.link(tmp_path / "sys.md", tmp_path / "hard.md")
    assert run(["estimate", "a.yaml", *AS_OF, "-o", "hard.md"]) == 2
    assert error(capsys) == f"agentcost: error: hard.md: --output: {INPUT}\n"
    assert (tmp_path / "sys.md").read_text(encoding="utf-8") == "be brief"


def test_output_refuses_a_device(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Group 5: ``-o /dev/null`` is refused, and /dev/null stays a device (as root it became a
    regular file)."""
    files(tmp_path, a__yaml=OK)
    monkeypatch.chdir(tmp_path)
    assert run(["estimate", "a.yaml", *AS_OF, "-o", os.devnull]) == 2
    assert error(capsys) == (
        f"agentcost: error: {os.devnull}: --output: is a character device, not a regular file: agentcost "
        "writes reports to regular files only (leave out --output to write to standard output, and "
        "redirect that)\n"
    )
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_output_refuses_a_fifo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Group 5: a FIFO is not a regular file: refused before the run, never opened."""
    files(tmp_path, a__yaml=OK)
    monkeypatch.chdir(tmp_path)
    os.mkfifo(tmp_path / "pipe")
    assert run(["estimate", "a.yaml", *AS_OF, "-o", "pipe"]) == 2
    assert error(capsys).startswith("agentcost: error: pipe: --output: is a pipe (FIFO), not a regular file")
    assert stat.S_ISFIFO(os.stat(tmp_path / "pipe").st_mode)


@pytest.mark.parametrize("command", ["estimate", "calibrate"])
def test_output_refuses_a_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    """Group 5: a directory is refused as such (calibrate said "the file exists")."""
    files(tmp_path, a__yaml=OK, log__jsonl=ANTHROPIC)
    (tmp_path / "out").mkdir()
    monkeypatch.chdir(tmp_path)
    given = "a.yaml" if command == "estimate" else "log.jsonl"
    assert run([command, given, *AS_OF, "-o", "out"]) == 2
    assert error(capsys) == "agentcost: error: out: --output: is a directory, not a file (give a file name)\n"


def test_output_with_a_trailing_slash_writes_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Group 5: ``-o out/`` names a directory: exit 2, and no file named ``out`` appears."""
    files(tmp_path, a__yaml=OK)
    monkeypatch.chdir(tmp_path)
    for argv in (["-o", "out/"], ["--output=out/"]):
        assert run(["estimate", "a.yaml", *AS_OF, *argv]) == 2
        assert error(capsys) == (
            "agentcost: error: out: --output: names a directory (it ends in /), not a file (give a file name)\n"
        )
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o027, 0o640), (0o002, 0o664)])
def test_output_new_file_has_the_mode_of_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, umask: int, mode: int
) -> None:
    """Group 5: a new ``-o`` file gets 0o666 less the umask, as ``open()`` gives (it was always 0600),
    and no temporary file is left beside it."""
    files(tmp_path, a__yaml=OK)
    monkeypatch.chdir(tmp_path)
    old = os.umask(umask)
    try:
        assert run(["estimate", "a.yaml", *AS_OF, "--format", "json", "-o", "report.json"]) == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "report.json").st_mode) == mode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.yaml", "report.json"]


@pytest.mark.parametrize("mode", [0o644, 0o640])
def test_output_keeps_an_existing_files_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: int
) -> None:
    """Group 5: replacing an existing report keeps its mode (a 0644 file became 0600)."""
    files(tmp_path, a__yaml=OK, report__json="old")
    os.chmod(tmp_path / "report.json", mode)
    monkeypatch.chdir(tmp_path)
    assert run(["estimate", "a.yaml", *AS_OF, "--format", "json", "-o", "report.json"]) == 0
    assert (tmp_path / "report.json").read_text(encoding="utf-8").startswith("{")
    assert stat.S_IMODE(os.stat(tmp_path / "report.json").st_mode) == mode


def test_calibrate_force_refuses_an_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Group 5: ``calibrate --force -o`` over its --prices file is refused, not written."""
    files(tmp_path, log__jsonl=ANTHROPIC, prices__yaml=PRICES)
    monkeypatch.chdir(tmp_path)
    argv = ["calibrate", "log.jsonl", *AS_OF, "--prices", "prices.yaml", "--force", "-o", "prices.yaml"]
    assert run(argv) == 2
    assert error(capsys) == f"agentcost: error: prices.yaml: --output: {INPUT}\n"
    assert (tmp_path / "prices.yaml").read_text(encoding="utf-8") == PRICES


# --------------------------------------------------------------------------------------------
# Group 6: the cache directory must be the user's own and not writable by others
# --------------------------------------------------------------------------------------------


def plain_output(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *argv: str) -> bytes:
    """What ``agentcost ARGV`` writes to standard output without a cache, run in this process
    (leaving no price row resolved in memory for the next run to find)."""
    from agentcost.prices import lookup

    with monkeypatch.context() as scoped:
        scoped.setenv("AGENTCOST_CACHE", "off")
        scoped.setattr(lookup, "_RESOLVED", {})
        assert run(list(argv)) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    return captured.out.encode()


def console(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *argv: str
) -> tuple[int | str | None, str, str]:
    """``agentcost ARGV`` through the console script (:func:`agentcost.cli.main`, with its cache),
    in this process: (exit code, stdout, stderr)."""
    from agentcost.cli import main

    capsys.readouterr()
    with monkeypatch.context() as scoped:
        scoped.setattr(sys, "argv", ["agentcost", *argv])
        with pytest.raises(SystemExit) as done:
            main()
    captured = capsys.readouterr()
    return done.value.code, captured.out, captured.err


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX owners and modes")
@pytest.mark.parametrize(
    ("mode", "why"), [(0o777, "writable by others (mode 777)"), (0o770, "writable by its group (mode 770)")]
)
@pytest.mark.disk_cache
def test_cache_off_in_a_directory_others_may_write(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    mode: int,
    why: str,
) -> None:
    """Group 6: a world- or group-writable cache directory is not used; one note says why, and the
    run's output is the same as without a cache."""
    files(tmp_path, a__yaml=OK)
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, mode)
    monkeypatch.chdir(tmp_path)
    plain = plain_output(monkeypatch, capsys, "estimate", "a.yaml", *AS_OF)
    monkeypatch.setenv("AGENTCOST_CACHE_DIR", str(shared))
    code, out, err = console(monkeypatch, capsys, "estimate", "a.yaml", *AS_OF)
    assert (code, err) == (0, f"agentcost: note: cache off: {shared} is {why}\n")
    assert out.encode() == plain
    assert list(shared.iterdir()) == []  # no database was created there


@pytest.mark.disk_cache
@pytest.mark.skipif(not IS_ROOT, reason="giving a directory to another user needs root")
def test_cache_off_in_another_users_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Group 6: a cache directory owned by another user is not used (one note)."""
    files(tmp_path, a__yaml=OK)
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o700)
    os.chown(theirs, 54321, 54321)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AGENTCOST_CACHE_DIR", str(theirs))
    code, out, err = console(monkeypatch, capsys, "estimate", "a.yaml", *AS_OF)
    assert (code, err) == (0, f"agentcost: note: cache off: {theirs} is owned by another user (uid 54321)\n")
    assert out
    assert list(theirs.iterdir()) == []


@pytest.mark.disk_cache
def test_cache_off_without_a_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Group 6: no HOME, no XDG_CACHE_HOME and no passwd entry turn the cache off (a traceback
    before)."""
    import pwd

    def nobody(uid: int) -> pwd.struct_passwd:
        raise KeyError(uid)  # no passwd entry for this user

    files(tmp_path, a__yaml=OK)
    monkeypatch.chdir(tmp_path)
    for name in ("HOME", "XDG_CACHE_HOME", "AGENTCOST_CACHE_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(pwd, "getpwuid", nobody)
    code, out, err = console(monkeypatch, capsys, "estimate", "a.yaml", *AS_OF, "-q")
    assert (code, err) == (0, "")
    assert float(out) > 0


@pytest.mark.disk_cache
def test_cache_dir_is_none_without_a_home(monkeypatch: pytest.MonkeyPatch) -> None:
    """Group 6: :func:`cache_dir` says "no cache" when no home directory can be found."""
    import pwd

    from agentcost.infra import diskcache

    def nobody(uid: int) -> pwd.struct_passwd:
        raise KeyError(uid)

    monkeypatch.delenv("HOME", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setattr(pwd, "getpwuid", nobody)
    assert diskcache.cache_dir() is None


# --------------------------------------------------------------------------------------------
# Group 7: exact exit codes on I/O faults
# --------------------------------------------------------------------------------------------


def _closed_pipe(tmp_path: Path, env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    """A run whose standard output is a pipe nobody reads any more (``| head`` that has exited)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return agentcost(
            "estimate", "a.yaml", *AS_OF, cwd=tmp_path, env=env, stdout=write_end, stderr=subprocess.PIPE
        )
    finally:
        os.close(write_end)


def test_closed_pipe_is_exit_0_quietly(tmp_path: Path, seed_cache: Callable[[Path], None]) -> None:
    """Group 7: ``agentcost estimate s.yaml | head`` closing the pipe ends with exit 0 and nothing on
    stderr (exit 1 and a BrokenPipeError traceback before). Every run writes its output itself (no
    stored output is replayed), so one run covers it."""
    files(tmp_path, a__yaml=OK)
    seed_cache(tmp_path / "cache")  # price rows: the run itself is still cold
    done = _closed_pipe(tmp_path, {"XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert (done.returncode, done.stderr) == (0, b"")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_full_disk_on_stdout_is_exit_2(tmp_path: Path, seed_cache: Callable[[Path], None]) -> None:
    """Group 7: stdout on a full disk (/dev/full) is exit 2 with one line (120, 3 or 1 before)."""
    files(tmp_path, a__yaml=OK)
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    seed_cache(tmp_path / "cache")
    with open("/dev/full", "wb") as full:
        done = agentcost(
            "estimate", "a.yaml", *AS_OF, cwd=tmp_path, env=env, stdout=full, stderr=subprocess.PIPE
        )
    assert done.returncode == 2
    assert (
        done.stderr.decode() == "agentcost: error: cannot write to standard output: No space left on device\n"
    )


def test_closed_stdout_is_exit_2(tmp_path: Path, seed_cache: Callable[[Path], None]) -> None:
    """Group 7: a closed stdout (``>&-``) is exit 2 with one line (3 and a traceback before)."""
    files(tmp_path, a__yaml=OK)
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    seed_cache(tmp_path / "cache")
    command = f'"{sys.executable}" -m agentcost estimate a.yaml --as-of 2026-11-30 >&-'
    done = subprocess.run(
        ["sh", "-c", command],
        cwd=tmp_path,
        env=env,
        capture_output=False,
        stderr=subprocess.PIPE,
        timeout=TIMEOUT,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.decode() == "agentcost: error: cannot write to standard output: it is closed\n"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (("estimate", "missing.yaml"), 2),
        (("estimat",), 2),
        (("estimate", "a.yaml", "--budget", "0.000001"), 1),
    ],
    ids=["missing-file", "usage", "gate"],
)
def test_stderr_on_a_full_disk_keeps_the_exit_code(
    tmp_path: Path, seed_cache: Callable[[Path], None], argv: tuple[str, ...], code: int
) -> None:
    """Issue 28, item 10: with stderr on a full disk (/dev/full) a missing file is still exit 2 and a
    tripped gate exit 1 (1 or 120 before: the failed write of the message became the outcome)."""
    files(tmp_path, a__yaml=OK)
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    seed_cache(tmp_path / "cache")
    with open("/dev/full", "wb") as full:
        done = agentcost(*argv, *AS_OF, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=full)
    assert done.returncode == code


def test_ctrl_c_while_the_cli_is_imported_is_130_without_a_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28, item 10: Ctrl-C during start-up (Typer's import, tens of milliseconds) was a
    traceback and death by the signal; the console script now exits 130 whenever it lands. The
    interrupt is raised, deterministically, by the import of the CLI itself."""
    import importlib.abc

    import agentcost.cli

    class Interrupting(importlib.abc.MetaPathFinder):
        def find_spec(self, name: str, path: object = None, target: object = None) -> None:
            if name == "agentcost.cli.core":
                raise KeyboardInterrupt
            return None

    monkeypatch.delitem(sys.modules, "agentcost.cli.core", raising=False)
    monkeypatch.delattr(agentcost.cli, "core", raising=False)
    monkeypatch.setattr(sys, "meta_path", [Interrupting(), *sys.meta_path])
    with pytest.raises(SystemExit) as exited:
        agentcost.cli.main()
    assert exited.value.code == 130


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_non_utf8_stdout_does_not_crash(
    tmp_path: Path, encoding: str, seed_cache: Callable[[Path], None]
) -> None:
    """Group 7: a stdout that cannot encode the table (PYTHONIOENCODING=ascii) writes those characters
    backslash-escaped and exits 0 (exit 3 and a UnicodeEncodeError before)."""
    files(tmp_path, a__yaml=OK)
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "PYTHONIOENCODING": encoding, "COLUMNS": "120"}
    seed_cache(tmp_path / "cache")
    done = agentcost("estimate", "a.yaml", *AS_OF, cwd=tmp_path, env=env)
    assert (done.returncode, done.stderr) == (0, b"")
    assert b"a.yaml \\xb7 gpt-5" in done.stdout or b"a.yaml \xb7 gpt-5" in done.stdout


@pytest.mark.parametrize("kind", ["a directory", "under a file"])
def test_unusable_step_summary_is_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    """Group 7: a GITHUB_STEP_SUMMARY that cannot be appended to is exit 2 with one line (3 before)."""
    files(tmp_path, a__yaml=OK)
    monkeypatch.chdir(tmp_path)
    summary = tmp_path if kind == "a directory" else tmp_path / "a.yaml" / "summary.md"
    reason = "Is a directory" if kind == "a directory" else "Not a directory"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert run(["estimate", "a.yaml", *AS_OF, "--summary", "-q"]) == 2
    assert error(capsys) == (
        f"agentcost: error: {summary}: --summary: cannot append the report to GITHUB_STEP_SUMMARY: {reason}\n"
    )


@pytest.mark.parametrize("date", ["9999-12-31", "9999-12-02", "1969-12-31"])
@pytest.mark.parametrize("command", [["estimate", "a.yaml"], ["models", "gpt-5"]])
def test_as_of_outside_the_supported_dates_is_exit_2(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    date: str,
    command: list[str],
) -> None:
    """Group 7: ``--as-of 9999-12-31`` is exit 2 with a message (OverflowError, exit 3 before)."""
    files(tmp_path, a__yaml=OK)
    monkeypatch.chdir(tmp_path)
    assert run([*command, "--as-of", date]) == 2
    assert error(capsys) == (
        f"agentcost: error: --as-of: '{date}' is outside the supported dates, 1970-01-01 to 9998-12-31 "
        "(use an ISO date such as 2026-11-30)\n"
    )


@pytest.mark.parametrize("cache", ["off", "on"])
def test_deleted_working_directory_is_exit_2(tmp_path: Path, cache: str) -> None:
    """Group 7: a working directory deleted under the shell is exit 2 with one line (a traceback
    before)."""
    files(tmp_path, a__yaml=OK)
    (tmp_path / "gone").mkdir()
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "AGENTCOST_CACHE": cache}
    command = (
        f'cd gone && rmdir ../gone && exec "{sys.executable}" -m agentcost estimate "{tmp_path}/a.yaml" -q'
    )
    done = subprocess.run(
        ["sh", "-c", command], cwd=tmp_path, env=env, capture_output=True, timeout=TIMEOUT, check=False
    )
    assert (done.returncode, done.stdout) == (2, b"")
    assert (
        done.stderr.decode()
        == "agentcost: error: the working directory no longer exists (cd to one that does)\n"
    )
