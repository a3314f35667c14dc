"""Benchmark of agentcost.tokens: encoding load time, tokenizing throughput, and the memo.

Run: python bench/bench_tokens.py [--mb 8]
Load times are measured in fresh subprocesses (the per-process cache would hide them otherwise).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from agentcost.scenario.model import Content, Round, Scenario, ToolDef, ToolUse
from agentcost.tokens import count as T
from agentcost.tokens import encodings as E
from agentcost.tokens import memo as M

ROOT = Path(__file__).resolve().parents[1]
THREADS = 2  # tiktoken encode_ordinary_batch threads, for comparison with the plain loop


def fresh_process(code: str) -> float:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    return float(out.stdout.strip())


def load_times(repeats: int) -> None:
    print(f"Fresh-process timings (median of {repeats}):")
    import_code = (
        "import time; t = time.perf_counter(); import agentcost.tokens.count; print(time.perf_counter() - t)"
    )
    med = statistics.median(fresh_process(import_code) for _ in range(repeats))
    print(f"  import agentcost.tokens.count              {med * 1000:7.1f} ms")
    for name in E.BUNDLED_ENCODINGS:
        code = (
            "import time; from agentcost.tokens import encodings as E; t = time.perf_counter(); "
            f"E.get_encoding({name!r}); print(time.perf_counter() - t)"
        )
        med = statistics.median(fresh_process(code) for _ in range(repeats))
        print(f"  get_encoding({name!r:15s})      {med * 1000:7.1f} ms (incl. import tiktoken)")


def corpus(megabytes: float) -> list[str]:
    """Mixed prose, code and JSON, cut into ~20 KB documents (each distinct)."""
    sources = [p.read_text() for p in sorted((ROOT / "agentcost").rglob("*.py"))]
    sources += (
        [p.read_text() for p in sorted((ROOT / "docs").rglob("*.md"))] if (ROOT / "docs").is_dir() else []
    )
    blob = "\n".join(sources)
    blob += json.dumps({"rows": [{"id": i, "name": f"item {i}", "ok": i % 3 == 0} for i in range(2000)]})
    target = int(megabytes * 1_000_000)
    docs: list[str] = []
    size = 0
    i = 0
    while size < target:
        start = (i * 7919) % max(1, len(blob) - 20_000)
        doc = f"[doc {i}]\n" + blob[start : start + 20_000]
        docs.append(doc)
        size += len(doc)
        i += 1
    return docs


def throughput(megabytes: float) -> None:
    docs = corpus(megabytes)
    chars = sum(len(d) for d in docs)
    for name in E.BUNDLED_ENCODINGS:
        encoding = E.get_encoding(name)
        started = time.perf_counter()
        tokens = sum(len(encoding.encode_ordinary(d)) for d in docs)
        single = time.perf_counter() - started
        started = time.perf_counter()
        batch = sum(len(ids) for ids in encoding.encode_ordinary_batch(docs, num_threads=THREADS))
        threaded = time.perf_counter() - started
        assert batch == tokens
        print(
            f"  {name:12s} {chars / 1e6:5.1f} MB, {tokens:,} tokens: "
            f"1 thread {chars / single / 1e6:5.1f} MB/s, "
            f"batch x{THREADS} {chars / threaded / 1e6:5.1f} MB/s"
        )


def memo_demo() -> None:
    result = "The file contains 120 lines of Python. " * 200
    rounds = tuple(
        Round(
            calls=(
                ToolUse("Read", Content(text=json.dumps({"path": f"src/m{i % 5}.py"})), Content(text=result)),
            )
        )
        for i in range(40)
    )
    tools = tuple(
        ToolDef(f"tool_{i}", f"Tool number {i}.", {"type": "object", "properties": {"x": {"type": "string"}}})
        for i in range(40)
    )
    scenario = Scenario(
        path=Path("bench.yaml"),
        model="gpt-4o",
        model_line=None,
        provider=None,
        system=Content(text="You are a coding agent. " * 100),
        tools=tools,
        tool_choice="auto",
        task=Content(text="Fix the bug."),
        rounds=rounds,
        final=Content(text="Done."),
    )
    memo = M.TokenMemo()
    started = time.perf_counter()
    for model in ("gpt-4o", "gpt-4o-mini", "gpt-4.1", "gpt-5", "o3"):
        T.count_tokens(scenario, provider="openai", model_id=model, memo=memo)
    for model in ("claude-sonnet-4-5", "claude-opus-4-7"):
        T.count_tokens(scenario, provider="anthropic", model_id=model, memo=memo, use_ctok=False)
    T.count_tokens(scenario, provider="google", model_id="gemini-2.5-pro", memo=memo)
    elapsed = time.perf_counter() - started
    stats = memo.stats("o200k_base")
    print(
        f"  40 rounds x 8 models: {elapsed * 1000:.1f} ms; o200k_base texts tokenized "
        f"{stats.texts_counted} ({stats.chars_counted:,} chars), memo hits {stats.hits}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=float, default=8.0, help="corpus size for the throughput test")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    load_times(args.repeats)
    print("Throughput (encode_ordinary):")
    throughput(args.mb)
    print("Memo:")
    memo_demo()


if __name__ == "__main__":
    main()
