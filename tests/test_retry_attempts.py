"""``retries.attempts`` (issue 16, item 6): a failing call takes N attempts, each failed one a full
request carrying the failed calls and error results before it, with hand-computed tokens and dollars.

Figures as in tests/test_dynamics.py: gpt-5 (o200k_base, exact; $1.25 / $10 per MTok), no tools or
system prompt. Request 1 is 107 input tokens; a call ``{tool: Read, call_tokens: 20}`` is 30 output
tokens, echoed as 34; a result of B tokens adds B + 12; the final answer is 50 output tokens. A failed
attempt writes the call again (30 out) and adds its echo and a 40-token error result (34 + 52 = 86).
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from agentcost.errors import InputError
from agentcost.loop.estimate import Estimate, estimate
from agentcost.loop.insights import checks
from agentcost.scenario.load import read_scenario

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)
M = Decimal(1_000_000)
IN, OUT = Decimal("1.25") / M, Decimal(10) / M  # gpt-5

HEAD = "version: 1\nmodel: gpt-5\ncaching: none\ntask: {tokens: 100}\nfinal: 50\nrounds:\n"
A = "  - {tool: Read, call_tokens: 20, result: 500}\n"
B = "  - {tool: Read, call_tokens: 20, result: 300}\n"
FAILED = 34 + 40 + 12  # what one failed attempt adds to every later request


def run(tmp_path: Path, text: str) -> Estimate:
    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")
    return estimate(path, as_of=AS_OF)


def io(est: Estimate) -> list[tuple[int, int]]:
    return [(r.usage.input_tokens, r.usage.output_tokens) for r in est.ledger.rows]


def test_three_attempts_add_two_requests_by_hand(tmp_path: Path) -> None:
    plain = run(tmp_path, HEAD + A + B)
    assert io(plain) == [(107, 30), (653, 30), (999, 50)]
    est = run(tmp_path, HEAD + A + B + "retries: {count: 1, attempts: 3, error: 40}\n")
    # the second tool round's call fails twice, then succeeds: two failed requests before it, the
    # second carrying the first's call and error; every later request carries both (2 x 86 = 172)
    assert io(est) == [
        (107, 30),
        (653, 30),
        (653 + FAILED, 30),
        (653 + 2 * FAILED, 30),
        (999 + 2 * FAILED, 50),
    ]
    assert [r.failed for r in est.ledger.rows] == [False, True, True, False, False]
    t = est.ledger.totals
    assert t.requests == plain.ledger.totals.requests + 2
    assert t.cost_usd == (107 + 653 + 739 + 825 + 1171) * IN + 170 * OUT == Decimal("0.00606875")
    # closed form: the two failed requests, plus the growth of the two requests after them
    extra = (653 + 739) * IN + 2 * 30 * OUT + 2 * (2 * FAILED) * IN
    assert t.cost_usd - plain.ledger.totals.cost_usd == extra == Decimal("0.00277")
    assert t.failed_requests == 2
    assert t.failed_usd == (653 + 739) * IN + 60 * OUT == Decimal("0.00234")


def test_two_attempts_is_the_default(tmp_path: Path) -> None:
    default = run(tmp_path, HEAD + A + B + "retries: {count: 1, error: 40}\n")
    two = run(tmp_path, HEAD + A + B + "retries: {count: 1, attempts: 2, error: 40}\n")
    assert io(default) == io(two) == [(107, 30), (653, 30), (739, 30), (1085, 50)]
    assert two.scenario.retries.attempts == 2 and two.scenario.retries.attempts_dist is None


def test_attempts_with_share_multiply_each_failing_call(tmp_path: Path) -> None:
    # share 0.5 of 2 tool rounds: 1 failing call, the second round's; 4 attempts: 3 failed requests
    est = run(tmp_path, HEAD + A + B + "retries: {share: 0.5, attempts: 4, error: 40}\n")
    assert [r.failed for r in est.ledger.rows] == [False, True, True, True, False, False]
    assert io(est)[-1] == (999 + 3 * FAILED, 50)


def test_a_distribution_of_attempts_is_priced_at_its_median(tmp_path: Path) -> None:
    est = run(tmp_path, HEAD + A + B + "retries: {count: 1, attempts: {uniform: [2, 4]}, error: 40}\n")
    assert est.scenario.retries.attempts == 3
    assert est.scenario.retries.attempts_dist is not None
    assert est.ledger.totals.cost_usd == Decimal("0.00606875")


def test_explain_counts_every_failed_attempt(tmp_path: Path) -> None:
    est = run(tmp_path, HEAD + A + B + "retries: {count: 1, attempts: 3, error: 40}\n")
    c = checks(est)
    assert c.failed_attempts == 2
    assert c.retry_usd == Decimal("0.00234")
    assert c.retry_share == Decimal("0.00234") / Decimal("0.00606875")
    assert c.retry_note == "2 failed attempts repeated (3 attempts per failing call, the last one succeeds)"


@pytest.mark.parametrize(
    ("retries", "message"),
    [
        ("{attempts: 3}", "attempts needs the failing calls"),
        ("{count: 1, attempts: 1}", "attempts must be at least 2, got 1"),
        ("{count: 1, attempts: 0}", "retries.attempts"),
    ],
)
def test_bad_attempts_are_one_line(tmp_path: Path, retries: str, message: str) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(HEAD + A + f"retries: {retries}\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_scenario(path)
    assert message in str(err.value)


def test_too_many_attempts_name_attempts(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(HEAD + A + "retries: {count: 1000, attempts: 1000}\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_scenario(path)
    assert "retries.attempts" in str(err.value) and "failed attempts" in str(err.value)
