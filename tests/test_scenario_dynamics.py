"""Scenario keys of agent dynamics (issue 5): parallel calls, subagents, routing, retries, result
trimming, context editing, deferred tools and max_budget_usd -- how they are read, and bad input."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

import agentcost.scenario.build as scenario_module
from agentcost.errors import InputError
from agentcost.infra.doc import OverrideError
from agentcost.scenario.load import read_scenario as load_scenario
from agentcost.scenario.model import Content, ContextEditing, ResultTrim, Retries

TOOLS = """\
version: 1
model: claude-sonnet-4-5
task: t
final: 1
tools:
  - {name: Read, description: r, input_schema: {}}
  - {name: Grep, description: g, input_schema: {}, defer_loading: true}
  - {name: Edit, description: e, input_schema: {}}
"""  # lines 1-8


def write(tmp_path: Path, text: str, name: str = "s.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------
# Reading the keys


def test_all_dynamics_keys_are_read(tmp_path: Path) -> None:
    text = TOOLS + (
        "rounds:\n"  # 9
        "  - calls:\n"  # 10
        "      - {tool: Read, input: {file: a.py}, result: 800}\n"
        "      - {tool: Grep, call_tokens: 30, result: {text: found}}\n"
        "    model: claude-haiku-4-5\n"
        "    repeat: 2\n"
        "  - tool: Edit\n"  # 15
        "    call_tokens: 40\n"
        "    result: 5\n"
        "retries: {share: 0.1, error: 60}\n"
        "trim: {max_tokens: 2000}\n"
        "context_editing: {trigger: 50000, keep: 2, clear_at_least: 5000, placeholder: 12,"
        " exclude_tools: [Edit]}\n"
        "tool_search_stub: 11\n"
        "limits: {max_budget_usd: 0.50}\n"  # 22
    )
    s = load_scenario(write(tmp_path, text))
    assert [t.defer_loading for t in s.tools] == [False, True, False]
    assert len(s.rounds) == 3 and s.rounds[0] is s.rounds[1]
    first = s.rounds[0]
    assert [c.tool for c in first.calls] == ["Read", "Grep"]
    assert first.calls[0].input == Content(text='{"file":"a.py"}')
    assert first.calls[0].result == Content(tokens=800)
    assert first.calls[1].input == Content(tokens=30)
    assert first.calls[1].result == Content(text="found")
    assert first.model == "claude-haiku-4-5" and first.line == 10
    assert s.rounds[2].model is None and [c.tool for c in s.rounds[2].calls] == ["Edit"]
    assert s.retries == Retries(share=Decimal("0.1"), count=0, error=Content(tokens=60))
    assert s.trim == ResultTrim(max_tokens=2000)
    assert s.context_editing == ContextEditing(
        trigger=50000, keep=2, clear_at_least=5000, placeholder=12, exclude_tools=("Edit",)
    )
    assert s.tool_search_stub == 11
    assert s.limits.max_budget_usd == Decimal("0.50") and s.limits.max_budget_line == 22


def test_defaults_when_left_out(tmp_path: Path) -> None:
    s = load_scenario(write(tmp_path, TOOLS + "context_editing: {}\nretries: {count: 2}\n"))
    kept = load_scenario(write(tmp_path, TOOLS + "trim: {keep_last: 0}\n"))
    assert kept.trim == ResultTrim(keep_last=0)
    assert s.context_editing == ContextEditing()
    assert s.retries == Retries(count=2)
    assert s.trim is None and s.tool_search_stub == 9
    assert s.limits.max_budget_usd is None and s.limits.max_budget_line is None
    plain = load_scenario(write(tmp_path, TOOLS))
    assert plain.retries == Retries() and plain.context_editing is None


def test_calls_take_the_defaults(tmp_path: Path) -> None:
    text = TOOLS + (
        "defaults: {call_tokens: 7, result: 9}\n"
        "rounds:\n  - calls: [{tool: Read}, {tool: Edit, result: 3}]\n    text: hi\n"
    )
    (r,) = load_scenario(write(tmp_path, text)).rounds
    assert [(c.input, c.result) for c in r.calls] == [
        (Content(tokens=7), Content(tokens=9)),
        (Content(tokens=7), Content(tokens=3)),
    ]
    assert r.text == Content(text="hi")


def test_defer_loading_in_every_tool_format_and_tool_files(tmp_path: Path) -> None:
    tools = (
        '[{"name": "a", "input_schema": {}, "defer_loading": true},\n'
        ' {"type": "function", "function": {"name": "b", "defer_loading": true}},\n'
        ' {"type": "function", "function": {"name": "c"}, "defer_loading": true},\n'
        ' {"type": "function", "name": "d", "defer_loading": true},\n'
        ' {"name": "e", "inputSchema": {}, "defer_loading": true},\n'
        ' {"name": "f", "inputSchema": {}}]\n'
    )
    write(tmp_path, tools, "tools.json")
    write(tmp_path, '[{"name": "g", "inputSchema": {}}, {"name": "h", "inputSchema": {}, '
          '"defer_loading": false}]', "mcp.json")  # fmt: skip
    text = "version: 1\nmodel: m\ntask: t\nfinal: 1\ntools:\n  - file: tools.json\n" + (
        "  - {file: mcp.json, defer_loading: true}\n"
    )
    s = load_scenario(write(tmp_path, text))
    assert {t.name: t.defer_loading for t in s.tools} == {
        "a": True, "b": True, "c": True, "d": True, "e": True, "f": False, "g": True, "h": False
    }  # fmt: skip


def test_overrides_reach_the_new_keys(tmp_path: Path) -> None:
    text = TOOLS + "rounds:\n  - calls: [{tool: Read, call_tokens: 3, result: 4}]\n"
    s = load_scenario(
        write(tmp_path, text),
        overrides=[
            "limits.max_budget_usd=0.25",
            "retries.count=3",
            "retries.error.tokens=40",
            "trim.max_tokens=2",
            "context_editing.trigger=1000",
            "tool_search_stub=5",
            "rounds[*].model=gpt-5-mini",
            "rounds[0].calls[*].result.tokens=50",
        ],
    )
    assert s.limits.max_budget_usd == Decimal("0.25") and s.limits.max_budget_line is None
    assert s.retries == Retries(count=3, error=Content(tokens=40))
    assert s.trim == ResultTrim(max_tokens=2)
    assert s.context_editing is not None and s.context_editing.trigger == 1000
    assert s.tool_search_stub == 5
    assert s.rounds[0].model == "gpt-5-mini"
    assert s.rounds[0].calls[0].result == Content(tokens=50)


def test_a_subagent_is_handed_to_the_hook(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[object, ...]] = []
    sub = load_scenario(
        write(tmp_path, "version: 1\nmodel: claude-haiku-4-5\ntask: t\nfinal: 42\n", "r.yaml")
    )

    def hook(self: object, value: object, path: object, line: object, depth: object) -> object:
        seen.append((value, path, line, depth))
        return sub

    monkeypatch.setattr(scenario_module.ScenarioBuilder, "_load_subagent", hook)
    text = TOOLS + "rounds:\n  - tool: Read\n    call_tokens: 5\n    subagent: {file: r.yaml}\n"
    (r,) = load_scenario(write(tmp_path, text)).rounds
    assert seen == [({"file": "r.yaml"}, ("rounds", 0, "subagent"), 12, 1)]
    assert r.calls[0].subagent is sub and r.calls[0].subagent_line == 12
    assert r.calls[0].result == Content(tokens=42)  # the subagent's final answer


# ---------------------------------------------------------------------------------------------
# Bad input: (id, text after TOOLS, line, key, message fragment)

R = "rounds:\n  - "  # the round starts on line 10
BAD: list[tuple[str, str, int | None, str | None, str]] = [
    ("calls-and-tool", R + "tool: Read\n    calls: [{tool: Read, call_tokens: 1, result: 1}]\n", 10,
     "rounds[0].tool", "calls and tool exclude each other"),
    ("calls-and-result", R + "calls: [{tool: Read, call_tokens: 1, result: 1}]\n    result: 4\n", 11,
     "rounds[0].result", "calls and result exclude each other"),
    ("calls-empty", R + "calls: []\n", 10, "rounds[0].calls", "at least 1 item"),
    ("calls-not-a-list", R + "calls: {tool: Read}\n", 10, "rounds[0].calls", "expected a list, got a mapping"),
    ("call-unknown-key", R + "calls:\n      - {tool: Read, call_tokens: 1, reslt: 1}\n", 11,
     "rounds[0].calls[0].reslt", "unknown key (allowed: tool, input, call_tokens, result, subagent; "
     "did you mean 'result'?)"),
    ("call-unknown-tool", R + "calls:\n      - {tool: Grp, call_tokens: 1, result: 1}\n", 11,
     "rounds[0].calls[0].tool", "unknown tool 'Grp' (defined: Read, Grep, Edit; did you mean 'Grep'?)"),
    ("call-missing-tool", R + "calls:\n      - {call_tokens: 1, result: 1}\n", 11,
     "rounds[0].calls[0].tool", "required key is missing (the name of the tool this call uses)"),
    ("call-no-result", R + "calls:\n      - {tool: Read, call_tokens: 1}\n", 11,
     "rounds[0].calls[0]", "the call has no result"),
    ("call-no-input", R + "calls:\n      - {tool: Read, result: 1}\n", 11,
     "rounds[0].calls[0]", "the call has neither input nor call_tokens"),
    ("round-without-tool", R + "call_tokens: 1\n    result: 1\n", 10, "rounds[0].tool",
     "required key is missing (the name of the tool this round calls; calls: [...]"),
    ("round-model-empty", R + "tool: Read\n    call_tokens: 1\n    result: 1\n    model: ''\n", 13,
     "rounds[0].model", "must not be empty"),
    ("round-model-number", R + "tool: Read\n    call_tokens: 1\n    result: 1\n    model: 5\n", 13,
     "rounds[0].model", "expected text, got 5"),
    ("subagent-file-missing", R + "tool: Read\n    call_tokens: 1\n    subagent: {file: r.yaml}\n", 12,
     "rounds[0].subagent.file", "cannot read r.yaml"),
    ("subagent-and-result", R + "tool: Read\n    call_tokens: 1\n    result: 1\n    subagent: {}\n", 12,
     "rounds[0].result", "subagent and result exclude each other"),
    ("subagent-not-a-mapping", R + "tool: Read\n    call_tokens: 1\n    subagent: r.yaml\n", 12,
     "rounds[0].subagent", "expected a mapping, got text 'r.yaml'"),
    ("retries-share-and-count", "retries: {share: 0.1, count: 2}\n", 9, "retries.count",
     "share and count exclude each other"),
    ("retries-share-too-big", "retries: {share: 1.5}\n", 9, "retries.share", "must be <= 1, got 1.5"),
    ("retries-share-negative", "retries: {share: -0.1}\n", 9, "retries.share", "must be >= 0"),
    ("retries-unknown-key", "retries: {shares: 0.1}\n", 9, "retries.shares", "did you mean 'share'?"),
    ("retries-bad-error", "retries: {count: 1, error: [1]}\n", 9, "retries.error", "expected an integer"),
    ("trim-empty", "trim: {}\n", 9, "trim", "trim sets nothing (give max_tokens, keep_last or both)"),
    ("trim-keep-last-and-context-editing", "trim: {keep_last: 2}\ncontext_editing: {}\n", 9, "trim.keep_last",
     "trim.keep_last and context_editing exclude each other"),
    ("trim-zero", "trim: {max_tokens: 0}\n", 9, "trim.max_tokens", "must be >= 1, got 0"),
    ("trim-unknown-key", "trim: {keep: 3}\n", 9, "trim.keep", "did you mean 'keep_last'?"),
    ("context-editing-unknown-tool", "context_editing:\n  exclude_tools: [Read, Edt]\n", 10,
     "context_editing.exclude_tools[1]", "unknown tool 'Edt' (defined: Read, Grep, Edit; did you mean 'Edit'?)"),
    ("context-editing-trigger", "context_editing: {trigger: 0}\n", 9, "context_editing.trigger", "must be >= 1"),
    ("context-editing-unknown-key", "context_editing: {keep_last: 2}\n", 9, "context_editing.keep_last",
     "did you mean 'keep'?"),
    ("context-editing-not-a-mapping", "context_editing: true\n", 9, "context_editing",
     "expected a mapping, got the boolean true"),
    ("tool-search-stub-negative", "tool_search_stub: -1\n", 9, "tool_search_stub", "must be >= 0"),
    ("max-budget-zero", "limits: {max_budget_usd: 0}\n", 9, "limits.max_budget_usd", "must be > 0, got 0"),
    ("max-budget-text", "limits: {max_budget_usd: lots}\n", 9, "limits.max_budget_usd", "expected a number"),
    ("max-budget-typo", "limits: {max_budget: 1}\n", 9, "limits.max_budget", "did you mean 'max_budget_usd'?"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "line", "key", "fragment"), [pytest.param(*case[1:], id=case[0]) for case in BAD]
)
def test_bad_input(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    text: str,
    line: int | None,
    key: str | None,
    fragment: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path, TOOLS + text)
    with pytest.raises(InputError) as caught:
        load_scenario("s.yaml")
    err = caught.value
    assert fragment in str(err)
    assert (err.line, err.key) == (line, key)
    assert str(err).startswith(f"s.yaml:{line}: {key}: ")
    assert "\n" not in str(err)


def test_defer_loading_must_be_a_boolean(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write(
        tmp_path,
        "version: 1\nmodel: m\ntask: t\nfinal: 1\ntools:\n  - {name: a, input_schema: {}, defer_loading: 1}\n",
    )
    with pytest.raises(InputError) as caught:
        load_scenario("s.yaml")
    assert str(caught.value).startswith("s.yaml:6: tools[0].defer_loading: expected true or false, got 1")


def test_a_bad_value_set_by_an_override_names_it(tmp_path: Path) -> None:
    with pytest.raises(OverrideError) as caught:
        load_scenario(write(tmp_path, TOOLS), overrides=["retries.share=2"])
    assert "--set retries.share=2: must be <= 1, got 2" in str(caught.value)
    with pytest.raises(OverrideError) as caught:
        load_scenario(write(tmp_path, TOOLS), overrides=["trim.keep=1"])
    assert "unknown key 'keep' in trim" in str(caught.value)
    assert "did you mean 'keep_last'?" in str(caught.value)
