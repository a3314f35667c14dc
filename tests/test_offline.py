"""agentcost at run time: no network, reports written atomically, input files never modified.

* Every command runs with socket creation disabled (and a fresh, empty cache, so nothing is served
  from an earlier run): token counts, prices and facts all come from the installed packages.
* ``--output FILE`` replaces the file in one rename: when rendering or writing fails, the old file is
  intact and no temporary file is left beside it.
* Estimating, comparing, diffing, replaying and calibrating never change a byte (nor the
  modification time) of any file they read, and create nothing next to them.
"""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentcost.cli import run

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
AS_OF = ["--as-of", "2026-11-30"]


# ---------------------------------------------------------------------------------------------
# No network


class NetworkUsed(AssertionError):
    """Raised by any attempt to open a socket or resolve a name during a test."""


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Socket creation, connections and name lookups raise :class:`NetworkUsed`; the attempts are
    also recorded (in case a library swallows the exception)."""
    attempts: list[str] = []

    def refuse(what: str) -> Any:
        def refused(*args: Any, **kwargs: Any) -> Any:
            attempts.append(f"{what}{args[:2]!r}")
            raise NetworkUsed(f"agentcost used the network: {what}{args[:2]!r}")

        return refused

    class NoSocket(socket.socket):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            refuse("socket.socket")(*args, **kwargs)

    monkeypatch.setattr(socket, "socket", NoSocket)
    for name in ("create_connection", "getaddrinfo", "gethostbyname", "socketpair"):
        monkeypatch.setattr(socket, name, refuse(f"socket.{name}"))
    return attempts


def test_the_network_guard_works(no_network: list[str]) -> None:
    with pytest.raises(NetworkUsed):
        socket.create_connection(("example.com", 443))
    with pytest.raises(NetworkUsed):
        socket.socket()
    assert len(no_network) == 2


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param(["estimate", "scenarios/bugfix.yaml", *AS_OF], id="estimate"),
        pytest.param(["estimate", "scenarios/agentcost.yml", "-f", "json", *AS_OF], id="estimate project"),
        pytest.param(
            ["compare", "scenarios/research.yaml", "-m", "claude-sonnet-4-5", "-m", "gpt-5", "-m", "gemini-2.5-pro",
             "--budget", "2", *AS_OF],  # its own $1 budget: gemini-2.5-pro ($1.84) would exit 1
            id="compare",
        ),
        pytest.param(["replay", str(DATA / "swe-agent" / "swe-agent__test-repo-i1.traj"), *AS_OF], id="replay"),
        pytest.param(["replay", str(DATA / "api-logs" / "anthropic-tool-choice.jsonl"), *AS_OF], id="replay log"),
        pytest.param(["prices", "claude-sonnet-4-5", *AS_OF], id="prices"),
    ],
)  # fmt: skip
def test_commands_run_without_network(
    no_network: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    fixed_terminal: None,
    argv: list[str],
) -> None:
    monkeypatch.chdir(ROOT)
    code = run(argv)
    out, err = capsys.readouterr()
    assert (code, no_network) == (0, []), err
    assert out.strip()


_GUARDED = """
import socket, sys
def refuse(*args, **kwargs):
    raise OSError("network disabled by the test")
class NoSocket(socket.socket):
    def __init__(self, *args, **kwargs):
        refuse()
socket.socket = NoSocket
for name in ("create_connection", "getaddrinfo", "gethostbyname", "socketpair"):
    setattr(socket, name, refuse)
from agentcost.cli import run
for argv in ARGVS:
    code = run(argv)
    if code != 0:
        sys.exit(f"{argv}: exit {code}")
"""


def test_a_cold_process_runs_without_network(tmp_path: Path) -> None:
    """The in-process tests may find encodings and prices loaded by earlier tests: here a new Python
    process with an empty cache directory loads everything itself, with sockets disabled first."""
    import subprocess
    import sys

    argvs = [
        ["estimate", "scenarios/bugfix.yaml", "-q", *AS_OF],
        [
            "compare",
            "scenarios/research.yaml",
            "-m",
            "claude-sonnet-4-5",
            "-m",
            "gemini-2.5-pro",
            "-q",
            "--budget",
            "2",
            *AS_OF,
        ],
        ["replay", str(DATA / "api-logs" / "openai-chat.jsonl"), "-q", *AS_OF],
    ]
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTCOST_")}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    done = subprocess.run(
        [sys.executable, "-c", f"ARGVS = {argvs!r}\n{_GUARDED}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.split()) == 3  # three totals


# ---------------------------------------------------------------------------------------------
# --output is written atomically

OK = "version: 1\nmodel: gpt-5\ntask: hi\nfinal: 10\n"


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty directory with a scenario ``s.yaml`` and an old report ``out.txt``, made current."""
    (tmp_path / "s.yaml").write_text(OK, encoding="utf-8")
    (tmp_path / "out.txt").write_text("the old report\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def names(directory: Path) -> set[str]:
    return {path.name for path in directory.iterdir()}


def test_output_replaces_the_file(workdir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["estimate", "s.yaml", "-q", "-o", "out.txt", *AS_OF]) == 0
    assert (workdir / "out.txt").read_text(encoding="utf-8").startswith("0.0001")
    assert names(workdir) == {"s.yaml", "out.txt"}  # no temporary file left
    assert capsys.readouterr().out == ""


def test_a_failed_rendering_leaves_the_old_output(workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentcost.render import output

    def broken(*args: Any, **kwargs: Any) -> str:
        raise RuntimeError("the renderer broke")

    monkeypatch.setattr(output, "render_text", broken)
    with pytest.raises(RuntimeError, match="the renderer broke"):  # a bug: the console script exits 3
        run(["estimate", "s.yaml", "-f", "json", "-o", "out.txt", *AS_OF])
    assert (workdir / "out.txt").read_text(encoding="utf-8") == "the old report\n"
    assert names(workdir) == {"s.yaml", "out.txt"}


class _FullDisk:
    """A text file object whose writes fail with ENOSPC after the first few characters."""

    def __init__(self, handle: Any) -> None:
        self._handle = handle

    def write(self, text: str) -> int:
        self._handle.write(text[:10])
        self._handle.flush()
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def __enter__(self) -> _FullDisk:
        return self

    def __exit__(self, *exc: object) -> None:
        self._handle.close()


def test_a_full_disk_leaves_the_old_output_and_no_temporary_file(
    workdir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real_fdopen = os.fdopen
    monkeypatch.setattr(os, "fdopen", lambda *a, **k: _FullDisk(real_fdopen(*a, **k)))
    assert run(["estimate", "s.yaml", "-f", "json", "-o", "out.txt", *AS_OF]) == 2
    assert capsys.readouterr().err == (
        f"agentcost: error: out.txt: --output: cannot write the report: {os.strerror(errno.ENOSPC)}\n"
    )
    assert (workdir / "out.txt").read_text(encoding="utf-8") == "the old report\n"
    assert names(workdir) == {"s.yaml", "out.txt"}


def test_a_failed_rename_leaves_the_old_output_and_no_temporary_file(
    workdir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real_replace = os.replace

    def refuse(src: Any, dst: Any, **kwargs: Any) -> None:
        if os.path.abspath(dst) != str(workdir / "out.txt"):
            return real_replace(src, dst, **kwargs)
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(dst))

    monkeypatch.setattr(os, "replace", refuse)
    assert run(["estimate", "s.yaml", "-o", "out.txt", *AS_OF]) == 2
    assert capsys.readouterr().err == (
        f"agentcost: error: out.txt: --output: cannot write the report: {os.strerror(errno.EACCES)}\n"
    )
    assert (workdir / "out.txt").read_text(encoding="utf-8") == "the old report\n"
    assert names(workdir) == {"s.yaml", "out.txt"}


# ---------------------------------------------------------------------------------------------
# Input files are never modified


def snapshot(root: Path) -> dict[str, tuple[str, int, int]]:
    """Every file under ``root``: sha256 of its bytes, modification time (ns) and mode."""
    found = {}
    for path in sorted(root.rglob("*")):
        if path.is_file():
            info = path.stat()
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            found[str(path.relative_to(root))] = (digest, info.st_mtime_ns, info.st_mode)
    return found


@pytest.fixture
def inputs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A copy of the shipped scenarios, a price file and two recorded runs under ``tmp_path/in``,
    with the current directory at ``tmp_path``; checks after the test that nothing under it changed."""
    root = tmp_path / "in"
    shutil.copytree(ROOT / "scenarios", root / "scenarios")
    shutil.copy(ROOT / "docs" / "examples" / "prices.yaml", root / "prices.yaml")
    shutil.copytree(DATA / "swe-agent", root / "swe-agent")
    shutil.copy(DATA / "api-logs" / "anthropic-tool-choice.jsonl", root / "run.jsonl")
    (tmp_path / "out").mkdir()
    monkeypatch.chdir(tmp_path)
    before = snapshot(root)
    yield root
    assert snapshot(root) == before


def test_no_command_modifies_its_inputs(inputs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scenarios = sorted(str(p) for p in (inputs / "scenarios").glob("*.yaml"))
    project = str(inputs / "scenarios" / "agentcost.yml")
    bugfix = str(inputs / "scenarios" / "bugfix.yaml")
    prices = ["--prices", str(inputs / "prices.yaml")]
    commands = [
        ["estimate", *scenarios, *AS_OF, *prices],
        ["estimate", project, "-f", "json", "-o", "out/project.json", *AS_OF],
        [
            "estimate",
            bugfix,
            "--set",
            "defaults.result=900",
            "--set",
            "limits.max_rounds=4",
            "--explain",
            *AS_OF,
        ],
        ["compare", bugfix, "-m", "claude-sonnet-4-5", "-m", "gpt-5", *AS_OF, *prices],
        ["diff", bugfix, str(inputs / "scenarios" / "parallel-retries.yaml"), *AS_OF],
        ["replay", str(inputs / "swe-agent" / "swe-agent__test-repo-i1.traj"), *AS_OF],
        ["calibrate", str(inputs / "run.jsonl"), "-o", "out/calibrated.yaml", *AS_OF],
    ]
    for argv in commands:
        code = run(argv)
        assert code in (0, 1), (argv, capsys.readouterr().err)  # 1: a gate (budget, context window)
    assert (Path("out") / "project.json").is_file() and (Path("out") / "calibrated.yaml").is_file()
