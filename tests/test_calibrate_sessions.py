"""Calibrating real Claude Code sessions: conversations that the reported cache shows to be one.

The session (tests/data/real/claude-code/x402/x402-session.jsonl, PROVENANCE.md there) is read by its
message chain as 6 conversations; each request's reported cache read shows the same conversation
going on, its cache warm. Calibrated as 6 cold scenarios it estimated $4.3831715 (+125%) against
$1.9448860 replayed; joined, the one scenario estimates within 15% of the replay.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from agentcost.commands.calibrate import calibrate_trace
from agentcost.commands.conversations import (
    calibrate_log,
    continues_cached,
    join_cached,
    split_conversations,
)
from agentcost.replay import load_trace, replay
from agentcost.replay.trace import RecordedCall, ReportedUsage, Trace

SESSION = Path(__file__).parent / "data" / "real" / "claude-code" / "x402" / "x402-session.jsonl"
AS_OF = datetime(2026, 11, 30, tzinfo=UTC)
# Claude Opus 4.7 list prices, $ per million tokens (anthropic.com/pricing, read 2026-12-07)
OPUS_47 = {"input": Decimal(5), "write_5m": Decimal("6.25"), "write_1h": Decimal(10), "read": Decimal("0.5")}
OPUS_47_OUT = Decimal(25)


def _replayed_by_hand(path: Path) -> tuple[int, Decimal]:
    """The session's requests and cost from the file alone: each request's last usage (a response
    split over several lines repeats it under one requestId), priced at Opus 4.7's list prices."""
    usage: dict[str, dict[str, object]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        data = json.loads(line)
        if data.get("type") != "assistant" or data["message"].get("model") == "<synthetic>":
            continue
        usage[data.get("requestId") or data["message"]["id"]] = data["message"]["usage"]
    total = Decimal(0)
    for u in usage.values():
        one_hour = int(u["cache_creation"]["ephemeral_1h_input_tokens"])  # type: ignore[index]
        five_min = int(u["cache_creation_input_tokens"]) - one_hour  # type: ignore[call-overload]
        total += (
            int(u["input_tokens"]) * OPUS_47["input"]  # type: ignore[call-overload]
            + five_min * OPUS_47["write_5m"]
            + one_hour * OPUS_47["write_1h"]
            + int(u["cache_read_input_tokens"]) * OPUS_47["read"]  # type: ignore[call-overload]
            + int(u["output_tokens"]) * OPUS_47_OUT  # type: ignore[call-overload]
        ) / 1_000_000
    return len(usage), total


def test_the_session_replays_at_its_hand_computed_cost() -> None:
    requests, cost = _replayed_by_hand(SESSION)
    assert (requests, cost) == (34, Decimal("1.9448860"))
    report = replay(load_trace(SESSION), as_of=AS_OF)
    assert len(report.requests) == 34
    assert report.totals.cost_usd == cost


def test_a_real_multi_conversation_session_calibrates_within_15_percent(tmp_path: Path) -> None:
    """Acceptance (issue 29): the calibrated scenario estimates within 15% of the replay."""
    trace = load_trace(SESSION)
    result = calibrate_log(trace, as_of=AS_OF, output=tmp_path / "session.yaml")
    _, replayed = _replayed_by_hand(SESSION)
    assert result.replayed_usd == replayed
    assert result.scenarios == ()  # one scenario, not a project of cold conversations
    assert result.estimated_usd == Decimal("1.9327320")
    assert abs(result.estimated_usd - replayed) / replayed <= Decimal("0.15")
    assert result.error == (result.estimated_usd - replayed) / replayed
    # the scenario written is the one estimated: estimated again from its text, the same dollars
    (tmp_path / "session.yaml").write_text(result.text, encoding="utf-8")
    from agentcost.api import estimate

    assert estimate(tmp_path / "session.yaml", as_of=AS_OF).total_cost_usd == result.estimated_usd
    assert "cache_ttl: 1h" in result.text  # the session writes 1-hour entries only


# The 6 parts the session's message chain breaks into (request indexes), as read before issue 29.
PARTS = [(1, 9), (10, 18), (19, 22), (23, 25), (26, 33), (34, 34)]


def _cut(trace: Trace) -> list[Trace]:
    return [
        dataclasses.replace(
            trace, calls=tuple(c for c in trace.calls if a <= c.index <= b), reported_totals=None
        )
        for a, b in PARTS
    ]


def test_the_cache_joins_the_parts_the_chain_split() -> None:
    trace = load_trace(SESSION)
    parts = _cut(trace)
    # each part's first request reads back at least what the previous request read
    reads = [(p.calls[0].reported, q.calls[-1].reported) for q, p in itertools.pairwise(parts)]
    assert [(b.cache_read_tokens, a.cache_read_tokens) for b, a in reads if a and b] == [
        (37145, 37145),
        (47857, 46518),
        (51536, 50471),
        (56471, 53705),
        (63871, 61455),
    ]
    joined = join_cached(parts)
    assert len(joined) == 1
    assert [c.index for c in joined[0].calls] == list(range(1, 35))
    assert len(join_cached(split_conversations(trace))) == 1


def test_the_parts_calibrated_cold_overestimate() -> None:
    """What the join fixes: each part calibrated alone starts cold and writes the whole context again
    at the 1-hour rate ($4.3831715, +125%)."""
    trace = load_trace(SESSION)
    cold = sum((calibrate_trace(p, as_of=AS_OF).estimated_usd for p in _cut(trace)), Decimal(0))
    assert cold == Decimal("4.3831715")
    assert cold > 2 * Decimal("1.9448860")


def _call(index: int, input_tokens: int, read: int, model: str | None = "claude-opus-4-7") -> RecordedCall:
    usage = ReportedUsage(input_tokens=input_tokens, output_tokens=100, cache_read_tokens=read)
    return RecordedCall(
        index=index, model=model, messages=None, tools=None, output_text=None, reported=usage, line=index
    )


@pytest.mark.parametrize(
    ("call", "joined"),
    [
        (_call(2, 52_000, 48_000), True),  # reads all the previous request read, and more is sent
        (_call(2, 50_000, 48_000), True),  # the same prompt again (a retry, a rewind)
        (_call(2, 20_000, 15_000), False),  # a new conversation: only the shared prefix is read
        (_call(2, 52_000, 40_000), False),  # reads less than before: the context changed
        (_call(2, 49_000, 48_000), False),  # fewer tokens sent: compacted or cleared
        (_call(2, 52_000, 0), False),  # nothing read: cold
        (_call(2, 52_000, 48_000, model="claude-haiku-4-5"), False),  # another model's cache
    ],
)
def test_continues_cached(call: RecordedCall, joined: bool) -> None:
    before = _call(1, 50_000, 48_000)
    assert continues_cached(before, call) is joined
    assert continues_cached(dataclasses.replace(before, reported=None), call) is False


def test_a_new_conversation_stays_a_scenario_of_its_own() -> None:
    trace = Trace(
        path="log.jsonl",
        format="anthropic-jsonl",
        model="claude-opus-4-7",
        calls=(
            _call(1, 30_000, 0),
            _call(2, 31_000, 29_000),
            _call(3, 20_000, 15_000),
            _call(4, 21_000, 19_900),
        ),
        reported_totals=None,
    )
    parts = [
        dataclasses.replace(trace, calls=trace.calls[:1]),
        *(dataclasses.replace(trace, calls=(c,)) for c in trace.calls[1:]),
    ]
    assert [[c.index for c in p.calls] for p in join_cached(parts)] == [[1, 2], [3, 4]]
