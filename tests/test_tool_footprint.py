"""Issue 16 item 2, tool lists: each tool definition's footprint in ``estimate --explain`` (tokens per
request, over the run, calls, results, and its share of the dollars the accountant puts on the
definitions), the active-set check against each maker's published advice (facts.yaml
``active_tools_guidance``), and ``include`` / ``exclude`` globs on a tools-file entry.

Hand-checked token counts (gpt-5: o200k_base, OpenAI's cookbook recipe with gpt-4o's constants
func_init 7, prop_init 3, prop_key 3, func_end 12):
  github_list   7 + "github_list:List open issues" 6 + 3 + 3 + "repo:string:The repository" 4 = 23
  github_delete 7 + "github_delete:Delete an issue" 6                                          = 13
  slack_post    7 + "slack_post:Post a message" 7                                              = 14
and the tool prefix is those plus func_end 12.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from agentcost import facts
from agentcost.cli import run
from agentcost.errors import InputError
from agentcost.loop.estimate import estimate
from agentcost.loop.footprint import footprint
from agentcost.render.footprint import active_line
from agentcost.render.schema import report_schema
from tests.conftest import validate_json

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)
ROOT = Path(__file__).resolve().parent.parent
MCP40 = ROOT / "scenarios" / "mcp-40-tools.yaml"

TOOLS = [
    {
        "name": "github_list",
        "description": "List open issues.",
        "input_schema": {
            "type": "object",
            "properties": {"repo": {"type": "string", "description": "The repository."}},
        },
    },
    {"name": "github_delete", "description": "Delete an issue.", "input_schema": {"type": "object"}},
    {"name": "slack_post", "description": "Post a message.", "input_schema": {"type": "object"}},
]
SIZES = {"github_list": 23, "github_delete": 13, "slack_post": 14}
FUNC_END = 12
GPT5_INPUT_USD_PER_TOKEN = Decimal("1.25") / 1_000_000  # gpt-5 input, $1.25 / 1M tokens


def write(tmp_path: Path, entry: str, model: str = "gpt-5", tools: list[dict[str, object]] = TOOLS) -> Path:
    (tmp_path / "tools.json").write_text(json.dumps(tools), encoding="utf-8")
    path = tmp_path / "s.yaml"
    path.write_text(
        f"version: 1\nname: t\nmodel: {model}\ntools:\n  - {entry}\ntask: hi\n"
        "rounds:\n  - tool: github_list\n    input: {repo: shop}\n    result: 100\nfinal: 50\n",
        encoding="utf-8",
    )
    return path


def test_tiny_tool_list_on_gpt5_hand_checked(tmp_path: Path) -> None:
    fp = footprint(estimate(write(tmp_path, "file: tools.json"), as_of=AS_OF))
    assert fp is not None
    assert {t.name: t.tokens for t in fp.tools} == SIZES
    assert fp.prefix_tokens == 23 + 13 + 14 + FUNC_END == 62
    assert fp.residual_tokens == FUNC_END
    assert fp.requests == 2  # the tool round and the final answer, each with the whole tool prefix
    by_name = {t.name: t for t in fp.tools}
    assert by_name["github_list"].run_tokens == 46
    assert (by_name["github_list"].calls, by_name["slack_post"].calls) == (1, 0)
    # the result message: 3 + role "tool" 1 + name "github_list" 2 + 7 + content 100
    assert by_name["github_list"].result_tokens == 113
    # under 1,024 tokens nothing is cached: the definitions cost 100 input tokens at gpt-5's rate
    assert fp.definitions_usd == 100 * GPT5_INPUT_USD_PER_TOKEN == Decimal("0.000125")
    assert by_name["github_list"].usd == Decimal("0.0000575")  # 46 of the 100 tokens
    assert by_name["github_delete"].usd == Decimal("0.0000325")
    assert by_name["slack_post"].usd == Decimal("0.000035")
    assert sum(t.usd for t in fp.tools) == fp.definitions_usd
    assert [t.name for t in fp.tools] == ["github_list", "slack_post", "github_delete"]  # most $ first


def test_include_and_exclude_globs_in_file_order(tmp_path: Path) -> None:
    entry = 'file: tools.json\n    include: ["*_*"]\n    exclude: ["*_delete", "slack_*"]'
    est = estimate(write(tmp_path, entry), as_of=AS_OF)
    assert [t.name for t in est.scenario.tools] == ["github_list"]
    assert est.counts.tools == 23 + FUNC_END
    entry = 'file: tools.json\n    include: ["slack_*", "github_?ist"]'
    est = estimate(write(tmp_path, entry), as_of=AS_OF)
    assert [t.name for t in est.scenario.tools] == ["github_list", "slack_post"]  # the file's order


def test_a_pattern_that_matches_no_tool_is_one_error_line(tmp_path: Path) -> None:
    entry = 'file: tools.json\n    include: ["github_*"]\n    exclude: ["*_remove"]'
    with pytest.raises(InputError) as caught:
        estimate(write(tmp_path, entry), as_of=AS_OF)
    assert str(caught.value) == (
        f"{tmp_path / 's.yaml'}:7: tools[0].exclude[0]: '*_remove' matches no tool in tools.json "
        "(its tools: github_list, github_delete, slack_post)"
    )


def test_the_error_names_the_override_and_bounds_the_pattern(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "file: tools.json")
    pattern = "x" * 60 + "*"
    code = run(["estimate", str(path), "--as-of", "2026-11-30", "--set", f"tools[0].include=[{pattern}]"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1
    assert "--set tools[0].include=" in err and "tools[0].include[0]: 'xxxxxxxxxx" in err
    assert "...' (61 characters) matches no tool in tools.json" in err
    assert "(its tools: github_list, github_delete, slack_post)" in err


def test_tool_names_in_the_error_are_escaped(tmp_path: Path) -> None:
    tools = [{"name": "evil\u202ename", "description": "x", "input_schema": {"type": "object"}}, *TOOLS]
    with pytest.raises(InputError) as caught:
        estimate(write(tmp_path, 'file: tools.json\n    exclude: ["nothing*"]', tools=tools), as_of=AS_OF)
    assert "(its tools: evil\\u202ename, github_list," in str(caught.value)
    assert "\u202e" not in str(caught.value)


def test_set_overrides_an_entry_s_globs(tmp_path: Path) -> None:
    from agentcost.scenario.load import read_scenario

    scenario = read_scenario(
        write(tmp_path, "file: tools.json"), overrides=["tools[0].exclude=[github_delete]"]
    )
    assert [t.name for t in scenario.tools] == ["github_list", "slack_post"]


def many_tools(n: int) -> list[dict[str, object]]:
    extra = [
        {"name": f"tool_{i}", "description": "A tool.", "input_schema": {"type": "object"}}
        for i in range(n - 1)
    ]
    return [TOOLS[0], *extra]


@pytest.mark.parametrize(("model", "n", "flagged"), [("gpt-5", 19, False), ("gpt-5", 20, True)])
def test_openai_advice_fewer_than_20_functions(tmp_path: Path, model: str, n: int, flagged: bool) -> None:
    fp = footprint(estimate(write(tmp_path, "file: tools.json", model, many_tools(n)), as_of=AS_OF))
    assert fp is not None and fp.active is not None
    assert (fp.active.active, fp.active.guidance.value.max_active, fp.active.exceeded) == (n, 19, flagged)
    line = active_line(fp)
    assert (line is not None) == flagged
    if line is not None:
        assert line.startswith(f"{n} active tools in every request")
        assert "fewer than 20 functions at the start of a turn" in line
        assert "https://developers.openai.com/api/docs/guides/function-calling, read 2026-12-02" in line


def test_google_advice_and_no_advice_elsewhere() -> None:
    google = facts.active_tools_guidance("google", "gemini-2.5-pro")
    assert google is not None and google.value.max_active == 20
    assert "10-20" in (google.note or "") and google.url.startswith("https://ai.google.dev/")
    assert facts.active_tools_guidance("anthropic", "claude-sonnet-4-5") is None  # none published
    assert facts.active_tools_guidance("google", "gemma-3-27b-it") is None  # the Gemini guide only


def test_deferred_tools_are_not_active_and_cost_their_stub(tmp_path: Path) -> None:
    entry = "file: tools.json\n    defer_loading: true"
    est = estimate(write(tmp_path, entry, "claude-sonnet-4-5"), as_of=AS_OF)
    fp = footprint(est)
    assert fp is not None and fp.active is None  # Anthropic publishes no number: no flag
    assert all(t.deferred and t.tokens == est.scenario.tool_search_stub for t in fp.tools)
    assert fp.residual_tokens == fp.prefix_tokens - 3 * est.scenario.tool_search_stub


def test_acceptance_mcp40_json_per_tool_tokens_sum_to_request_1(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = run(["estimate", str(MCP40), "--explain", "--format", "json", "--as-of", "2026-11-30"])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    validate_json(data, report_schema())
    fp = data["tool_footprint"]
    request_1 = data["insights"]["checks"]["definition_tokens_per_request"]
    assert fp["request_1"]["tool_prefix_tokens"] == request_1
    tools = fp["tools"]
    assert len(tools) == 40
    assert sum(t["tokens_per_request"] for t in tools) + fp["request_1"]["residual_tokens"] == request_1
    assert fp["request_1"]["residual_tokens"] == 0  # Gemini: declarations only, no one-off framing
    assert "no one-off framing" in fp["request_1"]["residual"]
    assert sum(Decimal(t["usd_share"]) for t in tools) == Decimal(fp["definitions_usd"])
    assert Decimal(fp["run_usd"]) - Decimal(fp["without_definitions_usd"]) == Decimal(fp["definitions_usd"])
    assert Decimal(fp["run_usd"]) == Decimal(data["totals"]["cost_usd"])
    assert fp["active_tools"]["exceeded"] is True and fp["active_tools"]["max_active"] == 20


def test_acceptance_on_claude_states_the_hidden_prompt_residual(
    capsys: pytest.CaptureFixture[str], no_ctok: None
) -> None:
    code = run(
        [
            "estimate",
            str(MCP40),
            "--explain",
            "--format",
            "json",
            "--as-of",
            "2026-11-30",
            "--model",
            "claude-sonnet-4-5",
        ]
    )
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    fp = data["tool_footprint"]
    request_1 = data["insights"]["checks"]["definition_tokens_per_request"]
    residual = fp["request_1"]["residual_tokens"]
    assert sum(t["tokens_per_request"] for t in fp["tools"]) + residual == request_1
    prompt = facts.anthropic_tool_prompt_tokens("claude-sonnet-4-5", "auto")
    assert prompt is not None and residual >= prompt.value  # the hidden tool-use system prompt, and framing
    assert "hidden tool-use system prompt" in fp["request_1"]["residual"]


def test_terminal_table_fits_80_columns_and_lists_the_top_10(
    capsys: pytest.CaptureFixture[str], fixed_terminal: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    assert run(["estimate", str(MCP40), "--explain", "--as-of", "2026-11-30", "--model", "gpt-5"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 80
    section = out[out.index("Tool definitions, most $ first") :]
    assert "and 30 more (all of them with --verbose and in JSON)" in section
    assert "request 1: 3,267 tool-prefix tokens = 3,255 in 40 definitions + 12 in no single tool" in " ".join(
        section.split()
    )
    assert "Warning: 40 active tools" in section
    assert run(["estimate", str(MCP40), "--explain", "--as-of", "2026-11-30", "--model", "gpt-5", "-v"]) == 0
    verbose = capsys.readouterr().out
    assert "and 30 more" not in verbose and "get_repository" in verbose


def test_markdown_section(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["estimate", str(MCP40), "--explain", "--format", "markdown", "--as-of", "2026-11-30"]) == 0
    out = capsys.readouterr().out
    assert "##### Tool definitions, most \\$ first" in out
    assert "| `list_issues` | 270 | 1,890 | 0 | 0 |" in out
    assert "- request 1: 6,570 tool-prefix tokens, all in the 40 definitions; sent in 7 requests" in out
