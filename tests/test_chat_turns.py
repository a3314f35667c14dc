"""Chat turns: rounds where the model answers in plain text and the user sends the next message.

Format (``{reply: ..., user: ...}`` rounds), the ``spec.Round`` they become, their token counts per
provider (hand-computed), and how reports and diffs show them.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import yaml

import agentcost.tokens.count as T
import agentcost.tokens.memo as M
import agentcost.tokens.rules as R
from agentcost.commands.diff import input_changes
from agentcost.errors import InputError
from agentcost.loop.estimate import estimate_scenario
from agentcost.render.jsonfmt import envelope, report_dict
from agentcost.report.build import build_report
from agentcost.scenario.format import json_schema
from agentcost.scenario.load import read_scenario as load_scenario
from agentcost.scenario.model import Content, Round, Scenario, ServerToolUse, ToolUse
from tests.conftest import validate_json

ROOT = Path(__file__).resolve().parent.parent
AS_OF = datetime(2026, 11, 30, tzinfo=UTC)
BASE = "version: 1\nmodel: claude-sonnet-4-5\ntask: Hi.\nfinal: 300\n"  # lines 1-4

pytestmark = pytest.mark.usefixtures("no_ctok")


def load(tmp_path: Path, text: str, overrides: tuple[str, ...] = ()) -> Scenario:
    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")
    return load_scenario(path, overrides=overrides)


# ---------------------------------------------------------------------------------------------
# Parsing


def test_chat_turns_parse_into_rounds_without_calls(tmp_path: Path) -> None:
    (tmp_path / "answer.md").write_text("A long answer.", encoding="utf-8")
    s = load(
        tmp_path,
        BASE
        + "rounds:\n"
        + "  - reply: Sure, what is the order number?\n"  # line 6
        + "    user: 48213-A\n"
        + "  - {reply: 40, user: {tokens: 12}, thinking: 100, seconds: 30, repeat: 2}\n"  # line 8
        + "  - reply: {file: answer.md}\n"  # line 9
        + "    user: {text: Thanks}\n"
        + "    server_tools: [{tool: web_search, uses: 2, result: 900}]\n"
        + "  - {tool: lookup, call_tokens: 20, result: 100}\n",  # line 12
    )
    first, second, third, fourth, fifth = s.rounds
    assert first == Round(
        calls=(),
        text=Content(text="Sure, what is the order number?"),
        user=Content(text="48213-A"),
        line=6,
    )
    assert first.is_chat and not fifth.is_chat
    assert second == third  # repeat unrolled
    assert (second.text, second.user, second.thinking, second.seconds, second.line) == (
        Content(tokens=40), Content(tokens=12), 100, Decimal(30), 8
    )  # fmt: skip
    assert fourth.text == Content(text="A long answer.") and fourth.user == Content(text="Thanks")
    assert fourth.server_tools == (ServerToolUse("web_search", 2, Content(tokens=900)),)
    assert fifth.calls == (ToolUse("lookup", Content(tokens=20), Content(tokens=100)),) and fifth.user is None


def test_defaults_of_a_response_apply_to_chat_turns_and_those_of_a_call_do_not(tmp_path: Path) -> None:
    s = load(
        tmp_path,
        BASE
        + "defaults: {call_tokens: 5, result: 7, text: Let me see., thinking: 50, seconds: 20,"
        + " server_tools: [{tool: web_search}]}\n"
        + "rounds:\n  - {reply: 10, user: 4}\n  - {reply: 10, user: 4, thinking: 0, server_tools: []}\n",
    )
    first, second = s.rounds
    assert first == Round(
        calls=(),
        thinking=50,
        text=Content(tokens=10),  # the reply, not defaults.text
        user=Content(tokens=4),
        line=7,
        seconds=Decimal(20),
        server_tools=(ServerToolUse("web_search", 1, None),),
    )
    assert second.thinking == 0 and second.server_tools == () and second.seconds == Decimal(20)


def test_tool_choice_none_allows_chat_turns(tmp_path: Path) -> None:
    s = load(tmp_path, BASE + "tool_choice: none\nrounds:\n  - {reply: 10, user: 4}\n")
    assert s.tool_choice == "none" and s.rounds[0].is_chat


def test_overrides_reach_chat_turns(tmp_path: Path) -> None:
    text = BASE + "rounds:\n  - {reply: 10, user: 4}\n  - {reply: 20, user: 8}\n"
    s = load(tmp_path, text, ("rounds[*].user.tokens=50", "rounds[-1].reply=Fine.", "rounds[0].thinking=9"))
    assert [(r.text, r.user, r.thinking) for r in s.rounds] == [
        (Content(tokens=10), Content(tokens=50), 9),
        (Content(text="Fine."), Content(tokens=50), 0),
    ]


BAD: list[Any] = [
    # (id, rounds text from line 5 on, line, key, whole message after "s.yaml:LINE: KEY: ")
    ("reply-without-user", "rounds:\n  - reply: Hello.\n", 6, "rounds[0].user",
     "required key is missing (a chat turn needs the user's next message; the conversation's last "
     "answer is final, not a round)"),
    ("user-without-reply", "rounds:\n  - user: Hello.\n", 6, "rounds[0].reply",
     "required key is missing (the model's plain-text answer before the user's message: an integer "
     "(tokens), a text, or one of {tokens: N}, {text: ...}, {file: path})"),
    ("tool-and-reply", "rounds:\n  - tool: Read\n    reply: Hello.\n    user: Thanks.\n", 6, "rounds[0].tool",
     "a chat turn (reply, user) cannot have tool (a round is a tool round (tool, input or call_tokens, "
     "result) or a chat turn (reply, user); allowed: reply, user, repeat, thinking, seconds, server_tools)"),
    ("text-in-a-chat-turn", "rounds:\n  - reply: Hello.\n    user: Thanks.\n    text: Well.\n", 8,
     "rounds[0].text",
     "a chat turn (reply, user) cannot have text (in a chat turn the assistant's text is reply; "
     "allowed: reply, user, repeat, thinking, seconds, server_tools)"),
    ("result-in-a-chat-turn", "rounds:\n  - {reply: 10, user: 4}\n  - reply: 10\n    result: 4\n", 8,
     "rounds[1].result",
     "a chat turn (reply, user) cannot have result (in a chat turn the message sent back is user; "
     "allowed: reply, user, repeat, thinking, seconds, server_tools)"),
    ("call-tokens-in-a-chat-turn", "rounds:\n  - reply: 10\n    user: 4\n    call_tokens: 5\n", 8,
     "rounds[0].call_tokens", "a chat turn (reply, user) cannot have call_tokens"),
    ("user-typo", "rounds:\n  - reply: Hello.\n    usr: Thanks.\n", 7, "rounds[0].usr",
     "unknown key (allowed: reply, user, repeat, thinking, seconds, server_tools; did you mean 'user'?)"),
    ("user-not-content", "rounds:\n  - reply: Hello.\n    user: [Thanks]\n", 7, "rounds[0].user",
     "expected an integer (tokens), a text, or one of {tokens: N}, {text: ...}, {file: path}, got a list"),
    ("reply-negative", "rounds:\n  - reply: {tokens: -1}\n    user: x\n", 6, "rounds[0].reply.tokens",
     "must be >= 0, got -1"),
    ("reply-file-missing", "rounds:\n  - reply: {file: nope.md}\n    user: x\n", 6, "rounds[0].reply.file",
     "cannot read nope.md: file not found"),
    ("repeat-zero", "rounds:\n  - {reply: 1, user: 1, repeat: 0}\n", 6, "rounds[0].repeat",
     "must be >= 1, got 0"),
    ("tool-choice-none-with-a-tool-round", "tool_choice: none\nrounds:\n  - {reply: 1, user: 1}\n"
     "  - {tool: a, call_tokens: 1, result: 1}\n", 5, "tool_choice",
     "'none' forbids tool calls, but rounds has 1 tool round(s) (use auto, or remove the tool rounds)"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "line", "key", "message"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_chat_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, line: int, key: str, message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("s.yaml").write_text(BASE + text, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_scenario("s.yaml")
    err = caught.value
    assert (err.file, err.line, err.key) == (Path("s.yaml"), line, key)
    assert str(err).startswith(f"s.yaml:{line}: {key}: {message}")


def test_an_override_of_a_tool_round_key_in_a_chat_turn_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        load(tmp_path, BASE + "rounds:\n  - {reply: 10, user: 4}\n", ("rounds[0].result.tokens=5",))
    assert str(caught.value) == (
        f"{tmp_path / 's.yaml'}: --set rounds[0].result.tokens=5: unknown key 'result' in rounds[0] "
        "(allowed: reply, user, repeat, thinking, seconds, server_tools)"
    )


def test_the_json_schema_knows_chat_turns() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft202012Validator(json_schema())
    doc: dict[str, Any] = {"version": 1, "model": "m", "task": "t", "final": 1}
    for rounds, valid in (
        ([{"reply": "Hi.", "user": {"tokens": 4}, "thinking": 10}], True),
        ([{"reply": 1}], False),
        ([{"tool": "a", "reply": 1, "user": 1}], False),
        ([{"reply": 1, "user": 1, "result": 1}], False),
    ):
        assert (list(validator.iter_errors({**doc, "rounds": rounds})) == []) is valid, rounds
    example = yaml.safe_load((ROOT / "scenarios" / "chat-support.yaml").read_text(encoding="utf-8"))
    assert list(validator.iter_errors(example)) == []


def test_the_chat_support_example() -> None:
    s = load_scenario(ROOT / "scenarios" / "chat-support.yaml")
    assert s.model == "claude-haiku-4-5" and s.tools == () and s.caching == "conversation"
    assert len(s.rounds) == 4 and all(r.is_chat and not r.calls for r in s.rounds)
    est = estimate_scenario(s, as_of=AS_OF)
    rows = build_report(est).requests
    assert [r.label for r in rows] == ["reply"] * 4 + ["final answer"]
    assert all(r.cache_read_tokens > 8_000 for r in rows[1:])  # the system prompt is read from the cache


# ---------------------------------------------------------------------------------------------
# Token counts, by hand

TURN = Round(calls=(), thinking=100, text=Content(tokens=40), user=Content(tokens=12))


def test_anthropic_chat_turn() -> None:
    rules = R.AnthropicRules("claude-sonnet-4-5", memo=M.TokenMemo(), use_ctok=False)
    counted = rules.round(TURN)
    # output: 3 (output framing) + 40 + 100 thinking; echo: 3 (message) + 40; result: 3 + 12
    assert (counted.output, counted.echo, counted.result) == (143, 43, 15)
    assert counted.tools == () and counted.reply
    # the reply is output like a final answer, the user message is counted like the task
    assert counted.output - TURN.thinking == rules.final(Content(tokens=40))
    assert counted.result == rules.user(Content(tokens=12))


def test_openai_chat_turn() -> None:
    rules = R.OpenAIRules("gpt-4o", memo=M.TokenMemo())
    counted = rules.round(TURN)
    # output: 40 + 100 (no framing, as the final answer); echo: 3 + "assistant" 1 + 40;
    # result: 3 + "user" 1 + 12
    assert (counted.output, counted.echo, counted.result, counted.reply) == (140, 44, 16, True)
    text = rules.round(
        Round(
            calls=(),
            text=Content(text="Your order ships tomorrow."),
            user=Content(text="Thanks, that works."),
        )
    )
    # o200k_base: "Your order ships tomorrow." 5 tokens, "Thanks, that works." 5
    assert (text.output, text.echo, text.result) == (5, 9, 9)


def test_gemini_chat_turn() -> None:
    rules = R.GeminiRules("gemini-2.5-flash", memo=M.TokenMemo())
    counted = rules.round(TURN)
    # no per-message framing: the bodies only
    assert (counted.output, counted.echo, counted.result, counted.reply) == (140, 40, 12, True)


def test_a_round_without_calls_or_user_is_not_a_chat_turn() -> None:
    """``Round(calls=())`` without a user message (used to count answers alone) adds no result."""
    rules = R.AnthropicRules("claude-sonnet-4-5", memo=M.TokenMemo(), use_ctok=False)
    counted = rules.round(Round(calls=(), text=Content(tokens=40)))
    assert (counted.output, counted.echo, counted.result, counted.reply) == (43, 43, 0, False)


def test_count_tokens_prefetches_and_counts_user_messages(tmp_path: Path) -> None:
    s = load(
        tmp_path,
        BASE.replace("claude-sonnet-4-5", "gpt-4o")
        + "rounds:\n  - {reply: 40, user: 'Thanks, that works.'}\n",
    )
    counts = T.count_tokens(s, provider="openai", model_id="gpt-4o", memo=M.TokenMemo())
    assert counts.rounds[0].result == 3 + 1 + 5 and counts.rounds[0].output == 40 and counts.rounds[0].reply


# ---------------------------------------------------------------------------------------------
# Accountant, reports, diffs


def test_a_chat_turn_request_is_a_reply(tmp_path: Path) -> None:
    s = load(
        tmp_path,
        BASE
        + "rounds:\n  - {reply: 40, user: 12}\n"
        + "  - {reply: 40, user: 12, server_tools: [{tool: web_search, result: 500}]}\n"
        + "  - {tool: lookup, call_tokens: 20, result: 100}\n",
    )
    est = estimate_scenario(s, as_of=AS_OF)
    assert [r.kind for r in est.ledger.rows] == ["reply", "reply", "tool_use", "final"]
    report = build_report(est)
    assert [r.label for r in report.requests] == ["reply", "reply, web_search", "lookup", "final answer"]
    data = report_dict(report)
    assert [(r["kind"], r["tool"]) for r in data["requests"]] == [
        ("reply", None), ("reply", "web_search"), ("tool_use", "lookup"), ("final", None)
    ]  # fmt: skip
    pytest.importorskip("jsonschema")
    from agentcost.render.schema import report_schema

    validate_json(json.loads(json.dumps(envelope("estimate", data))), report_schema())


def test_request_inputs_grow_by_the_reply_and_the_user_message(tmp_path: Path) -> None:
    s = load(tmp_path, BASE + "system: {tokens: 2000}\ncaching: none\nrounds:\n  - {reply: 40, user: 12}\n")
    est = estimate_scenario(s, as_of=AS_OF)
    first, final = est.ledger.rows
    assert final.usage.input_tokens - first.usage.input_tokens == (3 + 40) + (3 + 12)
    assert first.usage.output_tokens == 3 + 40


def test_diff_names_replies_and_user_messages(tmp_path: Path) -> None:
    base = load(
        tmp_path, BASE + "rounds:\n  - {reply: 40, user: 12}\n  - {tool: a, call_tokens: 5, result: 9}\n"
    )
    head = load(
        tmp_path, BASE + "rounds:\n  - {reply: 90, user: 20}\n  - {tool: a, call_tokens: 5, result: 9}\n"
    )
    changes = input_changes(estimate_scenario(base, as_of=AS_OF), estimate_scenario(head, as_of=AS_OF))
    assert [(c.part, c.before, c.after, c.text) for c in changes] == [
        ("replies", 43, 93, "replies: +50 output tokens in all"),
        ("user_messages", 15, 23, "user_messages: +8 tokens in all"),
    ]
