"""agentcost replay of OpenTelemetry GenAI spans (OTLP JSON) and Langfuse trace exports.

The samples in tests/data/otel/ and tests/data/langfuse/ are real (see their PROVENANCE.md); the
small files the other tests write are built for those tests, to reach each rule of the readers.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from agentcost.cli import run
from agentcost.errors import InputError
from agentcost.replay import load_trace, replay

DATA = Path(__file__).parent / "data"
OPENLIT = DATA / "otel" / "openlit-openai-chat.otlp.json"
LANGGRAPH = DATA / "langfuse" / "langgraph-python-2025-08-22.trace.json"
AGENTS = DATA / "langfuse" / "openai-agents-2025-09-30.trace.json"
AS_OF = datetime(2026, 11, 30, tzinfo=UTC)


def _kv(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        v: dict[str, Any] = {"boolValue": value}
    elif isinstance(value, int):
        v = {"intValue": str(value)}
    else:
        v = {"stringValue": value}
    return {"key": key, "value": v}


def _span(start: int, attrs: dict[str, Any], events: list[Any] | None = None) -> dict[str, Any]:
    return {
        "traceId": "0" * 32,
        "spanId": f"{start:016x}",
        "name": "chat",
        "startTimeUnixNano": str(start),
        "attributes": [_kv(k, v) for k, v in attrs.items()],
        "events": events or [],
    }


def _request(*spans: dict[str, Any]) -> dict[str, Any]:
    return {"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {}, "spans": list(spans)}]}]}


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------
# OTLP JSON: the real OpenLit span
# ---------------------------------------------------------------------------------------------


def test_openlit_otlp_span_replays_with_the_usage_it_records() -> None:
    trace = load_trace(OPENLIT)
    assert trace.format == "otel" and trace.model == "gpt-3.5-turbo"
    (call,) = trace.calls
    assert call.reported is not None
    rep = call.reported
    assert (rep.input_tokens, rep.output_tokens, rep.cache_read_tokens, rep.cache_write_tokens) == (
        14,
        96,
        0,
        0,
    )
    # the prompt event records "user: What is LLM Observability?" (OpenLit's role: content lines)
    assert call.messages is not None and [(m.role, m.text) for m in call.messages] == [
        ("user", "What is LLM Observability?")
    ]
    report = replay(trace, as_of=AS_OF)
    # by hand: gpt-3.5-turbo $0.50/MTok in, $1.50/MTok out: 14 * 0.5e-6 + 96 * 1.5e-6 = 0.000151,
    # which is also the gen_ai.usage.cost OpenLit recorded in the span
    assert report.totals.cost_usd == Decimal("0.000151")
    assert report.totals.priced_from == "reported per request"
    assert (report.totals.reported_input, report.totals.reported_output) == (14, 96)
    assert (report.totals.cache_read_tokens, report.totals.cache_write_tokens) == (0, 0)
    # our own count beside the reported one: the message is counted exactly, the text output within 2%
    assert report.totals.counted_input == 14
    assert report.totals.counted_output is not None and abs(report.totals.counted_output - 96) <= 2


def test_cli_replays_the_otlp_sample(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["replay", str(OPENLIT), "--as-of", "2026-11-30", "-q"]) == 0
    assert capsys.readouterr().out == "0.000151\n"
    assert (
        run(["replay", str(OPENLIT), "--format-in", "otel", "--format", "json", "--as-of", "2026-11-30"]) == 0
    )
    doc = json.loads(capsys.readouterr().out)
    assert doc["trace"]["format"] == "otel" and doc["totals"]["reported_input_tokens"] == 14


# ---------------------------------------------------------------------------------------------
# OTLP JSON: the current conventions (files built for the test)
# ---------------------------------------------------------------------------------------------


def _current_conventions_span(start: int, read: int, write: int, inp: int) -> dict[str, Any]:
    messages = [
        {"role": "user", "parts": [{"type": "text", "content": "Weather in Paris?"}]},
        {
            "role": "assistant",
            "parts": [
                {"type": "tool_call", "id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}
            ],
        },
        {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": "rainy, 57F"}]},
    ]
    output = [
        {"role": "assistant", "parts": [{"type": "text", "content": "It is rainy."}], "finish_reason": "stop"}
    ]
    tools = [{"type": "function", "name": "get_weather", "parameters": {"type": "object"}}]
    return _span(
        start,
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": "anthropic",
            "gen_ai.request.model": "claude-sonnet-4-5",
            "gen_ai.response.model": "claude-sonnet-4-5-20250929",
            "gen_ai.usage.input_tokens": inp,
            "gen_ai.usage.output_tokens": 20,
            "gen_ai.usage.cache_read.input_tokens": read,
            "gen_ai.usage.cache_creation.input_tokens": write,
            "gen_ai.system_instructions": json.dumps([{"type": "text", "content": "Be brief."}]),
            "gen_ai.input.messages": json.dumps(messages),
            "gen_ai.output.messages": json.dumps(output),
            "gen_ai.tool.definitions": json.dumps(tools),
        },
    )


def test_current_conventions_messages_tools_and_cache(tmp_path: Path) -> None:
    agent = _span(1, {"gen_ai.operation.name": "invoke_agent", "gen_ai.usage.input_tokens": 9999})
    later = _current_conventions_span(30, read=900, write=100, inp=1200)
    earlier = _current_conventions_span(20, read=0, write=1000, inp=1100)
    path = _write(tmp_path, "spans.json", json.dumps(_request(agent, later, earlier)))
    trace = load_trace(path)
    assert trace.format == "otel" and trace.model == "claude-sonnet-4-5-20250929"
    # the agent span (its usage sums its children's) is left out; calls in start-time order
    assert [
        (c.reported.input_tokens, c.reported.cache_read_tokens, c.reported.cache_write_tokens)
        for c in trace.calls
        if c.reported
    ] == [(1100, 0, 1000), (1200, 900, 100)]
    call = trace.calls[0]
    assert call.messages is not None
    assert [m.role for m in call.messages] == ["system", "user", "assistant", "tool"]
    assert call.messages[2].text == 'get_weather({"city":"Paris"})' and call.messages[3].text == "rainy, 57F"
    assert (
        call.output_text == "It is rainy."
        and call.tools is not None
        and call.tools[0]["name"] == "get_weather"
    )
    report = replay(trace, as_of=AS_OF)
    assert report.totals.cache_read_tokens == 900 and report.totals.cache_write_tokens == 1100
    assert all(r.counted_input for r in report.requests)


def test_input_without_cache_is_completed_and_said(tmp_path: Path) -> None:
    """Anthropic's own convention (input_tokens without the cache) is recognised when the cache
    figures exceed the input: they are added."""
    span = _current_conventions_span(1, read=900, write=100, inp=50)
    trace = load_trace(_write(tmp_path, "a.json", json.dumps(_request(span))))
    assert trace.calls[0].reported is not None and trace.calls[0].reported.input_tokens == 1050
    assert any("leaves out its cached tokens" in n for n in trace.notes)


def test_json_lines_and_older_events(tmp_path: Path) -> None:
    events = [
        {"name": "gen_ai.system.message", "attributes": [_kv("content", "You help.")]},
        {"name": "gen_ai.user.message", "attributes": [_kv("content", "Hi")]},
        {
            "name": "gen_ai.choice",
            "attributes": [_kv("message", json.dumps({"role": "assistant", "content": "Hello"}))],
        },
    ]
    one = _span(
        2,
        {
            "gen_ai.system": "openai",
            "gen_ai.request.model": "gpt-4o",
            "gen_ai.usage.prompt_tokens": 20,
            "gen_ai.usage.completion_tokens": 2,
        },
        events,
    )
    two = _span(
        1,
        {"gen_ai.request.model": "gpt-4o", "gen_ai.usage.input_tokens": 10, "gen_ai.usage.output_tokens": 1},
    )
    path = _write(
        tmp_path, "spans.jsonl", json.dumps(_request(one)) + "\n" + json.dumps(_request(two)) + "\n"
    )
    trace = load_trace(path)
    assert trace.format == "otel"
    assert [c.reported.input_tokens for c in trace.calls if c.reported] == [10, 20]
    assert [c.line for c in trace.calls] == [2, 1]
    msgs = trace.calls[1].messages
    assert msgs is not None and [(m.role, m.text) for m in msgs] == [("system", "You help."), ("user", "Hi")]
    assert trace.calls[1].output_text == "Hello" and trace.calls[0].messages is None
    assert any("record no input messages" in n for n in trace.notes)
    report = replay(trace, as_of=AS_OF)
    # gpt-4o $2.50/MTok in, $10/MTok out: (10 + 20) * 2.5e-6 + (1 + 2) * 10e-6 = 0.000105
    assert report.totals.cost_usd == Decimal("0.000105")


def test_sdk_span_objects(tmp_path: Path) -> None:
    """The Python SDK's span.to_json() shape: a flat attributes mapping, in a JSON list."""
    spans = [
        {
            "name": "chat gpt-4o",
            "context": {"span_id": "0x1"},
            "start_time": "2026-01-01T00:00:00Z",
            "attributes": {
                "gen_ai.request.model": "gpt-4o",
                "gen_ai.usage.input_tokens": 7,
                "gen_ai.usage.output_tokens": 3,
            },
        }
    ]
    trace = load_trace(_write(tmp_path, "spans.json", json.dumps(spans, indent=2)))
    assert trace.format == "otel" and trace.calls[0].reported is not None
    assert trace.calls[0].reported.input_tokens == 7


def test_console_exporter_output_and_cut_files(tmp_path: Path) -> None:
    """ConsoleSpanExporter prints each span's to_json() (indented) and a newline, one after another."""
    spans = [
        {
            "name": "chat",
            "start_time": f"2026-01-01T00:00:0{i}Z",
            "attributes": {
                "gen_ai.request.model": "gpt-4o",
                "gen_ai.usage.input_tokens": 7 + i,
                "gen_ai.usage.output_tokens": 3,
            },
        }
        for i in range(3)
    ]
    text = "".join(json.dumps(s, indent=4) + "\n" for s in spans)
    trace = load_trace(_write(tmp_path, "console.txt", text))
    assert trace.format == "otel" and [c.line for c in trace.calls] == [1, 10, 19]
    assert [c.reported.input_tokens for c in trace.calls if c.reported] == [7, 8, 9]
    cut = load_trace(_write(tmp_path, "cut.txt", text[:-30]), format_in="otel")
    assert cut.truncated and len(cut.calls) == 2 and "line 19 is cut off" in cut.warnings[0]
    lines = "".join(
        json.dumps(_request(_span(i, {"gen_ai.request.model": "gpt-4o", "gen_ai.usage.input_tokens": 5})))
        + "\n"
        for i in range(3)
    )
    cut_lines = load_trace(_write(tmp_path, "cut.jsonl", lines[:-20]))
    assert cut_lines.truncated and len(cut_lines.calls) == 2


def test_several_models_are_warned_about(tmp_path: Path) -> None:
    a = _span(1, {"gen_ai.request.model": "gpt-4o", "gen_ai.usage.input_tokens": 1})
    b = _span(2, {"gen_ai.request.model": "gpt-4o-mini", "gen_ai.usage.input_tokens": 1})
    trace = load_trace(_write(tmp_path, "s.json", json.dumps(_request(a, b))))
    assert trace.model == "gpt-4o" and any("2 different models" in w for w in trace.warnings)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"intValue": "12abc"}, "intValue must be a whole number"),
        ({"intValue": "-5"}, "must be a whole number from 0"),
        ({"doubleValue": 1.5}, "must be a whole number from 0"),
    ],
)
def test_bad_usage_is_one_line_naming_the_place(tmp_path: Path, value: Any, message: str) -> None:
    span = _span(1, {"gen_ai.request.model": "gpt-4o"})
    span["attributes"].append({"key": "gen_ai.usage.input_tokens", "value": value})
    path = _write(tmp_path, "bad.json", json.dumps(_request(span)))
    with pytest.raises(InputError) as err:
        load_trace(path)
    text = str(err.value)
    assert message in text and "\n" not in text
    assert "resourceSpans[0].scopeSpans[0].spans[0].attributes.gen_ai.usage.input_tokens" in text


def test_no_usage_and_bad_files_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = _write(tmp_path, "none.json", json.dumps(_request(_span(1, {"gen_ai.request.model": "gpt-4o"}))))
    assert run(["replay", str(empty)]) == 2
    err = capsys.readouterr().err
    assert "no span reports GenAI usage" in err and "Traceback" not in err
    assert run(["replay", str(LANGGRAPH), "--format-in", "otel"]) == 2
    assert "expected OTLP JSON spans" in capsys.readouterr().err
    cut = _write(tmp_path, "cut.json", '{"resourceSpans": [')
    assert run(["replay", str(cut), "--format-in", "otel"]) == 2
    assert "not valid JSON" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------
# Langfuse trace exports
# ---------------------------------------------------------------------------------------------


def test_langfuse_langgraph_export_replays() -> None:
    trace = load_trace(LANGGRAPH)
    assert trace.format == "langfuse" and trace.model == "gpt-4o-2024-08-06"
    reported = [c.reported for c in trace.calls]
    assert [
        (r.input_tokens, r.output_tokens, r.cache_read_tokens, r.cache_write_tokens) for r in reported if r
    ] == [
        (60, 15, 0, 0),
        (108, 51, 0, 0),
    ]
    assert [c.action for c in trace.calls] == ["Web-Search", None]
    assert all(c.messages for c in trace.calls)
    report = replay(trace, as_of=AS_OF)
    # by hand: gpt-4o $2.50/MTok in, $10/MTok out: (60 + 108) * 2.5e-6 + (15 + 51) * 10e-6 = 0.00108
    assert report.totals.cost_usd == Decimal("0.00108")
    # the cost Langfuse computed and stored (totalCost 0.000075 + 0.000159), shown beside ours
    assert report.totals.reported_cost_usd == Decimal("0.000234")


def test_langfuse_openai_agents_export_replays() -> None:
    trace = load_trace(AGENTS)
    assert trace.format == "langfuse" and trace.model == "gpt-4.1-2025-04-14"
    assert [(c.reported.input_tokens, c.reported.output_tokens) for c in trace.calls if c.reported] == [
        (55, 15),
        (85, 29),
    ]
    first = trace.calls[0].messages
    assert first is not None and first[0].role == "system" and first[0].text == "You are a helpful agent."
    assert trace.calls[0].action == "get_weather"
    report = replay(trace, as_of=AS_OF)
    # by hand: gpt-4.1 $2/MTok in, $8/MTok out: 140 * 2e-6 + 44 * 8e-6 = 0.000632, as Langfuse computed
    assert report.totals.cost_usd == Decimal("0.000632") == report.totals.reported_cost_usd


def test_langfuse_usage_types(tmp_path: Path) -> None:
    doc: dict[str, Any] = {
        "id": "t1",
        "observations": [
            {"type": "SPAN", "startTime": "2026-01-01T00:00:00Z"},
            {
                "type": "GENERATION",
                "startTime": "2026-01-01T00:00:01Z",
                "model": "claude-sonnet-4-5-20250929",
                "usageDetails": {
                    "input": 5,
                    "input_cache_read": 900,
                    "input_cache_creation": 100,
                    "output": 40,
                    "output_reasoning": 10,
                    "total": 1055,
                    "prompt_details.audio": 3,
                },
                "input": "not messages",
            },
        ],
    }
    trace = load_trace(_write(tmp_path, "lf.json", json.dumps(doc)))
    (call,) = trace.calls
    assert call.reported is not None
    assert (call.reported.input_tokens, call.reported.output_tokens) == (1005, 50)
    assert (call.reported.cache_read_tokens, call.reported.cache_write_tokens) == (900, 100)
    assert call.messages is None and any("not read" in w for w in trace.warnings)
    bad = dict(doc, observations=[dict(doc["observations"][1], usageDetails={"input": "many"})])
    with pytest.raises(InputError, match=r"observations\[0\]\.usageDetails\.input"):
        load_trace(_write(tmp_path, "bad.json", json.dumps(bad)))
