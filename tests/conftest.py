"""Shared fixtures: the ``--update-golden`` option, a reproducible Claude counting path, a fixed terminal."""

from __future__ import annotations

import contextlib
import difflib
import os
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings as hypothesis_settings

# Property tests draw the same examples on every run and machine (a CI run must not pass or fail by
# chance) and never replay a local example database; HYPOTHESIS_PROFILE=explore searches afresh.
hypothesis_settings.register_profile("ci", derandomize=True, database=None)
hypothesis_settings.register_profile("explore", derandomize=False)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# Some test modules price a model when they are imported (collection), before any fixture runs:
# with the disk cache off, so that they neither read nor write the user's own cache. Each test then
# sets its own cache up (``private_cache``).
os.environ["AGENTCOST_CACHE"] = "off"


def fuzz_examples(default: int) -> int:
    """How many examples a costly property test draws: ``default`` in the normal run (a quick
    check within the suite's CPU budget), ``AGENTCOST_FUZZ_EXAMPLES`` for a long local fuzz."""
    return int(os.environ.get("AGENTCOST_FUZZ_EXAMPLES") or default)


ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).resolve().parent / "golden"


def _modules() -> dict[str, Path]:
    found = {}
    for path in (ROOT / "agentcost").rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


MODULES = _modules()
"""agentcost's modules by dotted name: the source the structure tests read."""


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite tests/golden/* from the current output instead of comparing with it",
    )


GoldenCheck = Callable[[str, str], None]


@pytest.fixture
def golden(request: pytest.FixtureRequest) -> GoldenCheck:
    """``golden(name, actual)``: compare with ``tests/golden/<name>``, or rewrite it under --update-golden."""
    update = bool(request.config.getoption("--update-golden"))

    def check(name: str, actual: str) -> None:
        _check_golden(name, actual, update)

    return check


def _check_golden(name: str, actual: str, update: bool) -> None:
    path = GOLDEN / name
    if update:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual, encoding="utf-8")
        return
    assert path.is_file(), (
        f"{path} is missing; create it with: python -m pytest tests -k golden --update-golden"
    )
    expected = path.read_text(encoding="utf-8")
    if actual != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True),
                actual.splitlines(keepends=True),
                fromfile=f"tests/golden/{name}",
                tofile="actual",
            )
        )
        pytest.fail(
            f"output differs from tests/golden/{name}; if the change is intended, review the diff and "
            f"run: python -m pytest tests -k golden --update-golden\n{diff}",
            pytrace=False,
        )


@pytest.fixture(autouse=True)
def closed_databases(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every SQLite connection a test opens (its own, or a ``DiskCache`` it made) is closed when the
    test ends. Python 3.13 warns of a connection left to the garbage collector, and the warning
    lands in whichever test happens to be running when the collector finds it."""
    import sqlite3

    opened: list[sqlite3.Connection] = []
    real = sqlite3.connect

    def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        conn = real(*args, **kwargs)
        opened.append(conn)
        return conn

    monkeypatch.setattr(sqlite3, "connect", connect)
    yield
    for conn in opened:
        with contextlib.suppress(sqlite3.ProgrammingError):  # made in a thread the test itself ends
            conn.close()


@pytest.fixture(autouse=True)
def private_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> Path:
    """Every test gets its own empty agentcost cache (XDG_CACHE_HOME): tests never read or write
    the user's real cache, and never see each other's entries. In-process, the disk cache is off
    unless the test is marked ``disk_cache``: a fresh database per test cost ~1,000 creations of a
    SQLite file (~5 s of the suite's CPU) that the test never read again. A test so marked starts
    as a fresh process would, with no price row resolved in memory in front of its disk cache.
    Subprocesses (which inherit ``XDG_CACHE_HOME``, seeded or not) keep theirs."""
    if request.node.get_closest_marker("disk_cache") is None:
        from agentcost.infra import diskcache

        monkeypatch.setattr(diskcache, "get_cache", lambda: None)
    else:
        from agentcost.prices import lookup

        monkeypatch.setattr(lookup, "_RESOLVED", {})
    home = tmp_path_factory.mktemp("xdg-cache")
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    for name in ("AGENTCOST_CACHE", "AGENTCOST_CACHE_DIR", "AGENTCOST_CACHE_MAX_MB"):
        monkeypatch.delenv(name, raising=False)
    for name in ("FORCE_COLOR", "NO_COLOR"):  # a CI job's colour settings must not reach captured output
        monkeypatch.delenv(name, raising=False)
    # CI mode refuses command-line symlinks out of the tree: a test that wants it sets CI itself
    monkeypatch.delenv("CI", raising=False)
    return home / "agentcost"


# The shipped scenarios' token counts and price rows, counted once per session
# (``-q`` estimates, with and without ``--as-of``), without any stored run: a subprocess test given
# a copy (``seeded_cache``, ``seed_cache``) still runs for real, but skips building the o200k
# encoding and loading genai-prices' data (~0.8 s of CPU a cold process). Tests about a cold
# process or the cache itself do not use it.
_SHIPPED = sorted(f"scenarios/{p.name}" for p in (ROOT / "scenarios").glob("*.y*ml"))
SMALLEST = "version: 1\nmodel: gpt-5\ntask: hi\nfinal: 10\n"
"""The smallest valid scenario, which many tests (and their subprocesses) run: seeded too, so that a
seeded subprocess does not build o200k_base for the one word "hi" (a third of a second of CPU)."""
_SEED_RUNS = [  # one file a run
    ["estimate", path, *as_of, "-q"]
    for path in (*_SHIPPED, "smallest.yaml")
    for as_of in ((), ("--as-of", "2026-11-30"))
]


@pytest.fixture(scope="session")
def _seed_database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import contextlib
    import json
    import sqlite3

    from agentcost.infra import diskcache

    home = tmp_path_factory.mktemp("seed-cache")
    (home / "smallest.yaml").write_text(SMALLEST, encoding="utf-8")
    runs = [
        [a, str(home / "smallest.yaml"), *r] if p == "smallest.yaml" else [a, p, *r]
        for a, p, *r in _SEED_RUNS
    ]
    # A process of its own: this one may already hold counts and encoding names that earlier tests
    # made with the disk cache off, which it would then never write to the seed.
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTCOST_CACHE")}
    env.update(XDG_CACHE_HOME=str(home), PYTHONPATH=str(ROOT))
    code = (
        "import contextlib, io, json, sys\nfrom agentcost.cli import run\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
        "    codes = [run(args) for args in json.loads(sys.argv[1])]\n"
        "from agentcost.infra import diskcache\ndiskcache.flush()\n"
        "sys.exit(0 if codes == [0] * len(codes) else 1)\n"
    )
    done = subprocess.run([sys.executable, "-c", code, json.dumps(runs)], cwd=ROOT, env=env, check=False)
    assert done.returncode == 0, "a seed run failed"
    seed = home / "seed.sqlite3"
    source = contextlib.closing(sqlite3.connect(home / "agentcost" / diskcache.DB_NAME))
    with source as database, contextlib.closing(sqlite3.connect(seed)) as copy:
        database.backup(copy)
    # the key of the entries' checksums goes with them (a database without its key is all misses)
    (home / "seed.key").write_bytes((home / "agentcost" / diskcache.KEY_NAME).read_bytes())
    return seed


def git_in(repo: Path, *args: str) -> None:
    """Run git in ``repo`` with a throwaway identity and no signing (tests that commit)."""
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


def copy_seed(seed: Path, home: Path) -> None:
    """Give the cache under ``home`` (an ``XDG_CACHE_HOME``) the seed database (``_seed_database``)."""
    import shutil

    from agentcost.infra import diskcache

    directory = home / "agentcost"
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    shutil.copyfile(seed, directory / diskcache.DB_NAME)
    key = os.open(directory / diskcache.KEY_NAME, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(key, "wb") as handle:
        handle.write(seed.with_suffix(".key").read_bytes())


@pytest.fixture
def seed_cache(_seed_database: Path) -> Callable[[Path], None]:
    """``seed_cache(home)``: give the cache under ``home`` (an ``XDG_CACHE_HOME``) the shipped
    scenarios' counts and price rows (see ``_SEED_RUNS``)."""
    return lambda home: copy_seed(_seed_database, home)


@pytest.fixture
def seeded_cache(private_cache: Path, seed_cache: Callable[[Path], None]) -> Path:
    """This test's private cache, seeded as by ``seed_cache``: for tests whose subprocesses inherit
    ``XDG_CACHE_HOME``."""
    seed_cache(private_cache.parent)
    return private_cache


@pytest.fixture
def no_ctok(monkeypatch: pytest.MonkeyPatch) -> None:
    """Claude counts on the o200k_base x ratio path whatever the Python version (ctok needs >= 3.12),
    so that hand-checked figures and golden files are the same everywhere."""
    monkeypatch.setitem(sys.modules, "ctok", None)


@pytest.fixture
def fixed_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rich output 120 columns wide and without colour, whatever terminal or CI runs the tests."""
    monkeypatch.setenv("COLUMNS", "120")
    monkeypatch.setenv("LINES", "50")
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "JUPYTER_COLUMNS", "JUPYTER_LINES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_COLOR", "1")


_VALIDATORS: dict[str, Any] = {}
_CHECKED_DEFS: set[str] = set()  # the $defs already checked against the meta-schema
_BY_ID: dict[
    int, tuple[dict[str, Any], Any]
] = {}  # id -> (the schema, kept alive so its id is not reused; validator)


def json_validator(schema: dict[str, Any]) -> Any:
    """A validator of ``schema``, the schema checked against its meta-schema once per distinct
    schema instead of on every call (that check is ~0.3 s a call for the report schema); the same
    schema object again is found without serialising it."""
    import json

    import jsonschema

    known = _BY_ID.get(id(schema))
    if known is not None and known[0] is schema:
        return known[1]
    key = json.dumps(schema, sort_keys=True, default=str)
    validator = _VALIDATORS.get(key)
    if validator is None:
        cls = jsonschema.validators.validator_for(schema)
        # one kind's schema carries every kind's $defs: check those once, then the rest of each
        defs = schema.get("$defs")
        if isinstance(defs, dict):
            defs_key = json.dumps(defs, sort_keys=True, default=str)
            if defs_key not in _CHECKED_DEFS:
                cls.check_schema({k: v for k, v in schema.items() if k in ("$schema", "$defs")})
                _CHECKED_DEFS.add(defs_key)
            cls.check_schema({k: v for k, v in schema.items() if k != "$defs"})
        else:
            cls.check_schema(schema)
        validator = _VALIDATORS[key] = cls(schema)
    _BY_ID[id(schema)] = (schema, validator)
    return validator


def validate_json(instance: Any, schema: dict[str, Any]) -> None:
    """``jsonschema.validate`` through :func:`json_validator`."""
    json_validator(schema).validate(instance)


TERMINAL_ENV: dict[str, str | None] = {  # what a terminal (or CI) may set that would change Rich's output
    "FORCE_COLOR": None,
    "TTY_COMPATIBLE": None,
    "TTY_INTERACTIVE": None,
    "JUPYTER_COLUMNS": None,
    "JUPYTER_LINES": None,
    "GITHUB_ACTIONS": None,
}


def run_in_pty(args: Sequence[str], width: int, *, cwd: Path, env: dict[str, str]) -> str:
    """``python -m agentcost ARGS`` (ctok hidden, as in ``no_ctok``) with its stdout on a real
    pseudo-terminal ``width`` columns wide: the text a user's terminal receives, ``\r`` removed."""
    import fcntl
    import struct
    import subprocess
    import termios

    controller, terminal = os.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 50, width, 0, 0))
    code = "import runpy, sys; sys.modules['ctok'] = None; runpy.run_module('agentcost', run_name='__main__')"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        env={**env, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)},
        stdin=subprocess.DEVNULL,
        stdout=terminal,
        stderr=subprocess.PIPE,
    )
    os.close(terminal)
    chunks: list[bytes] = []
    while True:
        try:
            data = os.read(controller, 65536)
        except OSError:  # EIO: the terminal's other end closed
            break
        if not data:
            break
        chunks.append(data)
    _, err = proc.communicate(timeout=60)
    os.close(controller)
    assert proc.returncode == 0, err.decode()
    return b"".join(chunks).decode("utf-8").replace("\r", "")
