"""Benchmark: CLI start-up, a whole estimate, and the accountant alone on long loops.

Run: ``python bench/bench_estimate.py``. Prints medians; it asserts nothing (timed tests are flaky on
shared CI machines). Compare the numbers before and after a change on the same machine.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path

from agentcost.loop.accountant import run_accountant
from agentcost.tokens.counts import RoundTokens, TokenCounts
from agentcost.tokens.request import CachePolicy, RequestCost, RequestUsage

ROOT = Path(__file__).resolve().parents[1]


def median_seconds(fn: Callable[[], object], repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def cli(*args: str) -> Callable[[], object]:
    cmd = [sys.executable, "-m", "agentcost", *args]
    return lambda: subprocess.run(cmd, cwd=ROOT, capture_output=True, check=False)


def price(usage: RequestUsage) -> RequestCost:
    inp = Decimal(3) * usage.input_tokens / 1_000_000
    out = Decimal(15) * usage.output_tokens / 1_000_000
    return RequestCost(inp, out, inp + out)


def accountant(rounds: int) -> Callable[[], object]:
    counts = TokenCounts(
        tools=2_000,
        system=1_000,
        task=200,
        per_request=3,
        rounds=(RoundTokens(("t",), 60, 60, 900),) * rounds,
        final_output=500,
        encoding="synthetic",
        approximate=False,
        method="synthetic",
    )
    policy = CachePolicy(mode="conversation", style="explicit", min_tokens=1_024)
    return lambda: run_accountant(counts, price, policy)


def main() -> None:
    rows = [
        ("agentcost --help (process start-up)", cli("--help")),
        (
            "agentcost estimate scenarios/bugfix.yaml",
            cli("estimate", "scenarios/bugfix.yaml", "--as-of", "2026-11-30"),
        ),
        (
            "agentcost estimate scenarios/research.yaml --format json",
            cli("estimate", "scenarios/research.yaml", "-f", "json", "--as-of", "2026-11-30"),
        ),
        ("accountant, 1,000 rounds", accountant(1_000)),
        ("accountant, 10,000 rounds", accountant(10_000)),
        ("accountant, 100,000 rounds", accountant(100_000)),
    ]
    for label, fn in rows:
        print(f"{label:60s} {median_seconds(fn) * 1000:9.1f} ms")


if __name__ == "__main__":
    main()
