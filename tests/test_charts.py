"""Charts: ``--format svg`` (rendered to PNG with resvg and read back with Pillow) and ``--chart``.

The SVG is drawn by hand (agentcost.render.svg): self-contained, escaped, a bar per request, model
or scenario where the pixels say so, and every dollar label the report's own figure through ``fmt``.
The terminal charts (agentcost.render.chart) fit the console's width and never cut a number.
"""

from __future__ import annotations

import functools
import io
import re
import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import resvg_py  # the dev extra installs both: a missing renderer fails the suite, never skips it
from PIL import Image
from rich.cells import cell_len
from rich.console import Console

from agentcost.cli import run
from agentcost.render import chart as charts
from agentcost.render.output import Format, render_text, renderers_for
from agentcost.report import fmt
from agentcost.report.fmt import signed_percent

pytestmark = pytest.mark.usefixtures("no_ctok", "fixed_terminal")

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)
ROOT = Path(__file__).resolve().parents[1]
BUGFIX = ROOT / "scenarios" / "bugfix.yaml"
VARIANT = ROOT / "docs" / "examples" / "bugfix-more-tools.yaml"
PROJECT = ROOT / "scenarios" / "agentcost.yml"
MODELS = ("claude-sonnet-4-5", "gpt-5", "gemini-2.5-pro", "gpt-4o-mini")
SVG = "{http://www.w3.org/2000/svg}"


# --------------------------------------------------------------------------------------------
# Reports (built once: the charts only read them)
# --------------------------------------------------------------------------------------------


def _estimate(path: Path) -> Any:
    from agentcost.loop.estimate import estimate_scenario
    from agentcost.report.build import build_report
    from agentcost.scenario.load import read_scenario

    return build_report(estimate_scenario(read_scenario(path), as_of=AS_OF))


@functools.cache
def report(kind: str) -> Any:
    if kind == "estimate":
        return _estimate(BUGFIX)
    if kind == "compare":
        from agentcost.commands.compare import compare_models
        from agentcost.scenario.load import read_scenario

        return compare_models(read_scenario(BUGFIX), list(MODELS), as_of=AS_OF)
    if kind == "project":
        from agentcost.commands.batch import batch_report_for_paths

        return batch_report_for_paths([PROJECT], as_of=AS_OF)
    if kind == "diff":
        from agentcost.commands.diff_read import diff_paths

        return diff_paths(BUGFIX, VARIANT, as_of=AS_OF)
    if kind == "replay":
        from agentcost.replay import load_trace
        from agentcost.replay import replay as replay_trace

        return replay_trace(
            load_trace(ROOT / "tests" / "data" / "api-logs" / "openai-chat.jsonl"), as_of=AS_OF
        )
    raise AssertionError(kind)


KINDS = ("estimate", "compare", "project", "diff", "replay")


def expected_bars(kind: str, terminal: bool = False) -> int:
    r = report(kind)
    if kind == "estimate" and terminal:  # a bar per request, then one per part of the cost split
        return len(r.requests) + len(charts.split_bars(r))
    if kind in ("estimate", "replay"):  # the SVG draws the requests only
        return len(r.requests)
    if kind == "diff":
        return sum((s.base is not None) + (s.head is not None) for s in r.scenarios)
    return len(r.rows)


# --------------------------------------------------------------------------------------------
# Reading an SVG back
# --------------------------------------------------------------------------------------------


def svg_of(kind: str) -> str:
    return render_text(report(kind), Format.svg)


def png(svg: str) -> Any:
    data = resvg_py.svg_to_bytes(svg_string=svg, skip_system_fonts=True)  # bars only: no font needed
    return Image.open(io.BytesIO(bytes(data))).convert("RGB")


def size(root: ET.Element) -> tuple[int, int]:
    return round(float(root.attrib["width"])), round(float(root.attrib["height"]))


def bars(root: ET.Element) -> list[ET.Element]:
    return [g for g in root.iter(f"{SVG}g") if g.get("class") == "bar"]


def texts(root: ET.Element, cls: str) -> list[str]:
    return ["".join(t.itertext()) for t in root.iter(f"{SVG}text") if t.get("class") == cls]


def rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def close(a: tuple[int, ...], b: tuple[int, ...], tolerance: int = 6) -> bool:
    return all(abs(x - y) <= tolerance for x, y in zip(a, b, strict=True))


def runs(pixels: list[tuple[int, int, int]], colours: set[tuple[int, int, int]]) -> int:
    """How many separate stretches of ``colours`` a line of pixels crosses."""
    count, inside = 0, False
    for p in pixels:
        hit = any(close(p, c) for c in colours)
        count += hit and not inside
        inside = hit
    return count


# --------------------------------------------------------------------------------------------
# SVG
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_the_svg_renders_to_a_png_of_its_size_with_a_bar_per_item(kind: str) -> None:
    svg = svg_of(kind)
    root = ET.fromstring(svg)
    image = png(svg)
    assert image.size == size(root)
    groups = bars(root)
    assert len(groups) == expected_bars(kind) > 0
    seen = 0
    for group in groups:  # each bar's pieces are painted where the SVG puts them, in their colour
        for rect in group.iter(f"{SVG}rect"):
            x, y, w, h = (float(rect.attrib[k]) for k in ("x", "y", "width", "height"))
            if w >= 3 and h >= 3:
                assert close(image.getpixel((round(x + w / 2), round(y + h / 2))), rgb(rect.attrib["fill"]))
                seen += 1
    assert seen >= expected_bars(kind) // 2


def test_the_estimate_chart_has_a_column_per_request_along_its_baseline() -> None:
    svg = svg_of("estimate")
    root = ET.fromstring(svg)
    rects = [r for g in bars(root) for r in g.iter(f"{SVG}rect")]
    bottom = max(float(r.attrib["y"]) + float(r.attrib["height"]) for r in rects)
    image = png(svg)
    colours = {rgb(p.colour) for p in charts.PARTS}
    line = [image.getpixel((x, round(bottom - 2))) for x in range(image.size[0])]
    assert runs(line, colours) == len(report("estimate").requests) == 9


def test_the_compare_chart_has_a_bar_per_model_down_its_axis() -> None:
    svg = svg_of("compare")
    root = ET.fromstring(svg)
    x = min(float(r.attrib["x"]) for g in bars(root) for r in g.iter(f"{SVG}rect"))
    image = png(svg)
    column = [image.getpixel((round(x + 1), y)) for y in range(image.size[1])]
    assert runs(column, {rgb(charts.COST.colour)}) == len(MODELS)


def test_the_diff_chart_draws_base_and_head_in_their_colours() -> None:
    svg = svg_of("diff")
    root = ET.fromstring(svg)
    image = png(svg)
    x = min(float(r.attrib["x"]) for g in bars(root) for r in g.iter(f"{SVG}rect"))
    column = [image.getpixel((round(x + 1), y)) for y in range(image.size[1])]
    scenarios = len(report("diff").scenarios)
    assert runs(column, {rgb(charts.BASE.colour)}) == runs(column, {rgb(charts.HEAD.colour)}) == scenarios


@pytest.mark.parametrize("kind", KINDS)
def test_the_svg_is_self_contained(kind: str) -> None:
    svg = svg_of(kind)
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    root = ET.fromstring(svg)
    width, height = size(root)
    assert root.attrib["viewBox"] == f"0 0 {width} {height}"
    body = svg.replace('xmlns="http://www.w3.org/2000/svg"', "", 1)  # the namespace names, never loads
    for needle in (
        "http",
        "@import",
        "<script",
        "font-face",
        "href",
        "url(",
        "<style",
        "<image",
        "<foreignObject",
    ):
        assert needle not in body.lower(), needle
    assert "sans-serif" in root.attrib["font-family"]


def test_the_dollar_labels_are_the_estimates_figures() -> None:
    r = report("estimate")
    root = ET.fromstring(svg_of("estimate"))
    assert texts(root, "value") == [fmt.usd(line.cost_usd) for line in r.requests]
    assert texts(root, "running-end") == [fmt.usd(r.requests[-1].running_usd)]
    caption = " ".join(texts(root, "caption"))
    assert f"Total {fmt.usd(r.totals.cost_usd)} for {r.totals.requests} requests" in caption
    title = texts(root, "title")[0]
    assert title == f"{r.scenario_name} · {r.model_id}"
    tips = ["".join(g.find(f"{SVG}title").itertext()) for g in bars(root)]  # type: ignore[union-attr]
    assert all(fmt.usd(line.cost_usd) in tip for tip, line in zip(tips, r.requests, strict=True))


@pytest.mark.parametrize("kind", ["compare", "project"])
def test_the_dollar_labels_are_each_rows_cost(kind: str) -> None:
    r = report(kind)
    root = ET.fromstring(svg_of(kind))
    assert texts(root, "value") == [fmt.usd(row.cost_usd) for row in r.rows]
    if kind == "compare":
        assert texts(root, "label") == [row.model_id for row in r.rows]
        assert [row.cost_usd for row in r.rows] == sorted(row.cost_usd for row in r.rows)  # cheapest first
    else:
        assert fmt.usd(r.totals.cost_usd) in " ".join(texts(root, "caption"))


def test_the_diff_labels_are_base_head_and_the_change() -> None:
    r = report("diff")
    root = ET.fromstring(svg_of("diff"))
    values: list[str] = []
    notes: list[str] = []
    for s in r.scenarios:
        values.extend(fmt.usd_pair(s.before_usd, s.after_usd))
        assert s.status == "changed"
        notes.append(f"{fmt.signed_usd(s.change.cost_usd)} ({signed_percent(s.change_fraction)})")
    assert texts(root, "value") == values
    assert texts(root, "note") == notes


def test_a_name_with_markup_is_escaped(tmp_path: Path) -> None:
    name = '<script>alert(1)</script>&"x'
    quoted = "'" + name.replace("'", "''") + "'"
    path = tmp_path / "s.yaml"
    path.write_text(
        f"version: 1\nname: {quoted}\nmodel: gpt-4o\ncaching: none\ntask: {{tokens: 100}}\n"
        "tools:\n  - {name: search, description: Search., input_schema: {type: object}}\n"
        "rounds:\n  - {tool: search, call_tokens: 20, result: {tokens: 1000}}\nfinal: {tokens: 200}\n",
        encoding="utf-8",
    )
    svg = render_text(_estimate(path), Format.svg)
    assert "<script" not in svg and "&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;x" in svg
    root = ET.fromstring(svg)
    assert texts(root, "title")[0].startswith(name)
    assert root.attrib["aria-label"].startswith(name)


def test_server_tool_fees_get_their_own_piece(tmp_path: Path) -> None:
    path = tmp_path / "search.yaml"
    path.write_text(
        "version: 1\nname: search\nmodel: claude-sonnet-4-5\ncaching: none\ntask: {tokens: 1000}\n"
        "tools:\n  - {name: read, description: Read., input_schema: {type: object}}\n"
        "rounds:\n  - tool: read\n    call_tokens: 20\n    result: 500\n"
        "    server_tools: [{tool: web_search, uses: 3}]\nfinal: {tokens: 100}\n",
        encoding="utf-8",
    )
    r = _estimate(path)
    assert r.totals.fees_usd > 0
    rows = charts.stacks(r)
    for stack, line in zip(rows, r.requests, strict=True):
        assert sum(stack.sizes) == pytest.approx(float(line.cost_usd), rel=1e-9)  # a bar is its cost
    assert rows[0].sizes[charts.FEES] > 0 and rows[-1].sizes[charts.FEES] == 0
    root = ET.fromstring(render_text(r, Format.svg))
    assert "server-tool fees" in texts(root, "key")
    assert f"server-tool fees {fmt.usd(r.totals.fees_usd)}" in " ".join(texts(root, "caption"))


def test_every_request_bar_is_as_long_as_its_cost() -> None:
    r = report("estimate")
    for stack, line in zip(charts.stacks(r), r.requests, strict=True):
        assert sum(stack.sizes) == pytest.approx(float(line.cost_usd), rel=1e-9)
        assert all(s >= 0 for s in stack.sizes)
    assert texts(ET.fromstring(svg_of("estimate")), "key")[: len(charts.PARTS) - 1] == [
        p.label for p in charts.PARTS[: len(charts.PARTS) - 1]
    ]  # no fees in this run: no fees key


def test_a_1h_and_5m_request_draws_each_write_at_its_own_rate(tmp_path: Path) -> None:
    """cache_ttl {prefix: 1h, conversation: 5m}: one request writes 12,000 tokens for an hour and
    3,003 for five minutes. The bar's pieces are the report's figures (agentcost.report.split), not
    rates re-derived from the TTL label (which drew every write at the 5-minute rate). At
    claude-sonnet-4-5's list prices ($3 input, $3.75 5m write, $6 1h write, $15 output per MTok):
    writes 12,000 x 6 + 3,003 x 3.75 = 72,000 + 11,261.25 = 83,261.25 µ$; uncached input 4 x 3 = 12 µ$;
    output 203 x 15 = 3,045 µ$; the request 86,318.25 µ$ (tests/test_cache_ttl_two.py's ledger)."""
    path = tmp_path / "two.yaml"
    path.write_text(
        "version: 1\nmodel: claude-sonnet-4-5\ntask: {tokens: 3000}\nsystem: {tokens: 12000}\nfinal: 200\n"
        "cache_ttl: {prefix: 1h, conversation: 5m}\n",
        encoding="utf-8",
    )
    r = _estimate(path)
    assert r.cache_ttl == "1h+5m"
    [line] = r.requests
    assert line.cost_usd == Decimal("0.08631825")
    assert line.parts is not None
    assert line.parts.as_tuple() == (
        Decimal("0.000012"),
        Decimal(0),
        Decimal("0.08326125"),
        Decimal("0.003045"),
        Decimal(0),
    )
    assert line.parts.total_usd == line.cost_usd  # the pieces are the ledger's cost, exactly
    [stack] = charts.stacks(r)
    assert stack.cost_usd == line.cost_usd
    assert stack.sizes[2] == pytest.approx(0.08326125, rel=1e-12)  # not 15,003 x 3.75 = 0.05626125
    assert sum(stack.sizes) == pytest.approx(0.08631825, rel=1e-12)
    assert texts(ET.fromstring(render_text(r, Format.svg)), "value") == [fmt.usd(Decimal("0.08631825"))]


def test_a_routed_request_is_drawn_in_its_parts() -> None:
    """scenarios/routing.yaml's request 6 runs on claude-haiku-4-5 ($1 input, $0.10 cache read,
    $1.25 cache write, $5 output per MTok): 5,370 tokens read from cache x 0.1 = 537 µ$, 152
    written x 1.25 = 190 µ$, 4 uncached x 1 = 4 µ$, 102 output x 5 = 510 µ$; 1,241 µ$ in all. The
    bar used to draw its whole input as uncached (the report held the scenario model's rates only);
    the ledger line now carries the parts its own model's prices gave."""
    r = _estimate(ROOT / "scenarios" / "routing.yaml")
    line = r.requests[5]
    assert (line.index, line.model, line.cost_usd) == (6, "claude-haiku-4-5", Decimal("0.001241"))
    assert line.parts is not None
    assert line.parts.as_tuple() == (
        Decimal("0.000004"),
        Decimal("0.000537"),
        Decimal("0.00019"),
        Decimal("0.00051"),
        Decimal(0),
    )
    assert line.parts.total_usd == line.cost_usd


@pytest.mark.parametrize("section", ["explain", "simulate"])
def test_estimate_with_a_section_draws_the_estimates_chart(
    capsys: pytest.CaptureFixture[str], section: str
) -> None:
    extra = ["--explain"] if section == "explain" else ["--simulate", "200"]
    code = run(["estimate", str(BUGFIX), "--as-of", "2026-11-30", "-f", "svg", *extra])
    out, err = capsys.readouterr()
    assert code == 0, err
    root = ET.fromstring(out)
    assert len(bars(root)) == len(report("estimate").requests)


# --------------------------------------------------------------------------------------------
# The terminal
# --------------------------------------------------------------------------------------------


def terminal(kind: str, width: int) -> list[str]:
    console = Console(file=io.StringIO(), width=width, no_color=True, record=True)
    draw = renderers_for(report(kind)).chart
    assert draw is not None
    console.print(draw(report(kind)))
    return console.export_text().splitlines()


def shown(kind: str) -> list[str]:
    """The dollar figures a terminal chart shows, from the report."""
    r = report(kind)
    if kind == "estimate":
        split = [fmt.usd(usd) for _, usd, _ in charts.split_bars(r)]
        return [fmt.usd(x) for line in r.requests for x in (line.cost_usd, line.running_usd)] + split
    if kind == "diff":
        return [t for s in r.scenarios for t in fmt.usd_pair(s.before_usd, s.after_usd)]
    return [fmt.usd(row.cost_usd) for row in r.rows]


@pytest.mark.parametrize("width", [60, 80, 120])
@pytest.mark.parametrize("kind", ["estimate", "compare", "project", "diff"])
def test_terminal_charts_fit_the_width_and_show_every_figure_whole(kind: str, width: int) -> None:
    lines = terminal(kind, width)
    assert all(cell_len(line) <= width for line in lines), "\n".join(lines)
    figures = [f for line in lines for f in re.findall(r"[-+]?\$[\d,]+\.\d+", line)]
    for figure in shown(kind):
        assert figure in figures
    rows = [line for line in lines if re.search(r"[█▓▒░▞]", line) and "$" in line]
    assert len(rows) == expected_bars(kind, terminal=True)
    longest = max(sum(line.count(c) for c in "█▓▒░▞") for line in rows)
    assert longest >= width // 3  # the bars take the room the console leaves


def test_the_estimate_chart_scales_bars_to_the_costliest_request() -> None:
    r = report("estimate")
    lines = [line for line in terminal("estimate", 80) if re.match(r"\s*\d+ ", line) and "$" in line]
    lengths = [sum(line.count(c) for c in "█▓▒░▞") for line in lines]
    costliest = max(range(len(r.requests)), key=lambda i: r.requests[i].cost_usd)
    assert lengths[costliest] == max(lengths)
    assert lines[-1].rstrip().endswith(fmt.usd(r.requests[-1].running_usd))


COMMANDS = {
    "project": ["estimate", str(PROJECT)],
    "compare": ["compare", str(BUGFIX), *(x for m in MODELS for x in ("-m", m))],
    "diff": ["diff", str(BUGFIX), str(VARIANT)],
}
TITLES = {"project": charts.batch_title, "compare": charts.compare_title, "diff": charts.diff_title}


@pytest.mark.parametrize("kind", list(COMMANDS))
def test_chart_option_prints_the_chart(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    code = run([*COMMANDS[kind], "--as-of", "2026-11-30", "--chart"])
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    title = TITLES[kind](report(kind))[:20]  # type: ignore[operator]  # a long title wraps
    assert title in out
    chart = out[out.index(title) :].splitlines()
    assert all(cell_len(line) <= 80 for line in chart), out
    assert len([line for line in chart if "█" in line]) == expected_bars(kind)
