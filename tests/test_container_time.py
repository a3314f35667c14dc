"""Container time of code execution priced as data (issue 16, item 5): facts.yaml ``container_time``,
a round's ``seconds`` or ``container_seconds``, the fee line and JSON, with hand-checked dollars.

Anthropic bills code execution by container time: $0.05 per hour, at least 5 minutes (300 s), per
request that runs code here. So 300 s is 0.05 x 300 / 3600 = $0.0041666... = $0.004166667 (priced to
the nano-dollar, half up), 600 s $0.008333333, 7,200 s $0.1 exactly. OpenAI bills code per session
($0.03, server_tool_fees) and Gemini by tokens only: their container time is $0.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from agentcost import facts
from agentcost.errors import InputError
from agentcost.loop.estimate import Estimate, estimate
from agentcost.loop.simulate import simulate
from agentcost.prices.pricing import container_usd
from agentcost.render.jsonfmt import report_dict
from agentcost.report.build import build_report
from agentcost.report.notes import estimate_notes

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)
FIVE_MINUTES = Decimal("0.004166667")

CODE = """version: 1
model: {model}
caching: none
task: {{tokens: 1000}}
final: 100
tools:
  - {tool}
  - {{name: run, description: Run a command., input_schema: {{type: object}}}}
rounds:
  - tool: run
    call_tokens: 20
    result: 300
    server_tools: [{{tool: code_execution, uses: 1, result: 200}}]
{extra}"""
ANTHROPIC_TOOL = "{type: code_execution_20250825, name: code_execution}"
OPENAI_TOOL = "{type: code_interpreter}"
GEMINI_TOOL = "{code_execution: {}}"


def run(tmp_path: Path, text: str) -> Estimate:
    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")
    return estimate(path, as_of=AS_OF)


def code(
    tmp_path: Path, extra: str = "", model: str = "claude-sonnet-4-5", tool: str = ANTHROPIC_TOOL
) -> Estimate:
    return run(tmp_path, CODE.format(model=model, tool=tool, extra=extra))


def test_the_facts_row_is_anthropic_published_rate() -> None:
    rate = facts.container_time("anthropic", "claude-sonnet-4-5")
    assert rate is not None
    assert (rate.value.usd_per_hour, rate.value.minimum_seconds) == (Decimal("0.05"), 300)
    assert (rate.value.free_hours, rate.value.free_period) == (1550, "month")
    assert rate.url.startswith("https://") and rate.note is not None and "not applied" in rate.note
    for provider, model in (("openai", "gpt-5"), ("google", "gemini-2.5-pro")):
        row = facts.container_time(provider, model)
        assert row is not None and row.value.usd_per_hour == 0
    assert facts.container_time("x-ai", "grok-4") is None  # unknown, never $0


def test_container_usd_by_hand() -> None:
    rate = facts.ContainerRate(usd_per_hour=Decimal("0.05"), minimum_seconds=300)
    assert container_usd(rate, Decimal(0)) == FIVE_MINUTES  # the minimum
    assert container_usd(rate, Decimal(299)) == FIVE_MINUTES
    assert container_usd(rate, Decimal(600)) == Decimal("0.008333333")
    assert container_usd(rate, Decimal(7200)) == Decimal("0.1")


def test_a_code_round_without_seconds_pays_the_minimum(tmp_path: Path) -> None:
    est = code(tmp_path)
    t = est.ledger.totals
    assert (t.container_seconds, t.container_usd) == (Decimal(0), FIVE_MINUTES)
    assert t.fees_usd == FIVE_MINUTES  # code execution has no per-use fee on Claude
    first = est.ledger.rows[0]
    assert first.cost.container_usd == FIVE_MINUTES
    assert first.cost.total_usd == first.cost.input_usd + first.cost.output_usd + FIVE_MINUTES
    assert t.cost_usd == t.input_usd + t.output_usd + FIVE_MINUTES
    assert est.ledger.rows[1].usage.container_seconds is None  # the final answer runs no code


def test_the_round_seconds_are_its_container_time(tmp_path: Path) -> None:
    est = code(tmp_path, "    seconds: 600\n")
    t = est.ledger.totals
    assert (t.container_seconds, t.container_usd) == (Decimal(600), Decimal("0.008333333"))
    plain = code(tmp_path)
    assert t.cost_usd - plain.ledger.totals.cost_usd == Decimal("0.008333333") - FIVE_MINUTES


def test_container_seconds_wins_and_prices_any_round(tmp_path: Path) -> None:
    est = code(tmp_path, "    seconds: 600\n    container_seconds: 7200\n")
    assert est.ledger.totals.container_usd == Decimal("0.1")
    client = (
        "version: 1\nmodel: claude-sonnet-4-5\ncaching: none\ntask: {tokens: 1000}\nfinal: 100\n"
        "rounds:\n  - {tool: run, call_tokens: 20, result: 300, container_seconds: 7200}\n"
    )
    t = run(tmp_path, client).ledger.totals
    assert (t.container_seconds, t.container_usd, t.fees_usd) == (
        Decimal(7200),
        Decimal("0.1"),
        Decimal("0.1"),
    )


def test_openai_and_gemini_container_time_is_free(tmp_path: Path) -> None:
    oai = code(tmp_path, "    seconds: 600\n", model="gpt-5", tool=OPENAI_TOOL)
    assert oai.ledger.totals.container_usd == 0
    assert oai.ledger.totals.fees_usd == Decimal("0.03")  # the session fee only
    gem = code(tmp_path, "    seconds: 600\n", model="gemini-2.5-pro", tool=GEMINI_TOOL)
    assert (gem.ledger.totals.container_usd, gem.ledger.totals.fees_usd) == (0, 0)


def test_the_fee_line_and_json_show_it(tmp_path: Path) -> None:
    report = build_report(code(tmp_path, "    seconds: 600\n"))
    (parts,) = [n.text for n in estimate_notes(report) if n.kind == "cost_parts"]
    assert parts.endswith("+ server-tool fees $0.0083 (container time: $0.0083).")
    assert report_dict(report)["totals"]["container"] == {"seconds": "600", "usd": "0.008333333"}


def test_no_container_no_key(tmp_path: Path) -> None:
    text = "version: 1\nmodel: claude-sonnet-4-5\ntask: {tokens: 100}\nfinal: 10\n"
    report = build_report(run(tmp_path, text))
    assert "container" not in report_dict(report)["totals"]
    assert report.totals.container_seconds is None


def test_an_unknown_rate_is_said_never_zero(tmp_path: Path) -> None:
    text = (
        "version: 1\nmodel: grok-4\ntask: {tokens: 1000}\nfinal: 100\n"
        "rounds:\n  - {tool: run, call_tokens: 20, result: 300, container_seconds: 90}\n"
    )
    est = run(tmp_path, text)
    assert est.ledger.totals.container_usd is None and est.ledger.totals.fees_usd == 0
    report = build_report(est)
    notes = estimate_notes(report)
    (parts,) = [n.text for n in notes if n.kind == "cost_parts"]
    assert "(container time: unknown)" in parts
    assert any(n.level == "warning" and n.text.startswith("container time: unknown") for n in notes)
    assert report_dict(report)["totals"]["container"] == {"seconds": "90", "usd": None}


def test_simulation_prices_container_time_like_the_estimate(tmp_path: Path) -> None:
    est = code(tmp_path, "    seconds: 600\n    repeat: {fixed: 2}\n")
    sim = simulate(est, 20, sensitivity=False)
    assert sim.cost_at("p50") == est.ledger.totals.cost_usd


def test_container_seconds_on_a_round_of_server_tools_only_is_refused(tmp_path: Path) -> None:
    text = CODE.format(model="claude-sonnet-4-5", tool=ANTHROPIC_TOOL, extra="").replace(
        "  - tool: run\n",
        "  - {server_tools: [{tool: code_execution}], container_seconds: 60}\n  - tool: run\n",
    )
    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match="cannot have container_seconds"):
        estimate(path, as_of=AS_OF)
