"""Scenario-writing traps: a real API ``tools`` list with server tools in it, a round that only runs a
server tool, and caching settings a subagent does not inherit (issue 14, item 10).

Each refused input gives one line naming the file, line and key and what to write instead (exit 2);
the dollars of what is accepted are checked by hand in tests/test_server_tools.py.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from agentcost.cli import run
from agentcost.errors import InputError
from agentcost.loop.estimate import estimate_scenario
from agentcost.report.build import build_report
from agentcost.scenario.format import json_schema
from agentcost.scenario.load import read_scenario
from agentcost.scenario.model import Scenario

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)
OK = "version: 1\nmodel: gpt-5\ntask: hi\nfinal: 10\n"  # lines 1-4; what a case adds starts at line 5
CALL = "  - {tool: x, call_tokens: 3, result: 3}\n"
FUNCTION = "a function tool {type: function, name: ..., parameters: {...}}"
MCP_HINT = (
    "list the server's tools (its tools/list result) in a tool file and give it as '- file: tools.json'"
)


def load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, name: str = "s.yaml") -> Scenario:
    """The scenario in ``text``, read as ``name`` from ``tmp_path`` (messages name it relatively)."""
    monkeypatch.chdir(tmp_path)
    Path(name).write_text(text, encoding="utf-8")
    return read_scenario(Path(name))


# ----------------------------------------------------------------------------------------------
# Server tools in the tools list
# ----------------------------------------------------------------------------------------------


def test_the_issue_s_tools_list_is_accepted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The entry that used to give "unknown key max_uses": a declared server tool, not a client tool."""
    s = load(
        tmp_path,
        monkeypatch,
        OK.replace("gpt-5", "claude-sonnet-4-5")
        + "tools:\n  - {type: web_search_20250305, name: web_search, max_uses: 5}\n"
        + "  - {type: web_fetch_20260209, name: web_fetch, max_uses: 2, citations: {enabled: true},"
        + " max_content_tokens: 4000}\n  - {type: code_execution_20250825, name: code_execution}\n",
    )
    assert s.tools == ()
    assert [(d.tool, d.kind, d.name, d.max_uses) for d in s.server_tool_defs] == [
        ("web_search", "web_search_20250305", "web_search", 5),
        ("web_fetch", "web_fetch_20260209", "web_fetch", 2),
        ("code_execution", "code_execution_20250825", "code_execution", None),
    ]
    assert [d.line for d in s.server_tool_defs] == [6, 7, 8]


def test_openai_and_gemini_entries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s = load(
        tmp_path,
        monkeypatch,
        OK
        + "tools:\n  - {type: web_search, search_context_size: low, user_location: {type: approximate}}\n"
        + "  - {type: web_search_preview_2025_03_11}\n  - {type: code_interpreter, container: {type: auto}}\n"
        + "  - {googleSearch: {}, urlContext: {}}\n  - {code_execution: {}}\n"
        + "  - {type: function, name: lookup, parameters: {type: object}}\n",
    )
    assert [t.name for t in s.tools] == ["lookup"]
    assert [(d.tool, d.kind) for d in s.server_tool_defs] == [
        ("web_search", "web_search"),
        ("web_search", "web_search_preview_2025_03_11"),
        ("code_execution", "code_interpreter"),
        ("web_search", "googleSearch"),
        ("web_fetch", "urlContext"),
        ("code_execution", "code_execution"),
    ]


def test_a_tool_file_copied_from_a_request(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "tools.json").write_text(
        '[{"type": "web_search_20250305", "name": "web_search", "max_uses": 3},'
        ' {"name": "read", "input_schema": {"type": "object"}}]',
        encoding="utf-8",
    )
    s = load(tmp_path, monkeypatch, OK + "tools: [{file: tools.json}]\n")
    assert [t.name for t in s.tools] == ["read"]
    assert [(d.kind, d.max_uses) for d in s.server_tool_defs] == [("web_search_20250305", 3)]


def test_set_reaches_a_server_tool_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("s.yaml").write_text(
        OK + "tools: [{type: web_search_20250305, name: web_search}]\n", encoding="utf-8"
    )
    s = read_scenario(Path("s.yaml"), overrides=("tools[0].max_uses=4",))
    assert s.server_tool_defs[0].max_uses == 4


@pytest.mark.parametrize(
    ("added", "error"),
    [
        pytest.param(
            "tools: [{type: file_search, vector_store_ids: [vs_1]}]\n",
            "tools[0].type: OpenAI file_search is not modelled (agentcost has no fact for its per-call "
            f"fee) (remove it; to count what it retrieves, give {FUNCTION} and rounds that call it with "
            "result: N)",
            id="openai file_search",
        ),
        pytest.param(
            "tools: [{type: image_generation}]\n",
            f"tools[0].type: OpenAI's built-in image_generation tool is not modelled (remove it, or give {FUNCTION})",
            id="openai image_generation",
        ),
        pytest.param(
            "tools: [{type: mcp, server_label: wiki, server_url: 'https://mcp.example.com/mcp'}]\n",
            f"tools[0].type: OpenAI's remote MCP tool is not read here ({MCP_HINT})",
            id="openai remote mcp",
        ),
        pytest.param(
            "tools: [{type: mcp_toolset, mcp_server_name: wiki}]\n",
            f"tools[0].type: Anthropic's MCP connector (mcp_toolset) is not read here ({MCP_HINT})",
            id="anthropic mcp_toolset",
        ),
        pytest.param(
            "tools: [{type: bash_20250124, name: bash}]\n",
            "tools[0].type: bash_20250124 is an Anthropic-defined client tool whose hidden definition "
            "agentcost does not know (write it as a custom tool: {name: ..., description: ..., "
            "input_schema: {...}})",
            id="anthropic bash",
        ),
        pytest.param(
            "tools: [{type: tool_search_tool_regex_20251119, name: tool_search_tool_regex}]\n",
            "tools[0].type: tool_search_tool_regex_20251119 is Anthropic's tool search tool (agentcost "
            "adds the tool search itself when tools have defer_loading: true; remove this item)",
            id="anthropic tool search",
        ),
        pytest.param(
            "tools: [{type: functon, name: x, parameters: {}}]\n",
            "tools[0].type: unknown tool type 'functon' (server tools: web_search_YYYYMMDD, "
            "web_fetch_YYYYMMDD, code_execution_YYYYMMDD (Anthropic), web_search, web_search_preview, "
            "code_interpreter (OpenAI); a client tool is type: function (OpenAI) or has name and "
            "input_schema (Anthropic); did you mean 'function'?)",
            id="a type with a typo",
        ),
        pytest.param(
            "tools: [{function_declarations: [{name: f}]}]\n",
            "tools[0].function_declarations: Gemini function_declarations are not read here (give each "
            "declaration as a tool item of its own: {type: function, name: ..., description: ..., "
            "parameters: {...}})",
            id="gemini function_declarations",
        ),
        pytest.param(
            "tools: [{googleMaps: {}}]\n",
            "tools[0].googleMaps: Grounding with Google Maps is not modelled (no fact for its fee) (remove it)",
            id="gemini google maps",
        ),
        pytest.param(
            "tools: [{type: web_search, max_uses: 3}]\n",
            "tools[0].max_uses: max_uses is Anthropic's key (OpenAI's web_search tool has no cap on uses; "
            "remove it)",
            id="max_uses on openai",
        ),
        pytest.param(
            "tools: [{type: web_search_20250305, name: web_search, max_use: 3}]\n",
            "tools[0].max_use: unknown key (allowed: type, name, max_uses, allowed_domains, "
            "blocked_domains, user_location, cache_control, citations, max_content_tokens, defer_loading, "
            "strict, allowed_callers, search_context_size, filters, container; did you mean 'max_uses'?)",
            id="an option with a typo",
        ),
        pytest.param(
            "tools:\n  - {type: web_search_20250305, name: web_search}\n"
            "  - {name: web_search, input_schema: {type: object}}\n",
            "tools[1].name: duplicate tool name 'web_search' (first defined at s.yaml:6)",
            id="a client tool with a server tool's name",
        ),
        pytest.param(
            "tools: [{type: web_search}]\nrounds:\n"
            "  - {tool: x, call_tokens: 3, result: 3, server_tools: [{tool: code_execution}]}\n",
            "rounds[0].server_tools[0].tool: code_execution is not among the server tools in tools "
            "(web_search) (declare it in tools too, or use a declared one)",
            id="a server tool tools does not list",
        ),
        pytest.param(
            "tools: [{type: web_search_20250305, name: web_search}]\nrounds:\n"
            "  - {tool: web_search, call_tokens: 3, result: 3}\n",
            "rounds[0].tool: web_search is a server tool (web_search_20250305 in tools, line 5): the "
            "provider runs it, the model never calls it (give its uses as server_tools: [{tool: "
            "web_search, uses: N, result: TOKENS}] on the round whose response runs it, or on a round "
            "of its own with no tool)",
            id="a server tool called as a client tool",
        ),
        pytest.param(
            "tools: [{type: web_search_20250305, name: web_search, max_uses: 2}]\nrounds:\n"
            "  - server_tools: [{tool: web_search, uses: 2}]\n"
            "  - {tool: x, call_tokens: 3, result: 3, server_tools: [{tool: web_search}]}\n",
            "rounds[1].server_tools: 3 web_search uses in one response, but tools declares max_uses: 2 "
            "(line 5) (the API refuses uses past max_uses, unbilled; lower uses, or raise max_uses)",
            id="past max_uses in one response",
        ),
    ],
)
def test_refused_tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, added: str, error: str) -> None:
    with pytest.raises(InputError) as caught:
        load(tmp_path, monkeypatch, OK + added)
    assert str(caught.value) == f"s.yaml:{caught.value.line}: {error}"
    assert caught.value.line is not None and caught.value.line >= 5


def test_the_cli_says_it_in_one_line_and_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("s.yaml").write_text(
        OK + "tools: [{type: file_search, vector_store_ids: [vs_1]}]\n", encoding="utf-8"
    )
    assert run(["estimate", "s.yaml", "--as-of", "2026-11-30"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith("agentcost: error: s.yaml:5: tools[0].type: OpenAI file_search is not modelled")


def test_the_schema_takes_the_providers_entries_and_server_only_rounds() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft202012Validator(json_schema())
    base = {"version": 1, "model": "m", "task": "t", "final": 1}
    good = {
        **base,
        "tools": [
            {
                "type": "web_search_20250305",
                "name": "web_search",
                "max_uses": 5,
                "allowed_domains": ["a.com"],
            },
            {"type": "web_search"},
            {"type": "code_interpreter", "container": {"type": "auto"}},
            {"google_search": {}},
            {"type": "function", "name": "f", "parameters": {"type": "object"}},
        ],
        "rounds": [
            {"server_tools": [{"tool": "web_search", "uses": 3}]},
            {"tool": "f", "call_tokens": 3, "result": 3},
        ],
    }
    assert list(validator.iter_errors(good)) == []
    for bad in (
        {"type": "file_search"},  # refused by agentcost: not in the schema either
        {"google_maps": {}},
        {"type": "web_search_20250305", "max_use": 3},
    ):
        assert list(validator.iter_errors({**base, "tools": [bad]})) != [], bad
    both = {**base, "rounds": [{"tool": "f", "calls": [{"tool": "f"}], "server_tools": []}]}
    assert list(validator.iter_errors(both)) != []


# ----------------------------------------------------------------------------------------------
# Rounds of server tools only
# ----------------------------------------------------------------------------------------------


def test_several_server_only_rounds_join_one_response(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = load(
        tmp_path,
        monkeypatch,
        OK
        + "defaults: {server_tools: [{tool: code_execution}]}\nrounds:\n"
        + "  - server_tools: [{tool: web_search, uses: 2}]\n"
        + "  - server_tools: [{tool: web_search, uses: 1, result: 40}]\n"
        + "  - {tool: x, call_tokens: 3, result: 3, repeat: 1}\n"
        + CALL,
    )
    assert len(s.rounds) == 2  # the two server-only rounds are no rounds of their own
    assert [(u.tool, u.uses, u.line) for u in s.rounds[0].server_tools] == [
        ("web_search", 2, 7),
        ("web_search", 1, 8),
        ("code_execution", 1, 5),  # the round's own server tools, from defaults, after them
    ]
    assert [(u.tool, u.uses) for u in s.rounds[1].server_tools] == [("code_execution", 1)]


@pytest.mark.parametrize(
    ("added", "error"),
    [
        pytest.param(
            "rounds:\n  - server_tools: [{tool: web_search, uses: 3}]\n",
            "s.yaml:6: rounds[0].server_tools: a round of server tools only runs inside the next "
            "response, but no tool round or chat turn follows (the final answer's response cannot run "
            "server tools in version 1; see docs/scenario.md#rounds-of-server-tools-only)",
            id="the last round",
        ),
        pytest.param(
            "rounds:\n  - server_tools: [{tool: web_search}]\n    repeat: 2\n" + CALL,
            "s.yaml:7: rounds[0].repeat: a round of server tools only cannot have repeat (write uses: N "
            "on the server tool instead)",
            id="repeat",
        ),
        pytest.param(
            "rounds:\n  - server_tools: [{tool: web_search}]\n    thinking: 200\n" + CALL,
            "s.yaml:7: rounds[0].thinking: a round of server tools only cannot have thinking (its server "
            "tools run inside the next round's response: give thinking on that round)",
            id="thinking",
        ),
        pytest.param(
            "rounds:\n  - server_tools: [{tool: web_search}]\n  - {tool: x, call_tokens: 3, result: 3, repeat: 3}\n",
            "s.yaml:7: rounds[1]: the server tools of rounds[0] run in this round's first response, but "
            "it repeats 3 times (split off its first response: the same round with repeat: 1, then "
            "repeat: 2)",
            id="before a repeated round",
        ),
        pytest.param(
            "rounds:\n  - server_tools: [{tool: web_search}]\n"
            "  - {tool: x, call_tokens: 3, result: {uniform: [1, 5]}}\n",
            "s.yaml:7: rounds[1]: the server tools of rounds[0] run in this round's first response, but "
            "it has a distribution (give it fixed sizes, or put these server_tools on it (each response "
            "it stands for runs them))",
            id="before an uncertain round",
        ),
        pytest.param(
            "rounds:\n  - {result: 3, server_tools: [{tool: web_search}]}\n",
            "s.yaml:6: rounds[0].tool: required key is missing (the name of the tool this round calls; "
            "calls: [...] for parallel calls; reply and user for a chat turn; or server_tools alone for "
            "a round of server tools only)",
            id="a call without its tool",
        ),
    ],
)
def test_refused_server_only_rounds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, added: str, error: str
) -> None:
    with pytest.raises(InputError) as caught:
        load(tmp_path, monkeypatch, OK + added)
    assert str(caught.value) == error


def test_a_server_tool_the_model_has_not_is_named_where_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = load(tmp_path, monkeypatch, OK + "rounds:\n  - server_tools: [{tool: web_fetch}]\n" + CALL)
    with pytest.raises(InputError) as caught:
        estimate_scenario(s, as_of=AS_OF)
    assert caught.value.line == 6  # the server-only round's line, not the response's (7)
    assert "gpt-5 has no server-side web_fetch tool" in str(caught.value)


# ----------------------------------------------------------------------------------------------
# cache_ttl and subagents: not inherited, and the report says so where it matters
# ----------------------------------------------------------------------------------------------

PARENT = (
    "version: 1\nmodel: claude-sonnet-4-5\ncaching: conversation\ncache_ttl: {ttl}\ntask: {{tokens: 2000}}\n"
    "rounds:\n  - {{tool: research, call_tokens: 20, subagent: {{file: sub.yaml}}}}\nfinal: 100\n"
)
SUB = "version: 1\nmodel: {model}\ncaching: conversation\n{ttl}task: {{tokens: 3000}}\nfinal: 20\n"
WARNING = (
    "subagent sub.yaml: cache TTL 5m, not its parent's {parent}: a subagent does not inherit cache_ttl "
    "(set cache_ttl in its scenario to change it)"
)


def ttl_warnings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parent: str, sub: str) -> list[str]:
    (tmp_path / "sub.yaml").write_text(sub, encoding="utf-8")
    report = build_report(estimate_scenario(load(tmp_path, monkeypatch, parent, "parent.yaml"), as_of=AS_OF))
    return [w for w in report.warnings if "cache_ttl" in w]


@pytest.mark.parametrize(("ttl", "label"), [("1h", "1h"), ("{prefix: 1h, conversation: 5m}", "1h+5m")])
def test_a_subagent_without_cache_ttl_runs_at_5m_and_the_report_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ttl: str, label: str
) -> None:
    sub = SUB.format(model="claude-haiku-4-5", ttl="")
    assert ttl_warnings(tmp_path, monkeypatch, PARENT.format(ttl=ttl), sub) == [WARNING.format(parent=label)]
    est = estimate_scenario(read_scenario(Path("parent.yaml")), as_of=AS_OF)
    (child,) = est.subagents.values()
    assert (est.ledger.policy.ttl_label, child.ledger.policy.ttl_label) == (label, "5m")  # not inherited


@pytest.mark.parametrize(
    ("parent_ttl", "sub"),
    [
        pytest.param(
            "1h", SUB.format(model="claude-haiku-4-5", ttl="cache_ttl: 5m\n"), id="the subagent says 5m"
        ),
        pytest.param(
            "1h", SUB.format(model="claude-haiku-4-5", ttl="cache_ttl: 1h\n"), id="the subagent says 1h"
        ),
        pytest.param(
            "5m", SUB.format(model="claude-haiku-4-5", ttl=""), id="the parent's TTL is the default"
        ),
        pytest.param("1h", SUB.format(model="gpt-5", ttl=""), id="no TTL is priced for the subagent"),
    ],
)
def test_no_warning_where_the_ttl_does_not_differ_by_omission(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parent_ttl: str, sub: str
) -> None:
    assert ttl_warnings(tmp_path, monkeypatch, PARENT.format(ttl=parent_ttl), sub) == []
