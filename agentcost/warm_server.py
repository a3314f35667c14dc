"""The warm process: the server side (``agentcost.warm`` says what it is for, and why it is safe).

The server binds its socket, imports what a run of the commands it serves imports
(:data:`agentcost.warm.COMMANDS`, :data:`WARM_MODULES`), and waits. For each request from a process
of its own user it forks a child that becomes that process: its standard streams (the descriptors
passed), working directory, umask, environment, arguments, and Python's standard streams rebuilt
with the client's encoding and buffering. The child runs :func:`agentcost.launch.run_cached`, the
same code a run without a server goes through, writes ``exit N`` and ends. The server itself never
reads a scenario, the cache or anything a run reads: it only imports, so no run's state reaches
another."""

from __future__ import annotations

import gc
import importlib
import io
import json
import os
import signal
import socket
import sys
import time
from contextlib import suppress
from typing import Any

from agentcost import warm

# imported before the first request: what a run of agentcost.warm.COMMANDS imports besides the
# launcher's own (the modules they import lazily included)
WARM_MODULES = (
    "agentcost.cli",
    "agentcost.cli_colour",
    "agentcost.cli_output",
    "agentcost.cli_progress",
    "agentcost.scenario.load",
    "agentcost.loop.estimate",
    "agentcost.report.estimate",
    "agentcost.render.table",
    "agentcost.render.output",
    "agentcost.render.jsonfmt",
    "agentcost.render.dynamics",
    "agentcost.prices.genai",
    "agentcost.prices.rowcache",
    "agentcost.tokens.count",
    "agentcost.commands.compare",
    "agentcost.commands.diff",
    "agentcost.render.compare",
    "agentcost.render.diff",
    "agentcost.render.models",
    "agentcost.render.prices",
    "agentcost.infra.diskcache",
    "agentcost.infra.cachecodec",
    "agentcost.infra.writes",
    "agentcost.scenario.cache",
    "agentcost.scenario.project",
    "agentcost.scenario.subagents",
    "agentcost.tokens.apicount",
    "agentcost.tokens.worker",
    "concurrent.futures.thread",
    "rich._emoji_codes",
    "sqlite3",
    "tiktoken",
    "typer._click.decorators",
)
REQUEST_SECONDS = 10.0  # a client that connects and sends nothing is dropped


class _Stop(Exception):
    """``agentcost server stop``: end the server."""


def main(key: str, idle: int = warm.IDLE_SECONDS) -> None:
    """Serve requests for ``key`` until ``idle`` seconds pass without one (or another server for the
    key is already there, or this interpreter's key is not ``key``: the code changed meanwhile)."""
    if warm.server_key() != key:
        return
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(warm.address(key))
    except OSError:  # a server for this key is already there
        listener.close()
        return
    listener.listen(64)  # connections wait in the backlog while the imports below run
    for other in warm.siblings(key):  # the same installation's servers of older code or settings
        warm.ask("stop", at=other)
    for name in WARM_MODULES:
        importlib.import_module(name)
    from agentcost import cli, cli_coerce

    cli_coerce.install()
    cli._command()  # the Click command Typer builds from the app's type hints: ~35 ms a run
    # A child's garbage collections skip what the server made: else its first full collection walks
    # every object of the imports, copying their pages from the server (~22 ms of a 50 ms run).
    gc.collect()
    gc.freeze()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    status: dict[str, Any] = {"pid": os.getpid(), "started": time.time(), "idle_seconds": idle, "runs": 0}
    last_run = time.monotonic()
    while True:
        left = last_run + idle - time.monotonic()  # a status request is not a use: only runs count
        if left <= 0:
            break
        listener.settimeout(left)
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            break
        except OSError:
            continue
        try:
            with conn:
                if _handle(listener, conn, status):
                    last_run = time.monotonic()
        except _Stop:
            break
    listener.close()


def _handle(listener: socket.socket, conn: socket.socket, status: dict[str, Any]) -> bool:
    """Answer one request: fork a run's child (the connection is the child's from then on; True),
    or answer ``status`` or ``stop``, or drop it (False)."""
    fds: list[int] = []
    try:
        if warm.peer_uid(conn) != os.getuid():
            return False
        conn.settimeout(REQUEST_SECONDS)
        head, fds, _flags, _addr = socket.recv_fds(conn, warm.FRAME.size, 3)
        if len(head) != warm.FRAME.size:
            return False
        (size,) = warm.FRAME.unpack(head)
        if size > warm.MAX_REQUEST:
            return False
        request = json.loads(_read_exactly(conn, size).decode("utf-8", "surrogatepass"))
        op = request.get("op", "run") if isinstance(request, dict) else None
        if op in ("status", "stop"):
            conn.sendall((json.dumps(status) + "\n").encode())
            if op == "stop":
                raise _Stop
            return False
        if op != "run" or len(fds) != 3:
            return False
        status["runs"] += 1
        pid = os.fork()
        if pid == 0:
            try:
                _child(listener, conn, fds, request)  # ends with os._exit
            finally:
                os._exit(70)  # whatever happens (a late Ctrl-C), never back into the server's loop
        return True
    except (OSError, ValueError, KeyError, TypeError):
        return False
    finally:
        for fd in fds:
            os.close(fd)


def _read_exactly(conn: socket.socket, size: int) -> bytes:
    parts, got = [], 0
    while got < size:
        part = conn.recv(min(size - got, 1 << 20))
        if not part:
            raise ValueError("the request ended early")
        parts.append(part)
        got += len(part)
    return b"".join(parts)


def _child(listener: socket.socket, conn: socket.socket, fds: list[int], request: dict[str, Any]) -> None:
    """Become the client's run, run it, report its exit code, end. Whatever fails before ``pid`` is
    sent (a limit over the server's, a working directory gone) refuses the run: nothing has run or
    been written, and the client runs it itself."""
    try:
        listener.close()
        conn.settimeout(None)
        for signum in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
            signal.signal(signum, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        if not _limited(request.get("limits", [])):
            raise ValueError("a limit over the server's")
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in fds:
            if fd > 2:
                os.close(fd)
        fds.clear()
        _become(request)
    except BaseException:  # refused
        os._exit(0)
    code = 70
    try:
        conn.sendall(f"pid {os.getpid()}\n".encode())
        from agentcost.infra.writes import tolerant_encoding
        from agentcost.launch import run_cached

        tolerant_encoding(sys.stdout)
        code = run_cached(list(request["argv"]))
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    except KeyboardInterrupt:  # Ctrl-C before the CLI took over: as the CLI ends on it
        code = 130
    except BaseException:  # a bug in the hand-over itself: say so, as a run here would
        import traceback

        traceback.print_exc()
        code = 3
    finally:
        _end(conn, code)


def _limited(limits: list[list[Any]]) -> bool:
    """Take on the client's resource limits; False if one cannot be (over the server's hard limit)."""
    import resource

    for name, soft, hard in limits:
        which = getattr(resource, str(name), None)
        if which is None:
            return False
        try:
            resource.setrlimit(which, (int(soft), int(hard)))
        except (OSError, ValueError):
            return False
    return True


def _become(request: dict[str, Any]) -> None:
    """The client's working directory, umask, environment, arguments and Python streams."""
    os.chdir(request["cwd"])
    os.umask(int(request["umask"]))
    env = request["env"]
    os.environ.clear()
    os.environ.update({str(k): str(v) for k, v in env.items()})
    time.tzset()
    sys.argv = [str(request["argv0"]), *map(str, request["argv"])]
    specs = request["streams"]
    sys.stdin = sys.__stdin__ = _text_stream(0, "r", specs[0])  # type: ignore[misc]
    sys.stdout = sys.__stdout__ = _text_stream(1, "w", specs[1])  # type: ignore[misc]
    sys.stderr = sys.__stderr__ = _text_stream(2, "w", specs[2])  # type: ignore[misc]


def _text_stream(fd: int, mode: str, spec: list[Any]) -> io.TextIOWrapper:
    """A standard stream as Python makes it at start-up (``newline="\\n"`` on POSIX), with the
    client's encoding, error handler and buffering."""
    encoding, errors, line_buffering, write_through = spec
    raw = io.FileIO(fd, mode + "b", closefd=False)
    buffered: Any = io.BufferedReader(raw) if mode == "r" else io.BufferedWriter(raw)
    return io.TextIOWrapper(
        buffered,
        encoding=str(encoding),
        errors=str(errors),
        newline="\n",
        line_buffering=bool(line_buffering),
        write_through=bool(write_through),
    )


def _end(conn: socket.socket, code: int) -> None:
    """Flush, wait for threads and run the exit handlers as a process would, report ``code``, end."""
    import atexit
    import threading

    try:
        for stream in (sys.stdout, sys.stderr):
            with suppress(OSError, ValueError):
                stream.flush()
        with suppress(BaseException):  # as Python's own exit: wait for threads, then the exit handlers
            threading._shutdown()  # type: ignore[attr-defined]
        with suppress(BaseException):  # a handler's failure must not lose the exit code
            atexit._run_exitfuncs()
        with suppress(OSError):
            conn.sendall(f"exit {code}\n".encode())
    finally:
        os._exit(code & 0xFF)
