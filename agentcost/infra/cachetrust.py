"""Whether the persistent cache's directory may be trusted, and the key of its entries' checksums.

The cache (:mod:`agentcost.infra.diskcache`) is used only in a directory that no other user can
write to or swap: :func:`unsafe` says why not, and makes a directory of ours that others may only
read private. Its files are ``0600`` (:func:`private_files`). Every entry carries an HMAC-SHA256 of
its content under a random key kept beside the database (:func:`load_key`), so an entry edited by
hand, planted or copied from another cache is not used. Nothing here knows what is cached.
"""

from __future__ import annotations

import contextlib
import os
import stat
import threading
from pathlib import Path

KEY_NAME = "cache-key"
"""The file holding the key of the entries' checksums (beside the database)."""
KEY_BYTES = 32
RELATIVE = "AGENTCOST_CACHE_DIR is a relative path (set an absolute one)"
"""Why a relative cache directory is not used: the cache would follow the working directory (a
checkout, where a pull request could commit one)."""


def prepare(directory: Path) -> str | None:
    """Make the cache directory (``0700``) if need be; why it cannot be used, or None."""
    if not directory.is_absolute():
        return RELATIVE
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    return unsafe(directory)


def framed(*parts: bytes) -> bytes:
    """``parts`` joined unambiguously (each after its length), for a checksum."""
    return b"".join(len(part).to_bytes(8, "big") + part for part in parts)


def unsafe(directory: Path) -> str | None:
    """Why the cache directory cannot be trusted, or None: it or a directory above it (up to the
    home, or ``/``) belongs to another user or may be written by others, so entries could be planted
    or the directory swapped. A directory of ours that others may only read is made ``0700``."""
    getuid = getattr(os, "getuid", None)
    if getuid is None:  # Windows: no owners or modes of this kind
        return None
    uid = getuid()
    info = os.stat(directory)
    if info.st_uid != uid:
        return f"{directory} is owned by another user (uid {info.st_uid})"
    if info.st_mode & 0o022:
        return f"{directory} {_writable(info.st_mode)}"
    if info.st_mode & 0o077:  # ours, readable by others: stored outputs and paths are private
        os.chmod(directory, 0o700)
    for parent in _parents(directory):
        info = os.stat(parent)
        if info.st_uid not in (uid, 0):
            return f"{directory} is inside {parent}, owned by another user (uid {info.st_uid})"
        if info.st_mode & 0o022 and not info.st_mode & stat.S_ISVTX:
            return f"{directory} is inside {parent}, which {_writable(info.st_mode)}"
    return None


def _writable(mode: int) -> str:
    who = "others" if mode & 0o002 else "its group"
    return f"is writable by {who} (mode {mode & 0o7777:o})"


def _parents(directory: Path) -> list[str]:
    """The directories above ``directory``, as written and with symlinks resolved, up to the user's
    home (included) or, outside it, up to ``/``."""
    try:
        home = str(Path.home())
        homes = {os.path.abspath(home), os.path.realpath(home)}
    except (RuntimeError, KeyError, OSError):
        homes = set()
    found: list[str] = []
    for path in (os.path.abspath(directory), os.path.realpath(directory)):
        here = os.path.dirname(path)
        while True:
            if here not in found:
                found.append(here)
            if here in homes or os.path.dirname(here) == here:
                break
            here = os.path.dirname(here)
    return found


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def private_files(database: Path) -> None:
    """The database created ``0600`` before SQLite opens it (SQLite would use the umask, often
    ``0644``), and it and its ``-wal``/``-shm`` files made ``0600`` if ours and readable by others."""
    if not hasattr(os, "getuid"):
        return
    fd = os.open(database, os.O_RDWR | os.O_CREAT | _NOFOLLOW, 0o600)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{database} is not a regular file")
        if info.st_uid == os.getuid() and info.st_mode & 0o077:
            os.fchmod(fd, 0o600)
    finally:
        os.close(fd)
    for suffix in ("-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            info = os.lstat(f"{database}{suffix}")
            if stat.S_ISREG(info.st_mode) and info.st_uid == os.getuid() and info.st_mode & 0o077:
                os.chmod(f"{database}{suffix}", 0o600)


def load_key(directory: Path) -> bytes:
    """The key of the entries' checksums: :data:`KEY_NAME` in the cache directory, ``0600``, made on
    first use. One that is not a regular file of ours, readable by no one else, of the right size is
    replaced (and the entries checked with it then miss)."""
    path = directory / KEY_NAME
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW)
    except FileNotFoundError:
        return _new_key(path, replace=False)
    except OSError:  # a symlink (ELOOP) or unreadable: not ours
        return _new_key(path, replace=True)
    try:
        info = os.fstat(fd)
        data = os.read(fd, KEY_BYTES + 1)
    finally:
        os.close(fd)
    getuid = getattr(os, "getuid", None)
    private = getuid is None or (info.st_uid == getuid() and not info.st_mode & 0o077)
    if stat.S_ISREG(info.st_mode) and private and len(data) == KEY_BYTES:
        return data
    return _new_key(path, replace=True)


def _new_key(path: Path, *, replace: bool) -> bytes:
    """A new random key written to ``path`` whole (a temporary file linked or renamed into place);
    another process's key made at the same moment wins, unless ``replace``."""
    key = os.urandom(KEY_BYTES)
    temporary = path.with_name(f".{KEY_NAME}.{os.getpid()}.{threading.get_ident()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600)
    try:
        os.write(fd, key)
    finally:
        os.close(fd)
    try:
        if replace:
            os.replace(temporary, path)
            return key
        try:
            os.link(temporary, path)  # fails if another process made one first: use that one
        except FileExistsError:
            return load_key(path.parent)
        except OSError:  # a file system without hard links
            os.replace(temporary, path)
        return key
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
