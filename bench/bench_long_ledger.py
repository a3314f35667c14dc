"""Benchmark of long ledgers: ``agentcost estimate`` on 1,000 to 100,000 rounds, table and JSON.

Run: ``python bench/bench_long_ledger.py [--sizes 1000 10000 100000] [--repeats 1] [--listed]
[--modes table all json] [--json FILE]`` (sizes: multiples of 10). For each size it writes a
scenario of that many tool rounds (Claude Sonnet 4.5, conversation caching, ten kinds of round with
different call and result sizes given as token counts, each kind repeated ``size / 10`` times with
``repeat:``; ``--listed`` writes every round out instead, which adds the YAML parsing of a long
file), then times, each in a fresh process with
an empty cache directory (a cold run, the first run of a scenario): the default table (a ledger
over 50 requests shows its first 20 and last 10, the middle summed), ``--all`` (every request,
drawn by ``agentcost.render.longtable``) and ``--format json`` (every request). Prints the median
wall time and the peak resident memory (``ru_maxrss`` from ``os.wait4``) of each, with the machine's
load average before and after. It asserts nothing (timed tests are flaky on shared machines).

The context of such a run outgrows the model's window (a warning, and exit 1 from the context gate):
the output is whole all the same, and the point is the ledger's length.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
MODES: dict[str, list[str]] = {"table": [], "all": ["--all"], "json": ["--format", "json"]}


def scenario(rounds: int, listed: bool) -> str:
    """``rounds`` tool rounds of ten kinds (call and result sizes as token counts), and a final answer."""
    lines = [
        "version: 1",
        f"name: {rounds:,} rounds",
        "model: claude-sonnet-4-5",
        "system: You are a coding agent. Fix the failing test, then stop.",
        "tools:",
        "  - name: Read",
        "    description: Read a file from the repository.",
        "    input_schema: {type: object, properties: {path: {type: string}}, required: [path]}",
        "task: The test tests/test_orders.py::test_total fails; find out why and fix it.",
        "rounds:",
    ]
    if listed:
        lines += [
            f"  - {{tool: Read, call_tokens: {20 + i % 10}, result: {{tokens: {100 + 37 * (i % 10)}}}}}"
            for i in range(rounds)
        ]
    else:
        each = rounds // 10
        lines += [
            f"  - {{tool: Read, call_tokens: {20 + i}, result: {{tokens: {100 + 37 * i}}}, repeat: {each}}}"
            for i in range(10)
        ]
    lines.append("final: {tokens: 50}")
    return "\n".join(lines) + "\n"


def run_once(path: Path, extra: list[str]) -> tuple[float, int, int, int]:
    """(wall seconds, peak RSS in KiB, lines of output, exit code) of one cold run."""
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryFile("w+b") as out:
        env = {**os.environ, "AGENTCOST_CACHE_DIR": cache, "COLUMNS": "120", "NO_COLOR": "1"}
        env.pop("AGENTCOST_CACHE", None)
        argv = [sys.executable, "-m", "agentcost", "estimate", str(path), *extra]
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.DEVNULL, env=env, cwd=ROOT)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        lines = out.read().count(b"\n")
    rss_kb = usage.ru_maxrss if sys.platform != "darwin" else usage.ru_maxrss // 1024
    return seconds, rss_kb, lines, proc.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--repeats", type=int, default=1, help="runs of each command (the median is shown)")
    parser.add_argument("--listed", action="store_true", help="every round written out, not repeat:")
    parser.add_argument("--modes", nargs="+", choices=list(MODES), default=list(MODES), help="what to time")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()

    load_before = os.getloadavg()
    print(
        f"{platform.node()}: {os.cpu_count()} cores, Python {platform.python_version()},"
        f" load average {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}"
    )
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            path = Path(tmp) / f"rounds-{size}.yaml"
            path.write_text(scenario(size, args.listed), encoding="utf-8")
            for mode in args.modes:
                extra = MODES[mode]
                runs = [run_once(path, extra) for _ in range(args.repeats)]
                seconds = statistics.median(r[0] for r in runs)
                rss = max(r[1] for r in runs)
                row = {
                    "rounds": size,
                    "mode": mode,
                    "seconds": round(seconds, 3),
                    "us_per_request": round(seconds / (size + 1) * 1e6, 1),
                    "peak_rss_mib": round(rss / 1024, 1),
                    "lines": runs[0][2],
                    "exit": runs[0][3],
                }
                results.append(row)
                print(
                    f"{size:>7,} rounds  {mode:<12} {seconds:8.2f} s  {row['us_per_request']:7.1f} µs/request"
                    f"  peak {row['peak_rss_mib']:7.1f} MiB  {row['lines']:>9,} lines  exit {row['exit']}",
                    flush=True,
                )
    load_after = os.getloadavg()
    print(f"load average after: {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")
    if args.json is not None:
        args.json.write_text(
            json.dumps({"load_before": load_before, "load_after": load_after, "results": results}, indent=2)
            + "\n",
            encoding="utf-8",
        )


if __name__ == "__main__":
    main()
