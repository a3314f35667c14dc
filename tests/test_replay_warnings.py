"""agentcost replay warns when a run halts at a tool call or sends a tool result that answers no call
(agentcost.replay.tool_ids), for every log format with tool ids; hostile ids are never quoted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentcost.cli import run
from agentcost.replay import load_trace
from agentcost.replay.tool_ids import shown_id

HOSTILE = "\x1b[31m\x07\r\n" + "x" * 10_240  # control characters and 10 KB
HOSTILE_LEN = len(HOSTILE)  # 10,248
USAGE = {"input_tokens": 10, "output_tokens": 5}
CHAT_USAGE = {"prompt_tokens": 10, "completion_tokens": 5}


def _write(tmp_path: Path, lines: list[Any], name: str = "log.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def _warnings(path: Path) -> list[str]:
    return [w for w in load_trace(path).warnings if "tool" in w]


# --- Anthropic Messages ------------------------------------------------------------------------

ASK = {"role": "user", "content": "list files"}


def _use(tool_id: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "tool_use", "id": tool_id, "name": "ls", "input": {}}]}


def _result(tool_id: Any) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": "a.py"}]}


def _anthropic(messages: list[Any], stop: str, out_id: str = "toolu_01A", **request: Any) -> dict[str, Any]:
    content = _use(out_id)["content"] if stop == "tool_use" else [{"type": "text", "text": "done"}]
    return {
        "request": {"model": "claude-sonnet-4-5", "max_tokens": 100, "messages": messages, **request},
        "response": {"type": "message", "content": content, "stop_reason": stop, "usage": USAGE},
    }


def test_anthropic_clean_run_has_no_warning(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        [
            _anthropic([ASK], "tool_use"),
            _anthropic([ASK, _use("toolu_01A"), _result("toolu_01A")], "end_turn"),
        ],
    )
    assert load_trace(path).warnings == ()


def test_anthropic_halted_run(tmp_path: Path) -> None:
    path = _write(tmp_path, [_anthropic([ASK], "end_turn"), _anthropic([ASK], "tool_use", "toolu_9Z")])
    assert _warnings(path) == [
        "request 2 stops at stop_reason tool_use (tool id toolu_9Z) and the log ends there: the run "
        "halted before the agent sent the tool result"
    ]


def test_anthropic_forced_tool_and_cut_file_are_not_halts(tmp_path: Path) -> None:
    forced = _anthropic([ASK], "tool_use", tool_choice={"type": "tool", "name": "ls"})
    assert _warnings(_write(tmp_path, [forced])) == []
    # the line after the tool call is cut: the run went on, the file did not
    path = tmp_path / "cut.jsonl"
    path.write_text(json.dumps(_anthropic([ASK], "tool_use")) + '\n{"request": {"mod', encoding="utf-8")
    trace = load_trace(path)
    assert trace.truncated and not [w for w in trace.warnings if "tool" in w]


def test_anthropic_unmatched_result(tmp_path: Path) -> None:
    bad = [ASK, _use("toolu_01A"), _result("toolu_01B")]
    # request 3 repeats the history: the id is warned about once, at request 2
    path = _write(
        tmp_path,
        [_anthropic([ASK], "tool_use"), _anthropic(bad, "end_turn"), _anthropic([*bad, ASK], "end_turn")],
    )
    assert _warnings(path) == [
        "request 2 sends a tool result for tool id toolu_01B, which the preceding assistant message "
        "does not call: the provider rejects such a request"
    ]


def test_anthropic_result_answers_only_the_preceding_assistant_message(tmp_path: Path) -> None:
    text = {"role": "assistant", "content": "no tools this time"}
    messages = [ASK, _use("toolu_01A"), _result("toolu_01A"), text, _result("toolu_01A")]
    [warning] = _warnings(_write(tmp_path, [_anthropic(messages, "end_turn")]))
    assert warning.startswith("request 1 sends a tool result for tool id toolu_01A,")


def test_anthropic_hostile_ids_are_named_by_length(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        [
            _anthropic([ASK], "tool_use", HOSTILE),
            _anthropic([ASK, _use(HOSTILE), _result(HOSTILE + "y")], "tool_use", HOSTILE),
        ],
    )
    warnings = _warnings(path)
    assert warnings == [
        f"request 2 stops at stop_reason tool_use (a tool id of {HOSTILE_LEN:,} characters (not shown)) and "
        "the log ends there: the run halted before the agent sent the tool result",
        f"request 2 sends a tool result for a tool id of {HOSTILE_LEN + 1:,} characters (not shown), which "
        "the preceding assistant message does not call: the provider rejects such a request",
    ]
    assert HOSTILE_LEN == 10_248 and all(len(w) < 200 for w in warnings)


def test_many_unmatched_results_are_counted(tmp_path: Path) -> None:
    results = {"role": "user", "content": [_result(f"toolu_{i}")["content"][0] for i in range(8)]}
    warnings = _warnings(_write(tmp_path, [_anthropic([ASK, _use("toolu_X"), results], "end_turn")]))
    assert len(warnings) == 6  # five named, the other three counted
    assert warnings[4].startswith("request 1 sends a tool result for tool id toolu_4,")
    assert warnings[5] == (
        "3 more tool results answer no call of the preceding assistant message (first in request 1)"
    )


# --- OpenAI Chat Completions -------------------------------------------------------------------

SYSTEM = {"role": "system", "content": "You run tools."}


def _calls(*ids: Any) -> dict[str, Any]:
    calls = [{"id": i, "type": "function", "function": {"name": "ls", "arguments": "{}"}} for i in ids]
    return {"role": "assistant", "content": None, "tool_calls": calls}


def _tool(tool_id: Any) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": tool_id, "content": "a.py"}


def _chat(messages: list[Any], finish: str, *ids: Any, **request: Any) -> dict[str, Any]:
    message = _calls(*ids) if finish == "tool_calls" else {"role": "assistant", "content": "done"}
    return {
        "request": {"model": "gpt-4o", "messages": messages, **request},
        "response": {
            "object": "chat.completion",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": CHAT_USAGE,
        },
    }


def test_chat_clean_run_has_no_warning(tmp_path: Path) -> None:
    first = _chat([SYSTEM, ASK], "tool_calls", "call_1", "call_2")
    second = _chat([SYSTEM, ASK, _calls("call_1", "call_2"), _tool("call_1"), _tool("call_2")], "stop")
    assert load_trace(_write(tmp_path, [first, second])).warnings == ()


def test_chat_halted_run_names_up_to_three_ids(tmp_path: Path) -> None:
    path = _write(tmp_path, [_chat([SYSTEM, ASK], "tool_calls", "call_a", "call_b", "call_c", "call_d")])
    assert _warnings(path) == [
        "request 1 stops at finish_reason tool_calls (tool id call_a, tool id call_b, tool id call_c and "
        "1 more) and the log ends there: the run halted before the agent sent the tool result"
    ]
    forced = _chat([SYSTEM, ASK], "tool_calls", "call_a", tool_choice="required")
    assert _warnings(_write(tmp_path, [forced], "forced.jsonl")) == []


def test_chat_unmatched_and_hostile_ids(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        [
            _chat([SYSTEM, ASK, _calls("call_1"), _tool("call_2")], "stop"),
            _chat([SYSTEM, ASK, _calls(HOSTILE), _tool(HOSTILE + "z"), _tool(None)], "stop"),
        ],
    )
    assert _warnings(path) == [
        "request 1 sends a tool result for tool id call_2, which the preceding assistant message does "
        "not call: the provider rejects such a request",
        f"request 2 sends a tool result for a tool id of {HOSTILE_LEN + 1:,} characters (not shown), which "
        "the preceding assistant message does not call: the provider rejects such a request",
        "request 2 sends a tool result for no tool id, which the preceding assistant message does not "
        "call: the provider rejects such a request",
    ]


# --- OpenAI Responses --------------------------------------------------------------------------


def _responses(items: list[Any], *out_ids: str, **request: Any) -> dict[str, Any]:
    output: list[Any] = [
        {"type": "function_call", "call_id": i, "name": "ls", "arguments": "{}"} for i in out_ids
    ]
    output = output or [
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok"}]}
    ]
    usage = {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15, "input_tokens_details": {}}
    return {
        "request": {"model": "gpt-4o", "input": items, **request},
        "response": {"object": "response", "output": output, "usage": usage},
    }


def _output(call_id: Any) -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": "a.py"}


def test_responses_clean_chained_and_inline(tmp_path: Path) -> None:
    call = {"type": "function_call", "call_id": "call_1", "name": "ls", "arguments": "{}"}
    path = _write(
        tmp_path,
        [
            _responses([ASK], "call_1"),
            _responses([_output("call_1")], previous_response_id="resp_1"),  # answers the previous output
            _responses([ASK, call, _output("call_1")]),  # the call re-sent inline
        ],
    )
    assert load_trace(path).warnings == ()


def test_responses_halted_and_unmatched(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        [
            _responses([ASK], "call_1"),
            _responses([_output("call_9")], "call_2", previous_response_id="resp_1"),
        ],
    )
    assert _warnings(path) == [
        "request 2 stops at a function_call output item (tool id call_2) and the log ends there: the "
        "run halted before the agent sent the tool result",
        "request 2 sends a tool result for tool id call_9, which the preceding assistant message does "
        "not call: the provider rejects such a request",
    ]


def test_responses_chain_from_outside_the_log_is_not_checked(tmp_path: Path) -> None:
    path = _write(tmp_path, [_responses([_output("call_1")], previous_response_id="resp_0")])
    assert load_trace(path).warnings == ()


# --- Claude Code -------------------------------------------------------------------------------


def _cc_assistant(
    uuid: str, parent: str | None, request: str, block: dict[str, Any], stop: Any
) -> dict[str, Any]:
    message = {"id": f"msg_{request}", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
               "content": [block], "stop_reason": stop, "usage": USAGE}  # fmt: skip
    return {"type": "assistant", "uuid": uuid, "parentUuid": parent, "sessionId": "s", "requestId": request,
            "message": message}  # fmt: skip


def _cc_user(uuid: str, parent: str | None, content: Any) -> dict[str, Any]:
    return {"type": "user", "uuid": uuid, "parentUuid": parent, "sessionId": "s",
            "message": {"role": "user", "content": content}}  # fmt: skip


def _cc_use(tool_id: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": "ls"}}


def _cc_run(tmp_path: Path, use_id: Any, result_id: Any, *, finish: bool = True) -> Path:
    lines = [
        _cc_user("u1", None, "list files"),
        _cc_assistant("a1", "u1", "r1", {"type": "text", "text": "Listing."}, None),
        _cc_assistant("a2", "a1", "r1", _cc_use(use_id), "tool_use"),
        _cc_user("u2", "a2", [{"type": "tool_result", "tool_use_id": result_id, "content": "a.py"}]),
    ]
    if finish:
        lines.append(_cc_assistant("a3", "u2", "r2", {"type": "text", "text": "Done."}, "end_turn"))
    return _write(tmp_path, lines, "session.jsonl")


def test_claude_code_clean_run_has_no_warning(tmp_path: Path) -> None:
    assert load_trace(_cc_run(tmp_path, "toolu_01A", "toolu_01A")).warnings == ()


def test_claude_code_halted_run(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        [
            _cc_user("u1", None, "list files"),
            _cc_assistant("a1", "u1", "r1", {"type": "text", "text": "Listing."}, None),
            _cc_assistant("a2", "a1", "r1", _cc_use("toolu_01A"), "tool_use"),
        ],
        "session.jsonl",
    )
    assert _warnings(path) == [
        "request 1 stops at stop_reason tool_use (tool id toolu_01A) and the log ends there: the run "
        "halted before the agent sent the tool result"
    ]


def test_claude_code_unmatched_result(tmp_path: Path) -> None:
    assert _warnings(_cc_run(tmp_path, "toolu_01A", "toolu_01B")) == [
        "request 2 sends a tool result for tool id toolu_01B, which the preceding assistant message does "
        "not call: the provider rejects such a request"
    ]
    # a result at the end of the log is sent by no recorded request: only the unanswered call is named
    assert _warnings(_cc_run(tmp_path, "toolu_01A", "toolu_01B", finish=False)) == [
        "request 1 stops at stop_reason tool_use (tool id toolu_01A) and the log ends there: the run "
        "halted before the agent sent the tool result"
    ]


def test_claude_code_hostile_id(tmp_path: Path) -> None:
    assert _warnings(_cc_run(tmp_path, "toolu_01A", HOSTILE)) == [
        f"request 2 sends a tool result for a tool id of {HOSTILE_LEN:,} characters (not shown), which the "
        "preceding assistant message does not call: the provider rejects such a request"
    ]


# --- shown safely in every output ----------------------------------------------------------------


def test_shown_id() -> None:
    assert shown_id("toolu_01A-b") == "tool id toolu_01A-b"
    assert shown_id("call 1") == "a tool id of 6 characters (not shown)"
    assert shown_id("x" * 65) == "a tool id of 65 characters (not shown)"
    assert shown_id(None) == "no tool id"
    assert shown_id(7) == "a tool id that is not text"


@pytest.mark.usefixtures("fixed_terminal", "no_ctok")
def test_outputs_carry_the_warnings_safely(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, [_chat([SYSTEM, ASK, _calls("call_1"), _tool(HOSTILE)], "tool_calls", "call_5")])
    assert run(["replay", str(path), "--format", "json", "--as-of", "2026-11-30"]) == 0
    warnings = json.loads(capsys.readouterr().out)["warnings"]
    assert [w[:40] for w in warnings] == [
        "request 1 stops at finish_reason tool_ca",
        "request 1 sends a tool result for a tool",
    ]
    assert "tool id call_5" in warnings[0] and f"{HOSTILE_LEN:,} characters (not shown)" in warnings[1]
    for fmt in ("table", "markdown"):
        assert run(["replay", str(path), "--format", fmt, "--as-of", "2026-11-30"]) == 0
        out = capsys.readouterr().out
        assert "halted before the agent sent the tool result" in " ".join(out.split())
        assert "\x1b" not in out and "\x07" not in out and "xxxxxxxxxx" not in out
