"""Carry cost (agentcost.loop.carry): each block's times sent and dollars, and the run split into the
fixed prefix, the re-sent history, output and other charges, exactly."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from agentcost.cli import run
from agentcost.loop.carry import Carry, shares
from agentcost.loop.estimate import Estimate, estimate
from tests.conftest import ROOT

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)
M = Decimal(1_000_000)

THREE_ROUNDS = """version: 1
model: {model}
caching: {caching}
system: 10
task: {task}
rounds:
  - {{tool: Read, call_tokens: 20, result: 1000}}
  - {{tool: Read, call_tokens: 20, result: 2000}}
  - {{tool: Read, call_tokens: 20, result: 3000}}
final: 50
"""


def _estimate(tmp_path: Path, text: str) -> Estimate:
    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")
    return estimate(path, as_of=AS_OF)


def _block(carry: Carry, name: str) -> tuple[int, int, Decimal]:
    (b,) = [b for b in carry.blocks if b.name == name]
    return b.tokens, b.times_sent, b.cost_usd


def test_uncached_closed_form(tmp_path: Path) -> None:
    """No caching: 3 rounds make 4 requests; the result written in round i is sent in requests
    i+1..4, so 4 - i times, every time at the input price ($2.50/MTok on gpt-4o)."""
    est = _estimate(tmp_path, THREE_ROUNDS.format(model="gpt-4o", caching="none", task=100))
    carry = Carry(est)
    rate = est.prices.input_mtok / M
    assert rate == Decimal("0.0000025")
    results = [r.result for r in est.counts.rounds]
    assert [r - body for r, body in zip(results, (1000, 2000, 3000), strict=True)] == [results[0] - 1000] * 3
    for i, size in enumerate(results, 1):
        tokens, times, usd = _block(carry, f"round {i} result (Read)")
        assert (tokens, times) == (size, 4 - i)
        assert usd == size * (4 - i) * rate
    # round 1's result as a figure: a 1,000-token body + 12 tokens of gpt-4o's tool-message framing,
    # sent in requests 2, 3 and 4: 3 x 1,012 = 3,036 tokens x $2.50/MTok = $0.00759
    assert _block(carry, "round 1 result (Read)") == (1012, 3, Decimal("0.00759"))
    fixed = [b for b in carry.blocks if b.group == "fixed"]
    assert {b.times_sent for b in fixed} == {4}  # the prefix is in every request
    split = carry.split
    t = est.ledger.totals
    assert split.output_usd == t.output_usd and split.other_usd == 0
    assert split.fixed_usd + split.history_usd == t.input_usd
    assert split.total_usd == t.cost_usd


def test_explicit_caching_writes_then_reads(tmp_path: Path) -> None:
    """Anthropic conversation caching: the result of round i is written in request i+1 (at the
    5-minute write price, $3.75/MTok on claude-sonnet-4-5) and read in each later request ($0.30)."""
    est = _estimate(
        tmp_path, THREE_ROUNDS.format(model="claude-sonnet-4-5", caching="conversation", task=2000)
    )
    carry = Carry(est)
    write, read = est.prices.cache_write_mtok / M, est.prices.cache_read_mtok / M
    assert (write, read) == (Decimal("0.00000375"), Decimal("0.0000003"))
    for i, size in enumerate((r.result for r in est.counts.rounds), 1):
        tokens, times, usd = _block(carry, f"round {i} result (Read)")
        assert (tokens, times) == (size, 4 - i)
        assert usd == size * write + size * (3 - i) * read
    assert carry.split.total_usd == est.ledger.totals.cost_usd


def test_shares_are_exact_and_follow_the_parts() -> None:
    # 3 tokens read for $0.10, 2 written for $0.07, 4 uncached for $0.04; blocks of 2, 4 and 3 tokens
    parts = [(3, Decimal("0.10")), (2, Decimal("0.07")), (4, Decimal("0.04"))]
    out = shares(parts, [2, 4, 3])
    # block 1: 2/3 of $0.10 cut to 1e-12; block 2: the last third, the write, a quarter of $0.04
    assert out[0] == Decimal("0.066666666667")
    assert out[1] == Decimal("0.10") - out[0] + Decimal("0.07") + Decimal("0.01")
    assert out[2] == Decimal("0.03")
    assert sum(out) == Decimal("0.21")


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "scenarios").glob("*.yaml")))
def test_split_is_the_cost_of_every_shipped_scenario(name: str) -> None:
    est = estimate(ROOT / "scenarios" / name, as_of=AS_OF)
    carry = Carry(est)
    split = carry.split
    assert split.total_usd == est.total_usd
    assert carry.complete
    own = carry.own_split
    assert own.fixed_usd + own.history_usd == sum((b.cost_usd for b in carry.blocks), Decimal(0))
    assert own.fixed_usd == sum((b.cost_usd for b in carry.blocks if b.group == "fixed"), Decimal(0))
    assert all("not split" not in b.name for b in carry.blocks)


def test_subagents_and_fees_enter_the_split(tmp_path: Path) -> None:
    """A subagent's run is split like its parent's and added in; fees are other_usd."""
    est = estimate(ROOT / "scenarios/subagent-research.yaml", as_of=AS_OF)
    carry = Carry(est)
    subs = [Carry(s).split for s in est.subagents.values()]
    assert len(subs) == 4
    assert carry.split.output_usd == est.ledger.totals.output_usd + sum(
        (s.output_usd for s in subs), Decimal(0)
    )
    assert carry.split.total_usd == est.total_usd
    # the subagent's answer comes back as its call's result, re-sent by the orchestrator
    assert _block(carry, "round 1 result (research subagent)")[1] == 4

    fees = THREE_ROUNDS.format(model="claude-sonnet-4-5", caching="conversation", task=2000).replace(
        "result: 1000}", "result: 1000, server_tools: [{tool: web_search, uses: 2, result: 500}]}"
    )
    est = _estimate(tmp_path, fees)
    split = Carry(est).split
    assert est.ledger.totals.fees_usd == Decimal("0.02")  # 2 searches at $10 per 1,000 (facts.yaml)
    assert split.other_usd == Decimal("0.02")
    assert split.total_usd == est.ledger.totals.cost_usd


def test_json_acceptance(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    code = run(["estimate", "scenarios/research.yaml", "--as-of", "2026-11-30", "--format", "json"])
    out, _ = capsys.readouterr()
    assert code == 0
    body = json.loads(out)
    t = {k: Decimal(v) for k, v in body["totals"].items() if k.endswith("_usd")}
    assert t["fixed_usd"] + t["history_usd"] + t["output_usd"] + t["other_usd"] == t["cost_usd"]
    assert t["cost_usd"] == Decimal("0.323569")
    first = body["carry"][0]
    assert {"block", "tokens", "times_sent", "cost_usd"} <= first.keys()
    # 30 rounds, 31 requests: round 2's page (3,500 + 13 framing tokens) is sent in requests 3..31
    (page,) = [b for b in body["carry"] if b["block"] == "round 2 result (fetch_page)"]
    assert (page["tokens"], page["times_sent"]) == (3513, 29)


def test_explain_names_the_heaviest_blocks(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("COLUMNS", "200")
    code = run(["estimate", "scenarios/research.yaml", "--as-of", "2026-11-30", "--explain"])
    out, _ = capsys.readouterr()
    assert code == 0
    # round 2's page: 3,513 tokens in requests 3..31, re-sent 28 times after the first; $0.0167 of
    # $0.3236 is 5.2% (the exact figures: test_json_acceptance and the carry list)
    assert (
        "1. round 2 result (fetch_page): 3,513 tokens in 29 requests (re-sent 28 times), $0.0167, 5.2% of the"
        " cost. Cut it: trim or summarise it (trim.max_tokens)" in out
    )
    # the split, each part over the cost: 0.002057875 / 0.323569 = 0.64%, 0.293341125 / 0.323569 = 90.66%
    assert "fixed prefix $0.0021 (0.6%), re-sent history $0.2933 (90.7%), output $0.0282 (8.7%)" in out


def test_a_cleared_result_is_carried_at_its_placeholder_size(tmp_path: Path) -> None:
    """trim.keep_last: 1 clears round 1's result before request 3: it is sent whole in request 2,
    then as its framing and placeholder in requests 3 and 4 (no caching: all at the input price)."""
    text = THREE_ROUNDS.format(model="gpt-4o", caching="none", task=100) + "trim: {keep_last: 1}\n"
    est = _estimate(tmp_path, text)
    rows = est.ledger.rows
    saved = rows[2].cleared_tokens  # round 1's body less its placeholder, cleared before request 3
    assert saved > 900 and rows[3].cleared_tokens > 1900  # then round 2's, before request 4
    carry = Carry(est)
    size = est.counts.rounds[0].result
    rate = est.prices.input_mtok / M
    assert _block(carry, "round 1 result (Read)") == (size, 3, (size + 2 * (size - saved)) * rate)
    assert carry.split.total_usd == est.ledger.totals.cost_usd


def test_the_split_alone_is_the_same_split(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past MAX_SENDS the blocks are not listed and the split is worked out per request in three
    pieces (the fixed head, the history, the framing): the shares at the pieces' ends are the same,
    so the same figures (context editing and routing included)."""
    from agentcost.loop import carry as module

    for name in ("long-run-context.yaml", "routing.yaml", "subagent-research.yaml"):
        est = estimate(ROOT / "scenarios" / name, as_of=AS_OF)
        listed = Carry(est)
        assert listed.complete and listed.blocks
        monkeypatch.setattr(module, "MAX_SENDS", 0)
        alone = Carry(est)
        assert not alone.complete and alone.blocks == ()
        assert alone.split == listed.split
        assert alone.requests == listed.requests
        monkeypatch.undo()


def test_an_explicit_cache_is_other(tmp_path: Path) -> None:
    """A Gemini explicit cache: its creation (4,000 prefix tokens x $1.25/MTok = $0.005) and an
    hour's storage (4,000 x $4.50/MTok-hour = $0.018) are other_usd."""
    text = THREE_ROUNDS.format(model="gemini-2.5-pro", caching="explicit", task=1000).replace(
        "system: 10", "system: 3000"
    )
    est = _estimate(tmp_path, text)
    storage = est.ledger.storage
    assert storage is not None
    assert (storage.creation_usd, storage.storage_usd) == (Decimal("0.005"), Decimal("0.018"))
    split = Carry(est).split
    assert split.other_usd == Decimal("0.023")
    assert split.total_usd == est.ledger.totals.cost_usd


def test_routing_with_context_editing_keeps_the_split_exact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A routed request after a clearing: its blocks cannot be sized on the other model, so its
    history is one block; every other request's blocks are named, and the split stays exact."""
    text = (
        "version: 1\nmodel: claude-sonnet-4-5\nsystem: 1500\ntask: 100\n"
        "context_editing: {trigger: 3000, keep: 1}\nrounds:\n"
        "  - {tool: Read, call_tokens: 20, result: 1000}\n"
        "  - {tool: Read, call_tokens: 20, result: 2000, model: claude-haiku-4-5}\n"
        "  - {tool: Read, call_tokens: 20, result: 3000}\n"
        "  - {tool: Read, call_tokens: 20, result: 1000, model: claude-haiku-4-5}\nfinal: 50\n"
    )
    est = _estimate(tmp_path, text)
    rows = est.ledger.rows
    assert [r.model for r in rows][3] == "claude-haiku-4-5" and rows[3].cleared_tokens > 0
    carry = Carry(est)
    (alone,) = [b for b in carry.blocks if b.name == "history (not split)"]
    assert alone.times_sent == 1  # request 4 only
    # round 3's result: 3,000 + 14 framing tokens as written; sent once (request 4 holds it unsplit)
    assert _block(carry, "round 3 result (Read)")[:2] == (est.counts.rounds[2].result, 1)
    assert carry.split.total_usd == est.total_usd
    from agentcost.loop import carry as module

    monkeypatch.setattr(module, "MAX_SENDS", 0)  # the split alone, from the prompt's two ends: the same
    assert Carry(est).requests == carry.requests


def test_the_svg_caption_gives_the_split() -> None:
    from agentcost.render.output import Format, render_text
    from agentcost.report.build import build_report

    report = build_report(estimate(ROOT / "scenarios/research.yaml", as_of=AS_OF))
    svg = render_text(report, Format.svg)
    assert "Split: fixed prefix $0.0021 (0.6%), re-sent history $0.2933 (90.7%)," in svg


def test_block_names_are_escaped_for_their_medium() -> None:
    """A block's name holds tool names from the user's files: literal in Markdown, no terminal escapes."""
    from agentcost.infra.text import markdown, plain
    from agentcost.loop.carry import Block, Carried
    from agentcost.render.insights import carried_text

    block = Block("round 1 result (a|b*[x](y)\x1b[31m)", "history", 1, 100, 3, Decimal("0.001"))
    c = Carried(block, Decimal("0.25"), "trim or summarise it (trim.max_tokens)")
    md = carried_text(c, (), markdown)
    # the escape shown as text (\x1b, its backslash escaped for Markdown), markup characters escaped
    assert md.startswith(
        "round 1 result (a\\|b\\*\\[x\\](y)\\\\x1b\\[31m): 100 tokens in 3 requests (re-sent 2"
    )
    assert "\x1b" not in carried_text(c, (), plain)
    assert "$0.0010, 25.0% of the cost" in md
