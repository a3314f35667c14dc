"""``agentcost replay DIR...``: many runs at once (agentcost.commands.replay_many)."""

from __future__ import annotations

import json
import math
import shutil
from collections import Counter
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from agentcost.cli import run
from agentcost.commands.replay_many import counted_percentile, find_logs, stat
from agentcost.render.schema import report_schema
from agentcost.replay import load_trace, replay
from tests.conftest import validate_json

DATA = Path(__file__).parent / "data"
API_LOGS = DATA / "api-logs"
SWE = DATA / "swe-agent"
AS_OF = "2026-11-30"
WHEN = datetime(2026, 11, 30, tzinfo=UTC)


def _corpus(root: Path) -> Path:
    """30 logs: every prefix of each API log (1..N lines) and each log doubled, so that sizes vary;
    8 copies of the SWE-agent 0.x sample (its args.yaml beside them) and 2 of the 1.x one; plus a
    bad log, a hidden log and a file that is not a log."""
    corpus = root / "corpus"
    api = corpus / "api"
    api.mkdir(parents=True)
    for log in sorted(API_LOGS.glob("*.jsonl")):
        lines = log.read_text(encoding="utf-8").splitlines(keepends=True)
        for k in range(1, len(lines) + 1):
            (api / f"{log.stem}-{k}.jsonl").write_text("".join(lines[:k]), encoding="utf-8")
        (api / f"{log.stem}-x2.jsonl").write_text("".join(lines * 2), encoding="utf-8")
    swe = corpus / "swe"
    swe.mkdir()
    shutil.copy(SWE / "test-repo-i1.args.yaml", swe / "args.yaml")
    for i in range(8):
        shutil.copy(SWE / "swe-agent__test-repo-i1.traj", swe / f"run-{i}.traj")
    for i in range(2):
        shutil.copy(SWE / "swe-agent-1x__marshmallow-1867.traj", corpus / f"v1-{i}.traj")
    (corpus / "bad.json").write_text("{not json", encoding="utf-8")
    (corpus / ".hidden.jsonl").write_text("{}", encoding="utf-8")
    (corpus / "README.md").write_text("not a log", encoding="utf-8")
    return corpus


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _corpus(tmp_path_factory.mktemp("many"))


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> dict:  # type: ignore[type-arg]
    assert run(["replay", *args, "--as-of", AS_OF, "--format", "json"]) == 0
    doc: dict = json.loads(capsys.readouterr().out)  # type: ignore[type-arg]
    return doc


def test_walk_order_skips_and_limits(corpus: Path) -> None:
    found = find_logs([str(corpus)])
    names = [p.relative_to(corpus).as_posix() for p in found.files]
    # a directory's files (sorted), then its subdirectories (sorted), each walked the same way
    assert names[:3] == ["bad.json", "v1-0.traj", "v1-1.traj"]
    assert names[3:19] == sorted(names[3:19]) and all(n.startswith("api/") for n in names[3:19])
    assert names[19:] == [f"swe/run-{i}.traj" for i in range(8)]
    assert ".hidden.jsonl" not in names and "README.md" not in names and "bad.json" in names
    assert len(found.files) == 27 and found.ignored == 2  # README.md and swe/args.yaml
    again = find_logs([str(corpus / "swe"), str(corpus / "swe" / "run-0.traj"), str(corpus / "swe/*.traj")])
    assert len(again.files) == 8  # a file met twice is read once
    limited = find_logs([str(corpus)], max_files=5)
    assert len(limited.files) == 5 and limited.limit == "--max-files 5"
    size = (corpus / "swe" / "run-0.traj").stat().st_size
    by_bytes = find_logs([str(corpus / "swe")], max_bytes=3 * size)
    assert len(by_bytes.files) == 3 and by_bytes.limit == f"--max-total-bytes {3 * size}"
    missing = find_logs([str(corpus / "nope"), str(corpus / "*.none")])
    assert [reason for _, reason in missing.missing] == [
        "no such file or directory",
        "no file matches the pattern",
    ]


def test_each_run_equals_its_single_replay(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = _json(capsys, str(corpus))
    summary, rows = doc["summary"], doc["runs"]
    assert summary["runs"] == len(rows) == 26 and summary["skipped"] == 1
    total = Decimal(0)
    for row in rows:
        single = replay(load_trace(Path(row["path"])), as_of=WHEN)
        assert Decimal(row["cost_usd"]) == single.totals.cost_usd
        assert row["requests"] == single.totals.requests
        assert row["format"] == single.format and row["model"] == single.model
        total += single.totals.cost_usd
    assert Decimal(summary["totals"]["cost_usd"]) == total
    assert summary["totals"]["requests"] == sum(r["requests"] for r in rows)


def test_percentiles_are_nearest_rank(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = _json(capsys, str(corpus))
    costs = sorted(Decimal(r["cost_usd"]) for r in doc["runs"])
    n = len(costs)  # 26: p50 is the 13th cheapest run, p90 the 24th (ceil(23.4)), p99 the 26th
    assert [math.ceil(q * n / 100) for q in (50, 90, 99)] == [13, 24, 26]
    stats = doc["summary"]["cost_usd"]
    assert Decimal(stats["p50"]) == costs[12] and Decimal(stats["p90"]) == costs[23]
    assert Decimal(stats["p99"]) == costs[25] == Decimal(stats["max"])
    assert Decimal(stats["min"]) == costs[0]
    assert Decimal(stats["mean"]) == (sum(costs, Decimal(0)) / n).quantize(Decimal("1E-10"))
    assert len(set(costs)) > 10  # the distribution is not trivial
    steps = sorted(r["requests"] for r in doc["runs"])
    assert doc["summary"]["requests"]["p90"] == str(steps[23])


def test_stat_by_hand() -> None:
    s = stat([Decimal(v) for v in (7, 1, 3, 10, 2, 9, 4, 8, 6, 5)], Decimal("0.01"))
    # nearest rank over 1..10: p50 = the 5th value, p90 the 9th, p99 the 10th (ceil(9.9))
    assert [s.p50, s.p90, s.p99, s.min, s.max, s.mean] == [Decimal(v) for v in (5, 9, 10, 1, 10, "5.50")]
    sizes = Counter({100: 3, 20: 1, 5000: 1})  # 20, 100, 100, 100, 5000
    assert counted_percentile(sizes, 50) == 100  # the 3rd of 5
    assert counted_percentile(sizes, 90) == 5000  # the 5th of 5 (ceil(4.5))
    assert counted_percentile(Counter({1: 1}), 90) == 1


def test_jobs_do_not_change_the_output(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # 27 files in chunks of 8: 4 chunks over 2 workers, 4 in flight; one worker pool in all (slow to start)
    outputs = []
    for jobs in ("1", "2"):
        assert run(["replay", str(corpus), "--as-of", AS_OF, "--format", "json", "--jobs", jobs]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]


def test_tools_and_cached_share(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    summary = _json(capsys, str(corpus))["summary"]
    tools = {t["tool"]: t for t in summary["tools"]}
    # 8 copies of the 0.x run: each calls find_file (65 tokens), open (126), edit (156), python (43)
    assert tools["edit"]["runs"] >= 8 and tools["find_file"]["calls"] >= 8
    sizes: dict[str, list[int]] = {}
    for path in find_logs([str(summary["inputs"][0])]).files:
        try:
            report = replay(load_trace(path), as_of=WHEN)
        except Exception:  # the bad log
            continue
        for r in report.requests:
            if r.tool is not None and r.result_tokens is not None:
                sizes.setdefault(r.tool, []).append(r.result_tokens)
    for tool, values in sizes.items():
        ordered = sorted(values)
        assert tools[tool]["calls"] == len(values)
        assert tools[tool]["p50"] == ordered[math.ceil(len(values) / 2) - 1]
        assert tools[tool]["p90"] == ordered[math.ceil(len(values) * 9 / 10) - 1]
    assert summary["cached_runs"] == 16  # the API logs record cache reads; SWE-agent's do not
    assert summary["failed_share"] is None and summary["retried_share"] is None


def test_bad_file_is_skipped_with_its_reason(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    summary = _json(capsys, str(corpus))["summary"]
    assert summary["skip_reasons"] == [{"reason": "cannot tell the log format", "files": 1}]
    assert summary["first_skipped"][0]["path"].endswith("bad.json")
    assert run(["replay", str(corpus / "bad.json"), str(corpus / "nope"), "--as-of", AS_OF]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert "no run could be replayed: 2 skipped" in captured.err


def test_json_schema_csv_markdown(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = _json(capsys, str(corpus / "api"), str(corpus / "swe" / "*.traj"))
    validate_json(doc, report_schema())
    assert doc["kind"] == "replay_many" and doc["summary"]["runs"] == 24
    assert run(["replay", str(corpus), "--as-of", AS_OF, "--format", "csv"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0].startswith("index,path,format,model,requests") and len(rows) == 27
    assert run(["replay", str(corpus), "--as-of", AS_OF, "--format", "markdown"]) == 0
    assert "| cost per run |" in capsys.readouterr().out
    assert run(["replay", str(corpus), "--as-of", AS_OF, "-q"]) == 0
    assert Decimal(capsys.readouterr().out) == Decimal(doc["summary"]["totals"]["cost_usd"]) + sum(
        (Decimal(r["cost_usd"]) for r in _json(capsys, str(corpus / "v1-*.traj"))["runs"]), Decimal(0)
    )


def test_one_file_keeps_the_single_run_report(capsys: pytest.CaptureFixture[str]) -> None:
    from agentcost.render.output import Format, render_text

    log = API_LOGS / "anthropic-prompt-caching.jsonl"
    expected = render_text(replay(load_trace(log), as_of=WHEN), Format.json)
    assert run(["replay", str(log), "--as-of", AS_OF, "--format", "json"]) == 0
    assert capsys.readouterr().out == expected
