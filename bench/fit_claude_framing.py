"""Refit Claude's tool-loop framing on real recorded requests: ``python bench/fit_claude_framing.py``.

Data: ``bench/data/claude-framing/recorded.jsonl`` (13 Anthropic Messages calls recorded by the
VCR cassettes of three Apache-2.0 projects, each with the usage the API reported; where each comes
from: PROVENANCE.md beside it). Models: Claude 3.5 Haiku, Claude 3.5 Sonnet (June 2024), Claude
Haiku 4.5 and Claude Sonnet 4.6, all of ctok's v3 tokenizer family.

Texts are counted with ctok family v3 (its 7-token frame removed), which reproduces Anthropic's
counts of the cookbook texts exactly (tests/test_ctok_path.py); ctok installs on Python >= 3.12. On
an older Python the script falls back to the ratio path (o200k_base x 1.06 / 1.22), which is too
coarse for names of 3-5 tokens, and says so. Two figures are fitted, each the mean of its cases,
rounded:

* ``tool_use`` (ANTHROPIC_TOOL_USE_FRAMING_AUTO for Claude 3.5 and later): tokens of one tool_use
  block besides its name and compact input JSON, from each response that calls tools under
  tool_choice auto: ``(output_tokens - 3 - text - sum(name + input)) / blocks``.
* ``tool_result`` (ANTHROPIC_TOOL_RESULT_FRAMING): from pairs of requests of one conversation, the
  second re-sending the first's messages plus the assistant's tool_use message and the user's
  tool_result message: ``(input2 - input1 - 2 x 3 - text - sum(name + input + tool_use) -
  sum(content)) / results``. The tools block and hidden tool prompt cancel out.

Then every request is counted whole with the refitted constants (the model's hidden tool prompt from
agentcost/facts.yaml) and its error printed: requests holding a tool loop that was not in a pair
are a check the fit did not see. Nothing is asserted and nothing in the project is changed.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agentcost import facts  # noqa: E402
from agentcost.tokens import anthropic as A  # noqa: E402

DATA = ROOT / "bench" / "data" / "claude-framing" / "recorded.jsonl"
PAIRS = (  # (first request, the next request of the same conversation)
    ("llm-tools-1", "llm-tools-2"),
    ("llm-fixed-version-1", "llm-fixed-version-2"),
    ("ol-langchain-text-block-1", "ol-langchain-text-block-2"),
)
Counter = Callable[[str], int]


def counter() -> tuple[Counter, str]:
    """ctok v3 (frame removed) when importable, else the shipped ratio path; and its name."""
    try:
        ctok: Any = importlib.import_module("ctok")
    except ImportError:
        from agentcost.tokens.memo import TokenMemo
        from agentcost.tokens.rules import AnthropicRules

        rules = AnthropicRules("claude-3-5-haiku", memo=TokenMemo(), use_ctok=False)
        return (lambda t: rules.text(t) if t else 0), "o200k_base x ratio (ctok not importable: coarse)"
    return (lambda t: max(0, int(ctok.token_count(t, "3.0")) - 7) if t else 0), "ctok v3"


@dataclass(frozen=True)
class Case:
    id: str
    model: str
    request: Mapping[str, Any]
    response: Mapping[str, Any]

    @property
    def reported_input(self) -> int:
        u = self.response["usage"]
        return int(
            u["input_tokens"]
            + (u.get("cache_read_input_tokens") or 0)
            + (u.get("cache_creation_input_tokens") or 0)
        )

    @property
    def reported_output(self) -> int:
        return int(self.response["usage"]["output_tokens"])


def load(path: Path = DATA) -> dict[str, Case]:
    out: dict[str, Case] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        out[row["id"]] = Case(row["id"], row["request"]["model"], row["request"], row["response"])
    return out


def blocks(content: Any) -> list[Mapping[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(content)


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def result_text(block: Mapping[str, Any]) -> str:
    content = block.get("content", "")
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content if isinstance(b, Mapping))


def parts(content: Any, n: Counter) -> tuple[int, int, int, int]:
    """(text tokens, tool_use blocks, their name + input tokens, tool_result content tokens) of a
    message's content; the number of tool_result blocks is the 4th's count, returned separately."""
    text = uses = use_tokens = result_tokens = 0
    for b in blocks(content):
        kind = b.get("type")
        if kind == "text":
            text += n(b.get("text", ""))
        elif kind == "tool_use":
            uses += 1
            use_tokens += n(b["name"]) + n(compact(b.get("input", {})))
        elif kind == "tool_result":
            result_tokens += n(result_text(b))
    return text, uses, use_tokens, result_tokens


def results_in(content: Any) -> int:
    return sum(1 for b in blocks(content) if b.get("type") == "tool_result")


def fit_tool_use(cases: Mapping[str, Case], n: Counter) -> list[tuple[str, float]]:
    """Per response with tool_use blocks (tool_choice auto): the framing per block."""
    out = []
    for case in cases.values():
        text, uses, use_tokens, _ = parts(case.response["content"], n)
        if uses == 0 or (case.request.get("tool_choice") or {}).get("type", "auto") != "auto":
            continue
        framing = (case.reported_output - A.ANTHROPIC_OUTPUT_FRAMING - text - use_tokens) / uses
        out.append((case.id, framing))
    return out


def fit_tool_result(
    cases: Mapping[str, Case], n: Counter, tool_use: int, pairs: Sequence[tuple[str, str]] = PAIRS
) -> list[tuple[str, float, float]]:
    """Per pair: (id, tool_use + tool_result per call as measured, the tool_result framing)."""
    out = []
    for first, second in pairs:
        a, b = cases[first], cases[second]
        added = b.request["messages"][len(a.request["messages"]) :]
        delta = b.reported_input - a.reported_input
        text = uses = use_tokens = result_tokens = results = 0
        for m in added:
            t, u, ut, rt = parts(m["content"], n)
            text, uses, use_tokens, result_tokens = text + t, uses + u, use_tokens + ut, result_tokens + rt
            results += results_in(m["content"])
        framed = delta - A.ANTHROPIC_MESSAGE_FRAMING * len(added) - text - use_tokens - result_tokens
        out.append((f"{first} -> {second}", framed / uses, (framed - uses * tool_use) / results))
    return out


def count_request(case: Case, n: Counter, tool_use: int, tool_result: int) -> tuple[int, str]:
    """The whole request with these constants; the hidden tool prompt from facts.yaml."""
    req = case.request
    total = A.claude_family(case.model).per_request
    system = req.get("system")
    if isinstance(system, str):
        total += n(system)
    elif isinstance(system, list):
        total += sum(n(b.get("text", "")) for b in system)
    for m in req["messages"]:
        text, uses, use_tokens, result_tokens = parts(m["content"], n)
        total += A.ANTHROPIC_MESSAGE_FRAMING + text + use_tokens + uses * tool_use
        total += result_tokens + results_in(m["content"]) * tool_result
    hidden = "-"
    tools = req.get("tools") or []
    if tools:
        choice = (req.get("tool_choice") or {}).get("type", "auto")
        fact = facts.anthropic_tool_prompt_tokens(case.model, choice)
        hidden = "unknown" if fact is None else str(fact.value)
        total += (fact.value if fact else 0) + A.ANTHROPIC_TOOLS_FRAMING
        for t in tools:
            definition = {
                "name": t["name"],
                "description": t.get("description", ""),
                "input_schema": t["input_schema"],
            }
            total += n(json.dumps(definition)) + A.ANTHROPIC_TOOL_DEF_FRAMING
    return total, hidden


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args(argv)
    cases = load(args.data)
    n, name = counter()
    print(f"texts counted with {name}; {len(cases)} recorded requests from {args.data.name}\n")
    uses = fit_tool_use(cases, n)
    print("tool_use framing per block (output side, tool_choice auto):")
    for cid, value in uses:
        print(f"  {cid:34s} {cases[cid].model:28s} {value:6.1f}")
    tool_use = round(sum(v for _, v in uses) / len(uses))
    print(f"  mean -> {tool_use}  (shipped for Claude 3.5 and later: {A.ANTHROPIC_TOOL_USE_FRAMING_AUTO})\n")
    pairs = fit_tool_result(cases, n, tool_use)
    print(f"tool_result framing per block (request pairs, tool_use taken as {tool_use}):")
    for pid, both, result in pairs:
        print(f"  {pid:58s} use+result {both:6.1f}  result {result:6.1f}")
    tool_result = round(sum(r for _, _, r in pairs) / len(pairs))
    print(f"  mean -> {tool_result}  (shipped: {A.ANTHROPIC_TOOL_RESULT_FRAMING})\n")
    print(f"every request counted whole with tool_use {tool_use} and tool_result {tool_result}:")
    print(f"  {'request':34s} {'model':28s} {'hidden':>7s} {'counted':>8s} {'reported':>9s} {'error':>7s}")
    for case in cases.values():
        counted, hidden = count_request(case, n, tool_use, tool_result)
        error = (counted - case.reported_input) / case.reported_input
        row = f"{counted:8d} {case.reported_input:9d} {error:+7.1%}"
        print(f"  {case.id:34s} {case.model:28s} {hidden:>7s} {row}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
