"""The warm process: a person's edit-and-run loop without the start-up cost (the client side).

Every ``agentcost`` process pays for its imports before it does any work: pydantic and the scenario
format's models, typer and rich come to about 0.3 s on a 2-core machine, where an estimate's own work
is about 0.03 s. A run the output cache cannot answer (the scenario changed) therefore costs about
6x ``import rich, typer``. The warm process pays the imports once:

* A run of ``estimate``, ``compare``, ``diff``, ``prices`` or ``models`` asks the warm process of
  its user and installation (:func:`server_key`) to run it. The server forks a child that takes this
  process's standard streams (the file descriptors themselves, passed over the socket), working
  directory, umask, environment and arguments, and runs the same launcher code as this process would
  (:func:`agentcost.launch.run_cached`: replay from the output cache, else run and store). This
  process waits for the exit code, passes on ``Ctrl-C`` and other signals, and exits with it.
* Where no warm process runs, the run goes here as always. If a person is at a terminal (a standard
  stream is one) and ``CI`` is not set, a warm process is started for the next run. It exits after
  :data:`IDLE_SECONDS` without a request (``AGENTCOST_SERVER_IDLE``: another number of seconds).
* ``AGENTCOST_SERVER=off`` (or ``AGENTCOST_CACHE=off``) never uses or starts one; ``on`` also starts
  one where no terminal is. Linux only (an abstract Unix socket; file descriptors passed with
  ``SCM_RIGHTS``).

Safety. The socket is in Linux's abstract namespace, named for the user id and the key: no file to
plant or leave behind. Each side checks the other's user id (``SO_PEERCRED``) before anything is
sent, so a socket another user bound first is never sent a request. The key covers what the server
cannot change after its imports: agentcost's files and every dependency's (the output cache's
fingerprints), the interpreter, its flags and ``sys.path``, and the environment variables read at
import time (:data:`KEY_ENV_NAMES`, :data:`KEY_ENV_PREFIXES`); an edited source file means a new key,
so a stale server is never asked, and the new key's server stops the old one (:func:`siblings`).
Each run is a fresh fork of a process that only imported modules, so nothing one run reads or
computes reaches another.
"""

from __future__ import annotations

import os
import struct
import sys
from contextlib import suppress
from typing import Any

SWITCH = "AGENTCOST_SERVER"
NAME = "agentcost-warm"
IDLE_SECONDS = 900
COMMANDS = ("estimate", "compare", "diff", "prices", "models")  # the quick what-ifs of a person
MAX_REQUEST = 4 << 20  # bytes of arguments and environment: far over any real command line
FRAME = struct.Struct("!I")  # a request's length, before it
# environment variables that a module the server imports reads at import time (the server's own
# value would hold for every run), and those Python reads at start-up: part of the key
KEY_ENV_NAMES = ("LANG", "LANGUAGE", "TYPER_USE_RICH", "TERMINAL_WIDTH", "_TYPER_FORCE_DISABLE_TERMINAL")
KEY_ENV_PREFIXES = ("PYTHON", "_PYTHON", "LC_")
_TRUE = ("1", "on", "true", "yes")


def setting() -> str:
    """``off``, ``on`` or ``auto`` (the default: start a server only for a person at a terminal).
    Off with the cache, and in the cache's words (``AGENTCOST_CACHE``)."""
    from agentcost.infra import diskcache

    if diskcache.disabled():
        return "off"
    value = os.environ.get(SWITCH, "").strip().lower()
    return "off" if value in diskcache.OFF_WORDS else "on" if value in _TRUE else "auto"


def supported() -> bool:
    """Linux (abstract sockets, ``SO_PEERCRED``) with file descriptors passed over a socket."""
    import _socket

    return sys.platform == "linux" and hasattr(_socket.socket, "sendmsg") and hasattr(os, "fork")


def wanted(argv: list[str]) -> bool:
    """Whether this command line may run in the warm process."""
    return bool(argv) and argv[0] in COMMANDS and setting() != "off" and supported()


def key_environment() -> list[tuple[str, str]]:
    """The environment variables in the key (read at start-up or at import time)."""
    return sorted(
        (name, value)
        for name, value in os.environ.items()
        if name in KEY_ENV_NAMES or name.startswith(KEY_ENV_PREFIXES)
    )


def server_key() -> str:
    """What a server must share with this process to run its commands as this process would:
    ``FAMILY-DIGEST``. The family is the installation as run (the interpreter and ``sys.path``); the
    digest adds agentcost's and the dependencies' files, the flags and the import-time environment.
    A new server stops the others of its family (an edit of agentcost's code leaves no old server)."""
    from agentcost.infra import diskcache

    family = diskcache.digest(sys.executable, list(sys.path), os.getuid())[:16]
    interpreter = (repr(sys.flags), sorted(sys._xoptions.items()), sys.warnoptions)
    return f"{family}-{diskcache.key('warm-server/1', family, interpreter, key_environment())[:32]}"


def address(key: str) -> str:
    """The server's socket: Linux's abstract namespace (a leading NUL), no file on disk."""
    return f"\0{NAME}-{os.getuid()}-{key}"


def siblings(key: str) -> list[str]:
    """The sockets of this user's other servers of ``key``'s family (``/proc/net/unix`` lists
    abstract names with a leading ``@``)."""
    family = f"@{NAME}-{os.getuid()}-{key.split('-', 1)[0]}-"
    mine = "@" + address(key)[1:]
    try:
        with open("/proc/net/unix", encoding="utf-8", errors="replace") as table:
            names = {fields[7] for fields in map(str.split, table) if len(fields) == 8}
    except OSError:
        return []
    return sorted("\0" + name[1:] for name in names if name.startswith(family) and name != mine)


def peer_uid(sock: Any) -> int:
    """The user id of the process at the other end of a Unix socket."""
    import _socket

    creds = sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, struct.calcsize("3i"))
    return int(struct.unpack("3i", creds)[1])


def connect(key: str, *, at: str | None = None) -> Any:
    """A connection to this user's server for ``key`` (or at the socket ``at``), or None (none runs,
    or not ours). The C socket module: ``socket``'s Python layer would add 3 ms to every run."""
    import _socket

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.connect(at or address(key))
        if peer_uid(sock) == os.getuid():
            return sock
    except OSError:
        pass
    sock.close()
    return None


def _stream_spec(stream: Any) -> list[Any]:
    return [
        getattr(stream, "encoding", None) or "utf-8",
        getattr(stream, "errors", None) or "strict",
        bool(getattr(stream, "line_buffering", False)),
        bool(getattr(stream, "write_through", False)),
    ]


FORWARDED = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT")
LIMITS = ("RLIMIT_AS", "RLIMIT_DATA", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_NOFILE", "RLIMIT_CORE")


def limits() -> list[list[Any]]:
    """This process's resource limits that bound a run (memory, CPU time, file sizes and count): the
    child takes them on, or refuses the run (it cannot raise a limit over the server's)."""
    import resource

    found = [(name, getattr(resource, name, None)) for name in LIMITS]
    return [[name, *resource.getrlimit(which)] for name, which in found if which is not None]


def request(argv: list[str]) -> bytes:
    """What the server needs besides the standard streams: the run's arguments and surroundings."""
    import json

    umask = os.umask(0o077)
    os.umask(umask)
    return json.dumps(
        {
            "argv0": sys.argv[0] if sys.argv else "agentcost",
            "argv": argv,
            "cwd": os.getcwd(),
            "umask": umask,
            "env": dict(os.environ),
            "streams": [_stream_spec(s) for s in (sys.stdin, sys.stdout, sys.stderr)],
            "limits": limits(),
        }
    ).encode("utf-8", "surrogatepass")


def run(argv: list[str]) -> int | None:
    """Run ``argv`` in the warm process; its exit code, or None when none took it (run it here).

    None only when nothing ran: no server, another user's socket, a refused request, or a standard
    stream closed (it cannot be passed)."""
    import _socket

    try:
        key = server_key()
        payload = request(argv)
    except (OSError, ValueError):
        return None
    if len(payload) > MAX_REQUEST:
        return None
    sock = connect(key)
    if sock is None:
        return None
    import signal

    child = 0
    caught: list[int] = []

    def forward(signum: int, _frame: Any) -> None:  # Ctrl-C and the like go to the run
        caught.append(signum)
        if child:
            with suppress(OSError):
                os.kill(child, signum)

    previous = {n: signal.signal(n, forward) for n in (getattr(signal, name) for name in FORWARDED)}
    try:
        rights = [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, struct.pack("3i", 0, 1, 2))]
        sock.sendmsg([FRAME.pack(len(payload))], rights)
        sock.sendall(payload)
        reply = _Lines(sock)
        first = reply.line()
        if not first.startswith(b"pid "):  # refused before a child started: nothing ran
            return 128 + caught[-1] if caught else None
        child = int(first[4:])
        for signum in caught:  # any that came before the child was known
            with suppress(OSError):
                os.kill(child, signum)
        last = reply.line()
    except OSError:
        if not child:
            return None  # the request was not taken (EBADF: a standard stream is closed)
        last = b""
    finally:
        sock.close()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if last.startswith(b"exit "):
        return int(last[5:])
    if caught:  # ended by a signal passed on (SIGTERM, SIGQUIT): as a process killed by it
        return 128 + caught[-1]
    sys.stderr.write(
        "agentcost: the warm process's run ended without an exit code; "
        "AGENTCOST_SERVER=off runs it in this process\n"
    )
    return 70


class _Lines:
    """The server's replies, a line at a time (``pid N``, then ``exit N``)."""

    def __init__(self, sock: Any) -> None:
        self._sock = sock
        self._buffer = b""

    def line(self) -> bytes:
        while b"\n" not in self._buffer:
            part = self._sock.recv(256)
            if not part:
                return b""
            self._buffer += part
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line


def ask(op: str, key: str | None = None, *, at: str | None = None) -> dict[str, Any] | None:
    """Ask this installation's server (or the one at the socket ``at``) ``status`` or ``stop``; its
    answer, or None if none runs (or it does not answer within 10 s)."""
    import json

    sock = connect("", at=at) if at else connect(key or server_key())
    if sock is None:
        return None
    try:
        sock.settimeout(10.0)
        payload = json.dumps({"op": op}).encode()
        sock.sendall(FRAME.pack(len(payload)) + payload)
        answer = json.loads(_Lines(sock).line() or b"null")
        return answer if isinstance(answer, dict) else None
    except (OSError, ValueError):
        return None
    finally:
        sock.close()


def idle_seconds() -> int:
    """How long a server waits for a request before it exits: ``AGENTCOST_SERVER_IDLE`` seconds
    (1 to 86,400), else :data:`IDLE_SECONDS`."""
    value = os.environ.get("AGENTCOST_SERVER_IDLE", "").strip()
    return int(value) if value.isdigit() and 1 <= int(value) <= 86_400 else IDLE_SECONDS


def start_and_wait(*, timeout: float = 60.0) -> dict[str, Any] | None:
    """Start a server (if none runs) and wait until it answers; its status, or None if it did not
    start within ``timeout`` seconds (it exited: another server took the key first, or it failed)."""
    import time

    key = server_key()
    status = ask("status", key)
    if status is not None:
        return status
    process = start(key)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = ask("status", key)
        if status is not None:
            return status
        if process.poll() is not None:
            return ask("status", key)  # it lost the key to another server, which may answer
        time.sleep(0.02)
    return None


def start(key: str | None = None) -> Any:
    """Start a server for this process's key, detached; the :class:`subprocess.Popen` (tests wait
    on it). The server's environment is only the variables in the key: it needs nothing else, and a
    run gets its own client's environment."""
    import json
    import subprocess

    key = key or server_key()
    boot = (
        "import sys, json; sys.path[:] = json.loads(sys.argv[1]); "
        "from agentcost.warm_server import main; main(sys.argv[2], int(sys.argv[3]))"
    )
    args = subprocess._args_from_interpreter_flags()  # type: ignore[attr-defined]  # -X, -W, -I, ...
    return subprocess.Popen(
        [sys.executable, *args, "-c", boot, json.dumps(sys.path), key, str(idle_seconds())],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd="/",
        env=dict(key_environment()),
        start_new_session=True,
    )


def start_for_next_run() -> None:
    """After a run here: start a server for the next one, if a person is at a terminal (or
    ``AGENTCOST_SERVER=on``) and not in CI."""
    mode = setting()
    if mode == "off":
        return
    if mode == "auto":
        if os.environ.get("CI"):
            return
        try:
            if not any(os.isatty(fd) for fd in (0, 1, 2)):
                return
        except OSError:
            return
    with suppress(OSError, ValueError):  # no server: the next run goes here too
        start()
