"""One figure per scenario on every supported Python, and the counter named in every report (issue 29).

``scenarios/bugfix.yaml`` was $0.0320049 on Python 3.11 (o200k_base × ratio) and $0.03324525 on 3.12
(ctok, which installs only on Python >= 3.12): the default now counts Claude texts on the ratio path
everywhere, and ctok is an explicit choice (``--count ctok``, ``AGENTCOST_COUNT=ctok``). These tests
run in-process on any Python: an importable ctok is played by a stand-in module that counts
``len(text)`` plus its 7-token frame, so that what the stand-in counted is known; the real ctok's
figures are checked on Python 3.12 by ``tests/test_ctok_path.py`` (``.ci/run``'s ctok job).
"""

from __future__ import annotations

import csv
import io
import json
import sys
import types
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentcost.cli import app
from agentcost.commands.diff import Pair, build_diff
from agentcost.errors import InputError
from agentcost.loop.estimate import Estimate, estimate_scenario
from agentcost.render.formats import Format
from agentcost.render.output import render_text
from agentcost.report.build import build_report
from agentcost.scenario.load import read_scenario
from agentcost.tokens import countmode
from agentcost.tokens import rules as R
from agentcost.tokens.families import _family_of
from agentcost.tokens.memo import DEFAULT_MEMO

ROOT = Path(__file__).resolve().parent.parent
BUGFIX = ROOT / "scenarios" / "bugfix.yaml"
AS_OF = datetime(2026, 11, 30, tzinfo=UTC)
RATIO_USD = Decimal("0.0286497")  # the README's figure: o200k_base × ratio, the default everywhere


class StandIn:
    """A ctok stand-in: ``len(text)`` content tokens plus ctok's 7-token v3 message frame."""

    def __init__(self) -> None:
        self.calls = 0

    def token_count(self, text: str, version: str) -> int:
        self.calls += 1
        return len(text) + 7


@pytest.fixture
def stand_in(monkeypatch: pytest.MonkeyPatch) -> Iterator[StandIn]:
    """ctok importable (a stand-in), whatever this Python is; the counting mode left as found. The
    process-wide token memo keeps its other counts, but neither sees the real ctok's counts (Python
    >= 3.12) nor keeps the stand-in's: its ctok tables are this test's own."""
    fake = StandIn()
    module = types.ModuleType("ctok")
    module.token_count = fake.token_count  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "ctok", module)
    for name in ("_counts", "_stats"):
        tables = getattr(DEFAULT_MEMO, name)
        monkeypatch.setattr(DEFAULT_MEMO, name, {k: v for k, v in tables.items() if not k.startswith("ctok")})
    monkeypatch.delenv(countmode.MODE_ENV, raising=False)
    countmode.set_mode(None)
    yield fake
    countmode.set_mode(None)
    _family_of.cache_clear()  # no family remembered as counted by the stand-in


def _estimate(mode: str | None) -> Estimate:
    countmode.set_mode(mode)
    try:
        return estimate_scenario(read_scenario(BUGFIX), as_of=AS_OF)
    finally:
        countmode.set_mode(None)


# ----------------------------------------------------------------------------------------------
# The default: the ratio path on every Python, ctok importable or not
# ----------------------------------------------------------------------------------------------


def test_default_ignores_an_importable_ctok(stand_in: StandIn) -> None:
    est = _estimate(None)
    assert stand_in.calls == 0  # ctok installed (as pip installs it on 3.12+) and not used
    assert est.counts.encoding == "o200k_base × ratio"
    assert build_report(est).totals.cost_usd == RATIO_USD
    report = build_report(est)
    assert (report.totals.input_tokens, report.totals.output_tokens) == (20253, 756)


def test_default_is_the_same_without_ctok(monkeypatch: pytest.MonkeyPatch) -> None:
    """Python 3.11, where ctok cannot be installed: the same figure as with ctok importable."""
    monkeypatch.setitem(sys.modules, "ctok", None)
    monkeypatch.delenv(countmode.MODE_ENV, raising=False)
    est = _estimate(None)
    assert est.counts.encoding == "o200k_base × ratio"
    assert build_report(est).totals.cost_usd == RATIO_USD


def test_count_ctok_counts_with_ctok(stand_in: StandIn) -> None:
    est = _estimate("ctok")
    assert stand_in.calls > 0
    assert est.counts.encoding == "ctok 3.0"  # Sonnet 4.5: ctok family v3 (tokens/anthropic.py)
    rules = R.AnthropicRules("claude-sonnet-4-5", use_ctok=True)
    assert rules.text("hello, world") == len("hello, world")  # the stand-in's count, frame removed
    t = build_report(est).totals
    # one token per character: about 3 times the ratio path's 20,253 input and 756 output tokens
    assert (t.input_tokens, t.output_tokens, t.cost_usd) == (60655, 1830, Decimal("0.08025405"))


def test_the_environment_variable_chooses_ctok(stand_in: StandIn, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(countmode.MODE_ENV, "ctok")
    assert countmode.mode() == "ctok"
    assert R.rules_for("anthropic", "claude-sonnet-4-5").encoding == "ctok 3.0"
    assert R.family_of("anthropic", "claude-sonnet-4-5").backend == "ctok"
    monkeypatch.delenv(countmode.MODE_ENV)
    assert R.family_of("anthropic", "claude-sonnet-4-5").backend == "o200k_base × ratio"


def test_count_ctok_without_ctok_is_refused_with_a_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ctok", None)  # as on Python 3.11
    countmode.set_mode("ctok")
    try:
        with pytest.raises(InputError, match="'ctok' package is not importable") as err:
            R.rules_for("anthropic", "claude-sonnet-4-5")
        assert err.value.hint is not None and "Python >= 3.12" in err.value.hint
        assert R.rules_for("openai", "gpt-4o").encoding == "o200k_base"  # no Claude text: no ctok needed
    finally:
        countmode.set_mode(None)


def test_cli_count_ctok_without_ctok_exits_2(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ctok", None)
    monkeypatch.delenv(countmode.MODE_ENV, raising=False)
    try:
        result = CliRunner().invoke(
            app, ["estimate", str(BUGFIX), "--as-of", "2026-11-30", "--count", "ctok"]
        )
    finally:
        countmode.set_mode(None)
    assert result.exit_code == 2, result.output
    assert "--count ctok (or AGENTCOST_COUNT=ctok): the 'ctok' package is not importable" in result.stderr


def test_unknown_mode_names_ctok(monkeypatch: pytest.MonkeyPatch) -> None:
    countmode.set_mode(None)
    monkeypatch.setenv(countmode.MODE_ENV, "ctk")
    with pytest.raises(InputError) as err:
        countmode.mode()
    assert err.value.hint == "use offline, ctok or api"


# ----------------------------------------------------------------------------------------------
# Every report names its counter
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("mode", "counter"), [(None, "o200k_base × ratio"), ("ctok", "ctok 3.0")])
def test_every_format_names_the_counter(stand_in: StandIn, mode: str | None, counter: str) -> None:
    report = build_report(_estimate(mode))
    table = " ".join(render_text(report, Format.table, width=200).split())
    assert (
        f"Prices: genai-prices 0.2.3, in force on 2026-11-30. Counter: {counter}. Details: --verbose."
        in table
    )
    assert (
        f"<sub>Prices: genai-prices 0.2.3, in force on 2026-11-30. Counter: {counter}.</sub>"
        in render_text(report, Format.markdown)
    )
    body = json.loads(render_text(report, Format.json))
    assert body["counts"]["counter"] == body["counts"]["encoding"] == counter
    rows = list(csv.DictReader(io.StringIO(render_text(report, Format.csv))))
    assert len(rows) == 10 and {r["counter"] for r in rows} == {counter}  # 9 requests + total
    assert rows[-1]["request"] == "total" and Decimal(rows[-1]["cost_usd"]) == report.totals.cost_usd


def test_an_exact_counter_is_named_too() -> None:
    est = estimate_scenario(read_scenario(BUGFIX), as_of=AS_OF, model="gpt-4o")
    report = build_report(est)
    assert not report.approximate
    assert "Counter: o200k_base." in " ".join(render_text(report, Format.table, width=200).split())


# ----------------------------------------------------------------------------------------------
# diff says when base and head were counted differently
# ----------------------------------------------------------------------------------------------


def _diff_json(base: Estimate, head: Estimate) -> dict[str, object]:
    report = build_diff([Pair("scenarios/bugfix.yaml", base, head)], base_label="main", head_label="pr")
    body = json.loads(render_text(report, Format.json))
    assert isinstance(body, dict)
    return body


def test_diff_says_when_the_sides_were_counted_differently(stand_in: StandIn) -> None:
    base, head = _estimate(None), _estimate("ctok")  # e.g. a base figure counted on another machine
    report = build_diff([Pair("scenarios/bugfix.yaml", base, head)], base_label="main", head_label="pr")
    assert report.counters == (("o200k_base × ratio",), ("ctok 3.0",))
    assert report.counter_text == "counted differently: base o200k_base × ratio, head ctok 3.0"
    (scenario,) = report.scenarios
    assert scenario.status == "changed"
    assert next((c.part, c.text) for c in scenario.inputs) == (
        "counter",
        "counter: o200k_base × ratio → ctok 3.0",
    )
    table = " ".join(render_text(report, Format.table, width=200).split())
    assert (
        "token counts: approximate, marked *; counted differently: base o200k_base × ratio, head ctok 3.0."
        in table
    )
    assert "counted differently: base o200k_base × ratio, head ctok 3.0.</sub>" in render_text(
        report, Format.markdown
    )
    body = _diff_json(base, head)
    assert body["counters"] == {
        "before": ["o200k_base × ratio"],
        "after": ["ctok 3.0"],
        "same": False,
        "text": "counted differently: base o200k_base × ratio, head ctok 3.0",
    }
    rows = list(csv.DictReader(io.StringIO(render_text(report, Format.csv))))
    assert (rows[0]["before_counter"], rows[0]["after_counter"]) == ("o200k_base × ratio", "ctok 3.0")


def test_diff_of_one_counter_names_it_once() -> None:
    base = _estimate(None)
    head = replace(base)  # the same estimate on both sides: unchanged, one counter
    report = build_diff([Pair("scenarios/bugfix.yaml", base, head)], base_label="main", head_label="pr")
    assert report.scenarios[0].status == "unchanged" and report.scenarios[0].inputs == ()
    assert report.counter_text == "counter: o200k_base × ratio"
    assert _diff_json(base, head)["counters"] == {
        "before": ["o200k_base × ratio"],
        "after": ["o200k_base × ratio"],
        "same": True,
        "text": "counter: o200k_base × ratio",
    }
