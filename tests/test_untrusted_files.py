"""Issue 28, items 8 (files written: never through a symlink, never onto an input) and 11 (the race
between the confinement check and the open).

Each test fails on the code before the change: ``GITHUB_STEP_SUMMARY`` or ``GITHUB_OUTPUT`` naming an
input was appended to; ``-o`` wrote through a symlink, dangling or not, to its target; a directory
swapped for a symlink after :func:`~agentcost.infra.policy.confine` checked a path led the read to the
file outside. Races are made deterministic: the swap is done by a hook between the check and the
open (a wrapped ``confine``, the walk's ``lstat``, ``check_append``, the temporary file's creation),
never by looping and hoping.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import agentcost.infra.files as files
import agentcost.infra.writes as writes
from agentcost.cli import run
from agentcost.errors import InputError
from agentcost.infra.policy import confine

AS_OF = ["--as-of", "2026-11-30"]
SUB = "version: 1\nmodel: gpt-5\ntask: hi\nfinal: 10\n"
SCENARIO = "version: 1\nmodel: gpt-5\ntask: hi\nsystem: {file: d/t.txt}\nfinal: 10\n"
HINT = (
    "a file named in an input file must be inside that file's directory, the directory of the file "
    "given on the command line or its git work tree; pass --allow-path DIR to allow another"
)
NO_LINK = "it is a symbolic link, and agentcost never writes through one"
INPUT = "it is an input of this run, and agentcost never modifies its inputs"


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """``proj/`` (a git work tree) with ``s.yaml`` naming ``d/t.txt``, a second directory ``e/`` and
    ``outside/`` beside it holding a secret under the same names; the current directory is their
    parent, and no GitHub Actions variable of the machine running the tests is set."""
    for name in ("GITHUB_ACTIONS", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"):
        monkeypatch.delenv(name, raising=False)
    proj, outside = tmp_path / "proj", tmp_path / "outside"
    for directory in (proj / ".git", proj / "d", proj / "e", proj / "sub", outside):
        directory.mkdir(parents=True)
    (proj / "s.yaml").write_text(SCENARIO, encoding="utf-8")
    for name in ("t.txt", "t.yaml"):
        (proj / "d" / name).write_text("inside\n" if name == "t.txt" else SUB, encoding="utf-8")
        (proj / "e" / name).write_text("elsewhere\n", encoding="utf-8")
        (outside / name).write_text("SECRET\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    files.forget_reads()
    yield tmp_path.resolve()
    files.forget_reads()


def swap(tree: Path, link: str | Path) -> None:
    """Replace the directory ``proj/d`` by a symlink to ``link``, as a local writer would."""
    os.rename(tree / "proj" / "d", tree / "proj" / "d.old")
    os.symlink(link, tree / "proj" / "d")


def escaped(target: Path) -> str:
    return f"it resolves to {target} when opened, outside the allowed directories ({HINT})"


# --------------------------------------------------------------------------------------------
# Item 11: the confinement check and the open are one walk
# --------------------------------------------------------------------------------------------

# Each channel: the module whose ``confine`` checks it, the naming file, its text, and the key and
# line of the reference, and the file named in proj/d/.
CHANNELS = {
    "include": ("build", "s.yaml", SCENARIO, "system.file", 4, "t.txt"),
    "subagent": (
        "subagents",
        "s.yaml",
        "version: 1\nmodel: gpt-5\ntask: hi\nrounds:\n  - {tool: x, call_tokens: 5, subagent: {file: d/t.yaml}}\n"
        "final: 10\n",
        "rounds[0].subagent.file",
        5,
        "t.yaml",
    ),
    "project path": (
        "project",
        "agentcost.yml",
        "version: 1\nscenarios:\n  - path: d/t.yaml\n",
        "scenarios[0].path",
        3,
        "t.yaml",
    ),
}


@pytest.mark.parametrize("channel", list(CHANNELS))
def test_a_directory_swapped_for_a_symlink_after_the_check_is_not_followed_outside(
    tree: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], channel: str
) -> None:
    """The swap happens right after ``confine`` passed the path (a wrapped ``confine``): the read
    refuses it with one line naming the reference and where it leads, and never opens the file
    outside (25 runs in 150 read it before)."""
    module, naming, text, key, line, name = CHANNELS[channel]
    (tree / "proj" / naming).write_text(text, encoding="utf-8")
    target = f"agentcost.scenario.{module}.confine"

    def hooked(*args: Path) -> Path:
        real = confine(*args)
        swap(tree, tree / "outside")
        return real

    monkeypatch.setattr(target, hooked)
    assert run(["estimate", f"proj/{naming}", *AS_OF, "-q"]) == 2
    out, err = capsys.readouterr()
    assert (out, err) == (
        "",
        f"agentcost: error: proj/{naming}:{line}: {key}: cannot read proj/d/{name}: "
        f"{escaped(tree / 'outside' / name)}\n",
    )
    assert not files.was_read((tree / "outside" / name).stat())


def hook_lstat(monkeypatch: pytest.MonkeyPatch, at: str, then: Callable[[], None]) -> None:
    """Run ``then`` once, right after the walk's ``lstat`` of the component ``at``: between the
    check of that component and its open."""
    original = files._lstat_at
    done: list[bool] = []

    def hooked(name: str, directory: int) -> os.stat_result:
        info = original(name, directory)
        if name == at and not done:
            done.append(True)
            then()
        return info

    monkeypatch.setattr(files, "_lstat_at", hooked)


def test_a_directory_swapped_between_its_lstat_and_its_open_is_walked_as_the_link(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Inside the walk: ``d`` is a directory when checked, a symlink to outside/ when opened. The
    ``O_NOFOLLOW`` open fails, the walk takes ``d`` again as the symlink it now is, and the real
    path it reaches is refused."""
    real = confine(Path("proj/d/t.txt"), Path("proj/s.yaml"))
    hook_lstat(monkeypatch, "d", lambda: swap(tree, tree / "outside"))
    with pytest.raises(files.Unreadable) as caught:
        files.read_text(real)
    assert caught.value.reason == escaped(tree / "outside" / "t.txt")
    assert not files.was_read((tree / "outside" / "t.txt").stat())


def test_the_file_swapped_between_its_lstat_and_its_open_is_refused(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last component: a regular file when checked, a symlink to the secret when opened."""
    real = confine(Path("proj/d/t.txt"), Path("proj/s.yaml"))

    def relink() -> None:
        os.rename(tree / "proj" / "d" / "t.txt", tree / "proj" / "d" / "old.txt")
        os.symlink(tree / "outside" / "t.txt", tree / "proj" / "d" / "t.txt")

    hook_lstat(monkeypatch, "t.txt", relink)
    with pytest.raises(files.Unreadable) as caught:
        files.read_text(real)
    assert caught.value.reason == escaped(tree / "outside" / "t.txt")


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd")
def test_a_directory_moved_outside_after_the_walk_opened_it_is_refused(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The walk holds ``d`` open when it is renamed to outside/: the path the walk built still looks
    inside, and the descriptor's own path (``/proc/self/fd``) is what is checked too."""
    real = confine(Path("proj/d/t.txt"), Path("proj/s.yaml"))
    hook_lstat(monkeypatch, "t.txt", lambda: os.rename(tree / "proj" / "d", tree / "outside" / "moved"))
    with pytest.raises(files.Unreadable) as caught:
        files.read_text(real)
    assert caught.value.reason == escaped(tree / "outside" / "moved" / "t.txt")


@pytest.mark.parametrize(
    ("link", "text"),
    [
        ("e", "elsewhere\n"),  # relative
        ("sub/../e", "elsewhere\n"),  # through .. after a directory the walk opened
        ("ABSOLUTE", "elsewhere\n"),  # absolute: the walk starts again from /
        ("d.old", "inside\n"),  # back to where it was
    ],
)
def test_a_swap_that_stays_inside_is_followed(tree: Path, link: str, text: str) -> None:
    """Symlinks met by the walk are resolved by the walk itself: one that leads inside the allowed
    directories is read, wherever it points there."""
    real = confine(Path("proj/d/t.txt"), Path("proj/s.yaml"))
    swap(tree, tree / "proj" / "e" if link == "ABSOLUTE" else link)
    assert files.read_text(real) == text


def test_without_dir_fd_the_real_path_is_checked_after_the_open(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fallback where ``dir_fd`` or ``O_NOFOLLOW`` are missing: opened by path, then refused by
    the real path of what was opened."""
    monkeypatch.setattr(files, "_WALK", False)
    real = confine(Path("proj/d/t.txt"), Path("proj/s.yaml"))
    assert files.read_text(real) == "inside\n"
    swap(tree, tree / "outside")
    with pytest.raises(files.Unreadable) as caught:
        files.read_text(real)
    assert caught.value.reason == escaped(tree / "outside" / "t.txt")


def _fifo(tree: Path) -> str:
    os.mkfifo(tree / "proj" / "d" / "x")
    return "x"


def _big(tree: Path) -> str:
    (tree / "proj" / "d" / "x").write_bytes(b"a" * 11)
    return "x"


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (_fifo, "is a named pipe (FIFO), not a regular file"),
        (lambda tree: "sub", "is a directory, not a file"),
        (lambda tree: "missing.txt", "file not found"),
        (lambda tree: "t.txt/x", "Not a directory"),
        (_big, "file too large: 11 bytes, over the limit of 10 bytes (real files stay far below it)"),
        (lambda tree: "loop", "Too many levels of symbolic links"),
    ],
    ids=["fifo", "directory", "missing", "under a file", "too large", "symlink loop"],
)
def test_the_walk_keeps_every_refusal_of_the_plain_read(
    tree: Path, make: Callable[[Path], str], reason: str
) -> None:
    """Regular files only (refused before the open, so a FIFO cannot block), the size limit, and the
    reasons the plain read gives, each as one line."""
    os.symlink("loop", tree / "proj" / "d" / "loop")
    name = make(tree)
    real = confine(tree / "proj" / ("sub" if name == "sub" else f"d/{name}"), Path("proj/s.yaml"))
    assert str(real) in files._CONFINED  # read by the walk
    with pytest.raises(files.Unreadable) as caught:
        files.read_text(real, limit=10)
    assert caught.value.reason == reason


# --------------------------------------------------------------------------------------------
# Item 8: GITHUB_STEP_SUMMARY, GITHUB_OUTPUT and -o
# --------------------------------------------------------------------------------------------

# Each case: what GITHUB_STEP_SUMMARY names (made by the function), and the refusal.
SUMMARIES: dict[str, tuple[Callable[[Path], Path], str]] = {
    "the scenario": (
        lambda tree: tree / "proj" / "s.yaml",
        f"{INPUT} (point GITHUB_STEP_SUMMARY at another file)",
    ),
    "a file it includes": (
        lambda tree: tree / "proj" / "d" / "t.txt",
        f"{INPUT} (point GITHUB_STEP_SUMMARY at another file)",
    ),
    "a hard link to the scenario": (
        lambda tree: _linked(os.link, tree / "proj" / "s.yaml", tree / "hard.yaml"),
        f"{INPUT} (point GITHUB_STEP_SUMMARY at another file)",
    ),
    "a symlink to another file": (
        lambda tree: _linked(os.symlink, tree / "outside" / "t.txt", tree / "summary.md"),
        f"{NO_LINK} (point GITHUB_STEP_SUMMARY at a regular file)",
    ),
    "a dangling symlink": (
        lambda tree: _linked(os.symlink, tree / "outside" / "new.md", tree / "summary.md"),
        f"{NO_LINK} (point GITHUB_STEP_SUMMARY at a regular file)",
    ),
    "a FIFO": (
        lambda tree: _linked(lambda _, fifo: os.mkfifo(fifo), tree, tree / "fifo"),
        "it is a pipe (FIFO), not a regular file (point GITHUB_STEP_SUMMARY at a regular file)",
    ),
}


def _linked(make: Callable[[Path, Path], None], target: Path, name: Path) -> Path:
    make(target, name)
    return name


def _state(tree: Path) -> dict[str, bytes | None]:
    """The bytes of every regular file under ``tree`` (None for a missing target of a link)."""
    found: dict[str, bytes | None] = {}
    for path in sorted(tree.rglob("*")):
        if path.is_symlink():
            found[str(path)] = os.readlink(path).encode()
        elif path.is_file():
            found[str(path)] = path.read_bytes()
    found["outside/new.md"] = (
        (tree / "outside" / "new.md").read_bytes() if (tree / "outside" / "new.md").exists() else None
    )
    return found


@pytest.mark.parametrize("case", list(SUMMARIES))
def test_a_step_summary_that_is_an_input_a_symlink_or_no_file_is_refused_unchanged(
    tree: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    """Exit 2 with one line, before any report is written, and no file changed (the scenario was
    appended to before; a symlink was written through)."""
    make, refusal = SUMMARIES[case]
    summary = make(tree)
    before = _state(tree)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert run(["estimate", "proj/s.yaml", *AS_OF, "-q", "--summary"]) == 2
    assert capsys.readouterr() == (
        "",
        f"agentcost: error: {summary}: --summary: cannot append the report to GITHUB_STEP_SUMMARY: {refusal}\n",
    )
    assert _state(tree) == before


def test_a_step_summary_that_is_a_regular_file_is_appended_to(
    tree: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The control: GitHub's own summary file, or a new one, gets the Markdown report appended."""
    summary = tree / "summary.md"
    summary.write_text("before\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert run(["estimate", "proj/s.yaml", *AS_OF, "-q", "--summary"]) == 0
    assert capsys.readouterr().out == "0.0001175\n"
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("before\n#### agentcost: proj/s.yaml\n\n**$0.0001** per run on `gpt-5`")


@pytest.mark.parametrize("case", ["the base", "a symlink"])
def test_github_output_that_is_an_input_or_a_symlink_is_refused_unchanged(
    tree: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    """``diff --comment github`` appends ``changed=`` to GITHUB_OUTPUT: never to an input of the run,
    never through a symlink."""
    (tree / "b.yaml").write_text(SUB.replace("10", "20"), encoding="utf-8")
    (tree / "a.yaml").write_text(SUB, encoding="utf-8")
    output = tree / ("a.yaml" if case == "the base" else "out.txt")
    if case == "a symlink":
        output.symlink_to(tree / "outside" / "t.txt")
    before = _state(tree)
    monkeypatch.setenv("GITHUB_OUTPUT", str(output))
    assert run(["diff", "a.yaml", "b.yaml", *AS_OF, "--comment", "github"]) == 2
    refusal = (
        f"{INPUT} (point GITHUB_OUTPUT at another file)"
        if case == "the base"
        else f"{NO_LINK} (point GITHUB_OUTPUT at a regular file)"
    )
    assert capsys.readouterr() == (
        "",
        f"agentcost: error: {output}: --comment: cannot append to GITHUB_OUTPUT: {refusal}\n",
    )
    assert _state(tree) == before


def test_a_symlink_that_appears_after_the_check_is_not_appended_through(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Swapped in between ``check_append`` and the open: ``O_NOFOLLOW`` refuses it."""
    summary = tree / "summary.md"
    summary.write_text("mine\n", encoding="utf-8")
    original = writes.check_append

    def hooked(path: str, variable: str) -> None:
        original(path, variable)
        summary.unlink()
        summary.symlink_to(tree / "outside" / "t.txt")

    monkeypatch.setattr(writes, "check_append", hooked)
    with pytest.raises(writes.Refused) as caught:
        writes.append_output(str(summary), "report\n", "GITHUB_STEP_SUMMARY")
    assert (caught.value.reason, caught.value.hint) == (
        NO_LINK,
        "point GITHUB_STEP_SUMMARY at a regular file",
    )
    assert (tree / "outside" / "t.txt").read_text(encoding="utf-8") == "SECRET\n"


def test_an_input_is_refused_on_the_opened_descriptor_too(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check on the path skipped: the one on the opened file still finds an input of the run."""
    files.read_file(tree / "proj" / "s.yaml")
    monkeypatch.setattr(writes, "check_append", lambda path, variable: None)
    with pytest.raises(writes.Refused) as caught:
        writes.append_output(str(tree / "proj" / "s.yaml"), "changed=true\n", "GITHUB_OUTPUT")
    assert caught.value.reason == INPUT
    assert (tree / "proj" / "s.yaml").read_text(encoding="utf-8") == SCENARIO


@pytest.mark.parametrize("target", ["t.txt", "new.md"], ids=["to a file", "dangling"])
def test_output_through_a_symlink_is_refused(
    tree: Path, capsys: pytest.CaptureFixture[str], target: str
) -> None:
    """``-o`` naming a symlink (committed in a checkout, pointing outside it) is refused before the
    run; the link stays, its target is neither written nor created."""
    (tree / "report.md").symlink_to(tree / "outside" / target)
    before = _state(tree)
    assert run(["estimate", "proj/s.yaml", *AS_OF, "-o", "report.md"]) == 2
    assert capsys.readouterr() == (
        "",
        "agentcost: error: report.md: --output: is a symbolic link: agentcost never writes through one "
        "(give the path of the file itself, or another file name)\n",
    )
    assert _state(tree) == before


def test_output_that_becomes_a_symlink_before_the_rename_is_refused(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The name is checked again just before the rename: a symlink that appeared while the report
    was written is neither written through nor replaced, and no temporary file is left."""
    original = writes._create_beside

    def hooked(directory: str, name: str, dir_fd: int | None) -> tuple[int, str]:
        created = original(directory, name, dir_fd)
        (tree / name).symlink_to(tree / "outside" / "t.txt")
        return created

    monkeypatch.setattr(writes, "_create_beside", hooked)
    with pytest.raises(InputError) as caught:
        writes.write_output("report.md", "report\n")
    assert str(caught.value) == (
        "report.md: --output: is a symbolic link: agentcost never writes through one "
        "(give the path of the file itself, or another file name)"
    )
    assert (tree / "report.md").is_symlink()
    assert (tree / "outside" / "t.txt").read_text(encoding="utf-8") == "SECRET\n"
    assert sorted(p.name for p in tree.iterdir()) == ["outside", "proj", "report.md"]


def test_output_is_written_beside_its_name_atomically(tree: Path) -> None:
    """The control: a new file and a replaced one, through a relative and an absolute name."""
    writes.write_output("report.md", "one\n")
    writes.write_output(tree / "proj" / "r.md", "two\n")
    writes.write_output("report.md", "three\n")
    assert (tree / "report.md").read_text(encoding="utf-8") == "three\n"
    assert (tree / "proj" / "r.md").read_text(encoding="utf-8") == "two\n"
    assert sorted(p.name for p in tree.iterdir()) == ["outside", "proj", "report.md"]
