"""Where output goes: ``--output`` files (atomically, never over an input), the files GitHub Actions
names (``$GITHUB_STEP_SUMMARY``, ``$GITHUB_OUTPUT``: appended to, never an input) and standard
output's faults.

``--output FILE`` is refused (:class:`~agentcost.errors.InputError`, exit 2) when FILE is an input of
the run (any file :func:`agentcost.infra.files.read_file` read since the run began, whatever its name:
a hard link is the same file), a symlink (dangling or not: agentcost never writes through one, so a
link committed in a checkout cannot send a report outside it), a directory (also a name ending in
``/``), or anything but a regular file: a device, a FIFO, a socket. ``-o /dev/null`` and ``-o
/dev/stdout`` are refused rather than replaced or written through (as root, a rename would turn
``/dev/null`` into a regular file): leave out ``-o`` to write to standard output, and redirect that
(``> /dev/null``). The file is written to a temporary file beside it and renamed over it, both
relative to one descriptor of its directory, so readers see the old report or the new one, never
half; just before the rename the name is checked again (a symlink or an input that appeared there is
refused, not replaced). A new file gets the mode a plain ``open()`` gives (``0o666`` less the umask),
an existing file keeps its mode (and, where allowed, its owner).

:func:`append_output` appends to the file an Actions variable names, opened with ``O_NOFOLLOW``: a
symlink, anything but a regular file and an input of the run are refused (:class:`Refused`).

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
    """Refuse an ``--output`` that is a directory, a symlink, not a regular file, or an input of this
    run; return what ``lstat`` says of the existing file (None: there is none yet)."""
    from agentcost.errors import InputError

    name = os.fspath(path)
    try:
        info = os.lstat(name)
    except FileNotFoundError:
        info = None
    except OSError as err:  # not a directory on the way, permission denied, a loop of symlinks
        raise InputError(f"cannot write the report: {err.strerror}", file=name, key=key) from None
    except ValueError:  # a NUL in the name
        raise InputError("not a usable file name", key=key) from None
    if info is not None and stat.S_ISDIR(info.st_mode):  # also a symlink to one, named with a final /
        raise InputError("is a directory, not a file", file=name, key=key, hint="give a file name")
    if name.endswith(("/", os.sep)):
        raise InputError(
            "names a directory (it ends in /), not a file", file=name, key=key, hint="give a file name"
        )
    if info is None:
        return None
    refusal = _refusal(name, info, key)
    if refusal is not None:
        raise refusal
    return info


def _refusal(name: str, info: os.stat_result, key: str) -> Exception | None:
    """Why the existing ``--output`` file ``name`` (``info``: its ``lstat``) may not be replaced."""
    from agentcost.errors import InputError
    from agentcost.infra.files import was_read

    if stat.S_ISLNK(info.st_mode):
        return InputError(
            "is a symbolic link: agentcost never writes through one",
            file=name,
            key=key,
            hint="give the path of the file itself, or another file name",
        )
    if stat.S_ISDIR(info.st_mode):
        return InputError("is a directory, not a file", file=name, key=key, hint="give a file name")
    if not stat.S_ISREG(info.st_mode):
        return InputError(
            f"is {_kind(info.st_mode)}, not a regular file: agentcost writes reports to regular files only",
            file=name,
            key=key,
            hint=f"leave out {key} to write to standard output, and redirect that",
        )
    if was_read(info):
        return InputError(
            "is an input of this run: writing the report there would replace it",
            file=name,
            key=key,
            hint="give another file name",
        )
    return None


def _kind(mode: int) -> str:
    return next((k for test, k in _KINDS if test(mode)), "not a regular file")


_AT = os.open in os.supports_dir_fd and os.rename in os.supports_dir_fd and os.stat in os.supports_dir_fd
"""Whether the temporary file and the rename can be made relative to a directory descriptor."""
_DIR_FLAGS = getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_PATH", os.O_RDONLY)


def write_output(path: Path | str, text: str, *, newline: str = "", key: str = OUTPUT_KEY) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically, after :func:`check_output`: a temporary file in
    the same directory, renamed over ``path`` once the name is checked again. A new file gets
    ``open()``'s mode, an existing one keeps its own. ``OSError`` when the directory cannot be
    written; :class:`~agentcost.errors.InputError` when a symlink or an input took the name."""
    info = check_output(path, key)
    directory, name = os.path.split(os.fspath(path))
    directory = directory or "."
    dir_fd = os.open(directory, _DIR_FLAGS) if _AT else None
    try:
        fd, tmp = _create_beside(directory, name, dir_fd)
        try:
            if info is not None:
                os.fchmod(fd, stat.S_IMODE(info.st_mode))
                if hasattr(os, "fchown") and (info.st_uid, info.st_gid) != (os.getuid(), os.getgid()):
                    with contextlib.suppress(OSError):  # only root may give a file away: else the writer's
                        os.fchown(fd, info.st_uid, info.st_gid)
            with os.fdopen(fd, "w", encoding="utf-8", newline=newline) as handle:  # closes fd
                handle.write(text)
            _recheck(os.fspath(path), name, dir_fd, key)
            if dir_fd is not None:
                os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            else:
                os.replace(os.path.join(directory, tmp), os.fspath(path))
        except BaseException:
            with contextlib.suppress(OSError):
                if dir_fd is not None:
                    os.unlink(tmp, dir_fd=dir_fd)
                else:
                    os.unlink(os.path.join(directory, tmp))
            raise
    finally:
        if dir_fd is not None:
            os.close(dir_fd)


def _recheck(shown: str, name: str, dir_fd: int | None, key: str) -> None:
    """Refuse, just before the rename, a name that became a symlink, a directory or an input since
    :func:`check_output` (a rename would replace a symlink, not write through it; still, it is not
    agentcost's to replace)."""
    try:
        info = os.lstat(shown) if dir_fd is None else os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return
    refusal = _refusal(shown, info, key)
    if refusal is not None:
        raise refusal


def _create_beside(directory: str, name: str, dir_fd: int | None) -> tuple[int, str]:
    """A new, empty file beside ``name`` in ``directory`` (``dir_fd``, when there is one): its
    descriptor and its name in that directory, created with mode ``0o666``: the system applies the
    umask (and a default ACL) as for any ``open()``."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    for _ in range(100):
        tmp = f".{name}.{os.urandom(6).hex()}.tmp"
        try:
            if dir_fd is not None:
                return os.open(tmp, flags, 0o666, dir_fd=dir_fd), tmp
            return os.open(os.path.join(directory, tmp), flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary file name", directory)


# --------------------------------------------------------------------------------------------
# Files named by GitHub Actions
# --------------------------------------------------------------------------------------------


class Refused(OSError):
    """A file an Actions variable names that agentcost will not append to: ``reason`` and ``hint``."""

    def __init__(self, reason: str, hint: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.hint = hint


def check_append(path: str, variable: str) -> None:
    """Refuse (:class:`Refused`, or ``IsADirectoryError``) the file ``path``, named by ``variable``,
    when it is a symlink, a directory, anything but a regular file or an input of this run; a file
    that is not there yet passes (appending creates it). Other ``OSError`` as ``lstat`` raises it."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    _appendable(path, info, variable)


def _appendable(path: str, info: os.stat_result, variable: str) -> None:
    from agentcost.infra.files import was_read

    if stat.S_ISLNK(info.st_mode):
        raise Refused(
            "it is a symbolic link, and agentcost never writes through one",
            f"point {variable} at a regular file",
        )
    if stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(errno.EISDIR, "Is a directory", path)
    if not stat.S_ISREG(info.st_mode):
        raise Refused(
            f"it is {_kind(info.st_mode)}, not a regular file", f"point {variable} at a regular file"
        )
    if was_read(info):
        raise Refused(
            "it is an input of this run, and agentcost never modifies its inputs",
            f"point {variable} at another file",
        )


_APPEND_FLAGS = (
    os.O_WRONLY
    | os.O_APPEND
    | os.O_CREAT
    | getattr(os, "O_NOFOLLOW", 0)  # never through a symlink, even one that appeared after the check
    | getattr(os, "O_NONBLOCK", 0)  # a FIFO swapped in cannot block the open
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
)


def append_output(path: str, text: str, variable: str) -> None:
    """Append ``text`` (UTF-8) to the file ``path`` that the Actions variable ``variable``
    (``GITHUB_STEP_SUMMARY``, ``GITHUB_OUTPUT``) names, creating it if need be: refused as
    :func:`check_append` says, before it is opened and again on the opened descriptor."""
    check_append(path, variable)
    try:
        fd = os.open(path, _APPEND_FLAGS, 0o666)
    except OSError as err:
        if err.errno == errno.ELOOP and os.path.islink(path):  # a symlink that appeared since
            raise Refused(
                "it is a symbolic link, and agentcost never writes through one",
                f"point {variable} at a regular file",
            ) from None
        raise
    with os.fdopen(fd, "a", encoding="utf-8") as handle:  # closes fd
        _appendable(path, os.fstat(fd), variable)
        handle.write(text)


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


class _TextStream:
    """A text stream standing in for ``stream`` (:class:`GuardedStdout`, :class:`QuietStderr`):
    subclasses decide what a failed write does. Text only (no ``buffer``), so that bytes cannot go
    around it; every other attribute (``fileno``, ``encoding``, ``errors``...) is the stream's."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        raise NotImplementedError

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        if name == "buffer" or self._stream is None:
            raise AttributeError(name)
        return getattr(self._stream, name)


class GuardedStdout(_TextStream):
    """``sys.stdout`` while a command runs: writes go through to ``stream``; a failure raises
    :class:`StdoutFailed`."""

    def write(self, text: str) -> int:
        if self._stream is None:
            raise StdoutFailed(None)
        try:
            return int(self._stream.write(text))
        except OSError as err:
            raise StdoutFailed(err) from None

    def flush(self) -> None:
        if self._stream is None:
            return
        try:
            self._stream.flush()
        except OSError as err:
            raise StdoutFailed(err) from None

    def isatty(self) -> bool:
        return self._stream is not None and bool(self._stream.isatty())


class QuietStderr(_TextStream):
    """``sys.stderr`` for the console script: once a write or flush fails (a full disk, a closed
    descriptor) this message and every later one are dropped instead of raising, so the exit code
    stays the run's own (2 for bad input, 1 for a tripped gate): a run has nowhere else to say it.
    What is still buffered then goes to ``/dev/null``, so Python's flush at exit cannot fail (120)."""

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self._failed = stream is None

    def write(self, text: str) -> int:
        if not self._failed:
            try:
                return int(self._stream.write(text))
            except OSError:
                self._fail()
        return len(text)

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
