"""Server-side tools (web search, web fetch, code execution): per-use fees, free quotas, the tokens
their results add, and Anthropic's iteration cap (``pause_turn``). Hand-computed tokens and dollars.

Every part is a stated token count. Claude (``no_ctok``): the task is 3 + 1,000 = 1,003 tokens and
4 more close every request (B = 1,007); the client call ``read`` (20 argument tokens) echoes as
3 + 2 + 20 + 37 = 62 and outputs 3 + 59 = 62, its result is 3 + 11 + 500 = 514; the final answer
3 + 100 = 103. Gemini (ratio 1.0, no framing): task 1,000 + 1 per request (B = 1,001); the call
echoes and outputs 1 + 20 = 21, its result 1 + 500 = 501; the final answer 100.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from agentcost import facts
from agentcost.errors import InputError
from agentcost.loop.caching import pricer_for
from agentcost.loop.estimate import Estimate, estimate_scenario
from agentcost.prices.genai import known_model_ids
from agentcost.prices.lookup import resolve_model
from agentcost.prices.pricing import Usage
from agentcost.scenario.model import Content, Round, Scenario, ServerToolName, ServerToolUse, ToolUse
from agentcost.tokens.count import count_tokens
from agentcost.tokens.request import RequestUsage

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)
MILLION = Decimal(1_000_000)


def scenario(model: str, *rounds: Round, **overrides: Any) -> Scenario:
    base: dict[str, Any] = {
        "path": Path("server.yaml"),
        "model": model,
        "model_line": None,
        "provider": None,
        "system": None,
        "tools": (),
        "tool_choice": "auto",
        "task": Content(tokens=1_000),
        "rounds": rounds,
        "final": Content(tokens=100),
        "caching": "none",
    }
    base.update(overrides)
    return Scenario(**base)


def searching(*uses: tuple[ServerToolName, int, int | None], line: int | None = None) -> Round:
    """A round with the client call ``read`` and server tools (tool, uses, result tokens)."""
    call = ToolUse(tool="read", input=Content(tokens=20), result=Content(tokens=500))
    server = tuple(
        ServerToolUse(tool, n, None if result is None else Content(tokens=result)) for tool, n, result in uses
    )
    return Round(calls=(call,), server_tools=server, line=line)


def run(model: str, *rounds: Round, **overrides: Any) -> Estimate:
    return estimate_scenario(scenario(model, *rounds, **overrides), as_of=AS_OF)


def usd(rate: str, tokens: int) -> Decimal:
    return Decimal(rate) * tokens / MILLION


# ----------------------------------------------------------------------------------------------
# Facts tables
# ----------------------------------------------------------------------------------------------


def test_every_server_tool_row_is_valid() -> None:
    for table in ("server_tool_fees", "server_tool_free_quota", "server_tool_iteration_cap"):
        rows = facts.table_rows(table)
        assert rows, table
        for row in rows:
            assert str(row["source"]).strip()
            read = row["read"]
            assert isinstance(read, date) and read <= date(2026, 11, 30)
            provider = str(row["provider"])
            for pattern in row["models"]:  # type: ignore[attr-defined]
                model = str(pattern).rstrip("*") + ("x" if str(pattern).endswith("*") else "")
                if table == "server_tool_iteration_cap":
                    assert facts.server_tool_iteration_cap(provider, model) is not None
                    continue
                value = row["value"]
                assert isinstance(value, dict) and value["tool"] in facts.FEE_TOOLS
                if table == "server_tool_fees":
                    fee = facts.server_tool_fee(provider, model, value["tool"])
                    assert fee is not None and fee.value.usd_per_1000 >= 0
                else:
                    quota = facts.server_tool_free_quota(provider, model, value["tool"])
                    assert quota is not None and quota.value.amount > 0


@pytest.mark.parametrize(
    ("provider", "model", "tool", "usd_per_1000", "per"),
    [
        ("anthropic", "claude-sonnet-4-5", "web_search", "10", "use"),
        ("anthropic", "claude-opus-5-5", "web_fetch", "0", "use"),
        ("anthropic", "claude-sonnet-4-5", "code_execution", "0", "use"),
        ("openai", "gpt-5", "web_search", "10", "use"),
        ("openai", "gpt-5", "code_execution", "30", "request"),
        ("google", "gemini-3.5-flash", "web_search", "14", "use"),
        ("google", "gemini-3.1-pro-preview", "web_search", "14", "use"),
        ("google", "gemini-2.5-pro", "web_search", "35", "request"),
        ("google", "gemini-2.5-flash-lite", "web_search", "35", "request"),
        ("google", "gemini-4-argon", "web_search", "14", "use"),  # documented default
        ("google", "gemini-3.5-flash", "web_fetch", "0", "use"),
        ("google", "gemini-3.5-flash", "code_execution", "0", "use"),
    ],
)
def test_fees(provider: str, model: str, tool: str, usd_per_1000: str, per: str) -> None:
    fee = facts.server_tool_fee(provider, model, tool)
    assert fee is not None
    assert (fee.value.usd_per_1000, fee.value.per) == (Decimal(usd_per_1000), per)


def test_tools_a_provider_does_not_offer() -> None:
    assert facts.server_tool_fee("openai", "gpt-5", "web_fetch") is None


def test_free_quotas_and_cap() -> None:
    q3 = facts.server_tool_free_quota("google", "gemini-3.8-flash", "web_search")
    assert q3 is not None and (q3.value.amount, q3.value.per, q3.value.period) == (5_000, "use", "month")
    assert "shared across all Gemini 3.x" in q3.value.scope
    for model in ("gemini-2.5-flash", "gemini-2.5-flash-lite", "gemini-2.5-pro"):
        q = facts.server_tool_free_quota("google", model, "web_search")
        assert q is not None and (q.value.amount, q.value.per, q.value.period) == (1_500, "request", "day")
    code = facts.server_tool_free_quota("anthropic", "claude-sonnet-4-5", "code_execution")
    assert code is not None and (code.value.amount, code.value.per) == (1_550, "hour")
    assert facts.server_tool_free_quota("anthropic", "claude-sonnet-4-5", "web_search") is None
    assert facts.server_tool_free_quota("google", "gemini-4-argon", "web_search") is None
    cap = facts.server_tool_iteration_cap("anthropic", "claude-sonnet-4-5")
    assert cap is not None and cap.value == 10 and "pause_turn" in cap.source
    assert facts.server_tool_iteration_cap("openai", "gpt-5") is None
    assert facts.server_tool_iteration_cap("google", "gemini-2.5-pro") is None


def test_fees_agree_with_genai_prices() -> None:
    """Where genai-prices has a web search rate (it is used), facts.yaml says the same rate."""
    checked = 0
    for provider in ("anthropic", "openai", "google"):
        for model in known_model_ids(provider):
            prices = resolve_model(model, provider=provider, as_of=AS_OF)
            gp = {rate.key: rate.base for rate in prices.rates()}.get("web_searches_kcount")
            if gp is None:
                continue
            fee = facts.server_tool_fee(provider, model, "web_search")
            assert fee is not None and fee.value.usd_per_1000 == gp, model
            checked += 1
    assert checked > 50
    assert {rate.key: rate.base for rate in resolve_model("gemini-2.5-pro", as_of=AS_OF).rates()}[
        "web_searches_kcount"
    ] == Decimal(35)


# ----------------------------------------------------------------------------------------------
# Counts
# ----------------------------------------------------------------------------------------------


@pytest.mark.usefixtures("no_ctok")
def test_anthropic_results_are_inline_and_echoed() -> None:
    counts = count_tokens(
        scenario("claude-sonnet-4-5", searching(("web_search", 3, 3_000))),
        provider="anthropic",
        model_id="claude-sonnet-4-5",
    )
    r = counts.rounds[0]
    assert r.tools == ("read", "web_search")
    assert (r.output, r.echo, r.result, r.inline) == (62, 62 + 3_000, 514, 3_000)
    assert (r.server_uses, r.continuations, r.transient) == ((("web_search", 3),), 0, 0)


def test_gemini_search_results_are_inline_only_code_output_is_echoed() -> None:
    counts = count_tokens(
        scenario(
            "gemini-3.5-flash",
            searching(("web_search", 3, 3_000), ("web_fetch", 1, 800), ("code_execution", 2, 300)),
        ),
        provider="google",
        model_id="gemini-3.5-flash",
    )
    r = counts.rounds[0]
    assert (r.echo, r.inline) == (21 + 300, 3_000 + 800 + 300)
    assert r.server_uses == (("web_search", 3), ("web_fetch", 1), ("code_execution", 2))


def test_gemini_2_5_bills_one_grounded_prompt_per_response() -> None:
    counts = count_tokens(
        scenario("gemini-2.5-pro", searching(("web_search", 2, 100), ("web_search", 3, 200))),
        provider="google",
        model_id="gemini-2.5-pro",
    )
    assert counts.rounds[0].server_uses == (("web_search", 1),)
    assert counts.rounds[0].inline == 300
    assert any("billed once per response" in n for n in counts.notes)


@pytest.mark.usefixtures("no_ctok")
@pytest.mark.parametrize(("uses", "continuations"), [(1, 0), (10, 0), (11, 1), (12, 1), (20, 1), (21, 2)])
def test_continuations_past_the_cap(uses: int, continuations: int) -> None:
    counts = count_tokens(
        scenario("claude-sonnet-4-5", searching(("web_search", uses, None))),
        provider="anthropic",
        model_id="claude-sonnet-4-5",
    )
    assert counts.rounds[0].continuations == continuations


@pytest.mark.usefixtures("no_ctok")
def test_the_cap_counts_every_server_tool() -> None:
    counts = count_tokens(
        scenario("claude-sonnet-4-5", searching(("web_search", 8, None), ("web_fetch", 5, None))),
        provider="anthropic",
        model_id="claude-sonnet-4-5",
    )
    assert counts.rounds[0].continuations == 1
    assert any("pause_turn" in n for n in counts.notes)


def test_no_cap_outside_anthropic() -> None:
    counts = count_tokens(
        scenario("gemini-3.5-flash", searching(("web_search", 40, None))),
        provider="google",
        model_id="gemini-3.5-flash",
    )
    assert counts.rounds[0].continuations == 0


def test_a_tool_the_provider_does_not_offer_is_an_error() -> None:
    with pytest.raises(InputError) as caught:
        count_tokens(
            scenario("gpt-5", searching(("web_fetch", 1, None), line=12)),
            provider="openai",
            model_id="gpt-5",
        )
    err = caught.value
    assert (err.line, err.key) == (12, "server_tools")
    assert "gpt-5 has no server-side web_fetch tool" in str(err)
    assert "web_search, code_execution" in str(err)


def test_quota_is_drawn_in_order() -> None:
    """5,000 free Gemini 3.x searches: round 1's 3,000 are free, 2,000 of round 2's 3,000 too."""
    big = searching(("web_search", 3_000, None))
    counts = count_tokens(
        scenario("gemini-3.5-flash", big, big, server_tool_quota="available"),
        provider="google",
        model_id="gemini-3.5-flash",
    )
    assert [r.server_uses for r in counts.rounds] == [(("web_search", 0),), (("web_search", 1_000),)]
    assert any("5,000 of 6,000 billable uses inside the free quota" in n for n in counts.notes)
    spent = count_tokens(
        scenario("gemini-3.5-flash", big, big), provider="google", model_id="gemini-3.5-flash"
    )
    assert [r.server_uses for r in spent.rounds] == [(("web_search", 3_000),)] * 2
    assert any("assumed spent" in n for n in spent.notes)


# ----------------------------------------------------------------------------------------------
# Acceptance: dollars by hand
# ----------------------------------------------------------------------------------------------


@pytest.mark.usefixtures("no_ctok")
def test_three_web_searches_on_anthropic() -> None:
    """claude-sonnet-4-5 ($3 / $15 per MTok, $10 per 1,000 searches): 3 searches, 3,000 result tokens."""
    est = run("claude-sonnet-4-5", searching(("web_search", 3, 3_000)))
    first, final = est.ledger.rows
    # request 1 reads the results within its response; request 2 carries them in the echo
    assert first.usage.input_tokens == 1_007 + 3_000 == 4_007
    assert final.usage.input_tokens == 1_007 + (62 + 3_000) + 514 == 4_583
    assert first.usage.web_searches == 3 and final.usage.web_searches == 0
    assert first.cost.fees_usd == Decimal("0.03")
    t = est.ledger.totals
    assert t.input_usd == usd("3", 8_590) == Decimal("0.02577")
    assert t.output_usd == usd("15", 62 + 103) == Decimal("0.002475")
    assert t.fees_usd == Decimal("0.03")
    assert t.cost_usd == Decimal("0.058245")
    # Anthropic has no free web search quota: "available" changes nothing
    available = run("claude-sonnet-4-5", searching(("web_search", 3, 3_000)), server_tool_quota="available")
    assert available.ledger.totals.cost_usd == Decimal("0.058245")


def test_three_web_searches_on_gemini_3_past_the_free_quota() -> None:
    """gemini-3.5-flash ($1.50 / $9 per MTok, $14 per 1,000 queries): $0.042 in fees."""
    est = run("gemini-3.5-flash", searching(("web_search", 3, 3_000)))
    first, final = est.ledger.rows
    assert first.usage.input_tokens == 1_001 + 3_000 == 4_001
    assert final.usage.input_tokens == 1_001 + 21 + 501 == 1_523  # grounding results not re-sent
    t = est.ledger.totals
    assert t.input_usd == usd("1.5", 5_524) == Decimal("0.008286")
    assert t.output_usd == usd("9", 21 + 100) == Decimal("0.001089")
    assert t.fees_usd == Decimal("0.042")
    assert t.cost_usd == Decimal("0.051375")
    # inside the free quota (5,000 per month shared by Gemini 3.x), the same run costs tokens only
    free = run("gemini-3.5-flash", searching(("web_search", 3, 3_000)), server_tool_quota="available")
    assert free.ledger.totals.fees_usd == 0
    assert free.ledger.totals.cost_usd == Decimal("0.009375")


def test_three_web_searches_on_gemini_2_5_pro() -> None:
    """gemini-2.5-pro ($1.25 / $10, genai-prices' $35 per 1,000 grounded prompts): 3 queries in one
    response are one grounded prompt, $0.035; inside the 1,500/day quota, $0."""
    est = run("gemini-2.5-pro", searching(("web_search", 3, 3_000)))
    t = est.ledger.totals
    assert est.ledger.rows[0].usage.web_searches == 1
    assert t.input_usd == usd("1.25", 5_524) == Decimal("0.006905")
    assert t.output_usd == usd("10", 121) == Decimal("0.00121")
    assert t.fees_usd == Decimal("0.035")
    assert t.cost_usd == Decimal("0.043115")
    free = run("gemini-2.5-pro", searching(("web_search", 3, 3_000)), server_tool_quota="available")
    assert free.ledger.totals.cost_usd == Decimal("0.008115")


@pytest.mark.usefixtures("no_ctok")
def test_twelve_searches_pause_once() -> None:
    """12 searches in one Claude response: the 10-iteration cap stops it with pause_turn, and one
    continuation re-sends the whole context (no new output)."""
    est = run("claude-sonnet-4-5", searching(("web_search", 12, 6_000)))
    rows = est.ledger.rows
    assert [r.index for r in rows] == [1, 2, 3]
    assert [r.kind for r in rows] == ["tool_use", "tool_use", "final"]
    assert rows[0].tools == rows[1].tools == ("read", "web_search")
    assert [r.continuation for r in rows] == [False, True, False]
    assert [r.usage.input_tokens for r in rows] == [7_007, 7_007, 1_007 + 6_062 + 514]
    assert [r.usage.output_tokens for r in rows] == [62, 0, 103]
    assert [r.usage.web_searches for r in rows] == [12, 0, 0]
    t = est.ledger.totals
    assert t.requests == 3
    assert t.input_usd == usd("3", 7_007 * 2 + 7_583) == Decimal("0.064791")
    assert t.output_usd == Decimal("0.002475")
    assert t.fees_usd == Decimal("0.12")
    assert t.cost_usd == Decimal("0.187266")
    assert rows[-1].running_usd == t.cost_usd


@pytest.mark.usefixtures("no_ctok")
def test_a_continuation_reads_what_its_request_cached() -> None:
    est = run(
        "claude-sonnet-4-5",
        searching(("web_search", 12, 6_000)),
        task=Content(tokens=2_000),
        caching="conversation",
    )
    rows = est.ledger.rows
    assert [(r.usage.cache_read_tokens, r.cache_write_total) for r in rows] == [
        (0, 2_003),  # request 1 writes its cacheable part (results read inline are not cached)
        (2_003, 0),  # the continuation sends the same context: all of it read, nothing written
        (2_003, 6_062 + 514),
    ]


def test_openai_code_execution_priced_from_facts() -> None:
    """genai-prices has no code_executions rate: facts.yaml's $0.03 per response that runs code."""
    est = run("gpt-5", searching(("code_execution", 4, 300)), caching="none")
    first = est.ledger.rows[0]
    assert first.usage.code_executions == 1
    assert first.cost.fees_usd == Decimal("0.03")
    assert first.cost.total_usd == first.cost.input_usd + first.cost.output_usd + Decimal("0.03")
    # the code output is content: read inline, and re-sent in the final request
    assert est.counts.rounds[0].inline == 300
    assert est.ledger.rows[1].usage.input_tokens - est.ledger.rows[0].usage.input_tokens == (
        est.counts.rounds[0].appended - 300
    )


@pytest.mark.usefixtures("no_ctok")
def test_anthropic_fetch_and_code_execution_cost_tokens_only() -> None:
    est = run("claude-sonnet-4-5", searching(("web_fetch", 2, 5_000), ("code_execution", 1, 200)))
    # no per-use fee; the container's minimum 5 minutes at $0.05/h (tests/test_container_time.py)
    assert est.ledger.totals.fees_usd == est.ledger.totals.container_usd == Decimal("0.004166667")
    assert est.ledger.rows[0].usage.web_fetches == 2
    assert est.counts.rounds[0].echo == 62 + 5_200


def test_pricer_uses_genai_prices_where_it_has_a_rate() -> None:
    price = pricer_for(resolve_model("claude-sonnet-4-5", as_of=AS_OF))
    cost = price(RequestUsage(input_tokens=0, output_tokens=0, web_searches=1_000, web_fetches=7))
    zero, ten = Decimal(0), Decimal(10)
    assert (cost.input_usd, cost.output_usd, cost.fees_usd, cost.total_usd) == (zero, zero, ten, ten)


def test_usage_checks_uses() -> None:
    with pytest.raises(InputError, match="web_searches must be a whole number"):
        Usage(input_tokens=1, output_tokens=1, web_searches=-1)


@pytest.mark.usefixtures("no_ctok")
def test_report_labels_continuations_and_shows_fees() -> None:
    from rich.console import Console

    from agentcost.render.table import render_table
    from agentcost.report.build import build_report

    report = build_report(run("claude-sonnet-4-5", searching(("web_search", 12, 6_000))))
    assert [r.label for r in report.requests] == [
        "read, web_search",
        "read, web_search (continued)",
        "final answer",
    ]
    assert report.totals.fees_usd == Decimal("0.12")
    console = Console(width=200, record=True, color_system=None)
    console.print(render_table(report, verbose=True))
    shown = console.export_text()
    assert "read, web_search (continued)" in shown
    assert "+ server-tool fees $0.12" in shown  # the total's breakdown, as report/fmt words it
    plain = build_report(run("claude-sonnet-4-5", searching()))
    console = Console(width=200, record=True, color_system=None)
    console.print(render_table(plain, verbose=True))
    assert "server-tool fees" not in console.export_text()  # nothing said when there are none


# ----------------------------------------------------------------------------------------------
# Rounds of server tools only: they run inside the next round's response (no request of their own)
# ----------------------------------------------------------------------------------------------

CLAUDE_HEAD = "version: 1\nmodel: claude-sonnet-4-5\ncaching: none\ntask: {tokens: 1000}\nfinal: 100\n"


def load(tmp_path: Path, text: str) -> Scenario:
    from agentcost.scenario.load import read_scenario

    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")
    return read_scenario(path)


@pytest.mark.usefixtures("no_ctok")
def test_a_round_of_server_tools_only_is_the_next_responses(tmp_path: Path) -> None:
    """Three searches, then the call read: one response, so the same two requests and dollars as the
    round that carries both (test_three_web_searches_on_anthropic: $0.058245)."""
    s = load(
        tmp_path,
        CLAUDE_HEAD
        + "rounds:\n"
        + "  - server_tools: [{tool: web_search, uses: 3, result: 3000}]\n"
        + "  - {tool: read, call_tokens: 20, result: 500}\n",
    )
    assert len(s.rounds) == 1
    merged = s.rounds[0]
    expected = searching(("web_search", 3, 3_000))
    assert (merged.calls, merged.server_tools) == (expected.calls, expected.server_tools)
    assert (merged.line, merged.server_tools[0].line) == (8, 7)  # the response's line; the search's own
    est = estimate_scenario(s, as_of=AS_OF)
    first, final = est.ledger.rows
    assert first.usage.input_tokens == 1_007 + 3_000 == 4_007
    assert final.usage.input_tokens == 1_007 + (62 + 3_000) + 514 == 4_583
    assert (first.usage.web_searches, first.tools, first.round) == (3, ("read", "web_search"), 0)
    assert est.ledger.totals.requests == 2 and est.ledger.rounds_planned == 1
    assert est.ledger.totals.cost_usd == Decimal("0.058245")


@pytest.mark.usefixtures("no_ctok")
def test_server_only_rounds_join_the_next_response_and_pause_once(tmp_path: Path) -> None:
    """8 searches in a round of their own, then read with 5 fetches: 13 iterations in one response,
    past Anthropic's cap of 10, so one pause_turn continuation. Results 4,000 + 2,000 are read inline
    and re-sent (echo 62 + 6,000). Input 3 x (7,007 + 7,007 + 7,583) = $0.064791, output
    15 x (62 + 103) = $0.002475, 8 searches $0.08: $0.147266."""
    s = load(
        tmp_path,
        CLAUDE_HEAD
        + "rounds:\n"
        + "  - server_tools: [{tool: web_search, uses: 8, result: 4000}]\n"
        + "  - tool: read\n    call_tokens: 20\n    result: 500\n"
        + "    server_tools: [{tool: web_fetch, uses: 5, result: 2000}]\n",
    )
    assert [u.tool for u in s.rounds[0].server_tools] == ["web_search", "web_fetch"]
    est = estimate_scenario(s, as_of=AS_OF)
    rows = est.ledger.rows
    assert [r.continuation for r in rows] == [False, True, False]
    assert [r.usage.input_tokens for r in rows] == [7_007, 7_007, 1_007 + 6_062 + 514]
    assert [r.usage.output_tokens for r in rows] == [62, 0, 103]
    assert [(r.usage.web_searches, r.usage.web_fetches) for r in rows] == [(8, 5), (0, 0), (0, 0)]
    t = est.ledger.totals
    assert t.input_usd == usd("3", 7_007 * 2 + 7_583) == Decimal("0.064791")
    assert t.output_usd == Decimal("0.002475")
    assert t.fees_usd == Decimal("0.08")
    assert t.cost_usd == Decimal("0.147266")


def test_server_tools_before_a_chat_turn_on_gemini(tmp_path: Path) -> None:
    """gemini-3.5-flash with {google_search: {}} in tools: 3 searches (3,000 result tokens, read
    inline, not re-sent), then a 50-token reply and a 20-token user message. Request 1: 1,001 +
    3,000 = 4,001 in, 50 out; the final request: 1,001 + 50 + 20 = 1,071 in, 100 out. $1.50 x 5,072
    + $9 x 150 per MTok + 3 x $14 / 1,000 = 0.007608 + 0.00135 + 0.042 = $0.050958."""
    s = load(
        tmp_path,
        "version: 1\nmodel: gemini-3.5-flash\ncaching: none\ntools: [{google_search: {}}]\n"
        "task: {tokens: 1000}\nfinal: 100\nrounds:\n"
        "  - server_tools: [{tool: web_search, uses: 3, result: 3000}]\n"
        "  - {reply: 50, user: 20}\n",
    )
    est = estimate_scenario(s, as_of=AS_OF)
    first, final = est.ledger.rows
    assert (first.kind, first.tools, first.usage.input_tokens, first.usage.output_tokens) == (
        "reply",
        ("web_search",),
        4_001,
        50,
    )
    assert (final.usage.input_tokens, final.usage.output_tokens) == (1_071, 100)
    t = est.ledger.totals
    assert (t.input_usd, t.output_usd, t.fees_usd) == (
        Decimal("0.007608"),
        Decimal("0.00135"),
        Decimal("0.042"),
    )
    assert t.cost_usd == Decimal("0.050958")


@pytest.mark.usefixtures("no_ctok")
def test_server_tools_declared_in_tools_add_no_tokens(tmp_path: Path) -> None:
    """Anthropic's own entry, options and all, declares web_search: no tool definition, no hidden
    tool-use prompt, the same $0.058245; a note says its definition is not counted."""
    entry = (
        "tools:\n  - type: web_search_20250305\n    name: web_search\n    max_uses: 5\n"
        "    allowed_domains: [example.com]\n    user_location: {type: approximate, city: Paris}\n"
    )
    rounds = "rounds:\n  - server_tools: [{tool: web_search, uses: 3, result: 3000}]\n"
    s = load(tmp_path, CLAUDE_HEAD + entry + rounds + "  - {tool: read, call_tokens: 20, result: 500}\n")
    assert s.tools == ()
    assert [(d.tool, d.kind, d.name, d.line, d.max_uses) for d in s.server_tool_defs] == [
        ("web_search", "web_search_20250305", "web_search", 7, 5)
    ]
    est = estimate_scenario(s, as_of=AS_OF)
    assert est.counts.tools == 0
    assert est.ledger.totals.cost_usd == Decimal("0.058245")
    assert any(
        n.startswith("server tools in tools: web_search_20250305 (web_search, line 7)")
        for n in est.counts.notes
    )


@pytest.mark.usefixtures("no_ctok")
def test_a_server_tool_entry_beside_client_tools_changes_no_count(tmp_path: Path) -> None:
    client = "  - {name: read, description: Read a file., input_schema: {type: object}}\n"
    rounds = "rounds:\n  - {tool: read, call_tokens: 20, result: 500, server_tools: [{tool: web_fetch}]}\n"
    plain = load(tmp_path, CLAUDE_HEAD + "tools:\n" + client + rounds)
    both = load(
        tmp_path,
        CLAUDE_HEAD + "tools:\n" + client + "  - {type: web_fetch_20250910, name: web_fetch}\n" + rounds,
    )
    a, b = (estimate_scenario(x, as_of=AS_OF) for x in (plain, both))
    assert a.counts.tools == b.counts.tools > 0  # the read tool and the hidden tool-use prompt only
    assert a.ledger.totals.cost_usd == b.ledger.totals.cost_usd
