"""agentcost replay on a real Claude Code session (tests/data/real/claude-code/spotter, see its PROVENANCE.md):
found by its content, each request priced at its own model, streaming-start usage snapshots
flagged and priced from our count of the output, subagent transcripts folded in with subtotals.

Every expected dollar figure is worked out here from the log's own lines (read with ``json``, not
with agentcost's reader) and Anthropic's published rates, not taken from agentcost's prices.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from agentcost.cli import run
from agentcost.commands.replay_many import find_logs
from agentcost.replay import detect_format, load_trace, replay

REAL = Path(__file__).parent / "data" / "real" / "claude-code" / "spotter"
SESSION = REAL / "ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"
SUBAGENT = REAL / "ae4a77f8-aedd-4bc1-888f-c94edc91af04" / "subagents" / "agent-aac57f5.jsonl"
AS_OF = datetime(2026, 11, 30, tzinfo=UTC)

OPUS, HAIKU, SONNET = "claude-opus-4-6", "claude-haiku-4-5-20251001", "claude-sonnet-4-5-20250929"
RATES = {  # $ per million tokens: input, 5-minute cache write, 1-hour cache write, cache read, output
    OPUS: ("5", "6.25", "10", "0.50", "25"),
    HAIKU: ("1", "1.25", "2", "0.10", "5"),
    SONNET: ("3", "3.75", "6", "0.30", "15"),  # up to 200,000 input tokens, as every request here
}
"""Anthropic's list prices, https://platform.claude.com/docs/en/about-claude/pricing, as quoted with
their sources in ../shared/reference/pricing-facts.md (rates as of 2026-11-30; read 2026-12-07)."""


def _requests(path: Path) -> dict[str, dict[str, Any]]:
    """Each API message of a Claude Code log by ``message.id``: its model, the usage of its last
    line (Claude Code writes a line per content block, each with the usage known then), the line."""
    out: dict[str, dict[str, Any]] = {}
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = json.loads(raw)
        if line.get("type") == "assistant":
            message = line["message"]
            request = out.setdefault(message["id"], {"first": n})
            request.update(model=message["model"], usage=message["usage"])
    return out


def _snapshots(requests: dict[str, dict[str, Any]]) -> set[str]:
    """The requests whose last line has the streaming-start usage only: no ``server_tool_use`` where
    the log's other requests have it, else 1 to 8 output tokens."""
    finals = any("server_tool_use" in r["usage"] for r in requests.values())
    if finals:
        return {k for k, r in requests.items() if "server_tool_use" not in r["usage"]}
    return {k for k, r in requests.items() if 1 <= r["usage"]["output_tokens"] <= 8}


def _dollars(model: str, usage: dict[str, Any], output: int) -> Decimal:
    """One request by hand: tokens times the model's rates, per million."""
    fresh, write_5m, write_1h, read, out = (Decimal(x) for x in RATES[model])
    split = usage.get("cache_creation") or {}
    one_hour = split.get("ephemeral_1h_input_tokens", 0)
    five_min = usage["cache_creation_input_tokens"] - one_hour
    per_million = (
        usage["input_tokens"] * fresh
        + five_min * write_5m
        + one_hour * write_1h
        + usage["cache_read_input_tokens"] * read
        + output * out
    )
    return per_million / 1_000_000


def test_a_real_session_opening_with_snapshot_and_progress_lines_is_detected(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = SESSION.read_text(encoding="utf-8")
    types = [json.loads(raw)["type"] for raw in text.splitlines()[:7]]
    assert types[:6] == ["file-history-snapshot"] * 2 + ["progress"] * 4 and types[6] == "user"
    assert detect_format(SESSION, text) == "claude-code"
    assert run(["replay", str(SESSION), "--as-of", "2026-11-30", "--format", "json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["trace"]["format"] == "claude-code" and body["totals"]["requests"] == 9 + 3


def test_detection_reads_a_bounded_number_of_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    progress = json.dumps({"type": "progress", "data": {"type": "hook_progress"}, "sessionId": "s"})
    user = json.dumps({"type": "user", "sessionId": "s", "message": {"role": "user", "content": "hi"}})
    near, far = tmp_path / "near.jsonl", tmp_path / "far.jsonl"
    near.write_text("\n".join([progress] * 999 + [user]) + "\n", encoding="utf-8")
    far.write_text("\n".join([progress] * 1_000 + [user]) + "\n", encoding="utf-8")
    assert detect_format(near, near.read_text(encoding="utf-8")) == "claude-code"  # line 1,000
    assert run(["replay", str(far), "--as-of", "2026-11-30"]) == 2  # line 1,001: not looked at
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "far.jsonl: cannot tell the log format" in err and "--format-in" in err


def test_lines_of_one_message_are_one_request_with_the_last_lines_usage() -> None:
    requests = _requests(SESSION)
    trace = load_trace(SESSION)
    assert len(requests) == 9 and len(trace.calls) == 9  # 28 assistant lines
    for call, (_, request) in zip(trace.calls, requests.items(), strict=True):
        usage = request["usage"]
        assert call.line == request["first"] and call.model == request["model"]
        assert call.reported is not None
        assert call.reported.output_tokens == usage["output_tokens"]
        assert call.reported.input_tokens == (
            usage["input_tokens"] + usage["cache_creation_input_tokens"] + usage["cache_read_input_tokens"]
        )
    # the third request is written over lines 44-65 between its tool results: its usage grows
    # from 1 output token to the 395 of its last line
    assert [c.reported.output_tokens for c in trace.calls if c.reported][3] == 395


def test_each_request_is_priced_at_its_own_model() -> None:
    requests = _requests(SESSION)
    assert [r["model"] for r in requests.values()] == [OPUS] * 5 + [HAIKU] * 4
    snapshots = _snapshots(requests)
    report = replay(load_trace(SESSION), as_of=AS_OF)
    expected = []
    for row, (key, request) in zip(report.requests, requests.items(), strict=True):
        assert row.model == request["model"]
        output = row.counted_output if key in snapshots else request["usage"]["output_tokens"]
        assert output is not None
        expected.append(_dollars(request["model"], request["usage"], output))
        assert row.cost_usd == expected[-1]
    assert report.totals.cost_usd == sum(expected)
    assert [(m.model, m.requests, m.cost_usd) for m in report.models] == [
        (OPUS, 5, sum(expected[:5])),
        (HAIKU, 4, sum(expected[5:])),
    ]
    assert report.model == OPUS  # the model most requests name heads the report
    # the reported figures alone, every request at Haiku's rates (agentcost before issue 29) and
    # each at its own: the Opus requests cost five times as much
    at_haiku = sum(_dollars(HAIKU, r["usage"], r["usage"]["output_tokens"]) for r in requests.values())
    at_own = sum(_dollars(r["model"], r["usage"], r["usage"]["output_tokens"]) for r in requests.values())
    assert at_haiku == Decimal("0.10388570") and at_own == Decimal("0.24126990")


def test_a_small_mixed_session_by_hand(tmp_path: Path) -> None:
    def assistant(model: str, mid: str, usage: dict[str, Any], content: list[Any]) -> dict[str, Any]:
        message = {"id": mid, "role": "assistant", "model": model, "content": content, "stop_reason": None}
        return {"type": "assistant", "sessionId": "s", "message": {**message, "usage": usage}}

    final = {"server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0}}
    opus = {"input_tokens": 3, "cache_creation_input_tokens": 10_000, "cache_read_input_tokens": 20_000}
    haiku = {"input_tokens": 7, "cache_creation_input_tokens": 2_000, "cache_read_input_tokens": 30_000}
    lines = [
        {"type": "file-history-snapshot", "messageId": "m", "snapshot": {}},
        {"type": "progress", "sessionId": "s", "data": {"type": "hook_progress"}},
        {"type": "user", "sessionId": "s", "message": {"role": "user", "content": "Fix the test."}},
        assistant(
            OPUS, "msg_a", {**opus, "output_tokens": 500, **final}, [{"type": "text", "text": "Done."}]
        ),
        {"type": "user", "sessionId": "s", "message": {"role": "user", "content": "Thanks, now the docs."}},
        assistant(
            HAIKU, "msg_b", {**haiku, "output_tokens": 1_000, **final}, [{"type": "text", "text": "Ok."}]
        ),
    ]
    log = tmp_path / "mixed.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    report = replay(load_trace(log), as_of=AS_OF)
    # Opus 4.6: 3 x $5 + 10,000 x $6.25 + 20,000 x $0.50 + 500 x $25 = $85,015 per million
    # Haiku 4.5: 7 x $1 + 2,000 x $1.25 + 30,000 x $0.10 + 1,000 x $5 = $10,507 per million
    assert [r.cost_usd for r in report.requests] == [Decimal("0.085015"), Decimal("0.010507")]
    assert report.totals.cost_usd == Decimal("0.095522")
    assert not any(r.output_snapshot for r in report.requests)
    # --model prices every request at the model it names, as before
    forced = replay(load_trace(log, model=HAIKU), as_of=AS_OF)
    # Haiku 4.5: 3 x $1 + 10,000 x $1.25 + 20,000 x $0.10 + 500 x $5 = $17,003 per million
    assert forced.totals.cost_usd == Decimal("0.017003") + Decimal("0.010507") and not forced.models


def test_streaming_start_snapshots_are_flagged_and_priced_from_the_counted_output(
    capsys: pytest.CaptureFixture[str],
) -> None:
    requests = _requests(SESSION)
    snapshots = _snapshots(requests)
    assert len(snapshots) == 4  # lines 26-28, 36, 69-73, 121-123: 8, 19, 8 and 8 output tokens
    report = replay(load_trace(SESSION), as_of=AS_OF)
    flagged = [row for row in report.requests if row.output_snapshot]
    assert [row.line for row in flagged] == sorted(requests[k]["first"] for k in snapshots)
    assert [row.reported_output for row in flagged] == [8, 19, 8, 8]
    for row in flagged:  # a thinking block, text and tool calls: more than the snapshot says
        assert row.counted_output is not None and row.counted_output > (row.reported_output or 0)
    counted = sum(row.counted_output or 0 for row in flagged)
    note = next(n for n in report.notes if "streaming-start usage snapshot" in n)
    assert note.startswith("4 requests carry only") and "43 output tokens reported" in note
    assert f"({counted:,} tokens)" in note
    assert run(["replay", str(SESSION), "--as-of", "2026-11-30", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["requests"]  # the subagent's three follow
    assert [r["line"] for r in rows[:9] if r["output_snapshot"]] == [row.line for row in flagged]
    assert [r["output_snapshot"] for r in rows[9:]] == [True] * 3
    # the subagent's log has no final usage at all: 1 to 8 output tokens tell its snapshots
    sub = _requests(SUBAGENT)
    assert len(_snapshots(sub)) == 3 and not any("server_tool_use" in r["usage"] for r in sub.values())


def test_subagent_transcripts_are_folded_in_with_subtotals(capsys: pytest.CaptureFixture[str]) -> None:
    own, sub = _requests(SESSION), _requests(SUBAGENT)
    assert all(r["model"] == SONNET for r in sub.values()) and len(sub) == 3
    assert len(load_trace(SESSION).calls) == 9  # calibrate's reading: the session's own requests
    trace = load_trace(SESSION, subagents=True)
    assert [c.agent for c in trace.calls] == [None] * 9 + ["agent-aac57f5"] * 3
    assert [c.index for c in trace.calls] == list(range(1, 13))
    report = replay(trace, as_of=AS_OF)
    rows = report.requests
    sub_dollars = [
        _dollars(SONNET, r["usage"], row.counted_output or 0)  # all three are snapshots
        for row, r in zip(rows[9:], sub.values(), strict=True)
    ]
    assert [row.cost_usd for row in rows[9:]] == sub_dollars
    session, agent = report.subagents
    assert (session.agent, session.requests, session.cost_usd) == (None, 9, sum(r.cost_usd for r in rows[:9]))
    assert (agent.agent, agent.model, agent.requests) == ("agent-aac57f5", SONNET, 3)
    assert agent.cost_usd == sum(sub_dollars)
    assert agent.reported_input == sum(
        u["input_tokens"] + u["cache_creation_input_tokens"] + u["cache_read_input_tokens"]
        for u in (r["usage"] for r in sub.values())
    )
    assert agent.reported_output == 3 + 3 + 1
    assert report.totals.cost_usd == session.cost_usd + agent.cost_usd
    assert [m.model for m in report.models] == [OPUS, HAIKU, SONNET]
    assert report.fit is not None and report.fit.prefix_b == sum(
        own[next(iter(own))]["usage"][k]
        for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    )

    assert run(["replay", str(SESSION), "--as-of", "2026-11-30", "--format", "json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert [(a["agent"], a["requests"]) for a in body["subagents"]] == [(None, 9), ("agent-aac57f5", 3)]
    assert Decimal(body["subagents"][1]["cost_usd"]) == sum(sub_dollars)
    assert [r["agent"] for r in body["requests"]][8:10] == [None, "agent-aac57f5"]
    assert run(["replay", str(SESSION), "--as-of", "2026-11-30", "--format", "markdown"]) == 0
    markdown = capsys.readouterr().out
    assert "**Subagents folded into the session**" in markdown and "| agent-aac57f5 |" in markdown
    assert "**Cost per model**" in markdown
    # replay DIR: the subagent transcript is its session's, not a run of its own
    assert find_logs([str(REAL)]).files == [SESSION]
    assert find_logs([str(REAL / "**" / "*.jsonl")]).files == [SESSION]
    assert find_logs([str(SUBAGENT)]).files == [SUBAGENT]  # named on its own, it is replayed
