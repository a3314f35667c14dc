"""A counting process: a bundled encoding built and used in a forked child, beside the run.

Building o200k_base takes about 0.3 s, and almost all of it holds the interpreter lock (parsing the
BPE file, then tiktoken's constructor reading the 200,000 ranks out of a dict), so a background
*thread* overlaps almost nothing. A forked child builds it on the other core while this process goes
on importing, validating the scenario and loading prices; when texts need counting, they go to the
child through a pipe and their counts come back (:class:`agentcost.tokens.memo.TokenMemo` asks
:func:`counter`). The counts are the same ``encode_ordinary`` counts, by the same tiktoken, from the
same verified file: only where the work runs changes.

Only where ``os.fork`` is safe and cheap (Linux, and this process has one thread), never twice for
one encoding, and never after the encoding is built here. Whatever goes wrong (no fork, the child
fails to build or dies, a broken pipe), :func:`counter` answers None and the caller builds the
encoding in this process, which then raises any real error (a missing or corrupt BPE file) where it
always did.

Messages are a 4-byte big-endian length and JSON: the texts as UTF-8 with ``surrogatepass`` (a lone
surrogate a YAML file can hold survives, and a text costs its UTF-8 size, not six bytes a character
as ``\\u`` escapes would), the counts as a list of integers.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import select
import signal
import struct
import sys
import threading
from collections.abc import Callable, Sequence

_HEADER = struct.Struct(">I")
_MAX_MESSAGE = 2**32 - 1
QUIET_SECONDS = 300.0
"""How long the child may stay silent while it builds or counts before it is taken for stuck: then it
is killed and this process counts for itself (a 9 MB text of one BPE piece takes tens of seconds)."""


class _Child:
    """One forked counting process and the two pipe ends that talk to it."""

    def __init__(self, pid: int, to_child: int, from_child: int) -> None:
        self.pid = pid
        self.to_child = to_child
        self.from_child = from_child
        self.lock = threading.Lock()
        self.broken = False

    def count(self, texts: Sequence[str]) -> list[int] | None:
        """The counts of ``texts``, or None if the child cannot give them (it is then closed)."""
        with self.lock:
            if self.broken:
                return None
            try:
                message = json.dumps(list(texts), ensure_ascii=False).encode("utf-8", "surrogatepass")
                _send(self.to_child, message)
                counts = json.loads(_receive(self.from_child, QUIET_SECONDS))
            except (OSError, ValueError, EOFError):
                counts = None
            if not (isinstance(counts, list) and len(counts) == len(texts)):
                self.close()
                return None
            if not all(type(n) is int and n >= 0 for n in counts):
                self.close()
                return None
            return counts

    def close(self) -> None:
        """Stop the child at once (it holds nothing worth finishing) and reap it."""
        if self.broken:
            return
        self.broken = True
        for fd in (self.to_child, self.from_child):
            with contextlib.suppress(OSError):
                os.close(fd)
        with contextlib.suppress(OSError):
            os.kill(self.pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(self.pid, 0)


_CHILDREN: dict[str, _Child] = {}
_STARTED: set[str] = set()


def forking_allowed() -> bool:
    """Whether this platform forks cheaply and safely enough for a counting child (Linux)."""
    return sys.platform.startswith("linux") and hasattr(os, "fork")


def start(name: str) -> bool:
    """Fork a child that builds encoding ``name`` and counts texts in it; False when none is started
    (not Linux, started before, already built here, or the fork failed)."""
    from agentcost.tokens import encodings

    if name in _STARTED or not forking_allowed() or encodings.is_built(name):
        return False
    if threading.active_count() > 1:  # a fork copies one thread: another's locks would stay held
        return False
    if name not in encodings.ENCODING_SHA256:
        return False
    _STARTED.add(name)
    encodings.import_builders()  # the child then imports nothing (no lock another thread held at the fork)
    to_child_r, to_child_w = os.pipe()
    from_child_r, from_child_w = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        for fd in (to_child_r, to_child_w, from_child_r, from_child_w):
            os.close(fd)
        return False
    if pid == 0:  # the child: never returns
        ends = (to_child_w, from_child_r)
        _serve(name, to_child_r, from_child_w, keep={to_child_r, from_child_w}, parents=ends)
    os.close(to_child_r)
    os.close(from_child_w)
    if not _CHILDREN:
        atexit.register(stop_all)
    _CHILDREN[name] = _Child(pid, to_child_w, from_child_r)
    return True


def counter(name: str) -> Callable[[Sequence[str]], list[int] | None] | None:
    """The child's batch counter for ``name``, if a child is counting in it and this process has not
    built the encoding itself; None otherwise."""
    from agentcost.tokens import encodings

    child = _CHILDREN.get(name)
    if child is None or child.broken or encodings.is_built(name):
        return None
    return child.count


def stop_all() -> None:
    """Stop every counting child (tests; the console script's children end with it)."""
    for child in list(_CHILDREN.values()):
        child.close()
    _CHILDREN.clear()


def _serve(name: str, inbox: int, outbox: int, keep: set[int], parents: tuple[int, ...]) -> None:
    """The child's life: build the encoding, then answer each batch of texts until the input ends."""
    code = 0
    try:
        # The parent's ends of these pipes: held here, the input would never end if the parent died
        # without closing it (SIGTERM, SIGKILL), and this process would wait for ever.
        for fd in parents:
            os.close(fd)
        # Nothing of the parent's stays open here: its standard streams (a reader waiting for the end
        # of the parent's output must not wait for this process) and other children's pipes.
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        os.close(devnull)
        for child in _CHILDREN.values():
            for fd in (child.to_child, child.from_child):
                if fd not in keep:
                    os.close(fd)
        from agentcost.tokens.encodings import get_encoding, ordinary_tokens

        encoding = get_encoding(name)
        while True:
            try:
                message = _receive(inbox)
            except EOFError:
                break
            texts = json.loads(message.decode("utf-8", "surrogatepass"))
            counts = [ordinary_tokens(encoding, text) for text in texts]
            _send(outbox, json.dumps(counts).encode("ascii"))
    except BaseException:  # a failed build, a broken pipe: the parent counts for itself
        code = 1
    finally:
        os._exit(code)  # no atexit handlers, no flushing of the parent's buffered output


def _send(fd: int, data: bytes) -> None:
    if len(data) > _MAX_MESSAGE:
        raise ValueError("message too long for the counting child")
    for part in (_HEADER.pack(len(data)), data):  # not joined: a long message is not copied again
        view = memoryview(part)
        while view:
            written = os.write(fd, view)
            view = view[written:]


def _receive(fd: int, quiet: float | None = None) -> bytes:
    (length,) = _HEADER.unpack(_read_exactly(fd, _HEADER.size, quiet))
    return _read_exactly(fd, length, quiet)


def _read_exactly(fd: int, n: int, quiet: float | None) -> bytes:
    parts: list[bytes] = []
    left = n
    while left:
        if quiet is not None and not select.select([fd], [], [], quiet)[0]:
            raise EOFError("the counting child stayed silent too long")
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            raise EOFError("the counting child's pipe closed")
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)
