"""Untrusted input, bounds not applied (issue 28, item 7; the ``--count api`` stalls are elsewhere).

* ``replay``, ``calibrate`` and ``replay DIR`` ignored ``--max-input-bytes``: a 120 MB word took 82 s and
  5.85 GB. The text a trace would tokenize is now measured before anything is tokenized
  (:func:`agentcost.replay.ledger.check_trace`), with the one message of the text budget.
* ``reconcile`` read up to 100 exports of 10 MB each, all parsed at once: the exports now count
  against ``--max-input-bytes`` in all, each refused by its size before it is read.
* ``diff --base-ref`` read a 600 MB base blob whole before the size check: git is asked its size.
* One long "word" made the BPE's time grow faster than its length: counted in parts.
* ``--simulate 10,000,000`` over 61 requests took 143 s and 928 MB, and an extreme lognormal
  overflowed int64 (a numpy warning and wrong figures).

Limits are small so that the files stay small; no test measures time or memory (bench/ does).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import warnings
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agentcost.cli import run
from agentcost.errors import InputError
from agentcost.infra.files import FileTooLarge, Unreadable, read_text
from agentcost.infra.gitread import GitReader
from agentcost.infra.policy import InputPolicy, using_policy
from agentcost.loop import simulate as simulation
from agentcost.replay.ledger import trace_chars
from agentcost.replay.trace import Message, RecordedCall, ReportedUsage, ToolPart, Trace
from agentcost.scenario.dists import MAX_DRAW, sample
from agentcost.scenario.model import Dist
from agentcost.tokens import encodings
from agentcost.tokens.encodings import LONG_RUN, get_encoding, ordinary_tokens
from agentcost.tokens.memo import TokenMemo
from tests.conftest import git_in

ROOT = Path(__file__).resolve().parent.parent
EXPORTS = ROOT / "tests" / "data" / "usage-exports"
TRACE_HINT = "each distinct text of the log once, tool definitions as JSON text; raise the limit with --max-input-bytes N"


def trace_error(file: str, total: int, limit: int) -> str:
    return (
        f"agentcost: error: {file}: {total:,} characters of text to tokenize, over the limit of "
        f"{limit:,} ({TRACE_HINT})\n"
    )


def chat_line(user: str, reply: str = "ok", tools: list[dict[str, Any]] | None = None) -> str:
    """One request of an OpenAI chat API log (JSON lines), with its reported usage."""
    request: dict[str, Any] = {"model": "gpt-4o", "messages": [{"role": "user", "content": user}]}
    if tools is not None:
        request["tools"] = tools
    response = {
        "choices": [{"message": {"role": "assistant", "content": reply}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 2},
    }
    return json.dumps({"request": request, "response": response}) + "\n"


TOOL = {"type": "function", "function": {"name": "grep", "description": "d" * 300, "parameters": {}}}
TOOL_JSON = len(json.dumps(TOOL, separators=(", ", ": ")))  # 391

# (log lines, the characters its counting tokenizes)
LOGS = {
    "one long message": ([chat_line("x" * 1200)], 1200 + 2),
    "a word of letters without a space": ([chat_line("abcdefghij" * 150)], 1500 + 2),
    # three requests repeating one 600-character text: counted once, as the memo tokenizes it once
    "a text repeated by every request": ([chat_line("y" * 600, "a" * 200)] * 3, 600 + 200),
    "distinct texts add up": ([chat_line("z" * 500), chat_line("w" * 500, "ok")], 1000 + 2),
    # the same tool definition in each request: its JSON text once
    "tool definitions as JSON text": ([chat_line("q" * 300, tools=[TOOL])] * 4, 300 + 2 + TOOL_JSON),
}


@pytest.fixture
def no_tokenizer(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make every way to tokenize a text fail: a refusal must come before any is tokenized."""

    def refuse(*args: object, **kwargs: object) -> int:
        raise AssertionError("the tokenizer was called")

    monkeypatch.setattr(TokenMemo, "count", refuse)
    monkeypatch.setattr(TokenMemo, "prefetch", refuse)
    monkeypatch.setattr(encodings, "ordinary_tokens", refuse)


@pytest.mark.parametrize("case", sorted(LOGS))
def test_replay_refuses_a_log_over_the_text_budget_before_tokenizing(
    case: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    no_tokenizer: None,
) -> None:
    lines, total = LOGS[case]
    monkeypatch.chdir(tmp_path)
    Path("run.jsonl").write_text("".join(lines), encoding="utf-8")
    limit = total - 1  # one character less than the log tokenizes
    assert run(["replay", "run.jsonl", "--max-input-bytes", str(limit)]) == 2
    assert capsys.readouterr().err == trace_error("run.jsonl", total, limit)


@pytest.mark.parametrize("case", sorted(LOGS))
def test_replay_at_the_text_budget_counts_as_before(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    lines, total = LOGS[case]
    monkeypatch.chdir(tmp_path)
    Path("run.jsonl").write_text("".join(lines), encoding="utf-8")
    assert run(["replay", "run.jsonl", "--max-input-bytes", str(total), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["totals"]["requests"] == len(lines)


def test_a_log_a_bit_larger_than_the_limit_is_refused_and_never_tokenized(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], no_tokenizer: None
) -> None:
    """The acceptance line: ``replay --max-input-bytes 1000`` of a 30 MB text exits 2, its memory
    bounded (the trace's size limit bounds the read, and nothing is tokenized), here at 1,216 bytes."""
    monkeypatch.chdir(tmp_path)
    Path("big.jsonl").write_text(chat_line("w" * 1000), encoding="utf-8")
    assert Path("big.jsonl").stat().st_size == 1216
    assert run(["replay", "big.jsonl", "--max-input-bytes", "1000"]) == 2
    assert capsys.readouterr().err == trace_error("big.jsonl", 1002, 1000)


def test_calibrate_refuses_a_log_over_the_text_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], no_tokenizer: None
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("run.jsonl").write_text(chat_line("x" * 1200), encoding="utf-8")
    assert run(["calibrate", "run.jsonl", "--max-input-bytes", "1000"]) == 2
    assert capsys.readouterr().err == trace_error("run.jsonl", 1202, 1000)


def test_replay_of_many_logs_bounds_each_run_and_skips_the_one_over_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("logs").mkdir()
    Path("logs/a.jsonl").write_text(chat_line("a" * 500), encoding="utf-8")
    Path("logs/b.jsonl").write_text(chat_line("b" * 1500), encoding="utf-8")
    assert run(["replay", "logs", "--max-input-bytes", "1000", "--format", "json"]) == 0
    summary = json.loads(capsys.readouterr().out)["summary"]
    assert (summary["files"], summary["runs"], summary["skipped"]) == (2, 1, 1)
    assert summary["skip_reasons"] == [
        {"reason": "1,502 characters of text to tokenize, over the limit of 1,000", "files": 1}
    ]
    (first,) = summary["first_skipped"]
    assert first["path"] == os.path.join("logs", "b.jsonl")


def test_trace_chars_counts_each_distinct_text_once() -> None:
    shared = "s" * 70
    calls = tuple(
        RecordedCall(
            index=i,
            model="gpt-4o",
            messages=(
                Message("system", shared),
                Message("user", f"task {i}", name="ann"),
                Message("assistant", "", calls=(ToolPart("grep", '{"q":"x"}'),)),
                Message("tool", "", results=(ToolPart("grep", "r" * 40),)),
            ),
            tools=({"name": "grep"},),
            output_text="done",
            reported=ReportedUsage(1, 1),
            line=i,
            result_text="r" * 40,  # the same text as the tool result: once
            output_calls=(ToolPart("grep", '{"q":"x"}'),),
        )
        for i in (1, 2)
    )
    trace = Trace(
        path="t.jsonl", format="openai-chat-jsonl", model="gpt-4o", calls=calls, reported_totals=None
    )
    # shared 70, "task 1" and "task 2" 12, "ann" 3, "grep" 4, '{"q":"x"}' 9, 40 r's, "done" 4,
    # and the tool as JSON text, '{"name": "grep"}', 16
    assert trace_chars(trace) == 70 + 12 + 3 + 4 + 9 + 40 + 4 + 16


# --- reconcile's exports -----------------------------------------------------------------------------


def test_reconcile_refuses_exports_over_the_budget_in_all_before_reading_the_last(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    shutil.copy(EXPORTS / "anthropic-usage.json", "a.json")
    shutil.copy(EXPORTS / "anthropic-cost.json", "b.json")
    size_a, size_b = Path("a.json").stat().st_size, Path("b.json").stat().st_size
    limit = size_a + size_b - 1
    read: list[str] = []
    from agentcost.commands import reconcile_read

    real = reconcile_read.read_export

    def spy(path: Path, **kwargs: Any) -> Any:
        read.append(str(path))
        return real(path, **kwargs)

    monkeypatch.setattr(reconcile_read, "read_export", spy)
    assert run(["reconcile", "a.json", "b.json", "--max-input-bytes", str(limit)]) == 2
    assert capsys.readouterr().err == (
        f"agentcost: error: b.json: more than {limit:,} bytes of exports in all: {size_a + size_b:,} "
        "with this file (reconcile a shorter period, or raise the limit with --max-input-bytes N)\n"
    )
    assert read == ["a.json"]  # b.json refused by its size, never read
    assert (
        run(["reconcile", "a.json", "b.json", "--max-input-bytes", str(limit + 1), "--format", "json"]) == 0
    )
    assert read == ["a.json", "a.json", "b.json"]


# --- diff --base-ref: a blob's size before its bytes -------------------------------------------------


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git_in(tmp_path, "init", "-q")
    (tmp_path / "small.yaml").write_text("x" * 900, encoding="utf-8")
    (tmp_path / "big.yaml").write_text("x" * 1100, encoding="utf-8")
    git_in(tmp_path, "add", ".")
    git_in(tmp_path, "commit", "-qm", "base")
    return tmp_path


def test_a_base_blob_over_the_limit_is_refused_by_its_size_before_git_reads_it(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ran: list[tuple[str, ...]] = []
    real = GitReader.git

    def spy(self: GitReader, where: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
        ran.append(args[:2])
        return real(self, where, *args)

    monkeypatch.setattr(GitReader, "git", spy)
    reader = GitReader("HEAD", repo, limit=1000)
    with pytest.raises(FileTooLarge) as caught:
        reader(repo / "big.yaml")
    assert (caught.value.size, caught.value.limit) == (1100, 1000)
    assert ("cat-file", "blob") not in ran  # its bytes were never asked for
    assert reader(repo / "small.yaml") == b"x" * 900
    assert ran[-1] == ("cat-file", "blob")
    with pytest.raises(Unreadable) as unreadable:
        read_text(repo / "big.yaml", reader)
    assert unreadable.value.reason == (
        "file too large: 1,100 bytes, over the limit of 1,000 bytes (real files stay far below it)"
    )


# --- one long word: counted in parts ------------------------------------------------------------------


def test_a_long_run_without_whitespace_is_counted_in_parts() -> None:
    enc = get_encoding("o200k_base")
    word = "".join(chr(97 + (i * 7919) % 26) for i in range(3 * LONG_RUN + 5))
    parts = [word[i : i + LONG_RUN] for i in range(0, len(word), LONG_RUN)]
    text = "before the word " + word + " after it"
    expected = len(enc.encode_ordinary("before the word ")) + sum(len(enc.encode_ordinary(p)) for p in parts)
    expected += len(enc.encode_ordinary(" after it"))
    assert ordinary_tokens(enc, text) == expected
    exact = len(enc.encode_ordinary(text))
    assert abs(ordinary_tokens(enc, text) - exact) <= len(parts) + 2  # a token or so per cut


@pytest.mark.parametrize(
    "text",
    [
        "hello world, this is text. " * 3000,  # prose
        ("a" * (LONG_RUN - 1) + " ") * 4,  # runs just under the part size
        "b" * (2 * LONG_RUN - 2) + " c",  # a run that fills no aligned block: exact
    ],
)
def test_texts_without_a_long_run_are_counted_exactly(text: str) -> None:
    enc = get_encoding("o200k_base")
    assert ordinary_tokens(enc, text) == len(enc.encode_ordinary(text))


# --- --simulate ---------------------------------------------------------------------------------------

LOGNORMAL = Dist("lognormal", (Decimal(1), Decimal(1_000_000_000)), "final", 5)


def test_an_extreme_lognormal_is_cut_at_the_largest_draw_without_a_warning() -> None:
    u = np.array([0.5, 0.9, 0.99999, 1 - 1e-10, 1 - 1e-16])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a numpy RuntimeWarning (an int64 overflow) fails the test
        draws = sample(LOGNORMAL, u)
    assert draws.tolist() == [1, MAX_DRAW, MAX_DRAW, MAX_DRAW, MAX_DRAW]  # 10^57 at 1 - 1e-16: cut


EXTREME = """version: 1
model: claude-sonnet-4-5
task: {tokens: 400}
rounds:
  - tool: Bash
    call_tokens: 10
    result: 100
    thinking: {lognormal: {median: 1, p90: 1000000000}}
    repeat: 3
final: {lognormal: {median: 1, p90: 1000000000}}
"""


def test_an_extreme_lognormal_simulates_without_a_warning_or_a_negative_figure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(EXTREME, encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        code = run(["estimate", str(path), "--simulate", "3000", "--format", "json"])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    tokens = json.loads(out)["simulation"]["input_tokens"]
    assert 0 < Decimal(str(tokens["min"])) <= Decimal(str(tokens["mean"])) <= Decimal(str(tokens["max"]))
    # 4 requests: at most 400 + 3 rounds of sizes cut at 1e9, with their framing
    assert Decimal(str(tokens["max"])) < 4 * (400 + 3 * (MAX_DRAW + 200))


SIXTY = """version: 1
model: claude-sonnet-4-5
task: {tokens: 400}
defaults:
  result: {lognormal: {median: 800, p90: 4000}}
rounds:
  - tool: Bash
    call_tokens: 20
    repeat: {uniform: [1, 60]}
final: 100
"""


def test_a_simulation_of_more_runs_x_requests_than_the_cap_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("s.yaml").write_text(SIXTY, encoding="utf-8")
    assert run(["estimate", "s.yaml", "--simulate", "10000000"]) == 2
    assert capsys.readouterr().err == (
        "agentcost: error: --simulate: 10,000,000 runs of up to 61 requests are 610,000,000 simulated "
        "requests, more than the 200,000,000 one simulation may take (vectorized engine) (at most "
        "3,278,688 runs for this scenario)\n"
    )


def test_the_per_run_engine_has_a_cap_of_its_own(tmp_path: Path) -> None:
    from datetime import UTC, datetime

    from agentcost.loop.estimate import estimate_scenario
    from agentcost.scenario.load import read_scenario

    path = tmp_path / "s.yaml"
    path.write_text(SIXTY, encoding="utf-8")
    est = estimate_scenario(read_scenario(path), as_of=datetime(2026, 11, 30, tzinfo=UTC))
    with pytest.raises(InputError) as caught:
        simulation.simulate(est, 40_000, per_run=True)
    assert (caught.value.key, caught.value.message, caught.value.hint) == (
        "runs",
        "40,000 runs of up to 61 requests are 2,440,000 simulated requests, more than the 2,000,000 "
        "one simulation may take (per run engine)",
        "at most 32,786 runs for this scenario",
    )


def test_sums_of_int64_runs_are_exact_beyond_int64() -> None:
    values = np.array([2**62 + 12345, 2**62 - 1, 2**61 + 7, 5] * 3, dtype=np.int64)
    assert simulation._sum(values) == sum(int(v) for v in values)
    assert simulation._sum(values) > 2**63


def test_the_budget_is_the_runs_policy(tmp_path: Path) -> None:
    """The library path is bounded as the CLI is: a trace replayed under a policy."""
    from datetime import UTC, datetime

    from agentcost.replay import load_trace, replay

    log = tmp_path / "run.jsonl"
    log.write_text(chat_line("x" * 1200), encoding="utf-8")
    trace = load_trace(log)
    with using_policy(InputPolicy(max_input_bytes=1000)), pytest.raises(InputError) as caught:
        replay(trace, as_of=datetime(2026, 11, 30, tzinfo=UTC))
    assert caught.value.message == "1,202 characters of text to tokenize, over the limit of 1,000"
    assert replay(trace, as_of=datetime(2026, 11, 30, tzinfo=UTC)).totals.requests == 1


def test_diff_base_ref_refuses_a_base_over_the_limit_by_its_size(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from agentcost.infra import gitread

    head = "version: 1\nmodel: gpt-4o\ntask: hi\nfinal: 10\n"
    (repo / "s.yaml").write_text(head + "description: " + "x" * 1100 + "\n", encoding="utf-8")
    git_in(repo, "add", "s.yaml")
    git_in(repo, "commit", "-qm", "a base over the limit")
    (repo / "s.yaml").write_text(head, encoding="utf-8")
    monkeypatch.setattr(gitread, "git_reader", lambda ref: GitReader(ref, None, limit=1000))
    monkeypatch.chdir(repo)
    assert run(["diff", "s.yaml", "--base-ref", "HEAD"]) == 2
    assert capsys.readouterr().err == (
        "agentcost: error: s.yaml: file too large: 1,158 bytes, over the limit of 1,000 bytes "
        "(real files stay far below it)\n"
    )
