"""``strict: true`` on a tool: its calls always match the schema, so the retries that ``retries.share``
/ ``count`` spread onto rounds calling only strict tools are dropped, with a note (issue 31, item 5)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from agentcost.loop.estimate import estimate_scenario
from agentcost.report.build import build_report
from agentcost.scenario.load import read_scenario

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)

SCENARIO = """version: 1
model: gpt-4o
caching: none
system: {{tokens: 100}}
task: {{tokens: 50}}
tools:
  - {{name: Read, input_schema: {{type: object}}{strict}}}
  - {{name: Edit, input_schema: {{type: object}}}}
rounds:
  - {{tool: Read, call_tokens: 20, result: 300}}
  - {{tool: Edit, call_tokens: 80, result: 30}}
  - {{tool: Read, call_tokens: 20, result: 300}}
  - {{tool: Edit, call_tokens: 80, result: 30}}
final: 100
retries: {{count: {count}}}
"""


def _report(tmp_path: Path, count: int, strict: str = ""):  # type: ignore[no-untyped-def]
    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO.format(count=count, strict=strict))
    return build_report(estimate_scenario(read_scenario(path), as_of=AS_OF))


def test_retries_of_rounds_calling_only_strict_tools_are_dropped(tmp_path: Path) -> None:
    loose = _report(tmp_path, 4)
    strict = _report(tmp_path, 4, ", strict: true")
    # count 4 over 4 tool rounds: floor((j+1)4/4) - floor(4j/4) = 1 failed attempt before each round;
    # Read is strict, so the two before the Read rounds (1 and 3) go: 5 + 4 -> 5 + 2 requests
    assert (loose.failed_requests, loose.totals.requests) == (4, 9)
    assert (strict.failed_requests, strict.totals.requests) == (2, 7)
    assert [r.failed for r in strict.requests] == [False, True, False, False, True, False, False]
    # what is left is exactly count 2 with no strict tool: floor((j+1)2/4) - floor(2j/4) is 0, 1, 0, 1,
    # the failures before the two Edit rounds
    same = _report(tmp_path, 2)
    assert (strict.totals.cost_usd, strict.totals.input_tokens) == (
        same.totals.cost_usd,
        same.totals.input_tokens,
    )
    assert strict.totals.cost_usd < loose.totals.cost_usd
    note = (
        "retries: 2 failing call(s) of retries fall on rounds calling only strict tools (Read) and are"
        " dropped: strict tool use makes every call match its schema"
    )
    assert note in strict.count_notes and not any("strict" in n for n in loose.count_notes)


def test_every_tool_strict_leaves_no_retry(tmp_path: Path) -> None:
    text = SCENARIO.format(count=4, strict=", strict: true").replace(
        "{name: Edit, input_schema: {type: object}}",
        "{name: Edit, input_schema: {type: object}, strict: true}",
    )
    path = tmp_path / "s.yaml"
    path.write_text(text)
    report = build_report(estimate_scenario(read_scenario(path), as_of=AS_OF))
    assert (report.failed_requests, report.totals.requests) == (0, 5)
    assert report.totals.cost_usd == _report(tmp_path, 0).totals.cost_usd  # as if no retries were written
