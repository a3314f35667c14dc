"""agentcost replay: Claude Code session logs and stream-json output (tests/data/claude-code)."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from agentcost.cli import run
from agentcost.errors import InputError
from agentcost.replay import detect_format, load_trace, replay

DATA = Path(__file__).parent / "data" / "claude-code"
SESSION = DATA / "session.jsonl"
STREAM = DATA / "stream.jsonl"
AS_OF = datetime(2026, 11, 30, tzinfo=UTC)


def test_session_totals_and_dollars_by_hand() -> None:
    trace = load_trace(SESSION)
    assert trace.format == "claude-code"
    assert trace.model == "claude-sonnet-4-5-20250929"
    report = replay(trace, as_of=AS_OF)
    t = report.totals
    # 4 requests: uncached 4+6+5+7 = 22, 5m writes 3,200+410+230+95 = 3,935, 1h writes 12,000,
    # reads 0+15,200+15,610+15,840 = 46,650; input = 62,607; output 85+140+72+48 = 345
    assert t.requests == 4
    assert (t.reported_input, t.reported_output) == (62_607, 345)
    assert (t.cache_read_tokens, t.cache_write_tokens) == (46_650, 3_935 + 12_000)
    assert [r.reported_input for r in report.requests] == [15_204, 15_616, 15_845, 15_942]
    # $: 22*3 + 3,935*3.75 + 12,000*6 + 46,650*0.30 + 345*15 = 105,992.25 per million
    assert t.cost_usd == Decimal("0.10599225")
    assert t.priced_from == "reported per request"
    assert report.requests[0].cost_usd == Decimal("0.085287")  # 4*3 + 3,200*3.75 + 12,000*6 + 85*15
    assert report.cached_share == Decimal(46_650) / Decimal(62_607)
    assert [r.tool for r in report.requests] == ["Read", "Edit", "Bash", None]
    assert {x.tool for x in report.tools} == {"Read", "Edit", "Bash"}
    assert all(x.result_tokens > 0 for x in report.tools)
    assert report.fit is not None and report.fit.prefix_b == 15_204


def test_split_response_is_counted_once() -> None:
    trace = load_trace(SESSION)
    # lines 3 and 4 are one response (same requestId) repeating the same usage
    assert [c.line for c in trace.calls] == [3, 6, 8, 10]
    first = trace.calls[0]
    assert first.reported is not None and first.reported.output_tokens == 85
    assert "read the test first" in (first.output_text or "") and "tool_use" not in (first.output_text or "")
    assert [c.name for c in first.output_calls] == ["Read"]  # both lines' blocks make the output
    # the next request re-sends both halves of the split response and the tool result
    assert [m.role for m in trace.calls[1].messages or ()] == ["user", "assistant", "assistant", "user"]


def test_unrecorded_prefix_is_shown() -> None:
    report = replay(load_trace(SESSION), as_of=AS_OF)
    t = report.totals
    assert t.gap_label == "unrecorded prefix"
    assert t.gap is not None and t.gap == t.reported_input - t.counted_input  # type: ignore[operator]
    assert t.gap > 60_000  # the system prompt and tools, re-sent with every request
    assert all(r.gap is not None and r.gap > 15_000 for r in report.requests)
    assert any("unrecorded prefix" in n for n in report.notes)


def test_system_file_is_added_to_every_request_and_narrows_the_gap(tmp_path: Path) -> None:
    system = tmp_path / "system.txt"
    system.write_text("You are a coding agent. Be careful.", encoding="utf-8")
    without = replay(load_trace(SESSION), as_of=AS_OF)
    with_system = replay(load_trace(SESSION, system=system), as_of=AS_OF)
    before = [int(r.counted_input or 0) for r in without.requests]
    after = [int(r.counted_input or 0) for r in with_system.requests]
    added = {b - a for a, b in zip(before, after, strict=True)}
    assert len(added) == 1 and min(added) > 0  # the same system message in each of the 4 requests
    assert int(with_system.totals.gap or 0) == int(without.totals.gap or 0) - 4 * min(added)
    assert with_system.totals.cost_usd == without.totals.cost_usd  # priced from the reported usage


def test_stream_json_result_cost_compared_with_ours() -> None:
    trace = load_trace(STREAM)
    assert trace.format == "claude-code" and trace.model == "claude-sonnet-4-5-20250929"
    report = replay(trace, as_of=AS_OF)
    t = report.totals
    assert t.requests == 3  # the first response is split over two lines
    assert (t.reported_input, t.reported_output) == (42_232, 203)
    # 12*3 + 14,300*3.75 + 27,920*0.30 + 203*15 = 65,082 per million
    assert t.cost_usd == Decimal("0.065082")
    assert t.reported_cost_usd == Decimal("0.065546")
    # the difference is the Haiku side call in the result's modelUsage (420*0.8 + 32*4 per million)
    assert t.reported_cost_usd - t.cost_usd == Decimal("0.000464")
    assert trace.reported_totals is not None and trace.reported_totals.input_tokens == 42_232
    assert not trace.warnings
    assert [r.tool for r in report.requests] == ["Bash", "Read", None]


def test_detection_and_format_in(tmp_path: Path) -> None:
    assert detect_format(SESSION, SESSION.read_text(encoding="utf-8")) == "claude-code"
    assert detect_format(STREAM, STREAM.read_text(encoding="utf-8")) == "claude-code"
    copy = tmp_path / "log.txt"
    copy.write_bytes(SESSION.read_bytes())
    assert load_trace(copy, format_in="claude-code").format == "claude-code"


def test_bad_line_names_the_line(tmp_path: Path) -> None:
    lines = SESSION.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[4] = "{not json\n"
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_trace(bad, format_in="claude-code")
    assert err.value.line == 5
    assert str(err.value).startswith(f"{bad}:5: not valid JSON")


def test_truncated_tail_gives_a_partial_ledger(tmp_path: Path) -> None:
    text = SESSION.read_text(encoding="utf-8")
    cut = tmp_path / "cut.jsonl"
    cut.write_text(text[: text.rindex("\n", 0, len(text) - 1) + 60], encoding="utf-8")
    trace = load_trace(cut)
    assert trace.truncated and len(trace.calls) == 3
    assert "line 10 (truncated): read 3 API requests" in trace.warnings[0]
    report = replay(trace, as_of=AS_OF)
    assert report.truncated and report.totals.requests == 3
    assert report.totals.reported_input == 15_204 + 15_616 + 15_845


def test_cli_replay_claude_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["replay", str(SESSION), "--as-of", "2026-11-30", "-q"]) == 0
    assert capsys.readouterr().out == "0.10599225\n"
    assert run(["replay", str(STREAM), "--format-in", "claude-code", "--as-of", "2026-11-30"]) == 0
    out = capsys.readouterr().out
    assert "unrecorded prefix" in out


def test_relative_errors_are_rounded_to_six_decimals() -> None:
    t = replay(load_trace(SESSION), as_of=AS_OF).totals
    # counted 789 of 62,607 reported input tokens: (789 - 62,607) / 62,607 = -0.98739758...
    assert t.input_error == Decimal("-0.987398")
