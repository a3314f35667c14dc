"""The persistent cache (agentcost.infra.diskcache): token counts and price rows.

Every test runs with its own empty XDG_CACHE_HOME (tests/conftest.py ``private_cache``).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from agentcost.errors import InputError
from agentcost.infra import cachecodec, diskcache
from agentcost.prices import lookup as P
from agentcost.prices.genai import MAIN_PROVIDERS, known_model_ids
from agentcost.prices.pricing import Usage
from agentcost.scenario.model import Content
from agentcost.tokens import memo as T

pytestmark = pytest.mark.disk_cache  # these tests are about the disk cache itself

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = sorted((ROOT / "scenarios").glob("*.yaml"))
WHEN = datetime(2026, 11, 30, tzinfo=UTC)


@pytest.fixture(autouse=True)
def fresh_process_state(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No pending writes or open database carried between tests."""
    diskcache.flush()
    yield
    diskcache.flush()


def run_cli(
    *args: str, env: dict[str, str] | None = None, importtime: bool = False
) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, *(["-X", "importtime"] if importtime else []), "-m", "agentcost", *args]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=env or dict(os.environ))


def imported(stderr: str) -> set[str]:
    """Module names in ``python -X importtime`` output."""
    names = set()
    for line in stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip())
    return names


def db_path() -> Path:
    directory = diskcache.cache_dir()
    assert directory is not None
    return directory / diskcache.DB_NAME


# ---------------------------------------------------------------------------------------------
# The cached price arithmetic equals genai-prices' on every model
# ---------------------------------------------------------------------------------------------


def usages(thresholds: tuple[int, ...], has_1h: bool) -> list[Usage]:
    """Usages around every tier threshold (a whole request crossing one is repriced) and plain ones."""
    sizes = [0, 1, 999, 12_345, 150_000]
    for t in thresholds:
        sizes += [t - 1, t, t + 1, t * 2 + 7]
    out: list[Usage] = []
    for n in sorted(set(sizes)):
        read = n // 3
        write = n // 5
        write_1h = n // 7 if has_1h else 0
        out += [
            Usage(input_tokens=n, output_tokens=n // 10 + 3),
            Usage(input_tokens=n, output_tokens=17, cache_read_tokens=read),
            Usage(
                input_tokens=n,
                output_tokens=999,
                cache_read_tokens=read,
                cache_write_tokens=write,
                cache_write_1h_tokens=write_1h,
            ),
            Usage(input_tokens=n, output_tokens=0, cache_write_tokens=n),
            Usage(input_tokens=n, output_tokens=5, web_searches=3, code_executions=2),
        ]
    return out


def every_row(when: datetime) -> Iterator[P.ModelPrices]:
    for provider in MAIN_PROVIDERS:  # every provider at one usage: tests/test_providers_resolution.py
        for model in known_model_ids(provider):
            base = P.resolve_model(model, provider=provider, as_of=when)
            for tier in base.service_tiers:
                yield (
                    base
                    if tier == "standard"
                    else P.resolve_model(model, provider=provider, as_of=when, service_tier=tier)
                )


def outcome(fn: object, usage: Usage) -> tuple[str, ...]:
    try:
        cost = fn(usage)  # type: ignore[operator]
    except InputError as err:
        return ("error", err.message.split(":")[0])
    return (str(cost.input_usd), str(cost.output_usd), str(cost.total_usd))


# genai-prices' own answer for a price object and a usage: most rows have the same prices on the
# three dates below, and calc_price (the reference, ~10x our compiled arithmetic) need not run again.
_THEIRS: dict[tuple[str, str, Usage], tuple[str, ...]] = {}


def theirs_of(prices: P.ModelPrices, usage: Usage) -> tuple[str, ...]:
    key = (repr(prices._price), prices.model_id, usage)
    if key not in _THEIRS:
        _THEIRS[key] = outcome(prices.genai_cost, usage)
    return _THEIRS[key]


@pytest.mark.parametrize("when", [WHEN, datetime(2025, 6, 1, tzinfo=UTC), datetime(2027, 3, 1, tzinfo=UTC)])
def test_cached_arithmetic_equals_genai_prices_on_every_model(when: datetime) -> None:
    rows = checked = tiered = 0
    for prices in every_row(when):
        assert prices.table is not None, f"{prices.model_id}: no price table"
        rows += 1
        tiered += prices.has_tiers
        for usage in usages(prices.tier_thresholds, prices.cache_write_1h_mtok is not None):
            ours = outcome(prices.cost, usage)
            theirs = theirs_of(prices, usage)
            assert ours == theirs, (prices.model_id, prices.service_tier, usage)
            checked += 1
    assert rows > 100 and tiered > 5 and checked > 3_000


def test_a_row_read_from_the_cache_prices_like_genai_prices() -> None:
    for model in ("claude-sonnet-4-5", "gemini-2.5-pro", "gpt-5", "gpt-4o-mini"):
        fresh = P.resolve_model(model, as_of=WHEN)
        diskcache.flush()
        again = P.resolve_model(model, as_of=datetime(2026, 11, 30, 15, 4, tzinfo=UTC))
        assert again._price is None  # read from the cache: no genai-prices object
        assert again == replace(fresh, source=replace(fresh.source, as_of=again.source.as_of))
        assert again.source.as_of == datetime(2026, 11, 30, 15, 4, tzinfo=UTC)
        assert again.rates() == fresh.rates()
        for usage in usages(fresh.tier_thresholds, fresh.cache_write_1h_mtok is not None):
            assert outcome(again.cost, usage) == outcome(fresh.genai_cost, usage)


def test_price_rows_are_keyed_by_date_tier_and_price_file(tmp_path: Path) -> None:
    first = P.resolve_model("gpt-5", as_of=WHEN)
    diskcache.flush()
    assert P.resolve_model("gpt-5", as_of=WHEN, service_tier="batch").service_tier == "batch"
    later = P.resolve_model("gpt-5", as_of=datetime(2030, 1, 1, tzinfo=UTC))
    assert later.warnings != first.warnings  # stale-data warning of its own date, not the cached one
    prices_file = tmp_path / "prices.yaml"
    prices_file.write_text(
        "version: 1\nmodels:\n  - {id: gpt-5, provider: openai, source: contract, input_mtok: 1, output_mtok: 2}\n"
    )
    from agentcost.prices.user import load_user_prices

    mine = P.resolve_model("gpt-5", as_of=WHEN, user_prices=load_user_prices(prices_file))
    assert mine.input_mtok == Decimal(1) and mine.source.kind == "user"
    diskcache.flush()
    prices_file.write_text(prices_file.read_text().replace("input_mtok: 1", "input_mtok: 3"))
    changed = P.resolve_model("gpt-5", as_of=WHEN, user_prices=load_user_prices(prices_file))
    assert changed.input_mtok == Decimal(3)


# ---------------------------------------------------------------------------------------------
# Token counts
# ---------------------------------------------------------------------------------------------


def test_token_counts_persist_and_the_next_process_needs_no_encoding(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = [f"text number {i}: " + "lorem ipsum " * i for i in range(40)]
    first = T.TokenMemo()
    first.prefetch_tiktoken("o200k_base", texts)
    expected = [first.tiktoken("o200k_base", t) for t in texts]
    diskcache.flush()

    def no_encoding(name: str) -> object:
        raise AssertionError("the encoding was loaded")

    monkeypatch.setattr(T, "get_encoding", no_encoding)
    second = T.TokenMemo()
    second.prefetch_tiktoken("o200k_base", texts)
    assert [second.tiktoken("o200k_base", t) for t in texts] == expected
    stats = second.stats("o200k_base")
    assert stats.disk_hits == len(texts) and stats.texts_counted == 0
    assert T.TokenMemo().tiktoken("o200k_base", texts[3]) == expected[3]  # one text at a time too
    with pytest.raises(AssertionError, match="loaded"):
        T.TokenMemo().tiktoken("cl100k_base", texts[3])  # another scheme: not in the cache
    with pytest.raises(AssertionError, match="loaded"):
        T.TokenMemo(persistent=False).tiktoken("o200k_base", texts[3])


def test_the_scheme_id_names_the_encoding_and_its_rules() -> None:
    o200k, cl100k = T.tiktoken_scheme_id("o200k_base"), T.tiktoken_scheme_id("cl100k_base")
    assert o200k.startswith("tiktoken/o200k_base/446a9538cb6c348e/") and o200k != cl100k


def test_cache_off_writes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTCOST_CACHE", "off")
    assert diskcache.cache_dir() is None and diskcache.get_cache() is None
    T.TokenMemo().prefetch_tiktoken("o200k_base", ["hello"])
    P.resolve_model("gpt-5", as_of=WHEN)
    diskcache.flush()
    xdg = Path(os.environ["XDG_CACHE_HOME"])
    assert not (xdg / "agentcost").exists()


# ---------------------------------------------------------------------------------------------
# Where the cache lives
# ---------------------------------------------------------------------------------------------


def test_the_cache_honours_xdg_cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert diskcache.cache_dir() == tmp_path / "xdg" / "agentcost"
    T.TokenMemo().prefetch_tiktoken("o200k_base", ["hello there"])
    diskcache.flush()
    assert (tmp_path / "xdg" / "agentcost" / diskcache.DB_NAME).is_file()
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/dir")  # invalid per the XDG spec: ignored
    assert diskcache.cache_dir() == Path.home() / ".cache" / "agentcost" or sys.platform in (
        "darwin",
        "win32",
    )
    monkeypatch.setenv("AGENTCOST_CACHE_DIR", str(tmp_path / "explicit"))
    assert diskcache.cache_dir() == tmp_path / "explicit"


class ColdRun:
    """One cold CLI run in a cache of its own, and what it left in the database right after."""

    def __init__(self, home: Path, done: subprocess.CompletedProcess[str]) -> None:
        self.home, self.done = home, done
        with sqlite3.connect(home / "agentcost" / diskcache.DB_NAME) as conn:
            self.kinds = {k for (k,) in conn.execute("SELECT DISTINCT kind FROM blobs")}
            (self.tokens,) = conn.execute("SELECT COUNT(*) FROM tokens").fetchone()
        conn.close()

    def env(self) -> dict[str, str]:
        return dict(os.environ, XDG_CACHE_HOME=str(self.home), COLUMNS="110")


COLD_ARGS = ("estimate", "scenarios/bugfix.yaml", "--as-of", "2026-11-30")


@pytest.fixture(scope="module")
def cold_bugfix(tmp_path_factory: pytest.TempPathFactory) -> ColdRun:
    """The cold start several tests share (each subprocess start costs most of a second of CPU)."""
    home = tmp_path_factory.mktemp("cold-bugfix")
    env = dict(os.environ, XDG_CACHE_HOME=str(home), COLUMNS="110")
    for name in ("AGENTCOST_CACHE", "AGENTCOST_CACHE_DIR", "AGENTCOST_CACHE_MAX_MB"):
        env.pop(name, None)
    return ColdRun(home, run_cli(*COLD_ARGS, env=env, importtime=True))


def test_a_cli_run_writes_under_xdg_cache_home(cold_bugfix: ColdRun) -> None:
    assert cold_bugfix.done.returncode == 0, cold_bugfix.done.stderr[-2000:]
    assert cold_bugfix.kinds == {"price"} and cold_bugfix.tokens > 10  # no scenario, fact or run is kept


# ---------------------------------------------------------------------------------------------
# A warm run loads neither the encoding nor genai-prices, and prints the same
# ---------------------------------------------------------------------------------------------


def test_a_warm_estimate_imports_neither_tiktoken_nor_genai_prices(
    cold_bugfix: ColdRun, tmp_path: Path, seed_cache: Callable[[Path], None]
) -> None:
    cold = cold_bugfix.done
    warm = run_cli(*COLD_ARGS, env=cold_bugfix.env(), importtime=True)
    assert cold.returncode == warm.returncode == 0, cold.stderr[-2000:]
    assert warm.stdout == cold.stdout
    # genai_prices itself is registered without its __init__ (catalog.prices): count its submodules
    assert {"tiktoken", "genai_prices"} <= {m.split(".")[0] for m in imported(cold.stderr)}
    assert not {m for m in imported(warm.stderr) if m.split(".")[0] in ("tiktoken", "genai_prices")}
    # more kinds of scenario, all in one project file: a project run is never replayed, so the
    # second run goes for real on the cached token counts, scenarios and price rows alone
    others = ("research.yaml", "mcp-40-tools.yaml", "routing.yaml", "subagent-research.yaml")
    project = tmp_path / "others.yml"
    project.write_text(
        "version: 1\nscenarios:\n" + "".join(f"  - path: {ROOT / 'scenarios' / o}\n" for o in others)
    )
    again = ("estimate", str(project), "--as-of", "2026-11-30", "-f", "json")
    again += ("--allow-path", str(ROOT / "scenarios"))
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    seed_cache(tmp_path)  # what one -q estimate of each shipped scenario left: all a project of them needs
    done = run_cli(*again, env=env, importtime=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert all(f'"path": "{ROOT / "scenarios" / o}"' in done.stdout for o in others)
    assert not {m for m in imported(done.stderr) if m.split(".")[0] in ("tiktoken", "genai_prices")}


def test_a_warm_compare_imports_no_genai_prices(tmp_path: Path, seed_cache: Callable[[Path], None]) -> None:
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    seed_cache(tmp_path)  # bugfix.yaml's counts and gpt-5's row; gemini-2.5-pro's row is the first run's
    args = (
        "compare",
        "scenarios/bugfix.yaml",
        "-m",
        "gpt-5",
        "-m",
        "gemini-2.5-pro",
        "--as-of",
        "2026-11-30",
    )
    cold, warm = run_cli(*args, env=env), run_cli(*args, env=env, importtime=True)
    assert cold.returncode == warm.returncode == 0 and cold.stdout == warm.stdout
    assert not {m for m in imported(warm.stderr) if m.split(".")[0] in ("tiktoken", "genai_prices")}


# ---------------------------------------------------------------------------------------------
# Harmless when corrupt, unwritable or contended
# ---------------------------------------------------------------------------------------------


def in_process(
    args: Sequence[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[int, str, str]:
    """The CLI run in this process, from the checkout: its exit code, stdout and stderr."""
    from agentcost import cli

    monkeypatch.chdir(ROOT)
    capsys.readouterr()
    code = cli.run(list(args))
    diskcache.flush()
    out, err = capsys.readouterr()
    return code, out, err


def test_a_corrupt_cache_file_is_replaced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    args = ("estimate", "scenarios/bugfix.yaml", "--as-of", "2026-11-30", "-q")
    monkeypatch.setenv("AGENTCOST_CACHE", "off")
    code, expected, _ = in_process(args, capsys, monkeypatch)
    monkeypatch.delenv("AGENTCOST_CACHE")
    assert code == 0 and expected.strip()
    db = tmp_path / "agentcost" / diskcache.DB_NAME
    db.parent.mkdir(parents=True)
    db.write_bytes(b"this is not a database\x00" * 100)
    done = run_cli(*args, env=env)
    assert (done.returncode, done.stdout, done.stderr) == (0, expected, "")
    with sqlite3.connect(db) as conn:  # replaced by a good database, now filled
        assert conn.execute("SELECT COUNT(*) FROM tokens").fetchone()[0] > 0
    conn.close()


def test_corrupt_entries_are_ignored(cold_bugfix: ColdRun, tmp_path: Path) -> None:
    # a copy of a filled cache (token counts, price rows), every stored value then made unreadable
    shutil.copytree(cold_bugfix.home / "agentcost", tmp_path / "agentcost")
    db = tmp_path / "agentcost" / diskcache.DB_NAME
    with sqlite3.connect(db) as conn:
        assert conn.execute("UPDATE blobs SET value = x'5b226f222c22617a7a227d'").rowcount > 0  # ["o","azz"}
    conn.close()
    done = run_cli(*COLD_ARGS, env=dict(cold_bugfix.env(), XDG_CACHE_HOME=str(tmp_path)))
    assert (done.returncode, done.stdout, done.stderr) == (0, cold_bugfix.done.stdout, "")


def test_crafted_entries_build_only_agentcost_dataclasses() -> None:
    for data in (
        b'["o","os:system","echo hi"]',
        b'["o","agentcost.errors:InputError","x"]',
        b'["o","agentcost.scenario.model:Content","a","b","c"]',
        b'["q",1]',
        b"[1",
    ):
        with pytest.raises(cachecodec.CodecError):
            cachecodec.decode(data)


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs a non-root POSIX user")
def test_an_unwritable_cache_dir_only_slows_down(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    try:
        monkeypatch.setenv("XDG_CACHE_HOME", str(locked))
        code, out, err = in_process(
            ("estimate", "scenarios/bugfix.yaml", "--as-of", "2026-11-30", "-q"), capsys, monkeypatch
        )
        assert (code, err) == (0, "") and out.strip()
        assert not (locked / "agentcost").exists()
    finally:
        locked.chmod(0o700)


def test_a_cache_dir_that_cannot_be_created_only_slows_down(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker / "sub"))
    memo = T.TokenMemo()
    memo.prefetch_tiktoken("o200k_base", ["hello world"])
    assert memo.tiktoken("o200k_base", "hello world") == 2
    assert P.resolve_model("gpt-5", as_of=WHEN).model_id == "gpt-5"
    diskcache.flush()
    assert diskcache.get_cache() is None  # broken for this process: silently off
    code, out, err = in_process(
        ("estimate", "scenarios/bugfix.yaml", "--as-of", "2026-11-30", "-q"), capsys, monkeypatch
    )
    assert (code, err) == (0, "") and out.strip()


WRITER = textwrap.dedent(
    """
    import sys
    from agentcost.infra import diskcache
    # a writer that waits longer than the busy timeout drops its writes by design; on a loaded CI
    # machine 2 s can pass, so give these writers time: the test is that every write lands intact
    diskcache.BUSY_TIMEOUT_S = 60.0
    me = int(sys.argv[1])
    cache = diskcache.get_cache()
    for batch in range(40):
        counts = {diskcache.text_digest(f"{me}-{batch}-{i}"): i for i in range(50)}
        cache.put_token_counts("test", counts)
        cache.put_blob("test", f"{me}-{batch}", bytes(100))
        shared = {diskcache.text_digest(f"shared-{i}"): i for i in range(50)}
        cache.put_token_counts("test", shared)
        cache.flush()
        assert cache.token_counts("test", counts) == {d: n for d, n in counts.items()}
    assert cache.usable and cache.stats.errors == 0, cache.stats
    print("ok")
    """
)


def test_two_processes_write_at_once(tmp_path: Path) -> None:
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(n)],
            env=env,
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in (1, 2)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    with sqlite3.connect(tmp_path / "agentcost" / diskcache.DB_NAME) as conn:
        assert conn.execute("SELECT COUNT(*) FROM tokens").fetchone()[0] == 2 * 40 * 50 + 50
        assert conn.execute("SELECT COUNT(*) FROM blobs WHERE kind = 'test'").fetchone()[0] == 80
    conn.close()


def test_two_cold_estimates_at_once_agree(tmp_path: Path) -> None:
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    cmd = [
        sys.executable,
        "-m",
        "agentcost",
        "estimate",
        "scenarios/research.yaml",
        "--as-of",
        "2026-11-30",
        "-f",
        "json",
    ]
    procs = [
        subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0] and outs[0] == outs[1] and outs[0][1] == ""
    assert run_cli(*cmd[3:], env=env).stdout == outs[0][0]


def test_the_size_bound_drops_least_recently_used_entries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTCOST_CACHE_MAX_MB", "0.2")
    cache = diskcache.get_cache()
    assert cache is not None
    for batch in range(60):
        cache.put_blob("test", f"k{batch}", bytes(range(256)) * 8, now=False)
        cache.put_token_counts("test", {diskcache.text_digest(f"{batch}-{i}"): i for i in range(40)})
        cache.flush()
    assert db_path().stat().st_size < 600_000
    assert cache.get_blob("test", "k59") is not None  # the newest survive
    assert cache.usable


# ---------------------------------------------------------------------------------------------
# The value codec
# ---------------------------------------------------------------------------------------------


def test_the_codec_keeps_types_and_shares_repeats() -> None:
    text = "x" * 500
    value = (
        Decimal("1.50"),
        date(2026, 11, 30),
        WHEN,
        Path("a/b.yaml"),
        [1, 2.5, None, True],
        {"k": (1,), 2: frozenset({3})},
        Content(text=text),
        Content(text=text),
        float("inf"),
    )
    data = cachecodec.encode(value)
    again = cachecodec.decode(data)
    assert again == value and str(again[0]) == "1.50" and isinstance(again[3], Path)
    assert data.count(b"xxxxxxxxxx") == 50  # the long text stored once
    with pytest.raises(cachecodec.CodecError):
        cachecodec.encode(object())


def test_the_source_digest_follows_edits(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    before = diskcache._tree_fingerprint(str(tmp_path), (".py",))
    os.utime(tmp_path / "a.py", ns=(1, 1))
    assert diskcache._tree_fingerprint(str(tmp_path), (".py",)) != before
    assert len(diskcache.source_digest()) == 64
    assert diskcache.package_fingerprint("no_such_package_here") == "absent"


def test_the_database_uses_wal() -> None:
    # readers never wait for a writer (bench/run.py measures this store against a JSON file)
    cache = diskcache.get_cache()
    assert cache is not None
    cache.put_blob("test", "k", b"v")
    with sqlite3.connect(db_path()) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal"
    conn.close()


def test_a_locked_database_is_left_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A database another process holds locked is not "corrupt": this run goes without the cache and
    the other's entries stay (two CI writers once lost theirs when the first open met a lock)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(diskcache, "BUSY_TIMEOUT_S", 0.05)
    db = tmp_path / "agentcost" / diskcache.DB_NAME
    db.parent.mkdir(parents=True)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("CREATE TABLE other (x)")
    holder.execute("INSERT INTO other VALUES (1)")
    holder.execute("BEGIN EXCLUSIVE")  # as a writer in the middle of its transaction
    try:
        cache = diskcache.DiskCache(db.parent)
        assert cache.token_counts("s", [diskcache.text_digest("a")]) == {}
        assert not cache.usable and cache.stats.errors == 1
    finally:
        holder.execute("COMMIT")
    assert holder.execute("SELECT x FROM other").fetchall() == [(1,)]
    holder.close()


# ---------------------------------------------------------------------------------------------
# One key for every layer: agentcost's source and every dependency
# ---------------------------------------------------------------------------------------------


class Missed(Exception):
    """The layer did its work again: the cache missed."""


def missed(*args: object, **kwargs: object) -> object:
    raise Missed


def layer_tokens(monkeypatch: pytest.MonkeyPatch) -> Callable[[], bool]:
    texts = ["one key for every layer", "and every dependency in it"]
    T.TokenMemo().prefetch_tiktoken("o200k_base", texts)

    def hit() -> bool:
        memo = T.TokenMemo()
        memo.prefetch_tiktoken("o200k_base", texts)
        return memo.stats("o200k_base").disk_hits == len(texts)

    return hit


def layer_price(monkeypatch: pytest.MonkeyPatch) -> Callable[[], bool]:
    P.resolve_model("gpt-5", as_of=WHEN)

    def hit() -> bool:
        with monkeypatch.context() as m:
            m.setattr(P, "_RESOLVED", {})  # past the rows resolved in this process, to the disk
            return P.resolve_model("gpt-5", as_of=WHEN)._price is None  # no genai-prices object: cached

    return hit


def layer_tiktoken_model(monkeypatch: pytest.MonkeyPatch) -> Callable[[], bool]:
    from agentcost.tokens import openai

    monkeypatch.setattr(openai, "_MODEL_ENCODINGS", {})
    openai.openai_encoding_name("gpt-4.1")

    def hit() -> bool:
        with monkeypatch.context() as m:
            m.setattr(openai, "_MODEL_ENCODINGS", {})
            m.setattr(openai, "_openai_encoding_uncached", missed)
            try:
                return openai.openai_encoding_name("gpt-4.1")[0] == "o200k_base"
            except Missed:
                return False

    return hit


LAYERS: dict[str, Callable[[pytest.MonkeyPatch], Callable[[], bool]]] = {
    "tokens": layer_tokens,
    "price": layer_price,
    "tiktoken-model": layer_tiktoken_model,
}
CHANGES = ("agentcost's source", *sorted(diskcache.DEPENDENCIES), "python")


@pytest.mark.parametrize("layer", LAYERS)
def test_every_layer_misses_when_agentcost_or_a_dependency_changes(
    layer: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    hit = LAYERS[layer](monkeypatch)
    diskcache.flush()
    assert hit(), f"{layer}: the entry just stored is not found"
    real = diskcache.dependency_fingerprint
    for change in CHANGES:
        with monkeypatch.context() as m:
            if change == "agentcost's source":
                m.setattr(diskcache, "source_digest", lambda: "an edited checkout")
            elif change == "python":
                m.setattr(sys, "version", sys.version + " (another build)")
            else:
                m.setattr(
                    diskcache,
                    "dependency_fingerprint",
                    lambda name, changed=change: "upgraded" if name == changed else real(name),
                )
            assert not hit(), f"{layer}: still used after a change of {change}"
    assert hit(), f"{layer}: the entry is lost once everything is back"


def test_a_dependency_fingerprint_follows_installs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A wheel: its dist-info's RECORD (rewritten by every install); development mode or no
    dist-info at all: the package's own files."""
    site = tmp_path / "site"
    package = site / "fakedep"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("x = 1\n")
    info = site / "FakeDep-1.0.dist-info"
    info.mkdir()
    (info / "RECORD").write_text("fakedep/__init__.py,,\n")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setitem(diskcache.DEPENDENCIES, "fakedep", ("fakedep",))

    def fingerprint() -> str:
        monkeypatch.setattr(diskcache, "_FINGERPRINTS", {})
        monkeypatch.setattr(diskcache, "_DIST_INFOS", None)
        return diskcache.dependency_fingerprint("fakedep")

    wheel = fingerprint()
    os.utime(info / "RECORD", ns=(1, 1))  # reinstalled
    assert fingerprint() != wheel
    reinstalled = fingerprint()
    (package / "__init__.py").write_text("x = 2  # edited in place\n")
    assert fingerprint() == reinstalled  # a wheel's files are taken as its RECORD says
    (info / "direct_url.json").write_text('{"url": "file:///src", "dir_info": {"editable": true}}')
    editable = fingerprint()
    assert editable != reinstalled
    os.utime(package / "__init__.py", ns=(2, 2))  # edited in development mode
    assert fingerprint() != editable
    shutil.rmtree(info)
    bare = fingerprint()  # on sys.path without a dist-info
    os.utime(package / "__init__.py", ns=(3, 3))
    assert fingerprint() != bare


def test_the_dependency_list_covers_every_distribution_a_run_imports(tmp_path: Path) -> None:
    """Cold runs of each kind of command import no third-party distribution the key leaves out
    (beyond what Python's own start-up imports, such as site hooks)."""
    from importlib.metadata import packages_distributions

    def top_level(args: Sequence[str]) -> set[str]:
        cmd = [sys.executable, "-X", "importtime", *args]
        env = dict(os.environ, AGENTCOST_CACHE="off", COLUMNS="100")
        done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=env)
        assert done.returncode in (0, 1), done.stderr[-2000:]
        return {m.split(".")[0] for m in imported(done.stderr)}

    start_up = top_level(["-c", "pass"])
    # two commands import every distribution agentcost uses (checked against five kinds of command:
    # the markdown, CSV and diff renderers and project files import no distribution of their own): a
    # simulation (numpy) and a comparison that counts for OpenAI, Google and Anthropic (ctok); one
    # process runs both, as the console script would one after the other
    commands = (
        ["estimate", "scenarios/uncertain-steps.yaml", "--simulate", "200", "-f", "json"],
        ["compare", "scenarios/bugfix.yaml", "-m", "gpt-5", "-m", "gemini-2.5-pro", "-m", "claude-opus-4-1"],
    )
    both = (
        "import sys\nfrom agentcost.cli import main\n"
        f"for args in {commands!r}:\n"
        "    sys.argv = ['agentcost', *args]\n"
        "    try:\n        main()\n    except SystemExit as done:\n"
        "        assert done.code in (0, 1, None), done.code\n"
    )
    used = top_level(["-c", both]) - start_up
    owners = packages_distributions()
    distributions = {diskcache_name(d) for m in used for d in owners.get(m, ())}
    assert "numpy" in distributions and "pyyaml" in distributions  # the check itself works
    assert distributions - {"agentcost_estimate"} <= set(diskcache.DEPENDENCIES)


def diskcache_name(distribution: str) -> str:
    return distribution.lower().replace("-", "_").replace(".", "_")


def test_a_database_being_created_elsewhere_is_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process holding the write lock while it creates the database makes this one wait (up to
    the busy timeout) and then use the cache, never run without it or replace the file."""
    import threading

    monkeypatch.setattr(diskcache, "BUSY_TIMEOUT_S", 60.0)
    directory = tmp_path / "agentcost"
    directory.mkdir(mode=0o700)
    holder = sqlite3.connect(directory / diskcache.DB_NAME, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN EXCLUSIVE")  # as a creator in the middle of its first transaction
    release = threading.Timer(0.5, lambda: holder.execute("COMMIT"))
    release.start()
    cache = None
    try:
        cache = diskcache.DiskCache(directory)
        digest = diskcache.text_digest("a")
        cache.put_token_counts("s", {digest: 1})
        cache.flush()
        assert cache.token_counts("s", [digest]) == {digest: 1}
        assert cache.usable and cache.stats.errors == 0
    finally:
        release.join()
        holder.close()
        if cache is not None:
            cache.close()  # not left to the garbage collector (Python 3.13 warns of an unclosed database)


def test_a_row_resolved_once_in_a_process_is_the_same_object_the_next_time() -> None:
    """A batch, comparison or replay asks for the same row again and again: the process keeps it
    (by the disk cache's row key, the moment and the timing), bounded to ``MAX_RESOLVED`` rows."""
    first = P.resolve_model("gpt-5", as_of=WHEN)
    assert P.resolve_model(" gpt-5 ", as_of=WHEN) is first  # the row key strips the id
    assert P.resolve_model("gpt-5", as_of=WHEN, service_tier="flex") is not first
    later = datetime(2026, 11, 30, 15, 0, tzinfo=UTC)
    assert P.resolve_model("gpt-5", as_of=later).source.as_of == later  # another moment, its own row
    for day in range(1, P.MAX_RESOLVED + 2):
        P.resolve_model("gpt-5", as_of=WHEN - timedelta(days=day))
    assert len(P._RESOLVED) == P.MAX_RESOLVED
    assert P.resolve_model("gpt-5", as_of=WHEN) is not first  # the oldest went first
