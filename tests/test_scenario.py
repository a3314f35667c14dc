"""Scenario files: the shipped examples, the normalisation of tools, unrolling, and bad input."""

from __future__ import annotations

import hashlib
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import yaml

import agentcost.infra.files as files
import agentcost.infra.yamlread as yamlread
from agentcost.errors import InputError
from agentcost.infra.doc import OverrideError
from agentcost.infra.jsontext import dump_json
from agentcost.scenario.format import json_schema
from agentcost.scenario.load import read_scenario
from agentcost.scenario.model import MAX_ROUNDS, Content, Pacing, Scenario, ServerToolUse, ToolDef

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"
EXAMPLES = ["bugfix.yaml", "research.yaml", "mcp-40-tools.yaml"]
BASE = "version: 1\nmodel: m\ntask: t\nfinal: 1\n"  # the smallest valid scenario: lines 1-4


def write(tmp_path: Path, text: str | bytes, name: str = "s.yaml") -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def load_text(tmp_path: Path, text: str) -> Scenario:
    return read_scenario(write(tmp_path, text))


# ---------------------------------------------------------------------------------------------
# The shipped examples


def test_bugfix_example() -> None:
    s = read_scenario(SCENARIOS / "bugfix.yaml")
    assert s.model == "claude-sonnet-4-5"
    assert s.model_line == 9
    assert s.provider is None and s.caching is None and s.cache_ttl == "5m"
    assert s.name == "Fix POST /orders validation"
    assert [t.name for t in s.tools] == ["Read", "Edit", "Bash"]
    assert s.tools[0].input_schema["required"] == ["file_path"]
    assert s.tools[1].input_schema["properties"]["old_string"]["type"] == "string"
    assert s.system == Content(text=(SCENARIOS / "bugfix/system.md").read_text(encoding="utf-8"))
    assert s.task.text is not None and "total is required" in s.task.text

    assert [r.calls[0].tool for r in s.rounds] == [
        "Bash", "Read", "Read", "Bash", "Edit", "Bash", "Bash", "Bash"
    ]  # fmt: skip
    assert all(len(r.calls) == 1 and r.thinking == 0 for r in s.rounds)
    assert [r.line for r in s.rounds] == [50, 55, 58, 61, 65, 78, 81, 85]
    read_orders = s.rounds[1].calls[0]
    assert read_orders.input == Content(text='{"file_path":"app/orders.py"}')
    orders = (SCENARIOS / "bugfix/orders.py").read_text(encoding="utf-8")
    assert read_orders.result == Content(text=orders)
    assert 55 <= orders.count("\n") <= 65
    failing = s.rounds[3].calls[0].result.text
    assert failing is not None and "1 failed, 4 passed" in failing
    edit = json.loads(s.rounds[4].calls[0].input.text or "")
    assert edit["old_string"] == '    total = _parse_money(payload.get("total", 0))'
    assert edit["new_string"].splitlines()[0] == '    if "total" not in payload:'
    assert s.rounds[4].text is not None and s.rounds[4].text.text is not None
    assert s.final.text is not None and s.final.text.startswith("Fixed: `POST /orders`")
    assert s.limits.max_rounds == 20 and s.limits.budget_usd == Decimal("0.10")


def test_research_example() -> None:
    s = read_scenario(SCENARIOS / "research.yaml")
    assert s.model == "gpt-5"
    assert [t.name for t in s.tools] == ["web_search", "fetch_page"]
    assert s.tools[0].input_schema["required"] == ["query"]
    assert len(s.rounds) == 30
    tools = [r.calls[0].tool for r in s.rounds]
    assert tools.count("web_search") == 5 and tools.count("fetch_page") == 25
    results = [r.calls[0].result.tokens for r in s.rounds]
    assert results.count(1200) == 5 and results.count(3500) == 24 and results[-1] == 6000
    defaulted = [r.calls[0] for r in s.rounds if r.calls[0].input.tokens is not None]
    assert len(defaulted) == 24 and {c.input.tokens for c in defaulted} == {40}
    assert sum(r.thinking for r in s.rounds) == 500
    assert s.final == Content(tokens=900)
    assert s.limits.max_rounds == 30
    assert s.limits.budget_usd == Decimal("1.00")
    assert str(s.limits.budget_usd) == "1.00"  # the scalar's text, never a float
    assert s.limits.budget_line == 59 and s.limits.max_rounds_line == 58


def test_mcp_example() -> None:
    s = read_scenario(SCENARIOS / "mcp-40-tools.yaml")
    assert s.model == "gemini-2.5-pro"
    assert len(s.tools) == 40
    assert len({t.name for t in s.tools}) == 40
    assert all(t.description and t.input_schema["type"] == "object" for t in s.tools)
    assert {t.line for t in s.tools} == {15}  # all from the one `- file:` item
    by_name = {t.name: t for t in s.tools}
    assert by_name["get_job_logs"].input_schema["required"] == ["owner", "repo", "job_id"]
    assert [r.calls[0].tool for r in s.rounds] == [
        "list_workflow_runs",
        "get_workflow_run",
        "get_job_logs",
        "compare_commits",
        "get_commit",
        "create_issue",
    ]
    assert [r.thinking for r in s.rounds] == [300, 300, 300, 300, 650, 300]
    issue = json.loads(s.rounds[-1].calls[0].input.text or "")
    assert issue["assignees"] == ["mkowalski"] and issue["labels"] == ["ci", "bug"]
    assert s.limits.budget_usd == Decimal("0.50")


@pytest.mark.parametrize("name", EXAMPLES)
def test_examples_start_with_schema_comment(name: str) -> None:
    first = (SCENARIOS / name).read_text(encoding="utf-8").splitlines()[0]
    assert first == "# yaml-language-server: $schema=../docs/scenario.schema.json"


# ---------------------------------------------------------------------------------------------
# Tools: four formats, one ToolDef

SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}


def tool_in(fmt: str, name: str = "read") -> dict[str, Any]:
    """The same tool written in each supported format."""
    if fmt == "anthropic":
        return {"name": name, "description": "Read a file", "input_schema": SCHEMA}
    if fmt == "openai-chat":
        function = {"name": name, "description": "Read a file", "parameters": SCHEMA}
        return {"type": "function", "function": function}
    if fmt == "openai-responses":
        return {
            "type": "function",
            "name": name,
            "description": "Read a file",
            "parameters": SCHEMA,
            "strict": True,
        }
    assert fmt == "mcp"
    return {
        "name": name,
        "title": "Read",
        "description": "Read a file",
        "inputSchema": SCHEMA,
        "annotations": {"readOnlyHint": True},
    }


FORMATS = ["anthropic", "openai-chat", "openai-responses", "mcp"]


def scenario_with_tools(tools: list[Any]) -> str:
    return yaml.safe_dump(
        {"version": 1, "model": "m", "task": "t", "final": 1, "tools": tools}, sort_keys=False
    )


@pytest.mark.parametrize("fmt", FORMATS)
def test_each_inline_tool_format_normalises_to_the_same_tooldef(fmt: str, tmp_path: Path) -> None:
    s = load_text(tmp_path, scenario_with_tools([tool_in(fmt)]))
    # the Responses form says strict: true, which the ToolDef keeps (retries spare its calls)
    assert s.tools == (ToolDef("read", "Read a file", SCHEMA, line=6, strict=fmt == "openai-responses"),)


def four_tools() -> list[dict[str, Any]]:
    return [tool_in(fmt, f"read_{i}") for i, fmt in enumerate(FORMATS)]


TOOL_FILES: dict[str, Any] = {
    "list.json": four_tools(),
    "tools-list.json": {"tools": four_tools(), "nextCursor": None},
    "jsonrpc.json": {"jsonrpc": "2.0", "id": 1, "result": {"tools": four_tools()}},
    "list.yaml": four_tools(),
}


@pytest.mark.parametrize("file_name", TOOL_FILES)
def test_tool_files_in_every_shape(file_name: str, tmp_path: Path) -> None:
    content = TOOL_FILES[file_name]
    dump = json.dumps(content, indent=2) if file_name.endswith(".json") else yaml.safe_dump(content)
    write(tmp_path, dump, f"tools/{file_name}")
    s = load_text(tmp_path, scenario_with_tools([{"file": f"tools/{file_name}"}]))
    strict = [fmt == "openai-responses" for fmt in FORMATS]  # the Responses form is strict
    assert s.tools == tuple(
        ToolDef(f"read_{i}", "Read a file", SCHEMA, line=6, strict=strict[i]) for i in range(4)
    )


def test_a_tool_file_may_hold_one_tool_and_defaults_apply(tmp_path: Path) -> None:
    write(tmp_path, json.dumps({"type": "function", "name": "ping"}), "ping.json")
    s = load_text(tmp_path, scenario_with_tools([{"file": "ping.json"}]))
    assert s.tools == (ToolDef("ping", "", {"type": "object", "properties": {}}, 6),)


def test_json_tool_files_follow_json_number_rules(tmp_path: Path) -> None:
    # YAML 1.1 reads a plain 1e5 as text; in a .json file it is a number
    tool = '{"name": "t", "inputSchema": {"type": "object", "maximum": 1e5, "on": 0.5}}'
    write(tmp_path, tool, "t.json")
    s = load_text(tmp_path, scenario_with_tools([{"file": "t.json"}]))
    assert s.tools[0].input_schema == {"type": "object", "maximum": Decimal("1E+5"), "on": Decimal("0.5")}


def test_rounds_may_name_any_tool_when_no_tools_are_given(tmp_path: Path) -> None:
    s = load_text(tmp_path, "version: 1\nmodel: m\ntask: t\nfinal: 1\nrounds:\n"
                  "  - {tool: anything, call_tokens: 5, result: 9}\n")  # fmt: skip
    assert s.tools == () and s.rounds[0].calls[0].tool == "anything"


# ---------------------------------------------------------------------------------------------
# Rounds: defaults, repeat, content forms, files read once

UNROLL = """\
version: 1
model: m
system: {tokens: 1000}
task: {text: do it}
defaults:
  result: 800
  call_tokens: 60
  thinking: 10
  text: {tokens: 7}
rounds:
  - tool: a
    repeat: 3
  - tool: b
    input: {q: "x", n: 2}
    result: {file: r.txt}
    thinking: 0
    text: hi
    repeat: 2
  - tool: a
    result: {file: ./r.txt}
  - tool: c
    call_tokens: 5
    result: inline result
final: {file: final.md}
"""


def test_repeat_and_defaults_unroll(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, "result text\n", "r.txt")
    write(tmp_path, "the answer", "final.md")
    reads: list[Path] = []
    real_read = files.read_text

    def counting_read(path: Path) -> str:
        reads.append(path)
        return real_read(path)

    monkeypatch.setattr(files, "read_text", counting_read)
    s = load_text(tmp_path, UNROLL)

    assert s.system == Content(tokens=1000) and s.task == Content(text="do it")
    assert s.final == Content(text="the answer")
    assert [r.calls[0].tool for r in s.rounds] == ["a", "a", "a", "b", "b", "a", "c"]
    assert [r.line for r in s.rounds] == [11, 11, 11, 13, 13, 19, 21]
    a = s.rounds[0]
    assert s.rounds[1] is a and s.rounds[2] is a  # repeats share one Round
    assert a.calls[0].input == Content(tokens=60) and a.calls[0].result == Content(tokens=800)
    assert a.thinking == 10 and a.text == Content(tokens=7)
    b = s.rounds[3]
    assert b.calls[0].input == Content(text='{"q":"x","n":2}')
    assert b.calls[0].result == Content(text="result text\n")
    assert b.thinking == 0 and b.text == Content(text="hi")
    assert s.rounds[5].calls[0].result == Content(text="result text\n")
    c = s.rounds[6]
    assert c.calls[0].input == Content(tokens=5) and c.calls[0].result == Content(text="inline result")
    # the scenario, r.txt (named twice, two spellings) and final.md: each read once
    assert sorted(p.name for p in reads) == ["final.md", "r.txt", "s.yaml"]


def test_input_becomes_compact_json_text(tmp_path: Path) -> None:
    text = (
        "version: 1\nmodel: m\ntask: t\nfinal: 1\nrounds:\n  - tool: x\n    result: 1\n"
        "    input: {path: 'é/ü.txt', price: 1.50, big: 1_000, 'on': 'yes', when: 2025-01-02,"
        " none: null, flags: [true, false], nested: {a: [1, {b: -0.5e+3}]}}\n"
    )
    s = load_text(tmp_path, text)
    assert s.rounds[0].calls[0].input.text == (
        '{"path":"é/ü.txt","price":1.50,"big":1000,"on":"yes","when":"2025-01-02",'
        '"none":null,"flags":[true,false],"nested":{"a":[1,{"b":-5E+2}]}}'
    )


@pytest.mark.parametrize(
    "value",
    [{"a": [1, "é", None, True, {"b": "x\ny"}]}, [], {}, "text", 3, None, ["\u2028", {"k": False}]],
)
def test_dump_json_matches_json_dumps_on_plain_values(value: Any) -> None:
    assert dump_json(value) == json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    assert dump_json(value, separators=(", ", ": "), ensure_ascii=True) == json.dumps(value)


def test_dump_json_writes_decimals_as_their_text() -> None:
    value = {"minimum": Decimal("0.50"), "items": [Decimal("1E+5")]}
    assert dump_json(value) == '{"minimum":0.50,"items":[1E+5]}'
    assert dump_json(value, separators=(", ", ": ")) == '{"minimum": 0.50, "items": [1E+5]}'


def test_yaml_anchors_and_merge_keys(tmp_path: Path) -> None:
    text = """\
version: 1
model: m
task: t
final: 1
rounds:
  - &r {tool: x, call_tokens: 3, result: 7}
  - {<<: *r, result: 9}
  - *r
"""
    s = load_text(tmp_path, text)
    assert [r.calls[0].result.tokens for r in s.rounds] == [7, 9, 7]
    assert [r.line for r in s.rounds] == [6, 7, 6]  # an alias points at what it repeats


def test_paths_are_relative_to_the_scenario_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, "system text", "deep/prompts/sys.md")
    write(tmp_path, "version: 1\nmodel: m\nsystem: {file: prompts/sys.md}\ntask: t\nfinal: 1\n",
          "deep/s.yaml")  # fmt: skip
    monkeypatch.chdir(tmp_path)
    s = read_scenario("deep/s.yaml")
    assert s.system == Content(text="system text")
    assert s.path == Path("deep/s.yaml")


def test_thousands_of_rounds_unroll_in_order(tmp_path: Path) -> None:
    """Listed or repeated, 3,000 rounds load whole and in order (their speed up to the 100,000-round
    limit: bench/bench_inputs.py)."""
    items = "".join(f"  - {{tool: t{i % 7}, call_tokens: 5, result: {i}}}\n" for i in range(3_000))
    many = load_text(tmp_path, BASE + "rounds:\n" + items).rounds
    repeated = load_text(tmp_path, BASE + "rounds:\n  - {tool: t, call_tokens: 5, result: 1, repeat: 3000}\n")
    assert len(many) == len(repeated.rounds) == 3_000
    assert [r.calls[0].tool for r in many[:8]] == ["t0", "t1", "t2", "t3", "t4", "t5", "t6", "t0"]
    assert many[2_999].calls[0].result.tokens == 2_999 and repeated.rounds[2_999].calls[0].result.tokens == 1


def test_null_means_not_given(tmp_path: Path) -> None:
    empty = "system:\ntools:\ntool_choice:\ndefaults:\nlimits:\ncaching:\ncache_ttl: ~\n"
    s = load_text(
        tmp_path, BASE + empty + "rounds:\n  - {tool: x, call_tokens: 1, result: 1, repeat: null}\n"
    )
    assert s.system is None and s.tools == () and s.tool_choice == "auto"
    assert s.limits.budget_usd is None and s.caching is None and s.cache_ttl == "5m"
    assert len(s.rounds) == 1


MECHANICS = """\
version: 1
model: claude-sonnet-4-5
task: t
pacing:
  round_seconds: 40
defaults:
  seconds: 12.5
  server_tools: [{tool: web_fetch}]
rounds:
  - tool: Bash
    call_tokens: 3
    result: 5
    seconds: 400
    server_tools:
      - {tool: web_search, uses: 3, result: 2400}
      - {tool: code_execution, result: {text: hello}}
  - {tool: Read, call_tokens: 3, result: 5, server_tools: [], repeat: 2}
  - {tool: Edit, call_tokens: 3, result: 5, seconds: 0}
final: 1
service_tier: batch
thinking_retention: keep
final_thinking: 500
server_tool_quota: available
"""


def test_provider_mechanics_keys(tmp_path: Path) -> None:
    s = load_text(tmp_path, MECHANICS)
    assert s.pacing == Pacing(round_seconds=Decimal(40))
    assert (s.service_tier, s.thinking_retention, s.final_thinking, s.server_tool_quota) == (
        "batch", "keep", 500, "available"
    )  # fmt: skip
    first, second, third, fourth = s.rounds
    assert first.seconds == Decimal(400)
    assert first.server_tools == (
        ServerToolUse("web_search", 3, Content(tokens=2_400)),
        ServerToolUse("code_execution", 1, Content(text="hello")),
    )
    # an empty list of its own wins over defaults.server_tools; a missing one takes the default
    assert second == third and second.seconds == Decimal("12.5") and second.server_tools == ()
    assert fourth.seconds == Decimal(0) and fourth.server_tools == (ServerToolUse("web_fetch", 1, None),)


def test_provider_mechanics_defaults(tmp_path: Path) -> None:
    s = load_text(tmp_path, BASE + ROUND_X)
    assert s.pacing == Pacing() and s.pacing.round_seconds is None
    assert (s.service_tier, s.thinking_retention, s.final_thinking, s.server_tool_quota) == (
        "standard", "auto", 0, "spent"
    )  # fmt: skip
    assert s.rounds[0].seconds is None and s.rounds[0].server_tools == ()
    nulls = "pacing:\nservice_tier:\nthinking_retention:\nfinal_thinking:\nserver_tool_quota:\n"
    given_null, left_out = load_text(tmp_path, BASE + nulls), load_text(tmp_path, BASE)
    for key in ("pacing", "service_tier", "thinking_retention", "final_thinking", "server_tool_quota"):
        assert getattr(given_null, key) == getattr(left_out, key), key


def test_provider_mechanics_keys_can_be_set(tmp_path: Path) -> None:
    path = write(tmp_path, MECHANICS)
    s = read_scenario(
        path,
        overrides=[
            "pacing.round_seconds=7.25",
            "rounds[*].seconds=300",
            "rounds[0].server_tools[0].uses=5",
            "rounds[0].server_tools[*].result.tokens=10",
            "defaults.server_tools=[{tool: web_search, uses: 2}]",
            "service_tier=flex",
            "final_thinking=0",
            "caching=explicit",
        ],
    )
    assert s.pacing.round_seconds == Decimal("7.25") and s.caching == "explicit"
    assert [r.seconds for r in s.rounds] == [Decimal(300)] * 4
    assert s.rounds[0].server_tools == (
        ServerToolUse("web_search", 5, Content(tokens=10)),
        ServerToolUse("code_execution", 1, Content(tokens=10)),
    )
    assert s.rounds[1].server_tools == ()  # its own empty list
    assert s.rounds[3].server_tools == (ServerToolUse("web_search", 2, None),)
    assert (s.service_tier, s.final_thinking) == ("flex", 0)
    with pytest.raises(OverrideError, match="must be >= 1, got 0"):
        read_scenario(path, overrides=["rounds[0].server_tools[0].uses=0"])
    with pytest.raises(OverrideError, match="unknown key 'round_second' in pacing"):
        read_scenario(path, overrides=["pacing.round_second=3"])


# ---------------------------------------------------------------------------------------------
# Bad input: one InputError, one line, pointing at the file, line and key

TOOLS = BASE + "tools:\n  - name: Read\n    input_schema: {type: object}\n"  # lines 5-7
ROUND = "rounds:\n  - tool: Read\n"  # rounds at line 8 (after TOOLS), the item at 9
ROUND_X = "rounds:\n  - tool: x\n    call_tokens: 1\n    result: 1\n"  # after BASE: lines 5-8

# (id, scenario text, extra files, expected line, expected key, fragment of the message,
#  the file the error names, relative to tmp_path)
BAD: list[tuple[str, str | bytes, dict[str, str | bytes], int | None, str | None, str, str]] = [
    ("unknown-round-key", TOOLS + ROUND + "    call_tokens: 4\n    rsult: 5\n", {}, 11,
     "rounds[0].rsult", "unknown key (allowed: tool, input, call_tokens, result, calls, subagent, "
     "model, repeat, thinking, text, seconds, container_seconds, server_tools; did you mean 'result'?)",
     "s.yaml"),
    ("unknown-top-key", BASE + "modle: x\n", {}, 5, "modle", "did you mean 'model'?", "s.yaml"),
    ("duplicate-key", BASE + "model: other\n", {}, 5, "model", "duplicate key (first at line 2)",
     "s.yaml"),
    ("bool-for-int", TOOLS + ROUND + "    call_tokens: 4\n    result: 1\n    repeat: yes\n", {},
     12, "rounds[0].repeat", "expected an integer, got the boolean true (YAML reads", "s.yaml"),
    ("repeat-zero", TOOLS + ROUND + "    call_tokens: 4\n    result: 1\n    repeat: 0\n", {}, 12,
     "rounds[0].repeat", "must be >= 1, got 0", "s.yaml"),
    ("negative-thinking", TOOLS + ROUND + "    call_tokens: 4\n    result: 1\n    thinking: -3\n",
     {}, 12, "rounds[0].thinking", "must be >= 0, got -3", "s.yaml"),
    ("fraction-for-int", TOOLS + ROUND + "    call_tokens: 1.5\n    result: 1\n", {}, 10,
     "rounds[0].call_tokens", "expected an integer, got 1.5", "s.yaml"),
    ("content-typo", TOOLS + ROUND + "    call_tokens: 4\n    result: {tokns: 5}\n", {}, 11,
     "rounds[0].result.tokns", "did you mean 'tokens'?", "s.yaml"),
    ("content-two-kinds", TOOLS + ROUND + "    call_tokens: 4\n    result: {tokens: 5, text: x}\n",
     {}, 11, "rounds[0].result", "give only one of tokens, text, file", "s.yaml"),
    ("content-list", BASE.replace("final: 1", "final: [1, 2]"), {}, 4, "final",
     "expected an integer (tokens), a text, or one of", "s.yaml"),
    ("negative-tokens", BASE.replace("task: t", "task: {tokens: -1}"), {}, 3, "task.tokens",
     "must be >= 0, got -1", "s.yaml"),
    ("input-and-call-tokens", TOOLS + ROUND + "    input: {}\n    call_tokens: 4\n    result: 1\n",
     {}, 11, "rounds[0].call_tokens", "input and call_tokens exclude each other", "s.yaml"),
    ("no-call", TOOLS + ROUND + "    result: 1\n", {}, 9, "rounds[0]",
     "neither input nor call_tokens (add input", "s.yaml"),
    ("no-result", TOOLS + ROUND + "    call_tokens: 3\n", {}, 9, "rounds[0]",
     "the round has no result", "s.yaml"),
    ("input-not-mapping", TOOLS + ROUND + "    input: [1, 2]\n    result: 1\n", {}, 10,
     "rounds[0].input", "expected a mapping, got a list", "s.yaml"),
    ("unknown-tool", TOOLS + "rounds:\n  - {tool: Raed, call_tokens: 1, result: 1}\n", {}, 9,
     "rounds[0].tool", "unknown tool 'Raed' (defined: Read; did you mean 'Read'?)", "s.yaml"),
    ("duplicate-tool", TOOLS + "  - name: Read\n    inputSchema: {}\n", {}, 8, "tools[1].name",
     "duplicate tool name 'Read' (first defined at", "s.yaml"),
    ("tool-without-schema", BASE + "tools:\n  - name: Read\n    description: reads\n", {}, 6,
     "tools[0].input_schema", "required key is missing (a tool needs a JSON schema", "s.yaml"),
    ("openai-tool-without-name", BASE + "tools:\n  - type: function\n    function:\n"
     "      parameters: {}\n", {}, 7, "tools[0].function.name", "required key is missing", "s.yaml"),
    ("tool-not-mapping", BASE + "tools:\n  - Read\n", {}, 6, "tools[0]",
     "expected a tool definition (a mapping), got text 'Read'", "s.yaml"),
    ("tool-choice-any-without-tools", BASE + "tool_choice: any\n", {}, 5, "tool_choice",
     "'any' needs tools, but none are defined", "s.yaml"),
    ("tool-choice-none-with-rounds", TOOLS + "tool_choice: none\n" + ROUND.replace("rounds:", "rounds:")
     + "    call_tokens: 1\n    result: 1\n", {}, 8, "tool_choice", "forbids tool calls", "s.yaml"),
    ("tool-choice-typo", BASE + "tool_choice: aut\n", {}, 5, "tool_choice",
     "must be one of auto, any, tool, none; got text 'aut' (did you mean 'auto'?)", "s.yaml"),
    ("caching-off", BASE + "caching: off\n", {}, 5, "caching", "write none", "s.yaml"),
    ("cache-ttl", BASE + "cache_ttl: 10m\n", {}, 5, "cache_ttl", "must be one of 5m, 1h", "s.yaml"),
    ("provider", BASE + "provider: 'a b'\n", {}, 5, "provider",
     "must be an id of letters, digits, '-', '_' and '.'", "s.yaml"),
    ("version-2", "# comment\nversion: 2\nmodel: m\n", {}, 2, "version",
     "unsupported version 2 (supported: 1)", "s.yaml"),
    ("version-text", 'version: "1"\n', {}, 1, "version",
     "expected an integer, got text '1' (supported: 1)", "s.yaml"),
    ("version-missing", "\nmodel: m\ntask: t\nfinal: 1\n", {}, 2, "version",
     "required key is missing (add 'version: 1' at the top)", "s.yaml"),
    ("model-missing", "version: 1\ntask: t\nfinal: 1\n", {}, 1, "model",
     "required key is missing (e.g. 'model: claude-sonnet-4-5')", "s.yaml"),
    ("model-number", BASE.replace("model: m", "model: 4"), {}, 2, "model",
     "expected text, got 4 (quote it if it is text: '4')", "s.yaml"),
    ("model-empty", BASE.replace("model: m", "model: ''"), {}, 2, "model", "must not be empty",
     "s.yaml"),
    ("budget-zero", BASE + "limits:\n  budget_usd: 0\n", {}, 6, "limits.budget_usd",
     "must be > 0, got 0", "s.yaml"),
    ("budget-text", BASE + "limits:\n  budget_usd: '$0.25'\n", {}, 6, "limits.budget_usd",
     "expected a number, got text '$0.25'", "s.yaml"),
    ("budget-inf", BASE + "limits:\n  budget_usd: .inf\n", {}, 6, "limits.budget_usd",
     "not a finite number: .inf", "s.yaml"),
    ("max-rounds-zero", BASE + "limits: {max_rounds: 0}\n", {}, 5, "limits.max_rounds",
     "must be >= 1", "s.yaml"),
    ("limits-list", BASE + "limits: [1]\n", {}, 5, "limits", "expected a mapping, got a list",
     "s.yaml"),
    ("rounds-mapping", BASE + "rounds:\n  tool: x\n", {}, 5, "rounds",
     "expected a list, got a mapping", "s.yaml"),
    ("defaults-input", BASE + "defaults:\n  input: {}\n", {}, 6, "defaults.input",
     "unknown key (allowed: call_tokens, result, thinking, text, seconds, server_tools", "s.yaml"),
    ("too-many-rounds", BASE + "rounds:\n  - tool: x\n    call_tokens: 1\n    result: 1\n"
     f"    repeat: {MAX_ROUNDS + 1}\n", {}, 6, "rounds[0]", "more than 100,000 rounds", "s.yaml"),
    ("pacing-negative", BASE + "pacing:\n  round_seconds: -1\n", {}, 6, "pacing.round_seconds",
     "must be >= 0, got -1", "s.yaml"),
    ("pacing-typo", BASE + "pacing:\n  round_second: 40\n", {}, 6, "pacing.round_second",
     "unknown key (allowed: round_seconds; did you mean 'round_seconds'?)", "s.yaml"),
    ("pacing-number", BASE + "pacing: 40\n", {}, 5, "pacing", "expected a mapping, got 40",
     "s.yaml"),
    ("pacing-text", BASE + "pacing: {round_seconds: 40s}\n", {}, 5, "pacing.round_seconds",
     "expected a number, got text '40s'", "s.yaml"),
    ("pacing-inf", BASE + "pacing: {round_seconds: .inf}\n", {}, 5, "pacing.round_seconds",
     "not a finite number: .inf", "s.yaml"),
    ("seconds-negative", BASE + ROUND_X + "    seconds: -5\n", {}, 9, "rounds[0].seconds",
     "must be >= 0, got -5", "s.yaml"),
    ("seconds-huge", BASE + ROUND_X + "    seconds: 2000000000\n", {}, 9, "rounds[0].seconds",
     "must be <= 1,000,000,000, got 2000000000", "s.yaml"),
    ("seconds-bool", BASE + "defaults:\n  seconds: yes\n", {}, 6, "defaults.seconds",
     "expected a number, got the boolean true", "s.yaml"),
    ("server-tool-typo", BASE + ROUND_X + "    server_tools:\n      - {tool: web_serch}\n", {}, 10,
     "rounds[0].server_tools[0].tool",
     "must be one of web_search, web_fetch, code_execution; got text 'web_serch' (did you mean "
     "'web_search'?)", "s.yaml"),
    ("server-tool-uses-zero", BASE + ROUND_X + "    server_tools:\n      - {tool: web_fetch, uses: 0}\n",
     {}, 10, "rounds[0].server_tools[0].uses", "must be >= 1, got 0", "s.yaml"),
    ("server-tool-unknown-key", BASE + ROUND_X + "    server_tools:\n      - {tool: web_fetch, usess: 2}\n",
     {}, 10, "rounds[0].server_tools[0].usess", "unknown key (allowed: tool, uses, result; did you mean "
     "'uses'?)", "s.yaml"),
    ("server-tool-no-tool", BASE + ROUND_X + "    server_tools:\n      - {uses: 2}\n", {}, 10,
     "rounds[0].server_tools[0].tool", "required key is missing (web_search, web_fetch or "
     "code_execution)", "s.yaml"),
    ("server-tools-mapping", BASE + ROUND_X + "    server_tools: {tool: web_search}\n", {}, 9,
     "rounds[0].server_tools", "expected a list, got a mapping (start each item with '- ')", "s.yaml"),
    ("server-tool-result-typo", BASE + ROUND_X + "    server_tools:\n"
     "      - {tool: web_search, result: {tokns: 3}}\n", {}, 10,
     "rounds[0].server_tools[0].result.tokns", "did you mean 'tokens'?", "s.yaml"),
    ("server-tool-result-file", BASE + "defaults:\n  server_tools:\n"
     "    - {tool: code_execution, result: {file: out.txt}}\n" + ROUND_X, {}, 7,
     "defaults.server_tools[0].result.file", "cannot read out.txt: file not found", "s.yaml"),
    ("service-tier", BASE + "service_tier: flexible\n", {}, 5, "service_tier",
     "must be one of standard, batch, flex, priority; got text 'flexible' (did you mean 'flex'?)",
     "s.yaml"),
    ("thinking-retention", BASE + "thinking_retention: forget\n", {}, 5, "thinking_retention",
     "must be one of auto, keep, last, drop; got text 'forget'", "s.yaml"),
    ("final-thinking-negative", BASE + "final_thinking: -1\n", {}, 5, "final_thinking",
     "must be >= 0, got -1", "s.yaml"),
    ("final-thinking-fraction", BASE + "final_thinking: 1.5\n", {}, 5, "final_thinking",
     "expected an integer, got 1.5", "s.yaml"),
    ("server-tool-quota", BASE + "server_tool_quota: free\n", {}, 5, "server_tool_quota",
     "must be one of spent, available; got text 'free'", "s.yaml"),
    ("caching-explicit-typo", BASE + "caching: explicitt\n", {}, 5, "caching",
     "must be one of none, prefix, conversation, explicit; got text 'explicitt' (did you mean "
     "'explicit'?)", "s.yaml"),
    ("yaml-syntax", BASE + "rounds:\n  - tool: x\n   result: 1\n", {}, 7, None,
     "YAML syntax error", "s.yaml"),
    ("yaml-tab", BASE + "rounds:\n\t- tool: x\n", {}, 6, None, "YAML syntax error", "s.yaml"),
    ("two-documents", BASE + "---\nmodel: x\n", {}, 5, None, "expected a single document",
     "s.yaml"),
    ("top-level-list", "- version: 1\n", {}, 1, None,
     "expected a mapping of scenario keys at the top level, got a list", "s.yaml"),
    ("empty", "", {}, 1, None, "the file is empty", "s.yaml"),
    ("only-comments", "# nothing yet\n\n", {}, 1, None, "the file is empty", "s.yaml"),
    ("key-not-text", BASE + "1: x\n", {}, 5, None, "a key must be text, got 1 (quote it)",
     "s.yaml"),
    ("python-tag", BASE + "name: !!python/object:os.system x\n", {}, 5, "name",
     "unsupported YAML tag", "s.yaml"),
    ("recursive-alias", BASE + "description: &a [*a]\n", {}, 5, "description[0]",
     "a YAML alias refers to a node that contains it", "s.yaml"),
    ("scenario-not-utf8", BASE.encode() + b"name: caf\xe9\n", {}, 5, None,
     "not UTF-8 text (byte 0xe9 on line 5)", "s.yaml"),
    ("missing-file", BASE.replace("task: t", "task: {file: prompts/task.md}"), {}, 3, "task.file",
     "cannot read prompts/task.md: file not found", "s.yaml"),
    ("file-is-directory", BASE + "system: {file: sub}\n", {"sub/x.txt": "x"}, 5, "system.file",
     "cannot read sub: is a directory", "s.yaml"),
    ("file-not-utf8", BASE + "system: {file: sys.md}\n", {"sys.md": b"ok\n\xff\n"}, 5,
     "system.file", "not UTF-8 text (byte 0xff on line 2)", "s.yaml"),
    ("defaults-file-missing", BASE + "defaults:\n  result: {file: r.txt}\nrounds:\n"
     "  - {tool: x, call_tokens: 1}\n", {}, 6, "defaults.result.file",
     "cannot read r.txt: file not found", "s.yaml"),
    ("nul-in-path", BASE + 'system: {file: "a\\0b"}\n', {}, 5, "system.file", "invalid path",
     "s.yaml"),
    ("control-character", BASE + "name: a\x07b\n", {}, 5, None,
     "YAML syntax error: character '\\x07' is not allowed in YAML", "s.yaml"),
    ("empty-file-name", BASE + "system: {file: ''}\n", {}, 5, "system.file", "must not be empty",
     "s.yaml"),
    ("tool-file-missing", BASE + "tools:\n  - file: tools.json\n", {}, 6, "tools[0].file",
     "cannot read tools.json: file not found", "s.yaml"),
    ("tool-file-unknown-key", BASE + "tools:\n  - file: tools.json\n",
     {"tools.json": '{"tools": [\n  {"name": "a",\n   "inputSchem": {}}\n]}\n'}, 3,
     "tools[0].<key>", "did you mean 'inputSchema'?; tool file named at s.yaml:6", "tools.json"),
    ("tool-file-bad-json", BASE + "tools:\n  - file: tools.json\n",
     {"tools.json": '[\n  {"name": "a",}\n'}, 2, None, "invalid JSON", "tools.json"),
    ("tool-file-scalar", BASE + "tools:\n  - file: tools.yaml\n", {"tools.yaml": "just text\n"},
     1, None, "expected tool definitions, got text", "tools.yaml"),
    ("tool-file-duplicate", BASE + "tools:\n  - name: a\n    input_schema: {}\n  - file: t.yaml\n",
     {"t.yaml": "- name: b\n  input_schema: {}\n- name: a\n  inputSchema: {}\n"}, 3,
     "[1].name", "duplicate tool name (first defined at", "t.yaml"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "files", "line", "key", "fragment", "file"),
    [pytest.param(*case[1:], id=case[0]) for case in BAD],
)
def test_bad_input(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    text: str | bytes,
    files: dict[str, str | bytes],
    line: int | None,
    key: str | None,
    fragment: str,
    file: str,
) -> None:
    monkeypatch.chdir(tmp_path)  # relative paths in messages, as a user would type them
    for name, content in files.items():
        write(tmp_path, content, name)
    write(tmp_path, text)
    before = snapshot(tmp_path)
    with pytest.raises(InputError) as caught:
        read_scenario("s.yaml")
    err = caught.value
    assert fragment in str(err)
    assert (err.file, err.line, err.key) == (Path(file), line, key)
    assert str(err).startswith(f"{file}:{line}: " + (f"{key}: " if key else ""))
    assert "\n" not in str(err)
    assert snapshot(tmp_path) == before  # user files are never modified


def snapshot(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_bad_input_table_is_large() -> None:
    assert len(BAD) >= 25


def test_the_error_of_the_first_line_wins(tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        load_text(tmp_path, "version: 1\nmodel: 5\ntask: [x]\nfinal: 1\nrounds: {}\n")
    assert caught.value.line == 2 and caught.value.key == "model"


def test_an_unknown_key_is_reported_before_other_problems_of_its_mapping(tmp_path: Path) -> None:
    # the typo explains the missing key, so it is the more useful message
    with pytest.raises(InputError) as caught:
        load_text(tmp_path, "version: 1\nmodel: 5\ntask: t\nfinal: 1\nrounds: {}\nmodle: m\n")
    assert caught.value.line == 6 and caught.value.key == "modle"


def test_scenario_file_that_does_not_exist(tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        read_scenario(tmp_path / "nope.yaml")
    assert str(caught.value) == f"{tmp_path / 'nope.yaml'}: file not found"


def test_scenario_path_that_is_a_directory(tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        read_scenario(tmp_path)
    assert str(caught.value) == f"{tmp_path}: is a directory, not a file"


@pytest.mark.parametrize(
    ("loader", "depth"),  # PyYAML's pure-Python scanner is quadratic in open brackets: 2 s at 900
    [("CSafeLoader", 900), ("CSafeLoader", 5000), ("SafeLoader", 150), ("SafeLoader", 300)],
)
def test_deep_nesting_is_an_input_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, loader: str, depth: int
) -> None:
    if not hasattr(yaml, loader):
        pytest.skip(f"PyYAML has no {loader}")
    monkeypatch.setattr(yamlread, "Loader", getattr(yaml, loader))
    deep = BASE + "description: " + "[" * depth + "]" * depth + "\n"
    with pytest.raises(InputError, match=r"nested too deeply|maximum nesting depth") as caught:
        load_text(tmp_path, deep)
    assert caught.value.line in (None, 5)  # None: the pure-Python composer ran out of stack


def test_alias_bombs_are_refused(tmp_path: Path) -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 8)]
    bomb = BASE + "description:\n" + "".join(f"  {line}\n" for line in lines)
    with pytest.raises(InputError, match="expands to more than"):
        load_text(tmp_path, bomb)


# ---------------------------------------------------------------------------------------------
# The JSON Schema


def test_committed_schema_is_current() -> None:
    committed = json.loads((ROOT / "docs/scenario.schema.json").read_text(encoding="utf-8"))
    assert committed == json_schema(), (
        "docs/scenario.schema.json is out of date; regenerate it with "
        "`agentcost schema > docs/scenario.schema.json` (or `python -m agentcost.scenario.load`)"
    )


def test_schema_describes_every_field_and_forbids_unknown_keys() -> None:
    schema = json_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    objects = [schema, *schema["$defs"].values()]
    for obj in objects:
        assert obj["additionalProperties"] is False, obj["title"]
        assert obj.get("description"), obj["title"]
        for name, prop in obj["properties"].items():
            assert prop.get("description"), f"{obj['title']}.{name}"
    assert set(schema["properties"]) == {
        "version", "name", "description", "model", "provider", "system", "tools", "tool_choice",
        "task", "defaults", "rounds", "final", "caching", "cache_ttl", "limits", "pacing",
        "service_tier", "thinking_retention", "final_thinking", "server_tool_quota",
        "retries", "trim", "context_editing", "tool_search_stub", "outcome",
    }  # fmt: skip
    assert schema["required"] == ["version", "model", "task", "final"]


@pytest.mark.parametrize("name", EXAMPLES)
def test_examples_are_valid_against_the_schema(name: str) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft202012Validator(json_schema())
    example = yaml.safe_load((SCENARIOS / name).read_text(encoding="utf-8"))
    assert list(validator.iter_errors(example)) == []
    example["rounds"][0]["rsult"] = 1
    assert list(validator.iter_errors(example)) != []


def test_schema_rejects_input_with_call_tokens() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft202012Validator(json_schema())
    both: dict[str, Any] = {"tool": "x", "input": {}, "call_tokens": 3, "result": 1}
    doc = {"version": 1, "model": "m", "task": "t", "final": 1, "rounds": [both]}
    assert list(validator.iter_errors(doc)) != []
    del both["call_tokens"]
    assert list(validator.iter_errors(doc)) == []


def test_unknown_tool_among_many_lists_some_and_suggests_one(tmp_path: Path) -> None:
    tools = (SCENARIOS / "mcp/tools-list.json").read_text(encoding="utf-8")
    write(tmp_path, tools, "tools-list.json")
    text = (
        BASE
        + "tools:\n  - file: tools-list.json\nrounds:\n  - {tool: list_issue, call_tokens: 9, result: 9}\n"
    )
    with pytest.raises(InputError) as caught:
        load_text(tmp_path, text)
    assert (caught.value.line, caught.value.key) == (8, "rounds[0].tool")
    assert caught.value.hint == (
        "defined: list_issues, get_issue, create_issue, update_issue, add_issue_comment, "
        "list_issue_comments, search_issues, add_labels, remove_label, list_labels, "
        "list_pull_requests, get_pull_request, ... (40 in all); did you mean 'list_issues'?"
    )


def test_a_tool_description_may_be_null_or_left_out(tmp_path: Path) -> None:
    tools = [{"name": "a", "description": None, "inputSchema": {}}, {"name": "b", "input_schema": {}}]
    s = load_text(tmp_path, scenario_with_tools(tools))
    assert [(t.name, t.description) for t in s.tools] == [("a", ""), ("b", "")]
