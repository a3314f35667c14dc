"""Several scenarios at once: the shipped project file estimated end to end, per day and per month
checked by hand, totals that are the exact sums of the rows, budgets and gates, overrides, and every
output format (JSON against the schema, Markdown golden, CSV parsed back, the Rich table).

Per-run costs are those of tests/test_end_to_end.py (Claude counts on the ratio path, ``no_ctok``):
bugfix on claude-sonnet-4-5 $0.0286497; mcp-40-tools on gemini-2.5-pro $0.13693125; research on
gpt-5-mini (the project's ``set: [model=gpt-5-mini]``): the gpt-5 token counts, 1,460,204 input of
which 1,359,872 cache reads, 2,817 output, at $0.25 / $0.025 / $2 per MTok (pricing-facts.md §A.0).
"""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from agentcost.commands.batch import batch_gates, batch_report_for_paths, build_batch_report, estimate_batch
from agentcost.errors import InputError
from agentcost.infra.doc import OverrideError
from agentcost.loop.estimate import estimate_scenario
from agentcost.render.jsonfmt import report_dict
from agentcost.render.output import Format, quiet_total, render_text
from agentcost.render.schema import kind_schema, report_schema
from agentcost.report.batch import BatchReport
from agentcost.report.build import build_report
from agentcost.report.gates import Gate
from agentcost.scenario.load import read_scenario as load_scenario
from agentcost.scenario.project import load_project
from tests.conftest import ROOT, GoldenCheck, validate_json

pytestmark = pytest.mark.usefixtures("no_ctok", "fixed_terminal")

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)
MILLION = Decimal(1_000_000)
PROJECT = "scenarios/agentcost.yml"
SCENARIO = "version: 1\nmodel: gpt-5\ntask: t\nfinal: 1\n"

BUGFIX_RUN = Decimal("0.0286497")
MCP_RUN = Decimal("0.13693125")
RESEARCH_MINI_RUN = (
    Decimal("0.25") * (1_460_204 - 1_359_872) + Decimal("0.025") * 1_359_872 + Decimal(2) * 2_817
) / MILLION


@pytest.fixture
def shipped(monkeypatch: pytest.MonkeyPatch) -> BatchReport:
    monkeypatch.chdir(ROOT)  # paths in the report as a user in the repository types them
    return batch_report_for_paths([PROJECT], as_of=AS_OF)


def write(root: Path, text: str, name: str) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------
# Figures


def test_cost_per_day_and_month_by_hand(shipped: BatchReport) -> None:
    assert Decimal("0.0647138") == RESEARCH_MINI_RUN
    bugfix, research, mcp = shipped.rows
    assert (bugfix.cost_usd, bugfix.runs_per_day) == (BUGFIX_RUN, Decimal(200))
    assert bugfix.cost_per_day_usd == Decimal("5.72994")  # $0.0286497 x 200
    assert bugfix.cost_per_month_usd == Decimal("171.8982")  # x 30
    assert (research.model_id, research.cost_usd, research.runs_per_day) == (
        "gpt-5-mini",
        RESEARCH_MINI_RUN,
        Decimal("12.5"),
    )
    assert research.cost_per_day_usd == Decimal("0.8089225")  # $0.0647138 x 12.5
    assert research.cost_per_month_usd == Decimal("24.267675")
    assert (mcp.cost_usd, mcp.cost_per_day_usd, mcp.cost_per_month_usd) == (
        MCP_RUN,
        Decimal("3.28635"),  # x 24
        Decimal("98.5905"),
    )
    t = shipped.totals
    assert t.cost_usd == Decimal("0.23029475")  # 0.0286497 + 0.0647138 + 0.13693125
    assert t.cost_per_day_usd == Decimal("9.8252125")  # 5.72994 + 0.8089225 + 3.28635
    assert t.cost_per_month_usd == Decimal("294.756375")
    assert (t.scenarios, t.requests, t.over_budget) == (3, 9 + 31 + 7, 0)


def test_totals_are_the_exact_sums_of_the_rows(shipped: BatchReport) -> None:
    rows, t = shipped.rows, shipped.totals
    assert sum((r.cost_usd for r in rows), Decimal(0)) == t.cost_usd
    assert sum((r.cost_per_day_usd or Decimal(0) for r in rows), Decimal(0)) == t.cost_per_day_usd
    assert sum((r.cost_per_month_usd or Decimal(0) for r in rows), Decimal(0)) == t.cost_per_month_usd
    assert t.cost_per_month_usd == t.cost_per_day_usd * 30
    for name in ("requests", "input_tokens", "cache_read_tokens", "cache_write_tokens", "output_tokens"):
        assert sum(getattr(r, name) for r in rows) == getattr(t, name), name
    assert t.input_tokens == 20_253 + 1_460_204 + 88_993
    assert t.cached_share == Decimal("0.8773")  # (16,989 + 1,359,872 + 0) / 1,569,450, 4 places
    assert [r.cached_share for r in rows] == [Decimal("0.8388"), Decimal("0.9313"), Decimal(0)]


def test_each_row_is_its_scenarios_own_estimate(shipped: BatchReport) -> None:
    scenarios = ROOT / "scenarios"
    research = load_scenario(scenarios / "research.yaml", overrides=["model=gpt-5-mini"])
    expected = [
        estimate_scenario(load_scenario(scenarios / "bugfix.yaml"), as_of=AS_OF),
        estimate_scenario(research, as_of=AS_OF),
        estimate_scenario(load_scenario(scenarios / "mcp-40-tools.yaml"), as_of=AS_OF),
    ]
    for row, est in zip(shipped.rows, expected, strict=True):
        assert row.cost_usd == est.ledger.totals.cost_usd
        assert row.report.requests == build_report(est).requests
    assert [r.path for r in shipped.rows] == [
        "scenarios/bugfix.yaml",
        "scenarios/research.yaml",
        "scenarios/mcp-40-tools.yaml",
    ]
    assert [r.name for r in shipped.rows] == [
        "Fix POST /orders validation",  # the scenario's name
        "Research briefing (gpt-5-mini)",  # the project entry's name wins
        "Triage a red CI run through a 40-tool MCP server",
    ]
    assert [r.approximate for r in shipped.rows] == [True, False, True] and shipped.approximate
    assert [r.fits_context for r in shipped.rows] == [True, True, True]  # gemini-2.5-pro: facts.yaml window


# ---------------------------------------------------------------------------------------------
# Budgets and gates


def test_budgets_and_gates_of_the_shipped_project(shipped: BatchReport) -> None:
    bugfix, research, _ = shipped.rows
    assert bugfix.budget is not None and (bugfix.budget.limit_usd, bugfix.budget.source) == (
        Decimal("0.05"),
        "project",
    )
    assert research.budget is not None and research.budget.source == "limits.budget_usd"
    assert shipped.project is not None and shipped.project.budget is not None
    assert shipped.project.budget.headroom_usd == Decimal("0.25") - Decimal("0.23029475")
    gates = batch_gates(shipped)
    assert [(g.name, g.file, g.line, g.tripped) for g in gates] == [
        ("budget", PROJECT, 10, False),  # the entry's budget_usd: pointed at the project file
        ("context_window", "scenarios/bugfix.yaml", 9, False),
        ("budget", "scenarios/research.yaml", 59, False),
        ("context_window", "scenarios/research.yaml", None, False),  # the model came from set:
        ("budget", "scenarios/mcp-40-tools.yaml", 68, False),
        ("context_window", "scenarios/mcp-40-tools.yaml", 9, False),
        ("budget", PROJECT, 6, False),  # the project's total
    ]
    assert gates[0].message == (
        "scenarios/bugfix.yaml: within budget: estimated $0.0286 <= $0.0500 (project)"
    )
    assert gates[-1].message == (
        "scenarios/agentcost.yml: within budget: estimated $0.2303 for one run of each of 3"
        " scenarios <= $0.2500 (project budget_usd)"
    )


def test_the_budget_option_applies_to_each_scenario_and_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    report = batch_report_for_paths([PROJECT], as_of=AS_OF, budget_usd=Decimal("0.04"))
    assert [(r.budget.source, r.budget.over) for r in report.rows if r.budget] == [
        ("--budget", False),  # $0.0286497 <= $0.04, although the entry says $0.05
        ("--budget", True),  # $0.0647138
        ("--budget", True),  # $0.13693125
    ]
    assert report.totals.over_budget == 2
    budget_gates = [g for g in batch_gates(report) if g.name == "budget"]
    assert [(g.file, g.line, g.tripped) for g in budget_gates] == [
        ("scenarios/bugfix.yaml", None, False),
        ("scenarios/research.yaml", None, True),
        ("scenarios/mcp-40-tools.yaml", None, True),
        (PROJECT, 6, False),
    ]


def test_a_project_over_its_total_budget_trips_its_gate(tmp_path: Path) -> None:
    write(tmp_path, SCENARIO, "s.yaml")
    project = write(
        tmp_path, "version: 1\nbudget_usd: 0.00001\nscenarios:\n  - path: s.yaml\n  - path: s.yaml\n", "p.yml"
    )
    report = batch_report_for_paths([project], as_of=AS_OF)
    one = report.rows[0].cost_usd
    assert report.totals.cost_usd == 2 * one
    assert report.project is not None and report.project.budget is not None
    assert report.project.budget.over and report.project.budget.headroom_usd == Decimal("0.00001") - 2 * one
    gate = batch_gates(report)[-1]
    assert 2 * one == Decimal("0.00004")  # both amounts under $0.0001: two significant digits each
    assert gate == Gate(
        name="budget",
        tripped=True,
        message=f"{project}: over budget: estimated $0.000040 for one run of each of 2 scenarios"
        " > $0.000010 (project budget_usd)",
        file=str(project),
        line=2,
    )


# ---------------------------------------------------------------------------------------------
# Options, overrides, scenario files without a project


def test_entry_overrides_apply_first_then_the_set_option(tmp_path: Path) -> None:
    from agentcost.infra.policy import InputPolicy, using_policy

    with using_policy(InputPolicy(allowed_roots=(ROOT / "scenarios",))):  # r.yaml names files there
        _entry_overrides_apply_first(tmp_path)


def _entry_overrides_apply_first(tmp_path: Path) -> None:
    research = (ROOT / "scenarios" / "research.yaml").read_text(encoding="utf-8")
    write(tmp_path, research.replace("file: research/", f"file: {ROOT}/scenarios/research/"), "r.yaml")
    project = load_project(
        write(
            tmp_path,
            "version: 1\nscenarios:\n  - path: r.yaml\n    set: [limits.max_rounds=3, model=gpt-4o]\n",
            "p.yml",
        )
    )

    def cost(*overrides: str) -> Decimal:
        scenario = load_scenario(tmp_path / "r.yaml", overrides=overrides)
        return estimate_scenario(scenario, as_of=AS_OF).ledger.totals.cost_usd

    only_entry = build_batch_report(estimate_batch(project, as_of=AS_OF))
    assert only_entry.rows[0].requests == 3  # truncated at 3 rounds: no final answer
    assert only_entry.rows[0].cost_usd == cost("limits.max_rounds=3", "model=gpt-4o")
    assert only_entry.warnings == (
        f"{tmp_path / 'r.yaml'}: run truncated by limits.max_rounds: 3 of 30 rounds, no final answer",
    )
    both = build_batch_report(estimate_batch(project, as_of=AS_OF, overrides=["limits.max_rounds=5"]))
    assert both.rows[0].requests == 5 and both.rows[0].model_id == "gpt-4o"
    assert both.rows[0].cost_usd == cost("limits.max_rounds=5", "model=gpt-4o")
    with_model = build_batch_report(estimate_batch(project, as_of=AS_OF, model="gpt-5"))
    assert with_model.rows[0].model_id == "gpt-5"  # --model wins over the entry's set: model=


def test_an_error_in_an_entry_override_points_at_the_project_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path, SCENARIO, "s.yaml")
    write(
        tmp_path, "version: 1\nscenarios:\n  - path: s.yaml\n    set:\n      - limits.max_rnds=3\n", "p.yml"
    )
    with pytest.raises(InputError) as caught:
        batch_report_for_paths(["p.yml"], as_of=AS_OF)
    assert str(caught.value) == (
        "p.yml:5: scenarios[0].set[0]: limits.max_rnds=3: unknown key 'max_rnds' in limits (allowed:"
        " max_rounds, budget_usd, max_budget_usd, max_concurrent_subagents, max_tokens; did you mean 'max_rounds'?; set: applies to s.yaml)"
    )
    # the same mistake in a --set option names the option, as for a single scenario
    write(tmp_path, "version: 1\nscenarios:\n  - path: s.yaml\n", "p.yml")
    with pytest.raises(OverrideError) as option:
        batch_report_for_paths(["p.yml"], as_of=AS_OF, overrides=["limits.max_rnds=3"])
    assert str(option.value).startswith("s.yaml: --set limits.max_rnds=3: unknown key 'max_rnds'")


def test_scenario_files_without_a_project(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    report = batch_report_for_paths(["scenarios/bugfix.yaml", "scenarios/mcp-40-tools.yaml"], as_of=AS_OF)
    assert report.project is None and report.title == "2 scenarios"
    assert report.totals.cost_usd == BUGFIX_RUN + MCP_RUN
    assert report.totals.cost_per_day_usd is None and report.totals.cost_per_month_usd is None
    assert report.warnings == ()
    assert [g.name for g in batch_gates(report)] == ["budget", "context_window", "budget", "context_window"]
    text = render_text(report, Format.table, width=110)
    assert "per day" not in text and "$0.1656" in text  # no runs per day: no per day columns
    data = json.loads(render_text(report, Format.json))
    assert data["project"] is None and data["totals"]["cost_per_day_usd"] is None
    validate_json(data, wrapped_schema())


def test_runs_per_day_missing_for_some_scenarios_leaves_the_daily_totals_unknown(tmp_path: Path) -> None:
    write(tmp_path, SCENARIO, "s.yaml")
    project = write(
        tmp_path,
        "version: 1\nscenarios:\n  - path: s.yaml\n    runs_per_day: 10\n  - path: s.yaml\n",
        "p.yml",
    )
    report = batch_report_for_paths([project], as_of=AS_OF)
    first, second = report.rows
    assert first.cost_per_day_usd == first.cost_usd * 10 and second.cost_per_day_usd is None
    assert report.totals.cost_per_day_usd is None and report.totals.cost_per_month_usd is None
    assert report.warnings == (
        f"no runs_per_day for {tmp_path / 's.yaml'}: totals per day and per month are left out",
    )
    rows = list(csv.DictReader(io.StringIO(render_text(report, Format.csv))))
    assert Decimal(rows[0]["cost_per_day_usd"]) == first.cost_per_day_usd
    assert [r["cost_per_day_usd"] for r in rows[1:]] == ["", ""]


# ---------------------------------------------------------------------------------------------
# Output formats


def wrapped_schema() -> dict[str, Any]:
    """The batch kind inside the JSON envelope, as agentcost.render.schema publishes it."""
    return kind_schema("batch")


def test_json_matches_the_schema_and_carries_every_estimate(shipped: BatchReport) -> None:
    schema = wrapped_schema()  # validate_json checks it against the meta-schema first
    data = json.loads(render_text(shipped, Format.json, gates=batch_gates(shipped)))
    validate_json(data, schema)
    validate_json(data, report_schema())  # the published schema includes this kind
    assert list(data)[:3] == ["version", "kind", "project"] and data["kind"] == "batch"
    assert data["project"] == {
        "path": PROJECT,
        "name": "Support agents",
        "budget": {"limit_usd": "0.25", "source": "budget_usd", "over": False, "headroom_usd": "0.01970525"},
    }
    first = data["scenarios"][0]
    assert (
        first["cost_usd"],
        first["runs_per_day"],
        first["cost_per_day_usd"],
        first["cost_per_month_usd"],
    ) == (
        "0.0286497",
        "200",
        "5.72994",
        "171.8982",
    )
    assert data["scenarios"][1]["runs_per_day"] == "12.5"
    assert data["totals"]["cost_usd"] == "0.23029475"
    assert data["totals"]["cost_per_month_usd"] == "294.756375"
    assert data["estimates"] == [report_dict(r.report) for r in shipped.rows]
    assert sum(Decimal(s["cost_usd"]) for s in data["scenarios"]) == Decimal(data["totals"]["cost_usd"])
    assert len(data["gates"]) == 7


def test_markdown_golden(shipped: BatchReport, golden: GoldenCheck) -> None:
    text = render_text(shipped, Format.markdown)
    assert text.startswith("#### agentcost: Support agents\n")
    assert "**$0.2303** per run of 3 scenarios, **$9.8252** per day, **$294.7564** per 30-day month." in text
    golden("project.md", text)


def test_csv_parses_back_and_sums_exactly(shipped: BatchReport) -> None:
    rows = list(csv.DictReader(io.StringIO(render_text(shipped, Format.csv))))
    scenarios, total = rows[:-1], rows[-1]
    assert [r["scenario"] for r in scenarios] == [r.path for r in shipped.rows]
    assert [r["model"] for r in scenarios] == ["claude-sonnet-4-5", "gpt-5-mini", "gemini-2.5-pro"]
    assert [r["cost_per_day_usd"] for r in scenarios] == ["5.72994", "0.8089225", "3.28635"]
    assert total["scenario"] == "total" and total["name"] == "Support agents"
    assert (total["cost_usd"], total["budget_usd"], total["over_budget"]) == ("0.23029475", "0.25", "false")
    for column in ("cost_usd", "cost_per_day_usd", "cost_per_month_usd"):
        assert sum(Decimal(r[column]) for r in scenarios) == Decimal(total[column]), column
    for column in ("requests", "input_tokens", "output_tokens"):
        assert sum(int(r[column]) for r in scenarios) == int(total[column]), column
    assert [r["budget_usd"] for r in scenarios] == ["0.05", "1", "0.5"]
    assert [r["approximate"] for r in rows] == ["true", "false", "true", "true"]


def test_rich_table_fits_110_columns_without_cutting_figures(shipped: BatchReport) -> None:
    text = render_text(shipped, Format.table, width=110)
    assert "…" not in text
    assert max(len(line) for line in text.splitlines()) <= 110
    for figure in ("$0.0286", "$5.7299", "$171.8982", "12.5 runs", "$0.2303", "$9.8252", "$294.7564"):
        assert figure in text, figure
    assert "Research briefing (gpt-5-mini)" in text and "gpt-5-mini · 31 requests" in text
    assert (
        "Project budget $0.2500 for one run of every scenario (scenarios/agentcost.yml): within budget"
        in text
    )


def test_quiet_prints_the_total_of_one_run_of_every_scenario(shipped: BatchReport) -> None:
    assert quiet_total(shipped) == "0.23029475\n"


def test_an_empty_batch_is_refused() -> None:
    from agentcost.commands.batch import Batch
    from agentcost.scenario.project import Project

    with pytest.raises(InputError, match="no scenarios to estimate"):
        build_batch_report(Batch(Project(path=None, entries=()), ()))
