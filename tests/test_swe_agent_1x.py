"""SWE-agent 1.x trajectories: function-calling history, the model from replay_config, reported_kind."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from agentcost.cli import run
from agentcost.errors import InputError
from agentcost.replay import load_trace, replay
from agentcost.replay.trace import ReplayReport

DATA = Path(__file__).parent / "data" / "swe-agent"
TRAJ = DATA / "swe-agent-1x__marshmallow-1867.traj"
OLD = DATA / "swe-agent__test-repo-i1.traj"
AS_OF = datetime(2026, 11, 30, tzinfo=UTC)

VALIDATION = Path(__file__).resolve().parents[2] / "shared" / "validation"
if not VALIDATION.is_dir():
    VALIDATION = Path("/work/shared/validation")


def _data() -> dict[str, Any]:
    data = json.loads(TRAJ.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _write(tmp_path: Path, data: dict[str, Any], name: str = "run.traj") -> Path:
    out = tmp_path / name  # no run config beside it
    out.write_text(json.dumps(data), encoding="utf-8")
    return out


def _cookbook(messages: list[dict[str, str]]) -> int:
    """The OpenAI cookbook recipe for gpt-4o, counted with tiktoken's o200k_base (the bundled ranks,
    no network) directly: 3 tokens per message, the tokens of every value, 3 to prime the reply."""
    from agentcost.tokens.encodings import get_encoding

    enc = get_encoding("o200k_base")
    return 3 + sum(3 + sum(len(enc.encode_ordinary(v)) for v in m.values()) for m in messages)


def test_1x_trajectory_replays(tmp_path: Path) -> None:
    alone = _write(tmp_path, _data())  # the model comes from the file itself
    trace = load_trace(alone)
    assert trace.format == "swe-agent" and trace.model == "gpt-4o"
    assert len(trace.calls) == 11 and not trace.warnings
    assert trace.calls[-1].action == "submit" and trace.calls[-1].output_text is not None
    assert [(c.name, c.text) for c in trace.calls[-1].output_calls] == [("submit", "{}")]
    assert [c.action for c in trace.calls[:3]] == ["create", "insert", "bash"]
    report = replay(trace, as_of=AS_OF)
    assert report.reported_kind == "none" and report.totals.priced_from == "counted"
    assert report.totals.reported_input is None and report.totals.reported_cost_usd is None
    assert report.prices.model_id == "gpt-4o"
    assert any("tool definitions" in n and "not counted" in n for n in report.notes)


def test_call_1_counts_exactly_against_tiktoken() -> None:
    data = _data()
    history = data["history"]
    sent = [{"role": m["role"], "content": m["content"]} for m in history[:2]]  # system prompt, task
    report = replay(load_trace(TRAJ), as_of=AS_OF)
    assert report.requests[0].counted_input == _cookbook(sent)
    assert report.counting == "tiktoken o200k_base + OpenAI cookbook message framing"


def test_tool_calls_are_counted_as_openai_chat_logs_count_them(tmp_path: Path) -> None:
    """Request 2 as SWE-agent 1.x sends it, written as an OpenAI Chat Completions log line: the
    same count, so tool calls and tool results follow the OpenAI log rules."""
    history = _data()["history"]
    messages: list[dict[str, Any]] = []
    for m in history[:4]:
        row: dict[str, Any] = {"role": m["role"], "content": m["content"]}
        if "tool_calls" in m:
            row["tool_calls"] = m["tool_calls"]
        if m["role"] == "tool":
            row["tool_call_id"] = m["tool_call_ids"][0]
        messages.append(row)
    log = tmp_path / "chat.jsonl"
    answer = {"message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}
    line = {"request": {"model": "gpt-4o", "messages": messages}, "response": {"choices": [answer]}}
    log.write_text(json.dumps(line) + "\n", encoding="utf-8")
    chat = replay(load_trace(log, format_in="openai-chat-jsonl"), as_of=AS_OF)
    ours = replay(load_trace(TRAJ), as_of=AS_OF)
    assert chat.requests[0].counted_input == ours.requests[1].counted_input


def test_last_n_observations_elides_old_observations() -> None:
    trace = load_trace(TRAJ)
    seventh = trace.calls[6].messages
    assert seventh is not None
    # history processor last_n_observations, n=5: the first tool result is elided from request 7 on
    lines = len(_data()["history"][3]["content"].splitlines())
    assert seventh[3].role == "tool" and seventh[3].text == f"Old environment output: ({lines} lines omitted)"
    sixth = trace.calls[5].messages
    assert sixth is not None and sixth[3].text.startswith("[File: reproduce.py")
    assert seventh[1].text == sixth[1].text  # the task (the first observation) is never elided


def test_model_option_overrides_the_file() -> None:
    assert load_trace(TRAJ, model="gpt-4o-mini").model == "gpt-4o-mini"


def test_non_zero_model_stats_are_a_local_count(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _data()
    data["info"]["model_stats"].update(tokens_sent=30_000, tokens_received=700, instance_cost=0.082)
    path = _write(tmp_path, data)
    report: ReplayReport = replay(load_trace(path), as_of=AS_OF)
    t = report.totals
    assert report.reported_kind == "local_count"
    assert (t.reported_input, t.reported_output) == (30_000, 700)
    assert t.priced_from == "counted"  # never priced from a local count that leaves out the tools
    assert any("local count" in n and "not usage reported by the API" in n for n in report.notes)
    assert run(["replay", str(path), "--as-of", "2026-11-30"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert f"the agent's local count {t.reported_input:,} (not API usage; difference" in out
    assert "reported 30,000" not in out
    assert run(["replay", str(path), "--as-of", "2026-11-30", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["reported_kind"] == "local_count"
    assert doc["totals"]["reported_input_tokens"] == 30_000


def test_replay_config_as_a_json_string(tmp_path: Path) -> None:
    data = _data()
    data["replay_config"] = json.dumps(data["replay_config"])
    trace = load_trace(_write(tmp_path, data))
    assert trace.model == "gpt-4o" and len(trace.calls) == 11
    assert [c.messages for c in trace.calls] == [c.messages for c in load_trace(TRAJ).calls]


def test_replay_config_string_that_is_not_json(tmp_path: Path) -> None:
    data = _data()
    data["replay_config"] = "{not json"
    path = _write(tmp_path, data)
    trace = load_trace(path)
    assert trace.model is None and any("replay_config is not valid JSON" in w for w in trace.warnings)
    with pytest.raises(InputError, match="does not name the model"):
        replay(trace, as_of=AS_OF)
    assert load_trace(path, model="gpt-4o").model == "gpt-4o"


def test_recorded_step_queries_are_used(tmp_path: Path) -> None:
    """Newer 1.x versions record each step's request as ``trajectory[k].query``."""
    data = _data()
    history = data["history"]
    answers = [i for i, m in enumerate(history) if m["role"] == "assistant"]
    for k, step in enumerate(data["trajectory"]):
        step["query"] = history[:2] if k == 0 else history[: answers[k]][-2:]
    trace = load_trace(_write(tmp_path, data))
    assert [len(c.messages or ()) for c in trace.calls] == [2] * 11
    assert any("recorded query" in n for n in trace.notes)


def test_submit_only_in_the_trajectory_is_the_last_call(tmp_path: Path) -> None:
    data = _data()
    data["history"] = data["history"][:-2]  # the submit call and its observation
    trace = load_trace(_write(tmp_path, data))
    full = load_trace(TRAJ)
    assert len(trace.calls) == 11 and trace.calls[-1].action == "submit"
    assert trace.calls[-1].messages == full.calls[-1].messages  # the whole history before it
    assert trace.calls[-1].output_text == "Calling `submit` to submit."
    assert any("not in 'history'" in w for w in trace.warnings)


def test_tools_file_is_added_to_1x_requests(tmp_path: Path) -> None:
    tools = tmp_path / "tools.json"
    fn = {"name": "submit", "description": "submits", "parameters": {"type": "object", "properties": {}}}
    tools.write_text(json.dumps([{"type": "function", "function": fn}]), encoding="utf-8")
    without = replay(load_trace(TRAJ), as_of=AS_OF)
    trace = load_trace(TRAJ, tools=tools)
    assert all(c.tools for c in trace.calls)
    report = replay(trace, as_of=AS_OF)
    assert report.totals.counted_input > without.totals.counted_input
    assert not any("not counted" in n for n in report.notes)


def test_0x_stays_reported_by_the_api() -> None:
    report = replay(load_trace(OLD, model="gpt4"), as_of=AS_OF)
    assert report.reported_kind == "api" and report.totals.reported_input == 52_861


def test_truncated_1x_trajectory(tmp_path: Path) -> None:
    text = TRAJ.read_text(encoding="utf-8")
    at = text.index('"role": "assistant"', text.index('"history"'))
    at = text.index('"role": "assistant"', at + 1)  # inside the second assistant message
    cut = tmp_path / "cut.traj"
    cut.write_text(text[: at + 40], encoding="utf-8")
    trace = load_trace(cut, model="gpt-4o")
    assert trace.truncated and len(trace.calls) == 1 and trace.calls[0].action == "create"
    assert replay(trace, as_of=AS_OF).reported_kind == "none"


@pytest.mark.skipif(not VALIDATION.is_dir(), reason="shared/validation not available")
def test_copy_matches_shared_validation() -> None:
    assert (VALIDATION / "swe-agent" / TRAJ.name).read_bytes() == TRAJ.read_bytes()
