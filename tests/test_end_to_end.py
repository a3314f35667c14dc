"""End to end: scenario file -> ``agentcost.loop.estimate`` -> ledger, every dollar checked by hand.

Rates (USD per million tokens) are genai-prices 0.2.3's at 2026-11-30, as tabulated in
shared/reference/pricing-facts.md §A.0:

* claude-sonnet-4-5: $3 input, $3.75 5-minute cache write, $6 1-hour write, $0.30 cache read, $15 output
* claude-haiku-4-5: $1 input, $1.25 5-minute write, $2 1-hour write, $0.10 read, $5 output
* gpt-5: $1.25 input, $0.125 cache read, $10 output (no cache-write price)
* gpt-4o: $2.50 input, $1.25 cache read, $10 output
* gemini-2.5-pro: $1.25 input, $0.125 cache read, $10 output; a request over 200,000 input tokens is
  billed at $2.50 / $0.25 / $15 for ALL its tokens (§A.4)

Claude counts use the o200k_base x ratio path (the ``no_ctok`` fixture), so the figures are the same on
every Python version. Comments give amounts in micro-dollars (µ$): 1 token at $3/MTok = 3 µ$.
"""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from agentcost.loop.accountant import LedgerRow
from agentcost.loop.estimate import Estimate, estimate
from agentcost.report.build import build_report
from agentcost.scenario.load import read_scenario as load_scenario
from agentcost.tokens.memo import count_text
from agentcost.tokens.openai import num_tokens_for_tools
from agentcost.tokens.request import RequestUsage

pytestmark = pytest.mark.usefixtures("no_ctok")

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)
MILLION = Decimal(1_000_000)
SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"


def mtok(rate: str, tokens: int) -> Decimal:
    return Decimal(rate) * tokens / MILLION


@dataclass(frozen=True)
class Rates:
    """List prices per MTok, as decimal strings (pricing-facts.md §A.0)."""

    input: str
    read: str
    output: str
    write_5m: str | None = None
    write_1h: str | None = None


SONNET_4_5 = Rates(input="3", write_5m="3.75", write_1h="6", read="0.30", output="15")
HAIKU_4_5 = Rates(input="1", write_5m="1.25", write_1h="2", read="0.10", output="5")
GPT_5 = Rates(input="1.25", read="0.125", output="10")
GPT_4O = Rates(input="2.50", read="1.25", output="10")
GEMINI_2_5_PRO = Rates(input="1.25", read="0.125", output="10")
GEMINI_2_5_PRO_OVER_200K = Rates(input="2.50", read="0.25", output="15")


def by_hand(u: RequestUsage, rates: Rates) -> Decimal:
    """One request's dollars from the list prices: the simple oracle, independent of genai-prices."""
    uncached = u.input_tokens - u.cache_read_tokens - u.cache_write_tokens - u.cache_write_1h_tokens
    total = (
        mtok(rates.input, uncached)
        + mtok(rates.read, u.cache_read_tokens)
        + mtok(rates.output, u.output_tokens)
    )
    if u.cache_write_tokens:
        assert rates.write_5m is not None, "cache writes billed on a model without a write price"
        total += mtok(rates.write_5m, u.cache_write_tokens)
    if u.cache_write_1h_tokens:
        assert rates.write_1h is not None, "1-hour writes billed on a model without a 1-hour price"
        total += mtok(rates.write_1h, u.cache_write_1h_tokens)
    return total


def write(tmp_path: Path, text: str, name: str = "s.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def run(path: Path) -> Estimate:
    est = estimate(path, as_of=AS_OF)
    rows = est.ledger.rows
    # the invariants every estimate keeps, checked on every scenario of this file
    assert sum((r.cost.total_usd for r in rows), Decimal(0)) == est.ledger.totals.cost_usd
    assert rows[-1].running_usd == est.ledger.totals.cost_usd
    for r in rows:
        u = r.usage
        assert u.input_tokens >= u.cache_read_tokens + u.cache_write_tokens + u.cache_write_1h_tokens
    return est


def inputs(rows: tuple[LedgerRow, ...]) -> list[int]:
    return [r.usage.input_tokens for r in rows]


def reads(rows: tuple[LedgerRow, ...]) -> list[int]:
    return [r.usage.cache_read_tokens for r in rows]


def writes(rows: tuple[LedgerRow, ...]) -> list[int]:
    return [r.cache_write_total for r in rows]


def outputs(rows: tuple[LedgerRow, ...]) -> list[int]:
    return [r.usage.output_tokens for r in rows]


def claude(text: str) -> int:
    """Claude Sonnet 4.5 prose tokens on the ratio path: ceil(o200k_base x 1.06) (facts.yaml token_ratio)."""
    return math.ceil(count_text(text) * Decimal("1.06"))


# ---------------------------------------------------------------------------------------------
# The three shipped scenarios, one per provider
# ---------------------------------------------------------------------------------------------


def test_bugfix_claude_sonnet_4_5_by_hand() -> None:
    est = run(SCENARIOS / "bugfix.yaml")
    assert (est.prices.model_id, est.prices.provider) == ("claude-sonnet-4-5", "anthropic")
    rows = est.ledger.rows
    assert inputs(rows) == [1_137, 1_231, 1_745, 2_110, 2_428, 2_608, 2_766, 2_996, 3_232]
    assert reads(rows) == [0, 1_133, 1_227, 1_741, 2_106, 2_424, 2_604, 2_762, 2_992]
    assert writes(rows) == [1_133, 94, 514, 365, 318, 180, 158, 230, 236]
    assert all(r.usage.cache_write_1h_tokens == 0 for r in rows)  # cache_ttl defaults to 5m
    assert outputs(rows) == [70, 52, 53, 70, 156, 58, 64, 51, 182]
    assert [r.kind for r in rows] == ["tool_use"] * 8 + ["final"]
    assert [r.tools for r in rows[:5]] == [("Bash",), ("Read",), ("Read",), ("Bash",), ("Edit",)]
    # Conversation caching (Anthropic's default): request 1 writes its prompt but the 4 tokens after
    # the last message; each later request reads exactly that and writes what the last round added.
    assert rows[0].usage.cache_write_tokens == rows[0].usage.input_tokens - 4
    for prev, row in itertools.pairwise(rows):
        assert row.usage.cache_read_tokens == prev.usage.input_tokens - 4
        assert row.usage.cache_write_tokens == row.usage.input_tokens - prev.usage.input_tokens
    for row in rows:
        assert row.cost.total_usd == by_hand(row.usage, SONNET_4_5), row.index
    # request 1: 4 uncached x $3 = 12 µ$ + write 1,133 x $3.75 = 4,248.75 µ$ + output 70 x $15 = 1,050 µ$
    assert rows[0].cost.total_usd == Decimal("0.00531075")
    # request 9: 4 x 3 = 12 + read 2,992 x 0.30 = 897.6 + write 236 x 3.75 = 885 + output 182 x 15 = 2,730
    assert rows[8].cost.total_usd == Decimal("0.0045246")
    # total: uncached 9 x 4 = 36 x 3 = 108 + read 16,989 x 0.30 = 5,096.7 + write 3,228 x 3.75 = 12,105
    #        + output 756 x 15 = 11,340 = 28,649.7 µ$
    t = est.ledger.totals
    assert (t.input_tokens, t.cache_read_tokens, t.cache_write_tokens, t.output_tokens) == (
        20_253,
        16_989,
        3_228,
        756,
    )
    assert t.cost_usd == Decimal("0.0286497")
    assert est.counts.approximate is True


def test_bugfix_first_request_by_hand() -> None:
    """Request 1 = hidden tool prompt + tool definitions + system + task + the tail after the last message."""
    s = load_scenario(SCENARIOS / "bugfix.yaml")
    assert s.system is not None and s.system.text is not None and s.task.text is not None
    definitions = [
        json.dumps(
            {"name": t.name, "description": t.description, "input_schema": t.input_schema},
            separators=(", ", ": "),
            ensure_ascii=True,
        )
        for t in s.tools
    ]
    # 496: Sonnet 4.5's tool-use system prompt for tool_choice auto (pricing-facts.md §C); + 1 for the
    # tools block, + 3 per definition; no system framing; 3 per user message; 4 after the last message.
    tools = 496 + 1 + sum(claude(d) + 3 for d in definitions)
    system = claude(s.system.text)
    task = 3 + claude(s.task.text)
    first = run(SCENARIOS / "bugfix.yaml").ledger.rows[0].usage.input_tokens
    assert tools + system + task + 4 == first == 1_137


RESEARCH_INPUTS = [
    320, 1_570, 5_138, 8_706, 12_274, 15_842, 17_083, 20_651, 24_219, 27_787, 31_355, 34_923, 38_491,
    39_735, 43_303, 46_871, 50_439, 54_007, 57_575, 58_823, 62_391, 65_959, 69_527, 73_095, 76_663,
    77_906, 81_474, 85_042, 88_610, 92_178, 98_247,
]  # fmt: skip
RESEARCH_READS = [
    0, 0, 1_536, 5_120, 8_576, 12_160, 15_744, 17_024, 20_608, 24_192, 27_776, 31_232, 34_816,
    38_400, 39_680, 43_264, 46_848, 50_432, 53_888, 57_472, 58_752, 62_336, 65_920, 69_504, 73_088,
    76_544, 77_824, 81_408, 84_992, 88_576, 92_160,
]  # fmt: skip
RESEARCH_OUTPUTS = [
    353, 51, 51, 51, 51, 24, 51, 51, 51, 51, 51, 51, 27, 51, 51, 51, 51, 51, 211, 51, 51, 51, 51, 51,
    26, 51, 51, 51, 51, 52, 900,
]  # fmt: skip


def test_research_gpt_5_by_hand() -> None:
    est = run(SCENARIOS / "research.yaml")
    assert (est.prices.model_id, est.prices.provider) == ("gpt-5", "openai")
    rows = est.ledger.rows
    assert inputs(rows) == RESEARCH_INPUTS
    assert reads(rows) == RESEARCH_READS
    assert writes(rows) == [0] * 31  # gpt-5 has no cache-write price: writes are neither billed nor shown
    assert outputs(rows) == RESEARCH_OUTPUTS
    # OpenAI automatic caching: a request reads the previous prompt (less the 3 reply-priming tokens)
    # once that reaches 1,024 tokens, in 128-token steps past 1,024.
    for prev, row in itertools.pairwise(rows):
        sent = prev.usage.input_tokens - 3
        assert row.usage.cache_read_tokens == (0 if sent < 1_024 else 1_024 + (sent - 1_024) // 128 * 128)
    for row in rows:
        assert row.cost.total_usd == by_hand(row.usage, GPT_5), row.index
    # request 3: uncached 5,138 - 1,536 = 3,602 x $1.25 = 4,502.5 µ$ + read 1,536 x $0.125 = 192 µ$
    #            + output 51 x $10 = 510 µ$ = 5,204.5 µ$
    assert rows[2].cost.total_usd == Decimal("0.0052045")
    # request 31 (final): uncached 98,247 - 92,160 = 6,087 x 1.25 = 7,608.75 + read 92,160 x 0.125 = 11,520
    #                     + output 900 x 10 = 9,000 = 28,128.75 µ$
    assert rows[30].cost.total_usd == Decimal("0.02812875")
    # total: uncached 1,460,204 - 1,359,872 = 100,332 x 1.25 = 125,415 + read 1,359,872 x 0.125 = 169,984
    #        + output 2,817 x 10 = 28,170 = 323,569 µ$
    t = est.ledger.totals
    assert (t.input_tokens, t.cache_read_tokens, t.output_tokens) == (1_460_204, 1_359_872, 2_817)
    assert t.cost_usd == Decimal("0.323569")
    assert est.counts.approximate is False


def test_research_counts_by_the_cookbook() -> None:
    """Request 1 is what the OpenAI cookbook's num_tokens_for_tools gives for the same tools and messages;
    a fetch_page round (call_tokens 40, result 3,500 from ``defaults``) adds the same amount every time."""
    s = load_scenario(SCENARIOS / "research.yaml")
    assert s.system is not None and s.system.text is not None and s.task.text is not None
    functions = json.loads((SCENARIOS / "research" / "tools.json").read_text(encoding="utf-8"))
    messages = [{"role": "system", "content": s.system.text}, {"role": "user", "content": s.task.text}]
    rows = run(SCENARIOS / "research.yaml").ledger.rows
    assert num_tokens_for_tools(functions, messages, "gpt-5") == rows[0].usage.input_tokens == 320
    assert (count_text("fetch_page"), count_text("assistant"), count_text("tool")) == (2, 1, 1)
    echo = 3 + 1 + 2 + 40 + 9  # message + "assistant" + name + arguments + call framing
    result = 3 + 1 + 2 + 7 + 3_500  # message + "tool" + name + result framing + content
    assert rows[2].usage.input_tokens - rows[1].usage.input_tokens == echo + result == 3_568
    assert rows[1].usage.output_tokens == 2 + 40 + 9  # name + arguments + call framing


def test_mcp_40_tools_gemini_2_5_pro_by_hand() -> None:
    est = run(SCENARIOS / "mcp-40-tools.yaml")
    assert (est.prices.model_id, est.prices.provider) == ("gemini-2.5-pro", "google")
    rows = est.ledger.rows
    assert inputs(rows) == [6_677, 8_108, 9_084, 13_325, 15_961, 17_785, 18_053]
    assert reads(rows) == writes(rows) == [0] * 7  # Gemini's default: no caching assumed
    assert outputs(rows) == [327, 322, 338, 333, 672, 491, 86]  # thinking 300 (650 in round 5) included
    for row in rows:  # all under 200,000 input tokens: the base rates
        assert row.cost.total_usd == by_hand(row.usage, GEMINI_2_5_PRO), row.index
    # request 1: 6,677 x $1.25 = 8,346.25 µ$ + output 327 x $10 = 3,270 µ$ = 11,616.25 µ$
    assert rows[0].cost.total_usd == Decimal("0.01161625")
    # total: input 88,993 x 1.25 = 111,241.25 + output 2,569 x 10 = 25,690 = 136,931.25 µ$
    t = est.ledger.totals
    assert (t.input_tokens, t.output_tokens) == (88_993, 2_569)
    assert t.cost_usd == Decimal("0.13693125")
    assert est.counts.approximate is True


def test_mcp_first_request_by_hand() -> None:
    """Gemini: o200k_base x 1.0; declarations counted as their JSON, no message framing, 1 per request."""
    s = load_scenario(SCENARIOS / "mcp-40-tools.yaml")
    assert len(s.tools) == 40 and s.system is not None and s.system.text and s.task.text
    declarations = sum(
        count_text(
            json.dumps(
                {"name": t.name, "description": t.description, "parameters": t.input_schema},
                separators=(", ", ": "),
                ensure_ascii=True,
            )
        )
        for t in s.tools
    )
    first = declarations + count_text(s.system.text) + count_text(s.task.text) + 1
    assert first == run(SCENARIOS / "mcp-40-tools.yaml").ledger.rows[0].usage.input_tokens == 6_677


@pytest.mark.parametrize(
    ("name", "mode"),
    [("bugfix.yaml", "conversation"), ("research.yaml", "conversation"), ("mcp-40-tools.yaml", "none")],
)
def test_default_caching_is_stated(name: str, mode: str) -> None:
    est = run(SCENARIOS / name)
    assert est.ledger.policy.mode == mode
    assert est.caching_is_default is True
    report = build_report(est)
    assert (report.caching_mode, report.caching_is_default) == (mode, True)


# ---------------------------------------------------------------------------------------------
# The closed form: uniform rounds, no caching
# ---------------------------------------------------------------------------------------------

WEATHER = """\
version: 1
model: gpt-4o
caching: none
system: You are a helpful assistant that can answer to questions about the weather.
tools:
  - type: function
    function:
      name: get_current_weather
      description: Get the current weather in a given location
      parameters:
        type: object
        properties:
          location:
            type: string
            description: The city and state, e.g. San Francisco, CA
          unit:
            type: string
            description: The unit of temperature to return
            enum: [celsius, fahrenheit]
        required: [location]
task: What's the weather like in San Francisco?
defaults: {{result: 700, call_tokens: 40}}
rounds:
  - tool: get_current_weather
    repeat: {n}
final: 300
"""


def weather_b_and_r() -> tuple[int, int]:
    """B and r of the WEATHER scenario, by the cookbook rules (gpt-4o constants 7/3/3/-3/3/12)."""
    tool = (
        7  # func_init
        + count_text("get_current_weather:Get the current weather in a given location")
        + 3  # prop_init
        + 3  # prop_key: location
        + count_text("location:string:The city and state, e.g. San Francisco, CA")
        + 3  # prop_key: unit
        - 3  # enum_init
        + (3 + count_text("celsius"))  # enum_item
        + (3 + count_text("fahrenheit"))
        + count_text("unit:string:The unit of temperature to return")
        + 12  # func_end
    )
    system = (
        3
        + count_text("system")
        + count_text("You are a helpful assistant that can answer to questions about the weather.")
    )
    user = 3 + count_text("user") + count_text("What's the weather like in San Francisco?")
    b = tool + system + user + 3  # + 3 reply-priming tokens
    name = count_text("get_current_weather")
    echo = 3 + count_text("assistant") + name + 40 + 9  # call_tokens 40, call framing 9
    result = 3 + count_text("tool") + name + 7 + 700  # result framing 7, result 700
    return b, echo + result


def test_weather_b_is_what_the_openai_api_reported() -> None:
    # shared/validation/openai-cookbook/token-counts.json: gpt-4o, weather_messages + weather_tools,
    # api_prompt_tokens 101 (the cookbook "How to count tokens with tiktoken" @ c81359cd)
    assert weather_b_and_r() == (101, 770)


@pytest.mark.parametrize("n", [1, 12, 40])
def test_closed_form_identity_end_to_end(n: int, tmp_path: Path) -> None:
    est = run(write(tmp_path, WEATHER.format(n=n)))
    b, r = weather_b_and_r()
    rows = est.ledger.rows
    assert len(rows) == n + 1
    assert est.caching_is_default is False
    # B and r read off the ledger agree with the hand counts
    assert rows[0].usage.input_tokens == b
    if n >= 1:
        assert rows[1].usage.input_tokens - rows[0].usage.input_tokens == r
    for i, row in enumerate(rows, start=1):
        assert row.usage.input_tokens == b + (i - 1) * r
        assert row.usage.cache_read_tokens == row.cache_write_total == 0
    # the n tool rounds: n*B + r*n(n-1)/2; with the final request: (n+1)*B + r*(n+1)n/2
    assert sum(inputs(rows[:n])) == n * b + r * n * (n - 1) // 2
    assert est.ledger.totals.input_tokens == (n + 1) * b + r * (n + 1) * n // 2
    assert outputs(rows) == [3 + 40 + 9] * n + [300]  # name + call_tokens + call framing; final as given
    for row in rows:
        assert row.cost.total_usd == by_hand(row.usage, GPT_4O)


def test_closed_form_dollars_for_twelve_rounds(tmp_path: Path) -> None:
    est = run(write(tmp_path, WEATHER.format(n=12)))
    # input: 13 x 101 + 770 x 13 x 12 / 2 = 1,313 + 60,060 = 61,373 tokens x $2.50 = 153,432.5 µ$
    # output: 12 x 52 + 300 = 924 tokens x $10 = 9,240 µ$; total 162,672.5 µ$
    assert est.ledger.totals.input_tokens == 61_373
    assert est.ledger.totals.output_tokens == 924
    assert est.ledger.totals.cost_usd == Decimal("0.1626725")


def test_max_rounds_truncates_the_run(tmp_path: Path) -> None:
    path = write(tmp_path, WEATHER.format(n=12) + "limits: {max_rounds: 4}\n")
    est = run(path)
    rows = est.ledger.rows
    assert len(rows) == 4 and all(r.kind == "tool_use" for r in rows)  # no final request
    assert inputs(rows) == [101, 871, 1_641, 2_411]
    # 4 x 101 + 770 x 6 = 5,024 x $2.50 = 12,560 µ$ + output 4 x 52 x $10 = 2,080 µ$ = 14,640 µ$
    assert est.ledger.totals.cost_usd == Decimal("0.01464")
    report = build_report(est)
    assert (report.truncated, report.rounds_planned, report.rounds_run) == (True, 12, 4)
    assert report.warnings == ("run truncated by limits.max_rounds: 4 of 12 rounds, no final answer",)
    untruncated = build_report(
        run(write(tmp_path, WEATHER.format(n=4) + "limits: {max_rounds: 4}\n", "b.yaml"))
    )
    assert untruncated.truncated is False and untruncated.warnings == ()


def test_request_over_the_context_window_is_warned_about(tmp_path: Path) -> None:
    # gpt-4o's context window is 128,000 tokens (genai-prices)
    est = run(write(tmp_path, "version: 1\nmodel: gpt-4o\ntask: {tokens: 130000}\nfinal: 10\n"))
    assert est.ledger.rows[0].usage.input_tokens == 3 + 1 + 130_000 + 3
    (warning,) = build_report(est).warnings
    assert "130,007" in warning and "context window" in warning and "128,000" in warning


# ---------------------------------------------------------------------------------------------
# Caching per provider
# ---------------------------------------------------------------------------------------------


def claude_loop(tmp_path: Path, extra: str = "", model: str = "claude-sonnet-4-5") -> Path:
    """Claude counts: system 3,000 (no framing); task 3 + 500; 4 after the last message: B = 3,507.
    Each round: tool_use 3 + name "run" ceil(1 x 1.06) = 2 + 40 + 37 (tool_choice auto) = 82 (also its
    output); result 3 + 11 + 2,000 = 2,014: r = 2,096. Final answer: 3 + 200 = 203 output tokens."""
    text = (
        f"version: 1\nmodel: {model}\nsystem: {{tokens: 3000}}\ntask: {{tokens: 500}}\n"
        "defaults: {call_tokens: 40, result: 2000}\nrounds:\n  - tool: run\n    repeat: 10\nfinal: 200\n"
    )
    return write(tmp_path, text + extra, f"s{len(list(tmp_path.iterdir()))}.yaml")


CLAUDE_LOOP_INPUTS = [3_507 + (i - 1) * 2_096 for i in range(1, 12)]


def test_anthropic_caching_modes(tmp_path: Path) -> None:
    none = run(claude_loop(tmp_path, "caching: none\n"))
    prefix = run(claude_loop(tmp_path, "caching: prefix\n"))
    conversation = run(claude_loop(tmp_path, "caching: conversation\n"))
    for est in (none, prefix, conversation):
        assert inputs(est.ledger.rows) == CLAUDE_LOOP_INPUTS
        assert outputs(est.ledger.rows) == [82] * 10 + [203]
        assert est.caching_is_default is False
        for row in est.ledger.rows:
            assert row.cost.total_usd == by_hand(row.usage, SONNET_4_5)

    assert reads(none.ledger.rows) == writes(none.ledger.rows) == [0] * 11
    # input 153,857 x $3 = 461,571 µ$ + output 1,023 x $15 = 15,345 µ$
    assert none.ledger.totals.cost_usd == Decimal("0.476916")

    # prefix: only tools + system (3,000) is written, once, and read by every later request
    assert writes(prefix.ledger.rows) == [3_000] + [0] * 10
    assert reads(prefix.ledger.rows) == [0] + [3_000] * 10
    # request 1: 507 x 3 = 1,521 + write 3,000 x 3.75 = 11,250 + output 82 x 15 = 1,230 = 14,001 µ$
    assert prefix.ledger.rows[0].cost.total_usd == Decimal("0.014001")
    # request 2: 2,603 x 3 = 7,809 + read 3,000 x 0.30 = 900 + 1,230 = 9,939 µ$
    assert prefix.ledger.rows[1].cost.total_usd == Decimal("0.009939")
    # uncached 153,857 - 3,000 - 30,000 = 120,857 x 3 = 362,571 + 11,250 + 30,000 x 0.30 = 9,000 + 15,345
    assert prefix.ledger.totals.cost_usd == Decimal("0.398166")

    # conversation: everything but the 4-token tail is written once and read by the next request
    assert writes(conversation.ledger.rows) == [3_503] + [2_096] * 10
    assert reads(conversation.ledger.rows) == [0] + [n - 4 for n in CLAUDE_LOOP_INPUTS[:-1]]
    # request 1: 4 x 3 = 12 + write 3,503 x 3.75 = 13,136.25 + 1,230 = 14,378.25 µ$
    assert conversation.ledger.rows[0].cost.total_usd == Decimal("0.01437825")
    # request 2: 12 + read 3,503 x 0.30 = 1,050.9 + write 2,096 x 3.75 = 7,860 + 1,230 = 10,152.9 µ$
    assert conversation.ledger.rows[1].cost.total_usd == Decimal("0.0101529")
    # 11 x 4 x 3 = 132 + write 24,463 x 3.75 = 91,736.25 + read 129,350 x 0.30 = 38,805 + 15,345
    assert conversation.ledger.totals.cost_usd == Decimal("0.14601825")

    # a long loop: no caching costs most, caching the conversation least
    assert none.ledger.totals.cost_usd > prefix.ledger.totals.cost_usd > conversation.ledger.totals.cost_usd


def test_anthropic_default_is_conversation_and_says_so(tmp_path: Path) -> None:
    default = run(claude_loop(tmp_path))
    explicit = run(claude_loop(tmp_path, "caching: conversation\n"))
    assert default.caching_is_default is True and explicit.caching_is_default is False
    assert default.ledger == explicit.ledger


def test_anthropic_one_hour_ttl_uses_the_one_hour_price(tmp_path: Path) -> None:
    prefix = run(claude_loop(tmp_path, "caching: prefix\ncache_ttl: 1h\n"))
    first = prefix.ledger.rows[0]
    assert (first.usage.cache_write_1h_tokens, first.usage.cache_write_tokens) == (3_000, 0)
    # 507 x 3 = 1,521 + 1-hour write 3,000 x $6 = 18,000 + output 1,230 = 20,751 µ$
    assert first.cost.total_usd == Decimal("0.020751")
    conversation = run(claude_loop(tmp_path, "caching: conversation\ncache_ttl: 1h\n"))
    rows = conversation.ledger.rows
    assert [r.usage.cache_write_1h_tokens for r in rows] == [3_503] + [2_096] * 10
    assert all(r.usage.cache_write_tokens == 0 for r in rows)
    # 4 x 3 = 12 + 3,503 x 6 = 21,018 + 1,230 = 22,260 µ$
    assert rows[0].cost.total_usd == Decimal("0.02226")
    for row in rows:
        assert row.cost.total_usd == by_hand(row.usage, SONNET_4_5)
    report = build_report(conversation)
    assert report.cache_ttl == "1h"
    assert report.requests[0].cache_write_tokens == 3_503  # the report shows 5m and 1h writes together


def test_prefix_below_the_minimum_cacheable_length_writes_nothing(tmp_path: Path) -> None:
    # claude-haiku-4-5 caches nothing shorter than 4,096 tokens; the 3,000-token prefix never qualifies
    prefix = run(claude_loop(tmp_path, "caching: prefix\n", model="claude-haiku-4-5"))
    assert prefix.ledger.policy.min_tokens == 4_096
    assert prefix.ledger.totals.cache_read_tokens == prefix.ledger.totals.cache_write_tokens == 0
    # so it costs what no caching costs: 153,857 x $1 = 153,857 µ$ + 1,023 x $5 = 5,115 µ$
    assert prefix.ledger.totals.cost_usd == Decimal("0.158972")
    # the conversation reaches 4,096 at request 2 (5,599 cacheable tokens), which writes it whole
    conversation = run(claude_loop(tmp_path, "caching: conversation\n", model="claude-haiku-4-5"))
    rows = conversation.ledger.rows
    assert writes(rows)[:3] == [0, 5_599, 2_096]
    assert reads(rows)[:3] == [0, 0, 5_599]
    # request 2: 4 x $1 = 4 + write 5,599 x $1.25 = 6,998.75 + output 82 x $5 = 410 = 7,412.75 µ$
    assert rows[1].cost.total_usd == Decimal("0.00741275")
    for row in rows:
        assert row.cost.total_usd == by_hand(row.usage, HAIKU_4_5)


OPENAI_LOOP = (
    "version: 1\nmodel: gpt-5\nsystem: {tokens: 1500}\ntask: {tokens: 100}\n"
    "defaults: {call_tokens: 40, result: 500}\nrounds:\n  - tool: run\n    repeat: 3\nfinal: 100\n"
)


@pytest.mark.parametrize(
    ("caching", "expected_reads"),
    [
        # the previous prompt less 3 priming tokens: 1,608 -> 1,024 + 4 x 128; 2,174 -> 1,024 + 8 x 128;
        # 2,740 -> 1,024 + 13 x 128
        ("", [0, 1_536, 2_048, 2_688]),
        ("caching: conversation\n", [0, 1_536, 2_048, 2_688]),
        ("caching: prefix\n", [0, 1_408, 1_408, 1_408]),  # system 1,504 -> 1,024 + 3 x 128
        ("caching: none\n", [0, 0, 0, 0]),
    ],
)
def test_openai_automatic_caching_in_128_token_steps(
    caching: str, expected_reads: list[int], tmp_path: Path
) -> None:
    est = run(write(tmp_path, OPENAI_LOOP + caching))
    rows = est.ledger.rows
    # system 3 + "system" 1 + 1,500; task 3 + "user" 1 + 100; 3 priming: B = 1,611. Each round: echo
    # 3 + "assistant" 1 + "run" 1 + 40 + 9 = 54, result 3 + "tool" 1 + "run" 1 + 7 + 500 = 512: r = 566
    assert inputs(rows) == [1_611, 2_177, 2_743, 3_309]
    assert reads(rows) == expected_reads
    assert writes(rows) == [0] * 4
    assert est.caching_is_default is (caching == "")
    for row in rows:
        assert row.cost.total_usd == by_hand(row.usage, GPT_5)
    if caching == "":
        # request 2: uncached 641 x $1.25 = 801.25 + read 1,536 x $0.125 = 192 + output 50 x $10 = 500
        assert rows[1].cost.total_usd == Decimal("0.00149325")


def test_gemini_implicit_caching_when_asked(tmp_path: Path) -> None:
    text = (
        "version: 1\nmodel: gemini-2.5-pro\ncaching: conversation\nsystem: {tokens: 3000}\n"
        "task: {tokens: 100}\nrounds:\n  - {tool: run, call_tokens: 40, result: 500}\nfinal: 100\n"
    )
    est = run(write(tmp_path, text))
    rows = est.ledger.rows
    # 3,000 + 100 + 1 per request; the round adds "run" 1 + 40 and "run" 1 + 500
    assert inputs(rows) == [3_101, 3_643]
    assert est.ledger.policy.min_tokens == 2_048
    assert reads(rows) == [0, 3_100] and writes(rows) == [0, 0]  # no 128-token steps, no write price
    # request 2: uncached 543 x $1.25 = 678.75 + read 3,100 x $0.125 = 387.5 + output 100 x $10 = 1,000
    assert rows[1].cost.total_usd == Decimal("0.00206625")


# ---------------------------------------------------------------------------------------------
# Long-context tier
# ---------------------------------------------------------------------------------------------


def test_gemini_request_over_200k_is_priced_at_the_higher_rate_in_full(tmp_path: Path) -> None:
    text = (
        "version: 1\nmodel: gemini-2.5-pro\ntask: {tokens: 150000}\n"
        "rounds:\n  - {tool: read, call_tokens: 100, result: 60000}\nfinal: 1000\n"
    )
    est = run(write(tmp_path, text))
    first, second = est.ledger.rows
    # request 1: 150,000 + 1; request 2 adds "read" 1 + 100 and "read" 1 + 60,000
    assert inputs(est.ledger.rows) == [150_001, 210_103]
    assert first.cost.total_usd == by_hand(first.usage, GEMINI_2_5_PRO)
    assert second.cost.total_usd == by_hand(second.usage, GEMINI_2_5_PRO_OVER_200K)
    # request 1: 150,001 x $1.25 = 187,501.25 + output 101 x $10 = 1,010 = 188,511.25 µ$
    assert first.cost.total_usd == Decimal("0.18851125")
    # request 2: ALL 210,103 x $2.50 = 525,257.5 + output 1,000 x $15 = 15,000 = 540,257.5 µ$
    assert second.cost.total_usd == Decimal("0.5402575")
    assert est.ledger.totals.cost_usd == Decimal("0.72876875")


@pytest.mark.parametrize(
    ("task", "expected"),
    [
        (199_999, Decimal("0.2501")),  # 200,000 x 1.25 = 250,000 + 10 x 10 = 100 µ$: not over 200,000
        (200_000, Decimal("0.5001525")),  # 200,001 x 2.50 = 500,002.5 + 10 x 15 = 150 µ$
    ],
)
def test_gemini_tier_boundary(task: int, expected: Decimal, tmp_path: Path) -> None:
    est = run(write(tmp_path, f"version: 1\nmodel: gemini-2.5-pro\ntask: {{tokens: {task}}}\nfinal: 10\n"))
    assert est.ledger.totals.cost_usd == expected
