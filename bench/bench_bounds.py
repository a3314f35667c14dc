"""Time and peak memory of the inputs issue 28 (item 7) found unbounded: ``python bench/bench_bounds.py
[--only CASE ...] [--code DIR]``.

Each case is written to a temporary directory and run as one ``agentcost`` command in a fresh
process (``AGENTCOST_CACHE=off``: the work, not the cache); the table gives its peak resident memory
(``ru_maxrss`` from ``os.wait4``), exit code, wall time and the first line of its standard error.
``--code DIR`` runs the agentcost package found in DIR instead of this checkout's (e.g. ``git archive
REV`` unpacked elsewhere, for before-and-after figures). Nothing is asserted (timed tests are flaky
on shared machines): docs/performance.md records one run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
MB = 1_000_000

Case = tuple[str, Callable[[Path], list[str]]]  # what it is, and: write it in a directory -> argv


def _log(user: str) -> str:
    """One request of an OpenAI chat API log whose user message is ``user``."""
    request = {"model": "gpt-4o", "messages": [{"role": "user", "content": user}]}
    response = {
        "choices": [{"message": {"role": "assistant", "content": "ok"}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 2},
    }
    return json.dumps({"request": request, "response": response}) + "\n"


WORDS = "the a of to and in is it that for file test error value return function class"


def _prose(size: int) -> str:
    rng = random.Random(1)
    words = WORDS.split()
    out: list[str] = []
    n = 0
    while n < size:
        out.append(rng.choice(words))
        n += len(out[-1]) + 1
    return " ".join(out)[:size]


def _word(size: int) -> str:
    rng = random.Random(8)
    return "".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=size))


def replay_text(size: int, word: bool, *options: str) -> Callable[[Path], list[str]]:
    def write(base: Path) -> list[str]:
        (base / "run.jsonl").write_text(_log(_word(size) if word else _prose(size)), encoding="utf-8")
        return ["replay", "run.jsonl", "--format", "json", *options]

    return write


def base_blob(size: int) -> Callable[[Path], list[str]]:
    """A repository whose base commit has a scenario of ``size`` bytes; the head's is small."""

    def write(base: Path) -> list[str]:
        git = ["git", "-c", "user.name=b", "-c", "user.email=b@example.com", "-c", "commit.gpgsign=false"]
        subprocess.run([*git, "init", "-q"], cwd=base, check=True)
        head = "version: 1\nmodel: gpt-4o\ntask: hi\nfinal: 10\n"
        (base / "s.yaml").write_text(head + "description: " + "x" * size + "\n", encoding="utf-8")
        subprocess.run([*git, "add", "s.yaml"], cwd=base, check=True)
        subprocess.run([*git, "commit", "-qm", "base"], cwd=base, check=True)
        (base / "s.yaml").write_text(head, encoding="utf-8")
        return ["diff", "s.yaml", "--base-ref", "HEAD", "--format", "json"]

    return write


SIXTY = """version: 1
model: claude-sonnet-4-5
system: {tokens: 3000}
task: {tokens: 400}
defaults:
  call_tokens: {uniform: [20, 120]}
  result: {lognormal: {median: 800, p90: 4000}}
  thinking: {triangular: [0, 100, 800]}
rounds:
  - tool: Bash
    repeat: {uniform: [1, 60]}
final: {uniform: [200, 800]}
"""


def simulate(runs: int) -> Callable[[Path], list[str]]:
    def write(base: Path) -> list[str]:
        (base / "s.yaml").write_text(SIXTY, encoding="utf-8")
        return ["estimate", "s.yaml", "--simulate", str(runs), "--format", "json"]

    return write


CASES: dict[str, Case] = {
    "replay-30mb-limit": (
        "replay --max-input-bytes 1000 of a log with a 30 MB text",
        replay_text(30 * MB, False, "--max-input-bytes", "1000"),
    ),
    "replay-30mb": (
        "replay of a log with a 30 MB text (under the default budget)",
        replay_text(30 * MB, False),
    ),
    "replay-word-3mb": ("replay of a log with a 3.2 MB word (no space)", replay_text(3_200_000, True)),
    "replay-word-8mb": ("replay of a log with an 8 MB word (no space)", replay_text(8 * MB, True)),
    "base-blob-40mb": ("diff --base-ref of a 40 MB base scenario", base_blob(40 * MB)),
    "simulate-2m": ("--simulate 2,000,000 of a scenario of up to 61 requests", simulate(2_000_000)),
    "simulate-3.2m": ("--simulate 3,200,000 of it (under the cap)", simulate(3_200_000)),
    "simulate-10m": ("--simulate 10,000,000 of it", simulate(10_000_000)),
}


def run_case(argv: list[str], where: Path, code: Path, timeout: float) -> dict[str, object]:
    """Peak RSS (MB), exit code, seconds and the first stderr line of one fresh process."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTCOST_")}
    env["PYTHONPATH"] = str(code)
    env["AGENTCOST_CACHE"] = "off"
    err_path = where / "stderr.txt"
    started = time.perf_counter()
    with open(err_path, "wb") as err:
        proc = subprocess.Popen(
            [PY, "-m", "agentcost", *argv],
            cwd=where,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=err,
            start_new_session=True,
        )
        timed_out = False
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > started + timeout:
                os.killpg(proc.pid, signal.SIGKILL)
                timed_out = True
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.02)
    code_ = os.waitstatus_to_exitcode(status)
    lines = err_path.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    rss_kb = usage.ru_maxrss if sys.platform != "darwin" else usage.ru_maxrss // 1024
    return {
        "peak_mb": round(rss_kb / 1024),
        "exit": "timeout" if timed_out else code_,
        "seconds": round(time.perf_counter() - started, 1),
        "stderr": (lines[0] if lines else "")[:200],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", choices=sorted(CASES), help="run these cases only")
    parser.add_argument("--code", type=Path, default=ROOT, help="directory holding the agentcost package")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds before a case is killed")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    print(f"# Python {platform.python_version()}, {os.cpu_count()} cores, code: {args.code}")
    print(f"{'case':<18} {'peak MB':>8} {'exit':>7} {'s':>6}  what / first stderr line")
    results: dict[str, dict[str, object]] = {}
    for name in args.only or list(CASES):
        what, write = CASES[name]
        with tempfile.TemporaryDirectory(prefix=f"bench-bounds-{name}-") as tmp:
            argv = write(Path(tmp))
            result = run_case(argv, Path(tmp), args.code.resolve(), args.timeout)
        results[name] = result
        print(f"{name:<18} {result['peak_mb']:>8} {result['exit']!s:>7} {result['seconds']:>6}  {what}")
        if result["stderr"]:
            print(f"{'':<43}{result['stderr']}")
        sys.stdout.flush()
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
