"""``agentcost reconcile``: providers' usage/cost exports priced by agentcost, hand-checked dollars.

Rates used in the hand checks (genai-prices at 2026-11-02/03, USD per million tokens):
claude-sonnet-4-5 input 3, cache read 0.30, 5m write 3.75, 1h write 6, output 15, web search $10/1,000;
claude-haiku-4-5 input 1, 5m write 1.25, output 5, batch: input 0.50, output 2.50;
gpt-4o-mini input 0.15, cached 0.075, output 0.60, batch: input 0.075, output 0.30;
gpt-4.1 input 2, cached 0.50, output 8.
"""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from agentcost.cli import run
from agentcost.commands.reconcile import reconcile
from agentcost.commands.reconcile_read import parse_export, read_export
from agentcost.report.reconcile import Reconciliation, Row
from tests.conftest import validate_json

DATA = Path(__file__).parent / "data" / "usage-exports"
A_USAGE = DATA / "anthropic-usage.json"
A_COST = DATA / "anthropic-cost.json"
O_USAGE = DATA / "openai-usage.json"
O_COST = DATA / "openai-costs.json"


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _rec(*data: tuple[Any, str]) -> Reconciliation:
    return reconcile([parse_export(d, name) for d, name in data])


def _row(r: Reconciliation, day: str, model: str) -> Row:
    return next(x for x in r.rows if x.day.isoformat() == day and x.model == model)


def test_anthropic_two_days_two_models_priced_by_hand() -> None:
    r = reconcile([read_export(A_USAGE)])
    sonnet1 = _row(r, "2026-11-02", "claude-sonnet-4-5")
    # 100,000 x 3 + 2,000,000 x 0.30 + 50,000 x 3.75 + 10,000 x 6 + 20,000 x 15, per million
    assert sonnet1.tokens_usd == Decimal("0.30") + Decimal("0.60") + Decimal("0.1875") + Decimal(
        "0.06"
    ) + Decimal("0.30")
    assert sonnet1.fees_usd == Decimal("0.03")  # 3 web searches at $10 per 1,000
    assert sonnet1.agentcost_usd == Decimal("1.4775")
    haiku1 = _row(r, "2026-11-02", "claude-haiku-4-5")
    assert haiku1.tiers == ("batch",)
    assert haiku1.agentcost_usd == Decimal("0.45")  # 400,000 x 0.50 + 100,000 x 2.50
    assert _row(r, "2026-11-03", "claude-sonnet-4-5").agentcost_usd == Decimal("1.17")  # .60+.30+.12+.15
    assert _row(r, "2026-11-03", "claude-haiku-4-5").agentcost_usd == Decimal("0.675")  # .30+.125+.25
    assert r.agentcost_usd == Decimal("1.9275") + Decimal("1.845")
    assert all(x.status == "no-costs" for x in r.rows if x.agentcost_usd is not None)
    assert r.difference_usd is None


def test_a_model_agentcost_cannot_price_is_unknown_never_zero() -> None:
    r = reconcile([read_export(A_USAGE), read_export(A_COST)])
    mystery = _row(r, "2026-11-03", "claude-mystery-9")
    assert mystery.agentcost_usd is None and mystery.difference_usd is None
    assert mystery.status == "unknown"
    assert mystery.reasons == ("unknown model: agentcost cannot price 'claude-mystery-9'",)
    day2 = next(d for d in r.days if d.day.isoformat() == "2026-11-03")
    assert day2.unknown_rows == 1
    assert day2.excluded_usd == Decimal("0.006")  # its "0.60" cents are left out of the comparison
    assert r.unknown_rows == 1
    assert "-" in next(line for line in run_text(r).splitlines() if "claude-mystery-9" in line)


def run_text(r: Reconciliation) -> str:
    from agentcost.render.reconcile import render_text

    return render_text(r)


def test_anthropic_cost_export_matching_and_mismatching_with_the_reason_named() -> None:
    r = reconcile([read_export(A_USAGE), read_export(A_COST)])
    assert _row(r, "2026-11-02", "claude-sonnet-4-5").status == "match"  # "144.75" cents
    assert _row(r, "2026-11-02", "claude-haiku-4-5").status == "match"  # "45.00" cents, batch prices
    day1 = next(d for d in r.days if d.day.isoformat() == "2026-11-02")
    assert day1.export_usd == Decimal("1.9275")  # the web-search line ("3.00" cents) has no model
    assert day1.status == "match" and day1.difference_usd == 0
    sonnet2 = _row(r, "2026-11-03", "claude-sonnet-4-5")
    # billed "112.50" cents: 20,000 1h writes at 3.75 instead of 6 per million = $0.045 less
    assert sonnet2.export_usd == Decimal("1.125")
    assert sonnet2.difference_usd == Decimal("-0.045")
    assert sonnet2.status == "differs"
    assert sonnet2.reasons == ("1h cache writes billed at the 5m rate",)
    assert r.difference_usd == Decimal("-0.045")
    assert r.export_usd == Decimal("1.9275") + Decimal("1.806")
    assert r.excluded_usd == Decimal("0.006")


def test_openai_export_with_cached_tokens_and_a_batch_line() -> None:
    r = reconcile([read_export(O_USAGE), read_export(O_COST)])
    mini = _row(r, "2026-11-02", "gpt-4o-mini-2024-07-18")
    assert mini.tiers == ("standard", "batch")
    # standard: 600,000 x 0.15 + 400,000 x 0.075 + 200,000 x 0.60 = 0.24; batch: 2M x 0.075 + 500,000 x 0.30 = 0.30
    assert mini.input_tokens == 2_600_000 and mini.cache_read_tokens == 400_000
    assert mini.agentcost_usd == Decimal("0.54")
    gpt41 = _row(r, "2026-11-02", "gpt-4.1-2025-04-14")
    assert gpt41.agentcost_usd == Decimal("1.25")  # 400,000 x 2 + 100,000 x 0.50 + 50,000 x 8
    assert {x.status for x in r.rows} == {"per-day"}  # OpenAI's line items are not per model
    (day,) = r.days
    assert day.export_usd == Decimal("1.79") and day.status == "match"
    assert r.difference_usd == 0


def test_batch_billed_at_standard_prices_is_named() -> None:
    usage, costs = _load(A_USAGE), _load(A_COST)
    costs["data"][0]["results"][1]["amount"] = "90.00"  # 400,000 x 1 + 100,000 x 5 per million
    r = _rec((usage, "u.json"), (costs, "c.json"))
    haiku = _row(r, "2026-11-02", "claude-haiku-4-5")
    assert haiku.difference_usd == Decimal("0.45")
    assert haiku.reasons == ("billed at standard prices, not the tier's",)


def test_a_difference_with_no_known_cause_is_unexplained() -> None:
    usage, costs = _load(A_USAGE), _load(A_COST)
    costs["data"][1]["results"][1]["amount"] = "70.00"
    r = _rec((usage, "u.json"), (costs, "c.json"))
    haiku = _row(r, "2026-11-03", "claude-haiku-4-5")
    assert haiku.difference_usd == Decimal("0.025")
    assert haiku.reasons == ("unexplained", "cache writes 5m")
    day2 = next(d for d in r.days if d.day.isoformat() == "2026-11-03")
    assert "claude-haiku-4-5: unexplained" in day2.reasons


def test_server_tool_fees_missing_from_the_cost_export_are_named() -> None:
    usage, costs = _load(A_USAGE), _load(A_COST)
    del costs["data"][0]["results"][2]  # the web-search line
    r = _rec((usage, "u.json"), (costs, "c.json"))
    day1 = next(d for d in r.days if d.day.isoformat() == "2026-11-02")
    assert day1.difference_usd == Decimal("-0.03")
    assert "server-tool fees are not in the cost export" in day1.reasons


def test_long_context_rows_and_tiers_without_prices_stay_unknown() -> None:
    usage = _load(A_USAGE)
    first, second = usage["data"][0]["results"][:2]
    first["context_window"] = "200k-1M"
    second["service_tier"] = "priority"
    r = _rec((usage, "u.json"))
    assert _row(r, "2026-11-02", "claude-sonnet-4-5").reasons[0].startswith("long-context requests")
    haiku = _row(r, "2026-11-02", "claude-haiku-4-5")
    assert haiku.agentcost_usd is None
    assert haiku.reasons == (
        "priority tier: agentcost has no priority prices for claude-haiku-4-5 on 2026-11-02",
    )


def test_more_pages_are_noted() -> None:
    usage = _load(O_USAGE)
    usage["has_more"], usage["next_page"] = True, "page_2"
    r = _rec((usage, "u.json"))
    assert r.notes == ("u.json: has_more is true: only this page was read; export the other pages too",)


def test_cli_table_leads_with_the_answer_within_80_columns(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["reconcile", str(A_USAGE), str(A_COST), str(O_USAGE), str(O_COST)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "Reconciled difference: -$0.0450 (export minus agentcost)"
    assert max(len(line) for line in out.splitlines()) <= 80


def test_cli_json_validates_and_markdown_csv(capsys: pytest.CaptureFixture[str]) -> None:
    from agentcost.render.schema import report_schema

    args = ["reconcile", str(A_USAGE), str(A_COST)]
    assert run([*args, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    validate_json(data, report_schema())
    assert data["kind"] == "reconcile" and data["difference_usd"] == "-0.045"
    assert run([*args, "-f", "markdown"]) == 0
    assert capsys.readouterr().out.startswith("**Reconciled difference: -$0.0450")
    assert run([*args, "-f", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("kind,day,provider,model")
    assert any(line.endswith(",differs,1h cache writes billed at the 5m rate") for line in lines)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda d: "not json {", "not JSON"),
        (lambda d: {"data": 3}, "data: expected a list, got a number"),
        (lambda d: {"data": [{"results": [{"foo": 1}]}]}, "data: not a usage or cost export agentcost reads"),
        (
            lambda d: _set(d, ["data", 0, "results", 0, "output_tokens"], -5),
            "data[0].results[0].output_tokens: expected a whole number of tokens",
        ),
        (
            lambda d: _set(d, ["data", 0, "results", 0, "output_tokens"], 1.5),
            "data[0].results[0].output_tokens: expected a whole number of tokens",
        ),
        (
            lambda d: _set(d, ["data", 0, "starting_at"], "yesterday"),
            "data[0].starting_at: expected an RFC 3339 time",
        ),
        (lambda d: "[" * 100_000 + "]" * 100_000, "not JSON"),
    ],
)
def test_bad_input_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: Any, expected: str
) -> None:
    bad = change(copy.deepcopy(_load(A_USAGE)))
    path = tmp_path / "bad.json"
    path.write_text(bad if isinstance(bad, str) else json.dumps(bad), encoding="utf-8")
    assert run(["reconcile", str(path)]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert err.startswith(f"agentcost: error: {path}: ") and expected in err
    assert "\n" not in err and "Traceback" not in captured.err
    assert captured.out == ""


def test_cost_errors_name_the_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    costs = _load(A_COST)
    costs["data"][0]["results"][0]["currency"] = "EUR"
    path = tmp_path / "eur.json"
    path.write_text(json.dumps(costs), encoding="utf-8")
    assert run(["reconcile", str(path)]) == 2
    assert "data[0].results[0].currency: only USD amounts are compared" in capsys.readouterr().err
    assert run(["reconcile", str(tmp_path / "missing.json")]) == 2
    assert "missing.json: file not found" in capsys.readouterr().err


def _set(data: Any, path: list[Any], value: Any) -> Any:
    target = data
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    return data


def test_project_estimate_per_day_against_each_day(capsys: pytest.CaptureFixture[str]) -> None:
    from datetime import UTC, datetime

    from agentcost.commands.batch import batch_report_for_paths
    from agentcost.commands.reconcile_project import compare_project

    scenario = Path(__file__).parents[1] / "scenarios" / "bugfix.yaml"
    r = reconcile([read_export(p) for p in (A_USAGE, A_COST, O_USAGE)])
    p = compare_project(r, scenario, Decimal(20))
    one_run = batch_report_for_paths([scenario], as_of=datetime(2026, 11, 2, tzinfo=UTC)).totals.cost_usd
    assert p.estimate_per_day_usd == one_run * 20
    first, second = p.days
    # 2026-11-02: Anthropic's cost export ($1.9275) and agentcost's price of the OpenAI usage ($1.79)
    assert (first.actual_usd, first.source) == (Decimal("3.7175"), "mixed")
    assert (second.actual_usd, second.source) == (Decimal("1.806"), "export")
    assert second.difference_usd == Decimal("1.806") - one_run * 20
    assert run(["reconcile", str(A_USAGE), "--project", str(scenario), "--runs-per-day", "many"]) == 2
    assert (
        "--runs-per-day: expected a number of runs above 0 and at most 10,000,000, got 'many'"
        in capsys.readouterr().err
    )
    assert run(["reconcile", str(A_USAGE), "--project", str(scenario)]) == 2
    assert "does not give runs_per_day for every scenario" in capsys.readouterr().err


def test_a_cost_without_usage_is_shown_and_never_matched(capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 29: the cost of a model with no usage stays in the day's comparison (it was left out,
    and the day said "match")."""
    costs = _load(A_COST)
    costs["data"][0]["results"].append(
        {**costs["data"][0]["results"][0], "model": "claude-opus-4-1", "amount": "10"}
    )
    r = _rec((_load(A_USAGE), "u.json"), (costs, "c.json"))
    opus = _row(r, "2026-11-02", "claude-opus-4-1")
    assert (opus.status, opus.export_usd, opus.agentcost_usd) == ("no-usage", Decimal("0.1"), None)
    day1 = next(d for d in r.days if d.day.isoformat() == "2026-11-02")
    assert (day1.excluded_usd, day1.status, day1.difference_usd) == (Decimal(0), "differs", Decimal("0.1"))
    assert "claude-opus-4-1: $0.1000 of cost without usage" in day1.reasons


def test_json_with_a_project_validates(capsys: pytest.CaptureFixture[str]) -> None:
    from agentcost.render.schema import report_schema

    project = Path(__file__).parents[1] / "scenarios" / "agentcost.yml"
    assert run(["reconcile", str(A_USAGE), str(A_COST), "--project", str(project), "-f", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    validate_json(data, report_schema())
    assert data["project"]["runs_per_day"] is None and len(data["project"]["days"]) == 2
