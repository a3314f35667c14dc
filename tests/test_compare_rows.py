"""compare's rows (issue 30): a model the scenario cannot run on is a marked row, not an abort; a
row per id as typed, beside the price row it resolved to; the budget judged per model (table,
Markdown, JSON) with exit 1 when any model is over it, as estimate gates; ids never split
mid-word at 60 columns, in the table and in --chart.

Hand-checked figures (genai-prices on 2025-10-01), the scenario below on gpt-4o (o200k_base, exact
counts): 2,608 input tokens x $2.50/MTok + 130 output x $10/MTok + one web search at $10/1,000 =
$0.00652 + $0.0013 + $0.01 = $0.01782.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentcost.cli import app
from agentcost.commands.compare import compare_gates, compare_models, select_models
from agentcost.errors import InputError, UnfitModel
from agentcost.render.fit import wrap_id
from agentcost.render.output import Format, render_text
from agentcost.scenario.load import read_scenario

pytestmark = pytest.mark.usefixtures("no_ctok", "fixed_terminal")

AS_OF = datetime(2025, 10, 1, tzinfo=UTC)
SEARCH = """version: 1
name: search
model: gpt-4o
caching: none
task: {{tokens: 1000}}
final: 100
tools:
  - {{type: web_search_20250305, name: web_search}}
  - {{name: run, description: Run a command., input_schema: {{type: object}}}}
rounds:
  - tool: run
    call_tokens: 20
    result: 300
    server_tools: [{{tool: web_search, uses: 1, result: 200}}]
{limits}"""
GPT_4O = Decimal("0.01782")  # by hand, above
BEDROCK = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"


def scenario(tmp_path: Path, limits: str = "") -> Path:
    path = tmp_path / "search.yaml"
    path.write_text(SEARCH.format(limits=limits), encoding="utf-8")
    return path


def cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["compare", *args, "--as-of", "2025-10-01"])
    return result.exit_code, result.stdout, result.stderr


# --------------------------------------------------------------------------------------------
# A model the scenario cannot run on


def test_a_model_lacking_a_used_server_tool_is_a_marked_row_and_the_run_exits_0(tmp_path: Path) -> None:
    path = scenario(tmp_path)
    code, out, err = cli(str(path), "-m", "deepseek-chat", "-m", "gpt-4o")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == "search · 2 models, 1 unfit"
    assert any(line.startswith("│ deepseek-chat ") and "│   unfit │" in line for line in lines)
    assert any(line.startswith("│ gpt-4o ") and "│ $0.0178 │" in line for line in lines)
    assert (
        "Unfit: deepseek-chat has no server-side web_search tool (server tools of deepseek-chat: none);"
        " not compared." in out
    )
    code, out, _ = cli(str(path), "-m", "deepseek-chat", "-m", "gpt-4o", "-f", "json")
    data = json.loads(out)
    assert code == 0
    assert [m["model_ref"] for m in data["models"]] == ["gpt-4o"]
    assert data["models"][0]["cost_usd"] == "0.01782" == str(GPT_4O)
    assert data["unfit"] == [
        {
            "model_ref": "deepseek-chat",
            "price_row": "deepseek/deepseek-chat",
            "reason": "deepseek-chat has no server-side web_search tool",
            "hint": "server tools of deepseek-chat: none",
            "file": str(path),
            "line": 14,
        }
    ]
    md = render_text(
        compare_models(read_scenario(path), ["deepseek-chat", "gpt-4o"], as_of=AS_OF), Format.markdown
    )
    assert "| `deepseek-chat` | `deepseek/deepseek-chat` | - | - | - | - | **unfit** |" in md


def test_when_no_model_can_run_the_scenario_the_reason_is_the_error(tmp_path: Path) -> None:
    path = scenario(tmp_path)
    with pytest.raises(UnfitModel) as caught:
        compare_models(read_scenario(path), ["deepseek-chat"], as_of=AS_OF)
    assert isinstance(caught.value, InputError)  # estimate: bad input, exit 2
    assert str(caught.value) == (
        f"{path}:14: server_tools: deepseek-chat has no server-side web_search tool"
        " (server tools of deepseek-chat: none)"  # not an empty list (issue 30)
    )
    code, _, err = cli(str(path), "-m", "deepseek-chat")
    assert code == 2 and "(server tools of deepseek-chat: none)" in err


# --------------------------------------------------------------------------------------------
# A row per id as typed


def test_each_id_typed_is_a_row_shown_as_typed_beside_its_price_row(tmp_path: Path) -> None:
    typed = ["grok-4", "azure/gpt-4o", "gpt-4o", "openai/gpt-4o", BEDROCK]
    assert select_models(typed, as_of=AS_OF).models == typed  # nothing renamed, nothing merged
    path = scenario(tmp_path)
    report = compare_models(read_scenario(path), typed, as_of=AS_OF)
    compared = [(r.model, r.price_row) for r in report.rows]
    assert compared == [  # three names of gpt-4o, three rows at the same cost: ties by price row
        ("azure/gpt-4o", "azure/gpt-4o"),
        ("gpt-4o", "openai/gpt-4o"),
        ("openai/gpt-4o", "openai/gpt-4o"),
        (BEDROCK, "aws/regional.anthropic.claude-sonnet-4-5-20250929-v1:0"),
    ]
    assert [r.cost_usd for r in report.rows[:3]] == [GPT_4O] * 3
    assert [(u.model, u.price_row) for u in report.unfit] == [("grok-4", "x-ai/grok-4-0709")]
    table = render_text(report, Format.table, width=120)
    assert "│ grok-4 " in table and "│ priced as x-ai/grok-4-0709 " in table
    assert "│ gpt-4o " in table and "│ openai · cheapest " in table  # not renamed: the provider
    assert "│ us.anthropic.claude-sonnet-4-5- │" in table and "│ 20250929-v1:0  " in table  # at a separator
    assert "│ priced as  " in table and "│ aws/regional.anthropic.claude-  │" in table
    data = json.loads(render_text(report, Format.json))
    assert [m["model_ref"] for m in data["models"]] == ["azure/gpt-4o", "gpt-4o", "openai/gpt-4o", BEDROCK]
    assert [m["model"] for m in data["models"]][-1] == "regional.anthropic.claude-sonnet-4-5-20250929-v1:0"


def test_ids_wrap_between_separators_never_mid_word_at_60_columns(tmp_path: Path) -> None:
    assert wrap_id(BEDROCK, 25) == "us.anthropic.claude-\nsonnet-4-5-20250929-v1:0"
    assert wrap_id("priced as x-ai/grok-4-0709", 20) == "priced as\nx-ai/grok-4-0709"  # spaces first
    assert wrap_id("priced as x-ai/grok-4-0709", 12) == "priced as\nx-ai/grok-4-\n0709"
    assert wrap_id("abcdefghijkl", 5) == "abcde\nfghij\nkl"  # one word wider than the column: folded
    assert wrap_id(BEDROCK, None) == BEDROCK
    report = compare_models(read_scenario(scenario(tmp_path)), [BEDROCK, "gpt-4o", "grok-4"], as_of=AS_OF)
    table = render_text(report, Format.table, width=60)
    assert max(len(line) for line in table.splitlines()) <= 60
    cells = [line.split("│")[1].strip() for line in table.splitlines() if line.startswith("│ ")]
    assert cells[cells.index("us.anthropic.claude-") + 1] == "sonnet-4-5-20250929-v1:0"  # whole words
    assert cells[cells.index("priced as") + 1 :][:3] == [
        "aws/regional.anthropic.",
        "claude-sonnet-4-5-",
        "20250929-v1:0",
    ]
    chart = render_text(report, Format.table, width=60, chart=True)
    # the whole id, wrapped after a separator (the chart's own wrapping), never cut
    assert (
        "…" not in chart and "\nus.anthropic.claude- " in chart and "\nsonnet-4-5-20250929-\nv1:0\n" in chart
    )
    assert "grok-4" in chart and chart.count("unfit") >= 2


# --------------------------------------------------------------------------------------------
# The budget, per model


def test_each_model_is_judged_against_the_budget_and_any_over_exits_1(tmp_path: Path) -> None:
    path = scenario(tmp_path, "limits:\n  budget_usd: 0.015\n")
    code, out, err = cli(str(path), "-m", "gpt-4o", "-m", "gpt-4o-mini", "-m", "deepseek-chat")
    assert code == 1  # as estimate's budget gate: a model over it fails the run
    # printed first: the verdict the exit code carries
    assert out.splitlines()[0] == "OVER budget $0.0150 per run (limits.budget_usd): 1 of 2 models (gpt-4o)."
    over = next(line for line in out.splitlines() if line.startswith("│ gpt-4o "))
    assert " OVER │" in over
    assert "+$0.0028" in out  # $0.01782 - $0.015 = $0.00282 over
    assert err.splitlines() == [
        f"agentcost: gate failed: {path}: gpt-4o: over budget: estimated $0.0178 > $0.0150 (limits.budget_usd)"
    ]
    code, out, _ = cli(str(path), "-m", "gpt-4o", "-m", "gpt-4o-mini", "-f", "json")
    data = json.loads(out)
    assert code == 1 and data["over_budget"] == ["gpt-4o"]
    budgets = {m["model_ref"]: m["budget"] for m in data["models"]}
    assert budgets["gpt-4o"] == {
        "limit_usd": "0.015",
        "source": "limits.budget_usd",
        "over": True,
        "headroom_usd": "-0.00282",  # 0.015 - 0.01782
    }
    mini = next(m for m in data["models"] if m["model_ref"] == "gpt-4o-mini")
    assert mini["budget"]["over"] is False
    assert Decimal(mini["budget"]["headroom_usd"]) == Decimal("0.015") - Decimal(mini["cost_usd"])
    assert [(g["name"], g["tripped"]) for g in data["gates"] if g["name"] == "budget"] == [
        ("budget", False),
        ("budget", True),
    ]


def test_the_budget_option_replaces_the_scenarios_and_within_it_the_run_exits_0(tmp_path: Path) -> None:
    path = scenario(tmp_path, "limits:\n  budget_usd: 0.015\n")
    code, out, err = cli(str(path), "-m", "gpt-4o", "-m", "gpt-4o-mini", "--budget", "0.02")
    assert code == 0 and err == ""
    assert out.splitlines()[0] == "Within budget $0.0200 per run (--budget): both models compared."
    assert "-$0.0022" in out  # $0.01782 - $0.02
    report = compare_models(read_scenario(path), ["gpt-4o"], as_of=AS_OF, budget_usd=Decimal("0.02"))
    assert report.budget_usd == Decimal("0.02") and report.budget_source == "--budget"
    assert report.rows[0].over_by_usd == Decimal("-0.00218")
    md = render_text(report, Format.markdown)
    assert "**Within budget $0.0200 per run (--budget): the one model compared.**" in md
    assert "| within -$0.0022 |" in md
    assert [g.name for g in compare_gates(report)] == ["budget", "context_window"]
    code, _, err = cli(str(path), "-m", "gpt-4o", "--budget", "cheap")
    assert code == 2 and "--budget" in err


def test_without_a_budget_there_is_no_verdict_line_nor_column(tmp_path: Path) -> None:
    report = compare_models(read_scenario(scenario(tmp_path)), ["gpt-4o"], as_of=AS_OF)
    table = render_text(report, Format.table, width=120)
    assert table.splitlines()[0] == "search · 1 model" and "budget" not in table
    data = json.loads(render_text(report, Format.json))
    assert data["models"][0]["budget"] is None and data["over_budget"] == []
