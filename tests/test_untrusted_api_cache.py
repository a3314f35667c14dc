"""``--count api`` against a hostile endpoint, and a cache someone else may have touched (issue 28).

The endpoint: a redirect never carries the key to another host; a failed count (any 4xx/5xx, a
malformed or implausible answer, a server that drips or asks to wait for ever) falls back offline
with a note that names the texts by role and quotes none; nothing implausible is cached; a bad
``ANTHROPIC_BASE_URL`` is one line and exit 2. No test sleeps: the module's ``sleep`` and ``clock``
are replaced, and a dripping server is cut off by the fake clock, not by waiting.

The cache: every entry carries a keyed checksum and a tampered one is not used; the directory and
its parents must not be writable by others; its files are private; a relative directory is refused.
"""

from __future__ import annotations

import http.client
import json
import math
import os
import sqlite3
import stat
import threading
import time
import urllib.error
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from agentcost import cli
from agentcost.infra import diskcache
from agentcost.tokens import apicount, apihttp, countmode

pytestmark = pytest.mark.disk_cache  # these tests are about the disk cache itself

KEY = "sk-test-SECRET-KEY-3e7"
SYSTEM = "SECRET-SYSTEM-7f3a: the deploy token is hunter2"
TASK = "SECRET-TASK-91b2 fix the failing build"
REPLY = "SECRET-REPLY-5c1d looking at the log now"
USER = "SECRET-USER-e40f thanks"
FINAL = "SECRET-FINAL-0a9b done"
TEXTS = (SYSTEM, TASK, REPLY, USER, FINAL)
SCENARIO = f"""\
version: 1
model: claude-haiku-4-5
system: "{SYSTEM}"
task: "{TASK}"
rounds:
  - reply: "{REPLY}"
    user: "{USER}"
final: "{FINAL}"
"""
ROLES = "1 assistant text, the final answer, the system prompt, the task, 1 user message; 170 characters"
BASELINE = 8  # what the fake endpoint counts for the minimal request


# ---------------------------------------------------------------------------------------------
# A fake counting endpoint whose answers to texts a test chooses
# ---------------------------------------------------------------------------------------------

Behaviour = Callable[["Handler"], None]


@dataclass
class Endpoint:
    url: str
    requests: list[dict[str, str]] = field(default_factory=list)  # the headers of each request
    texts: list[str] = field(default_factory=list)  # the texts it was asked to count
    behave: Behaviour | None = None  # how it answers a text (None: a word count)
    every: Behaviour | None = None  # how it answers every request, the baseline's too


class Handler(BaseHTTPRequestHandler):
    server: Any

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def answer(self, status: int, data: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("content-length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # a redirected POST may arrive as a GET
        self.server.endpoint.requests.append(dict(self.headers))
        self.answer(200, b'{"input_tokens": 1}')

    def do_POST(self) -> None:
        endpoint: Endpoint = self.server.endpoint
        endpoint.requests.append(dict(self.headers))
        if endpoint.every is not None:
            endpoint.every(self)
            return
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        system = body.get("system")
        if system is None:  # the baseline
            self.answer(200, b'{"input_tokens": %d}' % BASELINE)
            return
        endpoint.texts.append(system)
        if endpoint.behave is None:
            self.answer(200, b'{"input_tokens": %d}' % (BASELINE + len(system.split())))
        else:
            endpoint.behave(self)


def serve() -> tuple[ThreadingHTTPServer, Endpoint]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    endpoint = Endpoint(f"http://127.0.0.1:{httpd.server_address[1]}")
    httpd.endpoint = endpoint  # type: ignore[attr-defined]
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True).start()
    return httpd, endpoint


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch, seeded_cache: Path, no_ctok: None) -> Iterator[list[float]]:
    """A private cache, no process memo of API counts, no real sleeping."""
    slept: list[float] = []
    apicount.clear()
    monkeypatch.setattr(apicount, "sleep", slept.append)
    for name in ("AGENTCOST_COUNT", "GOOGLE_API_KEY", "GEMINI_API_KEY", "GEMINI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    yield slept
    countmode.set_mode(None)
    apicount.clear()


@pytest.fixture
def endpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[Endpoint]:
    httpd, found = serve()
    monkeypatch.setenv("ANTHROPIC_BASE_URL", found.url)
    yield found
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def scenario(tmp_path: Path) -> Path:
    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO, encoding="utf-8")
    return path


def estimate(scenario: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = cli.run(["estimate", str(scenario), "--as-of", "2026-11-30", "--count", "api", *args])
    out, err = capsys.readouterr()
    return code, out, err


def fell_back(out: str) -> str:
    """The JSON report's note on texts that fell back to the offline rule."""
    (line,) = [n for n in json.loads(out)["counts"]["notes"] if "could not be counted" in n]
    return str(line)


def note(why: str) -> str:
    return (
        f"5 of 5 texts could not be counted by Anthropic count_tokens ({why}) and fell back to the "
        f"offline rule, so the counts are approximate: {ROLES}"
    )


def no_secret(*outputs: str) -> None:
    for output in outputs:
        for secret in ("SECRET", "hunter2", KEY):
            assert secret not in output


def stored_api_counts() -> dict[str, int]:
    """The API counts of the scenario's texts in the persistent cache."""
    ep = apicount.endpoint_for("anthropic", "claude-haiku-4-5")
    assert ep is not None
    return apicount._stored(ep.scheme, list(TEXTS))


# ---------------------------------------------------------------------------------------------
# Failed counts: every way an answer can be wrong, the note quoting nothing, nothing cached
# ---------------------------------------------------------------------------------------------


def json_answer(payload: bytes, status: int = 200, **headers: str) -> Behaviour:
    return lambda handler: handler.answer(
        status, payload, {k.replace("_", "-"): v for k, v in headers.items()}
    )


SERVER_TEXT = b"SECRET-from-the-server <b>quoted?</b>"
FAILED_COUNTS: dict[str, tuple[Behaviour, str]] = {
    "500": (json_answer(SERVER_TEXT, 500), "HTTP 500"),
    "400": (json_answer(SERVER_TEXT, 400), "HTTP 400"),
    "404": (json_answer(SERVER_TEXT, 404), "HTTP 404"),
    "10**30": (
        json_answer(b'{"input_tokens": 1000000000000000000000000000000}'),
        "an implausible input_tokens for the request's size",
    ),
    "2**63": (
        json_answer(b'{"input_tokens": 9223372036854775808}'),
        "an implausible input_tokens for the request's size",
    ),
    "999,999,999,999": (
        json_answer(b'{"input_tokens": 999999999999}'),
        "an implausible input_tokens for the request's size",
    ),
    "negative": (json_answer(b'{"input_tokens": -3}'), "an implausible input_tokens for the request's size"),
    "a float": (json_answer(b'{"input_tokens": 12.0}'), "no whole-number input_tokens in the answer"),
    "true": (json_answer(b'{"input_tokens": true}'), "no whole-number input_tokens in the answer"),
    "a string": (json_answer(b'{"input_tokens": "12"}'), "no whole-number input_tokens in the answer"),
    "a list": (json_answer(b"[12]"), "no whole-number input_tokens in the answer"),
    "not JSON": (json_answer(SERVER_TEXT), "an answer that is not JSON"),
    "not UTF-8": (json_answer(b'{"input_tokens": "\xff"}'), "an answer that is not JSON"),
    "5,000 digits": (json_answer(b'{"input_tokens": ' + b"9" * 5000 + b"}"), "an answer that is not JSON"),
    "30,000 deep": (json_answer(b"[" * 30_000 + b"]" * 30_000), "an answer that is not JSON"),
    "100,000 deep": (json_answer(b"[" * 100_000), "an answer over 65,536 bytes"),
    "Retry-After 1e9": (json_answer(b"{}", 429, Retry_After="1e9"), "HTTP 429, asked to wait over 60 s"),
    "Retry-After in 2100": (
        json_answer(b"{}", 503, Retry_After="Fri, 01 Jan 2100 00:00:00 GMT"),
        "HTTP 503, asked to wait over 60 s",
    ),
    "Retry-After negative": (json_answer(b"{}", 429, Retry_After="-5"), "HTTP 429"),
    "Retry-After garbage": (json_answer(b"{}", 429, Retry_After="soon\x01"), "HTTP 429"),
}


@pytest.mark.parametrize("case", FAILED_COUNTS)
def test_a_failed_count_falls_back_quotes_nothing_and_caches_nothing(
    case: str, endpoint: Endpoint, scenario: Path, capsys: pytest.CaptureFixture[str], _fresh: list[float]
) -> None:
    endpoint.behave, why = FAILED_COUNTS[case]
    code, out, err = estimate(scenario, capsys, "-f", "json")
    assert code == 0
    assert fell_back(out) == note(why)
    assert err == f"agentcost: note: {note(why)}\n"
    assert json.loads(out)["counts"]["approximate"] is True
    no_secret(out, err)
    assert "from-the-server" not in out + err and "<b>" not in out + err
    assert stored_api_counts() == {}  # nothing implausible (or failed) is kept for a later run
    assert all(0 <= pause <= apicount.MAX_WAIT for pause in _fresh)


@pytest.mark.parametrize("fmt", ["table", "json", "markdown"])
def test_the_note_quotes_no_text_in_any_format(
    fmt: str, endpoint: Endpoint, scenario: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    endpoint.behave = json_answer(SERVER_TEXT, 500)
    code, out, err = estimate(scenario, capsys, "-f", fmt, "--verbose")
    assert code == 0
    assert note("HTTP 500").replace(" ", "") in "".join(out.split())  # whole, however the table wraps it
    no_secret(out, err)


def test_good_answers_are_used_and_cached(
    endpoint: Endpoint, scenario: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = estimate(scenario, capsys, "-f", "json")
    assert (code, err) == (0, "")
    assert json.loads(out)["counts"]["approximate"] is True  # framing stays offline (counts.api)
    assert stored_api_counts() == {text: len(text.split()) for text in TEXTS}


# ---------------------------------------------------------------------------------------------
# Redirects: refused, so the key never reaches another host
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_is_refused_and_the_key_stays_home(
    status: int, endpoint: Endpoint, scenario: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other_httpd, other = serve()  # another host: records every request and its headers
    try:
        target = f"{other.url}/v1/messages/count_tokens"
        endpoint.behave = json_answer(b"", status, Location=target)
        code, out, err = estimate(scenario, capsys, "-f", "json")
    finally:
        other_httpd.shutdown()
        other_httpd.server_close()
    assert code == 0
    assert other.requests == []  # the key (or anything) never reached it
    why = f"HTTP {status}: a redirect, not followed (the key goes to the configured URL only)"
    assert fell_back(out) == note(why)
    assert len(endpoint.texts) == 5  # one try each: a redirect is not retried
    no_secret(out, err)


def test_a_redirected_baseline_fails_every_text(
    endpoint: Endpoint, scenario: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other_httpd, other = serve()
    try:
        endpoint.every = json_answer(b"", 302, Location=other.url + "/v1/messages/count_tokens")
        code, out, _ = estimate(scenario, capsys, "-f", "json")
    finally:
        other_httpd.shutdown()
        other_httpd.server_close()
    assert code == 0 and other.requests == []
    assert fell_back(out) == note(
        "baseline request: HTTP 302: a redirect, not followed (the key goes to the configured URL only)"
    )


# ---------------------------------------------------------------------------------------------
# Deadlines: per request (a dripping server) and per run (waits that add up)
# ---------------------------------------------------------------------------------------------


class FakeClock:
    """A monotonic clock that moves ``step`` seconds each time it is read, and as far as ``sleep``
    says: the deadlines pass without any real waiting."""

    def __init__(self, step: float) -> None:
        self.now = 1000.0
        self.step = step
        self.lock = threading.Lock()
        self.slept: list[float] = []

    def __call__(self) -> float:
        with self.lock:
            self.now += self.step
            return self.now

    def sleep(self, seconds: float) -> None:
        with self.lock:
            self.now += seconds
            self.slept.append(seconds)


def drip(where: str) -> Behaviour:
    def behave(handler: Handler) -> None:
        head = b"HTTP/1.1 200 OK\r\ncontent-length: 50000\r\n\r\n" if where == "body" else b""
        try:
            handler.wfile.write(head)
            for _ in range(20_000):  # a safety net: the client stops reading long before
                handler.wfile.write(b"x")
                time.sleep(0.001)
        except OSError:  # the client gave up: the point
            pass

    return behave


@pytest.mark.parametrize("where", ["status line", "body"])
def test_a_dripping_server_ends_at_the_request_deadline(
    where: str, scenario: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = FakeClock(step=5.0)  # each read of the clock: 5 s later (the drip's pace)
    monkeypatch.setattr(apicount, "clock", clock)
    monkeypatch.setattr(apicount, "sleep", clock.sleep)
    httpd, endpoint = serve()
    monkeypatch.setenv("ANTHROPIC_BASE_URL", endpoint.url)
    endpoint.every = drip(where)
    try:
        code, out, _ = estimate(scenario, capsys, "-f", "json")
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert code == 0
    assert fell_back(out) == note("baseline request: no answer (timed out)")
    assert len(endpoint.requests) == 2  # a connection that fails is tried twice
    # two tries of TIMEOUT each, and a few reads of the clock around them (the pauses, the rate limit):
    # without the deadline the drip's 20,000 bytes would take 100,000 s on this clock
    assert clock.now - 1000.0 <= 2 * apicount.TIMEOUT + 10 * clock.step


def test_waits_that_add_up_end_at_the_run_deadline(
    endpoint: Endpoint, scenario: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = FakeClock(step=0.0)
    monkeypatch.setattr(apicount, "clock", clock)
    monkeypatch.setattr(apicount, "sleep", clock.sleep)
    # one request at a time: with several workers, one's 59 s jump of this shared clock could pass the
    # deadline of another's request still in flight, which would then time out (a result that hung
    # on how the threads interleaved, seen once on a loaded machine)
    monkeypatch.setattr(apicount, "WORKERS", 1)
    endpoint.behave = json_answer(b"{}", 429, Retry_After="59")  # honoured, but 5 texts x 4 waits add up
    code, out, _ = estimate(scenario, capsys, "-f", "json")
    assert code == 0
    line = fell_back(out)
    assert "--count api's 300 s for the run ran out" in line and line.endswith(ROLES)
    assert sum(clock.slept) < apicount.RUN_DEADLINE


# ---------------------------------------------------------------------------------------------
# The HTTP client's parts, value by value
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        (None, None),
        ("", None),
        ("7", 7.0),
        (" 120 ", 120.0),
        ("1.5", 1.5),
        ("1e9", 1e9),
        ("9" * 40, math.inf),
        ("1e99999", math.inf),
        ("-5", None),
        ("nan", None),
        ("garbage", None),
        ("Wed, 21 Oct 2015 07:28:00 GMT", 0.0),  # a date past: no wait
        ("Mon, 99 Foo 2015 77:99:00 GMT", None),
    ],
)
def test_retry_after_is_read_robustly(header: str | None, seconds: float | None) -> None:
    assert apihttp.retry_after(header) == seconds


def test_retry_after_as_a_date_to_come() -> None:
    wait = apihttp.retry_after("Fri, 01 Jan 2100 00:00:00 GMT")
    assert wait is not None and wait > 2_000_000_000  # more than 63 years from any date this runs on


@pytest.mark.parametrize(
    ("answer", "count", "reason"),
    [
        (b'{"input_tokens": 12}', 12, None),
        (b'{"input_tokens": 0}', 0, None),
        (b'{"input_tokens": 4196}', 4196, None),  # the limit for a 50-byte request
        (
            b'{"input_tokens": 4197}',
            None,
            "an implausible input_tokens for the request's size",
        ),
        (b'{"input_tokens": 1e30}', None, "no whole-number input_tokens in the answer"),
        (b'{"input_tokens": null}', None, "no whole-number input_tokens in the answer"),
        (b'{"totalTokens": 12}', None, "no whole-number input_tokens in the answer"),
        (b"[" * 50_000 + b"]" * 50_000, None, "an answer that is not JSON"),
        (b"", None, "an answer that is not JSON"),
    ],
)
def test_an_answer_is_a_plausible_whole_number(answer: bytes, count: int | None, reason: str | None) -> None:
    limit = apihttp.count_limit(50)
    assert limit == 4196
    if reason is None:
        assert apihttp.parse_count(answer, "input_tokens", limit) == count
    else:
        with pytest.raises(apihttp.CountFailed) as caught:
            apihttp.parse_count(answer, "input_tokens", limit)
        assert str(caught.value) == reason


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (TimeoutError("the request's deadline passed"), "timed out"),
        (ConnectionRefusedError(111, "Connection refused"), "Connection refused"),
        (
            urllib.error.URLError(ConnectionResetError(104, "Connection reset by peer")),
            "Connection reset by peer",
        ),
        (urllib.error.URLError("SECRET words of urllib's"), "URLError"),
        (http.client.BadStatusLine("SECRET status line the server sent"), "BadStatusLine"),
        (OSError("Tunnel connection failed: 403 SECRET reason"), "OSError"),
    ],
)
def test_a_connection_failure_is_said_in_agentcosts_words(error: BaseException, said: str) -> None:
    assert apihttp.failure(error) == said


def test_a_closed_port_is_a_failed_count(
    scenario: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    httpd, closed = serve()
    httpd.shutdown()
    httpd.server_close()  # nothing listens there any more
    monkeypatch.setenv("ANTHROPIC_BASE_URL", closed.url)
    code, out, err = estimate(scenario, capsys, "-f", "json")
    assert code == 0
    assert fell_back(out) == note("baseline request: no answer (Connection refused)")
    no_secret(out, err)


def test_no_count_reaches_2_to_the_31() -> None:
    assert apihttp.count_limit(10**12) == 2**31 - 1


# ---------------------------------------------------------------------------------------------
# Base URLs: one line naming the variable, exit 2, no value echoed
# ---------------------------------------------------------------------------------------------

HINT = "(set {var} to an http:// or https:// URL such as {default}, or unset it to use that)"
ANTHROPIC = "https://api.anthropic.com"


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("not a url", "holds a space, a line break, a control or a non-ASCII character"),
        ("http://h\r\nX-Injected: SECRET", "holds a space, a line break, a control or a non-ASCII character"),
        ("http://host\x1b[31m/", "holds a space, a line break, a control or a non-ASCII character"),
        ("http://hôst.example", "holds a space, a line break, a control or a non-ASCII character"),
        ("ftp://example.com", "does not start with http:// or https://"),
        ("file:///etc/passwd", "does not start with http:// or https://"),
        ("api.anthropic.com", "does not start with http:// or https://"),
        ("https://", "names no host"),
        ("https://user:SECRET@example.com", "holds a user name or password"),
        ("http://[::1", "cannot be read as a URL (a bad host or port)"),
        ("http://example.com:99999", "cannot be read as a URL (a bad host or port)"),
        ("https://example.com/?SECRET=1", "holds a query or a fragment (? or #)"),
    ],
)
def test_a_malformed_base_url_is_one_line(
    value: str,
    problem: str,
    scenario: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", value)
    code, out, err = estimate(scenario, capsys)
    hint = HINT.format(var="ANTHROPIC_BASE_URL", default=ANTHROPIC)
    assert (code, out) == (2, "")
    assert err == f"agentcost: error: ANTHROPIC_BASE_URL: not a usable base URL: it {problem} {hint}\n"
    no_secret(err)


def test_a_malformed_gemini_base_url_is_one_line(
    scenario: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEMINI_BASE_URL", "gopher://x")
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    code, _, err = estimate(scenario, capsys, "-m", "gemini-2.5-flash")
    hint = HINT.format(var="GEMINI_BASE_URL", default="https://generativelanguage.googleapis.com")
    assert (code, err) == (
        2,
        f"agentcost: error: GEMINI_BASE_URL: not a usable base URL: it does not start with http:// or https:// {hint}\n",
    )


# ---------------------------------------------------------------------------------------------
# The cache: keyed checksums
# ---------------------------------------------------------------------------------------------


def database() -> sqlite3.Connection:
    directory = diskcache.cache_dir()
    assert directory is not None
    return sqlite3.connect(directory / diskcache.DB_NAME, isolation_level=None)


def fresh_cache() -> diskcache.DiskCache:
    """A new handle on the test's cache (as the next process would open it)."""
    directory = diskcache.cache_dir()
    assert directory is not None
    return diskcache.DiskCache(directory)


def test_a_tampered_token_count_is_ignored_and_rewritten() -> None:
    d = diskcache.text_digest("a text")
    cache = fresh_cache()
    cache.put_token_counts("scheme", {d: 12_345})
    cache.flush()
    with database() as db:
        assert db.execute("UPDATE tokens SET count = 50000000 WHERE count = 12345").rowcount == 1
    again = fresh_cache()
    assert again.token_counts("scheme", [d]) == {}  # not used: a miss
    assert again.stats.rejected == 1 and again.stats.token_misses == 1
    again.put_token_counts("scheme", {d: 12_345})  # counted afresh, as the caller of a miss does
    again.flush()
    assert fresh_cache().token_counts("scheme", [d]) == {d: 12_345}


def test_a_tampered_or_planted_blob_is_ignored() -> None:
    cache = fresh_cache()
    cache.put_blob("price", "inputs", b'["D","0.0016"]')
    with database() as db:
        db.execute("UPDATE blobs SET value = ? WHERE kind = 'price'", (b'["D","4246.80"]',))
        (stored,) = db.execute("SELECT key FROM blobs WHERE kind = 'price'").fetchone()
        db.execute(
            "INSERT INTO blobs (kind, key, value, used, mac) VALUES ('price', ?, ?, 0, ?)",
            (stored + "x", b"planted", b"\x00" * 32),
        )
    again = fresh_cache()
    assert again.get_blob("price", "inputs") is None
    assert again.stats.rejected == 1


def test_a_tampered_api_count_is_not_used(
    endpoint: Endpoint, scenario: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, first, _ = estimate(scenario, capsys, "-f", "json")
    assert code == 0 and len(endpoint.texts) == 5
    diskcache.flush()
    with database() as db:
        db.execute("UPDATE tokens SET count = 50000000")  # the edit: $4,246.80 instead of $0.0016
    apicount.clear()  # as a new process
    code, second, _ = estimate(scenario, capsys, "-f", "json")
    assert code == 0 and second == first
    assert len(endpoint.texts) == 10  # counted again: the tampered entries were not used
    assert stored_api_counts() == {text: len(text.split()) for text in TEXTS}  # and rewritten


def test_the_key_is_private_made_once_and_replaced_when_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTCOST_CACHE_DIR", str(tmp_path / "c"))
    cache = fresh_cache()
    d = diskcache.text_digest("x")
    cache.put_token_counts("s", {d: 3})
    cache.flush()
    key = tmp_path / "c" / diskcache.KEY_NAME
    first = key.read_bytes()
    assert len(first) == 32 and stat.S_IMODE(key.stat().st_mode) == 0o600
    assert fresh_cache().token_counts("s", [d]) == {d: 3}  # the same key next time
    assert key.read_bytes() == first
    key.chmod(0o644)  # others may have read it: no longer a secret
    again = fresh_cache()
    assert again.token_counts("s", [d]) == {} and again.stats.rejected == 1
    assert key.read_bytes() != first and stat.S_IMODE(key.stat().st_mode) == 0o600
    target = tmp_path / "elsewhere"
    target.write_bytes(b"k" * 32)
    key.unlink()
    key.symlink_to(target)  # a key somewhere else is not ours
    fresh_cache().token_counts("s", [d])
    assert not key.is_symlink() and target.read_bytes() == b"k" * 32


# ---------------------------------------------------------------------------------------------
# The cache: where it may be
# ---------------------------------------------------------------------------------------------


def use(directory: Path | str, monkeypatch: pytest.MonkeyPatch) -> diskcache.DiskCache:
    monkeypatch.setenv("AGENTCOST_CACHE_DIR", str(directory))
    cache = fresh_cache()
    cache.token_counts("s", [diskcache.text_digest("x")])  # opens it
    return cache


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_relative_cache_dir_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    cache = use("cache", monkeypatch)
    assert not cache.usable and list(tmp_path.iterdir()) == []  # nothing made in the checkout
    assert capsys.readouterr().err == (
        "agentcost: note: cache off: AGENTCOST_CACHE_DIR is a relative path (set an absolute one)\n"
    )


def test_a_readable_cache_dir_of_ours_is_made_private(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    directory = tmp_path / "c"
    directory.mkdir(mode=0o755)
    directory.chmod(0o755)
    db = directory / diskcache.DB_NAME
    sqlite3.connect(db).close()
    db.chmod(0o644)
    (directory / (diskcache.DB_NAME + "-wal")).write_bytes(b"")
    (directory / (diskcache.DB_NAME + "-wal")).chmod(0o644)
    cache = use(directory, monkeypatch)
    assert cache.usable
    assert mode(directory) == 0o700
    assert mode(db) == 0o600 and mode(directory / (diskcache.DB_NAME + "-wal")) == 0o600
    assert mode(directory / diskcache.KEY_NAME) == 0o600


def test_a_new_database_is_private_whatever_the_umask(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = os.umask(0o022)
    try:
        cache = use(tmp_path / "new", monkeypatch)
        cache.put_token_counts("s", {diskcache.text_digest("x"): 1})
        cache.flush()
    finally:
        os.umask(old)
    assert mode(tmp_path / "new") == 0o700
    files = sorted(p.name for p in (tmp_path / "new").iterdir())
    assert diskcache.DB_NAME in files and diskcache.KEY_NAME in files
    assert {p.name: mode(p) for p in (tmp_path / "new").iterdir()} == dict.fromkeys(files, 0o600)


@pytest.mark.parametrize(
    ("leaf", "parent", "why"),
    [
        (0o775, 0o700, "{dir} is writable by its group (mode 775)"),
        (0o707, 0o700, "{dir} is writable by others (mode 707)"),
        (0o700, 0o777, "{dir} is inside {parent}, which is writable by others (mode 777)"),
        (0o700, 0o770, "{dir} is inside {parent}, which is writable by its group (mode 770)"),
        (0o700, 0o1777, None),  # sticky, as /tmp: no one else can replace what it holds
        (0o700, 0o755, None),
    ],
)
def test_a_cache_dir_others_may_write_is_not_used(
    leaf: int,
    parent: int,
    why: str | None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    above = tmp_path / "shared"
    directory = above / "agentcost"
    directory.mkdir(parents=True)
    directory.chmod(leaf)
    above.chmod(parent)
    try:
        cache = use(directory, monkeypatch)
    finally:
        above.chmod(0o700)
    err = capsys.readouterr().err
    if why is None:
        assert cache.usable and err == ""
    else:
        assert not cache.usable
        assert err == f"agentcost: note: cache off: {why.format(dir=directory, parent=above)}\n"
        assert not (directory / diskcache.DB_NAME).exists()


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to give files away")
@pytest.mark.parametrize("which", ["leaf", "parent"])
def test_a_cache_dir_another_user_owns_is_not_used(
    which: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    above = tmp_path / "theirs"
    directory = above / "agentcost"
    directory.mkdir(parents=True, mode=0o700)
    os.chown(directory if which == "leaf" else above, 4242, 4242)
    cache = use(directory, monkeypatch)
    assert not cache.usable
    expected = (
        f"{directory} is owned by another user (uid 4242)"
        if which == "leaf"
        else f"{directory} is inside {above}, owned by another user (uid 4242)"
    )
    assert capsys.readouterr().err == f"agentcost: note: cache off: {expected}\n"
