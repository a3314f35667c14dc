"""bench/measure_claude_framing.py against a local counting server whose framing is known by construction.

The server follows the request and response shapes of tests/test_count_api.py (Anthropic
``/v1/messages/count_tokens``, Gemini ``/v1beta/models/{model}:countTokens``). Its toy tokenizer
counts whitespace-separated words; on top it adds, Anthropic: 4 per request, 3 per message, 13 per
tool_use block (besides name and compact input JSON), 7 per tool_result block, 2 per tool definition
(besides its JSON), 300 + 1 for the tools block with tool_choice auto, 400 + 1 with any, 22 more
with tool; Gemini: 1 per request and 2 per content. The script must recover exactly those numbers.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import threading
from collections.abc import Iterator
from datetime import date
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import urlparse

import pytest
import yaml

from agentcost.tokens import apicount

ROOT = Path(__file__).resolve().parent.parent
KEY = "test-key"
ENV = ("ANTHROPIC_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY", "ANTHROPIC_BASE_URL", "GEMINI_BASE_URL")


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "measure_claude_framing", ROOT / "bench" / "measure_claude_framing.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


mcf = _load()


def words(text: str) -> int:
    return len(text.split())


def _content(content: Any) -> int:
    if isinstance(content, str):
        return words(content)
    total = 0
    for block in content:
        if block["type"] == "text":
            total += words(block["text"])
        elif block["type"] == "tool_use":
            total += 13 + words(block["name"]) + words(json.dumps(block["input"], separators=(",", ":")))
        elif block["type"] == "tool_result":
            total += 7 + words(block["content"])
    return total


def anthropic_count(body: dict[str, Any]) -> int:
    total = 4 + words(body.get("system", "")) + sum(3 + _content(m["content"]) for m in body["messages"])
    if body.get("tools"):
        choice = body["tool_choice"]["type"]
        total += (300 if choice == "auto" else 400) + 1 + (22 if choice == "tool" else 0)
        total += sum(2 + words(json.dumps(t)) for t in body["tools"])
    return total


def gemini_count(body: dict[str, Any]) -> int:
    return 1 + sum(2 + sum(words(p["text"]) for p in c["parts"]) for c in body["contents"])


class Handler(BaseHTTPRequestHandler):
    refuse_trailing_tool_use = False

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _answer(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        path = urlparse(self.path).path
        if path == "/v1/messages/count_tokens":
            if self.headers.get("x-api-key") != KEY:
                self._answer(401, {"type": "error"})
                return
            last = body["messages"][-1]["content"]
            if self.refuse_trailing_tool_use and isinstance(last, list) and last[-1]["type"] == "tool_use":
                self._answer(400, {"type": "invalid_request_error"})
                return
            self._answer(200, {"input_tokens": anthropic_count(body)})
        elif path.startswith("/v1beta/models/") and path.endswith(":countTokens"):
            self._answer(200, {"totalTokens": gemini_count(body)})
        else:
            self._answer(404, {})


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[type[Handler]]:
    handler = type("H", (Handler,), {})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{httpd.server_address[1]}"
    for name in ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    monkeypatch.setenv("GEMINI_BASE_URL", url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    monkeypatch.setattr(apicount, "sleep", lambda seconds: None)
    yield handler
    httpd.shutdown()
    httpd.server_close()


def _ratio(text: str) -> Decimal:
    return (Decimal(words(text)) / Decimal(mcf.o200k(text))).quantize(Decimal("0.01"))


def test_recovers_the_anthropic_framing(server: type[Handler]) -> None:
    got = mcf.measure("claude-sonnet-4-5")
    assert not got.failed
    assert {k: v for k, v in got.values.items() if k not in ("prose", "json")} == {
        "message": 3,
        "per_request": 4,
        "tool_def": 2,
        "tool_prompt_auto": 300,
        "tool_prompt_any": 400,
        "forced_tool": 22,
        "tool_use_and_result": 20,
        "tool_use": 13,
        "tool_result": 7,
    }
    assert got.values["prose"] == _ratio(mcf.PROSE) and got.values["json"] == _ratio(mcf.JSON_SAMPLE)


def test_a_refused_trailing_tool_use_leaves_only_the_sum(server: type[Handler]) -> None:
    server.refuse_trailing_tool_use = True
    got = mcf.measure("claude-sonnet-4-5")
    assert got.values["tool_use_and_result"] == 20
    assert got.values["tool_use"] is None and got.values["tool_result"] is None
    assert "HTTP 400" in got.failed["tool_result"]


def test_recovers_the_gemini_framing(server: type[Handler]) -> None:
    got = mcf.measure("gemini-2.5-pro")
    assert got.values == {
        "message": 2,
        "per_request": 1,
        "prose": _ratio(mcf.PROSE),
        "json": _ratio(mcf.JSON_SAMPLE),
    }


def test_main_prints_the_table_and_writes_rows_that_parse(
    server: type[Handler], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "measured.yaml"
    code = mcf.main(
        ["claude-sonnet-4-5", "gemini-2.5-pro", "--write", str(out)], today=lambda: date(2026, 12, 2)
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "| per tool_result block | 7 (11) |" in printed  # measured (calibration)
    tables = yaml.safe_load(out.read_text(encoding="utf-8"))
    assert set(tables) == {
        "token_ratio",
        "anthropic_tool_prompt_tokens",
        "anthropic_framing",
        "gemini_framing",
    }
    rows = [row for table in tables.values() for row in table]
    for row in rows:
        assert row["url"].startswith("https://") and row["read"] == date(2026, 12, 2)
        assert row["note"].startswith("measured by bench/measure_claude_framing.py against http://127.0.0.1:")
        assert row["provenance"]
    (prompt,) = tables["anthropic_tool_prompt_tokens"]
    assert prompt["models"] == ["claude-sonnet-4-5"] and prompt["value"] == {
        "auto_none": 300,
        "any_tool": 400,
    }
    assert tables["anthropic_framing"][0]["value"]["tool_result"] == 7
    assert tables["gemini_framing"][0]["value"] == {"message": 2, "per_request": 1}
    ratio = {row["provider"]: row["value"] for row in tables["token_ratio"]}
    assert ratio["google"] == {"prose": str(_ratio(mcf.PROSE)), "json": str(_ratio(mcf.JSON_SAMPLE))}


def test_rejected_key_exits_2(server: type[Handler], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "wrong")
    assert mcf.main(["claude-sonnet-4-5"]) == 2


def test_no_key_and_no_base_url_exits_2_naming_the_variables(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ENV:
        monkeypatch.delenv(name, raising=False)
    assert mcf.main([]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and all(name in err[0] for name in ENV)
