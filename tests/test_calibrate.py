"""agentcost calibrate: a scenario fitted to a recorded run re-estimates to the replayed total."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from agentcost.cli import run
from agentcost.commands.batch import batch_report_for_paths
from agentcost.commands.calibrate import calibrate, calibrate_trace
from agentcost.commands.conversations import calibrate_log, write_log_calibration
from agentcost.errors import InputError
from agentcost.loop.estimate import estimate
from agentcost.replay import load_trace, replay
from agentcost.replay.trace import RecordedCall, ReportedUsage, Trace

DATA = Path(__file__).parent / "data"
TRAJ = DATA / "swe-agent" / "swe-agent__test-repo-i1.traj"
ARGS = DATA / "swe-agent" / "test-repo-i1.args.yaml"
AS_OF = datetime(2026, 11, 30, tzinfo=UTC)
TOLERANCE = Decimal("0.02")


def _round_trip(trace: Trace, tmp_path: Path, **kw: object) -> tuple[Decimal, Decimal, Path]:
    """(replayed total, estimate of the written scenario, the scenario file)."""
    replayed = replay(trace, as_of=AS_OF).totals.cost_usd
    out = tmp_path / "calibrated.yaml"
    out.write_text(calibrate(trace, as_of=AS_OF, **kw), encoding="utf-8")  # type: ignore[arg-type]
    return replayed, estimate(out, as_of=AS_OF).total_usd, out


@pytest.mark.parametrize("layout", ["chat", "tools"])
def test_swe_agent_round_trip_is_exact(tmp_path: Path, layout: str) -> None:
    trace = load_trace(TRAJ, config=ARGS)
    before = TRAJ.read_bytes()
    replayed, estimated, out = _round_trip(trace, tmp_path, layout=layout)
    assert replayed == Decimal("0.53839")
    error = (estimated - replayed) / replayed
    assert abs(error) <= TOLERANCE
    assert error == 0  # measured: $0.53839 both ways, in either layout
    est = estimate(out, as_of=AS_OF)
    assert [r.usage.input_tokens for r in est.ledger.rows] == [10_211, 10_387, 10_564, 10_792, 10_907]
    assert [r.usage.output_tokens for r in est.ledger.rows] == [103, 43, 64, 64, 52]
    assert TRAJ.read_bytes() == before


def test_swe_agent_chat_layout_sizes_are_the_messages() -> None:
    """SWE-agent sends plain chat messages: as chat turns, each reply is the response and each user
    message the observation, with no framing to take off (tool rounds would need 11 tokens less)."""
    c = calibrate_trace(load_trace(TRAJ, config=ARGS), as_of=AS_OF, now=AS_OF)
    assert c.layout == "chat" and c.caching == "none"
    assert (c.input_residual, c.output_residual) == (0, 0)
    text = c.text
    assert text.startswith("# Calibrated by agentcost calibrate from ")
    assert "at 2026-11-30T00:00:00Z" in text and "swe-agent, 5 requests" in text
    assert 'model: "gpt-4-1106-preview"' in text and "caching: none" in text
    assert "system: {tokens: 9377}\ntask: {tokens: 823}\n" in text
    assert "  - {reply: {tokens: 103}, user: {tokens: 65}}\n" in text  # find_file's 65-token result
    assert text.endswith("final: {tokens: 52}\n")


def _cached_trace(model: str = "claude-sonnet-4-5") -> Trace:
    """A constructed Claude-Code-like run: the prefix grows each call, the previous request's input
    is read from the cache and the new part written (per-request usage with cache fields)."""
    calls = []
    prev = 0
    for i in range(10):
        size = 15_000 + 1_400 * i + (i % 3) * 300
        rep = ReportedUsage(size, 120 + 10 * (i % 4), cache_read_tokens=prev, cache_write_tokens=size - prev)
        calls.append(
            RecordedCall(i + 1, model, None, None, None, rep, i + 1, action="Read" if i % 2 else "Bash")
        )
        prev = size
    return Trace("constructed.jsonl", "constructed", model, tuple(calls), None)


def test_cached_trace_round_trip(tmp_path: Path) -> None:
    trace = _cached_trace()
    replayed, estimated, out = _round_trip(trace, tmp_path)
    error = (estimated - replayed) / replayed
    assert abs(error) < Decimal("0.001")  # measured: +0.05% ($0.179880 -> $0.1799742)
    text = out.read_text(encoding="utf-8")
    assert "caching: conversation" in text and "call_tokens:" in text
    assert '{tool: "Bash", call_tokens: 77, result: {tokens: 1566}}' in text


def test_equal_rounds_are_compressed_with_repeat() -> None:
    calls = [
        RecordedCall(
            i + 1, "gpt-4o", None, None, None, ReportedUsage(2_000 + 300 * i, 50), i + 1, action="run"
        )
        for i in range(6)
    ]
    c = calibrate_trace(Trace("t.jsonl", "constructed", "gpt-4o", tuple(calls), None), as_of=AS_OF)
    assert c.text.count("repeat: 5") == 1 and c.error == 0


def _samples() -> list[Path]:
    found = [
        p
        for sub in ("api-logs", "claude-code")
        if (DATA / sub).is_dir()
        for p in sorted((DATA / sub).iterdir())
        if p.suffix in {".jsonl", ".json"}
    ]
    return found


@pytest.mark.parametrize("sample", _samples() or [None], ids=lambda p: p.name if p else "none-yet")
def test_other_samples_round_trip_within_2_percent(sample: Path | None, tmp_path: Path) -> None:
    if sample is None:
        pytest.skip("no samples in tests/data/api-logs or tests/data/claude-code yet")
    try:
        trace = load_trace(sample)
    except InputError as err:
        if "log format" in str(err):
            pytest.skip(f"the parser for {sample.name} is not registered yet: {err}")
        raise
    # a log of several separate conversations is one scenario each: the round trip sums them
    result = calibrate_log(trace, as_of=AS_OF, output=tmp_path / "calibrated.yaml")
    write_log_calibration(result, tmp_path / "calibrated.yaml", trace_path=sample)
    replayed = replay(trace, as_of=AS_OF).totals.cost_usd
    estimated = batch_report_for_paths([tmp_path / "calibrated.yaml"], as_of=AS_OF).totals.cost_usd
    assert estimated == result.estimated_usd
    assert replayed > 0
    # claude-code/session.jsonl: request 1 writes 12,000 tokens at 1h and 3,200 at 5m; calibrate
    # writes cache_ttl: {prefix: 1h, conversation: 5m} (measured: -0.01%; one TTL was +8.35%)
    assert abs((estimated - replayed) / replayed) <= TOLERANCE


def test_cli_calibrate_writes_and_refuses_to_overwrite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "scenario.yaml"
    base = ["calibrate", str(TRAJ), "--config", str(ARGS), "--as-of", "2026-11-30", "-o", str(out)]
    assert run(base) == 0
    err = capsys.readouterr().err
    assert f"wrote {out}: 5 requests; replayed $0.53839, re-estimated $0.53839 (+0.00%)" in err
    assert estimate(out, as_of=AS_OF).total_usd == Decimal("0.53839")
    out.write_text("keep me", encoding="utf-8")
    assert run(base) == 2
    assert "the file exists" in capsys.readouterr().err and out.read_text(encoding="utf-8") == "keep me"
    assert run([*base, "--force"]) == 0
    assert out.read_text(encoding="utf-8").startswith("# Calibrated")
    assert [p.name for p in tmp_path.iterdir()] == ["scenario.yaml"]  # no temporary files left


def test_cli_calibrate_never_writes_over_the_trace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "run.traj"
    copy.write_bytes(TRAJ.read_bytes())
    assert run(["calibrate", str(copy), "--model", "gpt4", "-o", str(copy), "--force"]) == 2
    assert "refusing to write over the trace" in capsys.readouterr().err
    assert copy.read_bytes() == TRAJ.read_bytes()


def test_cli_calibrate_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["calibrate", str(TRAJ), "--model", "gpt4", "--as-of", "2026-11-30"]) == 0
    assert "version: 1\n" in capsys.readouterr().out
