"""Untrusted input, the file side (issue 13): confinement of the files input files name, only regular
files read (no hang), ``-`` for standard input, and each file of a load read once.

Each test's docstring names the groups of issue 13 it covers: 1 (memory: the same file named many
times), 2 (reading outside the project), 4 (hangs) and 9 (input from a pipe).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

import agentcost
import agentcost.infra.files as files
from agentcost.cli import run
from agentcost.errors import InputError
from agentcost.infra.policy import InputPolicy, current_policy, project_root, using_policy
from agentcost.scenario.load import read_scenario
from agentcost.scenario.project import load_project

ROOT = Path(__file__).resolve().parent.parent
HINT = (
    "a file named in an input file must be inside that file's directory, the directory of the file "
    "given on the command line or its git work tree; pass --allow-path DIR to allow another"
)
TOOLS = '[{"name": "x", "description": "d", "input_schema": {"type": "object"}}]\n'
SUB = "version: 1\nmodel: gpt-5\ntask: hi\nfinal: 10\n"
TIMEOUT = 60  # seconds: a run that blocks on a FIFO is killed, and the test fails instead of hanging

# Each channel: the scenario (or project) file that names NAME, the file NAME is, and the key and line
# of the reference.
CHANNELS: dict[str, tuple[str, str, str, str, int]] = {
    "include": (
        "s.yaml",
        "version: 1\nmodel: gpt-5\ntask: hi\nsystem: {file: NAME}\nfinal: 10\n",
        "secret\n",
        "system.file",
        4,
    ),
    "result": (
        "s.yaml",
        "version: 1\nmodel: gpt-5\ntask: hi\nrounds:\n  - {tool: x, call_tokens: 5, result: {file: NAME}}\n"
        "final: 10\n",
        "secret\n",
        "rounds[0].result.file",
        5,
    ),
    "tools file": (
        "s.yaml",
        "version: 1\nmodel: gpt-5\ntask: hi\ntools: [{file: NAME}]\nfinal: 10\n",
        TOOLS,
        "tools[0].file",
        4,
    ),
    "subagent": (
        "s.yaml",
        "version: 1\nmodel: gpt-5\ntask: hi\nrounds:\n  - {tool: x, call_tokens: 5, subagent: {file: NAME}}\n"
        "final: 10\n",
        SUB,
        "rounds[0].subagent.file",
        5,
    ),
    "empirical": (
        "s.yaml",
        "version: 1\nmodel: gpt-5\ntask: hi\nrounds:\n"
        "  - {tool: x, call_tokens: 5, result: 5, repeat: {empirical: {file: NAME}}}\nfinal: 10\n",
        "4\n5\n",
        "rounds[0].repeat.empirical.file",
        5,
    ),
    "project path": (
        "agentcost.yml",
        "version: 1\nscenarios:\n  - path: NAME\n",
        SUB,
        "scenarios[0].path",
        3,
    ),
}


def cli(*argv: str | Path) -> tuple[int, str, str]:
    """Run the CLI in this process: (exit code, stdout, stderr)."""
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = run([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def agentcost_process(
    *argv: str | Path,
    cwd: Path,
    stdin: bytes | None = None,
    pass_fds: tuple[int, ...] = (),
    cache: bool = False,
) -> subprocess.CompletedProcess[bytes]:
    """The console script in a process of its own, killed after TIMEOUT seconds; ``cache``: with the
    test's own disk cache (``XDG_CACHE_HOME``) rather than none."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if not cache:
        env["AGENTCOST_CACHE"] = "off"
    return subprocess.run(
        [sys.executable, "-m", "agentcost", *map(str, argv)],
        cwd=cwd,
        env=env,
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        timeout=TIMEOUT,
        pass_fds=pass_fds,
    )


CLI_RUNS = """
import contextlib, io, json, sys
from agentcost.cli import run
results = []
for argv in json.loads(sys.argv[1]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = run(argv)
    results.append([code, out.getvalue(), err.getvalue()])
sys.__stdout__.write(json.dumps(results))
"""


def cli_process(*runs: list[str], cwd: Path) -> list[tuple[int, str, str]]:
    """Several CLI runs, one after the other in one process of its own (killed after TIMEOUT
    seconds, so that a run that blocks fails the test instead of hanging it): (exit code, stdout,
    stderr) of each."""
    env = {**os.environ, "AGENTCOST_CACHE": "off", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", CLI_RUNS, json.dumps(runs)],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, b"")
    return [(code, out, err) for code, out, err in json.loads(done.stdout)]


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``proj/`` (a git work tree: it has a ``.git``) and ``outside/`` beside it; the current
    directory is their parent."""
    (tmp_path / "proj" / ".git").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _setup(tree: Path, channel: str, escape: str) -> tuple[Path, str, Path]:
    """The naming file, the NAME it holds and the real path of the file NAME is, outside ``proj/``."""
    naming, text, target_text, _, _ = CHANNELS[channel]
    target = tree / "outside" / "target.txt"
    target.write_text(target_text, encoding="utf-8")
    if escape == "dotdot":
        name = "../outside/target.txt"
    elif escape == "absolute":
        name = str(target)
    else:  # a symlink inside proj/ to the file outside
        (tree / "proj" / "link.txt").symlink_to(target)
        name = "link.txt"
    path = tree / "proj" / naming
    path.write_text(text.replace("NAME", name), encoding="utf-8")
    return path, name, Path(os.path.realpath(target))


@pytest.mark.parametrize("escape", ["dotdot", "absolute", "symlink"])
@pytest.mark.parametrize("channel", list(CHANNELS))
def test_a_file_named_outside_the_allowed_directories_is_refused(
    tree: Path, channel: str, escape: str
) -> None:
    """Group 2: every channel that names a file (include, result, tools file, subagent, empirical
    file, project path), escaping by ``../``, by an absolute path and by a symlink: exit 2, one line
    naming the file, line and key of the reference, the real path and --allow-path; nothing read."""
    path, name, target = _setup(tree, channel, escape)
    _, _, _, key, line = CHANNELS[channel]
    shown = name if escape == "absolute" else f"proj/{name}"
    code, out, err = cli("estimate", f"proj/{path.name}", "-q")
    assert (code, out) == (2, "")
    assert err == (
        f"agentcost: error: proj/{path.name}:{line}: {key}: {shown} resolves to {target}, outside the "
        f"allowed directories ({HINT})\n"
    )
    assert not files.was_read(target.stat())  # refused before it is opened


@pytest.mark.parametrize("escape", ["dotdot", "absolute", "symlink"])
@pytest.mark.parametrize("channel", list(CHANNELS))
def test_allow_path_lets_it_be_read(tree: Path, channel: str, escape: str) -> None:
    """Group 2: ``--allow-path DIR`` (repeatable) allows a directory; the API's ``allow_paths=`` too."""
    path, _, _ = _setup(tree, channel, escape)
    code, out, err = cli(
        "estimate", f"proj/{path.name}", "-q", "--allow-path", "proj", "--allow-path", "outside"
    )
    assert (code, err) == (0, "")
    assert float(out) > 0
    if channel != "project path":
        result = agentcost.estimate(path, as_of="2026-11-30", allow_paths=[tree / "outside"])
        assert result.total_cost_usd > 0
        with pytest.raises(InputError, match="outside the allowed directories"):
            agentcost.estimate(path, as_of="2026-11-30")


def test_a_run_allowed_once_does_not_open_the_way_for_the_next(tree: Path) -> None:
    """Group 2: what a run with --allow-path read leaves nothing behind that a run without it could use."""
    path, _, _ = _setup(tree, "include", "dotdot")
    assert cli("estimate", path, "-q", "--allow-path", "outside")[0] == 0
    code, _, err = cli("estimate", path, "-q")
    assert code == 2 and "outside the allowed directories" in err
    assert agentcost.load_scenario(path, allow_paths=["outside"]).system is not None
    with pytest.raises(InputError, match="outside the allowed directories"):
        agentcost.load_scenario(path)


def test_allow_path_must_be_a_directory(tree: Path) -> None:
    """Group 2: a mistyped --allow-path is an error, not a silent no-op."""
    (tree / "proj" / "s.yaml").write_text(SUB, encoding="utf-8")
    code, _, err = cli("estimate", "proj/s.yaml", "--allow-path", "nowhere")
    assert code == 2
    assert err == "agentcost: error: --allow-path: not a directory: nowhere (give a directory that exists)\n"
    with pytest.raises(InputError, match="allow_paths: not a directory: nowhere"):
        agentcost.load_scenario("proj/s.yaml", allow_paths=["nowhere"])


def test_the_project_root_and_the_top_files_directory_are_allowed(tree: Path) -> None:
    """Group 2: inside the git work tree of the file given, and inside that file's own directory,
    a file may name files above its own directory; above both, it may not."""
    proj = tree / "proj"
    (proj / "shared").mkdir()
    (proj / "shared" / "tools.json").write_text(TOOLS, encoding="utf-8")
    (proj / "agents" / "sub").mkdir(parents=True)
    (proj / "agents" / "sub" / "helper.yaml").write_text(
        "version: 1\nmodel: gpt-5\ntask: hi\ntools: [{file: ../../shared/tools.json}]\nfinal: 10\n",
        encoding="utf-8",
    )
    (proj / "agents" / "s.yaml").write_text(
        "version: 1\nmodel: gpt-5\ntask: hi\ntools: [{file: ../shared/tools.json}]\nrounds:\n"
        "  - {tool: x, call_tokens: 5, subagent: {file: sub/helper.yaml}}\nfinal: 10\n",
        encoding="utf-8",
    )
    assert project_root(proj / "agents" / "s.yaml") == proj
    assert len(read_scenario(proj / "agents" / "s.yaml").tools) == 1  # the git work tree allows it
    shutil.rmtree(proj / ".git")  # no work tree: the subagent still names ../shared inside the top's dir
    (proj / "agents" / "s.yaml").write_text(
        "version: 1\nmodel: gpt-5\ntask: hi\nrounds:\n"
        "  - {tool: x, call_tokens: 5, subagent: {file: sub/helper.yaml}}\nfinal: 10\n",
        encoding="utf-8",
    )
    (proj / "agents" / "shared").mkdir()
    (proj / "agents" / "shared" / "tools.json").write_text(TOOLS, encoding="utf-8")
    (proj / "agents" / "sub" / "helper.yaml").write_text(
        "version: 1\nmodel: gpt-5\ntask: hi\ntools: [{file: ../shared/tools.json}]\nfinal: 10\n",
        encoding="utf-8",
    )
    sub = read_scenario(proj / "agents" / "s.yaml").rounds[0].calls[0].subagent
    assert sub is not None and len(sub.tools) == 1
    (tree / "tools.json").write_text(TOOLS, encoding="utf-8")  # above the top file's directory: refused
    (proj / "agents" / "sub" / "helper.yaml").write_text(
        "version: 1\nmodel: gpt-5\ntask: hi\ntools: [{file: ../../../tools.json}]\nfinal: 10\n",
        encoding="utf-8",
    )
    with pytest.raises(
        InputError, match=r"helper.yaml:4: tools\[0\].file: .* outside the allowed directories"
    ):
        read_scenario(proj / "agents" / "s.yaml")


def test_the_shipped_scenarios_name_only_files_inside_scenarios(tmp_path: Path) -> None:
    """Group 2: every shipped scenario and the shipped project load under the default policy from a
    copy outside any git work tree (so only their own directories allow their files); a file named
    from above the copy is refused."""
    copy = tmp_path / "scenarios"
    shutil.copytree(ROOT / "scenarios", copy)
    assert project_root(copy / "bugfix.yaml") is None
    for path in sorted(copy.glob("*.yaml")):
        read_scenario(path)
    project = load_project(copy / "agentcost.yml")
    for entry in project.entries:
        read_scenario(entry.path)
    # the same copy, one file named from above it: refused
    bugfix = copy / "bugfix.yaml"
    (tmp_path / "notes.md").write_text("not part of the scenarios\n", encoding="utf-8")
    with pytest.raises(InputError, match="outside the allowed directories"):
        read_scenario(bugfix, overrides=["system.file=../notes.md"])


# --------------------------------------------------------------------------------------------
# Only regular files: FIFOs, devices and directories are refused before they are opened (group 4)


@pytest.fixture
def fifo(tree: Path) -> Path:
    path = tree / "proj" / "pipe.yaml"
    os.mkfifo(path)  # nothing ever writes to it: opening or reading it blocks forever
    return path


def _refused(result: subprocess.CompletedProcess[bytes], expected: str) -> None:
    assert result.returncode == 2, result.stderr
    assert result.stdout == b""
    assert result.stderr.decode() == f"agentcost: error: {expected}\n"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_as_the_scenario_the_include_or_the_prices_file_is_refused(tree: Path, fifo: Path) -> None:
    """Group 4: a FIFO nothing writes to, named as the scenario, as an include and as --prices: each
    refused at once with its reason (in a process killed after a timeout if it hangs)."""
    (tree / "proj" / "s.yaml").write_text(
        "version: 1\nmodel: gpt-5\ntask: hi\nsystem: {file: pipe.yaml}\nfinal: 10\n", encoding="utf-8"
    )
    (tree / "proj" / "ok.yaml").write_text(SUB, encoding="utf-8")
    results = cli_process(
        ["estimate", "proj/pipe.yaml"],
        ["estimate", "proj/s.yaml"],
        ["estimate", "proj/ok.yaml", "--prices", "proj/pipe.yaml"],
        ["compare", "proj/pipe.yaml", "-m", "gpt-5"],
        cwd=tree,
    )
    expected = [
        "proj/pipe.yaml: is a named pipe (FIFO), not a regular file",
        "proj/s.yaml:4: system.file: cannot read proj/pipe.yaml: is a named pipe (FIFO), not a regular file",
        "proj/pipe.yaml: --prices: is a named pipe (FIFO), not a regular file",
        "proj/pipe.yaml: is a named pipe (FIFO), not a regular file",
    ]
    assert results == [(2, "", f"agentcost: error: {message}\n") for message in expected]


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_devices_and_directories_are_refused(tree: Path) -> None:
    """Group 4: a character device (``/dev/zero`` never ends) and a directory, as the scenario, an
    include (through a symlink inside the project) and --prices."""
    assert cli("estimate", "/dev/zero") == (
        2,
        "",
        "agentcost: error: /dev/zero: is a character device, not a regular file\n",
    )
    (tree / "proj" / "zero").symlink_to("/dev/zero")
    (tree / "proj" / "s.yaml").write_text(
        "version: 1\nmodel: gpt-5\ntask: hi\nsystem: {file: zero}\nfinal: 10\n", encoding="utf-8"
    )
    code, _, err = cli("estimate", "proj/s.yaml", "--allow-path", "/dev")
    assert code == 2
    assert err == (
        "agentcost: error: proj/s.yaml:4: system.file: cannot read proj/zero: is a character device, not a "
        "regular file\n"
    )
    code, _, err = cli("estimate", "proj/s.yaml")  # without --allow-path: outside, never opened
    assert code == 2 and "resolves to /dev/zero, outside the allowed directories" in err
    (tree / "proj" / "ok.yaml").write_text(SUB, encoding="utf-8")
    code, _, err = cli("estimate", "proj/ok.yaml", "--prices", "/dev/null")
    assert (code, err) == (
        2,
        "agentcost: error: /dev/null: --prices: is a character device, not a regular file\n",
    )
    code, _, err = cli("estimate", "proj")
    assert (code, err) == (2, "agentcost: error: proj: is a directory, not a file\n")


@pytest.mark.skipif(not os.path.isdir("/dev/fd"), reason="needs /dev/fd")
def test_a_process_substitution_points_to_dash(tree: Path) -> None:
    """Groups 4 and 9: ``agentcost estimate <(cat s.yaml)`` hands a /dev/fd path to a pipe; it is
    refused at once, with a message pointing to ``-``."""
    read_end, write_end = os.pipe()  # the write end stays open and silent: reading would block
    try:
        result = agentcost_process("estimate", f"/dev/fd/{read_end}", cwd=tree, pass_fds=(read_end,))
    finally:
        os.close(read_end)
        os.close(write_end)
    _refused(
        result,
        f"/dev/fd/{read_end}: is a pipe, not a regular file (for standard input, give - as the file name: "
        "cat FILE | agentcost estimate -)",
    )


def test_read_file_refuses_before_opening(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Group 4: read_file stats first and opens without blocking (O_NONBLOCK)."""
    opened: list[int] = []
    real_open = os.open

    def watching_open(path: str | os.PathLike[str], flags: int, *args: int) -> int:
        opened.append(flags)
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", watching_open)
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "p"
        os.mkfifo(fifo)
        outcome: list[BaseException] = []

        def read() -> None:
            try:
                files.read_file(fifo)
            except Exception as e:
                outcome.append(e)

        reading = threading.Thread(target=read, daemon=True)
        reading.start()
        reading.join(10)
        if reading.is_alive():  # blocked in open(): release it, then fail
            os.close(real_open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            reading.join(10)
            pytest.fail("read_file blocked on a FIFO")
        assert [(type(e).__name__, str(e)) for e in outcome] == [
            ("NotAFile", "is a named pipe (FIFO), not a regular file")
        ]
        assert opened == []
    (tmp_path / "f.txt").write_text("hi", encoding="utf-8")
    assert files.read_file(tmp_path / "f.txt") == b"hi"
    assert opened and opened[-1] & getattr(os, "O_NONBLOCK", 0) == getattr(os, "O_NONBLOCK", 0)
    assert stat.S_ISREG(os.stat(tmp_path / "f.txt").st_mode)


# --------------------------------------------------------------------------------------------
# Standard input (group 9)


def _stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    """Standard input of this process, for an in-process run: ``data``."""
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


@pytest.mark.disk_cache  # the first, in-process run leaves its counts and price row to the process
def test_a_scenario_from_standard_input(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Group 9: ``cat s.yaml | agentcost estimate -`` gives the file's total; files it names are read
    relative to the current directory; ``compare -`` too; the same byte limit applies."""
    proj = tree / "proj"
    (proj / "prompt.md").write_text("You are a careful engineer. " * 20, encoding="utf-8")
    text = (
        "version: 1\nmodel: gpt-5\ntask: Fix it.\nsystem: {file: prompt.md}\nrounds:\n"
        "  - {tool: x, call_tokens: 5, result: 300, repeat: 3}\nfinal: 40\n"
    )
    (proj / "s.yaml").write_text(text, encoding="utf-8")
    args = ("--as-of", "2026-11-30", "-q")
    monkeypatch.chdir(proj)
    code, total, err = cli("estimate", "s.yaml", *args)
    assert (code, err) == (0, "") and float(total) > 0
    # the real standard input of a process of its own
    from_stdin = agentcost_process("estimate", "-", *args, cwd=proj, stdin=text.encode(), cache=True)
    assert (from_stdin.returncode, from_stdin.stderr, from_stdin.stdout) == (0, b"", total.encode())
    _stdin(monkeypatch, text.encode())
    assert cli("compare", "-", "-m", "gpt-5", *args) == (0, total, "")
    # named files resolve from the current directory, and stay confined to it
    _stdin(monkeypatch, text.replace("prompt.md", "../outside/x.md").encode())
    assert cli("estimate", "-", *args) == (
        2,
        "",
        f"agentcost: error: -:4: system.file: ../outside/x.md resolves to "
        f"{os.path.realpath(tree / 'outside' / 'x.md')}, outside the allowed directories ({HINT})\n",
    )
    _stdin(monkeypatch, b"#" * 10_000_001)
    assert cli("estimate", "-", *args) == (
        2,
        "",
        "agentcost: error: -: file too large: over the limit of 10,000,000 bytes (real files stay far below it)\n",
    )


def test_standard_input_is_read_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Group 9: ``-`` read by several steps (is it a project? the load) is read once."""
    import io

    class Stdin(io.TextIOWrapper):
        pass

    stream = Stdin(io.BytesIO(SUB.encode()), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stream)
    monkeypatch.chdir(tmp_path)
    code, out, err = cli("estimate", "-", "-q", "--as-of", "2026-11-30")
    assert (code, err) == (0, "")
    assert stream.read() == ""  # all of it taken once, by the first step
    again = cli("estimate", "-", "-q", "--as-of", "2026-11-30")
    assert again == (0, out, "")


# --------------------------------------------------------------------------------------------
# Each file of a load read once (group 1, the file-read side)


def test_the_same_file_named_many_times_is_read_once(tmp_path: Path) -> None:
    """Group 1: one file named by 100 rounds through 100 symlinks and two spellings, and by three
    subagents, is read once and its text shared."""
    big = "word " * 200_000  # 1 MB
    (tmp_path / "big.txt").write_text(big, encoding="utf-8")
    for i in range(100):
        (tmp_path / f"link{i}.txt").symlink_to("big.txt")
    rounds = "".join(f"  - {{tool: x, call_tokens: 5, result: {{file: link{i}.txt}}}}\n" for i in range(100))
    rounds += "  - {tool: x, call_tokens: 5, result: {file: ./big.txt}}\n"
    rounds += "".join("  - {tool: x, call_tokens: 5, subagent: {file: sub.yaml}}\n" for _ in range(3))
    (tmp_path / "sub.yaml").write_text(
        "version: 1\nmodel: gpt-5\ntask: hi\nfinal: {file: big.txt}\n", encoding="utf-8"
    )
    (tmp_path / "s.yaml").write_text(
        f"version: 1\nmodel: gpt-5\ntask: hi\nrounds:\n{rounds}final: 10\n", encoding="utf-8"
    )
    names: list[str] = []

    def reader(path: Path) -> bytes:
        names.append(path.name)
        return files.read_file(path)

    scenario = read_scenario(tmp_path / "s.yaml", reader=reader)
    assert names.count("big.txt") == 1, names
    texts = {id(r.calls[0].result.text) for r in scenario.rounds}
    assert len(texts) == 1  # one string, shared by every round and the subagents' answers


# --------------------------------------------------------------------------------------------
# The options on every command, and the policy they set


COMMANDS = ["estimate", "compare", "diff", "models", "prices", "replay", "calibrate"]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_that_reads_input_takes_the_policy_options(command: str) -> None:
    """Groups 1 and 2: --allow-path and --max-input-bytes on each command that reads input files."""
    code, out, _ = cli(command, "--help")
    assert code == 0
    assert "--allow-path" in out and "--max-input-bytes" in out


def test_the_options_set_the_runs_policy(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Groups 1 and 2: the run's InputPolicy holds --allow-path (real paths) and --max-input-bytes
    while the command runs, and the default before and after."""
    import agentcost.scenario.build as build

    seen: list[InputPolicy] = []
    real: Callable[..., object] = build.ScenarioBuilder.scenario

    def watching(self: build.ScenarioBuilder, overrides: tuple[str, ...]) -> object:
        seen.append(current_policy())
        return real(self, overrides)

    monkeypatch.setattr(build.ScenarioBuilder, "scenario", watching)
    (tree / "proj" / "s.yaml").write_text(SUB, encoding="utf-8")
    code, _, err = cli(
        "estimate", "proj/s.yaml", "-q", "--allow-path", "outside", "--max-input-bytes", "123456"
    )
    assert (code, err) == (0, "")
    assert seen == [InputPolicy((tree.resolve() / "outside",), 123456)]
    assert current_policy() == InputPolicy()
    with using_policy(InputPolicy(max_input_bytes=99)):
        agentcost.load_scenario(tree / "proj" / "s.yaml", allow_paths=[tree / "outside"])
    assert seen[-1] == InputPolicy((tree.resolve() / "outside",), 99)
    agentcost.load_scenario(tree / "proj" / "s.yaml", max_input_bytes=777)
    assert seen[-1] == InputPolicy((), 777)
    code, _, err = cli("estimate", "proj/s.yaml", "--max-input-bytes", "0")
    assert code == 2 and "--max-input-bytes" in err
