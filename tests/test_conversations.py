"""Splitting a log into its separate conversations, and calibrating a log that holds several."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from agentcost.cli import run
from agentcost.commands.batch import batch_report_for_paths
from agentcost.commands.conversations import calibrate_log, scenario_path, split_conversations
from agentcost.replay import load_trace
from agentcost.replay.trace import Message, RecordedCall, ReportedUsage, Trace

DATA = Path(__file__).parent / "data"
API = DATA / "api-logs"
TRAJ = DATA / "swe-agent" / "swe-agent__test-repo-i1.traj"
ARGS = DATA / "swe-agent" / "test-repo-i1.args.yaml"
AS_OF = datetime(2026, 11, 30, tzinfo=UTC)


def _bounds(trace: Trace) -> list[list[int]]:
    return [[c.index for c in part.calls] for part in split_conversations(trace)]


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (API / "anthropic-tool-choice.jsonl", [[1], [2], [3], [4]]),  # 4 independent single-turn calls
        (API / "openai-chat.jsonl", [[1], [2]]),  # two unrelated calls
        (API / "anthropic-prompt-caching.jsonl", [[1, 2, 3, 4]]),  # history re-sent each turn
        (API / "openai-responses.jsonl", [[1, 2]]),  # the function call and its output sent back
        (DATA / "claude-code" / "session.jsonl", [[1, 2, 3, 4]]),  # text part of a tool response kept
        (DATA / "claude-code" / "stream.jsonl", [[1, 2, 3]]),
    ],
    ids=lambda v: v.name if isinstance(v, Path) else None,
)
def test_split_boundaries_of_the_samples(path: Path, expected: list[list[int]]) -> None:
    assert _bounds(load_trace(path)) == expected


def test_swe_agent_sample_is_one_conversation() -> None:
    trace = load_trace(TRAJ, config=ARGS)
    assert split_conversations(trace) == [trace]


def test_several_conversations_drop_the_whole_log_figures() -> None:
    trace = dataclasses.replace(
        load_trace(API / "openai-chat.jsonl"),
        reported_totals=ReportedUsage(225, 19),
        reported_cost_usd=Decimal("0.001"),
        truncated=True,
    )
    first, second = split_conversations(trace)
    assert first.reported_totals is None and first.reported_cost_usd is None and not first.truncated
    assert second.truncated and second.path == trace.path


def _call(i: int, messages: tuple[Message, ...] | None, out: str = "ok", **kw: object) -> RecordedCall:
    return RecordedCall(i, "gpt-4o", messages, None, out, ReportedUsage(100, 10), i, **kw)  # type: ignore[arg-type]


def test_constructed_boundaries() -> None:
    sys_ = Message("system", "be brief")
    m1 = (sys_, Message("user", "hi"))
    m2 = (*m1, Message("assistant", "ok"), Message("user", "more"))
    cases: list[tuple[list[RecordedCall], list[list[int]]]] = [
        ([_call(1, m1), _call(2, m2)], [[1, 2]]),  # extends: one conversation
        ([_call(1, m1), _call(2, m1)], [[1], [2]]),  # the same request again (no response in it)
        ([_call(1, m1, "other"), _call(2, m2)], [[1], [2]]),  # a different response sent back
        ([_call(1, m1), _call(2, (Message("system", "other"), *m2[1:]))], [[1], [2]]),  # system differs
        ([_call(1, m1), _call(2, m2, tool_choice="any")], [[1], [2]]),  # tool_choice differs
        ([_call(1, None), _call(2, None), _call(3, m1)], [[1, 2, 3]]),  # not recorded: continues
    ]
    for calls, expected in cases:
        assert _bounds(Trace("t.jsonl", "constructed", "gpt-4o", tuple(calls), None)) == expected
    other_model = dataclasses.replace(_call(2, m2), model="gpt-4o-mini")
    assert _bounds(Trace("t", "c", "gpt-4o", (_call(1, m1), other_model), None)) == [[1], [2]]


def test_scenario_paths() -> None:
    assert scenario_path(Path("d/out.yaml"), 2) == Path("d/out.2.yaml")
    assert scenario_path(Path("out"), 1) == Path("out.1")


@pytest.mark.parametrize("name", ["anthropic-tool-choice.jsonl", "openai-chat.jsonl"])
def test_calibrate_log_sums_the_conversations(name: str, tmp_path: Path) -> None:
    result = calibrate_log(load_trace(API / name), as_of=AS_OF, output=tmp_path / "out.yaml")
    assert result.error == 0  # measured: exact for both ($0.010734 and $0.0007525)
    assert sum((c.estimated_usd for c in result.calibrations), Decimal(0)) == result.estimated_usd


def test_cli_calibrate_writes_a_project_and_its_scenarios(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.yaml"
    log = API / "anthropic-tool-choice.jsonl"
    base = ["calibrate", str(log), "--as-of", "2026-11-30", "-o", str(out)]
    assert run(base) == 0
    err = capsys.readouterr().err
    names = ["out.1.yaml", "out.2.yaml", "out.3.yaml", "out.4.yaml"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [*names, "out.yaml"]  # no temporary files
    assert f"wrote {out} (project) and {tmp_path / 'out.1.yaml'}, " in err
    assert "replayed $0.010734, re-estimated $0.010734 (+0.00%)" in err
    assert "4 separate conversations" in err
    text = out.read_text(encoding="utf-8")
    assert "version: 1\n" in text and '  - path: "out.3.yaml"\n' in text
    report = batch_report_for_paths([out], as_of=AS_OF)
    assert report.totals.scenarios == 4 and report.totals.requests == 4
    assert report.totals.cost_usd == Decimal("0.010734")
    second = (tmp_path / "out.2.yaml").read_text(encoding="utf-8")
    assert second.startswith("# Conversation 2 of 4 (request 2) of ")
    # a scenario file in the way: nothing is written, even with the project file gone
    out.unlink()
    (tmp_path / "out.3.yaml").write_text("keep me", encoding="utf-8")
    assert run(base) == 2
    assert "the file exists" in capsys.readouterr().err
    assert (tmp_path / "out.3.yaml").read_text(encoding="utf-8") == "keep me" and not out.exists()
    assert run([*base, "--force"]) == 0
    assert (tmp_path / "out.3.yaml").read_text(encoding="utf-8").startswith("# Conversation 3 of 4")


def test_cli_calibrate_several_conversations_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["calibrate", str(API / "openai-chat.jsonl"), "--as-of", "2026-11-30"]) == 0
    captured = capsys.readouterr()
    assert "scenarios:\n" in captured.out and '  - path: "openai-chat.2.yaml"\n' in captured.out
    assert "model:" not in captured.out  # the project file only
    assert "pass -o FILE to write the scenarios" in captured.err
