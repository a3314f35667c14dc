"""Insights (``agentcost estimate --explain``): the six checks, and every lever verified by applying
its one change to the scenario and estimating again.

Prices are genai-prices' list prices on 2026-11-30: claude-sonnet-4-5 $3 input, $3.75 5-minute write,
$6 1-hour write, $0.30 read, $15 output per MTok. Amounts in comments are in micro-dollars (µ$).
"""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from agentcost.cli import run
from agentcost.errors import InputError
from agentcost.loop.estimate import Estimate, estimate_scenario
from agentcost.loop.insights import (
    TOP_LEVERS,
    Insights,
    Lever,
    _candidates,
    cheaper_sibling,
    checks,
    explain,
    percentile_75,
    ran_rounds,
)
from agentcost.render.output import Format, render_text
from agentcost.render.schema import report_schema
from agentcost.report.build import build_report
from agentcost.report.sections import ExplainedReport
from agentcost.scenario.load import read_scenario as load_scenario
from agentcost.scenario.model import ResultTrim, Retries, Scenario
from tests.conftest import validate_json

pytestmark = pytest.mark.usefixtures("no_ctok")

ROOT = Path(__file__).resolve().parent.parent
AS_OF = datetime(2026, 11, 30, tzinfo=UTC)
SHIPPED = sorted((ROOT / "scenarios").glob("*.yaml"))

# A slow loop: every round takes 400 s, longer than the 5-minute cache TTL and shorter than 1 h.
PACED = """\
version: 1
model: claude-sonnet-4-5
system: {tokens: 5000}
task: {tokens: 100}
pacing: {round_seconds: 400}
rounds:
  - {tool: Bash, call_tokens: 40, result: {tokens: 900}}
  - {tool: Bash, call_tokens: 40, result: {tokens: 900}}
final: {tokens: 200}
"""

# Prefix caching only, thinking kept, four tools of which two are never called, results of uneven size.
CRAFTED = """\
version: 1
model: claude-sonnet-4-5
system: {tokens: 3000}
caching: prefix
thinking_retention: keep
tools:
  - {name: search, description: Search the code base for a pattern., input_schema: {type: object}}
  - {name: read, description: Read one file and return its contents., input_schema: {type: object}}
  - {name: deploy, description: Deploy the service to production now., input_schema: {type: object}}
  - {name: page, description: Page the engineer who is on call today., input_schema: {type: object}}
task: {tokens: 200}
rounds:
  - {tool: search, call_tokens: 30, result: {tokens: 400}, thinking: 300}
  - {tool: read, call_tokens: 30, result: {tokens: 6000}, thinking: 500}
  - {tool: read, call_tokens: 30, result: {tokens: 1500}, thinking: 200}
  - {tool: search, call_tokens: 30, result: {tokens: 300}, thinking: 100}
final: {tokens: 400}
"""


def write(tmp_path: Path, text: str, name: str = "s.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def total(scenario: Scenario, **options: Any) -> Decimal:
    return estimate_scenario(scenario, as_of=AS_OF, **options).total_usd


# --- every lever, verified by applying its change independently ----------------------------------


SIBLINGS = {  # the small model of each family used here (docs/insights.md)
    "claude-sonnet-4-5": "claude-haiku-4-5",
    "claude-opus-4-5": "claude-haiku-4-5",
    "gpt-5": "gpt-5-mini",
    "gemini-2.5-pro": "gemini-2.5-flash",
}


def apply(name: str, est: Estimate, lever: Lever) -> Scenario:
    """The lever's change, made here from its name (not taken from the lever), on the base scenario."""
    s = est.scenario
    replace = dataclasses.replace
    if name == "caching_conversation":
        return replace(s, caching="conversation")
    if name == "caching_explicit":
        return replace(s, caching="explicit")
    if name == "cache_ttl_1h":
        return replace(s, cache_ttl="1h")
    if name == "cache_ttl_5m":
        return replace(s, cache_ttl="5m")
    if name == "service_tier_batch":
        return replace(s, service_tier="batch")
    if name == "thinking_drop":
        return replace(s, thinking_retention="drop")
    if name == "no_retries":
        return replace(s, retries=Retries())
    if name == "defer_unused_tools":
        called = {c.tool for r in s.rounds for c in r.calls}
        tools = tuple(replace(t, defer_loading=t.defer_loading or t.name not in called) for t in s.tools)
        return replace(s, tools=tools)
    if name == "trim_results":
        sizes = sorted(r.result for r in est.counts.rounds if not (r.reply or r.inserted) and r.result > 0)
        cap = sizes[-(-len(sizes) * 3 // 4) - 1]  # nearest rank: ceil(0.75 n)-th smallest
        return replace(s, trim=ResultTrim(max_tokens=cap))
    if name == "keep_last_results":  # the last 3 results kept in full, any result cap kept
        return replace(
            s, trim=ResultTrim(max_tokens=None if s.trim is None else s.trim.max_tokens, keep_last=3)
        )
    if name == "route_small_rounds":
        small = SIBLINGS[est.prices.model_id]
        own = [r for r in est.counts.rounds if not r.inserted]  # one per scenario round
        outputs = sorted((r.output, i) for i, r in enumerate(own) if not r.reply)
        picked = {i for _, i in outputs[: len(outputs) // 2]}
        return replace(
            s,
            rounds=tuple(replace(r, model=small) if i in picked else r for i, r in enumerate(s.rounds)),
        )
    raise AssertionError(f"a lever without a test: {name}")


def verify(est: Estimate, insights: Insights, **options: Any) -> None:
    """Every lever shown: its cost is a fresh estimate of the base scenario with its one change, and
    saved = base - cost > 0; the biggest saving first (top 5, and the batch lever, a different
    product, ranked among them by its saving: issue 30)."""
    base = est.total_usd  # subagents included
    assert insights.base_usd == base
    for lever in insights.levers:
        changed = apply(lever.name, est, lever)
        assert changed == lever.scenario, lever.name
        tier = {"service_tier": None} if lever.name == "service_tier_batch" else {}
        cost = total(changed, **{**options, **tier})
        assert lever.cost_usd == cost, lever.name
        assert lever.saved_usd == base - cost > 0, lever.name
        assert lever.saved_fraction == lever.saved_usd / base
    regular = [lv for lv in insights.levers if lv.tradeoff is None]
    assert len(regular) <= TOP_LEVERS
    saved = [lv.saved_usd for lv in insights.levers]
    assert saved == sorted(saved, reverse=True)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_every_lever_of_the_shipped_scenarios_is_a_fresh_estimate(path: Path) -> None:
    est = estimate_scenario(load_scenario(path), as_of=AS_OF)
    insights = explain(est)
    verify(est, insights)
    assert insights.levers  # every shipped model offers batch at least


def test_every_lever_of_a_crafted_scenario_is_a_fresh_estimate(tmp_path: Path) -> None:
    est = estimate_scenario(load_scenario(write(tmp_path, CRAFTED)), as_of=AS_OF)
    insights = explain(est)
    verify(est, insights)
    names = [lv.name for lv in insights.levers]
    # prefix -> conversation caching and dropping the kept thinking both save; batch halves the run:
    # the biggest saving, first (it came last, after smaller savings, until issue 30)
    assert {"caching_conversation", "thinking_drop"} <= set(names)
    assert names[0] == "service_tier_batch"


def test_levers_are_priced_with_the_same_options_as_the_estimate(tmp_path: Path) -> None:
    scenario = load_scenario(write(tmp_path, CRAFTED))
    est = estimate_scenario(scenario, as_of=AS_OF, model="gpt-5")
    insights = explain(est)
    verify(est, insights, model="gpt-5")
    assert insights.base_usd == total(scenario, model="gpt-5")
    # --service-tier fixes the tier for the run: no batch lever then
    flex = estimate_scenario(scenario, as_of=AS_OF, model="gpt-5", service_tier="flex")
    found = explain(flex)
    verify(flex, found, model="gpt-5", service_tier="flex")
    assert "service_tier_batch" not in [lv.name for lv in found.levers]


def test_a_lever_of_a_one_hour_ttl_by_hand(tmp_path: Path) -> None:
    est = estimate_scenario(load_scenario(write(tmp_path, PACED)), as_of=AS_OF)
    rows = [
        (r.usage.input_tokens, r.usage.cache_write_tokens, r.usage.output_tokens) for r in est.ledger.rows
    ]
    # each request finds its 5-minute entries expired (400 s > 300 s) and writes all but the 4 framing
    # tokens after the last breakpoint again
    assert rows == [(5_107, 5_103, 83), (6_104, 6_100, 83), (7_101, 7_097, 203)]
    # 5m: 1: 5,103 x 3.75 = 19,136.25 + 4 x 3 = 12 + 83 x 15 = 1,245 -> 20,393.25
    #     2: 6,100 x 3.75 = 22,875 + 12 + 1,245 -> 24,132
    #     3: 7,097 x 3.75 = 26,613.75 + 12 + 203 x 15 = 3,045 -> 29,670.75; total 74,196 µ$
    assert est.ledger.totals.cost_usd == Decimal("0.074196")
    # 1h: 1: 5,103 x 6 = 30,618 + 12 + 1,245 -> 31,875
    #     2: read 5,103 x 0.30 = 1,530.9 + write 997 x 6 = 5,982 + 12 + 1,245 -> 8,769.9
    #     3: read 6,100 x 0.30 = 1,830 + 5,982 + 12 + 3,045 -> 10,869; total 51,513.9 µ$
    [ttl] = [lv for lv in explain(est).levers if lv.name == "cache_ttl_1h"]
    assert ttl.cost_usd == Decimal("0.0515139")
    assert ttl.saved_usd == Decimal("0.0226821")  # 74,196 - 51,513.9 µ$
    assert ttl.description == "1h cache TTL instead of 5m"


def test_five_minutes_instead_of_one_hour_on_a_fast_loop(tmp_path: Path) -> None:
    fast = PACED.replace("round_seconds: 400", "round_seconds: 20") + "cache_ttl: 1h\n"
    est = estimate_scenario(load_scenario(write(tmp_path, fast)), as_of=AS_OF)
    insights = explain(est)
    verify(est, insights)
    assert (
        next(lv for lv in insights.levers if lv.tradeoff is None).name == "cache_ttl_5m"
    )  # nothing expires: 1h writes only cost more


def test_turning_caching_on(tmp_path: Path) -> None:
    est = estimate_scenario(
        load_scenario(write(tmp_path, PACED + "caching: none\n"), overrides=["pacing="]), as_of=AS_OF
    )
    insights = explain(est)
    verify(est, insights)
    best = next(lv for lv in insights.levers if lv.tradeoff is None)
    assert (best.name, best.description) == ("caching_conversation", "turn on conversation caching")


# --- candidates that the estimator may not price yet: built right, shown only when they save --------


def changed_fields(a: Scenario, b: Scenario) -> list[str]:
    return [f.name for f in dataclasses.fields(Scenario) if getattr(a, f.name) != getattr(b, f.name)]


def test_every_candidate_is_one_change(tmp_path: Path) -> None:
    est = estimate_scenario(load_scenario(write(tmp_path, CRAFTED)), as_of=AS_OF)
    found = {c.name: c for c in _candidates(est)}
    assert set(found) == {
        "caching_conversation",
        "cache_ttl_1h",
        "defer_unused_tools",
        "trim_results",
        "keep_last_results",  # 4 results, history over half of the input
        "route_small_rounds",
        "thinking_drop",
    }
    fields = {name: changed_fields(est.scenario, c.scenario) for name, c in found.items()}
    assert fields == {
        "caching_conversation": ["caching"],
        "cache_ttl_1h": ["cache_ttl"],
        "defer_unused_tools": ["tools"],
        "trim_results": ["trim"],
        "keep_last_results": ["trim"],
        "route_small_rounds": ["rounds"],
        "thinking_drop": ["thinking_retention"],
    }
    deferred = [t.name for t in found["defer_unused_tools"].scenario.tools if t.defer_loading]
    assert (
        deferred == ["deploy", "page"] and found["defer_unused_tools"].description == "defer 2 unused tools"
    )
    # results (framing included) sorted: the 75th percentile is the 3rd of 4
    sizes = sorted(r.result for r in est.counts.rounds)
    trim = found["trim_results"].scenario.trim
    assert trim is not None and trim.max_tokens == sizes[2] and trim.keep_last is None
    # the two rounds with the least output go to the family's small model
    routed = [r.model for r in found["route_small_rounds"].scenario.rounds]
    assert routed == [None, None, "claude-haiku-4-5", "claude-haiku-4-5"]


def test_levers_the_estimator_does_not_price_yet_are_not_shown(tmp_path: Path) -> None:
    est = estimate_scenario(load_scenario(write(tmp_path, CRAFTED)), as_of=AS_OF)
    shown = {lv.name for lv in explain(est).levers}
    for candidate in _candidates(est):
        saves = total(candidate.scenario) < est.total_usd
        assert (candidate.name in shown) == saves, candidate.name


def test_percentile_75_by_nearest_rank() -> None:
    assert percentile_75([10]) == 10
    assert percentile_75([4, 1, 3, 2]) == 3
    assert percentile_75([1, 2, 3, 4, 5]) == 4
    assert percentile_75(list(range(1, 101))) == 75


def test_cheaper_sibling_is_the_small_model_of_the_family(tmp_path: Path) -> None:
    scenario = load_scenario(write(tmp_path, CRAFTED))
    siblings = {
        model: cheaper_sibling(estimate_scenario(scenario, as_of=AS_OF, model=model))
        for model in (
            "claude-sonnet-4-5",
            "claude-opus-4-5",
            "claude-haiku-4-5",
            "gpt-5",
            "gpt-5-mini",
            "gemini-2.5-pro",
        )
    }
    assert siblings == {
        "claude-sonnet-4-5": "claude-haiku-4-5",
        "claude-opus-4-5": "claude-haiku-4-5",
        "claude-haiku-4-5": None,
        "gpt-5": "gpt-5-mini",
        "gpt-5-mini": None,
        "gemini-2.5-pro": "gemini-2.5-flash",
    }


# --- the checks ------------------------------------------------------------------------------------


def test_the_six_checks(tmp_path: Path) -> None:
    est = estimate_scenario(load_scenario(write(tmp_path, CRAFTED)), as_of=AS_OF)
    c = checks(est)
    t = est.ledger.totals
    assert (c.requests, c.tool_rounds, c.chat_turns) == (5, 4, 0)
    assert c.definition_tokens == est.counts.tools > 0
    assert c.definition_share == Decimal(est.counts.tools * 5) / Decimal(t.input_tokens)
    r = est.counts.rounds
    assert [(x.tool, x.calls, x.tokens) for x in c.result_tokens] == [
        ("read", 2, r[1].result + r[2].result),
        ("search", 2, r[0].result + r[3].result),
    ]
    assert c.fees_usd == 0
    assert c.retry_usd == 0 and c.retry_share == 0 and c.retry_note == "no retries modelled"
    assert c.tool_searches == 0 and c.failed_attempts == 0
    assert c.cached_share == Decimal(t.cache_read_tokens) / Decimal(t.input_tokens)


def test_server_tool_fees_are_a_check(tmp_path: Path) -> None:
    searching = CRAFTED.replace(
        "thinking: 100}", "thinking: 100, server_tools: [{tool: web_search, uses: 3, result: 2400}]}"
    )
    est = estimate_scenario(load_scenario(write(tmp_path, searching)), as_of=AS_OF)
    # Anthropic web search: $10 per 1,000 searches -> 3 x $0.01
    assert checks(est).fees_usd == est.ledger.totals.fees_usd == Decimal("0.03")
    verify(est, explain(est))


# --- output ------------------------------------------------------------------------------------------


def explained(tmp_path: Path, text: str) -> ExplainedReport:
    est = estimate_scenario(load_scenario(write(tmp_path, text)), as_of=AS_OF)
    return ExplainedReport(build_report(est), explain(est))


def test_json_has_an_insights_object_and_matches_the_schema(tmp_path: Path) -> None:
    report = explained(tmp_path, PACED)
    data = json.loads(render_text(report, Format.json))
    validate_json(data, report_schema())
    assert data["kind"] == "estimate" and data["totals"]["cost_usd"] == "0.074196"
    insights = data["insights"]
    assert insights["checks"]["requests"] == 3 and insights["checks"]["retry_note"] == "no retries modelled"
    # batch halves the run, the biggest saving: first (issue 30), then the 1h TTL
    assert [lv["name"] for lv in insights["levers"]][:2] == ["service_tier_batch", "cache_ttl_1h"]
    assert insights["levers"][1] == {
        "name": "cache_ttl_1h",
        "description": "1h cache TTL instead of 5m",
        "cost_usd": "0.0515139",
        "saved_usd": "0.0226821",
        "saved_fraction": "0.3057",
        "tradeoff": None,
    }
    # without --explain the estimate JSON has no insights key and still matches
    plain = json.loads(render_text(report.report, Format.json))
    assert "insights" not in plain
    validate_json(plain, report_schema())


@pytest.mark.usefixtures("fixed_terminal")
def test_table_and_markdown_show_the_section(tmp_path: Path) -> None:
    report = explained(tmp_path, PACED)
    table = render_text(report, Format.table, width=120)
    assert "Insights" in table and "1h cache TTL instead of 5m" in table and "−$0.0227" in table
    assert "[a different product: asynchronous" in table  # brackets kept, not read as markup
    markdown = render_text(report, Format.markdown)
    assert "##### Insights" in markdown
    assert "2. 1h cache TTL instead of 5m: −$0.0227 per task (−30.6%), $0.0515 instead of $0.0742" in markdown
    assert render_text(report, Format.csv) == render_text(report.report, Format.csv)


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.usefixtures("fixed_terminal")
def test_cli_explain(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(write(tmp_path, PACED))
    code, out, err = cli(capsys, "estimate", path, "--explain", "--as-of", "2026-11-30", "-f", "json")
    assert code == 0 and err == ""
    assert json.loads(out)["insights"]["levers"][1]["name"] == "cache_ttl_1h"
    code, out, _ = cli(capsys, "estimate", path, "--explain", "--as-of", "2026-11-30", "-q")
    assert (code, out) == (0, "0.074196\n")


def test_cli_explain_takes_one_scenario(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = str(write(tmp_path, PACED, "a.yaml")), str(write(tmp_path, PACED, "b.yaml"))
    code, out, err = cli(capsys, "estimate", a, b, "--explain", "--as-of", "2026-11-30")
    assert code == 2 and out == ""
    assert err == (
        "agentcost: error: --explain: explains one scenario file at a time"
        " (run it once per scenario: agentcost estimate SCENARIO --explain)\n"
    )


def test_an_impossible_change_is_skipped(tmp_path: Path) -> None:
    # claude-3-haiku has no batch tier: no batch lever (the estimate with service_tier: batch fails)
    est = estimate_scenario(
        load_scenario(write(tmp_path, PACED.replace("claude-sonnet-4-5", "claude-3-haiku"))), as_of=AS_OF
    )
    names = {lv.name for lv in explain(est).levers}
    assert "service_tier_batch" not in names and "cache_ttl_1h" in names
    with pytest.raises(InputError):
        total(dataclasses.replace(est.scenario, service_tier="batch"))


def test_failed_attempts_are_a_check_and_strict_schemas_a_lever(tmp_path: Path) -> None:
    est = estimate_scenario(load_scenario(write(tmp_path, CRAFTED + "retries: {count: 2}\n")), as_of=AS_OF)
    c = checks(est)
    assert c.failed_attempts == 2 and c.retry_note == "2 failed attempts repeated"
    assert c.tool_rounds == 4 and c.requests == 7  # 4 rounds + 2 failed attempts + the final answer
    failed_rows = [rows for r, rows in ran_rounds(est) if r.failed]
    assert c.retry_usd == sum((row.cost.total_usd for rows in failed_rows for row in rows), Decimal(0)) > 0
    assert c.retry_share == c.retry_usd / est.total_usd
    insights = explain(est)
    verify(est, insights)
    [strict] = [lv for lv in insights.levers if lv.name == "no_retries"]
    # without the failed attempts the run is exactly the crafted scenario's
    plain = estimate_scenario(load_scenario(write(tmp_path, CRAFTED, "plain.yaml")), as_of=AS_OF)
    assert strict.cost_usd == plain.total_usd
    assert strict.saved_usd >= c.retry_usd  # the attempts' own requests, and the context they leave


def test_deferring_unused_tools_is_shown_when_it_saves(tmp_path: Path) -> None:
    # on claude-sonnet-4-5, which has tool search (the scenario's gemini-2.5-pro has none documented:
    # no lever there, tests/test_tool_search.py)
    scenario = load_scenario(ROOT / "scenarios" / "mcp-40-tools.yaml")
    est = estimate_scenario(scenario, as_of=AS_OF, model="claude-sonnet-4-5")
    insights = explain(est)
    verify(est, insights, model="claude-sonnet-4-5")
    [defer] = [lv for lv in insights.levers if lv.name == "defer_unused_tools"]
    called = {c.tool for r in est.scenario.rounds for c in r.calls}
    unused = [t for t in est.scenario.tools if t.name not in called]
    assert defer.description == f"defer {len(unused)} unused tools"


# Two deferred tools (a tool search before the first call of each) and two failed attempts (before
# rounds 2 and 4: round j gets floor((j+1)2/5) - floor(j2/5) of them), so the counted rounds
# (9: 5 scenario rounds + 2 searches + 2 failed attempts) do not line up with the scenario's (5).
INSERTED = """\
version: 1
model: claude-sonnet-4-5
system: {tokens: 3000}
tools:
  - {name: search, description: Search the code base for a pattern., input_schema: {type: object}}
  - {name: read, description: Read one file., input_schema: {type: object}, defer_loading: true}
  - {name: deploy, description: Deploy the service., input_schema: {type: object}, defer_loading: true}
task: {tokens: 200}
retries: {count: 2}
rounds:
  - {tool: search, call_tokens: 30, result: {tokens: 400}}
  - {tool: read, call_tokens: 200, result: {tokens: 6000}}
  - {tool: deploy, call_tokens: 20, result: {tokens: 100}}
  - {tool: search, call_tokens: 300, result: {tokens: 300}}
  - {tool: read, call_tokens: 25, result: {tokens: 1500}}
final: {tokens: 400}
"""


@pytest.mark.parametrize(
    ("override", "ran"),
    [(None, 5), ("limits.max_rounds=4", 4), ("limits.max_budget_usd=0.025", 2)],
)
def test_scenario_rounds_skip_tool_searches_and_failed_attempts(
    tmp_path: Path, override: str | None, ran: int
) -> None:
    # regression: the scenario rounds that ran were taken as the first rounds_run counted rounds,
    # which include the inserted ones, so the last rounds run were lost (and indices shifted)
    from agentcost.loop.insights import _scenario_rounds

    path = write(tmp_path, INSERTED)
    s = load_scenario(path, overrides=() if override is None else (override,))
    est = estimate_scenario(s, as_of=AS_OF)
    assert [(r.search, r.failed) for r in est.counts.rounds] == [
        (False, False),
        (True, False),  # loads read
        (False, False),
        (True, False),  # loads deploy
        (False, True),  # round 2 fails once
        (False, False),
        (False, False),
        (False, True),  # round 4 fails once
        (False, False),
    ]
    assert est.ledger.rounds_run == ran
    pairs = _scenario_rounds(est)
    assert [i for i, _ in pairs] == list(range(ran))
    assert [r.tools for _, r in pairs] == [(s.rounds[i].calls[0].tool,) for i in range(ran)]
    assert not any(r.inserted for _, r in pairs)
    c = checks(est)
    assert c.tool_rounds == ran


def test_the_route_lever_routes_the_right_rounds_past_inserted_requests(tmp_path: Path) -> None:
    est = estimate_scenario(load_scenario(write(tmp_path, INSERTED)), as_of=AS_OF)
    [route] = [c for c in _candidates(est) if c.name == "route_small_rounds"]
    # the two tool rounds with the least output: round 2 (20 call tokens) and round 4 (25)
    assert route.description == "route the 2 smallest tool rounds to claude-haiku-4-5"
    assert [r.model for r in route.scenario.rounds] == [
        None,
        None,
        "claude-haiku-4-5",
        None,
        "claude-haiku-4-5",
    ]
    c = checks(est)
    assert (c.tool_rounds, c.tool_searches, c.failed_attempts, c.requests) == (5, 2, 2, 10)


def test_result_tokens_name_the_client_calls_not_the_server_tools(tmp_path: Path) -> None:
    """A Read round whose response also ran a web search is one Read call (found by the property
    tests: it showed as "Read, web_search" with 2 calls)."""
    path = tmp_path / "s.yaml"
    path.write_text(
        "version: 1\nmodel: claude-sonnet-4-5\ntask: Go.\nrounds:\n  - tool: Read\n    call_tokens: 9\n"
        "    result: 500\n    server_tools: [{tool: web_search, uses: 1, result: 300}]\nfinal: 5\n"
    )
    est = estimate_scenario(load_scenario(path), as_of=AS_OF)
    (only,) = checks(est).result_tokens
    assert (only.tool, only.calls) == ("Read", 1)
