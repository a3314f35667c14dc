"""What each cache layer saves: ``python bench/bench_cache.py [--repeats 9] [--json FILE]``.

Every figure is the wall time of fresh processes running the console script
(``agentcost.launch.main``) on a warm cache (one ``XDG_CACHE_HOME`` that untimed runs filled). A
layer is switched off inside the timed process by patching the store
(:class:`agentcost.infra.diskcache.DiskCache`) so that its kind always misses and is never written:
the run then does that layer's work, and only that layer's, for real. The replay of whole runs
hides every other layer, so the other layers are measured with it off: a layer "saves" the run
without it minus the run with every layer but the replay. The configurations of a command run
interleaved (A B C A B C ...), and a saving is the median of the round-by-round differences
(``+/-``: half their interquartile range), so that load from elsewhere on the machine mostly
cancels out; the CPU time of the same processes (user + system, every thread) is printed beside
it, as a check that is less sensitive to other work. A row for a layer the command never uses
shows the noise. Nothing is asserted; the script prints a table (docs/performance.md records one
run) and exits 0. Time a tree nobody is editing (a copy, if need be: ``cp -r agentcost scenarios
bench /tmp/x && cd /tmp/x``): an edit changes agentcost's source digest, and with it every key.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable

# layer -> the store kinds it reads and writes ("tokens": the token-count table)
LAYERS = {
    "replay": ("result",),
    "tokens": ("tokens",),
    "scenario": ("scenario",),
    "project-file": ("project-file",),
    "price": ("price",),
    "facts": ("facts",),
    "tiktoken-model": ("tiktoken-model",),
    "memo": ("memo",),  # the in-process token memo (not on disk): each lookup goes to the store
}

# The timed process: switch off the layers named in BENCH_CACHE_OFF, then run the console script.
# ("warm-up": the background build of o200k_base that the console script starts when a scenario is
# not in the cache, so that the scenario layer's own saving can be told from it.)
RUNNER = """
import os, sys
off = frozenset(filter(None, os.environ.pop("BENCH_CACHE_OFF", "").split(",")))
if off:
    from agentcost.infra import diskcache
    D = diskcache.DiskCache
    get, put, counts, put_counts = D.get_blob, D.put_blob, D.token_counts, D.put_token_counts
    D.get_blob = lambda self, kind, key: None if kind.split("/")[0] in off else get(self, kind, key)
    D.put_blob = lambda self, kind, key, value, now=True: (
        None if kind.split("/")[0] in off else put(self, kind, key, value, now=now))
    if "tokens" in off:
        D.token_counts = lambda self, scheme, digests: {}
        D.put_token_counts = lambda self, scheme, found: None
    if "memo" in off:
        from agentcost.tokens import memo
        table = memo.TokenMemo._table
        def forgetful(self, scheme):
            found, stats = table(self, scheme)
            found.clear()
            return found, stats
        memo.TokenMemo._table = forgetful
    if "warm-up" in off:
        import agentcost.cli
        agentcost.cli._warm_up_o200k = lambda: None
sys.argv = ["agentcost", *sys.argv[1:]]
from agentcost.launch import main
main()
"""

BIG = "{tmp}/rounds-500.yaml"  # generated (bench/run.py's 500 distinct 2 KB tool results)
COMMANDS = {
    "bugfix": ["estimate", "scenarios/bugfix.yaml"],
    "9 scenarios": ["estimate", *sorted(str(p.relative_to(ROOT)) for p in ROOT.glob("scenarios/*.yaml"))],
    "compare 6": [
        "compare",
        "scenarios/research.yaml",
        *("-m", "gpt-5", "-m", "gpt-5-mini", "-m", "gpt-4o", "-m", "gpt-4.1"),
        *("-m", "claude-sonnet-4-5", "-m", "gemini-2.5-pro"),
    ],
}
COMMANDS["compare 4, 500 rounds"] = [
    "compare",
    BIG,
    *("-m", "gpt-5", "-m", "gpt-4o", "-m", "claude-sonnet-4-5", "-m", "gemini-2.5-pro"),
]


def environment(base: Path) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("AGENTCOST_")}
    clean.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode as an installed package has it
    clean["PYTHONPYCACHEPREFIX"] = str(base / "pycache")
    clean["XDG_CACHE_HOME"] = str(base / "warm")
    clean["COLUMNS"] = "120"
    return clean


def run(argv: list[str], env: dict[str, str], off: str) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system, every thread) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [PY, "-c", RUNNER, *argv],
        cwd=ROOT,
        env=dict(env, BENCH_CACHE_OFF=off) if off else env,
        capture_output=True,
        check=False,
    )
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    if done.returncode not in (0, 1):
        raise SystemExit(f"{argv} (off: {off}): exit {done.returncode}\n{done.stderr.decode()[-2000:]}")
    return elapsed, cpu


@dataclass
class Config:
    """One way to run a command: the layers switched off (store kinds), whether the cache is on at
    all, and which configuration it is compared with (its saving: time without - time with)."""

    off: tuple[str, ...]
    cache: bool = True
    without: str | None = None  # the configuration without the layer (None: this one)
    with_: str | None = None  # the configuration with it (None: this one; both None: a reference)


def configurations(command: str) -> dict[str, Config]:
    if command == "compare 4, 500 rounds":  # the in-process memo at scale, and the token counts
        return {
            "no replay": Config(("result",)),
            "no replay, no memo": Config(("result", "memo"), with_="no replay"),
            "no replay, no tokens": Config(("result", "tokens"), with_="no replay"),
            "cache off (AGENTCOST_CACHE=off)": Config((), cache=False),
            "cache off, no memo": Config(("memo",), cache=False, with_="cache off (AGENTCOST_CACHE=off)"),
        }
    configs = {
        "all layers": Config((), without="no replay"),
        "no replay": Config(("result",)),
    }
    layers = [name for name in LAYERS if name != "replay"]
    if command == "bugfix":  # one OpenAI-free scenario: no tiktoken-model lookup to switch off
        layers.remove("tiktoken-model")
    for name in layers:
        configs[f"no replay, no {name}"] = Config(("result", *LAYERS[name]), with_="no replay")
        if name == "scenario":
            configs["no replay, no scenario, no warm-up"] = Config(
                ("result", "scenario", "warm-up"), with_="no replay, no warm-up"
            )
            configs["no replay, no warm-up"] = Config(("result", "warm-up"))
    configs["cache off (AGENTCOST_CACHE=off)"] = Config((), cache=False)
    configs["cache off, no memo"] = Config(("memo",), cache=False, with_="cache off (AGENTCOST_CACHE=off)")
    return configs


def measure(
    command: str, argv: list[str], base: Path, repeats: int
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Wall and CPU seconds of every configuration, ``repeats`` rounds."""
    env = environment(base)
    configs = configurations(command)
    times: dict[str, list[float]] = {label: [] for label in configs}
    cpu: dict[str, list[float]] = {label: [] for label in configs}
    for _ in range(2):  # fill the cache (and the bytecode cache), untimed
        run(argv, env, "")
    for _ in range(repeats):
        for label, config in configs.items():
            wall, used = run(
                argv, env if config.cache else dict(env, AGENTCOST_CACHE="off"), ",".join(config.off)
            )
            times[label].append(wall)
            cpu[label].append(used)
    return times, cpu


KEY_COST = """
import sys, time
start = time.perf_counter()
from agentcost import launch
from agentcost.infra import diskcache
imported = time.perf_counter()
argv = ["estimate", "scenarios/bugfix.yaml"]
if hasattr(diskcache, "key"):  # the replay's key as the store makes it
    def make():
        return diskcache.key(launch.KIND, launch._key(argv))
else:  # before issue 12's one key: the launcher made the replay's whole key itself
    def make():
        return launch._key(argv)
make()
first = time.perf_counter()
make()
print(imported - start, first - imported, time.perf_counter() - first)
"""


def key_cost(repeats: int) -> dict[str, float]:
    """Seconds to import the launcher and the store, to make a process's first replay key (the
    digests of agentcost's files and the dependencies), and a later one."""
    with tempfile.TemporaryDirectory(prefix="agentcost-bench-key-") as tmp:
        env = environment(Path(tmp))
        runs = [
            [
                float(x)
                for x in subprocess.run(
                    [PY, "-c", KEY_COST], cwd=ROOT, env=env, capture_output=True, text=True, check=True
                ).stdout.split()
            ]
            for _ in range(repeats + 1)
        ][1:]  # the first run fills the bytecode cache
    return {
        label: statistics.median(run[i] for run in runs)
        for i, label in enumerate(("import launcher + store", "first key", "next key"))
    }


def paired_saving(config: Config, label: str, times: dict[str, list[float]]) -> tuple[float, float, float]:
    """The quartiles of what a layer saves, round by round (the configurations of one round ran
    back to back, so load from elsewhere mostly cancels out in their difference): the time without
    it - the time with it. NaN for the reference rows."""
    if config.without is None and config.with_ is None:
        return (math.nan, math.nan, math.nan)
    without, with_ = times[config.without or label], times[config.with_ or label]
    differences = [a - b for a, b in zip(without, with_, strict=True)]
    low, middle, high = statistics.quantiles(differences, n=4)  # middle: the median
    return low, middle, high


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--only", choices=sorted(COMMANDS), action="append", help="time only these")
    args = parser.parse_args()
    results: dict[str, object] = {
        "date": time.strftime("%Y-%m-%d"),
        "nproc": os.cpu_count(),
        "python": platform.python_version(),
        "repeats": args.repeats,
        "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None,
    }
    print(f"Python {results['python']}, {results['nproc']} cores, {args.repeats} runs per figure")
    for command, argv in COMMANDS.items():
        if args.only and command not in args.only:
            continue
        with tempfile.TemporaryDirectory(prefix="agentcost-bench-cache-") as tmp:
            if BIG in argv:
                from run import rounds_scenario  # bench/run.py's generator

                Path(BIG.format(tmp=tmp)).write_text(rounds_scenario(500))
                argv = [a.format(tmp=tmp) if a == BIG else a for a in argv]
            times, cpu = measure(command, argv, Path(tmp), args.repeats)
        print(f"\n{command}: agentcost {' '.join(argv[:2])}{' ...' if len(argv) > 2 else ''}")
        print(
            f"  {'configuration':40s} {'median s':>9s} {'min s':>7s} {'saves ms':>9s} {'+/- ms':>7s}"
            f" {'CPU saves ms':>13s}"
        )
        saved: dict[str, float] = {}
        configs = configurations(command)
        for label, values in times.items():
            low, middle, high = paired_saving(configs[label], label, times)
            saved[label] = middle
            print(
                f"  {label:40s} {statistics.median(values):9.3f} {min(values):7.3f}"
                f" {middle * 1000:9.1f} {(high - low) * 500:7.1f}"
                f" {paired_saving(configs[label], label, cpu)[1] * 1000:13.1f}"
            )
        results[command] = {"argv": argv, "times": times, "cpu": cpu, "saves": saved}
    costs = key_cost(args.repeats)
    print(
        "\nThe key itself, in a fresh process (median ms): "
        + ", ".join(f"{label} {value * 1000:.2f}" for label, value in costs.items())
    )
    results["key cost"] = costs
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
