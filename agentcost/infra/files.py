"""Reading input files as bytes and as UTF-8 text, with size limits and one-line reasons.

The standard library only, so that a run whose scenario is already cached (agentcost.scenario.cache)
reads its files without importing the YAML parser or pydantic. :mod:`agentcost.infra.yamlread` re-exports
all of it.
"""

from __future__ import annotations

import functools
import hashlib
import os
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = [
    "LIMITS_DOC",
    "MAX_FILE_BYTES",
    "FileTooLarge",
    "Reader",
    "Unreadable",
    "read_file",
    "read_text",
    "recording",
    "text_reader",
]

MAX_FILE_BYTES = 10_000_000
"""Largest input file read (scenario, project, tool, ``{file: ...}``, price and ``--models`` files):
checked with ``fstat`` before reading, and by reading at most one byte more (a pipe or device)."""
LIMITS_DOC = "see docs/limits.md"

_RECORDING: list[list[str]] | None = None


@contextmanager
def recording() -> Iterator[list[list[str]]]:
    """While inside: every file :func:`read_file` reads is listed as [absolute path, sha256 hex]
    (what a replay of the run checks again, agentcost.launch)."""
    global _RECORDING
    reads: list[list[str]] = []
    previous, _RECORDING = _RECORDING, reads
    try:
        yield reads
    finally:
        _RECORDING = previous


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


def read_file(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The default :data:`Reader`: the file on disk, at most ``limit`` bytes (else
    :class:`FileTooLarge`). A regular file is refused by its size before a byte is read; anything
    else (a pipe, ``/dev/zero``) by reading at most one byte more than the limit."""
    with open(path, "rb") as handle:
        info = os.fstat(handle.fileno())
        if stat.S_ISDIR(info.st_mode):  # open() succeeds on a directory on some systems
            raise IsADirectoryError(21, "Is a directory", str(path))
        if stat.S_ISREG(info.st_mode) and info.st_size > limit:
            raise FileTooLarge(info.st_size, limit)
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise FileTooLarge(None, limit)
    if _RECORDING is not None:
        _RECORDING.append([os.path.abspath(path), hashlib.sha256(data).hexdigest()])
    return data


def read_text(path: Path, reader: Reader = read_file, *, limit: int = MAX_FILE_BYTES) -> str:
    """The UTF-8 text of a file read by ``reader`` (a leading BOM dropped), or :class:`Unreadable`:
    also for a file over ``limit`` bytes, or with a NUL character (binary data, or UTF-16)."""
    absolute = Path(os.path.abspath(path))  # unlike resolve(), never touches the file system
    try:
        data = read_file(absolute, limit) if reader is read_file else reader(absolute)
        if len(data) > limit:  # another reader (e.g. git's) read it all: still refused
            raise FileTooLarge(len(data), limit)
    except FileTooLarge as e:
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
