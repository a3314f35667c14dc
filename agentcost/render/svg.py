"""Reports as self-contained SVG charts (``--format svg``): no script, web font or external reference.

An estimate (or a replay) is a column per request, stacked by what it paid for, with the running
total as a line on a second axis; a comparison, a project and a diff are horizontal bars (per
model, per scenario, base vs head per scenario). What is drawn comes from
:mod:`agentcost.render.chart`; every number shown is a report field through ``fmt``; every label
from a user file passes :func:`agentcost.infra.text.html` (plain text, escaped for XML).
Coordinates are floats: layout, never a figure. ``render_text`` guards the whole document.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from typing import TYPE_CHECKING, Any

from agentcost.infra.text import html
from agentcost.render.chart import (
    COST,
    PARTS,
    Group,
    Part,
    Stack,
    batch_caption,
    batch_groups,
    batch_title,
    compare_caption,
    compare_groups,
    compare_title,
    diff_caption,
    diff_groups,
    diff_legend,
    diff_title,
    estimate_caption,
    estimate_title,
    replay_stacks,
    split_caption,
    stacks,
    used_parts,
)
from agentcost.report import fmt

if TYPE_CHECKING:
    from agentcost.report.batch import BatchReport
    from agentcost.report.compare import CompareReport
    from agentcost.report.diff import DiffReport
    from agentcost.report.estimate import Report
    from agentcost.report.replay import ReplayReport
    from agentcost.report.sections import SimulatedReport, Simulation

FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif"
INK, MUTED, GRID, PAPER = "#1f2328", "#59636e", "#d1d9e0", "#ffffff"
LINE = "#1f2328"  # the running total
BUDGET = "#b42318"  # a budget: a dashed line in this red (told apart by its dashes too)
DASH = "6 4"
PAD = 16
LEADING = 1.3  # a line of wrapped text, in ems
MINUS = "\N{MINUS SIGN}"

# The text metric (SVG cannot measure text, so the layout estimates it). A character's advance in
# ems: 0.65 for most, 0.8 for a capital, 1.0 for M, W, m, w, %, @, &, a dash, an ellipsis and an
# East Asian wide character; bold text 1.12 times that. Each is at least the character's advance in
# Helvetica, Arial and DejaVu Sans (the fallback sans-serif of most Linux systems; their published
# widths: lowercase and digits at most 0.64 em but m 0.97; capitals at most 0.79 em but M 0.86 and
# W 0.99; bold at most 12% wider), so a text's box is never narrower than it is drawn in those
# fonts. A box spans ``ASCENT`` ems above the baseline and ``DESCENT`` below (capitals, descenders).
CHAR, CAPITAL, FULL = 0.65, 0.8, 1.0
FULL_CHARS = frozenset("MWmw%@&—…")
BOLD = 1.12
ASCENT, DESCENT = 0.8, 0.25


def _n(v: float) -> str:
    """A coordinate: one decimal at most."""
    return f"{v:.1f}".rstrip("0").rstrip(".")


def _em(char: str) -> float:
    import unicodedata

    if char in FULL_CHARS or unicodedata.east_asian_width(char) in ("W", "F"):
        return FULL
    return CAPITAL if char.isupper() else CHAR


def width_of(text: str, size: float = 12, bold: bool = False) -> float:
    """How wide ``text`` is drawn at ``size`` pixels, at most (the metric above)."""
    return sum(_em(c) for c in text) * size * (BOLD if bold else 1.0)


Box = tuple[float, float, float, float]  # left, top, right, bottom


def box_of(x: float, y: float, text: str, size: float = 12, anchor: str = "start", bold: bool = False) -> Box:
    """The box ``text`` drawn at (``x``, ``y``) takes: its anchor, the metric's width and height."""
    w = width_of(text, size, bold)
    left = x - w if anchor == "end" else x - w / 2 if anchor == "middle" else x
    return (left, y - ASCENT * size, left + w, y + DESCENT * size)


def overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


_BREAKS = "/-_.:·,"  # a long word breaks after one of these, where it can


def wrap(text: str, room: float, size: float = 12, bold: bool = False) -> list[str]:
    """``text`` in lines at most ``room`` pixels wide, broken between words; a word wider than
    ``room`` breaks after ``/ - _ . :`` where it can, else between characters. Nothing is cut."""
    lines: list[str] = []
    for word in text.split(" "):
        joined = f"{lines[-1]} {word}" if lines else word
        if lines and width_of(joined, size, bold) <= room:
            lines[-1] = joined
            continue
        while len(word) > 1 and width_of(word, size, bold) > room:
            fits = 1  # the characters that fit (one at least: a line is never empty)
            while width_of(word[: fits + 1], size, bold) <= room:
                fits += 1
            cut = max((n + 1 for n in range(fits) if word[n] in _BREAKS), default=fits)
            lines.append(word[:cut])
            word = word[cut:]
        lines.append(word)
    return lines or [""]


class Canvas:
    """An SVG document being drawn: shapes and text, every text escaped as it is added and its box
    kept (:meth:`free` says whether a box would overlap a text already drawn)."""

    def __init__(self, width: float, title: str) -> None:
        self.width = width
        self.title = title
        self.items: list[str] = []
        self.boxes: list[Box] = []

    def rect(self, x: float, y: float, w: float, h: float, fill: str, cls: str = "") -> None:
        if w <= 0 or h <= 0:
            return
        c = f' class="{cls}"' if cls else ""
        self.items.append(
            f'<rect{c} x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="{_n(h)}" fill="{fill}"/>'
        )

    def text(
        self,
        x: float,
        y: float,
        text: str,
        *,
        size: float = 12,
        anchor: str = "start",
        bold: bool = False,
        fill: str = INK,
        cls: str = "",
        halo: bool = False,
    ) -> None:
        extra = f' class="{cls}"' if cls else ""
        if anchor != "start":
            extra += f' text-anchor="{anchor}"'
        if bold:
            extra += ' font-weight="600"'
        if size != 12:
            extra += f' font-size="{_n(size)}"'
        if halo:  # readable over the line and the gridlines
            extra += f' stroke="{PAPER}" stroke-width="4" paint-order="stroke"'
        self.items.append(f'<text x="{_n(x)}" y="{_n(y)}" fill="{fill}"{extra}>{html(text)}</text>')
        self.boxes.append(box_of(x, y, text, size, anchor, bold))

    def free(self, box: Box) -> bool:
        """``box`` is inside the canvas' width and overlaps no text drawn so far."""
        return box[0] >= 0 and box[2] <= self.width and not any(overlap(box, b) for b in self.boxes)

    def lines(self, x: float, y: float, lines: Sequence[str], size: float = 12, **style: Any) -> float:
        """Wrapped text, a line under the other from the baseline ``y``; the baseline after the last."""
        for line in lines:
            self.text(x, y, line, size=size, **style)
            y += size * LEADING
        return y

    def line(
        self, x1: float, y1: float, x2: float, y2: float, stroke: str = GRID, width: float = 1, cls: str = ""
    ) -> None:
        c = f' class="{cls}"' if cls else ""
        dash = f' stroke-dasharray="{DASH}"' if stroke == BUDGET else ""
        self.items.append(
            f'<line{c} x1="{_n(x1)}" y1="{_n(y1)}" x2="{_n(x2)}" y2="{_n(y2)}" stroke="{stroke}"'
            f' stroke-width="{_n(width)}"{dash}/>'
        )

    def open(self, cls: str, tip: str) -> None:
        """Start a group (a bar) with a tooltip."""
        self.items.append(f'<g class="{cls}"><title>{html(tip)}</title>')

    def close(self) -> None:
        self.items.append("</g>")

    def raw(self, item: str) -> None:
        """An element built here from numbers only (a polyline, a circle)."""
        self.items.append(item)

    def document(self, height: float) -> str:
        w, h = _n(self.width), _n(math.ceil(height))  # whole pixels: a PNG of it is the same size
        label = html(self.title)
        return "\n".join(
            [
                f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}"'
                f' role="img" aria-label="{label}" font-family="{FONT}" font-size="12">',
                f"<title>{label}</title>",
                f'<rect width="{w}" height="{h}" fill="{PAPER}"/>',
                *self.items,
                "</svg>",
                "",
            ]
        )

    def heading(self, title: str, subtitle: str) -> float:
        """The title and subtitle, each wrapped to the width; the y below them."""
        room = self.width - 2 * PAD
        y = self.lines(PAD, 28, wrap(title, room, 16, bold=True), 16, bold=True, cls="title")
        y = self.lines(PAD, y, wrap(subtitle, room), fill=MUTED, cls="subtitle")
        return y - 4

    def legend(self, y: float, parts: Sequence[Part], *extra: tuple[str, str]) -> float:
        """Colour keys from ``y`` on, wrapped to the width (``extra``: a line's key and its stroke);
        the y below."""
        x: float = PAD
        keys = [(p.label, p.colour, "") for p in parts] + [(label, "", stroke) for label, stroke in extra]
        for label, colour, stroke in keys:
            [text, *more] = wrap(label, self.width - 2 * PAD - 14)
            size = 14 + width_of(text) + 22
            if x > PAD and x + size > self.width - PAD:
                x, y = PAD, y + 18
            if colour:
                self.rect(x, y, 10, 10, colour, "key")
            else:
                self.line(x - 2, y + 5, x + 12, y + 5, stroke, 2)
            self.text(x + 14, y + 9.5, text, cls="key")
            for line in more:  # a label wider than the canvas: its lines under it
                y += 16
                self.text(x + 14, y + 9.5, line, cls="key")
            x += size
        return y + 18

    def caption(self, y: float, text: str) -> float:
        """``text`` in lines that fit the width, each ``;`` clause on a line of its own when it
        does not fit after the previous one; the y below."""
        room = self.width - 2 * PAD
        lines: list[str] = []
        for piece in text.split("; "):
            if lines and width_of(lines[-1] + "; " + piece) <= room:
                lines[-1] += "; " + piece
            else:
                lines.extend(wrap(piece, room))
        for line in lines:
            self.text(PAD, y, line, cls="caption")
            y += 16
        return y


def ticks(top: Decimal, count: int = 4, low: Decimal = Decimal(0)) -> tuple[Decimal, ...]:
    """Axis ticks from ``low`` (or the last step below it) to the first at or above ``top``: a step
    of 1, 2, 2.5 or 5 × 10^k."""
    if top <= low:
        return (low, low + Decimal("0.01")) if low else (Decimal(0), Decimal("0.01"))
    raw = (top - low) / count
    mag = Decimal(1).scaleb(raw.adjusted())
    step = next(mag * m for m in (1, 2, Decimal("2.5"), 5, 10) if mag * m >= raw)
    first = int((low / step).to_integral_value(rounding=ROUND_FLOOR))
    last = int((top / step).to_integral_value(rounding=ROUND_CEILING))
    return tuple(step * i for i in range(first, last + 1))


def tick_label(tick: Decimal, axis: Sequence[Decimal]) -> str:
    """``$0.0025``: as many decimals as the axis' step needs (2 at least)."""
    exponent = (axis[1] - axis[0]).normalize().as_tuple().exponent if len(axis) > 1 else 0
    places = max(2, -exponent if isinstance(exponent, int) else 2)
    return fmt.usd(tick, places)


def budget_text(limit: Decimal) -> str:
    return f"budget {fmt.usd(limit)}"


def _place(canvas: Canvas, text: str, spots: Sequence[tuple[float, float, str]], size: float = 11) -> None:
    """``text`` at the first of ``spots`` (x, y, anchor) where it overlaps no text (else the first)."""
    x, y, anchor = next(
        (spot for spot in spots if canvas.free(box_of(spot[0], spot[1], text, size, spot[2]))), spots[0]
    )
    canvas.text(x, y, text, size=size, anchor=anchor, fill=BUDGET, cls="budget", halo=True)


# --------------------------------------------------------------------------------------------
# Columns: a bar per request, and the running total
# --------------------------------------------------------------------------------------------


def _width(n: int) -> float:
    return min(1600, max(720, 200 + 24 * n))


def _columns(
    canvas: Canvas, y: float, rows: Sequence[Stack], parts: Sequence[Part], budget: Decimal | None
) -> float:
    """A column per request and the running total (its budget a dashed line on the running total's
    axis), from ``y`` on; the y below."""
    keys = [("running total (right axis)", LINE)]
    if budget is not None:
        keys.append((f"{budget_text(budget)} (a run, right axis)", BUDGET))
    y = canvas.legend(y + 4, parts, *keys)
    n = len(rows)
    left_axis = ticks(max((s.cost_usd for s in rows), default=Decimal(0)))
    right_axis = ticks(max([s.running_usd for s in rows] + ([budget] if budget is not None else [])))
    left_labels = [tick_label(t, left_axis) for t in left_axis]
    right_labels = [tick_label(t, right_axis) for t in right_axis]
    x0 = PAD + max(width_of(t) for t in left_labels) + 8
    end = fmt.usd(rows[-1].running_usd) if rows else ""  # the line's last value, tagged on its axis
    tag_w = width_of(end, bold=True) + 10
    x1 = canvas.width - PAD - max(tag_w + 2, *(width_of(t) + 6 for t in right_labels))
    top, height = y + 32, 240.0
    bottom = top + height
    canvas.text(x0, top - 16, "per request", fill=MUTED, cls="axis")
    canvas.text(x1, top - 16, "running total", fill=MUTED, anchor="end", cls="axis")
    left_top, right_top = float(left_axis[-1]), float(right_axis[-1])
    slot = (x1 - x0) / max(n, 1)
    bar = slot * 0.7 if slot >= 3 else slot
    points = [
        (x0 + i * slot + slot / 2, bottom - float(s.running_usd) / right_top * height)
        for i, s in enumerate(rows)
    ]
    tag: Box | None = None
    if points:  # the tag of the line's last value sits on the right axis: tick labels under it give way
        ey = points[-1][1]
        tag = (x1 + 2, ey - 9, x1 + 2 + tag_w, ey + 9)
    for tick, label in zip(left_axis, left_labels, strict=True):
        ty = bottom - float(tick) / left_top * height
        canvas.line(x0, ty, x1, ty)
        canvas.text(x0 - 6, ty + 4, label, anchor="end", fill=MUTED, cls="tick")
    for tick, label in zip(right_axis, right_labels, strict=True):
        ty = bottom - float(tick) / right_top * height
        canvas.line(x1, ty, x1 + 4, ty, MUTED)
        if tag is None or not overlap(tag, box_of(x1 + 6, ty + 4, label)):
            canvas.text(x1 + 6, ty + 4, label, fill=MUTED, cls="tick")
    canvas.line(x0, bottom, x1, bottom, MUTED)
    canvas.line(x1, top, x1, bottom, MUTED)
    values = [fmt.usd(s.cost_usd) for s in rows]
    labelled = bool(rows) and slot >= max(width_of(v, 10) for v in values) + 4
    every = max(1, math.ceil(28 / slot)) if slot > 0 else 1  # request numbers 28 pixels apart at least
    colours = [COST.colour] * len(PARTS) if list(parts) == [COST] else [p.colour for p in PARTS]
    tops: list[tuple[float, float, str]] = []
    for i, (s, value) in enumerate(zip(rows, values, strict=True)):
        bx = x0 + i * slot + (slot - bar) / 2
        canvas.open("bar", f"#{s.index} {s.label}: {value}; running total {fmt.usd(s.running_usd)}")
        level = bottom
        for size, colour in zip(s.sizes, colours, strict=True):
            h = size / left_top * height
            canvas.rect(bx, level - h, bar, h, colour, "seg")
            level -= h
        canvas.close()
        if labelled:  # drawn after the line, over it
            tops.append((bx + bar / 2, level - 4, value))
        if i % every == 0 or (i == n - 1 and i % every > every / 2):
            canvas.text(bx + bar / 2, bottom + 16, str(s.index), anchor="middle", fill=MUTED, cls="index")
    if budget is not None:
        by = bottom - float(budget) / right_top * height
        canvas.line(x0, by, x1, by, BUDGET, 1.5, "budget-line")
    if points:
        path = " ".join(f"{_n(px)},{_n(py)}" for px, py in points)
        canvas.raw(
            f'<polyline class="running" points="{path}" fill="none" stroke="{LINE}" stroke-width="2"/>'
        )
        if n <= 60:
            for px, py in points:
                canvas.raw(f'<circle cx="{_n(px)}" cy="{_n(py)}" r="2.5" fill="{LINE}"/>')
        for tx, ty, value in tops:
            canvas.text(tx, ty, value, size=10, anchor="middle", fill=MUTED, cls="value", halo=True)
        ex, ey = points[-1]
        canvas.line(ex, ey, x1, ey, LINE, 1)
        canvas.rect(x1 + 2, ey - 9, tag_w, 18, LINE, "running-tag")
        canvas.text(x1 + 7, ey + 4, end, fill=PAPER, bold=True, cls="running-end")
    if budget is not None:  # above its line, else below it, at the right end, else the left
        above, below = by - 5, by + 14
        spots = [
            (x1 - 4, above, "end"),
            (x0 + 4, above, "start"),
            (x1 - 4, below, "end"),
            (x0 + 4, below, "start"),
        ]
        _place(
            canvas,
            budget_text(budget),
            [(sx, sy, a) for sx, sy, a in spots if top <= sy - 10 and sy <= bottom],
        )
    canvas.text((x0 + x1) / 2, bottom + 34, "request", anchor="middle", fill=MUTED, cls="axis")
    return bottom + 58


def _limit(report: Report) -> Decimal | None:
    return None if report.budget is None else report.budget.limit_usd


SUBTITLE = "Cost per request (bars, left axis) and the running total (line, right axis)"


def estimate_svg(report: Report) -> str:
    """An estimate: each request's cost stacked by what it paid for, the running total as a line."""
    rows = stacks(report)
    canvas = Canvas(_width(len(rows)), estimate_title(report))
    y = canvas.heading(estimate_title(report), SUBTITLE)
    y = _columns(canvas, y, rows, [PARTS[i] for i in used_parts(rows)], _limit(report))
    caption = " ".join(filter(None, (estimate_caption(report), split_caption(report))))
    return canvas.document(canvas.caption(y, caption) + 4)


def replay_svg(report: ReplayReport) -> str:
    """A replayed run: each request's cost and the running total."""
    t = report.totals
    s = "" if t.requests == 1 else "s"
    title = f"Replay · {os.path.basename(report.path)} · {report.model}"
    rows = replay_stacks(report)
    canvas = Canvas(_width(len(rows)), title)
    y = _columns(canvas, canvas.heading(title, SUBTITLE), rows, [COST], None)
    return canvas.document(
        canvas.caption(y, f"Total {fmt.usd(t.cost_usd)} for {t.requests:,} request{s}.") + 4
    )


# --------------------------------------------------------------------------------------------
# The simulated runs: a histogram of their cost, the percentiles and the budget marked
# --------------------------------------------------------------------------------------------


def _histogram(canvas: Canvas, y: float, s: Simulation, marks: Sequence[tuple[str, Decimal]]) -> float:
    """Bins of the runs' cost along a dollar axis from ``y`` on, each ``marks`` (a percentile, the
    budget) a vertical line labelled above the bins; the bin of the runs beyond p99 after a break.
    The y below."""
    body = [b for b in s.histogram if not b.beyond_p99]
    tail = [b for b in s.histogram if b.beyond_p99]
    low = body[0].low_usd if body else s.cost.min
    high = max([body[-1].high_usd if body else s.cost.max, *(v for _, v in marks)])
    axis = ticks(high, 5, low)
    x0, x1 = PAD + 20, canvas.width - PAD - (80 if tail else 20)
    scale = (x1 - x0) / float(axis[-1] - axis[0])

    def at(v: Decimal) -> float:
        return x0 + (float(v) - float(axis[0])) * scale

    rows: list[list[Box]] = []  # the marks' labels in rows above the bins, each where it fits first
    placed: list[tuple[str, str, float, int]] = []
    for label, value in sorted(marks, key=lambda m: m[1]):
        text, bold = f"{label} {fmt.usd(value)}", label != "budget"
        half = width_of(text, 11, bold) / 2
        x = min(max(at(value), PAD + half), canvas.width - PAD - half)
        box = box_of(x, 0, text, 11, "middle", bold)
        row = next((i for i, r in enumerate(rows) if not any(overlap(box, b) for b in r)), len(rows))
        if row == len(rows):
            rows.append([])
        rows[row].append((box[0] - 4, box[1], box[2] + 4, box[3]))
        placed.append((label, text, x, row))
    top = y + 16 + 15 * len(rows)
    height = 160.0
    bottom = top + height
    for tick in axis:
        tx = at(tick)
        canvas.line(tx, top, tx, bottom)
        canvas.text(tx, bottom + 16, tick_label(tick, axis), anchor="middle", fill=MUTED, cls="tick")
    canvas.line(x0, bottom, x1, bottom, MUTED)
    slot = (x1 - x0) / max(len(s.histogram), 1)  # a bin's run counts over it when they fit
    counted = slot >= max(width_of(f"{b.runs:,}", 10) for b in s.histogram) + 2
    counts: list[tuple[float, float, str]] = []
    for b in s.histogram:
        bx, bw = (
            (x1 + 16, 40.0) if b.beyond_p99 else (at(b.low_usd), max(1.0, at(b.high_usd) - at(b.low_usd)))
        )
        h = float(b.height) * (height - 14)
        edges = fmt.usd_series([b.low_usd, b.high_usd])
        more = " (beyond p99)" if b.beyond_p99 else ""
        canvas.open("bin", f"{edges[0]} {MINUS} {edges[1]}: {b.runs:,} runs{more}")
        canvas.rect(bx + 0.5, bottom - h, max(0.5, bw - 1), h, COST.colour, "seg")
        canvas.close()
        if counted and b.runs:
            counts.append((bx + bw / 2, bottom - h - 3, f"{b.runs:,}"))
    if tail:
        canvas.text(x1 + 60, bottom + 16, "> p99", anchor="middle", fill=MUTED, cls="tick")
        canvas.line(x1 + 30, bottom + 3, x1 + 34, bottom - 5, MUTED)  # the axis' break
    for label, _, _, row in placed:  # the lines first: the bins' counts are written over them
        ly = y + 14 + 15 * row
        mx = at(next(v for name, v in marks if name == label))
        if label == "budget":
            canvas.line(mx, ly + 4, mx, bottom, BUDGET, 1.5, "budget-line")
        else:
            canvas.line(mx, ly + 4, mx, bottom, INK, 1, "mark-line")
    for cx, cy, count in counts:
        canvas.text(cx, cy, count, size=10, anchor="middle", fill=MUTED, cls="runs", halo=True)
    for label, text, x, row in placed:
        colour = BUDGET if label == "budget" else INK
        canvas.text(
            x,
            y + 14 + 15 * row,
            text,
            size=11,
            anchor="middle",
            fill=colour,
            bold=label != "budget",
            cls="mark",
        )
    canvas.text((x0 + x1) / 2, bottom + 34, "cost of a run", anchor="middle", fill=MUTED, cls="axis")
    return bottom + 46


MEDIAN_RUN = "The run at the medians, request by request"


def simulated_svg(report: SimulatedReport) -> str:
    """``estimate --simulate``: the histogram of the simulated runs' cost, p50, p90 and p99 (and any
    percentile ``--at`` asked for) and the budget marked; under it the run at the medians, request
    by request."""
    r, s = report.report, report.simulation
    rows = stacks(r)
    canvas = Canvas(_width(len(rows)), estimate_title(r))
    y = canvas.heading(
        estimate_title(r), f"Cost of {s.runs:,} simulated runs (seed {s.seed}), then the run at the medians"
    )
    marks = [("p50", s.cost.p50), ("p90", s.cost.p90), ("p99", s.cost.p99)]
    marks += [(label, value) for label, value in s.percentile_usd if label not in ("p50", "p90", "p99")]
    budget = s.budget_usd if s.budget_usd is not None else _limit(r)
    if budget is not None:
        marks.append(("budget", budget))
    y = _histogram(canvas, y + 6, s, marks)
    y = canvas.lines(
        PAD,
        y + 8,
        wrap(MEDIAN_RUN, canvas.width - 2 * PAD, bold=True),
        bold=True,
        cls="panel",
    )
    y = _columns(canvas, y - 14, rows, [PARTS[i] for i in used_parts(rows)], budget)
    return canvas.document(canvas.caption(y, estimate_caption(r)) + 4)


# --------------------------------------------------------------------------------------------
# Rows: horizontal bars per model, per scenario, base vs head
# --------------------------------------------------------------------------------------------


def _rows(title: str, subtitle: str, groups: Sequence[Group], parts: Sequence[Part], caption: str) -> str:
    canvas = Canvas(760, title)
    y = canvas.heading(title, subtitle)
    budgets = [b.budget_usd for g in groups for b in g.bars]
    common = budgets[0] if budgets and len(set(budgets)) == 1 else None  # one budget: one line
    own = common is None and any(v is not None for v in budgets)  # each its own: a mark per group
    keys = [("budget (dashed line)", BUDGET)] if own or common is not None else []
    if len(parts) > 1 or keys:
        y = canvas.legend(y + 4, parts if len(parts) > 1 else (), *keys)
    values = {id(b): b.text for g in groups for b in g.bars}
    label_w = min(220.0, max((width_of(g.label) for g in groups), default=0.0))
    labels = [wrap(g.label, label_w) for g in groups]
    note_w = max((width_of(g.note, bold=True) for g in groups), default=0.0)
    value_w = max((width_of(v) for v in values.values()), default=0.0)
    x0 = PAD + label_w + 12
    x1 = canvas.width - PAD - (note_w + 16 if note_w else 0) - value_w - 8
    costs = [b.cost_usd for g in groups for b in g.bars if b.cost_usd is not None]
    axis = ticks(max([*costs, *(v for v in budgets if v is not None)], default=Decimal(0)))
    scale = (x1 - x0) / float(axis[-1])
    top = y + (30 if common is not None else 12)
    heights = [
        max(20 * len(g.bars), 16 * len(lines)) + (16 if own and any(b.budget_usd for b in g.bars) else 0)
        for g, lines in zip(groups, labels, strict=True)
    ]
    bottom = top + sum(h + 8 for h in heights) + 4
    for tick in axis:
        tx = x0 + float(tick) * scale
        canvas.line(tx, top - 4, tx, bottom)
        canvas.text(tx, bottom + 16, tick_label(tick, axis), anchor="middle", fill=MUTED, cls="tick")
    canvas.line(x0, top - 4, x0, bottom, MUTED)
    y = top + 4
    for g, lines, h in zip(groups, labels, heights, strict=True):
        bars_h = 20 * len(g.bars)
        middle = y + max(bars_h, 16 * len(lines)) / 2
        canvas.lines(PAD, middle - 16 * len(lines) / 2 + 12, lines, 12, cls="label")
        if g.note:
            canvas.text(canvas.width - PAD, middle + 4, g.note, anchor="end", bold=True, cls="note")
        by = middle - bars_h / 2
        for b in g.bars:
            length = 0.0 if b.cost_usd is None else float(b.cost_usd) * scale
            canvas.open("bar", f"{g.label} · {b.label}: {values[id(b)]}")
            canvas.rect(x0, by, max(length, 1.0 if b.cost_usd is not None else 0.0), 16, b.part.colour, "seg")
            canvas.close()
            vx = x0 + length + 6
            line = b.budget_usd if own else common
            if line is not None and vx - 8 <= x0 + float(line) * scale <= vx + width_of(values[id(b)]) + 2:
                vx = x0 + float(line) * scale + 6  # never over the budget's line: after it
            canvas.text(vx, by + 12.5, values[id(b)], cls="value", halo=True)
            if own and b.budget_usd is not None:
                bx = x0 + float(b.budget_usd) * scale
                canvas.line(bx, by - 2, bx, by + 18, BUDGET, 2, "budget-line")
            by += 20
        marked = [b.budget_usd for b in g.bars if b.budget_usd is not None]
        if own and marked:  # the group's budget (base → head when they differ) under its bars
            shown = (
                fmt.usd(marked[-1]) if len(set(marked)) == 1 else f" {fmt.ARROW} ".join(map(fmt.usd, marked))
            )
            text = f"budget {shown}"
            bx = x0 + float(marked[-1]) * scale
            w = width_of(text, 10)
            canvas.text(
                min(max(bx, x0 + w / 2), canvas.width - PAD - w / 2),
                by + 10,
                text,
                size=10,
                anchor="middle",
                fill=BUDGET,
                cls="budget",
            )
        y += h + 8
    if common is not None:
        bx = x0 + float(common) * scale
        canvas.line(bx, top - 14, bx, bottom, BUDGET, 1.5, "budget-line")
        text = budget_text(common)
        w = width_of(text, 11)
        canvas.text(
            min(max(bx, PAD + w / 2), canvas.width - PAD - w / 2),
            top - 18,
            text,
            size=11,
            anchor="middle",
            fill=BUDGET,
            cls="budget",
        )
    return canvas.document(canvas.caption(bottom + 44, caption) + 4)


def compare_svg(report: CompareReport) -> str:
    """A bar per model: what one run costs, cheapest first; the budget a dashed line."""
    return _rows(
        compare_title(report),
        "Cost per run, per model",
        compare_groups(report),
        [COST],
        compare_caption(report),
    )


def batch_svg(report: BatchReport) -> str:
    """A bar per scenario: what one run costs; each scenario's budget a dashed mark."""
    return _rows(
        batch_title(report), "Cost per run, per scenario", batch_groups(report), [COST], batch_caption(report)
    )


def diff_svg(report: DiffReport) -> str:
    """Per scenario, a run's cost before (base) and after (head), and the change."""
    return _rows(
        diff_title(report),
        "Cost per run, per scenario: base and head",
        diff_groups(report),
        diff_legend(report),
        diff_caption(report),
    )
