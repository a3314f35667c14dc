"""The warm process (agentcost.warm, agentcost.warm_server): a run it serves is the run this process
would make, byte for byte; it is keyed, guarded and ends; signals reach the run.

Every test here starts its servers from its own working directory (part of the key: ``python -m``
puts it on ``sys.path``), so no test meets another's server or a developer's own, and stops them.
Nothing waits a fixed time: each wait polls for a state with a generous deadline.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agentcost import warm, warm_server
from tests.conftest import ROOT, copy_seed

pytestmark = pytest.mark.skipif(not warm.supported(), reason="the warm process is Linux only")

DEADLINE = 60.0


def _until(check: Callable[[], Any], what: str) -> Any:
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.02)
    pytest.fail(f"waited {DEADLINE:.0f} s for {what}")


class Place:
    """A working directory with a copy of the shipped scenarios, and runs of ``python -m agentcost``
    from it: ``off`` (this process), or ``on`` (the warm process of the same key). Each named cache
    starts as a copy of the session's seed (the shipped scenarios' counts and price rows), so runs
    on either side are real runs that skip building the encoding."""

    def __init__(self, root: Path, seed: Path) -> None:
        self.root = root
        self.seed = seed
        shutil.copytree(ROOT / "scenarios", root / "scenarios")
        drop = ("NO_COLOR", "FORCE_COLOR", "COLUMNS", "CI")
        self.env = {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("AGENTCOST_")}
        self.env["AGENTCOST_SERVER_IDLE"] = "300"

    def cache(self, name: str) -> str:
        home = self.root / f"cache-{name}"
        if not home.exists():
            copy_seed(self.seed, home)
        return str(home)

    def run(
        self, *args: str, mode: str = "on", cache: str = "a", stdin: Any = None, **env: str
    ) -> subprocess.CompletedProcess[bytes]:
        full = {**self.env, "AGENTCOST_SERVER": mode, "XDG_CACHE_HOME": self.cache(cache), **env}
        return subprocess.run(
            [sys.executable, "-m", "agentcost", *args],
            cwd=self.root,
            env=full,
            input=stdin,
            capture_output=True,
            timeout=120,
            check=False,
        )

    def server(self, action: str, **env: str) -> str:
        done = self.run("server", action, mode="on", **env)
        assert done.returncode == 0, done.stderr.decode()
        return done.stdout.decode()

    def status(self) -> dict[str, Any] | None:
        """The status of this place's server, asked from this process (no CLI process each time),
        with the key on the server's command line (this process's own ``sys.path`` makes another)."""
        for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
            try:
                words = cmdline.read_bytes().split(b"\0")
            except OSError:
                continue
            if b"agentcost.warm_server" in b" ".join(words) and str(self.root).encode() in words[-4]:
                found = warm.ask("status", words[-3].decode())
                if found is not None:
                    return found
        return None

    def start(self, **env: str) -> int:
        out = self.server("start", **env)
        assert "A warm process serves" in out, out
        return int(out.split("pid ")[1].split(",")[0])

    def pid(self) -> int:
        status = self.status()
        assert status is not None, "no server"
        return int(status["pid"])

    def runs(self) -> int:
        status = self.status()
        assert status is not None, "no server"
        return int(status["runs"])


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, _seed_database: Path) -> Iterator[Place]:
    """One place and server for the tests that only run commands through it (a server's start is
    ~0.4 s of CPU): they count the runs it served as a difference."""
    here = Place(tmp_path_factory.mktemp("warm"), _seed_database)
    here.start()
    yield here
    here.server("stop")


@pytest.fixture
def place(tmp_path: Path, _seed_database: Path) -> Iterator[Place]:
    """A place of its own, for a test that starts its server its own way."""
    here = Place(tmp_path, _seed_database)
    yield here
    here.server("stop")


def _edit(place: Place, budget: str) -> Path:
    """scenarios/edited.yaml: bugfix.yaml (beside its files) with another budget."""
    text = (place.root / "scenarios" / "bugfix.yaml").read_text(encoding="utf-8")
    lines = [
        f"  budget_usd: {budget}" if line.startswith("  budget_usd:") else line for line in text.splitlines()
    ]
    path = place.root / "scenarios" / "edited.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


COMMANDS: list[tuple[str, ...]] = [
    ("estimate", "scenarios/bugfix.yaml", "--as-of", "2026-11-30", "--verbose"),
    ("estimate", "scenarios/bugfix.yaml", "--as-of", "2026-11-30", "--format", "json"),
    ("estimate", "scenarios/bugfix.yaml", "--as-of", "2026-11-30", "--budget", "0.001"),  # exit 1
    ("estimate", "scenarios/no-such-file.yaml"),  # exit 2, one line
    ("prices", "claude-sonnet-4-5", "--input-tokens", "50000", "--as-of", "2026-11-30"),
    ("models", "claude-*", "--as-of", "2026-11-30"),
    ("compare", "scenarios/bugfix.yaml", "-m", "gpt-4.1", "-m", "claude-sonnet-4-5", "--as-of", "2026-11-30"),
]


def test_a_served_run_is_the_run_itself_byte_for_byte(served: Place) -> None:
    """Each command, run here and in the warm process with an empty cache each (both run for real):
    the same standard output, standard error and exit code; and the server counted every one."""
    codes = []
    before = served.runs()
    for number, args in enumerate(COMMANDS):
        here = served.run(*args, mode="off", cache=f"off-{number}")
        there = served.run(*args, mode="on", cache=f"on-{number}")
        assert (there.returncode, there.stdout, there.stderr) == (
            here.returncode,
            here.stdout,
            here.stderr,
        ), args
        codes.append(here.returncode)
    assert codes == [0, 0, 1, 2, 0, 0, 0]
    assert served.runs() - before == len(COMMANDS)


def test_the_environment_standard_input_and_umask_are_the_clients(served: Place, tmp_path: Path) -> None:
    """What a run reads from its surroundings is the client's: colour and width from the
    environment, the scenario from standard input, the mode of a file it writes from the umask."""
    before = served.runs()
    colour = served.run("estimate", "scenarios/bugfix.yaml", FORCE_COLOR="1", COLUMNS="100")
    plain = served.run("estimate", "scenarios/bugfix.yaml", NO_COLOR="1", COLUMNS="100", cache="b")
    assert b"\x1b[" in colour.stdout and b"\x1b[" not in plain.stdout
    assert colour.stdout != plain.stdout
    assert (
        colour.stdout
        == served.run(
            "estimate", "scenarios/bugfix.yaml", mode="off", FORCE_COLOR="1", COLUMNS="100", cache="c"
        ).stdout
    )

    text = (served.root / "scenarios" / "chat-support.yaml").read_bytes()  # no side files
    piped = served.run("estimate", "-", "--as-of", "2026-11-30", stdin=text, cache="d")
    local = served.run("estimate", "-", "--as-of", "2026-11-30", stdin=text, mode="off", cache="e")
    assert piped.returncode == 0 and piped.stdout == local.stdout

    for umask, mode in ((0o077, 0o600), (0o022, 0o644)):
        out = tmp_path / f"out-{umask:o}.json"
        command = (
            f"umask {umask:o}; exec {sys.executable} -m agentcost estimate scenarios/bugfix.yaml -o {out}"
        )
        env = {**served.env, "AGENTCOST_SERVER": "on", "XDG_CACHE_HOME": served.cache("u")}
        done = subprocess.run(
            ["sh", "-c", command], cwd=served.root, env=env, capture_output=True, check=False
        )
        assert done.returncode == 0, done.stderr.decode()
        assert out.stat().st_mode & 0o777 == mode
    assert served.runs() - before == 5


def test_each_edit_goes_to_the_server_and_other_commands_do_not(served: Place) -> None:
    before = served.runs()
    edited = str(_edit(served, "0.25"))
    first = served.run("estimate", edited)
    assert b"Budget $0.2500" in first.stdout
    assert served.run("estimate", edited).stdout == first.stdout  # the same: replayed in the child
    _edit(served, "0.35")
    assert b"Budget $0.3500" in served.run("estimate", edited).stdout
    assert served.runs() - before == 3
    # other commands never go to the server; a command's help is that command's
    served.run("schema")
    assert served.runs() - before == 3
    assert (
        served.run("estimate", "--help").stdout
        == served.run("estimate", "--help", mode="off", cache="h").stdout
    )
    assert served.runs() - before == 4


def test_a_run_the_server_cannot_bound_as_the_client_is_runs_here(place: Place) -> None:
    """The child takes on the client's resource limits; one over the server's hard limit cannot be,
    so the child refuses before it starts and the client runs the command itself."""
    start = f"ulimit -Hn 256; exec {sys.executable} -m agentcost server start"
    env = {**place.env, "AGENTCOST_SERVER": "on", "XDG_CACHE_HOME": place.cache("s")}
    done = subprocess.run(["sh", "-c", start], cwd=place.root, env=env, capture_output=True, check=False)
    assert b"Started" in done.stdout, done.stderr
    ran = place.run("estimate", "scenarios/bugfix.yaml", "--as-of", "2026-11-30")
    assert ran.returncode == 0 and b"Total $0.0320 per run" in ran.stdout
    assert place.runs() == 1  # it was asked, and refused


def _server_children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(n) for n in path.read_text().split()] if path.exists() else []


READ = {"x86_64": "0", "aarch64": "63"}.get(os.uname().machine)  # the read(2) system call's number


def _reading_stdin(pid: int) -> bool:
    """Whether process ``pid`` is blocked in read(2) on its standard input (/proc/PID/syscall: the
    call's number, then its arguments; the first is the file descriptor)."""
    try:
        fields = Path(f"/proc/{pid}/syscall").read_text().split()
    except OSError:
        return False
    return len(fields) > 1 and fields[0] == READ and int(fields[1], 16) == 0


def _catches(pid: int, signum: int) -> bool:
    """Whether process ``pid`` has a handler for ``signum`` (its SigCgt mask)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigCgt:"):
            return bool(int(line.split()[1], 16) >> (signum - 1) & 1)
    return False


@pytest.mark.skipif(READ is None, reason="the read(2) system call's number is known for x86_64 and aarch64")
@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 128 + signal.SIGTERM)])
def test_signals_reach_the_run(served: Place, signum: int, code: int) -> None:
    """Ctrl-C at the client interrupts the run in the warm process (exit 130, as here); SIGTERM ends
    it, and the client exits as a process killed by it would. The run reads a scenario from a pipe
    that stays open, and the signal comes once it waits on it (not while the run starts, where a
    Ctrl-C can land in a finaliser, which Python ignores, in this process as in any other)."""
    server = served.pid()
    env = {**served.env, "AGENTCOST_SERVER": "on", "XDG_CACHE_HOME": served.cache("sig")}
    client = subprocess.Popen(
        [sys.executable, "-m", "agentcost", "estimate", "-"],
        cwd=served.root,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        _until(lambda: _server_children(server), "the run's child")
        _until(lambda: any(map(_reading_stdin, _server_children(server))), "the run to wait on its input")
        _until(lambda: _catches(client.pid, signal.SIGTERM), "the client to pass signals on")
        client.send_signal(signum)
        client.wait(timeout=DEADLINE)  # its input stays open: an end of input must not beat the signal
        assert client.stderr is not None
        assert client.returncode == code, client.stderr.read().decode()
        _until(lambda: not _server_children(server), "the run's child to end")
    finally:
        if client.poll() is None:
            client.kill()
        client.communicate()  # closes the pipes


def test_an_idle_server_exits(place: Place) -> None:
    pid = place.start(AGENTCOST_SERVER_IDLE="1")
    _until(lambda: not _alive(pid), "the idle server to exit")


def test_a_new_server_stops_the_older_ones_of_its_installation(place: Place) -> None:
    """Another key of the same installation (here another import-time setting; in development, an
    edit of agentcost's code): the new server stops the old one, so edits leave no servers behind."""
    old = place.start(TYPER_USE_RICH="1")
    new = place.start()
    assert new != old
    _until(lambda: not _alive(old), "the older server to stop")
    assert _alive(new)


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, ended but not yet reaped by its parent, does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def test_server_command_when_off_or_unsupported(place: Place) -> None:
    done = place.run("server", "status", mode="off")
    assert done.returncode == 0
    assert (
        done.stdout.decode()
        == "No warm process: AGENTCOST_SERVER or AGENTCOST_CACHE is off. Every run starts afresh.\n"
    )
    done = place.run("server", "start", mode="on", AGENTCOST_CACHE="off")
    assert b"is off" in done.stdout
    assert "No warm process runs" in place.server("status")


def test_a_run_at_a_terminal_starts_one_for_the_next_run(place: Place) -> None:
    """``auto`` (the default): a run with a terminal on a standard stream starts a server, unless CI
    is set; a run without one starts none. ``server stop`` ends it."""
    import pty

    def at_terminal(**env: str) -> None:
        controller, terminal = pty.openpty()
        full = {**place.env, "XDG_CACHE_HOME": place.cache("t"), **env}
        full.pop("AGENTCOST_SERVER", None)
        try:
            subprocess.run(
                [sys.executable, "-m", "agentcost", "estimate", "scenarios/bugfix.yaml"],
                cwd=place.root,
                env=full,
                stdin=terminal,
                capture_output=True,
                check=True,
                timeout=120,
            )
        finally:
            os.close(terminal)
            os.close(controller)

    at_terminal(CI="true")
    place.run("estimate", "scenarios/bugfix.yaml", mode="auto")  # no terminal
    assert place.status() is None
    at_terminal()
    _until(place.status, "the server a terminal run started")
    pid = place.pid()
    assert f"Stopped the warm process (pid {pid})" in place.server("stop")
    _until(lambda: not _alive(pid), "the stopped server to exit")
    assert "No warm process" in place.server("stop")


# -- the key, the guards, the warm-up -------------------------------------------------------------


def test_the_key_covers_code_interpreter_and_import_time_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from agentcost.infra import diskcache

    base = warm.server_key()
    assert warm.server_key() == base
    for name in ("NO_COLOR", "XDG_CACHE_HOME", "COLUMNS", "ANTHROPIC_API_KEY"):  # read per run: not in it
        monkeypatch.setenv(name, "x")
    assert warm.server_key() == base
    for name, value in (("PYTHONUTF8", "1"), ("TYPER_USE_RICH", "0"), ("LC_ALL", "C"), ("LANG", "C")):
        with monkeypatch.context() as changed:
            changed.setenv(name, value)
            assert warm.server_key() != base, name
    with monkeypatch.context() as changed:
        changed.setattr(diskcache, "source_digest", lambda: "edited")
        assert warm.server_key() != base
    with monkeypatch.context() as changed:
        changed.setattr(sys, "path", [*sys.path, "/elsewhere"])
        assert warm.server_key() != base
    assert warm.address(base).startswith(f"\0agentcost-warm-{os.getuid()}-")


def test_the_environment_read_at_import_time_is_in_the_key() -> None:
    """Every environment variable a module the server imports reads at module level (so the server's
    value would hold for every run) is in the key. Run in a clean interpreter so that the modules
    counted are the ones the warm-up imports."""
    script = (
        "import importlib, sys; from agentcost import warm_server\n"
        "for name in warm_server.WARM_MODULES: importlib.import_module(name)\n"
        "print('\\n'.join(sorted(sys.modules)))"
    )
    names = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, check=True, text=True
    ).stdout.split()
    read: dict[str, set[str]] = {}
    for name in names:
        module = sys.modules.get(name) or _quiet_import(name)
        try:
            source = inspect.getsource(module) if module is not None else ""
        except (OSError, TypeError):
            continue
        if "environ" not in source and "getenv" not in source:
            continue
        tree = ast.parse(source)
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                continue  # a docstring
            if any(
                (isinstance(n, ast.Attribute) and n.attr in ("environ", "getenv"))
                or (isinstance(n, ast.Name) and n.id in ("environ", "getenv"))
                for n in ast.walk(node)
            ):
                constants = {
                    c.value
                    for c in ast.walk(node)
                    if isinstance(c, ast.Constant) and isinstance(c.value, str)
                }
                read[name] = {c for c in constants if c.isupper() or c.startswith("_")} or {"?"}
    assert read.pop("os") == {"?"}, "os builds os.environ itself (the client's replaces it in a run)"
    assert read, "the scan found no other module-level read at all: it is not looking"
    for module, variables in read.items():
        for variable in variables:
            assert variable in warm.KEY_ENV_NAMES or variable.startswith(warm.KEY_ENV_PREFIXES), (
                module,
                variable,
            )


def _quiet_import(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except Exception:  # a platform module this interpreter lacks: nothing to scan
        return None


def test_the_warm_up_imports_what_an_estimate_imports(
    tmp_path: Path, seed_cache: Callable[[Path], None]
) -> None:
    """After the warm-up, a warm-cache estimate of an edited scenario, ``prices`` and ``models``
    import no agentcost module: the child does no import work the server could have done."""
    seed_cache(tmp_path)
    shutil.copytree(ROOT / "scenarios", tmp_path / "scenarios")
    scenario = tmp_path / "scenarios" / "bugfix.yaml"
    scenario.write_text(scenario.read_text().replace("budget_usd: 0.10", "budget_usd: 0.11"))
    script = (
        "import importlib, io, contextlib, sys\n"
        "from agentcost import warm_server, cli, cli_coerce, launch\n"
        "for name in warm_server.WARM_MODULES: importlib.import_module(name)\n"
        "cli_coerce.install(); cli._command()\n"
        "before = set(sys.modules)\n"
        f"for argv in (['estimate', {str(scenario)!r}], ['prices', 'gpt-4.1'], ['models', 'claude-*']):\n"
        "    sys.argv = ['agentcost', *argv]\n"
        "    with contextlib.redirect_stdout(io.StringIO()):\n"
        "        code = launch.run_cached(argv)\n"
        "    assert code == 0, (argv, code)\n"
        "print('\\n'.join(sorted(set(sys.modules) - before)))"
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path), "AGENTCOST_SERVER": "off"}
    new = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, check=True, text=True, env=env, cwd=ROOT
    ).stdout.split()
    assert [name for name in new if name.startswith("agentcost")] == []


def test_a_socket_of_another_user_is_never_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """The client checks the server's user id; the server checks the client's, and reads nothing
    from another user's connection."""
    key = "f" * 64
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(warm.address(key))
    listener.listen(1)
    try:
        connected = warm.connect(key)
        assert connected is not None  # ours: connected
        connected.close()
        monkeypatch.setattr(warm, "peer_uid", lambda sock: os.getuid() + 1)
        assert warm.connect(key) is None
    finally:
        listener.close()

    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    with ours, theirs:
        theirs.sendall(b"\0\0\0\2{}")
        status: dict[str, Any] = {"runs": 0}
        warm_server._handle(listener, ours, status)  # peer_uid says another user: dropped unread
        assert status == {"runs": 0}
        ours.setblocking(False)
        assert ours.recv(16) == b"\0\0\0\2{}"  # still there: nothing was read


def test_settings() -> None:
    for value, expected in (
        ("off", "off"),
        ("0", "off"),
        ("disabled", "off"),  # the cache's words (AGENTCOST_CACHE)
        ("ON", "on"),
        ("yes", "on"),
        ("", "auto"),
        ("maybe", "auto"),
    ):
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("AGENTCOST_SERVER", value)
            patch.delenv("AGENTCOST_CACHE", raising=False)
            assert warm.setting() == expected, value
            for cache_off in ("off", "disabled"):
                patch.setenv("AGENTCOST_CACHE", cache_off)
                assert warm.setting() == "off"
            for idle, seconds in (
                ("60", 60),
                ("0", warm.IDLE_SECONDS),
                ("x", warm.IDLE_SECONDS),
                ("90000", warm.IDLE_SECONDS),
            ):
                patch.setenv("AGENTCOST_SERVER_IDLE", idle)
                assert warm.idle_seconds() == seconds
    assert warm.wanted(["estimate", "x.yaml"]) is False  # conftest: AGENTCOST_SERVER=off
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AGENTCOST_SERVER", "auto")
        assert warm.wanted(["estimate", "x.yaml"]) and warm.wanted(["compare"]) and warm.wanted(["diff"])
        assert not warm.wanted(["replay", "x.traj"]) and not warm.wanted([]) and not warm.wanted(["server"])
