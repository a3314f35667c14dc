"""agentcost replay of API logs kept as JSONL: Anthropic Messages, OpenAI Chat Completions and
Responses (samples and their provenance in tests/data/api-logs/)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from agentcost.cli import run
from agentcost.errors import InputError
from agentcost.replay import load_trace, replay

DATA = Path(__file__).parent / "data" / "api-logs"
TOOL_CHOICE = DATA / "anthropic-tool-choice.jsonl"
CACHING = DATA / "anthropic-prompt-caching.jsonl"
CHAT = DATA / "openai-chat.jsonl"
RESPONSES = DATA / "openai-responses.jsonl"
AS_OF = datetime(2026, 11, 30, tzinfo=UTC)


def _write(tmp_path: Path, name: str, lines: list[object]) -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def test_anthropic_tool_choice_log_replays() -> None:
    trace = load_trace(TOOL_CHOICE)
    assert trace.format == "anthropic-jsonl" and trace.model == "claude-3-sonnet-20240229"
    report = replay(trace, as_of=AS_OF)
    # reported: the cookbook's printed usage, exactly
    assert [r.reported_input for r in report.requests] == [429, 442, 527, 540]
    assert [r.reported_output for r in report.requests] == [69, 101, 79, 79]
    # counted: tool definitions, hidden tool-use prompt (auto / forced tool) and the message
    assert [r.counted_input for r in report.requests] == [430, 442, 528, 540]
    assert [r.tool for r in report.requests] == [None, "calculator", "print_sentiment_scores"] * 1 + [
        "print_sentiment_scores"
    ]
    t = report.totals
    assert (t.reported_input, t.reported_output, t.counted_input) == (1_938, 328, 1_940)
    assert (t.cache_read_tokens, t.cache_write_tokens) == (0, 0)
    # $3 / $15 per MTok: 1,938 x 3 + 328 x 15 = 10,734 micro-dollars
    assert report.prices.input_mtok == 3 and report.prices.output_mtok == 15
    assert t.cost_usd == Decimal("0.010734")
    assert t.priced_from == "reported per request" and t.gap_label == "gap" and t.gap == -2


def test_anthropic_caching_log_maps_cache_fields() -> None:
    report = replay(load_trace(CACHING), as_of=AS_OF)
    assert report.model == "claude-3-5-sonnet-20240620"
    # input_tokens (4 each) + cache reads + cache writes: Anthropic's input_tokens exclude cached ones
    assert [r.reported_input for r in report.requests] == [187_358, 187_394, 187_623, 187_870]
    assert [r.cache_read_tokens for r in report.requests] == [0, 187_354, 187_390, 187_619]
    assert [r.cache_write_tokens for r in report.requests] == [187_354, 36, 229, 247]
    assert [r.reported_output for r in report.requests] == [22, 218, 234, 299]
    # turn 1: 4x3 + 187,354x3.75 + 22x15 = 702,919.5 micro-dollars; turn 2: 4x3 + 187,354x0.30
    # + 36x3.75 + 218x15 = 59,623.2; turn 3: 60,597.75; turn 4: 61,708.95
    assert [r.cost_usd for r in report.requests] == [
        Decimal("0.7029195"),
        Decimal("0.0596232"),
        Decimal("0.06059775"),
        Decimal("0.06170895"),
    ]
    t = report.totals
    assert (t.reported_input, t.reported_output) == (750_245, 773)
    assert (t.cache_read_tokens, t.cache_write_tokens) == (562_363, 187_866)
    assert t.cost_usd == Decimal("0.8848494")
    # the book (the cached system prompt) is not in the log: the gap is an unrecorded prefix
    assert t.gap_label == "unrecorded prefix" and t.gap == 750_245 - t.counted_input
    assert t.gap > 4 * 187_000
    assert report.cached_share == Decimal(562_363) / Decimal(750_245)


def test_anthropic_cache_creation_split_and_bare_response(tmp_path: Path) -> None:
    usage = {
        "input_tokens": 10,
        "output_tokens": 100,
        "cache_read_input_tokens": 0,
        "cache_creation_input_tokens": 3_000,
        "cache_creation": {"ephemeral_5m_input_tokens": 1_000, "ephemeral_1h_input_tokens": 2_000},
    }
    log = _write(
        tmp_path, "bare.jsonl", [{"type": "message", "model": "claude-3-5-sonnet-20240620", "usage": usage}]
    )
    trace = load_trace(log)
    assert trace.format == "anthropic-jsonl"
    rep = trace.calls[0].reported
    assert rep is not None and trace.calls[0].messages is None
    assert (rep.input_tokens, rep.cache_write_tokens, rep.cache_write_1h_tokens) == (3_010, 1_000, 2_000)
    report = replay(trace, as_of=AS_OF)
    # 10x3 + 1,000x3.75 + 2,000x6 (1h writes: 2x input) + 100x15 = 17,280 micro-dollars
    assert report.totals.cost_usd == Decimal("0.01728")
    assert report.requests[0].counted_input is None and report.requests[0].cache_write_tokens == 3_000


def test_openai_chat_log_replays(tmp_path: Path) -> None:
    trace = load_trace(CHAT)
    assert trace.format == "openai-chat-jsonl" and trace.model == "gpt-4o"
    report = replay(trace, as_of=AS_OF)
    # the cookbook's reported prompt_tokens (124 jargon messages, 101 weather + tools) counted exactly
    assert [r.reported_input for r in report.requests] == [124, 101]
    assert [r.counted_input for r in report.requests] == [124, 101]
    assert report.requests[1].tool == "get_current_weather"
    t = report.totals
    assert (t.reported_input, t.reported_output, t.gap) == (225, 19, 0)
    # $2.50 / $10 per MTok: 225 x 2.5 + 19 x 10 = 752.5 micro-dollars
    assert t.cost_usd == Decimal("0.0007525")
    cached = {
        "request": {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]},
        "response": {
            "usage": {
                "prompt_tokens": 2_000,
                "completion_tokens": 10,
                "prompt_tokens_details": {"cached_tokens": 1_024},
            }
        },
    }
    c = replay(load_trace(_write(tmp_path, "c.jsonl", [cached])), as_of=AS_OF)
    # 976 x 2.5 + 1,024 x 1.25 + 10 x 10 = 3,820 micro-dollars
    assert (c.requests[0].reported_input, c.requests[0].cache_read_tokens) == (2_000, 1_024)
    assert c.totals.cost_usd == Decimal("0.00382")


def test_openai_responses_log_replays(tmp_path: Path) -> None:
    trace = load_trace(RESPONSES)
    assert trace.format == "openai-responses-jsonl"
    report = replay(trace, as_of=AS_OF)
    # call 2: the function_call and its output counted as estimate counts a tool round (issue 17)
    assert [r.counted_input for r in report.requests] == [101, 158]
    assert [r.reported_input for r in report.requests] == [101, 150]
    t = report.totals
    assert (t.reported_input, t.reported_output) == (251, 34)
    assert t.cost_usd == Decimal("0.0009675")  # 251 x 2.5 + 34 x 10
    assert t.gap_label == "gap" and t.gap == -8  # call 2's 150 is invented (PROVENANCE.md)
    cached = {
        "request": {"model": "gpt-4o", "input": "hi"},
        "response": {
            "object": "response",
            "usage": {
                "input_tokens": 2_000,
                "output_tokens": 10,
                "input_tokens_details": {"cached_tokens": 1_024},
            },
        },
    }
    c = replay(load_trace(_write(tmp_path, "r.jsonl", [cached])), as_of=AS_OF)
    assert (c.requests[0].reported_input, c.requests[0].cache_read_tokens) == (2_000, 1_024)
    assert c.totals.cost_usd == Decimal("0.00382")


def test_format_in_forces_the_parser(tmp_path: Path) -> None:
    bare = _write(tmp_path, "u.jsonl", [{"usage": {"input_tokens": 5, "output_tokens": 1}}])
    assert load_trace(bare).format == "anthropic-jsonl"
    forced = load_trace(bare, format_in="openai-responses-jsonl", model="gpt-4o")
    assert forced.format == "openai-responses-jsonl" and forced.model == "gpt-4o"


def test_bad_line_names_the_line(tmp_path: Path) -> None:
    lines = TOOL_CHOICE.read_text(encoding="utf-8").splitlines()
    lines[1] = lines[1][:50] + " oops " + lines[1][50:]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_trace(bad)
    assert err.value.line == 2 and str(err.value).startswith(f"{bad}:2: not valid JSON")
    wrong = _write(tmp_path, "w.jsonl", [{"request": {"model": "gpt-4o", "messages": "x"}, "response": {}}])
    with pytest.raises(InputError, match=r":1: request\.messages must be a list"):
        load_trace(wrong, format_in="openai-chat-jsonl")


def test_truncated_last_line_gives_a_partial_ledger(tmp_path: Path) -> None:
    text = CACHING.read_text(encoding="utf-8")
    cut = tmp_path / "cut.jsonl"
    cut.write_text(
        text[: text.index("\n", text.index("\n", text.index("\n") + 1) + 1) + 200], encoding="utf-8"
    )
    trace = load_trace(cut)
    assert trace.truncated and len(trace.calls) == 3
    assert "line 4 is cut off" in trace.warnings[0] and "read 3 requests" in trace.warnings[0]
    report = replay(trace, as_of=AS_OF)
    assert report.truncated and report.totals.reported_input == 187_358 + 187_394 + 187_623


def test_tools_and_system_files_fill_the_unrecorded_prefix(tmp_path: Path) -> None:
    rows = [json.loads(x) for x in TOOL_CHOICE.read_text(encoding="utf-8").splitlines()]
    tools = rows[0]["request"]["tools"]
    for row in rows:
        del row["request"]["tools"]
    stripped = _write(tmp_path, "no-tools.jsonl", rows)
    without = replay(load_trace(stripped), as_of=AS_OF).totals
    assert without.gap_label == "unrecorded prefix" and without.gap is not None and without.gap > 1_500
    tools_file = tmp_path / "tools.json"
    tools_file.write_text(json.dumps({"tools": tools}), encoding="utf-8")
    with_tools = replay(load_trace(stripped, tools=tools_file), as_of=AS_OF)
    assert [r.counted_input for r in with_tools.requests] == [430, 442, 528, 540]
    system = tmp_path / "system.txt"
    system.write_text("You are a scientist", encoding="utf-8")
    trace = load_trace(stripped, tools=tools_file, system=system)
    assert all(c.messages and c.messages[0].text == "You are a scientist" for c in trace.calls)
    assert any("--system" in n for n in trace.notes)
    base = ["replay", str(stripped), "--tools", str(tools_file), "--as-of", "2026-11-30", "--format", "json"]
    assert run(base) == 0


def test_cli_replay_api_logs(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["replay", str(CACHING), "--as-of", "2026-11-30", "-q"]) == 0
    assert capsys.readouterr().out == "0.8848494\n"
    assert run(["replay", str(CHAT), "--format", "json", "--as-of", "2026-11-30"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["totals"]["reported_input_tokens"] == 225
    from jsonschema import Draft202012Validator

    from agentcost.render.schema import report_schema

    Draft202012Validator(report_schema()).validate(doc)
    assert run(["replay", str(RESPONSES), "--format-in", "nope", "--as-of", "2026-11-30"]) == 2
    assert "unknown log format" in capsys.readouterr().err
