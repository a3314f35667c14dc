"""Every shipped example under scenarios/ loads, estimates, renders and validates against the JSON
schema; the examples of agent dynamics (issue 5) show their mechanism, with figures checked by hand.

Rates are genai-prices 0.2.3's on 2026-11-30 (pricing-facts.md §A.0): claude-sonnet-4-5 and
claude-sonnet-4-6 $3 input, $3.75 5-minute cache write, $0.30 read, $15 output per MTok;
claude-haiku-4-5 $1 / $1.25 / $0.10 / $5. Claude counts use the o200k_base x ratio path
(``no_ctok``). Anthropic framing (agentcost.tokens.count): a user message of tool results is 3 tokens +
20 per tool_result block + the bodies.
"""

from __future__ import annotations

import functools
import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from rich.console import Console

from agentcost.loop.estimate import Estimate, estimate
from agentcost.render.jsonfmt import envelope, report_dict
from agentcost.render.markdown import render_markdown
from agentcost.render.schema import report_schema
from agentcost.render.table import render_table
from agentcost.report.build import build_report
from agentcost.tokens.context import TOOL_SEARCH_TOOL_TOKENS
from agentcost.tokens.memo import count_text

pytestmark = pytest.mark.usefixtures("no_ctok")

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)
MILLION = Decimal(1_000_000)
SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"
EXAMPLES = sorted(SCENARIOS.glob("*.yaml"))
SCENARIO_SCHEMA = SCENARIOS.parent / "docs" / "scenario.schema.json"
HAIKU = "claude-haiku-4-5"


def run(name: str, *overrides: str) -> Estimate:
    return estimate(SCENARIOS / name, as_of=AS_OF, overrides=overrides)


def usd(rate: str, tokens: int) -> Decimal:
    return Decimal(rate) * tokens / MILLION


@functools.cache
def scenario_validator() -> Any:
    """A validator of docs/scenario.schema.json, the schema itself checked once (not per example)."""
    schema = json.loads(SCENARIO_SCHEMA.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def test_the_new_examples_are_shipped() -> None:
    names = {p.name for p in EXAMPLES}
    assert {"parallel-retries.yaml", "routing.yaml", "long-run-context.yaml"} <= names


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_example_estimates_renders_and_validates(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.splitlines()[0] == "# yaml-language-server: $schema=../docs/scenario.schema.json"
    # what an editor checks with that schema
    scenario_validator().validate(yaml.safe_load(text))
    est = estimate(path, as_of=AS_OF)
    assert est.total_usd > 0 and not est.over_budget
    assert est.ledger.budget_stop is None and not est.ledger.truncated
    report = build_report(est)
    data = json.loads(json.dumps(envelope("estimate", report_dict(report))))
    # the report schema is checked against its meta-schema once, in tests/test_output.py
    jsonschema.Draft202012Validator(report_schema()).validate(data)
    assert Decimal(data["totals"]["cost_usd"]) == est.total_usd
    markdown = render_markdown(report)
    assert markdown.startswith("#### agentcost: ")
    console = Console(width=120, record=True, color_system=None)
    console.print(render_table(report))
    assert "total (" in console.export_text()


# --- scenarios/parallel-retries.yaml -------------------------------------------------------------


def test_parallel_retries_by_hand() -> None:
    est = run("parallel-retries.yaml")
    rows, counts = est.ledger.rows, est.counts
    assert len(rows) == 8
    # one response with three Read calls (round 1)
    assert [r.tools for r in rows if len(r.tools) > 1] == [("Read", "Read", "Read")]
    three = counts.rounds[1]
    orders = count_text((SCENARIOS / "bugfix/orders.py").read_text(encoding="utf-8"))
    tests = count_text((SCENARIOS / "bugfix/test_orders.py").read_text(encoding="utf-8"))
    assert (orders, tests) == (422, 281)  # o200k_base
    # Python source is not JSON, so it counts as prose: ceil(o200k x 1.06) = 448 and 298;
    # app/money.py is 420 tokens as given; 3 + 11 per tool_result block
    assert three.result == 3 + 3 * 11 + 448 + 298 + 420 == 1202
    # share 0.1 of 6 tool rounds = 0.6 -> 1 failed attempt, before the last round (git diff)
    [failed] = [r for r in rows if r.failed]
    assert (failed.index, failed.round, failed.tools) == (6, None, ("Bash",))
    assert rows[failed.index].round == 5  # the round it retries comes right after
    assert [r.result for r in counts.rounds if r.failed] == [3 + 11 + 60]  # the 60-token error
    # trim: the 5,200-token verbose test log goes back as 2,000 tokens
    assert counts.rounds[4].result == 3 + 11 + 2000
    assert rows[5].usage.input_tokens - rows[4].usage.input_tokens == counts.rounds[4].echo + 2014
    # the failed attempt's own cost: 4 uncached + 3,092 read + 2,086 written + 51 output
    u = failed.usage
    assert (u.input_tokens, u.cache_read_tokens, u.cache_write_tokens, u.output_tokens) == (
        5182,
        3092,
        2086,
        51,
    )
    by_hand = usd("3", 4) + usd("0.30", 3092) + usd("3.75", 2086) + usd("15", 51)
    assert failed.cost.total_usd == by_hand == Decimal("0.0095271")
    t = est.ledger.totals
    assert (t.failed_requests, t.failed_usd) == (1, by_hand)
    assert est.total_usd == Decimal("0.03765135")
    assert est.dynamics is not None
    assert est.dynamics.sequential_usd == Decimal("0.03900405")  # the three reads one per round
    assert est.dynamics.parallel_saving_usd == Decimal("0.00135270")
    # limits.max_budget_usd 0.10 is never reached
    assert est.ledger.budget_stop is None and est.total_usd < Decimal("0.10")


def test_parallel_retries_would_stop_at_a_lower_budget() -> None:
    # as the file's comment says: at $0.02 the agent stops after request 5 (the test-suite run)
    est = run("parallel-retries.yaml", "limits.max_budget_usd=0.02")
    assert est.ledger.budget_stop == 5 and est.ledger.rounds_run == 5
    assert [r.tools for r in est.ledger.rows[-2:]] == [("Edit",), ("Bash",)]
    assert est.ledger.rows[3].running_usd <= Decimal("0.02") < est.ledger.rows[4].running_usd
    assert est.total_usd == Decimal("0.02183220")
    md = render_markdown(build_report(est))
    assert "run stopped by limits.max_budget_usd (0.02 USD) after request 5: 5 of 6 rounds" in md


def test_parallel_retries_report_lines() -> None:
    report = build_report(run("parallel-retries.yaml"))
    md = render_markdown(report)
    assert "Parallel calls: saves $0.0014 against the same calls made one per round ($0.0390)." in md
    assert "Retries: 1 failed attempt (invalid call + error result) cost $0.0095, 25.3%" in md
    data = report_dict(report)
    parallel = data["agent_dynamics"]["parallel"]
    assert Decimal(parallel["sequential_usd"]) == Decimal("0.03900405")
    assert Decimal(parallel["saving_usd"]) == Decimal("0.0013527")
    assert data["agent_dynamics"]["retries"]["failed_requests"] == 1


# --- scenarios/routing.yaml ----------------------------------------------------------------------


def test_routing_example() -> None:
    est = run("routing.yaml")
    rows = est.ledger.rows
    assert len(rows) == 18
    # rounds 2..16 (requests 3..17) run on Haiku; the first two and the final answer on Sonnet
    assert [r.index for r in rows if r.model == HAIKU] == list(range(3, 18))
    assert all(r.model is None for r in rows if r.index in (1, 2, 18))
    # each switch starts from an empty cache: the first Haiku request reads nothing (and, under
    # Haiku 4.5's 4,096-token minimum, writes nothing); the final answer writes its whole prompt
    assert (rows[2].usage.cache_read_tokens, rows[2].cache_write_total) == (0, 0)
    final = rows[-1]
    assert final.usage.cache_read_tokens == 0
    assert final.cache_write_total == final.usage.input_tokens - 4  # all but the uncached tail
    # the first Haiku request is priced at Haiku's rates, uncached
    u = rows[2].usage
    assert rows[2].cost.total_usd == usd("1", u.input_tokens) + usd("5", u.output_tokens)
    d = est.dynamics
    assert d is not None and d.sequential_usd is None
    assert d.baselines == (
        ("claude-sonnet-4-5", Decimal("0.15231375")),
        (HAIKU, Decimal("0.06024105")),
    )
    assert est.total_usd == Decimal("0.13112540")
    assert d.baselines[1][1] < est.total_usd < d.baselines[0][1]  # routing saves against all-Sonnet
    md = render_markdown(build_report(est))
    assert "Routing: $0.1311 routed; all on claude-sonnet-4-5 $0.1523, all on claude-haiku-4-5 $0.0602" in md


# --- scenarios/long-run-context.yaml -------------------------------------------------------------


def test_long_run_context_example() -> None:
    est = run("long-run-context.yaml")
    rows = est.ledger.rows
    assert est.ledger.rounds_run == 40 and len(rows) == 40 + 5 + 1  # + 5 tool searches + final
    searches = [r.index for r in rows if r.tools == ("tool_search",)]
    assert searches == [1, 3, 31, 38, 41]  # before the first call of each of the 5 MCP tools used
    assert all(rows[i - 1].round is None for i in searches)
    t = est.tool_search
    assert t is not None
    assert t.loaded == (
        "list_workflow_runs",
        "get_job_logs",
        "search_issues",
        "add_issue_comment",
        "create_issue",
    )
    assert len(t.deferred) == 40 and t.searches == 5
    assert t.prefix_tokens == 40 * 9 + TOOL_SEARCH_TOOL_TOKENS == 480
    assert (t.cost_usd, t.baseline_usd) == (Decimal("1.08908340"), Decimal("1.14841725"))
    e = est.context_editing
    assert e is not None
    assert [r.index for r in rows if r.cleared_results] == [13, 22]
    assert (e.edits, e.results_cleared, e.tokens_cleared) == (2, 15, 79_850)
    assert (e.cost_usd, e.baseline_usd) == (Decimal("1.08908340"), Decimal("1.68235095"))
    # the request after a clearing reads the cache only up to the first cleared result
    first = rows[12]
    assert first.usage.cache_read_tokens < rows[11].usage.cache_read_tokens
    assert est.total_usd == Decimal("1.08908340")
    md = render_markdown(build_report(est))
    assert "Context editing: cleared 15 tool results (79,850 tokens) before 2 requests;" in md
    assert "saves $0.5933 against no editing ($1.6824)." in md
    assert "Deferred tools: 40 tools cost 480 prefix tokens (stubs + the tool-search tool) instead of" in md
    assert "saves $0.0593 against loading every tool up front ($1.1484)." in md


def test_rows_say_which_request_failed_and_which_model_a_routed_one_ran_on(no_ctok: None) -> None:
    from datetime import UTC, datetime

    from agentcost.loop.estimate import estimate
    from agentcost.report.build import build_report

    as_of = datetime(2026, 11, 30, tzinfo=UTC)
    retried = build_report(estimate(SCENARIOS / "parallel-retries.yaml", as_of=as_of))
    failed = [r for r in retried.requests if r.failed]
    assert failed and all(r.label.endswith("(failed, retried)") for r in failed)
    routed = build_report(estimate(SCENARIOS / "routing.yaml", as_of=as_of))
    on_haiku = [r for r in routed.requests if r.model is not None]
    assert on_haiku and {r.model for r in on_haiku} == {"claude-haiku-4-5"}
    assert all("[claude-haiku-4-5]" in r.label for r in on_haiku)
