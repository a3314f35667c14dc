"""Reading input files as bytes and as UTF-8 text, with size limits and one-line reasons.

Only regular files are read: a FIFO, a device, a socket or a directory is refused by ``stat`` before
it is opened, and opening does not block (``O_NONBLOCK``), so no input can hang a run. ``-`` is
standard input (read once, with the same limit). :class:`SharedReads` reads each file of one load
once, however often and under whatever names it is named.

A file named inside an input file is checked by :func:`agentcost.infra.policy.confine` first, which
records its real path here with the check (:func:`confine_reads`); :func:`read_file` then opens that
path by walking it from ``/`` one component at a time, each opened relative to the descriptor of the
directory before it with ``O_NOFOLLOW``, resolving any symlink met on the way itself, and checks the
real path it reached (and what ``/proc/self/fd`` says of the descriptor) again. So the check and the
open are one walk over descriptors: a directory swapped for a symlink after the check cannot lead
the open outside. Where ``dir_fd`` or ``O_NOFOLLOW`` are missing (not Linux or macOS), the file is
opened by its path and its real path checked after the open (the same file, by device and inode).

The standard library only. :mod:`agentcost.infra.yamlread` re-exports all of it.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path

__all__ = [
    "LIMITS_DOC",
    "MAX_FILE_BYTES",
    "STDIN",
    "Escaped",
    "FileTooLarge",
    "NotAFile",
    "Reader",
    "SharedReads",
    "Unreadable",
    "confine_reads",
    "forget_reads",
    "is_stdin",
    "read_file",
    "read_stdin",
    "read_text",
    "text_reader",
    "was_read",
]

MAX_FILE_BYTES = 10_000_000
"""Largest input file read (scenario, project, tool, ``{file: ...}``, price and ``--models`` files):
checked with ``fstat`` before reading, and by reading at most one byte more (a file that grows, and
standard input)."""
LIMITS_DOC = "real files stay far below it"
STDIN = "-"
"""The file name that means standard input (a scenario, project or trace given as ``-``)."""

_READ_IDS: set[tuple[int, int]] = set()  # (device, inode) of every file read since forget_reads()

Check = Callable[[str], "str | None"]
"""Whether a real path may be read: None if so, else the reason it may not."""
_CONFINED: dict[str, Check] = {}  # real path checked by policy.confine -> the check to repeat on opening


def forget_reads() -> None:
    """Start a new run's record of the files it read (:func:`was_read`) and of the confined ones."""
    _READ_IDS.clear()
    _CONFINED.clear()


def confine_reads(real: str, check: Check) -> None:
    """Have :func:`read_file` open the file at the real path ``real`` by a walk over directory
    descriptors that follows no symlink unchecked, and refuse it (:class:`Escaped`) unless ``check``
    passes the real path the walk reached: the check :func:`agentcost.infra.policy.confine` made,
    repeated on what is opened."""
    _CONFINED[real] = check


def was_read(info: os.stat_result) -> bool:
    """Whether the file ``info`` describes (its device and inode, whatever its name: a symlink, a hard
    link) was read since :func:`forget_reads`: an input of this run, never to be written over."""
    return (info.st_dev, info.st_ino) in _READ_IDS


class Unreadable(Exception):
    """A file that cannot be read as text: ``reason`` says why, ``line`` where (for bad UTF-8)."""

    def __init__(self, reason: str, line: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = line


Reader = Callable[[Path], bytes]
"""Returns the bytes of the file at an absolute path, or raises ``FileNotFoundError``,
``IsADirectoryError``, ``PermissionError`` or another ``OSError``. An error made without an errno
(``FileNotFoundError("file not found at main")``) gives its own text as the reason in the message;
otherwise the reason is the usual one ("file not found", ...)."""


class FileTooLarge(OSError):
    """A file over the size limit of its kind; ``size`` is None when only reading found it out."""

    def __init__(self, size: int | None, limit: int) -> None:
        super().__init__(f"larger than {limit:,} bytes")
        self.size = size
        self.limit = limit

    @property
    def reason(self) -> str:
        size = f"{self.size:,} bytes, " if self.size is not None else ""
        return f"file too large: {size}over the limit of {self.limit:,} bytes ({LIMITS_DOC})"


class Escaped(OSError):
    """A confined file whose real path, when opened, is not where its check allows (a directory on
    its way was swapped for a symlink after the check): ``reason`` says where it leads."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class NotAFile(OSError):
    """Not a regular file (a FIFO, a device, a socket...): refused before it is opened, since reading
    one can block forever or never end. ``reason`` says what it is."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)  # a file swapped for a FIFO after the stat cannot block the open
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)

# What shells hand a program for `<(command)` and a redirected standard input: paths to pipes.
_PIPE_NAMES = ("/dev/fd/", "/dev/stdin", "/proc/self/fd/", "/proc/thread-self/fd/")
_KINDS = ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _check_regular(path: Path | str, mode: int) -> None:
    """Refuse anything but a regular file, saying what it is."""
    if stat.S_ISREG(mode):
        return
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(21, "Is a directory", str(path))
    if stat.S_ISFIFO(mode):
        name = os.fspath(path)
        if name.startswith(_PIPE_NAMES) or (name.startswith("/proc/") and "/fd/" in name):
            raise NotAFile(
                "is a pipe, not a regular file (for standard input, give - as the file name: "
                "cat FILE | agentcost estimate -)"
            )
        raise NotAFile("is a named pipe (FIFO), not a regular file")
    for test, kind in _KINDS:
        if test(mode):
            raise NotAFile(f"is {kind}, not a regular file")
    raise NotAFile("is not a regular file")


def read_file(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The default :data:`Reader`: the regular file on disk (symlinks followed), at most ``limit``
    bytes (else :class:`FileTooLarge`), refused by its size before a byte is read. Anything else (a
    FIFO, ``/dev/zero``, a socket, a directory) is refused by ``stat`` before it is opened
    (:class:`NotAFile`, :class:`IsADirectoryError`), and the open itself never blocks. A path
    :func:`confine_reads` recorded is opened by :func:`open_confined`."""
    check = _CONFINED.get(os.fspath(path))
    if check is not None:
        fd = open_confined(os.fspath(path), check)
    else:
        _check_regular(path, os.stat(path).st_mode)
        fd = os.open(path, _OPEN_FLAGS)
    with open(fd, "rb") as handle:  # closes fd
        info = os.fstat(fd)
        _check_regular(path, info.st_mode)  # swapped between the stat and the open
        _READ_IDS.add((info.st_dev, info.st_ino))
        if info.st_size > limit:
            raise FileTooLarge(info.st_size, limit)
        data = handle.read(limit + 1)  # a file that grows after the fstat: still bounded
    if len(data) > limit:
        raise FileTooLarge(None, limit)
    return data


_WALK = (
    os.open in os.supports_dir_fd
    and os.stat in os.supports_dir_fd
    and os.readlink in os.supports_dir_fd
    and hasattr(os, "O_NOFOLLOW")
    and hasattr(os, "O_DIRECTORY")
)
"""Whether :func:`open_confined` can walk over directory descriptors (Linux, macOS, the BSDs)."""
_DIR_FLAGS = (
    getattr(os, "O_DIRECTORY", 0)
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_PATH", os.O_RDONLY)  # O_PATH: a directory one may search but not list is passed
)
_MAX_LINKS = 40  # symlinks resolved in one walk, as the kernel's ELOOP limit


def _lstat_at(name: str, directory: int) -> os.stat_result:
    """What ``name`` in the open ``directory`` is, not following a symlink (a seam for the tests)."""
    return os.stat(name, dir_fd=directory, follow_symlinks=False)


def _is_link(name: str, directory: int) -> bool:
    try:
        return stat.S_ISLNK(_lstat_at(name, directory).st_mode)
    except OSError:
        return False


def open_confined(path: str, check: Check) -> int:
    """A read-only, non-blocking descriptor of the regular file at the absolute ``path`` (the caller
    closes it), opened by walking from ``/``: each component is opened relative to the descriptor of
    the directory before it, with ``O_NOFOLLOW``; a symlink met on the way is read (``readlinkat``)
    and its target walked the same way. The real path so reached, and the descriptor's own path
    (``/proc/self/fd``, where there is one), must pass ``check``, else :class:`Escaped`. A component
    swapped for a symlink between its ``lstat`` and its open fails the open (``ELOOP``, ``ENOTDIR``)
    and is walked again, as the symlink it now is: a swap never leads the open elsewhere. Anything
    but a regular file is refused before it is opened."""
    if not _WALK:
        return _open_checked(path, check)
    todo = path.split("/")[::-1]  # the components still to walk, the next one last
    names: list[str] = []
    fds = [os.open("/", _DIR_FLAGS)]
    links = 0
    try:
        while todo:
            name = todo.pop()
            if name in ("", "."):
                continue
            if name == "..":  # after a symlink's target: the real parent, as realpath() takes it
                if names:
                    names.pop()
                    os.close(fds.pop())
                continue
            info = _lstat_at(name, fds[-1])
            if stat.S_ISLNK(info.st_mode):
                links += 1
                if links > _MAX_LINKS:
                    raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), path)
                target = os.readlink(name, dir_fd=fds[-1])
                if target.startswith("/"):
                    while names:
                        names.pop()
                        os.close(fds.pop())
                todo.extend(target.split("/")[::-1])
                continue
            if any(rest not in ("", ".") for rest in todo) and not stat.S_ISDIR(info.st_mode):
                raise NotADirectoryError(errno.ENOTDIR, "Not a directory", path)  # never opened
            try:
                if all(rest in ("", ".") for rest in todo):  # the file itself
                    _check_regular(path, info.st_mode)
                    fd = os.open(name, _OPEN_FLAGS | os.O_NOFOLLOW, dir_fd=fds[-1])
                else:
                    fd = os.open(name, _DIR_FLAGS, dir_fd=fds[-1])
            except OSError as err:  # swapped for a symlink since its lstat: walk it again, resolved
                if err.errno not in (errno.ELOOP, errno.ENOTDIR) or not _is_link(name, fds[-1]):
                    raise
                links += 1
                if links > _MAX_LINKS:
                    raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), path) from None
                todo.append(name)
                continue
            names.append(name)
            fds.append(fd)
        if not names:  # the path is "/"
            raise IsADirectoryError(errno.EISDIR, "Is a directory", path)
        _check_opened(fds[-1], "/" + "/".join(names), check)  # refused: closed below with the rest
        return fds.pop()
    finally:
        for fd in fds:
            os.close(fd)


def _check_opened(fd: int, real: str, check: Check) -> None:
    """Refuse (:class:`Escaped`) the open file ``fd``, reached at the real path ``real``, unless
    ``check`` passes that path and the descriptor's own (``/proc/self/fd/N``: a directory on the way
    renamed after the walk opened it shows there)."""
    reason = check(real)
    if reason is None:
        try:
            now = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # no /proc (macOS): the walk's path is all there is
            now = real
        if now != real and now.startswith("/"):
            reason = check(now.removesuffix(" (deleted)"))
    if reason is not None:
        raise Escaped(reason)


def _open_checked(path: str, check: Check) -> int:
    """:func:`open_confined` without ``dir_fd`` or ``O_NOFOLLOW``: open by the path, then check the
    real path, which must still be the file opened (device and inode). A swap between the two is
    caught unless it is undone in between; the walk has no such window."""
    _check_regular(path, os.stat(path).st_mode)
    fd = os.open(path, _OPEN_FLAGS)
    try:
        real = os.path.realpath(path)
        opened, there = os.fstat(fd), os.stat(real)
        reason = check(real)
        if reason is None and (opened.st_dev, opened.st_ino) != (there.st_dev, there.st_ino):
            reason = f"{path} changed while it was opened"
        if reason is not None:
            raise Escaped(reason)
    except BaseException:
        os.close(fd)
        raise
    return fd


def is_stdin(path: Path | str) -> bool:
    """Whether ``path`` is ``-``, standard input."""
    return os.fspath(path) == STDIN


_STDIN_READ: tuple[object, bytes, bool] | None = None  # (the stream, its bytes so far, all of it read)


def read_stdin(limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of standard input, at most ``limit`` (else :class:`FileTooLarge`). Read once and
    kept: a scenario given as ``-`` is read by several steps (is it a project? the load)."""
    global _STDIN_READ
    stream = sys.stdin
    if stream is None:
        raise OSError("standard input is closed")
    known = _STDIN_READ if _STDIN_READ is not None and _STDIN_READ[0] is stream else None
    data, done = (known[1], known[2]) if known is not None else (b"", False)
    with contextlib.suppress(OSError, ValueError, AttributeError):  # stdin redirected from a file: an input
        info = os.fstat(stream.fileno())
        if stat.S_ISREG(info.st_mode):
            _READ_IDS.add((info.st_dev, info.st_ino))
    if not done and len(data) <= limit:
        chunk = getattr(stream, "buffer", stream).read(limit + 1 - len(data))
        data += chunk.encode("utf-8", "surrogateescape") if isinstance(chunk, str) else chunk
        done = len(data) <= limit
        _STDIN_READ = (stream, data, done)
    if len(data) > limit:
        raise FileTooLarge(None, limit)
    return data


def read_text(path: Path, reader: Reader = read_file, *, limit: int = MAX_FILE_BYTES) -> str:
    """The UTF-8 text of a file read by ``reader`` (a leading BOM dropped), or :class:`Unreadable`:
    also for a file over ``limit`` bytes, or with a NUL character (binary data, or UTF-16). ``-`` is
    standard input, whatever the reader."""
    absolute = Path(os.path.abspath(path))  # unlike resolve(), never touches the file system
    try:
        if is_stdin(path):
            data = read_stdin(limit)
        else:
            data = read_file(absolute, limit) if reader is read_file else reader(absolute)
        if len(data) > limit:  # another reader (e.g. git's) read it all: still refused
            raise FileTooLarge(len(data), limit)
    except (FileTooLarge, NotAFile, Escaped) as e:
        raise Unreadable(e.reason) from None
    except FileNotFoundError as e:
        raise Unreadable(_reason(e, "file not found")) from None
    except IsADirectoryError as e:
        raise Unreadable(_reason(e, "is a directory, not a file")) from None
    except PermissionError as e:
        raise Unreadable(_reason(e, "permission denied")) from None
    except OSError as e:
        raise Unreadable(_reason(e, e.strerror or type(e).__name__)) from None
    except ValueError as e:  # e.g. a NUL character in the path
        raise Unreadable(f"invalid path ({e})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise Unreadable(f"not UTF-8 text (byte 0x{data[e.start]:02x} on line {line})", line) from None
    nul = text.find("\x00")
    if nul >= 0:  # text files hold none; binary files and UTF-16 text do
        line = text.count("\n", 0, nul) + 1
        raise Unreadable(f"not a text file (a NUL byte on line {line}; binary data, or UTF-16?)", line)
    return text.removeprefix("\ufeff")


def _reason(error: OSError, default: str) -> str:
    """A reader's own text for an error raised without an errno, else ``default``."""
    return str(error) if error.strerror is None and len(error.args) == 1 else default


def text_reader(reader: Reader | None) -> Callable[[Path], str]:
    """The function that reads each file's text for one load."""
    return read_text if reader is None else functools.partial(read_text, reader=reader)


class SharedReads:
    """The text reader of one load that reads each file once: the same file (the same real path and
    identity), named by many rounds, by subagents or through several symlinks, is read once and
    its one text shared. Standard input and paths that cannot be resolved go to ``read_text`` as
    they are."""

    def __init__(self, read_text: Callable[[Path], str]) -> None:
        self.read_text = read_text
        self.texts: dict[tuple[str, int, int], str] = {}

    def __call__(self, path: Path) -> str:
        if is_stdin(path):
            return self.read_text(path)
        try:
            real = os.path.realpath(path)
        except ValueError:  # a NUL in the path: the reader says so
            return self.read_text(path)
        try:
            info = os.stat(real)
            key = (real, info.st_dev, info.st_ino)
        except OSError:  # not on disk (a file at a git revision): its real path alone
            key = (real, -1, -1)
        if key not in self.texts:
            self.texts[key] = self.read_text(path)
        return self.texts[key]
