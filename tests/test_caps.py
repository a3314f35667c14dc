"""``agentcost caps`` (issue 31): runtime caps read off the simulated runs' tail, each SDK's setting,
and ``agentcost replay DIR --caps FILE`` holding recorded runs against them. In-process."""

from __future__ import annotations

import functools
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from agentcost.cli import run
from agentcost.loop.caps import cap_values
from agentcost.render.schema import kind_schema as schema_of_kind
from agentcost.report.caps import recursion_limit
from tests.conftest import ROOT, validate_json

UNCERTAIN = str(ROOT / "scenarios" / "uncertain-steps.yaml")
BUGFIX = str(ROOT / "scenarios" / "bugfix.yaml")
CACHING_LOG = str(ROOT / "tests" / "data" / "api-logs" / "anthropic-prompt-caching.jsonl")
DAY = ["--as-of", "2026-11-30"]


@functools.cache
def kind_schema(kind: str) -> dict[str, Any]:
    """The published schema of one kind, generated once for these tests."""
    return schema_of_kind(kind)


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert run([*args, "--format", "json"]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


# --- the caps -------------------------------------------------------------------------------------


def test_the_rounding_up_in_closed_form() -> None:
    # p99 of 500 runs of uncertain-steps.yaml: 24 requests, $0.59625585, 1,352 output tokens
    caps = cap_values(24, Decimal("0.59625585"), 1352, Decimal(0))
    assert (caps.max_turns, caps.max_budget_usd, caps.max_tokens) == (24, Decimal("0.60"), 1536)  # 6 x 256
    # +20%: ceil(28.8) = 29 turns; 0.71550702 up to 0.72; ceil(1622.4) = 1623 -> 7 x 256 = 1792
    caps = cap_values(24, Decimal("0.59625585"), 1352, Decimal(20))
    assert (caps.max_turns, caps.max_budget_usd, caps.max_tokens) == (29, Decimal("0.72"), 1792)
    # an exact cent stays; 256 tokens stay 256; a tiny run still gets one cent and one step
    assert cap_values(3, Decimal("0.05"), 256, Decimal(0)).max_budget_usd == Decimal("0.05")
    assert cap_values(3, Decimal("0.05"), 256, Decimal(0)).max_tokens == 256
    tiny = cap_values(1, Decimal("0.0000001"), 0, Decimal(0))
    assert (tiny.max_budget_usd, tiny.max_tokens) == (Decimal("0.01"), 256)
    # LangGraph's ReAct agent: n requests take n model steps and n - 1 tool steps
    assert [recursion_limit(n) for n in (1, 2, 24)] == [1, 3, 47]


@pytest.mark.usefixtures("no_ctok")
def test_p99_caps_are_the_estimates_p99_of_the_same_simulation(capsys: pytest.CaptureFixture[str]) -> None:
    """The acceptance check: caps at p99 of 500 runs (seed 0) read the same runs as estimate
    --simulate 500 --at p99, so its requests and cost percentiles are the estimate's."""
    caps = _json(capsys, "caps", UNCERTAIN, "--at", "p99", "--simulate", "500", *DAY)
    validate_json(caps, kind_schema("caps"))
    assert run(["estimate", UNCERTAIN, "--simulate", "500", "--at", "p99", *DAY, "--format", "json"]) == 1
    sim = json.loads(capsys.readouterr().out)["simulation"]  # exit 1: the p99 run is over its $0.50 budget
    assert (
        (caps["runs"], caps["seed"], caps["percentile"])
        == (sim["runs"], sim["seed"], "p99")
        == (500, 0, "p99")
    )
    assert caps["at"]["requests"] == sim["requests"]["p99"] == 24
    assert caps["at"]["cost_usd"] == sim["cost_usd"]["p99"] == "0.59625585"
    # the caps: 24 turns; $0.59625585 up to the cent; the largest request's 1,352 output tokens -> 1,536
    assert (caps["max_turns"], caps["max_budget_usd"], caps["max_tokens"]) == (24, "0.6", 1536)
    assert caps["at"]["largest_output_tokens"] == 1352
    assert caps["sdk"] == {
        "claude_agent_sdk": {"max_turns": 24, "max_budget_usd": "0.6"},
        "openai_agents_sdk": {"max_turns": 24, "max_tokens": 1536},
        "langgraph": {"recursion_limit": 47},
    }
    # at most 1% of the runs pass each cap read at p99, so at most 3% pass one of them
    beyond = caps["beyond"]
    assert all(beyond[k] <= 5 for k in ("turns", "budget", "max_tokens"))
    assert max(beyond["turns"], beyond["budget"], beyond["max_tokens"]) <= beyond["any"] <= 15
    assert Decimal(beyond["any_share"]) == Decimal(beyond["any"]) / 500
    assert caps["sources_read"] == "2026-12-07" and len(caps["sources"]) == 6
    schema = kind_schema("caps")
    for place in (caps, caps["at"], caps["sdk"]["langgraph"], caps["beyond"], caps["sources"][0]):
        place["undefined"] = 1  # every object is closed: a field without its definition is refused
        with pytest.raises(jsonschema.ValidationError):
            validate_json(caps, schema)
        del place["undefined"]


@pytest.mark.usefixtures("no_ctok")
def test_both_engines_give_each_run_the_same_largest_request() -> None:
    """The largest request's output tokens, per run, from the vectorized engine and from the
    accountant (the per-run engine), for the same draws; and never less than the final answer's."""
    from agentcost.loop.engines import PerRunEngine, VectorEngine
    from agentcost.loop.estimate import estimate_scenario
    from agentcost.loop.options import parse_as_of
    from agentcost.loop.simulate import _simulate, slot_counts
    from agentcost.scenario.load import read_scenario

    est = estimate_scenario(read_scenario(Path(UNCERTAIN)), as_of=parse_as_of("2026-11-30"), compare=False)
    slots = slot_counts(est.scenario)
    fast = _simulate(est, VectorEngine(est, slots), 12, 3, slots)
    slow = _simulate(est, PerRunEngine(est), 12, 3, slots)
    assert [int(v) for v in fast.largest] == [int(v) for v in slow.largest]
    assert [int(v) for v in fast.units] == [int(v) * fast.scale // slow.scale for v in slow.units]
    assert min(int(v) for v in fast.largest) >= 120  # the final answer alone is pert 120-700 tokens


@pytest.mark.usefixtures("no_ctok")
def test_the_table_leads_with_the_caps_and_prints_settings_in_60_columns(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    assert run(["caps", UNCERTAIN, "--simulate", "500", *DAY]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith("Caps at p99 of 500 simulated runs (seed 0): max_turns 24,")
    for setting in (
        "  max_turns=24",
        "  max_budget_usd=0.6",
        '  {"recursion_limit": 47}',
        "  max_tokens=1536",
    ):
        assert setting in lines
    assert lines.index("Claude Agent SDK, ClaudeAgentOptions:") < lines.index("  max_budget_usd=0.6")
    assert max(len(line) for line in lines) <= 60
    assert run(["caps", UNCERTAIN, "--simulate", "500", *DAY, "-q"]) == 0
    assert capsys.readouterr().out == "0.6\n"  # --quiet: max_budget_usd


@pytest.mark.usefixtures("no_ctok")
def test_a_scenario_without_distributions_gets_its_one_runs_figures(
    capsys: pytest.CaptureFixture[str],
) -> None:
    caps = _json(capsys, "caps", BUGFIX, *DAY)
    # bugfix.yaml: 9 requests, $0.0286497, its largest output the final answer's 182 tokens
    assert (caps["runs"], caps["seed"], caps["engine"]) == (1, None, None)
    assert caps["at"] == {"requests": 9, "cost_usd": "0.0286497", "largest_output_tokens": 182}
    assert (caps["max_turns"], caps["max_budget_usd"], caps["max_tokens"]) == (9, "0.03", 256)
    assert caps["sdk"]["langgraph"] == {"recursion_limit": 17}
    assert caps["beyond"] == {"turns": 0, "budget": 0, "max_tokens": 0, "any": 0, "any_share": "0"}
    assert caps["notes"][0].startswith("The scenario has no distribution: the caps are its one run's figures")
    margin = _json(
        capsys, "caps", BUGFIX, *DAY, "--margin", "50%"
    )  # 13.5 -> 14; 0.04297455 -> 0.05; 273 -> 512
    assert (margin["max_turns"], margin["max_budget_usd"], margin["max_tokens"]) == (14, "0.05", 512)
    assert margin["margin_percent"] == "50"
    assert run(["caps", BUGFIX, *DAY, "--format", "markdown"]) == 0
    md = capsys.readouterr().out
    assert (
        "**Caps at the scenario's one run (no distribution): max_turns 9, max_budget_usd $0.03, max_tokens 256.**"
        in md
    )
    assert "```\nmax_turns=9\nmax_budget_usd=0.03\n```" in md
    assert (
        "- Its one run makes 9 requests, costs $0.0286 and writes 182 output tokens in its largest request."
        in md
    )


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["--at", "mean"], "agentcost: error: --at: the mean is no cap: about half of the runs pass it (p90, p99, p99.9 or max)"),
        (["--at", "p100"], "agentcost: error: --at: not a percentile: 'p100'"),
        (["--margin", "lots"], "agentcost: error: --margin: not a margin: 'lots' (a percentage from 0 to 1,000, e.g. 20%)"),
        (["--simulate", "0"], "agentcost: error: --simulate: must be from 1 to 10,000,000 runs, got 0"),
        (["--format", "svg"], "agentcost: error: --format: caps have no chart (table, json, markdown or csv)"),
    ],
)  # fmt: skip
def test_bad_options_are_one_line_and_exit_2(
    args: list[str], error: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["caps", UNCERTAIN, *DAY, *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith(error) and err.count("\n") == 1 and "Traceback" not in err


# --- replay DIR --caps FILE ---------------------------------------------------------------------------
# The log's four requests run up $0.7029195, $0.7625427, $0.82314045, $0.8848494 and report
# 22, 218, 234 and 299 output tokens.


def _caps_file(tmp_path: Path, **caps: Any) -> str:
    path = tmp_path / "caps.json"
    path.write_text(json.dumps({"version": 1, "kind": "caps", **caps}), encoding="utf-8")
    return str(path)


def _replay(capsys: pytest.CaptureFixture[str], caps: str) -> dict[str, Any]:
    data = _json(capsys, "replay", CACHING_LOG, *DAY, "--caps", caps)
    validate_json(data, kind_schema("replay_many"))
    return data


def test_replay_says_which_cap_stops_a_run_where_and_what_it_spent_past_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    both = _replay(capsys, _caps_file(tmp_path, max_turns=2, max_budget_usd="0.70", max_tokens=230))
    # $0.7029195 > $0.70 after request 1: the budget stops it first; 0.8848494 - 0.7029195 past it
    assert both["runs"][0]["caps"] == {
        "turns": 4,
        "stopped_by": "max_budget_usd",
        "stopped_after": 1,
        "beyond_usd": "0.1819299",
        "max_turns_stop": 2,
        "max_budget_usd_stop": 1,
        "over_max_tokens_request": 3,
        "over_max_tokens": 234,
    }
    assert both["caps"]["stopped"] == 1 and both["caps"]["by_max_budget_usd"] == 1
    schema = kind_schema("replay_many")
    for place in (both["caps"], both["caps"]["caps"], both["runs"][0]["caps"]):
        place["undefined"] = 1  # closed objects, as every kind's (tests/test_schemagen.py)
        with pytest.raises(jsonschema.ValidationError):
            validate_json(both, schema)
        del place["undefined"]
    assert both["caps"]["beyond_usd"] == "0.1819299" and both["caps"]["stopped_share"] == "1"
    turns = _replay(capsys, _caps_file(tmp_path, max_turns=3))["runs"][0]["caps"]
    # the fourth request is never sent: its $0.06170895 is what the run spent past the cap
    assert (turns["stopped_by"], turns["stopped_after"], turns["beyond_usd"]) == (
        "max_turns",
        3,
        "0.06170895",
    )
    # $0.8848494 > $0.88 only at the last request: nothing left to stop; 4 turns are within 4
    late = _replay(capsys, _caps_file(tmp_path, max_turns=4, max_budget_usd=0.88))
    assert late["runs"][0]["caps"]["stopped_by"] is None and late["runs"][0]["caps"]["beyond_usd"] == "0"
    assert late["caps"]["stopped"] == 0


def test_replay_leads_with_the_caps_verdict(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert run(["replay", CACHING_LOG, *DAY, "--caps", _caps_file(tmp_path, max_turns=3)]) == 0
    out = " ".join(capsys.readouterr().out.split())  # the lines as one (they wrap at the terminal's width)
    assert out.startswith("Caps (max_turns 3, from ")
    assert "would have stopped 1 of 1 runs (100.00%): 1 at max_turns, 0 at max_budget_usd" in out
    assert "max_turns stops it after request 3, $0.0617 spent past it" in out


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("{not json", "caps.json:1: --caps: not JSON (give the output of agentcost caps SCENARIO --format json)"),
        ('{"kind": "replay", "max_turns": 3}', "caps.json: kind: not a caps report: its kind is another command's"),
        ('{"max_turns": "SECRET-TEXT"}', "caps.json: max_turns: must be a whole number from 1 to 1,000,000,000, got text (11 characters)"),
        ('{"max_budget_usd": -1}', "caps.json: max_budget_usd: must be dollars above 0 and at most 1,000,000,000, got -1"),
        ("[1, 2]", "caps.json: expected a JSON object, got a list"),
        ("{}", "caps.json: no cap in it: max_turns, max_budget_usd and max_tokens are all missing"),
    ],
)  # fmt: skip
def test_a_bad_caps_file_is_one_line_naming_file_and_key_exit_2(
    text: str, error: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "caps.json"
    path.write_text(text, encoding="utf-8")
    assert run(["replay", CACHING_LOG, *DAY, "--caps", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and "SECRET" not in err
    assert f"agentcost: error: {tmp_path}/{error}" in err
