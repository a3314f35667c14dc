"""The Claude ctok path (Python >= 3.12): ctok's published counts, and estimates within the ratio path's band.

The main suite runs on Python 3.11, where ``ctok`` cannot be installed, so this module is skipped there;
``.ci/run`` runs it in a second environment on Python >= 3.12 with ctok installed (issue 19). ctok is
an explicit choice (``--count ctok``, ``AGENTCOST_COUNT=ctok``; issue 29): the default counts Claude
texts on the ratio path even where ctok is importable, so a scenario's figure is the same on every
Python. The ``ctok_chosen`` fixture chooses it as ``--count ctok`` does.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import yaml

ctok: Any = pytest.importorskip(
    "ctok", reason="ctok is not importable (it needs Python >= 3.12; .ci/run tests it on Python 3.12)"
)

from agentcost import api  # noqa: E402  (after the skip: nothing to import when ctok is absent)
from agentcost.replay import load_trace  # noqa: E402
from agentcost.replay.ledger import replay  # noqa: E402
from agentcost.scenario.model import Content, ToolDef  # noqa: E402
from agentcost.tokens import countmode  # noqa: E402
from agentcost.tokens import memo as M  # noqa: E402
from agentcost.tokens import rules as R  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
AS_OF = "2026-11-30"

# docs/accounting.md §3 ("The ctok path and the ratio path"): on the shipped Claude scenarios the two
# paths' total cost, input tokens and output tokens agree within this fraction (measured: at most 6.1%).
BAND = Decimal("0.10")


@pytest.fixture
def ctok_chosen() -> Iterator[None]:
    """The run's counting mode set to ctok, as ``--count ctok`` sets it; the default again after."""
    countmode.set_mode("ctok")
    yield
    countmode.set_mode(None)


def test_default_is_the_ratio_path_although_ctok_is_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29: bugfix.yaml was $0.03324525 here (ctok) and $0.0320049 on Python 3.11 (the ratio
    path); the default is now the ratio path on every Python, and ctok gives its figure when chosen.
    (Figures after the tool-loop framing refit of issue 29: 37 per tool_use, 11 per tool_result.)"""
    monkeypatch.delenv(countmode.MODE_ENV, raising=False)
    countmode.set_mode(None)
    default = api.estimate(ROOT / "scenarios" / "bugfix.yaml", as_of=AS_OF)
    assert default.report.encoding == "o200k_base × ratio"
    assert default.total_cost_usd == Decimal("0.0286497")
    countmode.set_mode("ctok")
    try:
        chosen = api.estimate(ROOT / "scenarios" / "bugfix.yaml", as_of=AS_OF)
    finally:
        countmode.set_mode(None)
    assert chosen.report.encoding == "ctok 3.0"
    assert chosen.total_cost_usd == Decimal("0.02989005")
    assert (chosen.totals.input_tokens, chosen.totals.output_tokens) == (21536, 753)


# Counts ctok publishes. README of ctok 1.3.0 (PyPI wheel METADATA, "As a library" and "Count a string"):
# token_count("hello, world") is 10 on v3, 15 on v4.7, 10 on v4.8 (content 3 + frame 7 on v3, content
# 4 + frame 6 on v4.8). github.com/sanderland/ctok tests/test_api.py
# (test_dotted_capital_i_uses_the_ordinary_unit_piece, test_the_accent_spelling_does_not_depend_on_the_host):
# "RPİ" v3 = 10, "APİ" v4.7 = 14, "q̂q" v4.7 = 15.
@pytest.mark.parametrize(
    ("text", "version", "count"),
    [
        ("hello, world", "3.0", 10),
        ("hello, world", "4.7", 15),
        ("hello, world", "4.8", 10),
        ("RP\u0130", "3.0", 10),
        ("AP\u0130", "4.7", 14),
        ("q\u0302q", "4.7", 15),
    ],
)
def test_ctok_published_counts(text: str, version: str, count: int) -> None:
    assert ctok.token_count(text, version) == count


def test_ctok_published_vocabulary() -> None:
    """README "Vocabulary evidence": 48,792 v3 pieces and 15,283 v4.7 pieces; a count is a tiling's length."""
    assert len(ctok.pieces("3.0")) == 48792
    assert len(ctok.pieces("4.7")) == 15283
    assert len(ctok.tokenize("NASA likes tokenizers")) == ctok.token_count("NASA likes tokenizers")


@pytest.mark.parametrize(
    ("model", "encoding", "content"),
    [
        ("claude-sonnet-4-5", "ctok 3.0", 3),  # 10 - frame 7 (README: content 3)
        ("claude-opus-4-7", "ctok 4.7", 4),  # 15 - frame 11
        ("claude-opus-4-8", "ctok 4.8", 4),  # 10 - frame 6 (README: content 4)
    ],
)
def test_rules_count_with_ctok_frame_removed(
    model: str, encoding: str, content: int, ctok_chosen: None
) -> None:
    rules = R.rules_for("anthropic", model, memo=M.TokenMemo())  # --count ctok: ctok
    assert isinstance(rules, R.AnthropicRules)
    assert rules.encoding == encoding
    assert rules.text("hello, world") == content


def test_docs_token_counting_examples_exact() -> None:
    """Anthropic's "Token counting" page (platform.claude.com/docs/en/build-with-claude/token-counting):
    count_tokens reports 14 for system "You are a scientist" + "Hello, Claude", and 403 for the
    get_weather tool + "What's the weather like in San Francisco?". The ratio path says 16 and 405
    (tests/test_tokens.py); the ctok path gives both exactly."""
    rules = R.AnthropicRules("claude-sonnet-4-0", memo=M.TokenMemo(), use_ctok=True)
    basic = rules.system(Content(text="You are a scientist")) + rules.user(Content(text="Hello, Claude"))
    assert basic + rules.per_request == 14  # 4 + (3 + 3) + 4
    weather = ToolDef(
        name="get_weather",
        description="Get the current weather in a given location",
        input_schema={
            "type": "object",
            "properties": {
                "location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"}
            },
            "required": ["location"],
        },
    )
    question = rules.user(Content(text="What's the weather like in San Francisco?"))
    assert rules.tools((weather,), "auto") + question + rules.per_request == 403


def test_cookbook_tool_use_sample_replays_exactly(ctok_chosen: None) -> None:
    """Issue 17: the Anthropic cookbook tool_choice sample (tests/data/api-logs/anthropic-tool-choice.jsonl,
    Claude 3 Sonnet) replays with every output count equal to the reported usage: texts by ctok v3, a
    tool_use block framed + 56 under tool_choice auto and + 46 under tool_choice tool (tokens/anthropic.py).
    The ratio path counts [66, 106, 81, 81] (tests/test_counting_path.py)."""
    report = replay(
        load_trace(ROOT / "tests" / "data" / "api-logs" / "anthropic-tool-choice.jsonl"),
        as_of=datetime(2026, 11, 30, tzinfo=UTC),
    )
    assert report.counting.startswith("ctok v3.0")
    assert [r.reported_output for r in report.requests] == [69, 101, 79, 79]
    # 69 = 3 + text 66; 101 = 3 + text 30 + name 1 + input 11 + 56; 79 = 3 + name 5 + input 25 + 46 (twice)
    assert [r.counted_output for r in report.requests] == [69, 101, 79, 79]


def _claude_cases() -> list[tuple[str, str | None]]:
    """Every shipped scenario whose model is Claude, as written; and bugfix.yaml with -m on each family."""
    shipped = [
        p.name
        for p in sorted((ROOT / "scenarios").glob("*.yaml"))
        if str(yaml.safe_load(p.read_text(encoding="utf-8")).get("model", "")).startswith("claude-")
    ]
    models = ("claude-sonnet-4-5", "claude-opus-4-7", "claude-opus-4-8")
    return [(name, None) for name in shipped] + [("bugfix.yaml", m) for m in models]


def test_claude_cases_found() -> None:
    cases = _claude_cases()
    assert ("bugfix.yaml", None) in cases and len(cases) >= 7


@pytest.mark.parametrize(("name", "model"), _claude_cases())
def test_shipped_claude_estimate_within_band_of_ratio_path(
    name: str, model: str | None, ctok_chosen: None
) -> None:
    path = ROOT / "scenarios" / name
    with_ctok = api.estimate(path, as_of=AS_OF, model=model)
    assert with_ctok.report.encoding.startswith("ctok ")
    countmode.set_mode("offline")  # the ratio path: the default, on every Python
    ratio = api.estimate(path, as_of=AS_OF, model=model)
    assert ratio.report.encoding == "o200k_base × ratio"
    pairs = {
        "cost": (with_ctok.total_cost_usd, ratio.total_cost_usd),
        "input tokens": (Decimal(with_ctok.totals.input_tokens), Decimal(ratio.totals.input_tokens)),
        "output tokens": (Decimal(with_ctok.totals.output_tokens), Decimal(ratio.totals.output_tokens)),
    }
    for what, (ours, reference) in pairs.items():
        assert reference > 0, what
        assert abs(ours - reference) <= BAND * reference, f"{name} {model}: {what} {ours} vs {reference}"
