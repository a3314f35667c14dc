"""Offline Claude counters against real usage: ``python bench/claude_counters.py [--markdown]``.

Anthropic's tokenizers are not public. This script counts the 47 provider-reported figures of
``../shared/validation/anthropic-cookbook/usage-examples.json`` (``--examples FILE`` for another
copy; the same cases and the same framing as tests/test_tokens.py ``claude_examples``: Anthropic
docs' count_tokens examples, the cookbook's tool_choice inputs and outputs, and the prompt-caching
multi-turn outputs, cache writes and uncached tails) with every offline counter it can import, and
prints each case's error (estimate − reported) per counter, then the mean absolute error per kind
of case and overall.

Only the text counter changes between columns; the framing constants (agentcost/tokens/anthropic.py)
and the hidden tool prompt stay the model's. Counters:

* ``ratio``: ``o200k_base`` × the Claude ratio (prose ×1.06, JSON ×1.22) — the default without ctok;
* ``ctok v3`` / ``ctok v4.7`` / ``ctok v4.8``: PyPI ``ctok`` (Python >= 3.12), each family forced
  (its message frame removed); ``ctok v3`` is the default on Python >= 3.12 for these models;
* ``anthropic-tokenizer``: PyPI ``anthropic-tokenizer`` (its local BPE, never its API fallback).

A counter whose package is not importable is listed as skipped. Run it where ctok installs, e.g.
``python3.12 -m venv /tmp/v && /tmp/v/bin/pip install -e . anthropic-tokenizer &&
/tmp/v/bin/python bench/claude_counters.py --markdown``. Nothing is asserted; it exits 0.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import json
import platform
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agentcost import facts  # noqa: E402
from agentcost.scenario.model import Content, Round, ToolDef, ToolUse  # noqa: E402
from agentcost.tokens.memo import TokenMemo  # noqa: E402
from agentcost.tokens.rules import AnthropicRules, KindArg  # noqa: E402

EXAMPLES = ROOT.parent / "shared" / "validation" / "anthropic-cookbook" / "usage-examples.json"
CTOK_FRAMES = {"3.0": 7, "4.7": 11, "4.8": 6}  # ctok's single-message frame per family (its README)

Counter = Callable[[str], int]


class CountedRules(AnthropicRules):
    """The model's Claude framing with another text counter (``None``: the ratio path as shipped)."""

    def __init__(self, model_id: str, counter: Counter | None) -> None:
        super().__init__(model_id, memo=TokenMemo(), use_ctok=False)
        self._counter = counter

    def text(self, text: str, kind: KindArg = "auto") -> int:
        if self._counter is None:
            return super().text(text, kind)
        return self._counter(text) if text else 0


def _ctok_counter(ctok: Any, version: str, frame: int) -> Counter:
    return lambda text: max(0, int(ctok.token_count(text, version)) - frame)


def counters() -> tuple[dict[str, Counter | None], dict[str, str]]:
    """The counters that can run here, and why the others cannot."""
    found: dict[str, Counter | None] = {"ratio": None}
    skipped: dict[str, str] = {}
    try:
        ctok: Any = importlib.import_module("ctok")
    except ImportError:
        skipped["ctok"] = "not importable (PyPI ctok needs Python >= 3.12)"
    else:
        for version, frame in CTOK_FRAMES.items():
            found[f"ctok v{version.removesuffix('.0')}"] = _ctok_counter(ctok, version, frame)
    try:
        bpe: Any = importlib.import_module("anthropic_tokenizer")
    except ImportError:
        skipped["anthropic-tokenizer"] = "not importable (pip install anthropic-tokenizer)"
    else:
        found["anthropic-tokenizer"] = lambda t: int(bpe.count_tokens(t))
    return found, skipped


@contextmanager
def claude3_tool_prompts(table: dict[str, dict[str, int]]) -> Iterator[None]:
    """facts.yaml has no Claude 3 Sonnet rows: use the Anthropic docs table in usage-examples.json."""
    real = facts.anthropic_tool_prompt_tokens

    def lookup(model_id: str, tool_choice: str) -> facts.Fact[int] | None:
        found = real(model_id, tool_choice)
        if found is None and model_id == "claude-3-sonnet":
            column = "auto" if tool_choice in ("auto", "none") else "any_or_tool"
            return facts.Fact(table["claude-3-sonnet"][column], "usage-examples.json", date(2026, 11, 30))
        return found

    facts.anthropic_tool_prompt_tokens = lookup
    try:
        yield
    finally:
        facts.anthropic_tool_prompt_tokens = real


def _response_parts(response_repr: str) -> tuple[Content | None, tuple[ToolUse, ...]]:
    texts = re.findall(r"TextBlock\(text=([\"'])(.*?)\1, type", response_repr)
    uses = re.findall(r"ToolUseBlock\(id='[^']*', input=(\{.*?\}), name='([^']*)'", response_repr)
    text = Content(text=texts[0][1]) if texts else None
    calls = tuple(
        ToolUse(
            tool=name,
            input=Content(text=json.dumps(ast.literal_eval(raw), separators=(",", ":"))),
            result=Content(tokens=0),
        )
        for raw, name in uses
    )
    return text, calls


def _request(
    r: AnthropicRules, system: str | None, tools: tuple[ToolDef, ...], choice: Any, user: str
) -> int:
    head = r.system(Content(text=system)) if system else 0
    return head + (r.tools(tools, choice) if tools else 0) + r.user(Content(text=user)) + r.per_request


def _output(r: AnthropicRules, text: Content | None, calls: tuple[ToolUse, ...]) -> int:
    return r.round(Round(calls=calls, text=text)).output


def _cache_write(r: AnthropicRules, answer: str, question: str) -> int:
    return r.round(Round(calls=(), text=Content(text=answer))).echo + r.user(Content(text=question))


def _tail(r: AnthropicRules, text: str = "") -> int:
    return r.text(text) + r.per_request


Estimate = Callable[[AnthropicRules], int]


def cases(data: dict[str, Any]) -> list[tuple[str, str, str, Estimate, int]]:
    """(name, model, kind, estimate given the rules, reported): the 47 rows of tests/test_tokens.py."""
    out: list[tuple[str, str, str, Estimate, int]] = []
    for example in data["docs_examples"]:
        if example["id"] not in ("docs_token_counting_basic", "docs_token_counting_tools"):
            continue
        req = example["request"]
        defs = tuple(ToolDef(t["name"], t["description"], t["input_schema"]) for t in req.get("tools", ()))
        estimate = partial(
            _request, system=req.get("system"), tools=defs, choice="auto", user=req["messages"][0]["content"]
        )
        reported = example["count_tokens_response"]["input_tokens"]
        out.append((example["id"], "claude-sonnet-4-0", "input", estimate, reported))
    for case in data["single_call_cases"]:
        req = case["request"]
        defs = tuple(ToolDef(t["name"], t["description"], t["input_schema"]) for t in req["tools"])
        estimate = partial(
            _request,
            system=None,
            tools=defs,
            choice=req["tool_choice"]["type"],
            user=req["messages"][0]["content"],
        )
        out.append(
            (f"{case['id']} input", "claude-3-sonnet", "input", estimate, case["usage"]["input_tokens"])
        )
        text, calls = _response_parts(case["response_repr"])
        estimate = partial(_output, text=text, calls=calls)
        out.append(
            (f"{case['id']} output", "claude-3-sonnet", "output", estimate, case["usage"]["output_tokens"])
        )
    multiturn = data["prompt_caching_multiturn"]
    questions = multiturn["request_shape"]["user_questions"]
    sonnet35 = "claude-3-5-sonnet"
    for run in multiturn["runs"]:
        tag, turns = run["commit"][:8], run["turns"]
        for k, turn in enumerate(turns):
            usage = turn["usage"]
            if usage["output_tokens"] < 300:  # 300 = max_tokens: cut off, no end framing
                estimate = partial(_output, text=Content(text=turn["assistant_text"]), calls=())
                out.append(
                    (f"{tag} turn {k + 1} output", sonnet35, "output", estimate, usage["output_tokens"])
                )
            out.append(
                (f"{tag} turn {k + 1} uncached tail", sonnet35, "uncached tail", _tail, usage["input_tokens"])
            )
            if k + 1 < len(turns):
                estimate = partial(_cache_write, answer=turn["assistant_text"], question=questions[k + 1])
                written = turns[k + 1]["usage"]["cache_creation_input_tokens"]
                out.append((f"{tag} turn {k + 2} cache write", sonnet35, "cache write", estimate, written))
        for cell in run["single_turn_cells"]:
            estimate = partial(_tail, text="What is the title of this book? Only output the title.")
            name = f"{tag} cell {cell['cell']} uncached tail"
            out.append((name, sonnet35, "uncached tail", estimate, cell["input_tokens"]))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--examples", type=Path, default=EXAMPLES, help="usage-examples.json")
    parser.add_argument("--markdown", action="store_true", help="print Markdown tables (docs/accounting.md)")
    args = parser.parse_args(argv)
    data = json.loads(args.examples.read_text(encoding="utf-8"))
    (table,) = [d["table"] for d in data["docs_examples"] if d["id"] == "docs_tool_use_system_prompt_tokens"]
    found, skipped = counters()
    names = list(found)
    rows: list[tuple[str, str, int, list[int]]] = []  # (case, kind, reported, estimate per counter)
    with claude3_tool_prompts(table):
        rules: dict[tuple[str, str], AnthropicRules] = {}
        for case, model, kind, estimate, reported in cases(data):
            values = []
            for name in names:
                key = (name, model)
                if key not in rules:
                    rules[key] = CountedRules(model, found[name])
                values.append(estimate(rules[key]))
            rows.append((case, kind, reported, values))

    versions = {}
    for dist in ("ctok", "anthropic-tokenizer", "tiktoken"):
        try:
            from importlib.metadata import version

            versions[dist] = version(dist)
        except Exception:
            versions[dist] = "absent"
    print(
        f"Claude counters vs real usage, {datetime.now(UTC):%Y-%m-%d}, Python {platform.python_version()}, "
        f"{platform.machine()} {platform.system()}; " + ", ".join(f"{k} {v}" for k, v in versions.items())
    )
    for name, why in skipped.items():
        print(f"skipped: {name}: {why}")
    print(f"{len(rows)} cases from {args.examples.name}; error = estimate - reported (tokens, and %)")
    md = args.markdown
    head = ["case", "reported", *names]
    if md:
        print("\n| " + " | ".join(head) + " |")
        print("|---|" + "---:|" * (len(head) - 1))
    else:
        print("\n" + f"{'case':44s} {'reported':>8s} " + " ".join(f"{n:>19s}" for n in names))
    for case, _kind, reported, values in rows:
        cells = [f"{v - reported:+d} ({(v - reported) / reported:+.1%})" for v in values]
        if md:
            print(f"| {case} | {reported} | " + " | ".join(cells) + " |")
        else:
            print(f"{case:44s} {reported:8d} " + " ".join(f"{c:>19s}" for c in cells))

    kinds = ["input", "output", "cache write", "uncached tail"]
    print()
    summary_head = ["mean absolute error", "cases", *names]
    if md:
        print("| " + " | ".join(summary_head) + " |")
        print("|---|" + "---:|" * (len(summary_head) - 1))
    else:
        print(f"{'mean absolute error':44s} {'cases':>8s} " + " ".join(f"{n:>19s}" for n in names))
    for kind in [*kinds, "all"]:
        picked = [r for r in rows if kind in ("all", r[1])]
        cells = []
        for i in range(len(names)):
            tokens = sum(abs(r[3][i] - r[2]) for r in picked) / len(picked)
            share = sum(abs(r[3][i] - r[2]) / r[2] for r in picked) / len(picked)
            cells.append(f"{tokens:.1f} ({share:.1%})")
        if md:
            print(f"| {kind} | {len(picked)} | " + " | ".join(cells) + " |")
        else:
            print(f"{kind:44s} {len(picked):8d} " + " ".join(f"{c:>19s}" for c in cells))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
