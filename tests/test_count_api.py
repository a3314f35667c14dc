"""``--count api`` against a local HTTP server implementing both providers' counting endpoints.

The server follows the documented request and response shapes (agentcost/tokens/apicount.py cites
them): Anthropic ``POST /v1/messages/count_tokens`` (``x-api-key``, ``anthropic-version``; body
``{model, messages, system?, tools?, tool_choice?}``; answer ``{"input_tokens": N}``) and Gemini
``POST /v1beta/models/{model}:countTokens`` (``x-goog-api-key`` or ``?key=``; body ``{contents:
[{parts: [{text}]}]}``; answer ``{"totalTokens": N}``). Its toy tokenizer counts words: a text's
count is its number of whitespace-separated words; a request adds 5 (Anthropic framing), a tools
block 10 (a stand-in for the hidden tool-use prompt) plus the words of its JSON.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from typer.testing import CliRunner

from agentcost.cli import app
from agentcost.scenario.load import read_scenario as load_scenario
from agentcost.tokens import apicount, countmode
from agentcost.tokens.count import count_tokens

ROOT = Path(__file__).resolve().parent.parent
BUGFIX = ROOT / "scenarios" / "bugfix.yaml"  # model: claude-sonnet-4-5
AS_OF = "2026-12-01"
GOOD_KEY = "test-key"


def words(text: str) -> int:
    return len(text.split())


@dataclass
class Counter:
    """The server's state: what it was asked, and how it misbehaves."""

    systems: list[str] = field(default_factory=list)  # Anthropic texts counted (the system field)
    parts: list[str] = field(default_factory=list)  # Gemini texts counted
    tool_blocks: int = 0
    throttle: int = 0  # answer this many requests 429 (Retry-After: 7) first
    fail_word: str | None = None  # a text containing it always gets HTTP 500
    in_flight: int = 0
    max_in_flight: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    # hold each request but the first (the baseline, sent alone by design) until two are in flight
    # at once: a parallel client shows its parallelism however loaded the machine, a serial one never
    # gets there (its held request gives up after 30 s and lets the rest through, and the test fails)
    overlap: threading.Event | None = None
    posts: int = 0  # requests received


def _handler(state: Counter) -> type[BaseHTTPRequestHandler]:
    flight = threading.Lock()  # guards state.in_flight

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def _answer(
            self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None
        ) -> None:
            data = json.dumps(payload).encode()
            self._done()  # before the answer leaves: its client may send its next request at once
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            with flight:
                state.posts += 1
                first = state.posts == 1
                state.in_flight += 1
                state.max_in_flight = max(state.max_in_flight, state.in_flight)
                if state.overlap is not None and state.in_flight >= 2:
                    state.overlap.set()
            self.counted = True
            try:
                if state.overlap is None:
                    time.sleep(0.01)  # lets concurrent requests overlap
                elif not first and not state.overlap.wait(timeout=30):
                    state.overlap.set()  # not concurrent: let the rest through (max_in_flight stays 1)
                self._post()
            finally:
                self._done()

        def _done(self) -> None:
            """This request no longer in flight (once; counted off before its answer is written, so
            that a client's next request never overlaps its last in the count)."""
            if getattr(self, "counted", False):
                self.counted = False
                with flight:  # not state.lock: a 429 is answered while that is held
                    state.in_flight -= 1

        def _post(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            url = urlparse(self.path)
            with state.lock:
                if state.throttle:
                    state.throttle -= 1
                    self._answer(429, {"error": "rate limited"}, {"Retry-After": "7"})
                    return
            if url.path == "/v1/messages/count_tokens":
                if self.headers.get("x-api-key") != GOOD_KEY:
                    self._answer(401, {"type": "error", "error": {"type": "authentication_error"}})
                    return
                assert self.headers.get("anthropic-version") == "2023-06-01"
                assert body["model"] and body["messages"]
                system = body.get("system", "")
                if state.fail_word and state.fail_word in system:
                    self._answer(500, {"type": "error"})
                    return
                total = 5 + sum(words(m["content"]) for m in body["messages"]) + words(system)
                if "tools" in body:
                    total += 10 + words(json.dumps(body["tools"]))
                with state.lock:
                    if system:
                        state.systems.append(system)
                    state.tool_blocks += "tools" in body
                self._answer(200, {"input_tokens": total})
                return
            if url.path.startswith("/v1beta/models/") and url.path.endswith(":countTokens"):
                key = self.headers.get("x-goog-api-key") or parse_qs(url.query).get("key", [""])[0]
                if key != GOOD_KEY:
                    self._answer(403, {"error": {"code": 403, "status": "PERMISSION_DENIED"}})
                    return
                texts = [p["text"] for c in body["contents"] for p in c["parts"]]
                with state.lock:
                    state.parts.extend(texts[1:])
                self._answer(200, {"totalTokens": sum(words(t) for t in texts)})
                return
            self._answer(404, {"error": "not found"})

    return Handler


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch, seeded_cache: Path, no_ctok: None) -> Iterator[list[float]]:
    """A private (seeded) cache, no process memo of API counts, no real sleeping."""
    slept: list[float] = []
    apicount.clear()
    monkeypatch.setattr(apicount, "sleep", slept.append)
    for name in ("AGENTCOST_COUNT", "GOOGLE_API_KEY", "GEMINI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    yield slept
    countmode.set_mode(None)
    apicount.clear()


@pytest.fixture
def slept(_fresh: list[float]) -> list[float]:
    return _fresh


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[ThreadingHTTPServer, Counter]]:
    state = Counter()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{httpd.server_address[1]}"
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    monkeypatch.setenv("GEMINI_BASE_URL", url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", GOOD_KEY)
    yield httpd, state
    httpd.shutdown()
    httpd.server_close()


def estimate(*args: str) -> Any:
    return CliRunner().invoke(app, ["estimate", str(BUGFIX), "--as-of", AS_OF, *args], catch_exceptions=False)


@pytest.mark.disk_cache
def test_every_text_counted_by_the_server_then_cached(server: tuple[ThreadingHTTPServer, Counter]) -> None:
    """ACCEPTANCE: bugfix.yaml (claude-sonnet-4-5) --count api uses the server's counts for every
    text, and a second run with the server stopped gives the same output."""
    httpd, state = server
    first = estimate("--count", "api", "-f", "json")
    assert first.exit_code == 0, first.output
    report = json.loads(first.stdout)
    counts = report["counts"]
    # the framing constants stay offline: approximate, and the split says what the API counted
    assert counts["approximate"] is True and report["approximate"] is True and counts["exact"] is False
    assert counts["api"]["counted"].endswith(
        "distinct texts and the tool-definition block (hidden tool prompt included) counted by "
        "Anthropic count_tokens for claude-sonnet-4-5"
    )
    assert counts["api"]["not_counted"] == (
        "message, tool_use/tool_result and per-request framing (offline constants)"
    )
    assert counts["source"].startswith("api Anthropic count_tokens")
    assert any("distinct texts and the tool-definition block" in n for n in counts["notes"])
    assert not any("could not be counted" in n for n in counts["notes"])
    assert state.tool_blocks == 1
    # every text the rules count went to the server, once
    countmode.set_mode("api")
    scenario = load_scenario(BUGFIX)
    known = apicount._KNOWN[apicount.endpoint_for("anthropic", "claude-sonnet-4-5").scheme]  # type: ignore[union-attr]
    assert sorted(state.systems) == sorted(known) and len(set(state.systems)) == len(state.systems)
    assert all(n == words(t) for t, n in known.items())
    assert scenario.system is not None and scenario.system.text in known
    # the parts are the server's word counts plus the offline framing
    tc = count_tokens(scenario, provider="anthropic", model_id="claude-sonnet-4-5")
    assert tc.system == words(scenario.system.text)  # system framing 0
    assert tc.task == 3 + words(scenario.task.text or "")
    tools = [
        {"name": t.name, "description": t.description, "input_schema": t.input_schema} for t in scenario.tools
    ]
    assert tc.tools == 10 + words(json.dumps(tools))

    httpd.shutdown()  # the server is gone: the second run reads the persistent cache
    httpd.server_close()
    apicount.clear()
    second = estimate("--count", "api", "-f", "json")
    assert second.exit_code == 0, second.output
    assert second.stdout == first.stdout


def test_batched_on_a_bounded_pool(server: tuple[ThreadingHTTPServer, Counter]) -> None:
    _, state = server
    state.overlap = threading.Event()
    assert estimate("--count", "api", "-q").exit_code == 0
    assert len(state.systems) > apicount.WORKERS
    assert 2 <= state.max_in_flight <= apicount.WORKERS


def test_429_then_success_honours_retry_after(
    server: tuple[ThreadingHTTPServer, Counter], slept: list[float]
) -> None:
    _, state = server
    state.throttle = 1
    result = estimate("--count", "api", "-f", "json")
    assert result.exit_code == 0
    assert 7.0 in slept  # Retry-After: 7, through the injected sleep
    assert json.loads(result.stdout)["counts"]["api"]["not_counted"].endswith("(offline constants)")


def test_rejected_key_exits_2_naming_the_variable(
    server: tuple[ThreadingHTTPServer, Counter], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "wrong")
    result = estimate("--count", "api")
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "ANTHROPIC_API_KEY" in lines[0] and "HTTP 401" in lines[0]


def test_missing_key_exits_2(
    server: tuple[ThreadingHTTPServer, Counter], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.setenv("AGENTCOST_COUNT", "api")  # the environment variable works like the flag
    result = estimate()
    assert result.exit_code == 2
    assert "ANTHROPIC_API_KEY is not set" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_partial_failure_falls_back_and_says_which(
    server: tuple[ThreadingHTTPServer, Counter], slept: list[float]
) -> None:
    _, state = server
    scenario = load_scenario(BUGFIX)
    assert scenario.task.text is not None
    state.fail_word = scenario.task.text.split()[0]  # the task's first word: 500 on every try
    failing = [t for t in [scenario.task.text] if state.fail_word in t]
    result = estimate("--count", "api", "-f", "json")
    assert result.exit_code == 0
    counts = json.loads(result.stdout)["counts"]
    assert counts["approximate"] is True
    (line,) = [n for n in counts["notes"] if "could not be counted" in n]
    assert "HTTP 500" in line and "fell back to the offline rule" in line and "approximate" in line
    # named by what they are, never quoted (a text may come from a file the reader did not write)
    assert line.endswith("approximate: the final answer, the task; 909 characters"), line
    assert failing[0].split()[0] not in line and failing[0].split()[0] not in result.stderr
    assert "could not be counted" in result.stderr
    assert len([s for s in slept if s >= 0.5]) >= apicount.ATTEMPTS - 1  # retried with backoff


def test_gemini_counts_with_the_gemini_endpoint(
    server: tuple[ThreadingHTTPServer, Counter], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, state = server
    monkeypatch.setenv("GEMINI_API_KEY", GOOD_KEY)
    result = estimate("--count", "api", "-m", "gemini-2.5-flash", "-f", "json")
    assert result.exit_code == 0, result.output
    counts = json.loads(result.stdout)["counts"]
    assert counts["approximate"] is True and counts["source"].startswith("api Gemini countTokens")
    assert counts["api"]["not_counted"] == "per-request framing (1) (offline constants)"
    scenario = load_scenario(BUGFIX)
    assert scenario.system is not None and scenario.system.text in state.parts
    tc = count_tokens(scenario, provider="google", model_id="gemini-2.5-flash")
    assert tc.system == words(scenario.system.text)


def _no_connect(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: socket.socket, address: object) -> None:
        raise AssertionError(f"a socket was opened: {address}")

    monkeypatch.setattr(socket.socket, "connect", refuse)


def test_offline_default_opens_no_socket(monkeypatch: pytest.MonkeyPatch) -> None:
    _no_connect(monkeypatch)
    monkeypatch.setenv("ANTHROPIC_API_KEY", GOOD_KEY)
    result = estimate("-f", "json")
    assert result.exit_code == 0
    counts = json.loads(result.stdout)["counts"]
    assert counts["approximate"] is True and not counts["source"].startswith("api")


def test_openai_is_a_no_op_with_a_note(monkeypatch: pytest.MonkeyPatch) -> None:
    _no_connect(monkeypatch)
    result = estimate("--count", "api", "-m", "gpt-5", "-f", "json")
    assert result.exit_code == 0
    notes = json.loads(result.stdout)["counts"]["notes"]
    assert any("OpenAI models are counted exactly offline" in n for n in notes)


def test_bad_mode_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTCOST_COUNT", "online")
    result = estimate()
    assert result.exit_code == 2 and "AGENTCOST_COUNT" in result.stderr
