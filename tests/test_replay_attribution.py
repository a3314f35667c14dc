"""Honest attribution in replay (issue 29, item 3): all-zero usage is not API usage, the input a log
does not let us count (images, PDFs, audio, server tools) is named, not blamed on a missing system
prompt, Gemini ``parts`` are read, and a corpus merges a model's aliases."""

from __future__ import annotations

import base64
import json
import shutil
import struct
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from agentcost.cli import run
from agentcost.render.schema import report_schema
from agentcost.replay import load_trace, replay
from agentcost.replay.attribution import attribute
from agentcost.replay.media import content_kinds
from tests.conftest import validate_json

VALIDATION = Path(__file__).resolve().parents[2] / "shared" / "validation" / "swe-agent"
needs_validation = pytest.mark.skipif(not VALIDATION.is_dir(), reason="shared/validation not available")
IMAGES = Path(__file__).parent / "data" / "real" / "anthropic-jsonl" / "llm-anthropic-images.jsonl"
AS_OF = "2026-11-30"
WHEN = datetime(2026, 11, 30, tzinfo=UTC)
PREFIX_BLAME = "system prompt or tool definitions not recorded"


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert run(["replay", *args, "--as-of", AS_OF, "--format", "json"]) == 0
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    validate_json(doc, report_schema())
    return doc


def _out(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert run(["replay", *args, "--as-of", AS_OF]) == 0
    return capsys.readouterr().out


# --- all-zero usage --------------------------------------------------------------------------------


@pytest.fixture
def zero_0x(tmp_path: Path) -> Path:
    """The real SWE-agent 0.x trajectory with its model_stats zeroed, as a replayed run stores them."""
    data = json.loads((VALIDATION / "swe-agent__test-repo-i1.traj").read_text(encoding="utf-8"))
    stats = data["info"]["model_stats"]
    assert stats["tokens_sent"] == 52861 and stats["tokens_received"] == 326  # the real run's
    for key in ("total_cost", "instance_cost", "tokens_sent", "tokens_received"):
        stats[key] = 0
    path = tmp_path / "zero.traj"
    path.write_text(json.dumps(data), encoding="utf-8")
    shutil.copy(VALIDATION / "test-repo-i1.args.yaml", tmp_path / "args.yaml")
    return path


@needs_validation
def test_all_zero_swe_agent_0x_usage_is_not_api(zero_0x: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = _json(capsys, str(zero_0x))
    assert doc["reported_kind"] == "none"
    t = doc["totals"]
    assert t["reported_input_tokens"] is None and t["reported_cost_usd"] is None
    assert t["priced_from"] == "counted"
    # priced from our counts, which equal the real run's own totals: gpt-4-1106-preview at
    # $10 / $30 per MTok, 52,861 in and 326 out -> 0.52861 + 0.00978
    assert (t["counted_input_tokens"], t["counted_output_tokens"]) == (52861, 326)
    assert Decimal(t["cost_usd"]) == Decimal("0.53839")
    table = _out(capsys, str(zero_0x))
    assert "no usage reported to compare with" in table and "$0.5384" in table
    assert run(["replay", str(zero_0x), "--as-of", AS_OF, "--format", "markdown"]) == 0
    assert "no usage reported to compare with" in capsys.readouterr().out
    # the corpus row (CSV and JSON) says the same
    assert run(["replay", str(zero_0x.parent), "--as-of", AS_OF, "--format", "csv"]) == 0
    header, row = capsys.readouterr().out.splitlines()
    assert dict(zip(header.split(","), row.split(","), strict=True))["reported_kind"] == "none"


@needs_validation
def test_the_real_1x_replay_run_with_zeros_stays_none(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _json(capsys, str(VALIDATION / "swe-agent-1x__marshmallow-1867.traj"))
    assert doc["reported_kind"] == "none" and doc["totals"]["priced_from"] == "counted"


def test_all_zero_usage_in_an_api_log_is_priced_from_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [json.loads(x) for x in IMAGES.read_text(encoding="utf-8").splitlines()]
    for line in lines:
        usage = line["response"]["usage"]
        usage.update(input_tokens=0, output_tokens=0)
    path = tmp_path / "zeros.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    doc = _json(capsys, str(path))
    assert doc["reported_kind"] == "none"
    assert {r["priced_from"] for r in doc["requests"]} == {"counted"}
    assert Decimal(doc["totals"]["cost_usd"]) > 0
    assert any("4 of 4 requests report all-zero usage" in n for n in doc["notes"])
    assert any("image blocks" in n and "understated" in n for n in doc["notes"])


# --- uncounted input attributed to what the log shows ------------------------------------------------


def _png_size(block: dict[str, Any]) -> tuple[int, int]:
    """Width and height from a base64 PNG's IHDR chunk (bytes 16-24)."""
    raw = base64.b64decode(block["source"]["data"])
    assert raw[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", raw[16:24])
    return width, height


def test_image_tokens_are_not_blamed_on_a_missing_system_prompt(capsys: pytest.CaptureFixture[str]) -> None:
    """Four real claude-sonnet-4-5 calls (llm-anthropic's test recordings): one plain, three with an
    image. The whole gap is the images', and the image-only request's gap is about what Anthropic's
    documented formula gives (width x height / 750)."""
    doc = _json(capsys, str(IMAGES))
    reported = [r["reported_input_tokens"] for r in doc["requests"]]
    assert reported == [17, 83, 76, 273]  # the recordings' usage
    counted = [r["counted_input_tokens"] for r in doc["requests"]]
    t = doc["totals"]
    assert t["gap_label"] == "uncounted content"
    assert t["gap_tokens"] == 449 - sum(counted)
    prefix = max(reported[0] - counted[0], 0)  # the plain request's gap: what every request lacks
    images = sum(reported[i] - counted[i] - min(prefix, reported[i] - counted[i]) for i in (1, 2, 3))
    first = t["gap_parts"][0]
    assert (first["what"], first["tokens"], first["requests"]) == ("image", images, 3)
    assert sum(p["tokens"] for p in t["gap_parts"]) == t["gap_tokens"]
    assert Decimal(first["share"]) == (Decimal(images) / Decimal(t["gap_tokens"])).quantize(
        Decimal("0.000001")
    )
    assert not any(PREFIX_BLAME in n for n in doc["notes"])
    assert any(f"{images:,}" in n and "image blocks of 3 requests" in n for n in doc["notes"])
    # request 3 sends the image alone: 166 x 282 px -> 62.4 tokens by the formula
    line = json.loads(IMAGES.read_text(encoding="utf-8").splitlines()[2])
    width, height = _png_size(line["request"]["messages"][0]["content"][0])
    assert (width, height) == (166, 282)
    assert abs((reported[2] - counted[2]) - Decimal(width * height) / 750) < 10
    table = _out(capsys, str(IMAGES))
    assert "uncounted content" in table and f"image {images:,}" in table


def test_a_pdf_is_named_and_an_unrecorded_prefix_taken_off_first(tmp_path: Path) -> None:
    """A document block in the middle of a run whose requests all lack a 100-token system prompt:
    the median gap of the plain requests is taken off the document's request first."""
    parts, separable = attribute([100, 1100, 104, 98], [(), ("document",), (), ()], 1402, "unrecorded prefix")
    assert separable
    assert [(p.what, p.tokens, p.requests) for p in parts] == [
        ("document", 1000, 1),
        ("unrecorded prefix", 402, 4),
    ]
    assert parts[0].share == Decimal("0.713267")  # 1000 / 1402
    # every request carries one: the prefix cannot be told apart, and the note says so
    parts, separable = attribute(
        [900, 1100], [("document",), ("image", "document")], 2000, "unrecorded prefix"
    )
    assert not separable
    assert [(p.what, p.tokens) for p in parts] == [("document and image", 1100), ("document", 900)]


def test_a_pdf_in_a_real_log_shape(tmp_path: Path) -> None:
    """The image-only request of the real log with its image replaced by a (tiny) PDF document: the
    gap is the document's, nothing is said of a system prompt."""
    line = json.loads(IMAGES.read_text(encoding="utf-8").splitlines()[2])
    pdf = base64.b64encode(b"%PDF-1.4\n%%EOF\n").decode()
    line["request"]["messages"][0]["content"][0] = {
        "type": "document",
        "source": {"type": "base64", "media_type": "application/pdf", "data": pdf},
    }
    line["response"]["usage"]["input_tokens"] = 1600  # as a one-page PDF costs
    path = tmp_path / "pdf.jsonl"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    report = replay(load_trace(path), as_of=WHEN)
    [part] = report.totals.gap_parts
    assert (part.what, part.tokens) == ("document", 1600 - (report.requests[0].counted_input or 0))
    assert not any(PREFIX_BLAME in n for n in report.notes)
    assert any("cannot be told apart" in n for n in report.notes)


def test_the_blocks_each_format_does_not_count() -> None:
    anthropic = [
        {"type": "text", "text": "hi"},
        {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}},
        {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "counted"}},
        {"type": "server_tool_use", "id": "s", "name": "web_search", "input": {"query": "q"}},
        {"type": "web_search_tool_result", "tool_use_id": "s", "content": []},
        {"type": "tool_result", "tool_use_id": "t", "content": [{"type": "image", "source": {}}]},
    ]
    assert content_kinds(anthropic) == ("image", "server tool", "server tool", "image")
    openai = [
        {"type": "text", "text": "hi"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA"}},
        {"type": "input_audio", "input_audio": {"data": "AA", "format": "wav"}},
        {"type": "file", "file": {"filename": "a.pdf", "file_data": "data:application/pdf;base64,AA"}},
        {"type": "input_image", "image_url": "https://example.com/a.png"},
        {"type": "input_file", "file_id": "file-1"},
    ]
    assert content_kinds(openai) == ("image", "audio", "document", "image", "document")
    gemini = [{"text": "hi"}, {"inline_data": {"mime_type": "application/pdf", "data": "AA"}},
              {"fileData": {"mimeType": "video/mp4", "fileUri": "gs://b/v.mp4"}}]  # fmt: skip
    assert content_kinds(gemini) == ("document", "video")
    otel = [{"type": "text", "content": "hi"}, {"type": "blob", "modality": "audio", "content": "AA"}]
    assert content_kinds(otel) == ("audio",)


# --- Gemini parts in Langfuse ------------------------------------------------------------------------


def _langfuse(tmp_path: Path, message: dict[str, Any]) -> Path:
    trace = {
        "id": "t",
        "observations": [
            {
                "id": "g",
                "type": "GENERATION",
                "startTime": "2025-08-01T13:22:00.147Z",
                "model": "gemini-2.5-flash",
                "input": [message],
                "output": {"role": "model", "parts": [{"text": "A tracing platform for LLM apps."}]},
                "usageDetails": {"input": 1300, "output": 9},
            }
        ],
    }
    path = tmp_path / f"{len(list(tmp_path.iterdir()))}.json"
    path.write_text(json.dumps(trace), encoding="utf-8")
    return path


def test_gemini_parts_in_langfuse_are_read(tmp_path: Path) -> None:
    question = "Summarise this document: what is Langfuse, and who uses it?"
    parts = {
        "role": "user",
        "parts": [{"text": question}, {"inline_data": {"mime_type": "application/pdf", "data": "JVBERi0x"}}],
    }
    plain = {"role": "user", "content": question}  # the same text as a chat message
    got = replay(load_trace(_langfuse(tmp_path, parts)), as_of=WHEN)
    want = replay(load_trace(_langfuse(tmp_path, plain)), as_of=WHEN)
    counted = got.requests[0].counted_input
    assert counted == want.requests[0].counted_input and counted is not None and counted > 10
    assert got.requests[0].counted_output == want.requests[0].counted_output > 1
    [part] = got.totals.gap_parts
    assert (part.what, part.tokens) == ("document", 1300 - counted)
    assert want.totals.gap_parts == () and got.totals.gap_label == "uncounted content"


# --- model aliases in a corpus ------------------------------------------------------------------------


def test_a_corpus_merges_a_models_dated_id(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = IMAGES.read_text(encoding="utf-8")
    (tmp_path / "a.jsonl").write_text(text, encoding="utf-8")
    dated = text.replace('"model":"claude-sonnet-4-5",', '"model":"claude-sonnet-4-5-20250929",')
    assert dated != text
    (tmp_path / "b.jsonl").write_text(dated, encoding="utf-8")
    doc = _json(capsys, str(tmp_path))
    assert doc["summary"]["models"] == [
        {
            "model": "claude-sonnet-4-5",
            "runs": 2,
            "names": ["claude-sonnet-4-5", "claude-sonnet-4-5-20250929"],
        }
    ]
    assert [r["model"] for r in doc["runs"]] == ["claude-sonnet-4-5", "claude-sonnet-4-5-20250929"]
    table = _out(capsys, str(tmp_path))
    assert "claude-sonnet-4-5 2 (as claude-sonnet-4-5, claude-sonnet-4-5-20250929)" in " ".join(table.split())
