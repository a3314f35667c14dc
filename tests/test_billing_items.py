"""Every billed item, in replay and reconcile alike (issue 29, item 2 and item 3's reconcile points).

Hand-computed from the published prices (USD per million tokens, per 1,000 uses):

- claude-sonnet-4-6: $3 input, $0.30 cache read, $15 output; web search $10 per 1,000, web fetch $0
  (https://platform.claude.com/docs/en/about-claude/pricing).
- gemini-2.5-flash: $0.30 input, $2.50 output, thinking included in output
  (https://ai.google.dev/gemini-api/docs/pricing).
- gpt-4o-search-preview: $2.50 input, $10 output; web search preview on a non-reasoning model $25 per
  1,000 calls; gpt-4o-mini: $0.15 input, $0.60 output, batch half of both
  (https://platform.openai.com/docs/pricing).
"""

from __future__ import annotations

import copy
import json
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from agentcost.cli import run
from agentcost.commands.reconcile import reconcile
from agentcost.commands.reconcile_read import parse_export
from agentcost.prices.billing import BilledRequest, add_costs, anthropic_extras, unreported_thinking
from agentcost.replay.files import usage_count
from agentcost.tokens.request import RequestCost, RequestUsage

DATA = Path(__file__).parent / "data"
VERTEX = DATA / "real" / "langfuse" / "vertex-ai-2025-08-01.trace.json"
M = Decimal(1_000_000)

# The response of Anthropic's compaction page ("Understanding usage"), with 3 web searches and 2 web
# fetches of the same response: the top level leaves the compaction iteration out.
COMPACTED = {
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-6",
    "content": [{"type": "compaction", "content": "Summary"}, {"type": "text", "text": "Based on"}],
    "stop_reason": "end_turn",
    "usage": {
        "input_tokens": 23000,
        "output_tokens": 1000,
        "server_tool_use": {"web_search_requests": 3, "web_fetch_requests": 2},
        "iterations": [
            {"type": "compaction", "input_tokens": 180000, "output_tokens": 3500},
            {"type": "message", "input_tokens": 23000, "output_tokens": 1000},
        ],
    },
}


def _replay(path: Path, as_of: str, model: str | None = None) -> Any:
    from agentcost.replay import load_trace  # the reader every format goes through
    from agentcost.replay.ledger import replay

    trace = load_trace(path)
    return replay(trace, as_of=datetime.fromisoformat(as_of).replace(tzinfo=UTC), model=model)


def _write(tmp_path: Path, name: str, *lines: dict[str, Any]) -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------
# Replay
# ---------------------------------------------------------------------------------------------


def test_web_searches_and_a_compaction_iteration_are_priced_in_replay(tmp_path: Path) -> None:
    report = _replay(_write(tmp_path, "run.jsonl", COMPACTED), "2026-12-01")
    assert (report.prices.input_mtok, report.prices.output_mtok) == (Decimal(3), Decimal(15))
    top = (23000 * Decimal(3) + 1000 * Decimal(15)) / M  # $0.084: all that was priced before
    searches = 3 * Decimal(10) / 1000  # $0.03; the 2 fetches are free
    compaction = (180000 * Decimal(3) + 3500 * Decimal(15)) / M  # $0.5925
    assert top == Decimal("0.084") and compaction == Decimal("0.5925")
    assert report.totals.cost_usd == top + searches + compaction == Decimal("0.7065")
    assert report.requests[0].cost_usd == Decimal("0.7065")
    assert "3 web searches priced: $0.03 (in the total)" in report.notes
    assert any("1 compaction iteration(s)" in n and "$0.5925" in n for n in report.notes)


def test_a_compaction_iteration_with_cache_reads_is_split_like_any_request(tmp_path: Path) -> None:
    response = copy.deepcopy(COMPACTED)
    response["usage"] = {
        "input_tokens": 100,
        "output_tokens": 10,
        "iterations": [{"type": "compaction", "input_tokens": 1000, "cache_read_input_tokens": 9000,
                        "output_tokens": 100}],
    }  # fmt: skip
    report = _replay(_write(tmp_path, "run.jsonl", response), "2026-12-01")
    top = (100 * Decimal(3) + 10 * Decimal(15)) / M  # $0.00045
    step = (1000 * Decimal(3) + 9000 * Decimal("0.3") + 100 * Decimal(15)) / M  # $0.0072
    assert report.totals.cost_usd == top + step == Decimal("0.00765")


def test_claude_code_usage_reads_the_same_billed_items() -> None:
    from agentcost.replay.claude_code import reported_usage

    rep = reported_usage(copy.deepcopy(COMPACTED["usage"]), Path("s.jsonl"), 7)
    assert (rep.web_searches, rep.web_fetches, rep.input_tokens, rep.output_tokens) == (3, 2, 23000, 1000)
    assert rep.steps == (RequestUsage(180000, 3500),)


def test_a_bad_count_in_server_tool_use_is_one_line_naming_file_line_and_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = copy.deepcopy(COMPACTED)
    bad["usage"]["server_tool_use"]["web_search_requests"] = "3"
    path = _write(tmp_path, "run.jsonl", bad)
    assert run(["replay", str(path), "--as-of", "2026-12-01"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert f"{path}:1" in err and "usage.server_tool_use.web_search_requests" in err
    usage = {
        "server_tool_use": {"tool_search_requests": 2, "note": "x"}
    }  # no fee known: not priced, no error
    assert anthropic_extras(usage, lambda v, key: usage_count(v, key, path), "usage")["web_searches"] == 0


def test_a_vertex_total_above_input_and_output_is_thinking_priced_as_output() -> None:
    """A real Langfuse export of a Vertex AI call: input 5, output 845, total 2,023."""
    report = _replay(VERTEX, "2025-08-01")
    assert (report.prices.input_mtok, report.prices.output_mtok) == (Decimal("0.3"), Decimal("2.5"))
    before = (5 * Decimal("0.3") + 845 * Decimal("2.5")) / M  # $0.002114, the thinking unpriced
    thinking = 2023 - 5 - 845
    after = (5 * Decimal("0.3") + (845 + thinking) * Decimal("2.5")) / M
    assert (thinking, before, after) == (1173, Decimal("0.002114"), Decimal("0.0050465"))
    assert report.totals.cost_usd == after
    assert report.totals.reported_output == 845  # the reported figure is still what is compared
    assert any(
        n.startswith("1,173 tokens of the reported totals are neither input nor output") for n in report.notes
    )


def test_unreported_thinking_is_only_what_a_total_holds_beyond_input_and_output() -> None:
    assert unreported_thinking(5, 845, 2023) == 1173
    assert unreported_thinking(6, 2055, 2061) == 0  # Langfuse's google-gemini trace: output holds it
    assert unreported_thinking(10, 5, None) == 0
    assert unreported_thinking(10, 5, 12) == 0  # a total below the parts adds nothing


def test_a_search_preview_request_pays_its_search_call(tmp_path: Path) -> None:
    line = {
        "request": {"model": "gpt-4o-search-preview", "messages": [{"role": "user", "content": "news?"}]},
        "response": {
            "object": "chat.completion",
            "model": "gpt-4o-search-preview-2025-03-11",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "Today..."},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 100, "total_tokens": 110},
        },
    }  # fmt: skip
    report = _replay(_write(tmp_path, "chat.jsonl", line, line), "2026-12-01")
    one = (10 * Decimal("2.5") + 100 * Decimal(10)) / M + Decimal(25) / 1000  # $0.026025
    assert report.requests[0].cost_usd == one == Decimal("0.026025")
    assert report.totals.cost_usd == 2 * one
    assert any(n.startswith("2 web search preview calls") and "$0.05" in n for n in report.notes)


def test_the_cli_prints_the_billed_items(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "run.jsonl", COMPACTED)
    assert run(["replay", str(path), "--as-of", "2026-12-01", "-f", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert Decimal(str(data["totals"]["cost_usd"])) == Decimal("0.7065")


def test_costs_of_a_request_and_its_steps_add_up_part_by_part() -> None:
    a = RequestCost(Decimal(1), Decimal(2), Decimal("3.5"), Decimal("0.5"), Decimal(0), Decimal("0.25"),
                    cache_read_usd=Decimal("0.75"), fees=(("web_search", Decimal("0.5")),))  # fmt: skip
    b = RequestCost(Decimal(4), Decimal(5), Decimal(9), uncached_input_usd=Decimal(4))
    total = add_costs([a, b])
    assert (total.input_usd, total.output_usd, total.total_usd, total.fees_usd) == (
        5,
        7,
        Decimal("12.5"),
        Decimal("0.5"),
    )
    assert (total.uncached_input_usd, total.cache_read_usd, total.fees) == (
        Decimal("4.25"), Decimal("0.75"), (("web_search", Decimal("0.5")),)
    )  # fmt: skip
    assert BilledRequest(RequestUsage(1, 1), (RequestUsage(2, 2),)).parts == (
        RequestUsage(1, 1),
        RequestUsage(2, 2),
    )


# ---------------------------------------------------------------------------------------------
# Reconcile
# ---------------------------------------------------------------------------------------------


def _anthropic(kind: str, day: str, results: list[dict[str, Any]]) -> dict[str, Any]:
    bucket = {"starting_at": f"{day}T00:00:00Z", "ending_at": f"{day}T23:59:59Z", "results": results}
    return {"data": [bucket], "has_more": False}


def _openai_usage(day: date, *results: dict[str, Any]) -> dict[str, Any]:
    start = int(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp())
    rows = [
        {"object": "organization.usage.completions.result", "input_cached_tokens": 0, **r} for r in results
    ]
    return {"object": "page", "data": [{"object": "bucket", "start_time": start, "end_time": start + 86400,
                                        "results": rows}], "has_more": False}  # fmt: skip


HAIKU_USAGE = {"model": "claude-haiku-4-5", "uncached_input_tokens": 1_000_000, "output_tokens": 0,
               "cache_read_input_tokens": 0, "service_tier": "standard"}  # fmt: skip


def test_a_day_of_cost_without_usage_never_matches() -> None:
    """The issue: $4.97 of cost on a day the usage export has no usage for, reported as match."""
    usage = parse_export(_anthropic("usage", "2026-11-02", [HAIKU_USAGE]), "u.json")
    cost_rows = [{"amount": "100", "currency": "USD", "model": "claude-haiku-4-5", "cost_type": "tokens"}]
    costs = parse_export(_anthropic("cost", "2026-11-02", cost_rows), "c.json")
    costs_next = parse_export(
        _anthropic("cost", "2026-11-03", [{**cost_rows[0], "amount": "497"}]), "c2.json"
    )  # $4.97 on a day with no usage at all
    r = reconcile([usage, costs, costs_next])
    first, second = r.days
    assert (first.status, first.difference_usd) == ("match", Decimal(0))  # 1M haiku input at $1 = $1.00
    assert (second.export_usd, second.excluded_usd, second.difference_usd) == (
        Decimal("4.97"),
        0,
        Decimal("4.97"),
    )
    assert second.status == "differs"
    assert "$4.9700 of cost and no usage in the usage export" in second.reasons
    assert r.difference_usd == Decimal("4.97")


def test_a_cost_below_a_cent_without_usage_is_still_not_a_match() -> None:
    usage = parse_export(_anthropic("usage", "2026-11-02", [HAIKU_USAGE]), "u.json")
    rows = [
        {"amount": "100", "currency": "USD", "model": "claude-haiku-4-5", "cost_type": "tokens"},
        {"amount": "0.4", "currency": "USD", "model": "claude-opus-4-1", "cost_type": "tokens"},
    ]
    (day,) = reconcile([usage, parse_export(_anthropic("cost", "2026-11-02", rows), "c.json")]).days
    assert (day.difference_usd, day.status) == (Decimal("0.004"), "differs")
    assert "claude-opus-4-1: $0.0040 of cost without usage" in day.reasons


def test_usage_of_one_provider_against_costs_of_another_is_flagged() -> None:
    usage = parse_export(_anthropic("usage", "2026-11-02", [HAIKU_USAGE]), "u.json")
    costs = parse_export(
        json.loads((DATA / "usage-exports" / "openai-costs.json").read_text(), parse_float=Decimal), "o.json"
    )
    r = reconcile([usage, costs])
    assert any(n.startswith("provider mismatch: the usage export is anthropic's and the cost export openai's")
               for n in r.notes)  # fmt: skip
    assert all(d.status != "match" for d in r.days)
    same = reconcile([usage, parse_export(_anthropic("cost", "2026-11-02", []), "c.json")])
    assert not any("provider mismatch" in n for n in same.notes)


def test_openai_batch_before_genai_prices_batch_rows_and_search_model_requests() -> None:
    """gpt-4o-mini batch on 2026-06-02 (genai-prices' batch prices start 2026-10-14; the standard
    prices are the same on both days): $0.075 and $0.30. A search model's 40 requests: 40 calls."""
    export = _openai_usage(
        date(2026, 6, 2),
        {"model": "gpt-4o-mini-2024-07-18", "batch": True, "input_tokens": 1_000_000, "output_tokens": 1_000_000,
         "num_model_requests": 10},
        {"model": "gpt-4o-search-preview-2025-03-11", "batch": False, "input_tokens": 10_000,
         "output_tokens": 2_000, "num_model_requests": 40},
    )  # fmt: skip
    r = reconcile([parse_export(export, "o.json")])
    batch = next(row for row in r.rows if row.model.startswith("gpt-4o-mini"))
    assert batch.tiers == ("batch",) and batch.status != "unknown"
    assert batch.agentcost_usd == Decimal("0.075") + Decimal("0.30") == Decimal("0.375")
    search = next(row for row in r.rows if "search" in row.model)
    fee = 40 * Decimal(25) / 1000  # $1.00
    tokens = (10_000 * Decimal("2.5") + 2_000 * Decimal(10)) / M  # $0.045
    assert (search.web_searches, search.fees_usd, search.agentcost_usd) == (40, fee, tokens + fee)
