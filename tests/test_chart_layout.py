"""Charts you can read (issue 30, item 7): the ``--simulate`` SVG draws the cost distribution with
p50/p90/p99 marked, every chart with a budget draws it, labels wrap rather than cut, and no two
texts overlap.

Overlaps are checked geometrically, without a font or a rasteriser: every ``<text>`` of a real chart
of the shipped scenarios gets a box from its x, y, anchor, font size and weight and a conservative
per-character width (the metric below, written out here independently of the renderer's), and no two
boxes may intersect, nor any leave the viewBox.

The metric, in ems of the font size: 0.65 per character, 0.8 per capital, 1.0 for ``M W m w % @ &``,
a dash, an ellipsis and an East Asian wide character; bold 1.12 times that; a box from 0.8 em above
the baseline to 0.25 em below it. :func:`test_the_metric_is_at_least_helveticas_widths` holds it to
Helvetica's published advance widths (Adobe's AFM; Arial's are the same).
"""

from __future__ import annotations

import functools
import itertools
import unicodedata
import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from agentcost.render.output import Format, render_text
from agentcost.render.svg import wrap
from agentcost.report import fmt

pytestmark = pytest.mark.usefixtures("no_ctok", "fixed_terminal")

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)
ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "scenarios"
SVG = "{http://www.w3.org/2000/svg}"
MODELS = ("claude-sonnet-4-5", "gpt-5", "gemini-2.5-pro", "gpt-4o-mini", "claude-opus-4-1")
RUNS = 300

Box = tuple[float, float, float, float]


def em(char: str) -> float:
    if char in "MWmw%@&—…" or unicodedata.east_asian_width(char) in ("W", "F"):
        return 1.0
    return 0.8 if char.isupper() else 0.65


def box(text: ET.Element, default_size: float) -> Box:
    size = float(text.get("font-size", default_size))
    content = "".join(text.itertext())
    width = sum(em(c) for c in content) * size * (1.12 if text.get("font-weight") == "600" else 1.0)
    x, y = float(text.attrib["x"]), float(text.attrib["y"])
    anchor = text.get("text-anchor", "start")
    left = x - width if anchor == "end" else x - width / 2 if anchor == "middle" else x
    return (left, y - 0.8 * size, left + width, y + 0.25 * size)


# --------------------------------------------------------------------------------------------
# Real charts of the shipped scenarios (built once)
# --------------------------------------------------------------------------------------------


def _estimate(path: Path) -> Any:
    from agentcost.loop.estimate import estimate_scenario
    from agentcost.report.build import build_report
    from agentcost.scenario.load import read_scenario

    return build_report(estimate_scenario(read_scenario(path), as_of=AS_OF))


@functools.cache
def report(kind: str) -> Any:
    if kind == "estimate":
        return _estimate(SCENARIOS / "bugfix.yaml")
    if kind == "simulate":
        from agentcost.loop.estimate import estimate_scenario
        from agentcost.loop.simulate import simulate
        from agentcost.report.build import build_report
        from agentcost.report.sections import SimulatedReport
        from agentcost.scenario.load import read_scenario

        est = estimate_scenario(read_scenario(SCENARIOS / "uncertain-steps.yaml"), as_of=AS_OF)
        budget = est.budget.limit_usd if est.budget else None
        sim = simulate(est, RUNS, budget_usd=budget, at=("p95",), sensitivity=False)
        return SimulatedReport(build_report(est, overrun=False), sim, at="p95")
    if kind == "compare":
        from agentcost.commands.compare import compare_models
        from agentcost.scenario.load import read_scenario

        return compare_models(read_scenario(SCENARIOS / "bugfix.yaml"), list(MODELS), as_of=AS_OF)
    if kind == "project":
        from agentcost.commands.batch import batch_report_for_paths

        return batch_report_for_paths([SCENARIOS / "agentcost.yml"], as_of=AS_OF)
    if kind == "diff":
        from agentcost.commands.diff_read import diff_paths

        return diff_paths(
            SCENARIOS / "bugfix.yaml", ROOT / "docs" / "examples" / "bugfix-more-tools.yaml", as_of=AS_OF
        )
    if kind == "replay":
        from agentcost.replay import load_trace
        from agentcost.replay import replay as replay_trace

        return replay_trace(
            load_trace(ROOT / "tests" / "data" / "api-logs" / "openai-chat.jsonl"), as_of=AS_OF
        )
    raise AssertionError(kind)


@functools.cache
def chart(kind: str) -> ET.Element:
    return ET.fromstring(render_text(report(kind), Format.svg))


KINDS = ("estimate", "simulate", "compare", "project", "diff", "replay")


def texts(root: ET.Element, cls: str) -> list[ET.Element]:
    return [t for t in root.iter(f"{SVG}text") if t.get("class") == cls]


def words(root: ET.Element, cls: str) -> list[str]:
    return ["".join(t.itertext()) for t in texts(root, cls)]


def lines(root: ET.Element, cls: str) -> list[ET.Element]:
    return [t for t in root.iter(f"{SVG}line") if t.get("class") == cls]


def no_overlap(root: ET.Element) -> None:
    _, _, width, height = (float(v) for v in root.attrib["viewBox"].split())
    size = float(root.attrib["font-size"])
    boxes = [(box(t, size), "".join(t.itertext())) for t in root.iter(f"{SVG}text")]
    assert boxes
    for (left, top, right, bottom), text in boxes:
        assert left >= 0 and right <= width and top >= 0 and bottom <= height, (text, left, right, width)
    for (a, ta), (b, tb) in itertools.combinations(boxes, 2):
        assert not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]), (ta, a, tb, b)


# --------------------------------------------------------------------------------------------
# No overlaps, nothing outside
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_no_two_texts_overlap_and_every_text_is_inside_the_chart(kind: str) -> None:
    no_overlap(chart(kind))


def test_the_running_totals_tag_hides_the_tick_label_it_would_cover() -> None:
    """The tag of the last running total sat on the right axis over a tick label (issue 30)."""
    root = chart("replay")
    r = report("replay")
    assert words(root, "running-end") == [fmt.usd(r.totals.cost_usd)]
    ticks = words(root, "tick")
    assert "$0.0000" in ticks and "$0.0008" not in ticks  # the tag shows $0.0008 where its tick was
    no_overlap(root)


def test_a_long_name_and_long_ids_wrap_whole(tmp_path: Path) -> None:
    name = "A scenario whose name is much longer than any chart is wide, " * 3 + "end"
    path = tmp_path / "long.yaml"
    path.write_text(
        f"version: 1\nname: {name}\nmodel: claude-sonnet-4-5\ntask: {{tokens: 1000}}\n"
        "tools:\n  - {name: search, description: Search., input_schema: {type: object}}\n"
        "rounds:\n  - {tool: search, call_tokens: 20, result: {tokens: 1000}, repeat: 3}\n"
        "final: {tokens: 200}\nlimits: {budget_usd: 0.02}\n",
        encoding="utf-8",
    )
    root = ET.fromstring(render_text(_estimate(path), Format.svg))
    title = words(root, "title")
    assert len(title) > 1 and " ".join(title) == f"{name} · claude-sonnet-4-5"  # wrapped, not cut
    assert "…" not in "".join(root.itertext())
    no_overlap(root)


def test_wrap_breaks_between_words_then_after_punctuation_and_never_cuts() -> None:
    assert wrap("one two three", 1000) == ["one two three"]
    assert wrap("one two three", 60) == ["one two", "three"]  # "one two": 7 x 0.65 x 12 = 54.6 px
    long_id = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
    parts = wrap(long_id, 120)
    assert "".join(parts) == long_id and len(parts) > 1
    assert all(p[-1] in ".-:" for p in parts[:-1])  # broken after a separator


def test_the_metric_is_at_least_helveticas_widths() -> None:
    """Helvetica's advance widths (Adobe AFM, in thousandths of an em; Arial's are the same)."""
    helvetica = {
        **dict.fromkeys("0123456789$", 556),
        **dict(
            zip(
                "abcdefghijklmnopqrstuvwxyz",
                (
                    556,
                    556,
                    500,
                    556,
                    556,
                    278,
                    556,
                    556,
                    222,
                    222,
                    500,
                    222,
                    833,
                    556,
                    556,
                    556,
                    556,
                    333,
                    500,
                    278,
                    556,
                    500,
                    722,
                    500,
                    500,
                    500,
                ),
                strict=True,
            )
        ),
        **dict(
            zip(
                "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
                (
                    667,
                    667,
                    722,
                    722,
                    667,
                    611,
                    778,
                    722,
                    278,
                    500,
                    667,
                    556,
                    833,
                    722,
                    778,
                    667,
                    778,
                    722,
                    667,
                    611,
                    722,
                    667,
                    944,
                    667,
                    667,
                    611,
                ),
                strict=True,
            )
        ),
        **{".": 278, ",": 278, " ": 278, "(": 333, ")": 333, "%": 889, "+": 584, "-": 333, "/": 278},
    }
    for char, width in helvetica.items():
        assert em(char) * 1000 >= width, char


# --------------------------------------------------------------------------------------------
# --simulate: the distribution, its percentiles and the budget
# --------------------------------------------------------------------------------------------


def test_the_simulate_chart_draws_a_bin_per_histogram_bin_as_tall_as_its_runs() -> None:
    r = report("simulate")
    s = r.simulation
    root = chart("simulate")
    bins = [g for g in root.iter(f"{SVG}g") if g.get("class") == "bin"]
    assert len(bins) == len(s.histogram) > 1
    heights = [float(g.find(f"{SVG}rect").attrib["height"]) for g in bins if g.find(f"{SVG}rect") is not None]  # type: ignore[union-attr]
    tallest = max(heights)
    drawn = [b for b in s.histogram if b.runs]
    assert len(heights) == len(drawn)
    for h, b in zip(heights, drawn, strict=True):
        assert h == pytest.approx(float(b.height) * tallest, abs=0.1)  # the report's exact height
    assert words(root, "runs") == [f"{b.runs:,}" for b in drawn]
    assert sum(b.runs for b in s.histogram) == RUNS
    assert len([g for g in root.iter(f"{SVG}g") if g.get("class") == "bar"]) == len(r.report.requests)


def test_the_simulate_chart_marks_p50_p90_p99_the_at_percentile_and_the_budget() -> None:
    r = report("simulate")
    s = r.simulation
    root = chart("simulate")
    marks = dict(w.split(" ", 1) for w in words(root, "mark"))
    p95 = dict(s.percentile_usd)["p95"]
    assert marks == {
        "p50": fmt.usd(s.cost.p50),
        "p90": fmt.usd(s.cost.p90),
        "p95": fmt.usd(p95),
        "p99": fmt.usd(s.cost.p99),
        "budget": fmt.usd(Decimal("0.50")),
    }
    assert s.cost.p50 < s.cost.p90 < p95 < s.cost.p99
    xs = [float(line.attrib["x1"]) for line in lines(root, "mark-line")]
    assert xs == sorted(xs) and len(xs) == 4  # along the axis in the percentiles' order
    [budget] = [line for line in lines(root, "budget-line") if line.attrib["x1"] == line.attrib["x2"]]
    bx = float(budget.attrib["x1"])
    assert (bx > xs[-1]) == (Decimal("0.50") > s.cost.p99)  # where $0.50 falls among them


# --------------------------------------------------------------------------------------------
# Every chart with a budget draws it
# --------------------------------------------------------------------------------------------


def test_the_estimate_chart_draws_the_budget_on_the_running_totals_axis() -> None:
    r = report("estimate")
    assert r.budget is not None and r.budget.limit_usd == Decimal("0.10")
    root = chart("estimate")
    [line] = lines(root, "budget-line")
    assert line.attrib["y1"] == line.attrib["y2"]  # across the plot
    assert words(root, "budget") == [f"budget {fmt.usd(r.budget.limit_usd)}"]
    running = root.find(f"{SVG}polyline")
    assert running is not None
    end_y = float(running.attrib["points"].split()[-1].split(",")[1])
    assert float(line.attrib["y1"]) < end_y  # $0.10 is above the run's $0.0286 (smaller y is higher)
    assert any(k.startswith("budget $0.1000") for k in words(root, "key"))


def test_the_compare_chart_draws_the_scenarios_budget_across_every_model() -> None:
    r = report("compare")
    root = chart("compare")
    [line] = lines(root, "budget-line")
    assert words(root, "budget") == [f"budget {fmt.usd(Decimal('0.10'))}"]
    x = float(line.attrib["x1"])
    ends = [
        float(g.find(f"{SVG}rect").attrib["x"]) + float(g.find(f"{SVG}rect").attrib["width"])  # type: ignore[union-attr]
        for g in root.iter(f"{SVG}g")
        if g.get("class") == "bar"
    ]
    assert [end > x for end in ends] == [row.cost_usd > Decimal("0.10") for row in r.rows]
    assert [row.cost_usd > Decimal("0.10") for row in r.rows] == [False] * 4 + [True]  # opus is over


def test_the_project_chart_marks_each_scenarios_own_budget() -> None:
    r = report("project")
    root = chart("project")
    limits = [row.budget.limit_usd for row in r.rows if row.budget is not None]
    assert len(limits) == len(r.rows) == 3
    assert words(root, "budget") == [f"budget {fmt.usd(v)}" for v in limits]
    assert len(lines(root, "budget-line")) == 3
    assert r.project.budget is not None
    assert f"budget {fmt.usd(r.project.budget.limit_usd)}" in " ".join(words(root, "caption"))


def test_the_diff_chart_marks_the_budget_of_each_side() -> None:
    r = report("diff")
    root = chart("diff")
    [s] = r.scenarios
    assert s.base.budget.limit_usd == s.head.budget.limit_usd == Decimal("0.10")
    assert words(root, "budget") == ["budget $0.1000"]
    assert len(lines(root, "budget-line")) == 1  # one budget for both sides: one line


# --------------------------------------------------------------------------------------------
# The terminal chart (--chart): a long label wraps under its bar
# --------------------------------------------------------------------------------------------


def test_the_terminal_chart_wraps_a_long_label_whole() -> None:
    import io

    from rich.cells import cell_len
    from rich.console import Console

    from agentcost.render.chart import batch_chart

    r = report("project")
    console = Console(file=io.StringIO(), width=60, no_color=True, record=True)
    console.print(batch_chart(r))
    out = console.export_text().splitlines()
    assert all(cell_len(line) <= 60 for line in out)
    assert "…" not in "\n".join(out)
    names = [row.name for row in r.rows]
    assert max(map(len, names)) > 20  # longer than the label column at 60 columns
    column = " ".join(  # the label column, line after line
        line.split("█")[0].split("$")[0].strip() for line in out if line.strip()
    )
    for name in names:
        assert name in column, (name, out)
