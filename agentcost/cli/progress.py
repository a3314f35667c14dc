"""A spinner on stderr for slow work: shown only once the work has taken half a second, erased first.

Cold runs, ``estimate --explain`` and a ``compare`` of a hundred models take seconds and would
otherwise show nothing. :func:`spinning` wraps a command's run (``agentcost.cli.core.guarded_run``): when
standard error is a terminal (not ``TERM=dumb``) and the command line has no ``--quiet``, a thread
waits :data:`DELAY` seconds and, if the run has not ended by then, draws one line (a frame and a
few words: ``tokenizing``, ``pricing 126 models``). The line is erased before every line the run
writes to standard error (and drawn again below it), and for good before the run's first write to
standard output (the report) or its end: nothing of it stays on the screen or in the output.
:func:`working` changes the words, :func:`stop` ends it early (``estimate --simulate`` has a
progress bar of its own). No Rich, no colour: a carriage return and spaces draw and erase it.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Protocol

from agentcost.cli.colour import is_terminal

DELAY = 0.5  # seconds of work before the spinner shows
INTERVAL = 0.1  # seconds between two frames
WIDEST = 60  # characters of the line at most (and less than the terminal is wide): a wrapped line
# could not be erased by a carriage return

_FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
_ASCII_FRAMES = "|/-\\"

# What each command is doing, until it says more (:func:`working`). Not listed: no spinner.
_LABELS = {
    "estimate": "tokenizing",
    "compare": "pricing models",
    "diff": "estimating both sides",
    "replay": "replaying",
    "calibrate": "calibrating",
    "models": "listing models",
    "prices": "looking up prices",
}


class Waiter(Protocol):
    """What the spinner waits on: a :class:`threading.Event` (a test passes a fake one)."""

    def wait(self, timeout: float | None = None) -> bool: ...

    def set(self) -> None: ...


class Spinner:
    """One line on ``stream`` that turns while the work goes on: nothing until ``done`` has not been
    set for ``delay`` seconds, then a frame every ``interval`` seconds, erased once ``done`` is set.
    :meth:`run` is the thread's body; :meth:`start` runs it on a daemon thread, :meth:`stop` ends it,
    :meth:`around` erases it for a line written between two frames."""

    def __init__(
        self,
        stream: Any,
        label: str,
        *,
        delay: float = DELAY,
        interval: float = INTERVAL,
        done: Waiter | None = None,
        width: int = WIDEST,
    ) -> None:
        self.label = label
        self._width = width
        self._stream = stream
        self._delay = delay
        self._interval = interval
        self._done: Waiter = done if done is not None else threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()  # one writer at a time: a frame, an erasure or a line between
        self._drawn = 0  # characters of the frame on the screen now
        encoding = str(getattr(stream, "encoding", None) or "").lower().replace("_", "-")
        self._frames = _FRAMES if encoding in ("utf-8", "utf8") else _ASCII_FRAMES
        self._ellipsis = "…" if self._frames is _FRAMES else "..."

    def start(self) -> None:
        self._thread = threading.Thread(target=self.run, name="agentcost-spinner", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """End the spinner: never shown if it has not shown yet; erased if it has. Waits for the
        thread, so that the line is gone when this returns."""
        self._done.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join()
        with self._lock:
            self._erase()

    def around(self, write: Callable[[], int]) -> int:
        """``write()`` of a whole line on the spinner's terminal: the frame erased first, drawn again
        (on the next line) at the next turn."""
        with self._lock:
            self._erase()
            return write()

    def run(self) -> None:
        if self._done.wait(self._delay):
            return  # the work ended first: nothing written
        frame = 0
        while True:
            text = f"{self._frames[frame % len(self._frames)]} {self.label}{self._ellipsis}"[: self._width]
            with self._lock:
                if self._done.wait(0):
                    return
                if not self._write("\r" + text.ljust(self._drawn)):
                    return
                self._drawn = max(len(text), self._drawn)
            if self._done.wait(self._interval):
                return
            frame += 1

    def _erase(self) -> None:
        if self._drawn:
            self._write("\r" + " " * self._drawn + "\r")
            self._drawn = 0

    def _write(self, text: str) -> bool:
        try:
            self._stream.write(text)
            self._stream.flush()
        except (OSError, ValueError):  # stderr closed or gone: the spinner ends quietly
            self._done.set()
            self._drawn = 0
            return False
        return True


class _Erasing:
    """A standard stream while a spinner may show. Standard output: the spinner ends (erased) before
    the first text (the report: the work is done). Standard error (``lines``): a whole line is
    written with the spinner erased, and it turns on below it; anything else ends it."""

    def __init__(self, stream: Any, spinner: Spinner, *, lines: bool = False) -> None:
        self._stream = stream
        self._spinner = spinner
        self._lines = lines

    def write(self, text: str) -> int:
        if not isinstance(text, str):  # a text stream, as click's probe for a binary one must see
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        if not text:
            return int(self._stream.write(text))
        if self._lines and text.endswith("\n"):
            return self._spinner.around(lambda: self._write(text))
        self._spinner.stop()
        return int(self._stream.write(text))

    def _write(self, text: str) -> int:
        written = int(self._stream.write(text))
        self._stream.flush()  # on the screen before the next frame
        return written

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:  # flush, isatty, encoding, fileno...
        return getattr(self._stream, name)


_active: Spinner | None = None


def working(label: str) -> None:
    """Say what the run is doing now, in a few words (``pricing 126 models``); nothing without a spinner."""
    if _active is not None:
        _active.label = label


def stop() -> None:
    """Erase the spinner if it shows, and keep it from showing (before a progress bar of its own)."""
    if _active is not None:
        _active.stop()


def wanted(argv: Sequence[str], stream: Any) -> str | None:
    """The spinner's first words for this command line, or None when it shows no spinner: a command
    not in the list (``schema``, ``--help``), ``--quiet``, or ``stream`` not a terminal or ``TERM=dumb``."""
    args = list(argv[: argv.index("--")] if "--" in argv else argv)
    command = next((a for a in args if not a.startswith("-")), None)
    label = _LABELS.get(command or "")
    if label is None or any(a in ("-h", "--help", "--quiet") or _short_q(a) for a in args):
        return None
    if os.environ.get("TERM", "").strip().lower() == "dumb" or not is_terminal(stream):
        return None
    return label


def _short_q(arg: str) -> bool:
    """``-q`` or a cluster of short flags holding it (``-qc``)."""
    return arg.startswith("-") and not arg.startswith("--") and "q" in arg[1:]


@contextmanager
def spinning(argv: Sequence[str]) -> Iterator[None]:
    """Run the block with a spinner on stderr when :func:`wanted` says so: lines on standard error are
    written with it erased, the first write to standard output ends it, and so does the block's end."""
    global _active
    label = wanted(argv, sys.stderr)
    if label is None or _active is not None:
        yield
        return
    try:
        width = min(WIDEST, os.get_terminal_size(sys.stderr.fileno()).columns - 1)
    except (OSError, ValueError, AttributeError):
        width = WIDEST
    spinner = Spinner(sys.stderr, label, width=max(width, 1))
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Erasing(out, spinner), _Erasing(err, spinner, lines=True)
    _active = spinner
    spinner.start()
    try:
        yield
    finally:
        spinner.stop()
        _active = None
        sys.stdout, sys.stderr = out, err
