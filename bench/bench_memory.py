"""Peak memory of hostile inputs: ``python bench/bench_memory.py [--only CASE ...] [--code DIR]``.

Issue 13 found scenarios of a few MB that took gigabytes: a 1 MB string used through YAML aliases
in every round's ``input``, a 9 MB file named by 100 rounds (or through 100 symlinks). Each case
below is written to a temporary directory and run as ``agentcost estimate FILE --format json`` in a
fresh process with an empty cache directory (``XDG_CACHE_HOME``), so that the scenario is loaded,
counted and stored in the cache as on a first CI run; the table gives the process's peak resident
memory (``ru_maxrss`` from ``os.wait4``), its exit code, its wall time and the first line of its
standard error. ``--code DIR`` runs the agentcost package found in DIR instead of this checkout's
(e.g. ``git archive HEAD`` unpacked elsewhere, for before-and-after figures). ``--json FILE`` also
writes the figures. Nothing is asserted: docs/performance.md records one run.
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

HEAD = "version: 1\nmodel: gpt-4o\ntask: Fix the bug.\nfinal: 50\n"
_VOCABULARY = (
    "the a of to and in is it that for on with as was at by be this from or an are not but which "
    "file test error value return function class import request response token model cache line "
    "read write update delete config build run check fix change add remove start stop path name"
)
WORDS = _VOCABULARY.split()


def prose(size: int, seed: int) -> str:
    """``size`` characters of word-like text (tokenizes like prose, ~4 characters a token)."""
    rng = random.Random(seed)
    words: list[str] = []
    n = 0
    while n < size:
        word = rng.choice(WORDS)
        words.append(word)
        n += len(word) + 1
    return " ".join(words)[:size]


def alias_input(rounds: int) -> Callable[[Path], Path]:
    """A ~1 MB string anchored once and used through ``rounds`` aliases in the rounds' ``input``."""

    def write(base: Path) -> Path:
        big = prose(MB, 1)
        lines = [HEAD, "rounds:\n", f"  - {{tool: Read, input: {{text: &big '{big}'}}, result: 10}}\n"]
        lines += ["  - {tool: Read, input: {text: *big}, result: 10}\n"] * (rounds - 1)
        return _write(base / "s.yaml", "".join(lines))

    return write


def alias_result(rounds: int) -> Callable[[Path], Path]:
    """A ~1 MB string anchored once and used through ``rounds`` aliases as the rounds' ``result``."""

    def write(base: Path) -> Path:
        big = prose(MB, 2)
        lines = [HEAD, "rounds:\n", f"  - {{tool: Read, call_tokens: 10, result: &big '{big}'}}\n"]
        lines += ["  - {tool: Read, call_tokens: 10, result: *big}\n"] * (rounds - 1)
        return _write(base / "s.yaml", "".join(lines))

    return write


def included(rounds: int, *, links: bool = False, distinct: bool = False) -> Callable[[Path], Path]:
    """A 9 MB text file named as the result of ``rounds`` rounds: the same name each time, one
    symlink to it per round (``links``), or a different 9 MB file per round (``distinct``)."""

    def write(base: Path) -> Path:
        _write(base / "big.txt", prose(9 * MB, 3))
        names = []
        for i in range(rounds):
            name = "big.txt"
            if distinct:
                name = f"big{i}.txt"
                _write(base / name, prose(9 * MB, 100 + i))
            elif links:
                name = f"link{i}.txt"
                (base / name).symlink_to("big.txt")
            names.append(name)
        lines = [HEAD, "rounds:\n"]
        lines += [f"  - {{tool: Read, call_tokens: 10, result: {{file: {name}}}}}\n" for name in names]
        return _write(base / "s.yaml", "".join(lines))

    return write


def repeated(times: int) -> Callable[[Path], Path]:
    """One round with a 2 KB input and a 9 MB result, repeated ``times`` times."""

    def write(base: Path) -> Path:
        _write(base / "big.txt", prose(9 * MB, 4))
        text = HEAD + (
            "rounds:\n"
            f"  - {{tool: Read, input: {{text: '{prose(2000, 5)}'}}, result: {{file: big.txt}}, "
            f"repeat: {times}}}\n"
        )
        return _write(base / "s.yaml", text)

    return write


def one_word() -> Callable[[Path], Path]:
    """A 9 MB result of random letters and no space: one piece for the tokenizer's BPE."""

    def write(base: Path) -> Path:
        rng = random.Random(8)
        _write(base / "big.txt", "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(9 * MB)))
        return _write(
            base / "s.yaml", HEAD + "rounds:\n  - {tool: Read, call_tokens: 10, result: {file: big.txt}}\n"
        )

    return write


def one_input(aliases: int) -> Callable[[Path], Path]:
    """One call whose input holds a 9 MB word (random letters, no space) through ``aliases`` aliases:
    one JSON text of 9 MB x ``aliases``, each word one piece for the tokenizer's BPE."""

    def write(base: Path) -> Path:
        rng = random.Random(9)
        word = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(9 * MB))
        keys = ", ".join(f"k{i}: *w" for i in range(1, aliases))
        text = HEAD + f"rounds:\n  - {{tool: Read, input: {{k0: &w {word}, {keys}}}, result: 10}}\n"
        return _write(base / "s.yaml", text)

    return write


def tools_file(count: int) -> Callable[[Path], Path]:
    """A tools file of ``count`` tools (~9 MB of JSON), their descriptions all different."""

    def write(base: Path) -> Path:
        size = 9 * MB // count
        tools = [
            {
                "name": f"tool_{i}",
                "description": prose(size - 120, 1000 + i),
                "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
            }
            for i in range(count)
        ]
        _write(base / "tools.json", json.dumps(tools))
        return _write(base / "s.yaml", HEAD + "tools: [{file: tools.json}]\n")

    return write


def alias_tools(count: int) -> Callable[[Path], Path]:
    """``count`` tools whose description is one ~1 MB string through YAML aliases."""

    def write(base: Path) -> Path:
        big = prose(MB, 6)
        lines = [
            HEAD,
            "tools:\n",
            f"  - {{name: t0, description: &big '{big}', input_schema: {{type: object}}}}\n",
        ]
        lines += [
            f"  - {{name: t{i}, description: *big, input_schema: {{type: object}}}}\n"
            for i in range(1, count)
        ]
        return _write(base / "s.yaml", "".join(lines))

    return write


def subagents(calls: int) -> Callable[[Path], Path]:
    """A subagent file whose final answer is a 9 MB text written in it, named by ``calls`` rounds
    (a subagent is loaded once per call that names it)."""

    def write(base: Path) -> Path:
        _write(base / "sub.yaml", f"version: 1\nmodel: gpt-4o\ntask: Look.\nfinal: '{prose(9 * MB, 7)}'\n")
        lines = [HEAD, "rounds:\n"]
        lines += ["  - {tool: Ask, call_tokens: 10, subagent: {file: sub.yaml}}\n"] * calls
        return _write(base / "s.yaml", "".join(lines))

    return write


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


CASES: dict[str, tuple[str, Callable[[Path], Path]]] = {
    "alias-input-100": ("1 MB string, 100 aliases in rounds' input", alias_input(100)),
    "alias-input-1000": ("1 MB string, 1,000 aliases in rounds' input", alias_input(1000)),
    "alias-result-1000": ("1 MB string, 1,000 aliases as rounds' result", alias_result(1000)),
    "include-100": ("9 MB file named by 100 rounds", included(100)),
    "symlinks-100": ("9 MB file through 100 symlinks, one per round", included(100, links=True)),
    "distinct-7": (
        "7 different 9 MB files, one per round (63 MB: under the limit)",
        included(7, distinct=True),
    ),
    "distinct-8": ("8 different 9 MB files, one per round (72 MB: over it)", included(8, distinct=True)),
    "repeat-100k": ("one round with a 9 MB result, repeat: 100000", repeated(100_000)),
    "one-word-9mb": ("a 9 MB result of letters without a space", one_word()),
    "one-input-5x9mb": ("one call's input: a 9 MB word through 5 aliases", one_input(5)),
    "tools-9mb": ("a 9 MB tools file, 2,000 tools", tools_file(2000)),
    "alias-tools-100": ("1 MB description, 100 tools through aliases", alias_tools(100)),
    "subagent-100": ("a subagent file with a 9 MB text, named by 100 rounds", subagents(100)),
}


def run_case(scenario: Path, code: Path, timeout: float) -> dict[str, object]:
    """Peak RSS (MB), exit code, seconds and the first stderr line of one fresh process."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTCOST_")}
    env["PYTHONPATH"] = str(code)
    env["XDG_CACHE_HOME"] = str(scenario.parent / "cache")
    err_path = scenario.parent / "stderr.txt"
    started = time.perf_counter()
    with open(err_path, "wb") as err:
        proc = subprocess.Popen(
            [PY, "-m", "agentcost", "estimate", scenario.name, "--format", "json"],
            cwd=scenario.parent,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=err,
            start_new_session=True,
        )
        timed_out = False
        deadline = started + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                os.killpg(proc.pid, signal.SIGKILL)
                timed_out = True
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.02)
        proc.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - started
    first = err_path.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    rss_kb = usage.ru_maxrss if sys.platform != "darwin" else usage.ru_maxrss // 1024
    return {
        "peak_mb": round(rss_kb / 1024),
        "exit": "timeout" if timed_out else proc.returncode,
        "seconds": round(seconds, 1),
        "stderr": (first[-1] if proc.returncode not in (0, 2) and first else first[0] if first else "")[:160],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", choices=sorted(CASES), help="run these cases only")
    parser.add_argument("--code", type=Path, default=ROOT, help="directory holding the agentcost package")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds before a case is killed")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    names = args.only or list(CASES)
    print(f"# Python {platform.python_version()}, {os.cpu_count()} cores, code: {args.code}")
    print(f"{'case':<20} {'peak MB':>8} {'exit':>7} {'s':>6}  what / first stderr line")
    results: dict[str, dict[str, object]] = {}
    for name in names:
        what, write = CASES[name]
        with tempfile.TemporaryDirectory(prefix=f"bench-memory-{name}-") as tmp:
            scenario = write(Path(tmp))
            result = run_case(scenario, args.code.resolve(), args.timeout)
        results[name] = result
        print(f"{name:<20} {result['peak_mb']:>8} {result['exit']!s:>7} {result['seconds']:>6}  {what}")
        if result["stderr"]:
            print(f"{'':<45}{result['stderr']}")
        sys.stdout.flush()
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
