"""Benchmark of ``agentcost estimate --simulate``: runs per second of a 50-round scenario.

Run: ``python bench/bench_simulate.py [--runs 100000] [--json FILE]``. Three ways to simulate the same
scenario (Claude Sonnet 4.5, conversation caching, 50 tool rounds whose result, call and thinking
sizes and final answer are distributions), on the same draws:

* the vectorized engine (numpy, what ``--simulate`` uses);
* a plain-Python loop of the same arithmetic: the engine's tables (per-round tokens, slopes, integer
  prices) applied run by run with Python ints;
* the per-run engine: each run's scenario built and estimated by the accountant (what ``--simulate``
  falls back to for what the vectorized engine does not model).

The three give the same cost for every run (checked here on the runs the slow ones make). Prints the
medians of a few repetitions; it asserts nothing (timed tests are flaky on shared machines).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("AGENTCOST_CACHE", "off")  # measure the work, not the disk cache

from agentcost.loop.engines import Draws, PerRunEngine, VectorEngine  # noqa: E402
from agentcost.loop.estimate import estimate_scenario  # noqa: E402
from agentcost.loop.simulate import _Streams, simulate, slot_counts  # noqa: E402
from agentcost.scenario.load import read_scenario as load_scenario  # noqa: E402

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)
SCENARIO = """version: 1
model: claude-sonnet-4-5
system: {tokens: 3000}
task: {tokens: 400}
defaults:
  call_tokens: {uniform: [20, 120]}
  result: {lognormal: {median: 800, p90: 4000}}
  thinking: {triangular: [0, 100, 800]}
rounds:
  - tool: Bash
    repeat: 50
final: {uniform: [200, 800]}
"""


def median_seconds(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def plain_loop(engine: VectorEngine, draws: Draws, n: int) -> list[int]:
    """The vectorized engine's arithmetic for Anthropic's explicit caching, one run at a time in
    Python ints: the baseline numpy is measured against."""
    ref, policy = engine.ref, engine.policy
    assert policy.style == "explicit"
    price = {k: v.tolist() for k, v in engine.price.items()}
    thresholds = engine.thresholds.tolist()
    stable, minimum = ref.prefix + ref.task, policy.min_tokens
    pre_val = ref.prefix if ref.prefix >= minimum and ref.prefix > 0 else 0
    conversation, one_hour = policy.mode == "conversation", policy.ttl == "1h"
    base = engine.base.tolist()
    slopes = {key: s.tolist() for key, s in engine.slopes.items()}
    sizes = [{key: x.tolist() for key, x in sz.items()} for sz in draws.sizes]
    counts = [c.tolist() for c in draws.counts]
    final = draws.final.tolist() if draws.final is not None else None

    def request(cacheable: int, pending: int, cached: int, output: int, inline: int) -> tuple[int, int]:
        """(cost units, cached length after) of one request."""
        inp = cacheable + pending + inline + ref.per_request
        eligible = conversation and cacheable >= minimum and cacheable > 0
        target = cacheable if eligible else pre_val
        read = cached if cached <= cacheable else 0
        write = max(target - read, 0)
        w1h = write if one_hour else 0
        t = sum(1 for limit in thresholds if inp > limit)  # the long-context tier
        units = (
            (inp - read - write) * price["input"][t]
            + read * price["read"][t]
            + (write - w1h) * price["write"][t]
            + w1h * price["write_1h"][t]
            + output * price["output"][t]
        )
        return units, max(read, target)

    out: list[int] = []
    for r in range(n):
        cacheable, pending, cached, cost = stable, 0, 0, 0
        for slot, owner in enumerate(engine.owner):
            vals = list(base[slot])
            if owner is not None:
                i, c = owner
                if counts[i][r] <= c:
                    continue
                for key, x in sizes[i].items():
                    delta = x[r][c] - engine.centre[i][key]
                    for k, slope in enumerate(slopes[key][slot]):
                        vals[k] += slope * delta
            output, appended, transient, inline = vals
            units, cached = request(cacheable, pending, cached, output, inline)
            cost += units
            pending = transient
            cacheable += appended
        f = ref.final_output
        if final is not None:
            f += engine.final_slope[0] * (final[r] - engine.final_centre[0])
        units, cached = request(cacheable, pending, cached, f, 0)
        out.append(cost + units)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100_000)
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "fifty.yaml"
        path.write_text(SCENARIO)
        est = estimate_scenario(load_scenario(path), as_of=AS_OF)
    ctx = est
    slots = slot_counts(est.scenario)
    fast, exact = VectorEngine(ctx, slots), PerRunEngine(ctx)
    n, small, tiny = args.runs, 5_000, 300

    vector_s = median_seconds(lambda: simulate(ctx, n, seed=0, sensitivity=False), 3)
    draws = _Streams(est.scenario, 0, slots, None).next(small)
    plain_s = median_seconds(lambda: plain_loop(fast, draws, small), 3)
    few = _Streams(est.scenario, 0, slots, None).next(tiny)
    per_run_s = median_seconds(lambda: exact.run(few, tiny), 1)
    with_sensitivity_s = median_seconds(lambda: simulate(ctx, n, seed=0), 1)

    # the three agree run by run
    vector = fast.run(few, tiny).cost_units.tolist()
    assert vector == plain_loop(fast, few, tiny)
    per_run = exact.run(few, tiny).cost_units.tolist()
    assert [v * (exact.scale // fast.scale) for v in vector] == per_run, "engines disagree"

    rows: list[tuple[str, int, float]] = [
        ("vectorized engine (numpy)", n, vector_s),
        ("plain-Python loop, same arithmetic", small, plain_s),
        ("per-run engine (the accountant)", tiny, per_run_s),
    ]
    print(
        f"agentcost --simulate benchmark, 50 rounds, {os.cpu_count()} CPUs, Python {sys.version.split()[0]}"
    )
    print(f"{'engine':38} {'runs':>9} {'seconds':>9} {'runs/s':>12} {'vs plain':>9}")
    plain_rate = small / plain_s
    figures: dict[str, Any] = {"runs": n, "rounds": 50}
    for name, runs, seconds in rows:
        rate = runs / seconds
        print(f"{name:38} {runs:>9,} {seconds:>9.3f} {rate:>12,.0f} {rate / plain_rate:>8.1f}x")
        figures[name] = {"runs": runs, "seconds": round(seconds, 4), "runs_per_second": round(rate)}
    print(f"{n:,} runs with the sensitivity list (one more simulation per input): {with_sensitivity_s:.2f} s")
    figures["with_sensitivity_seconds"] = round(with_sensitivity_s, 3)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
