"""agentcost replay: SWE-agent trajectories, the ledger, truncated and malformed logs, the CLI."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from agentcost.cli import run
from agentcost.errors import InputError
from agentcost.replay import load_trace, replay

DATA = Path(__file__).parent / "data" / "swe-agent"
TRAJ = DATA / "swe-agent__test-repo-i1.traj"
ARGS = DATA / "test-repo-i1.args.yaml"
AS_OF = datetime(2026, 11, 30, tzinfo=UTC)

VALIDATION = Path(__file__).resolve().parents[2] / "shared" / "validation"
if not VALIDATION.is_dir():
    VALIDATION = Path("/work/shared/validation")


def test_swe_agent_trajectory_replays_exactly() -> None:
    trace = load_trace(TRAJ, config=ARGS)
    assert trace.format == "swe-agent"
    assert trace.model == "gpt-4-1106-preview"
    report = replay(trace, as_of=AS_OF)
    t = report.totals
    assert (t.requests, t.counted_input, t.counted_output) == (5, 52_861, 326)
    assert (t.reported_input, t.reported_output) == (52_861, 326)
    assert t.input_error == 0 and t.output_error == 0 and t.gap == 0
    assert report.prices.model_id == "gpt-4-turbo"
    assert (report.prices.input_mtok, report.prices.output_mtok) == (10, 30)
    assert t.cost_usd == Decimal("0.53839") == t.reported_cost_usd
    assert t.priced_from == "reported run totals"
    assert [r.counted_input for r in report.requests] == [10_211, 10_387, 10_564, 10_792, 10_907]
    assert [r.counted_output for r in report.requests] == [103, 43, 64, 64, 52]
    assert report.requests[-1].running_usd == Decimal("0.53839")
    assert [r.tool for r in report.requests] == ["find_file", "open", "edit", "python", "submit"]
    fit = report.fit
    assert fit is not None and fit.prefix_b == 10_211 and fit.growth_r == 174
    assert fit.max_abs_deviation == 59 and fit.r_squared is not None and fit.r_squared > Decimal("0.98")
    assert report.cached_share is None  # SWE-agent does not record cache reads
    assert {x.tool: x.result_tokens for x in report.tools} == {
        "edit": 156,
        "open": 126,
        "find_file": 65,
        "python": 43,
    }


@pytest.mark.skipif(not VALIDATION.is_dir(), reason="shared/validation not available")
def test_copy_matches_shared_validation() -> None:
    shared = VALIDATION / "swe-agent" / TRAJ.name
    assert shared.read_bytes() == TRAJ.read_bytes()


def test_model_option_takes_swe_agent_shortcuts() -> None:
    assert load_trace(TRAJ, model="gpt4").model == "gpt-4-1106-preview"
    assert load_trace(TRAJ, model="gpt-4-1106-preview", config=ARGS).model == "gpt-4-1106-preview"


def test_missing_model_is_an_input_error(tmp_path: Path) -> None:
    alone = tmp_path / TRAJ.name  # no run config beside it
    alone.write_bytes(TRAJ.read_bytes())
    with pytest.raises(InputError, match="does not name the model"):
        replay(load_trace(alone), as_of=AS_OF)


def test_run_config_beside_the_trajectory_is_found_even_when_renamed() -> None:
    # tests/data/swe-agent/ holds test-repo-i1.args.yaml, the only *args.yaml there
    trace = load_trace(TRAJ)
    assert trace.model == "gpt-4-1106-preview"
    assert replay(trace, as_of=AS_OF).totals.cost_usd == Decimal("0.53839")


def test_truncated_tail_gives_a_partial_ledger(tmp_path: Path) -> None:
    text = TRAJ.read_text(encoding="utf-8")
    data = json.loads(text)
    # cut inside the 4th assistant message of the history: three complete calls remain
    fourth = text.index('"role": "assistant"', text.index('"history"'))
    for _ in range(3):
        fourth = text.index('"role": "assistant"', fourth + 1)
    cut = tmp_path / "cut.traj"
    cut.write_text(text[: fourth + 40], encoding="utf-8")
    trace = load_trace(cut, model="gpt4")
    assert trace.truncated and len(trace.calls) == 3
    assert "read 3 API calls" in trace.warnings[0]
    report = replay(trace, as_of=AS_OF)
    assert [r.counted_input for r in report.requests] == [10_211, 10_387, 10_564]
    assert report.totals.reported_input is None and report.totals.priced_from == "counted"
    assert len(data["history"]) == 12


def test_malformed_json_names_the_line(tmp_path: Path) -> None:
    lines = TRAJ.read_text(encoding="utf-8").splitlines()
    lines[9] = lines[9] + " oops"
    bad = tmp_path / "bad.traj"
    bad.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_trace(bad, model="gpt4")
    assert err.value.line == 10
    assert str(err.value).startswith(f"{bad}:10: not valid JSON")


def test_unknown_format_lists_the_supported_ones(tmp_path: Path) -> None:
    other = tmp_path / "log.jsonl"
    other.write_text('{"type": "message"}\n', encoding="utf-8")
    with pytest.raises(InputError, match="supported: swe-agent"):
        load_trace(other)
    with pytest.raises(InputError, match="unknown log format"):
        load_trace(TRAJ, format_in="nope")


def test_json_detection_without_the_traj_suffix(tmp_path: Path) -> None:
    copy = tmp_path / "run.json"
    copy.write_bytes(TRAJ.read_bytes())
    assert load_trace(copy, model="gpt4").format == "swe-agent"


def test_cli_replay_outputs(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["replay", str(TRAJ), "--config", str(ARGS), "--as-of", "2026-11-30"]
    assert run([*base, "-q"]) == 0
    assert capsys.readouterr().out == "0.53839\n"
    assert run([*base, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["kind"] == "replay"
    assert doc["totals"]["reported_input_tokens"] == doc["totals"]["counted_input_tokens"] == 52_861
    assert doc["totals"]["cost_usd"] == "0.53839"
    from jsonschema import Draft202012Validator

    from agentcost.render.schema import report_schema

    Draft202012Validator(report_schema()).validate(doc)
    assert run([*base, "--format", "csv"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0].startswith("index,line,tool,counted_input") and len(rows) == 6
    assert run([*base, "--format", "markdown"]) == 0
    assert "| **total** |" in capsys.readouterr().out


def test_cli_replay_bad_input_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    alone = tmp_path / TRAJ.name  # no run config beside it, no --model
    alone.write_bytes(TRAJ.read_bytes())
    assert run(["replay", str(alone), "--as-of", "2026-11-30"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not name the model" in err
