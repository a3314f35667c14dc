"""The ``agentcost`` console script: replay a stored run, else run the CLI, here or in the warm process.

A single-scenario ``agentcost estimate`` (or ``compare``) is a pure function of its inputs, so its
output is cached like the token counts and price rows (:mod:`agentcost.infra.diskcache`), under the
store's key (:func:`agentcost.infra.diskcache.key`: agentcost's own source and data, every installed
distribution a run imports, the Python version) of everything else that can change it:

* the command line and the working directory;
* today's date (UTC): the default ``--as-of``, and what the price warnings are measured from;
* the whole environment, but for :data:`ENV_IGNORED` (variables a shell changes between two runs of
  the same command that nothing reads), so that no variable agentcost, rich, typer, Python or a
  library reads to decide what to print can be missed; and whether each standard stream is a
  terminal and how wide;
* and, stored with the entry, the sha256 of every file the run read (the scenario, its tool and
  content files, subagent scenarios, a ``--prices`` file): a replay reads and hashes them again and is
  used only if none changed.

A replay writes the same standard output and error and exits with the same code, without importing
typer, rich, pydantic, tiktoken or genai-prices. Only runs the CLI marks as replayable are stored
(:func:`agentcost.replayable.allow_replay`: one scenario, no ``--output`` or ``--summary``, no
progress bar), and only when they end with exit 0 or 1; errors and bugs always run for real.
Help is stored and replayed the same way: it reads no files, so any run that printed it (``--help``
or ``-h`` on the app or a command, exit 0; the bare ``agentcost``, exit 2) is a pure function of the
key. The CLI marks such a run where Typer prints the help (:func:`agentcost.replayable.replayable_help`);
the launcher opens the store only for a command line that may be one of these (:func:`_may_replay`).
``AGENTCOST_CACHE=off`` turns this off with the rest of the cache.

The commands of :data:`agentcost.warm.COMMANDS` go first to the warm process where one serves
(:mod:`agentcost.warm`): its child runs :func:`run_cached`, what this process would run.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, TextIO

from agentcost.replayable import forget_replay, replay_allowed

# the standard library modules a replay or a run needs (json, hashlib, pathlib) are
# imported where used: a run handed to the warm process (agentcost.warm) needs none of them

KIND = "result/1"
ENV_IGNORED = frozenset(
    {
        "_",  # the shell's path of the command being run (`agentcost` or `python`): argv says what runs
        "OLDPWD",  # the previous directory, changed by every `cd`; read only by the shell's `cd -`
        "PWD",  # the shell's name for the working directory: the key has os.getcwd(), what Python reads
        "SHLVL",  # how deep the shell is nested (a subshell, `bash -c`, a terminal multiplexer)
    }
)


def main() -> None:
    """The console script (and ``python -m agentcost``)."""
    from agentcost.infra.writes import tolerant_encoding

    argv = sys.argv[1:]
    tolerant_encoding(sys.stdout)  # PYTHONIOENCODING=ascii: escape what it cannot encode, replays too
    if not _streams_usable():
        _cli_main()
        return
    from agentcost import warm

    served = warm.wanted(argv)
    if served:
        code = warm.run(argv)  # the warm process looks it up or runs it (agentcost.warm)
        if code is not None:
            sys.exit(code)
    code = run_cached(argv) if _may_replay(argv) else _run_cli()
    if served:
        warm.start_for_next_run()
    sys.exit(code)


def _cli_main() -> None:
    from agentcost.cli import main as cli_main

    cli_main()


def run_cached(argv: list[str]) -> int:
    """Replay a stored run of ``argv``, else run it and store its output if it may be replayed;
    the exit code. Also what the warm process's child runs (agentcost.warm_server)."""
    store = _store()
    if store is None:
        return _run_cli()
    key = _key(argv)
    code = _replay(store, key)
    if code is not None:
        return code
    return _record(store, key)


def _record(store: Any, key: str) -> int:
    """Run the CLI, storing its output under ``key`` if the run marked itself replayable."""
    import json

    from agentcost.infra import files

    forget_replay()  # only what this run marks counts (a test may run several in one process)
    with _capture() as (out, err), files.recording() as reads:
        code = _run_cli()
    if replay_allowed(code) and not (out.failed or err.failed):  # never a cut-off output
        entry = {"out": "".join(out), "err": "".join(err), "code": code, "files": reads}
        store.put_blob(KIND, key, json.dumps(entry).encode("utf-8", "surrogatepass"))
    return code


def _run_cli() -> int:
    from agentcost.cli import main as cli_main

    try:
        cli_main()
    except SystemExit as done:
        code = done.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    return 0


def _may_replay(argv: list[str]) -> bool:
    """Whether a stored run may answer this command line: ``estimate``, ``compare``, ``diff``, or one
    that may print help. A cheap look only: what is stored is decided where the run prints
    (``--as-of --help`` opens the store, prints no help and is not stored)."""
    return not argv or argv[0] in ("estimate", "compare", "diff") or "--help" in argv or "-h" in argv


def _streams_usable() -> bool:
    """Whether a run may go through the cache: standard output and error open, the working directory
    there (else the CLI says what is wrong, with exit 2)."""
    try:
        os.getcwd()
    except OSError:
        return False
    return sys.stdout is not None and sys.stderr is not None


def _store() -> Any:
    from agentcost.infra import diskcache

    return diskcache.get_cache()


def _key(argv: list[str]) -> str:
    """The run's own inputs (the store's key adds agentcost's code and the dependencies)."""
    from agentcost.infra import diskcache

    env = sorted((k, v) for k, v in os.environ.items() if k not in ENV_IGNORED)
    streams = []
    for fd in (0, 1, 2):
        try:
            tty = os.isatty(fd)
            size = tuple(os.get_terminal_size(fd)) if tty else None
        except (OSError, ValueError):
            tty, size = False, None
        streams.append((tty, size))
    return diskcache.digest(argv, os.getcwd(), datetime.now(tz=UTC).date().isoformat(), env, streams)


def _replay(store: Any, key: str) -> int | None:
    """Write a stored run's output and return its exit code, if every file it read is unchanged."""
    raw = store.get_blob(KIND, key)
    if raw is None:
        return None
    import hashlib
    import json
    from pathlib import Path

    try:
        entry = json.loads(raw.decode("utf-8", "surrogatepass"))
        from agentcost.infra.files import read_file

        for item in entry["files"]:
            if len(item) == 4 and item[0] == "git-rev":  # diff --base-ref: the ref names the same commit
                from agentcost.infra.gitread import commit_of

                if commit_of(item[1], item[2]) != item[3]:
                    return None
                continue
            path, digest = item
            # bounded and regular files only: a recorded file swapped for a 3 GB file or a FIFO
            # is refused (the run then goes for real and says why), never read whole or waited on
            if hashlib.sha256(read_file(Path(path))).hexdigest() != digest:
                return None
        out, err, code = entry["out"], entry["err"], entry["code"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(code, int) or not isinstance(out, str) or not isinstance(err, str):
        return None
    try:
        sys.stdout.write(out)
        sys.stdout.flush()
    except OSError as error:  # `| head` closed the pipe (exit 0, quietly), a full disk (exit 2)
        from agentcost.infra.writes import StdoutFailed, stdout_failed

        return stdout_failed(StdoutFailed(error), sys.stdout)
    sys.stderr.write(err)
    sys.stderr.flush()
    return code


class _Parts(list[str]):
    """What a run wrote to one stream; ``failed`` when a write or flush failed (the copy may then
    hold what never reached the reader: not stored)."""

    failed = False


class _Tee:
    """A text stream that writes through to ``stream`` and keeps a copy of what was written."""

    def __init__(self, stream: TextIO, parts: _Parts) -> None:
        self._stream = stream
        self._parts = parts

    def write(self, text: str | bytes) -> int:
        if isinstance(text, bytes):  # click's echo may write bytes to a stream without a buffer
            text = text.decode(self._stream.encoding or "utf-8", "surrogateescape")
        self._parts.append(text)
        try:
            return self._stream.write(text)
        except OSError:
            self._parts.failed = True
            raise

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError:
            self._parts.failed = True
            raise

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    @property
    def uncopied(self) -> TextIO:
        """The stream itself, for what a replay must not repeat: the spinner (agentcost.cli_progress)."""
        return self._stream

    def __getattr__(self, name: str) -> Any:  # isatty, fileno, encoding, flush, ...
        if name == "buffer":  # writing bytes past the copy would lose them: text only
            raise AttributeError(name)
        return getattr(self._stream, name)


@contextmanager
def _capture() -> Iterator[tuple[_Parts, _Parts]]:
    out, err = _Parts(), _Parts()
    real_out, real_err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Tee(real_out, out), _Tee(real_err, err)
    try:
        yield out, err
    finally:
        sys.stdout, sys.stderr = real_out, real_err
