"""``limits.max_tokens``: each response's output (thinking included) is cut at the cap and billed there,
with a warning naming how many requests were cut and by how much (issue 31, item 5)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from agentcost.errors import InputError
from agentcost.loop.engines import PerRunEngine, VectorEngine
from agentcost.loop.estimate import estimate_scenario
from agentcost.loop.simulate import _Streams, slot_counts
from agentcost.report.build import build_report
from agentcost.scenario.load import read_scenario

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)

# gpt-4o, caching off: a tool call's output is name (Read: 1 token) + call_tokens + 9 (the call framing,
# agentcost.tokens.count), thinking on top; the final answer's output is its text.
SCENARIO = """version: 1
model: gpt-4o
caching: none
system: {tokens: 100}
task: {tokens: 50}
tools:
  - name: Read
    input_schema: {type: object, properties: {path: {type: string}}}
rounds:
  - {tool: Read, call_tokens: 20, result: 200}
  - {tool: Read, call_tokens: 300, result: 200}
  - {tool: Read, call_tokens: 20, thinking: 150, result: 200}
final: 500
"""


def _report(tmp_path: Path, cap: str = ""):  # type: ignore[no-untyped-def]
    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO + (f"limits: {{max_tokens: {cap}}}\n" if cap else ""))
    return build_report(estimate_scenario(read_scenario(path), as_of=AS_OF))


def test_each_response_is_billed_at_most_max_tokens(tmp_path: Path) -> None:
    before, after = _report(tmp_path), _report(tmp_path, "100")
    # outputs 1+20+9 = 30, 1+300+9 = 310, 30+150 = 180, 500 -> 30, 100, 100, 100
    assert [r.output_tokens for r in before.requests] == [30, 310, 180, 500]
    assert [r.output_tokens for r in after.requests] == [30, 100, 100, 100]
    assert (before.totals.output_tokens, after.totals.output_tokens) == (1_020, 330)
    # the input is what the scenario says either way (a real run would be truncated: the warning)
    assert before.totals.input_tokens == after.totals.input_tokens
    # 690 output tokens fewer at gpt-4o's $10 per million: $0.0069 exactly
    assert before.rates["output"] == Decimal(10)
    assert before.totals.cost_usd - after.totals.cost_usd == Decimal("0.0069")
    assert (
        "limits.max_tokens 100 cut the output of 3 of 4 requests (by 690 tokens): a real run would be"
        " truncated there"
    ) in after.warnings
    assert not any("max_tokens" in w for w in before.warnings)


def test_a_cap_above_every_output_changes_nothing(tmp_path: Path) -> None:
    assert _report(tmp_path, "500").totals == _report(tmp_path).totals  # the largest output is 500


@pytest.mark.parametrize("value", ["0", "-3", "1.5", "1e10"])
def test_max_tokens_must_be_a_positive_whole_number(tmp_path: Path, value: str) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO + f"limits: {{max_tokens: {value}}}\n")
    with pytest.raises(InputError) as err:
        read_scenario(path)
    text = str(err.value)
    assert "s.yaml:14: limits.max_tokens" in text and "\n" not in text


def test_the_vectorized_engine_caps_each_run_as_the_accountant_does(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(
        SCENARIO.replace("call_tokens: 300", "call_tokens: {uniform: [1, 300]}")
        .replace("thinking: 150", "thinking: {uniform: [0, 200]}")
        .replace("final: 500", "final: {uniform: [50, 150]}")
        + "limits: {max_tokens: 100}\n"
    )
    est = estimate_scenario(read_scenario(path), as_of=AS_OF)
    slots = slot_counts(est.scenario)
    draws = _Streams(est.scenario, 5, slots, None).next(20)
    fast, exact = VectorEngine(est, slots), PerRunEngine(est)
    a, b = fast.run(draws, 20), exact.run(draws, 20)
    costs = [Decimal(int(u)) / fast.scale for u in a.cost_units]
    assert costs == [Decimal(int(u)) / exact.scale for u in b.cost_units]
    # the same draws uncapped: no run is dearer with the cap, and the runs that drew an output over
    # 100 tokens (most: call_tokens up to 300, thinking up to 200 on a 30-token call) are cheaper
    loose = replace(est.scenario, limits=replace(est.scenario.limits, max_tokens=None))
    whole = VectorEngine(estimate_scenario(loose, as_of=AS_OF), slots)
    uncapped = [Decimal(int(u)) / whole.scale for u in whole.run(draws, 20).cost_units]
    assert all(c <= u for c, u in zip(costs, uncapped, strict=True))
    assert sum(c < u for c, u in zip(costs, uncapped, strict=True)) >= 15 and len(set(costs)) > 10


def test_explain_names_the_missing_output_cap_only_for_an_unbounded_output(tmp_path: Path) -> None:
    from agentcost.loop.insights import stop_rules

    def missing(thinking: str, limits: str) -> tuple[str, ...]:
        path = tmp_path / "s.yaml"
        path.write_text(SCENARIO.replace("thinking: 150", f"thinking: {thinking}") + f"limits: {limits}\n")
        est = estimate_scenario(read_scenario(path), as_of=AS_OF)
        stops = stop_rules(est, lambda s: estimate_scenario(s, as_of=AS_OF))
        return () if stops is None else stops.missing

    lognormal = "{lognormal: {median: 100, p90: 400}}"  # no upper bound: only max_tokens stops it
    assert missing(lognormal, "{max_rounds: 9}") == ("limits.max_budget_usd", "limits.max_tokens")
    assert missing(lognormal, "{max_rounds: 9, max_tokens: 500}") == ("limits.max_budget_usd",)
    assert missing("{uniform: [0, 400]}", "{max_rounds: 9}") == ("limits.max_budget_usd",)  # bounded
