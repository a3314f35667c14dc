"""Where output goes: ``--output`` files (atomically, never over an input) and standard output's faults.

``--output FILE`` is refused (:class:`~agentcost.errors.InputError`, exit 2) when FILE is an input of
the run (any file :func:`agentcost.infra.files.read_file` read since the run began, whatever its name:
symlinks and hard links are the same file), a directory (also a name ending in ``/``), or anything
but a regular file: a device, a FIFO, a socket. ``-o /dev/null`` and ``-o /dev/stdout`` are refused
rather than replaced or written through (as root, a rename would turn ``/dev/null`` into a regular
file): leave out ``-o`` to write to standard output, and redirect that (``> /dev/null``). The file is
written to a temporary file beside it and renamed over it, so readers see the old report or the new
one, never half; a new file gets the mode a plain ``open()`` gives (``0o666`` less the umask), an
existing file keeps its mode (and, where allowed, its owner). A symlink is followed: its target is
replaced, the link stays.

Standard output: :class:`GuardedStdout` turns a failed write into :class:`StdoutFailed` (not an
``OSError``, which Click would turn into exit 1), and :func:`stdout_failed` ends the run: a closed pipe
(``agentcost estimate s.yaml | head -1``) quietly with exit 0, a full disk or a closed stdout with a
one-line message and exit 2. :func:`tolerant_encoding` keeps a non-UTF-8 stdout (``PYTHONIOENCODING=
ascii``) from failing on the first non-ASCII character: it is written backslash-escaped.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
from pathlib import Path
from typing import Any

OUTPUT_KEY = "--output"

_KINDS = (
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
)

# --------------------------------------------------------------------------------------------
# --output files
# --------------------------------------------------------------------------------------------


def check_output(path: Path | str, key: str = OUTPUT_KEY) -> os.stat_result | None:
    """Refuse an ``--output`` that is a directory, not a regular file, or an input of this run; return
    what ``stat`` says of the existing file (None: there is none yet)."""
    from agentcost.errors import InputError
    from agentcost.infra.files import was_read

    name = os.fspath(path)
    try:
        info = os.stat(name)
    except FileNotFoundError:
        info = None
    except OSError as err:  # not a directory on the way, permission denied, a loop of symlinks
        raise InputError(f"cannot write the report: {err.strerror}", file=name, key=key) from None
    except ValueError:  # a NUL in the name
        raise InputError("not a usable file name", key=key) from None
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise InputError("is a directory, not a file", file=name, key=key, hint="give a file name")
    if name.endswith(("/", os.sep)):
        raise InputError(
            "names a directory (it ends in /), not a file", file=name, key=key, hint="give a file name"
        )
    if info is None:
        return None
    if not stat.S_ISREG(info.st_mode):
        kind = next((k for test, k in _KINDS if test(info.st_mode)), "not a regular file")
        raise InputError(
            f"is {kind}, not a regular file: agentcost writes reports to regular files only",
            file=name,
            key=key,
            hint=f"leave out {key} to write to standard output, and redirect that",
        )
    if was_read(info):
        raise InputError(
            "is an input of this run: writing the report there would replace it",
            file=name,
            key=key,
            hint="give another file name",
        )
    return info


def write_output(path: Path | str, text: str, *, newline: str = "", key: str = OUTPUT_KEY) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically, after :func:`check_output`: a temporary file in
    the same directory, renamed over ``path``. A new file gets ``open()``'s mode, an existing one keeps
    its own. ``OSError`` when the directory cannot be written."""
    info = check_output(path, key)
    target = os.path.realpath(path)  # a symlink: replace its target, keep the link
    fd, tmp = _create_beside(target)
    try:
        if info is not None:
            os.fchmod(fd, stat.S_IMODE(info.st_mode))
            if hasattr(os, "fchown") and (info.st_uid, info.st_gid) != (os.getuid(), os.getgid()):
                with contextlib.suppress(OSError):  # only root may give a file away: else the writer's
                    os.fchown(fd, info.st_uid, info.st_gid)
        with os.fdopen(fd, "w", encoding="utf-8", newline=newline) as handle:  # closes fd
            handle.write(text)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _create_beside(target: str) -> tuple[int, str]:
    """A new, empty file beside ``target`` (its descriptor and name), created with mode ``0o666``: the
    system applies the umask (and a default ACL) as for any ``open()``."""
    directory, name = os.path.split(target)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    for _ in range(100):
        tmp = os.path.join(directory or ".", f".{name}.{os.urandom(6).hex()}.tmp")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary file name", directory or ".")


# --------------------------------------------------------------------------------------------
# Standard output
# --------------------------------------------------------------------------------------------


class StdoutFailed(Exception):
    """Writing standard output failed (``error``; None: standard output is closed). Not an
    ``OSError``, so that no layer in between mistakes it for an input file's error."""

    def __init__(self, error: OSError | None) -> None:
        super().__init__(str(error) if error is not None else "standard output is closed")
        self.error = error

    @property
    def broken_pipe(self) -> bool:
        """The reader went away (``| head``): nothing is wrong, there is just no one left to read."""
        return self.error is not None and self.error.errno in (errno.EPIPE, getattr(errno, "ESHUTDOWN", -1))


class GuardedStdout:
    """``sys.stdout`` while a command runs: writes go through to ``stream``; a failure raises
    :class:`StdoutFailed`. Text only (no ``buffer``), so that bytes cannot go around it."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        if self._stream is None:
            raise StdoutFailed(None)
        try:
            return int(self._stream.write(text))
        except OSError as err:
            raise StdoutFailed(err) from None

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if self._stream is None:
            return
        try:
            self._stream.flush()
        except OSError as err:
            raise StdoutFailed(err) from None

    def isatty(self) -> bool:
        return self._stream is not None and bool(self._stream.isatty())

    def __getattr__(self, name: str) -> Any:  # fileno, encoding, errors, ...
        if name == "buffer" or self._stream is None:
            raise AttributeError(name)
        return getattr(self._stream, name)


class QuietStderr:
    """``sys.stderr`` for the console script: once a write or flush fails (a full disk, a closed
    descriptor) this message and every later one are dropped instead of raising, so the exit code
    stays the run's own (2 for bad input, 1 for a tripped gate): a run has nowhere else to say it.
    What is still buffered then goes to ``/dev/null``, so Python's flush at exit cannot fail (120)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self._failed = stream is None

    def write(self, text: str) -> int:
        if not self._failed:
            try:
                return int(self._stream.write(text))
            except OSError:
                self._fail()
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if not self._failed:
            try:
                self._stream.flush()
            except OSError:
                self._fail()

    def isatty(self) -> bool:
        return not self._failed and bool(self._stream.isatty())

    def _fail(self) -> None:
        self._failed = True
        _to_devnull(self._stream)

    def __getattr__(self, name: str) -> Any:  # fileno, encoding, errors, ...
        if name == "buffer" or self._stream is None:
            raise AttributeError(name)
        return getattr(self._stream, name)


def tolerant_encoding(stream: Any) -> None:
    """A stream that cannot encode every character (``PYTHONIOENCODING=ascii``) writes those it cannot
    backslash-escaped, instead of failing; a UTF-8 stream is left as it is."""
    encoding = str(getattr(stream, "encoding", None) or "utf-8").lower().replace("_", "-")
    if encoding in ("utf-8", "utf8") or getattr(stream, "errors", None) != "strict":
        return
    reconfigure = getattr(stream, "reconfigure", None)
    if callable(reconfigure):
        with contextlib.suppress(OSError, ValueError, TypeError):
            reconfigure(errors="backslashreplace")


def _to_devnull(stream: Any) -> None:
    """Point ``stream``'s descriptor at ``/dev/null``: what is still buffered for it can be flushed."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no descriptor (closed, or a test's stream)
        pass


def stdout_failed(failure: StdoutFailed, stream: Any) -> int:
    """End a run whose standard output failed; its exit code. A closed pipe: 0, silently. Otherwise a
    one-line message on stderr and 2. Either way what is still buffered for ``stream`` goes to
    ``/dev/null``, so that Python's own flush at exit cannot fail again (exit 120)."""
    _to_devnull(stream)
    if failure.broken_pipe:
        return 0
    reason = "it is closed" if failure.error is None else failure.error.strerror or str(failure.error)
    try:
        sys.stderr.write(f"agentcost: error: cannot write to standard output: {reason}\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass
    return 2
