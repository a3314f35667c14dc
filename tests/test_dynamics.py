"""Agent dynamics (issue 5): parallel calls, retries, result trimming, routing and max_budget_usd,
with hand-computed tokens and dollars, and properties of the accountant.

Hand figures use gpt-5 (o200k_base, exact; $1.25 / $10 per MTok; gpt-5-mini $0.25 / $2) with stated
token counts and no tools or system prompt, so that every request is built from:

* request 1: task 3 + 1 ("user") + 100 = 104, plus 3 reply-priming tokens = 107;
* a call ``{tool: Read, call_tokens: 20}``: output 1 ("Read") + 20 + 9 = 30; the assistant turn
  echoed: 3 + 1 ("assistant") + the calls; a result of B tokens: 3 + 1 ("tool") + 1 ("Read") + 7 + B
  = B + 12;
* the final answer: 50 output tokens.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcost.loop.estimate import Estimate, estimate, estimate_scenario
from agentcost.render.dynamics import agent_dict
from agentcost.report.build import build_report
from agentcost.report.notes import agent_lines
from agentcost.scenario.load import read_scenario as load_scenario
from agentcost.scenario.model import Content, Limits, Retries, Round, Scenario, ToolUse
from agentcost.tokens.count import count_tokens
from agentcost.tokens.dynamics import (
    DEFAULT_ERROR_TOKENS,
    failures_per_round,
    sequential_equivalent,
    without_routing,
)

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)
M = Decimal(1_000_000)
IN, OUT = Decimal("1.25") / M, Decimal(10) / M  # gpt-5
MINI_IN, MINI_OUT = Decimal("0.25") / M, Decimal(2) / M  # gpt-5-mini

HEAD = "version: 1\nmodel: gpt-5\ncaching: none\ntask: {tokens: 100}\nfinal: 50\n"
A = "  - {tool: Read, call_tokens: 20, result: 500}\n"
B = "  - {tool: Read, call_tokens: 20, result: 300}\n"
C = "  - {tool: Read, call_tokens: 20, result: 200}\n"


def run(tmp_path: Path, text: str, **options: object) -> Estimate:
    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")
    return estimate(path, as_of=AS_OF, **options)  # type: ignore[arg-type]


def io(est: Estimate) -> list[tuple[int, int]]:
    return [(r.usage.input_tokens, r.usage.output_tokens) for r in est.ledger.rows]


# ---------------------------------------------------------------------------------------------
# Parallel calls

PARALLEL = HEAD + "rounds:\n  - calls:\n  " + A + "  " + B


def test_parallel_calls_by_hand(tmp_path: Path) -> None:
    est = run(tmp_path, PARALLEL)
    # one response with both calls: output 30 + 30; echo 3 + 1 + 60 = 64; results 512 + 312 = 824
    (r,) = est.counts.rounds
    assert (r.output, r.echo, r.result) == (60, 64, 824)
    assert io(est) == [(107, 60), (107 + 64 + 824, 50)]
    assert est.ledger.totals.cost_usd == 1102 * IN + 110 * OUT == Decimal("0.0024775")
    assert est.ledger.rows[0].tools == ("Read", "Read")


def test_parallel_saving_against_one_call_per_round(tmp_path: Path) -> None:
    est = run(tmp_path, PARALLEL)
    # one per round: 107 in / 30 out; 107 + 34 + 512 = 653 / 30; 653 + 34 + 312 = 999 / 50
    sequential = (107 + 653 + 999) * IN + 110 * OUT
    assert sequential == Decimal("0.00329875")
    assert est.dynamics is not None and est.dynamics.sequential_usd == sequential
    assert est.dynamics.parallel_saving_usd == sequential - Decimal("0.0024775") == Decimal("0.00082125")
    alone = estimate_scenario(sequential_equivalent(est.scenario), as_of=AS_OF)
    assert io(alone) == [(107, 30), (653, 30), (999, 50)]
    report = build_report(est)
    assert agent_lines(report) == [
        "Parallel calls: saves $0.0008 against the same calls made one per round ($0.0033)."
    ]
    assert agent_dict(report) == {
        "parallel": {"sequential_usd": "0.00329875", "saving_usd": "0.00082125"},
        "retries": None,
        "routing": [],
        "budget_stop": None,
    }


def test_sequential_equivalent_keeps_the_response_keys_on_the_first_call() -> None:
    calls = tuple(ToolUse("t", Content(tokens=5), Content(tokens=n)) for n in (1, 2, 3))
    batch = Round(calls=calls, thinking=7, text=Content(text="hi"), line=4, model="m", seconds=Decimal(2))
    s = _scenario((batch, Round(calls=calls[:1])), max_rounds=1)
    seq = sequential_equivalent(s)
    assert [len(r.calls) for r in seq.rounds] == [1, 1, 1, 1]
    assert [r.thinking for r in seq.rounds[:3]] == [7, 0, 0]
    assert [r.text for r in seq.rounds[:3]] == [Content(text="hi"), None, None]
    assert {r.model for r in seq.rounds[:3]} == {"m"} and {r.seconds for r in seq.rounds[:3]} == {Decimal(2)}
    assert seq.limits.max_rounds == 3  # the same calls run: the first batch's


def test_anthropic_sends_the_results_in_one_user_message(no_ctok: None) -> None:
    calls = tuple(ToolUse("Read", Content(tokens=20), Content(tokens=n)) for n in (500, 300))
    s = replace(_scenario((Round(calls=calls),)), model="claude-sonnet-4-5")
    (batch,) = count_tokens(s, provider="anthropic", model_id="claude-sonnet-4-5").rounds
    one, two = count_tokens(
        sequential_equivalent(s), provider="anthropic", model_id="claude-sonnet-4-5"
    ).rounds
    call = one.output - 3  # the tool_use block: name + 20 + 37
    assert batch.output == 3 + 2 * call  # one response: output framing once
    assert batch.echo == 3 + 2 * call  # one assistant message
    assert batch.result == 3 + (11 + 500) + (11 + 300) == 825  # one user message, two tool_result blocks
    assert (one.result, two.result) == (3 + 11 + 500, 3 + 11 + 300)


# ---------------------------------------------------------------------------------------------
# Retries


def test_a_failed_call_is_a_full_request_by_hand(tmp_path: Path) -> None:
    est = run(tmp_path, HEAD + "rounds:\n" + A + B + "retries: {count: 1, error: 40}\n")
    # 1 failure over 2 tool rounds: the second fails (floor(2*1/2) - floor(1*1/2) = 1).
    # The failed attempt: the same call (30 out), echoed (34), answered by an error of 40 (+12 = 52).
    assert io(est) == [(107, 30), (653, 30), (653 + 34 + 52, 30), (739 + 34 + 312, 50)]
    assert [r.failed for r in est.ledger.rows] == [False, True, False, False]
    assert [r.round for r in est.ledger.rows] == [0, None, 1, None]
    t = est.ledger.totals
    assert t.cost_usd == (107 + 653 + 739 + 1085) * IN + 140 * OUT == Decimal("0.00463")
    assert t.failed_requests == 1
    assert t.failed_usd == 653 * IN + 30 * OUT == Decimal("0.00111625")
    assert t.failed_share == Decimal("0.00111625") / Decimal("0.00463")
    assert est.ledger.rounds_planned == est.ledger.rounds_run == 2
    line = agent_lines(build_report(est))
    assert line == [
        "Retries: 1 failed attempt (invalid call + error result) cost $0.0011, 24.1% of this run's cost."
    ]


def test_retry_share_is_spread_evenly_and_defaults_the_error(tmp_path: Path) -> None:
    s = _scenario(
        tuple(Round(calls=(ToolUse("t", Content(tokens=1), Content(tokens=1)),)) for _ in range(10))
    )
    assert failures_per_round(replace(s, retries=Retries(share=Decimal("0.2")))) == (0, 0, 0, 0, 1) * 2
    assert failures_per_round(replace(s, retries=Retries(share=Decimal("0.25")))) == (
        0,
        0,
        0,
        1,
        0,
        0,
        1,
        0,
        0,
        1,
    )  # 2.5 rounds half up to 3
    assert sum(failures_per_round(replace(s, retries=Retries(count=13)))) == 13
    est = run(tmp_path, HEAD + "rounds:\n" + A + "retries: {count: 1}\n")
    assert est.counts.rounds[0].failed and est.counts.rounds[0].result == DEFAULT_ERROR_TOKENS + 12


def test_max_rounds_drops_the_failed_attempts_of_rounds_not_run(tmp_path: Path) -> None:
    est = run(tmp_path, HEAD + "rounds:\n" + A + B + "retries: {count: 1}\nlimits: {max_rounds: 1}\n")
    assert io(est) == [(107, 30)] and est.ledger.truncated


# ---------------------------------------------------------------------------------------------
# Result trimming


def test_max_tokens_caps_every_result(tmp_path: Path) -> None:
    est = run(tmp_path, PARALLEL + "trim: {max_tokens: 300}\n")
    assert est.counts.rounds[0].result == 312 + 312  # 500 capped at 300
    assert io(est) == [(107, 60), (107 + 64 + 624, 50)]


def test_keep_last_replaces_older_results_by_a_placeholder(tmp_path: Path) -> None:
    est = run(tmp_path, HEAD + "rounds:\n" + A + B + C + "trim: {keep_last: 1}\n")
    # request 3: A's 500 becomes 10 (-490); request 4: B's 300 becomes 10 (-290)
    assert io(est) == [(107, 30), (653, 30), (653 + 346 - 490, 30), (509 + 246 - 290, 50)]
    assert [r.cleared_tokens for r in est.ledger.rows] == [0, 0, 490, 290]


def test_keep_last_writes_the_cache_again_from_the_edit_point(tmp_path: Path) -> None:
    big = "  - {tool: Read, call_tokens: 20, result: 3000}\n"
    text = "version: 1\nmodel: claude-sonnet-4-5\ntask: {tokens: 2000}\nfinal: 50\nrounds:\n" + big * 4
    plain = run(tmp_path, text)
    trimmed = run(tmp_path, text + "trim: {keep_last: 1}\n")
    # without trimming every request reads all but the newest turn; with it, the prefix up to the
    # first replaced result only, and writes the rest again
    for k in (2, 3, 4):
        before = (
            trimmed.ledger.rows[k - 1].usage.input_tokens - trimmed.ledger.rows[k].usage.cache_write_tokens
        )
        assert trimmed.ledger.rows[k].usage.cache_read_tokens < plain.ledger.rows[k].usage.cache_read_tokens
        assert trimmed.ledger.rows[k].usage.cache_write_tokens > plain.ledger.rows[k].usage.cache_write_tokens
        assert before >= 0


# ---------------------------------------------------------------------------------------------
# Routing

ROUTED = HEAD + "rounds:\n" + A + "  - {tool: Read, call_tokens: 20, result: 300, model: gpt-5-mini}\n"


def test_a_routed_round_is_priced_on_its_model_by_hand(tmp_path: Path) -> None:
    est = run(tmp_path, ROUTED)
    assert io(est) == [(107, 30), (653, 30), (999, 50)]  # the same tokenizer (o200k_base)
    assert [r.model for r in est.ledger.rows] == [None, "gpt-5-mini", None]
    costs = [r.cost.total_usd for r in est.ledger.rows]
    assert costs == [107 * IN + 30 * OUT, 653 * MINI_IN + 30 * MINI_OUT, 999 * IN + 50 * OUT]
    assert est.ledger.totals.cost_usd == Decimal("0.00240575")
    assert est.dynamics is not None
    assert est.dynamics.baselines == (
        ("gpt-5", (107 + 653 + 999) * IN + 110 * OUT),  # 0.00329875
        ("gpt-5-mini", (107 + 653 + 999) * MINI_IN + 110 * MINI_OUT),  # 0.00065975
    )
    assert agent_lines(build_report(est)) == [
        "Routing: $0.0024 routed; all on gpt-5 $0.0033, all on gpt-5-mini $0.0007"
        " (a model switch writes the cache again)."
    ]


def test_a_model_switch_breaks_the_cache(tmp_path: Path, no_ctok: None) -> None:
    big = "  - {tool: Read, call_tokens: 20, result: 3000}\n"
    head = "version: 1\nmodel: claude-sonnet-4-5\ntask: {tokens: 2000}\nfinal: 50\nrounds:\n"
    plain = run(tmp_path, head + big * 3)
    routed = run(tmp_path, head + big + big.replace("}", ", model: claude-haiku-4-5}") + big)
    p, r = plain.ledger.rows, routed.ledger.rows
    assert p[1].usage.cache_read_tokens > 0 and p[2].usage.cache_read_tokens > 0
    assert r[1].usage.cache_read_tokens == 0 and r[1].cache_write_total > 0  # haiku: nothing cached yet
    assert r[2].usage.cache_read_tokens == 0 and r[2].cache_write_total == r[2].usage.input_tokens - 4
    assert r[3].usage.cache_read_tokens > 0  # the same model again: reads what request 3 wrote


def test_a_round_on_the_scenario_model_is_no_switch(tmp_path: Path) -> None:
    est = run(tmp_path, ROUTED.replace("gpt-5-mini", "gpt-5"))
    assert est.counts.routes == () and est.dynamics is None
    assert [r.model for r in est.ledger.rows] == [None, None, None]


def test_an_unknown_routed_model_points_at_the_round(tmp_path: Path) -> None:
    from agentcost.errors import InputError

    with pytest.raises(InputError) as caught:
        run(tmp_path, ROUTED.replace("gpt-5-mini", "gpt-9-nano"))
    assert caught.value.line == 8 and caught.value.key == "model"


# ---------------------------------------------------------------------------------------------
# max_budget_usd


def test_max_budget_stops_between_requests(tmp_path: Path) -> None:
    est = run(tmp_path, HEAD + "rounds:\n" + A + B + "limits: {max_budget_usd: 0.001}\n")
    # request 1: $0.00043375 (under); request 2: 653 * 1.25 + 30 * 10 per M = $0.00111625, running
    # $0.00155 > $0.001: the agent sends nothing more
    assert io(est) == [(107, 30), (653, 30)]
    ledger = est.ledger
    assert ledger.budget_stop == 2 and ledger.truncated and ledger.rounds_run == 2
    assert ledger.totals.cost_usd == Decimal("0.00155")
    report = build_report(est)
    assert report.budget_stop == 2
    assert (
        "run stopped by limits.max_budget_usd (0.001 USD) after request 2: 2 of 2 rounds, no final answer"
        in (report.warnings)
    )


def test_a_budget_passed_by_the_last_request_stops_nothing(tmp_path: Path) -> None:
    est = run(tmp_path, HEAD + "rounds:\n" + A + B + "limits: {max_budget_usd: 0.003}\n")
    assert len(est.ledger.rows) == 3 and est.ledger.budget_stop is None and not est.ledger.truncated


# ---------------------------------------------------------------------------------------------
# Properties

sizes = st.integers(min_value=0, max_value=5000)
call = st.tuples(st.integers(min_value=1, max_value=300), sizes)  # (call tokens, result tokens)
batch = st.lists(call, min_size=1, max_size=4)


def _scenario(rounds: tuple[Round, ...], *, max_rounds: int | None = None, **kw: object) -> Scenario:
    return Scenario(
        path=Path("p.yaml"),
        model=str(kw.pop("model", "gpt-5")),
        model_line=None,
        provider=None,
        system=None,
        tools=(),
        tool_choice="auto",
        task=Content(tokens=100),
        rounds=rounds,
        final=Content(tokens=50),
        limits=Limits(max_rounds=max_rounds),
        **kw,  # type: ignore[arg-type]
    )


def _batches(spec: list[list[tuple[int, int]]]) -> tuple[Round, ...]:
    return tuple(
        Round(calls=tuple(ToolUse("Read", Content(tokens=c), Content(tokens=r)) for c, r in calls))
        for calls in spec
    )


MODELS = st.sampled_from(["gpt-5", "claude-sonnet-4-5"])
CACHING = st.sampled_from([None, "none", "prefix", "conversation"])
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FAST
@given(st.lists(batch, min_size=1, max_size=5), MODELS, CACHING)
def test_a_parallel_batch_never_costs_more_than_the_same_calls_in_sequence(
    no_ctok: None, spec: list[list[tuple[int, int]]], model: str, caching: str | None
) -> None:
    s = _scenario(_batches(spec), model=model, caching=caching)
    parallel = estimate_scenario(s, as_of=AS_OF, compare=False).ledger.totals.cost_usd
    sequential = estimate_scenario(
        sequential_equivalent(s), as_of=AS_OF, compare=False
    ).ledger.totals.cost_usd
    assert parallel <= sequential


@FAST
@given(st.lists(batch, min_size=0, max_size=6), st.integers(min_value=0, max_value=3))
def test_with_caching_off_totals_equal_the_closed_form(
    no_ctok: None, spec: list[list[tuple[int, int]]], fails: int
) -> None:
    """sum over requests of (B + appended so far) * input + output * rate, failed attempts included."""
    s = _scenario(_batches(spec), caching="none", retries=Retries(count=fails if spec else 0))
    est = estimate_scenario(s, as_of=AS_OF, compare=False)
    c = est.counts
    base = c.tools + c.system + c.task + c.per_request
    inputs = [base + sum(r.appended for r in c.rounds[:k]) for k in range(len(c.rounds) + 1)]
    outputs = [r.output for r in c.rounds] + [c.final_output]
    assert est.ledger.totals.cost_usd == sum(inputs) * IN + sum(outputs) * OUT
    assert est.ledger.totals.failed_requests == (fails if spec else 0)


@FAST
@given(st.lists(batch, min_size=0, max_size=5), batch, st.integers(min_value=0, max_value=5), MODELS, CACHING)
def test_adding_a_round_never_lowers_the_cost(
    no_ctok: None,
    spec: list[list[tuple[int, int]]],
    extra: list[tuple[int, int]],
    at: int,
    model: str,
    caching: str | None,
) -> None:
    """Anywhere without caching; at the end with caching (a round inserted earlier can prime the cache:
    with OpenAI's automatic caching a small extra request makes the later prompts cache hits)."""
    rounds = _batches(spec)
    at = min(at, len(rounds)) if caching == "none" else len(rounds)
    more = rounds[:at] + _batches([extra]) + rounds[at:]
    before = estimate_scenario(_scenario(rounds, model=model, caching=caching), as_of=AS_OF, compare=False)
    after = estimate_scenario(_scenario(more, model=model, caching=caching), as_of=AS_OF, compare=False)
    assert after.ledger.totals.cost_usd >= before.ledger.totals.cost_usd


def test_without_routing_puts_every_request_on_one_model() -> None:
    s = _scenario(tuple(replace(r, model="gpt-5-mini") for r in _batches([[(1, 1)], [(1, 1)]])))
    assert {r.model for r in without_routing(s).rounds} == {None}
    assert without_routing(s, "gpt-5-mini").model == "gpt-5-mini"


def test_every_key_of_the_issue_loads(tmp_path: Path) -> None:
    """The YAML of the brief: every dynamics key at once, estimated without error (on gpt-5.4: gpt-5
    has no tool search, facts.yaml tool_search)."""
    text = HEAD.replace("model: gpt-5\n", "model: gpt-5.4\n") + (
        "tools:\n"
        "  - {name: Read, description: r, input_schema: {}}\n"
        "  - {name: Grep, description: g, input_schema: {}, defer_loading: true}\n"
        "rounds:\n"
        "  - calls:\n"
        "      - {tool: Read, input: {file: a.py}, result: 800}\n"
        "      - {tool: Grep, call_tokens: 30, result: {text: found}}\n"
        "    model: gpt-5.4-mini\n"
        "  - {tool: Read, call_tokens: 20, result: 300}\n"
        "retries: {share: 0.5, error: 60}\n"
        "trim: {max_tokens: 2000}\n"
        "tool_search_stub: 9\n"
        "limits: {max_budget_usd: 0.50}\n"
    )
    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")
    est = estimate_scenario(load_scenario(path), as_of=AS_OF)
    assert est.ledger.totals.failed_requests == 1 and est.dynamics is not None
    assert est.dynamics.sequential_usd is not None and len(est.dynamics.baselines) == 2
