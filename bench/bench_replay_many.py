"""Many runs at once: ``python bench/bench_replay_many.py [--runs 200] [--repeats 3] [--json FILE]``.

Writes ``--runs`` copies of the SWE-agent 0.x sample (tests/data/swe-agent, 5 requests each, its
``args.yaml`` beside them) into a temporary directory and times, in one warm process (imports done,
the tokenizer loaded, one replay run before timing):

- **one by one**: ``load_trace`` + ``replay`` of each file in a loop, the reports dropped;
- **replay DIR**: ``agentcost replay DIR -q`` through the CLI's ``run`` (finding the files, replaying,
  summarising, rendering), ``--jobs 1`` and ``--jobs 2``;

and gives runs/s and requests/s for each and the ratio replay DIR / one by one (target: <= 2). Each
timing is the median of ``--repeats``, the ways interleaved, each from an empty token memo and with
the on-disk cache off (``AGENTCOST_CACHE=off``). Memory: the peak resident set
(``ru_maxrss`` of a fresh process) of ``agentcost replay DIR --format json`` over 50 and over
``--runs`` copies, ``--jobs 1`` (target: independent of the number of runs). The copies are identical,
so the token counts hit the in-process memo after the first run, in both ways alike; ``--distinct``
makes every copy's messages differ, so that every run is counted afresh. Nothing is asserted:
docs/performance.md records one run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SAMPLE = ROOT / "tests" / "data" / "swe-agent" / "swe-agent__test-repo-i1.traj"
ARGS = ROOT / "tests" / "data" / "swe-agent" / "test-repo-i1.args.yaml"
AS_OF = "2026-11-30"

_RSS = """
import io, os, resource, sys
from contextlib import redirect_stdout
from agentcost.cli import run
with redirect_stdout(io.StringIO()):
    code = run(["replay", sys.argv[1], "--as-of", sys.argv[2], "--format", "json"])
print(code, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def corpus(base: Path, n: int, distinct: bool) -> Path:
    """``n`` copies of the sample; ``distinct``: every message of copy i ends in `` [i]``, so that no
    text is counted twice (the token memo never hits across runs)."""
    folder = base / f"runs-{n}"
    folder.mkdir()
    shutil.copy(ARGS, folder / "args.yaml")
    data = json.loads(SAMPLE.read_text(encoding="utf-8"))
    for i in range(n):
        if not distinct:
            shutil.copy(SAMPLE, folder / f"run-{i:04d}.traj")
            continue
        for message in data["history"]:
            if isinstance(message.get("content"), str):
                message["content"] = message["content"].rsplit(" [", 1)[0] + f" [{i}]"
        (folder / f"run-{i:04d}.traj").write_text(json.dumps(data), encoding="utf-8")
    return folder


def peak_rss_kib(folder: Path) -> int:
    done = subprocess.run(
        [sys.executable, "-c", _RSS, str(folder), AS_OF],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    code, rss = done.stdout.split()
    assert code == "0", done.stderr
    return int(rss)


def main(argv: list[str] | None = None) -> int:
    os.environ["AGENTCOST_CACHE"] = "off"  # no on-disk token cache: every way counts what it counts
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--distinct", action="store_true", help="make every copy's messages differ")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)

    import io
    from contextlib import redirect_stdout
    from datetime import UTC, datetime

    from agentcost.cli import run
    from agentcost.replay import load_trace, replay
    from agentcost.tokens.memo import DEFAULT_MEMO

    when = datetime(2026, 11, 30, tzinfo=UTC)
    with tempfile.TemporaryDirectory() as tmp:
        big = corpus(Path(tmp), args.runs, args.distinct)
        small = corpus(Path(tmp), 50, args.distinct)
        files = sorted(big.glob("*.traj"))
        requests = replay(load_trace(files[0]), as_of=when).totals.requests * len(files)  # warm-up too

        def one_by_one() -> None:
            for path in files:
                replay(load_trace(path), as_of=when)

        def replay_dir(jobs: int) -> Callable[[], None]:
            def go() -> None:
                with redirect_stdout(io.StringIO()):
                    code = run(["replay", str(big), "--as-of", AS_OF, "-q", "--jobs", str(jobs)])
                assert code == 0

            return go

        ways = {"one by one": one_by_one, "replay DIR": replay_dir(1), "replay DIR --jobs 2": replay_dir(2)}
        times: dict[str, list[float]] = {name: [] for name in ways}
        for _ in range(args.repeats):
            for name, way in ways.items():
                DEFAULT_MEMO.clear()  # each way starts with an empty token memo
                start = time.perf_counter()
                way()
                times[name].append(time.perf_counter() - start)
        rss = {50: peak_rss_kib(small), args.runs: peak_rss_kib(big)}

    base = statistics.median(times["one by one"])
    figures: dict[str, object] = {"runs": args.runs, "requests": requests, "cores": os.cpu_count()}
    kind = "distinct" if args.distinct else "identical"
    print(f"{args.runs} {kind} copies of {SAMPLE.name} ({requests:,} requests), median of {args.repeats}")
    print(f"{'way':<22}{'seconds':>9}{'runs/s':>9}{'requests/s':>12}{'/ one by one':>14}")
    for name, values in times.items():
        t = statistics.median(values)
        print(f"{name:<22}{t:>9.3f}{args.runs / t:>9.1f}{requests / t:>12.1f}{t / base:>13.2f}x")
        figures[name] = {"seconds": t, "runs_per_s": args.runs / t, "ratio": t / base}
    for n, kib in rss.items():
        print(f"peak RSS, agentcost replay DIR of {n} runs (--jobs 1): {kib / 1024:.1f} MiB")
    figures["peak_rss_kib"] = rss
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
