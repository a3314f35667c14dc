"""Tool search only where it exists (facts.yaml ``tool_search``): ``defer_loading`` refused on a model
without it (exit 2), the deferred stub per provider (Anthropic: ``tool_search_stub`` tokens; OpenAI: the
function's name and description), and the ``--explain`` defer lever only on models with tool search."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from agentcost import facts
from agentcost.cli import run
from agentcost.errors import InputError
from agentcost.loop.estimate import estimate_scenario
from agentcost.loop.insights import explain
from agentcost.scenario.load import read_scenario
from agentcost.scenario.model import Content, Round, Scenario, ToolDef, ToolUse
from agentcost.tokens.context import TOOL_SEARCH_TOOL_TOKENS
from agentcost.tokens.count import count_tokens
from agentcost.tokens.memo import count_text

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)
ROOT = Path(__file__).resolve().parent.parent
MCP40 = ROOT / "scenarios" / "mcp-40-tools.yaml"

WEATHER = ToolDef(
    "get_weather", "Get the weather.", {"type": "object", "properties": {"city": {"type": "string"}}}
)
LOOKUP = ToolDef(
    "lookup_order",
    "Look up an order by its number",
    {"type": "object", "properties": {"order_number": {"type": "string", "description": "e.g. A-1234"}}},
)
CALL = ToolUse(tool="get_weather", input=Content(tokens=10), result=Content(tokens=100))

WITHOUT = ("gpt-4o", "gpt-5", "gemini-2.5-pro", "claude-3-haiku")
WITH = ("gpt-5.4", "claude-sonnet-4-5")


def scenario(model: str, *deferred: ToolDef) -> Scenario:
    return Scenario(
        path=Path("deferred.yaml"),
        model=model,
        model_line=None,
        provider=None,
        system=Content(tokens=1_000),
        tools=tuple(replace(t, defer_loading=True, line=7 + i) for i, t in enumerate(deferred)),
        tool_choice="auto",
        task=Content(tokens=47),
        rounds=(Round(calls=(CALL,)),) * 2,
        final=Content(tokens=17),
        caching="none",
    )


@pytest.mark.parametrize(
    ("provider", "model", "supported", "stub"),
    [
        ("openai", "gpt-4o", False, None),
        ("openai", "gpt-5", False, None),
        ("anthropic", "claude-3-haiku", False, None),
        ("openai", "gpt-5.4", True, facts.NAME_DESCRIPTION),
        ("openai", "gpt-5.4-mini", True, facts.NAME_DESCRIPTION),
        ("anthropic", "claude-sonnet-4-5", True, 9),
        ("anthropic", "claude-sonnet-4-5-20250929", True, 9),
        ("aws", "claude-sonnet-4-5", True, 9),  # Claude on Bedrock: the maker's rows
    ],
)
def test_tool_search_per_model(provider: str, model: str, supported: bool, stub: object) -> None:
    fact = facts.tool_search(provider, model)
    assert fact is not None and fact.value.supported is supported and fact.value.stub == stub
    assert fact.url.startswith(("https://developers.openai.com/", "https://platform.claude.com/"))
    if supported:
        assert fact.value.server_side and fact.value.client_side


def test_gemini_has_no_documented_tool_search() -> None:
    assert facts.tool_search("google", "gemini-2.5-pro") is None  # unknown stays unknown


@pytest.mark.usefixtures("no_ctok")
@pytest.mark.parametrize("model", WITHOUT)
def test_defer_loading_is_refused_without_tool_search(model: str) -> None:
    with pytest.raises(InputError) as caught:
        estimate_scenario(scenario(model, WEATHER), as_of=AS_OF)
    text = str(caught.value)
    assert "\n" not in text
    assert text.startswith(f"deferred.yaml:7: defer_loading: {model} has no")
    assert "cannot defer 'get_weather' (remove defer_loading, or pick a model with tool search: " in text
    assert ("gpt-5.4*" in text) is (model != "claude-3-haiku")
    assert ("claude-sonnet-4-5" in text) is (model in ("claude-3-haiku", "gemini-2.5-pro"))


@pytest.mark.usefixtures("no_ctok", "fixed_terminal")
def test_the_cli_exits_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(
        "version: 1\nmodel: gpt-5\ntask: {tokens: 10}\n"
        "tools:\n  - {name: a, description: A., input_schema: {type: object}, defer_loading: true}\n"
        "rounds:\n  - {tool: a, call_tokens: 5, result: {tokens: 50}}\nfinal: {tokens: 5}\n",
        encoding="utf-8",
    )
    code = run(["estimate", str(path), "--as-of", "2026-11-30"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "gpt-5 has no tool search" in err
    code = run(["estimate", str(path), "--as-of", "2026-11-30", "--model", "gpt-5.4", "-q"])
    assert code == 0


@pytest.mark.usefixtures("no_ctok")
@pytest.mark.parametrize("model", WITH)
def test_models_with_tool_search_accept_it(model: str) -> None:
    est = estimate_scenario(scenario(model, WEATHER, LOOKUP), as_of=AS_OF)
    assert est.tool_search is not None and est.tool_search.searches == 1  # get_weather loaded once
    assert [r.search for r in est.counts.rounds] == [True, False, False]


@pytest.mark.usefixtures("no_ctok")
def test_anthropic_stub_is_tool_search_stub_tokens() -> None:
    c = count_tokens(
        scenario("claude-sonnet-4-5", WEATHER, LOOKUP), provider="anthropic", model_id="claude-sonnet-4-5"
    )
    assert c.tool_search_prefix == 2 * 9 + TOOL_SEARCH_TOOL_TOKENS == 138
    assert any("2 tool(s) cost 9 tokens each until loaded" in n for n in c.notes)


def test_openai_stub_is_the_name_and_description() -> None:
    # gpt-5.4 counts tools with gpt-4o's cookbook constants: a function is func_init (7) +
    # "name:description" (final period stripped) + its parameters (prop_init 3, + per property). A
    # deferred function keeps everything but its parameters.
    s = scenario("gpt-5.4", WEATHER, LOOKUP)
    c = count_tokens(s, provider="openai", model_id="gpt-5.4")
    weather = 7 + count_text("get_weather:Get the weather")
    lookup = 7 + count_text("lookup_order:Look up an order by its number")
    assert (weather, lookup) == (7 + 5, 7 + 10)
    assert c.tool_search_prefix == weather + lookup + TOOL_SEARCH_TOOL_TOKENS == 149
    loaded = replace(s, tools=tuple(replace(t, defer_loading=False) for t in s.tools))
    full = count_tokens(loaded, provider="openai", model_id="gpt-5.4")
    # deferring saves the parameters only: prop_init 3 + prop_key 3 + "city:string" (2) = 8, and
    # 3 + 3 + "order_number:string:e.g. A-1234" (10) = 16; the tool-search tool costs 120 more
    assert full.tools - c.tools == 8 + 16 - TOOL_SEARCH_TOOL_TOKENS == -96
    assert any("2 tool(s) cost their name and description until loaded" in n for n in c.notes)
    est = estimate_scenario(s, as_of=AS_OF)
    assert est.tool_search is not None and est.tool_search.prefix_tokens == 149


def test_the_defer_lever_only_where_tool_search_exists() -> None:
    mcp40 = read_scenario(MCP40)
    gemini = estimate_scenario(mcp40, as_of=AS_OF)  # the scenario's gemini-2.5-pro: none documented
    assert "defer_unused_tools" not in [lv.name for lv in explain(gemini).levers]
    gpt5 = estimate_scenario(mcp40, as_of=AS_OF, model="gpt-5")
    assert "defer_unused_tools" not in [lv.name for lv in explain(gpt5).levers]
    claude = estimate_scenario(mcp40, as_of=AS_OF, model="claude-sonnet-4-5")
    [defer] = [lv for lv in explain(claude).levers if lv.name == "defer_unused_tools"]
    # the same as before tool search was checked (Anthropic's stub did not change): 34 stubs of 9
    # tokens + the tool-search tool instead of 34 definitions, in each of 7 requests
    assert defer.description == "defer 34 unused tools"
    assert (claude.total_usd, defer.cost_usd) == (Decimal("0.14673000"), Decimal("0.11536140"))
    assert f"{defer.saved_fraction:.1%}" == "21.4%"
