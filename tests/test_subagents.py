"""Subagents (issue 5): a tool call that runs another agent loop on its own model, whose final answer is
the call's result. Loading (files, inline, relative paths, depth, cycles), the hand-checked estimate,
the report tree in every format, the gates, and the shipped example."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from agentcost.cli import run
from agentcost.errors import InputError
from agentcost.loop.estimate import estimate
from agentcost.render.csvfmt import render_csv
from agentcost.render.jsonfmt import render_json
from agentcost.render.markdown import render_markdown
from agentcost.render.schema import report_schema
from agentcost.report.build import build_report
from agentcost.report.estimate import all_subagents
from agentcost.report.gates import estimate_gates
from agentcost.scenario.load import read_scenario
from agentcost.scenario.model import Content
from agentcost.scenario.subagents import MAX_SUBAGENT_DEPTH
from tests.conftest import validate_json

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)
ROOT = Path(__file__).resolve().parent.parent

# gpt-4o ($2.50 / $10 per MTok) hands one research call to a gpt-4o-mini researcher ($0.15 / $0.60).
PARENT = """\
version: 1
model: gpt-4o
caching: none
task: {tokens: 100}
rounds:
  - {tool: research, call_tokens: 20, subagent: {file: researcher.yaml}}
final: 200
"""  # the subagent: line 6

RESEARCHER = """\
version: 1
model: gpt-4o-mini
caching: none
task: {tokens: 60}
rounds:
  - {tool: search, call_tokens: 10, result: 500}
final: {tokens: 150}
"""

INLINE_PARENT = """\
version: 1
model: gpt-4o
caching: none
task: {tokens: 100}
rounds:
  - tool: research
    call_tokens: 20
    subagent:
      model: gpt-4o-mini
      caching: none
      task: {tokens: 60}
      rounds:
        - {tool: search, call_tokens: 10, result: 500}
      final: {tokens: 150}
final: 200
"""


def write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def rows(est: object) -> list[tuple[int, int, Decimal]]:
    ledger = est.ledger  # type: ignore[attr-defined]
    return [(r.usage.input_tokens, r.usage.output_tokens, r.cost.total_usd) for r in ledger.rows]


# ---------------------------------------------------------------------------------------------
# The estimate, by hand


def test_hand_computed_parent_and_subagent(tmp_path: Path) -> None:
    write(tmp_path, "researcher.yaml", RESEARCHER)
    est = estimate(write(tmp_path, "top.yaml", PARENT), as_of=AS_OF)
    # Subagent (gpt-4o-mini, OpenAI framing): task 3 + 1 ("user") + 60 = 64, +3 reply priming.
    # Its round: output = 1 ("search") + 10 + 9 = 20; echo 3 + 1 + 20 = 24;
    # result 3 + 1 ("tool") + 1 ("search") + 7 + 500 = 512. Final: 150 (no output framing on OpenAI).
    sub = est.subagents[(0, 0)]
    assert list(est.subagents) == [(0, 0)]
    assert sub.prices.model_id == "gpt-4o-mini"
    assert rows(sub) == [
        (67, 20, Decimal("0.00002205")),  # 67 x 0.15/M + 20 x 0.60/M
        (603, 150, Decimal("0.00018045")),  # 67 + 24 + 512 = 603
    ]
    assert sub.ledger.totals.cost_usd == Decimal("0.0002025")
    # Parent (gpt-4o): the call's result is the subagent's final answer, 150 tokens, with the
    # parent's tool-result framing: 3 + 1 ("tool") + 1 ("research") + 7 + 150 = 162.
    assert est.counts.rounds[0].result == 162
    assert est.counts.rounds[0].output == 30  # 1 ("research") + 20 + 9
    assert est.scenario.rounds[0].calls[0].result == Content(tokens=150)
    assert rows(est) == [
        (107, 30, Decimal("0.0005675")),  # 104 + 3; 107 x 2.5/M + 30 x 10/M
        (303, 200, Decimal("0.0027575")),  # 107 + 34 (echo) + 162
    ]
    assert est.ledger.totals.cost_usd == Decimal("0.003325")
    assert est.subagents_usd == Decimal("0.0002025")
    assert est.total_usd == Decimal("0.0035275")  # parent + subagent

    report = build_report(est)
    t = report.totals
    assert (t.requests, t.subagent_requests) == (4, 2)
    assert (t.input_tokens, t.output_tokens) == (107 + 303 + 67 + 603, 30 + 200 + 20 + 150)
    assert t.cost_usd == Decimal("0.0035275") and t.subagents_usd == Decimal("0.0002025")
    assert t.input_usd + t.output_usd == t.cost_usd
    first, final = report.requests
    (line,) = first.subagents
    assert (line.round, line.call, line.label, line.inline) == (0, 0, "researcher.yaml", False)
    assert (line.model_id, line.requests, line.cost_usd) == ("gpt-4o-mini", 2, Decimal("0.0002025"))
    assert line.text == "subagent researcher.yaml (gpt-4o-mini): 2 requests"
    # the running column includes each subagent from the request that started it
    assert first.running_usd == Decimal("0.0005675") + Decimal("0.0002025")
    assert final.running_usd == t.cost_usd and not final.subagents


def test_inline_subagent_costs_the_same_as_the_file(tmp_path: Path) -> None:
    est = estimate(write(tmp_path, "top.yaml", INLINE_PARENT), as_of=AS_OF)
    assert est.total_usd == Decimal("0.0035275")
    sub = est.subagents[(0, 0)]
    assert sub.scenario.path == tmp_path / "top.yaml"  # read from its parent's file
    assert (sub.scenario.model_line, est.scenario.rounds[0].calls[0].subagent_line) == (9, 8)
    (line,) = build_report(est).requests[0].subagents
    assert (line.label, line.inline) == ("inline", True)


def test_the_subagent_final_text_is_counted_with_the_parent_rules(tmp_path: Path) -> None:
    write(tmp_path, "researcher.yaml", RESEARCHER.replace("final: {tokens: 150}", "final: hello world"))
    est = estimate(write(tmp_path, "top.yaml", PARENT), as_of=AS_OF)
    assert est.scenario.rounds[0].calls[0].result == Content(text="hello world")
    assert est.counts.rounds[0].result == 3 + 1 + 1 + 7 + 2  # "hello world" is 2 o200k tokens


def test_a_repeated_round_runs_its_subagent_each_time(tmp_path: Path) -> None:
    write(tmp_path, "researcher.yaml", RESEARCHER)
    text = PARENT.replace(
        "subagent: {file: researcher.yaml}}", "subagent: {file: researcher.yaml}, repeat: 3}"
    )
    est = estimate(write(tmp_path, "top.yaml", text), as_of=AS_OF)
    assert list(est.subagents) == [(0, 0), (1, 0), (2, 0)]
    assert est.subagents_usd == 3 * Decimal("0.0002025")
    assert est.total_usd == est.ledger.totals.cost_usd + 3 * Decimal("0.0002025")
    assert [len(r.subagents) for r in build_report(est).requests] == [1, 1, 1, 0]


def test_rounds_past_max_rounds_start_no_subagent(tmp_path: Path) -> None:
    write(tmp_path, "researcher.yaml", RESEARCHER)
    text = PARENT.replace(
        "subagent: {file: researcher.yaml}}", "subagent: {file: researcher.yaml}, repeat: 3}"
    )
    est = estimate(write(tmp_path, "top.yaml", text + "limits: {max_rounds: 2}\n"), as_of=AS_OF)
    assert list(est.subagents) == [(0, 0), (1, 0)]


def test_parallel_calls_each_with_a_subagent(tmp_path: Path) -> None:
    write(tmp_path, "researcher.yaml", RESEARCHER)
    text = PARENT.replace(
        "  - {tool: research, call_tokens: 20, subagent: {file: researcher.yaml}}\n",
        "  - calls:\n"
        "      - {tool: research, call_tokens: 20, subagent: {file: researcher.yaml}}\n"
        "      - {tool: research, call_tokens: 20, subagent: {file: researcher.yaml}}\n",
    )
    est = estimate(write(tmp_path, "top.yaml", text), as_of=AS_OF)
    assert list(est.subagents) == [(0, 0), (0, 1)]
    assert est.counts.rounds[0].result == 2 * 162
    first = build_report(est).requests[0]
    assert [s.call for s in first.subagents] == [0, 1]


def test_set_overrides_apply_to_the_top_scenario_only(tmp_path: Path) -> None:
    write(tmp_path, "researcher.yaml", RESEARCHER)
    est = estimate(write(tmp_path, "top.yaml", PARENT), as_of=AS_OF, overrides=["model=gpt-4o-mini"])
    assert est.prices.model_id == "gpt-4o-mini"
    assert est.subagents[(0, 0)].scenario.model == "gpt-4o-mini"  # its own file's model
    est = estimate(write(tmp_path, "top.yaml", PARENT), as_of=AS_OF, model="gpt-5")
    assert est.subagents[(0, 0)].prices.model_id == "gpt-4o-mini"  # --model is the parent's too


def test_budget_counts_the_subagents(tmp_path: Path) -> None:
    write(tmp_path, "researcher.yaml", RESEARCHER)
    # parent alone 0.003325 fits in 0.0034; with the subagent (0.0035275) it does not
    est = estimate(write(tmp_path, "top.yaml", PARENT), as_of=AS_OF, budget_usd=Decimal("0.0034"))
    assert est.over_budget
    report = build_report(est)
    assert report.budget is not None and report.budget.headroom_usd == Decimal("0.0034") - Decimal(
        "0.0035275"
    )
    budget = next(g for g in estimate_gates(report) if g.name == "budget")
    assert budget.tripped


# ---------------------------------------------------------------------------------------------
# Loading: paths, nesting, cycles, errors


def test_paths_are_relative_to_the_file_that_names_them(tmp_path: Path) -> None:
    write(tmp_path, "agents/helper.yaml", RESEARCHER)
    write(tmp_path, "agents/tools.json", '[{"name": "search", "description": "s", "input_schema": {}}]')
    write(
        tmp_path,
        "agents/lead.yaml",
        RESEARCHER.replace("caching: none\n", "caching: none\ntools: [{file: tools.json}]\n").replace(
            "result: 500}", "subagent: {file: helper.yaml}}"
        ),
    )
    top = write(tmp_path, "top.yaml", PARENT.replace("researcher.yaml", "agents/lead.yaml"))
    s = read_scenario(top)
    lead = s.rounds[0].calls[0].subagent
    assert lead is not None and lead.path == tmp_path / "agents" / "lead.yaml"
    assert [t.name for t in lead.tools] == ["search"]
    helper = lead.rounds[0].calls[0].subagent
    assert helper is not None and helper.path == tmp_path / "agents" / "helper.yaml"
    est = estimate(top, as_of=AS_OF)
    nested = all_subagents(build_report(est))
    assert [n.label for n in nested] == ["agents/lead.yaml", "helper.yaml"]
    # the lead's total includes its own helper's
    lead_est = est.subagents[(0, 0)]
    assert lead_est.total_usd == lead_est.ledger.totals.cost_usd + Decimal("0.0002025")
    assert est.total_usd == est.ledger.totals.cost_usd + lead_est.total_usd


def chain(tmp_path: Path, levels: int) -> Path:
    """top.yaml -> s1.yaml -> ... -> s{levels}.yaml."""
    for n in range(1, levels + 1):
        text = RESEARCHER if n == levels else PARENT.replace("researcher.yaml", f"s{n + 1}.yaml")
        write(tmp_path, f"s{n}.yaml", text)
    return write(tmp_path, "top.yaml", PARENT.replace("researcher.yaml", "s1.yaml"))


def test_nesting_up_to_the_depth_limit(tmp_path: Path) -> None:
    assert MAX_SUBAGENT_DEPTH == 5
    est = estimate(chain(tmp_path, MAX_SUBAGENT_DEPTH), as_of=AS_OF)
    assert len(all_subagents(build_report(est))) == 5


def test_nesting_past_the_depth_limit(tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        read_scenario(chain(tmp_path, MAX_SUBAGENT_DEPTH + 1))
    err = caught.value
    assert (err.file, err.line, err.key) == (tmp_path / "s5.yaml", 6, "rounds[0].subagent")
    assert err.message.startswith("subagents nested more than 5 levels deep (")
    assert err.message.endswith("s4.yaml -> " + str(tmp_path / "s5.yaml") + ")")


def test_a_cycle_of_files_is_an_error_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "a.yaml", PARENT.replace("researcher.yaml", "b.yaml"))
    write(tmp_path, "b.yaml", PARENT.replace("researcher.yaml", "a.yaml"))
    with pytest.raises(InputError) as caught:
        read_scenario("a.yaml")
    assert str(caught.value) == (
        "b.yaml:6: rounds[0].subagent.file: subagent cycle: a.yaml -> b.yaml -> a.yaml"
        " (a subagent cannot run a scenario that is already running it; subagent file named at a.yaml:6)"
    )


def test_a_file_naming_itself_is_a_cycle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "a.yaml", PARENT.replace("researcher.yaml", "./a.yaml"))
    with pytest.raises(InputError, match=r"subagent cycle: a\.yaml -> a\.yaml \("):
        read_scenario("a.yaml")


def test_the_same_file_twice_is_not_a_cycle(tmp_path: Path) -> None:
    write(tmp_path, "researcher.yaml", RESEARCHER)
    write(tmp_path, "mid.yaml", PARENT)  # mid -> researcher
    text = PARENT + "".join([])  # top -> researcher, top -> mid -> researcher
    text = text.replace(
        "  - {tool: research, call_tokens: 20, subagent: {file: researcher.yaml}}\n",
        "  - {tool: research, call_tokens: 20, subagent: {file: researcher.yaml}}\n"
        "  - {tool: research, call_tokens: 20, subagent: {file: mid.yaml}}\n",
    )
    s = read_scenario(write(tmp_path, "top.yaml", text))
    assert [r.calls[0].subagent.path.name for r in s.rounds if r.calls[0].subagent] == [
        "researcher.yaml",
        "mid.yaml",
    ]


def test_an_error_inside_an_inline_subagent_points_at_its_line(tmp_path: Path) -> None:
    text = INLINE_PARENT.replace(
        "        - {tool: search, call_tokens: 10, result: 500}\n",
        "        - {tool: search, call_tokens: 10}\n",
    )
    with pytest.raises(InputError) as caught:
        read_scenario(write(tmp_path, "top.yaml", text))
    err = caught.value
    assert (err.file, err.line, err.key) == (tmp_path / "top.yaml", 13, "rounds[0].subagent.rounds[0]")
    assert "has no result" in err.message


def test_an_error_in_an_inline_subagent_inside_an_inline_subagent(tmp_path: Path) -> None:
    inner = (
        "        - tool: deeper\n"  # line 13
        "          call_tokens: 5\n"
        "          subagent:\n"
        "            model: gpt-4o-mini\n"
        "            task: 1\n"
        "            final: 1\n"
        "            rounds: [{tool: x, call_tokens: 1, subagent: {file: missing.yaml}}]\n"  # 19
    )
    text = INLINE_PARENT.replace("        - {tool: search, call_tokens: 10, result: 500}\n", inner)
    with pytest.raises(InputError) as caught:
        read_scenario(write(tmp_path, "top.yaml", text))
    err = caught.value
    assert (err.file, err.line) == (tmp_path / "top.yaml", 19)
    assert err.key == "rounds[0].subagent.rounds[0].subagent.rounds[0].subagent.file"
    assert err.message == f"cannot read {tmp_path / 'missing.yaml'}: file not found"


def test_an_unknown_key_in_an_inline_subagent(tmp_path: Path) -> None:
    text = INLINE_PARENT.replace("      caching: none\n", "      cachng: none\n")
    with pytest.raises(InputError) as caught:
        read_scenario(write(tmp_path, "top.yaml", text))
    err = caught.value
    assert (err.line, err.key, err.message) == (10, "rounds[0].subagent.cachng", "unknown key")
    assert err.hint is not None and "did you mean 'caching'?" in err.hint


def test_an_error_in_a_subagent_file_names_its_file_and_where_it_is_named(tmp_path: Path) -> None:
    write(tmp_path, "researcher.yaml", RESEARCHER.replace("model: gpt-4o-mini\n", ""))
    top = write(tmp_path, "top.yaml", PARENT)
    with pytest.raises(InputError) as caught:
        read_scenario(top)
    err = caught.value
    assert (err.file, err.key, err.message) == (
        tmp_path / "researcher.yaml",
        "model",
        "required key is missing",
    )
    assert err.hint is not None and f"subagent file named at {top}:6" in err.hint


def test_a_subagent_file_needs_a_version_an_inline_one_does_not(tmp_path: Path) -> None:
    write(tmp_path, "researcher.yaml", RESEARCHER.replace("version: 1\n", ""))
    with pytest.raises(InputError, match="version: required key is missing"):
        read_scenario(write(tmp_path, "top.yaml", PARENT))
    with pytest.raises(
        InputError,
        match=r"inline\.yaml:9: rounds\[0\]\.subagent\.version: unsupported version 2 \(supported: 1\)",
    ):
        read_scenario(
            write(
                tmp_path,
                "inline.yaml",
                INLINE_PARENT.replace(
                    "      model: gpt-4o-mini\n", "      version: 2\n      model: gpt-4o-mini\n"
                ),
            )
        )


def test_an_unknown_subagent_model_names_the_subagent_file(tmp_path: Path) -> None:
    write(tmp_path, "researcher.yaml", RESEARCHER.replace("gpt-4o-mini", "no-such-model-x"))
    with pytest.raises(InputError) as caught:
        estimate(write(tmp_path, "top.yaml", PARENT), as_of=AS_OF)
    assert (caught.value.file, caught.value.line) == (tmp_path / "researcher.yaml", 2)


# ---------------------------------------------------------------------------------------------
# The report tree and the gates


def test_table_markdown_and_json_show_the_tree(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, fixed_terminal: None
) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "researcher.yaml", RESEARCHER)
    write(tmp_path, "top.yaml", PARENT)
    report = build_report(estimate("top.yaml", as_of=AS_OF))
    md = render_markdown(report)
    assert "| 1 | research | 107 | 0 | 0 | 30 | $0.0006 | $0.0008 |" in md
    assert (
        "|  | ↳ subagent researcher.yaml (gpt-4o-mini): 2 requests | 670 | 0 | 0 | 170 | $0.0002 |  |" in md
    )
    assert "Subagents: 1 run (gpt-4o-mini), 2 of the 4 requests, $0.0002 of the total;" in md

    assert run(["estimate", "top.yaml", "--as-of", "2026-11-30", "--verbose"]) == 0
    out = capsys.readouterr().out
    assert "↳ subagent researcher.yaml" in out and "total (4 requests)" in out
    assert "Subagents: 1 run (gpt-4o-mini), 2 of the 4 requests, $0.0002 of the total" in out

    data = json.loads(render_json(report))
    validate_json(data, report_schema())
    (sub,) = data["requests"][0]["subagents"]
    assert {k: sub[k] for k in ("path", "label", "inline", "call", "model", "requests", "cost_usd")} == {
        "path": "researcher.yaml",
        "label": "researcher.yaml",
        "inline": False,
        "call": 0,
        "model": "gpt-4o-mini",
        "requests": 2,
        "cost_usd": "0.0002025",
    }
    assert sub["estimate"]["totals"]["cost_usd"] == "0.0002025"
    assert [r["input_tokens"] for r in sub["estimate"]["requests"]] == [67, 603]
    assert data["totals"]["cost_usd"] == "0.0035275"
    assert (data["totals"]["subagents_usd"], data["totals"]["subagent_requests"]) == ("0.0002025", 2)
    assert data["requests"][1]["subagents"] == []

    assert render_csv(report).splitlines()[1:] == [
        "top.yaml,gpt-4o,1,tool_use,research,107,0,0,30,0.0005675,0.00077,o200k_base",
        "researcher.yaml,gpt-4o-mini,1,subagent,researcher.yaml,670,0,0,170,0.0002025,,o200k_base",
        "top.yaml,gpt-4o,2,final,,303,0,0,200,0.0027575,0.0035275,o200k_base",
        "top.yaml,gpt-4o,total,,,1080,0,0,400,0.0035275,,o200k_base",
    ]


def test_a_subagent_over_its_context_window_trips_the_gate(
    tmp_path: Path, no_ctok: None, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    big = RESEARCHER.replace("gpt-4o-mini", "claude-haiku-4-5").replace("{tokens: 60}", "{tokens: 250000}")
    write(tmp_path, "researcher.yaml", big)
    write(tmp_path, "top.yaml", PARENT)
    report = build_report(estimate("top.yaml", as_of=AS_OF))
    assert report.max_input_tokens == 303  # the parent's own requests are small
    gate = next(g for g in estimate_gates(report) if g.name == "context_window")
    assert gate.tripped
    assert gate.message.startswith("subagent researcher.yaml of top.yaml: researcher.yaml: largest request 2")
    assert "claude-haiku-4-5 context window 200,000" in gate.message
    assert (gate.file, gate.line) == ("researcher.yaml", 2)
    assert any(w.startswith("subagent researcher.yaml: largest request") for w in report.warnings)
    assert run(["estimate", "top.yaml", "--as-of", "2026-11-30"]) == 1


# ---------------------------------------------------------------------------------------------
# The shipped example


def test_shipped_example(monkeypatch: pytest.MonkeyPatch, no_ctok: None) -> None:
    monkeypatch.chdir(ROOT)
    est = estimate("scenarios/subagent-research.yaml", as_of=AS_OF)
    assert est.prices.model_id == "claude-sonnet-4-5"
    assert sorted(est.subagents) == [(0, 0), (1, 0), (2, 0), (3, 0)]
    researcher = est.subagents[(0, 0)]
    assert researcher.scenario.path == Path("scenarios/subagents/researcher.yaml")
    assert researcher.prices.model_id == "claude-haiku-4-5"
    assert len(researcher.scenario.tools) == 2  # ../research/tools.json, relative to its own file
    checker = est.subagents[(3, 0)]
    assert checker.scenario.name == "Fact checker" and checker.scenario.path == Path(
        "scenarios/subagent-research.yaml"
    )
    # each research call's result is the researcher's 450-token summary, never its pages
    assert all(est.scenario.rounds[i].calls[0].result == Content(tokens=450) for i in range(3))
    report = build_report(est)
    assert report.totals.cost_usd == est.ledger.totals.cost_usd + sum(
        (s.total_usd for s in est.subagents.values()), Decimal(0)
    )
    assert report.totals.requests == 5 + 3 * 5 + 3
    assert not report.over_budget
    assert not any(g.tripped for g in estimate_gates(report))
