"""Colour on a terminal only, and a spinner for slow work (issue 14, items 7 and 8).

Colour follows NO_COLOR, FORCE_COLOR, TERM=dumb and whether the stream is a terminal
(agentcost.cli.colour); it never changes the text: the coloured output without its colour codes is
the plain output, byte for byte. The spinner (agentcost.cli.progress) is driven here by a fake
clock, never by timing; the subprocess tests run the CLI under a real pseudo-terminal.
"""

from __future__ import annotations

import io
import json
import os
import re
import select
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agentcost.cli import progress as cli_progress
from agentcost.cli import run
from agentcost.cli.colour import colour_system, coloured
from agentcost.cli.progress import Spinner, spinning, wanted
from agentcost.infra.text import guard
from agentcost.render.output import guard_styled
from tests.conftest import copy_seed

SGR = re.compile("\x1b\\[[0-9;]*m")
RED_ERROR = "\x1b[31magentcost: error:\x1b[0m"
RED_GATE = "\x1b[31magentcost: gate failed:\x1b[0m"


SCENARIO = """\
version: 1
name: colour check
model: gpt-4o
caching: none
system: {tokens: 500}
tools:
  - {name: search, description: Search the web., input_schema: {type: object}}
task: {tokens: 100}
rounds:
  - {tool: search, call_tokens: 20, result: {tokens: 1000}}
final: {tokens: 200}
"""


def strip(text: str) -> str:
    return SGR.sub("", text)


# --------------------------------------------------------------------------------------------
# When: the conventions
# --------------------------------------------------------------------------------------------


class Stream:
    def __init__(self, tty: bool | None) -> None:
        self.tty = tty

    def isatty(self) -> bool:
        if self.tty is None:
            raise ValueError("I/O operation on closed file")
        return self.tty


@pytest.mark.parametrize(
    ("tty", "env", "expected"),
    [
        (True, {}, "standard"),
        (True, {"TERM": "xterm-256color"}, "256"),
        (True, {"TERM": "xterm", "COLORTERM": "truecolor"}, "truecolor"),
        (True, {"NO_COLOR": "1"}, None),
        (True, {"NO_COLOR": ""}, "standard"),  # set but empty: not set (no-color.org)
        (True, {"NO_COLOR": "1", "FORCE_COLOR": "1"}, None),  # NO_COLOR first
        (True, {"TERM": "dumb"}, None),
        (True, {"TERM": "DUMB "}, None),
        (False, {}, None),
        (False, {"FORCE_COLOR": "1"}, "standard"),
        (False, {"FORCE_COLOR": "1", "TERM": "xterm-256color"}, "256"),
        (False, {"FORCE_COLOR": ""}, None),
        (False, {"FORCE_COLOR": "1", "TERM": "dumb"}, "standard"),  # FORCE_COLOR before TERM=dumb
        (None, {}, None),  # a closed stream
    ],
)
def test_colour_system_follows_the_conventions(
    tty: bool | None, env: dict[str, str], expected: str | None
) -> None:
    assert colour_system(Stream(tty), env) == expected


def test_only_the_prefix_of_a_stderr_line_is_coloured() -> None:
    line = "agentcost: gate failed: cost $0.12 is over the budget $0.10"
    assert coloured(line, True) == RED_GATE + " cost $0.12 is over the budget $0.10"
    assert coloured("agentcost: note: skipped", True) == "\x1b[33magentcost: note:\x1b[0m skipped"
    assert coloured(line, False) == line
    assert coloured("wrote x.yaml: 3 requests", True) == "wrote x.yaml: 3 requests"
    for text in (line, "agentcost: error: x", "note: y", "agentcost: warning: z"):
        assert strip(coloured(text, True)) == text


# --------------------------------------------------------------------------------------------
# The last pass: colour codes kept, nothing else
# --------------------------------------------------------------------------------------------


def test_guard_styled_keeps_colour_codes_and_nothing_else() -> None:
    styled = "\x1b[1mtotal\x1b[0m  \x1b[32m$0.05\x1b[0m\n"
    assert guard_styled(styled) == styled
    # any other control character, a line that would start a workflow command once the colour
    # codes are gone, or "##[" split by one: the colour goes, and the text is guarded as plain text
    for raw in ("\x1b]0;title\x07 \x1b[1mx\x1b[0m\n", "\x1b[1m::error::x\x1b[0m\n", "#\x1b[1m#[x\x1b[0m\n"):
        safe = guard_styled(raw)
        assert safe == guard(strip(raw), "text")
        assert "\x1b" not in safe and "\x07" not in safe
        assert not safe.lstrip().startswith("::") and "##[" not in safe


# --------------------------------------------------------------------------------------------
# The CLI, in process: FORCE_COLOR into a pipe, and the same text without it
# --------------------------------------------------------------------------------------------


@pytest.fixture
def scenario(tmp_path: Path) -> Path:
    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO, encoding="utf-8")
    return path


def both(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *argv: str) -> list[str]:
    """stdout and stderr of ``argv`` run plain (NO_COLOR) and with FORCE_COLOR=1, into a pipe."""
    results = []
    for env in ({"NO_COLOR": "1"}, {"FORCE_COLOR": "1"}):
        for name in ("NO_COLOR", "FORCE_COLOR"):
            monkeypatch.delenv(name, raising=False)
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        code = run(list(argv))
        out, err = capsys.readouterr()
        assert code in (0, 1), err
        results += [out, err]
    return results


@pytest.mark.usefixtures("fixed_terminal", "no_ctok")
@pytest.mark.parametrize(
    "argv",
    [
        ["estimate", "{s}", "--budget", "0.0001"],
        ["compare", "{s}", "-m", "gpt-4o", "-m", "gpt-4o-mini"],
        ["models", "gpt-4o"],
    ],
    ids=["estimate", "compare", "models"],
)
def test_force_color_colours_a_pipe_and_changes_no_text(
    argv: list[str], scenario: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out, err, coloured_out, coloured_err = both(capsys, monkeypatch, *(a.format(s=scenario) for a in argv))
    assert "\x1b" not in out + err
    assert SGR.search(coloured_out)
    assert strip(coloured_out) == out
    assert strip(coloured_err) == err
    assert "\x1b" not in strip(coloured_out)  # colour codes are the only escapes
    if argv[0] == "estimate":
        assert coloured_err.startswith(RED_GATE)


@pytest.mark.usefixtures("fixed_terminal", "no_ctok")
def test_no_colour_in_files_or_other_formats(
    scenario: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("FORCE_COLOR", "1")
    report = tmp_path / "report.txt"
    assert run(["estimate", str(scenario), "-o", str(report)]) == 0
    assert "\x1b" not in report.read_text(encoding="utf-8")
    for fmt in ("json", "markdown", "csv"):
        assert run(["estimate", str(scenario), "-f", fmt]) == 0
        assert "\x1b" not in capsys.readouterr().out, fmt
    assert run(["estimate", str(scenario), "--quiet"]) == 0
    assert "\x1b" not in capsys.readouterr().out
    assert run(["estimate", str(tmp_path / "missing.yaml")]) == 2
    assert capsys.readouterr().err.startswith(RED_ERROR)


@pytest.mark.usefixtures("fixed_terminal", "no_ctok")
def test_hostile_names_stay_escaped_in_colour(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """User text is escaped before Rich styles it: in colour, the colour codes are the only escapes."""
    path = tmp_path / "h.yaml"
    hostile = json.dumps("evil\x1b[2J\x1b]0;pwned\x07\u202e::error::x")  # YAML's double quotes
    path.write_text(SCENARIO.replace("search", hostile).replace("colour check", hostile), encoding="utf-8")
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert run(["estimate", str(path)]) == 0
    out = capsys.readouterr().out
    assert SGR.search(out)
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]", strip(out))
    assert "\\x1b[2J" in out


# --------------------------------------------------------------------------------------------
# The spinner, on a fake clock
# --------------------------------------------------------------------------------------------


class FakeClock:
    """What the spinner waits on, with time that passes only when it waits: ``wait(t)`` moves the
    clock ``t`` on (running what is due at each whole time) and says whether the work is done,
    which it is from ``end`` on."""

    def __init__(self, end: float, at: dict[float, Callable[[], object]] | None = None) -> None:
        self.now = 0.0
        self.end = end
        self.at = dict(at or {})

    def wait(self, timeout: float | None = None) -> bool:
        if self.now < self.end:
            self.now += timeout or 0
            for when in sorted(w for w in self.at if w <= self.now):
                self.at.pop(when)()
        return self.now >= self.end

    def set(self) -> None:
        self.end = min(self.end, self.now)


def screen(written: str) -> str:
    """The last line as a terminal shows it after a write of carriage returns and text."""
    line: list[str] = []
    col = 0
    for char in written.rsplit("\n", 1)[-1]:
        if char == "\r":
            col = 0
            continue
        line[col : col + 1] = [char]
        col += 1
    return "".join(line)


def spinner(clock: FakeClock, stream: Any = None) -> tuple[Spinner, Any]:
    out = stream if stream is not None else io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    return Spinner(out, "tokenizing", delay=5, interval=1, done=clock), out


def written(stream: Any) -> str:
    stream.flush()
    return str(stream.buffer.getvalue().decode(stream.encoding))


def test_a_spinner_never_writes_when_the_work_ends_before_the_delay() -> None:
    clock = FakeClock(end=4.9)
    spin, out = spinner(clock)
    spin.run()
    spin.stop()
    assert written(out) == ""
    assert clock.now == 5  # it waited the delay once, and drew nothing


def test_a_spinner_turns_after_the_delay_and_is_erased() -> None:
    clock = FakeClock(end=8)
    spin, out = spinner(clock)
    spin.run()  # frames at 5, 6 and 7; done at 8
    text = written(out)
    assert text == "\r⠋ tokenizing…\r⠙ tokenizing…\r⠹ tokenizing…"
    spin.stop()
    text = written(out)
    assert text.endswith("\r" + " " * len("⠋ tokenizing…") + "\r")
    assert screen(text).strip() == ""


def test_a_line_on_stderr_erases_the_spinner_which_turns_on_below_it() -> None:
    clock = FakeClock(end=8)
    spin, out = spinner(clock)
    clock.at = {
        6: lambda: spin.around(lambda: out.write("agentcost: note: skipped 3 models\n")),
        7: lambda: setattr(spin, "label", "pricing 126 models"),
    }
    spin.run()
    spin.stop()
    text = written(out)
    first, second = text.split("\n")
    assert screen(first) == "agentcost: note: skipped 3 models"  # the frame erased first
    assert "⠙ tokenizing…" in second and "⠹ pricing 126 models…" in second
    assert screen(text).strip() == ""


def test_a_spinner_on_an_ascii_stream_draws_ascii() -> None:
    clock = FakeClock(end=6)
    out = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    spin, _ = spinner(clock, out)
    spin.run()
    assert written(out) == "\r| tokenizing..."


def test_a_spinner_on_a_closed_stream_ends_quietly() -> None:
    out = io.StringIO()
    out.close()
    spin, _ = spinner(FakeClock(end=8), out)
    spin.run()  # no exception
    spin.stop()


def test_the_report_erases_the_spinner_before_it_is_written() -> None:
    clock = FakeClock(end=6)
    spin, err = spinner(clock)
    spin.run()  # one frame on the screen; the work goes on
    stdout = io.StringIO()
    erasing = cli_progress._Erasing(stdout, spin)
    erasing.write("report\n")
    assert stdout.getvalue() == "report\n"
    assert screen(written(err)).strip() == ""  # erased before the report
    with pytest.raises(TypeError):  # a text stream: click's probe for a binary one must fail
        erasing.write(b"")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("argv", "tty", "term", "expected"),
    [
        (["estimate", "s.yaml"], True, "xterm", "tokenizing"),
        (["compare", "s.yaml", "-m", "gpt-5"], True, "xterm", "pricing models"),
        (["estimate", "s.yaml", "--quiet"], True, "xterm", None),
        (["estimate", "-q", "s.yaml"], True, "xterm", None),
        (["estimate", "-qc", "s.yaml"], True, "xterm", None),
        (["estimate", "s.yaml", "--", "-q"], True, "xterm", "tokenizing"),
        (["estimate", "--help"], True, "xterm", None),
        (["schema"], True, "xterm", None),
        (["estimate", "s.yaml"], False, "xterm", None),
        (["estimate", "s.yaml"], True, "dumb", None),
    ],
)
def test_when_a_spinner_may_show(
    argv: list[str], tty: bool, term: str, expected: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TERM", term)
    assert wanted(argv, Stream(tty)) == expected


def test_no_terminal_no_spinner_and_no_wrapping() -> None:
    out, err = sys.stdout, sys.stderr
    with spinning(["estimate", "s.yaml"]):  # pytest's stderr is no terminal
        assert sys.stdout is out and sys.stderr is err
        assert cli_progress._active is None


# --------------------------------------------------------------------------------------------
# The CLI under a real pseudo-terminal (7 runs)
# --------------------------------------------------------------------------------------------

pty_only = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory, _seed_database: Path) -> Iterator[tuple[Path, Path]]:
    """A scenario and a cache shared by the runs below: only the first is cold."""
    home = tmp_path_factory.mktemp("colour")
    (home / "s.yaml").write_text(SCENARIO, encoding="utf-8")
    copy_seed(_seed_database, home / "cache")  # the shipped scenarios' price rows and facts
    yield home / "s.yaml", home / "cache"


def agentcost(
    shared: tuple[Path, Path],
    *,
    stdout_tty: bool,
    stderr_tty: bool,
    extra: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
) -> tuple[int, str, str]:
    """Run ``agentcost estimate SCENARIO`` with stdout and/or stderr on a pseudo-terminal 120 columns
    wide (raw: no newline translation); returns the exit code, what reached the terminal, and what
    reached the pipe (stdout if not a terminal, else stderr)."""
    import fcntl
    import struct
    import termios
    import tty

    path, cache = shared
    base = {k: v for k, v in os.environ.items() if k not in _COLOUR_VARIABLES}
    base.update(XDG_CACHE_HOME=str(cache), COLUMNS="120", LINES="40", TERM="xterm-256color")
    base.update(env or {})
    master, slave = os.openpty()
    tty.setraw(slave)
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentcost", "estimate", str(path), *extra],
        stdin=slave,
        stdout=slave if stdout_tty else subprocess.PIPE,
        stderr=slave if stderr_tty else subprocess.PIPE,
        env=base,
    )
    os.close(slave)
    chunks = []
    try:
        while select.select([master], [], [], 60)[0]:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(master)
    pipe = proc.stdout if proc.stdout is not None else proc.stderr
    with proc:  # closes the pipe
        piped = pipe.read().decode("utf-8") if pipe is not None else ""
        code = proc.wait(timeout=60)
    return code, b"".join(chunks).decode("utf-8"), piped


_COLOUR_VARIABLES = frozenset(
    {"FORCE_COLOR", "NO_COLOR", "COLORTERM", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "GITHUB_ACTIONS"}
)


def piped(shared: tuple[Path, Path], **env: str) -> str:
    path, cache = shared
    base = {k: v for k, v in os.environ.items() if k not in _COLOUR_VARIABLES}
    base.update(XDG_CACHE_HOME=str(cache), COLUMNS="120", TERM="xterm-256color", **env)
    done = subprocess.run(
        [sys.executable, "-m", "agentcost", "estimate", str(path)],
        capture_output=True,
        text=True,
        env=base,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pty_only
def test_colour_on_a_terminal_only(shared: tuple[Path, Path]) -> None:
    code, on_tty, _ = agentcost(shared, stdout_tty=True, stderr_tty=False)  # the cold run
    assert code == 0
    plain = piped(shared)
    assert "\x1b" not in plain
    assert SGR.search(on_tty)
    assert strip(on_tty) == plain
    # NO_COLOR at a terminal, end to end (TERM=dumb takes the same path: test_colour_system_follows...)
    code, text, _ = agentcost(shared, stdout_tty=True, stderr_tty=False, env={"NO_COLOR": "1"})
    assert (code, text) == (0, plain)
    forced = piped(shared, FORCE_COLOR="1")
    assert SGR.search(forced)
    assert strip(forced) == plain


@pty_only
def test_stderr_colours_a_tripped_gate_at_a_terminal(shared: tuple[Path, Path]) -> None:
    code, text, _ = agentcost(shared, stdout_tty=True, stderr_tty=True, extra=("--budget", "0.000001"))
    assert code == 1
    assert RED_GATE in text
