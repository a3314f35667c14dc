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
from decimal import ROUND_CEILING, Decimal
from typing import TYPE_CHECKING

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

FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif"
INK, MUTED, GRID, PAPER = "#1f2328", "#59636e", "#d1d9e0", "#ffffff"
LINE = "#1f2328"  # the running total
CHAR = 0.6  # a character's width in ems, generous for a sans-serif (layout of labels)
PAD = 16


def _n(v: float) -> str:
    """A coordinate: one decimal at most."""
    return f"{v:.1f}".rstrip("0").rstrip(".")


def width_of(text: str, size: float = 12) -> float:
    """About how wide ``text`` is drawn at ``size`` pixels (SVG cannot measure text)."""
    return len(text) * size * CHAR


def clip(text: str, chars: int) -> str:
    """At most ``chars`` characters, an ellipsis marking a cut."""
    return text if len(text) <= chars else text[: max(1, chars - 1)] + "…"


class Canvas:
    """An SVG document being drawn: shapes and text, every text escaped as it is added."""

    def __init__(self, width: float, title: str) -> None:
        self.width = width
        self.title = title
        self.items: list[str] = []

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

    def line(self, x1: float, y1: float, x2: float, y2: float, stroke: str = GRID, width: float = 1) -> None:
        self.items.append(
            f'<line x1="{_n(x1)}" y1="{_n(y1)}" x2="{_n(x2)}" y2="{_n(y2)}" stroke="{stroke}"'
            f' stroke-width="{_n(width)}"/>'
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
        w, h = _n(self.width), _n(height)
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
        """The title and subtitle; the y below them."""
        chars = int((self.width - 2 * PAD) / (16 * CHAR))
        self.text(PAD, 28, clip(title, chars), size=16, bold=True, cls="title")
        self.text(PAD, 48, clip(subtitle, int(chars * 16 / 12)), fill=MUTED)
        return 60

    def legend(self, y: float, parts: Sequence[Part], extra: str = "") -> float:
        """Colour keys from ``y`` on, wrapped to the width (``extra``: a line's key); the y below."""
        x: float = PAD
        keys = [(p.label, p.colour) for p in parts] + ([(extra, "")] if extra else [])
        for label, colour in keys:
            text = clip(label, 60)
            size = 14 + width_of(text) + 18
            if x > PAD and x + size > self.width - PAD:
                x, y = PAD, y + 18
            if colour:
                self.rect(x, y, 10, 10, colour, "key")
            else:
                self.line(x - 2, y + 5, x + 12, y + 5, LINE, 2)
            self.text(x + 14, y + 9.5, text, cls="key")
            x += size
        return y + 18

    def caption(self, y: float, text: str) -> float:
        """``text`` in lines that fit the width, broken after ``;``; the y below."""
        chars = max(20, int((self.width - 2 * PAD) / (12 * CHAR)))
        lines: list[str] = []
        for piece in text.split("; "):
            if lines and len(lines[-1]) + len(piece) + 2 <= chars:
                lines[-1] += "; " + piece
            else:
                lines.append(piece)
        for line in lines:
            self.text(PAD, y, clip(line, chars), cls="caption")
            y += 16
        return y


def ticks(top: Decimal, count: int = 4) -> tuple[Decimal, ...]:
    """Axis ticks from 0 to the first at or above ``top``: a step of 1, 2, 2.5 or 5 × 10^k."""
    if top <= 0:
        return (Decimal(0), Decimal("0.01"))
    raw = top / count
    mag = Decimal(1).scaleb(raw.adjusted())
    step = next(mag * m for m in (1, 2, Decimal("2.5"), 5, 10) if mag * m >= raw)
    last = int((top / step).to_integral_value(rounding=ROUND_CEILING))
    return tuple(step * i for i in range(last + 1))


def tick_label(tick: Decimal, axis: Sequence[Decimal]) -> str:
    """``$0.0025``: as many decimals as the axis' step needs (2 at least)."""
    exponent = axis[1].normalize().as_tuple().exponent if len(axis) > 1 else 0
    places = max(2, -exponent if isinstance(exponent, int) else 2)
    return fmt.usd(tick, places)


# --------------------------------------------------------------------------------------------
# Columns: a bar per request, and the running total
# --------------------------------------------------------------------------------------------


def _columns(title: str, subtitle: str, rows: Sequence[Stack], parts: Sequence[Part], caption: str) -> str:
    n = len(rows)
    canvas = Canvas(min(1600, max(720, 200 + 24 * n)), title)
    y = canvas.heading(title, subtitle)
    y = canvas.legend(y + 4, parts, "running total (right axis)")
    left_axis = ticks(max((s.cost_usd for s in rows), default=Decimal(0)))
    right_axis = ticks(max((s.running_usd for s in rows), default=Decimal(0)))
    left_labels = [tick_label(t, left_axis) for t in left_axis]
    right_labels = [tick_label(t, right_axis) for t in right_axis]
    x0 = PAD + max(width_of(t) for t in left_labels) + 8
    end = fmt.usd(rows[-1].running_usd) if rows else ""  # the line's last value, tagged on its axis
    x1 = canvas.width - PAD - max(width_of(end) + 10, *(width_of(t) for t in right_labels)) - 8
    top, height = y + 22, 240.0
    bottom = top + height
    canvas.text(x0, top - 10, "per request", fill=MUTED, cls="axis")
    canvas.text(x1, top - 10, "running total", fill=MUTED, anchor="end", cls="axis")
    left_top, right_top = float(left_axis[-1]), float(right_axis[-1])
    for tick, label in zip(left_axis, left_labels, strict=True):
        ty = bottom - float(tick) / left_top * height
        canvas.line(x0, ty, x1, ty)
        canvas.text(x0 - 6, ty + 4, label, anchor="end", fill=MUTED, cls="tick")
    for tick, label in zip(right_axis, right_labels, strict=True):
        ty = bottom - float(tick) / right_top * height
        canvas.line(x1, ty, x1 + 4, ty, MUTED)
        canvas.text(x1 + 6, ty + 4, label, fill=MUTED, cls="tick")
    canvas.line(x0, bottom, x1, bottom, MUTED)
    canvas.line(x1, top, x1, bottom, MUTED)
    slot = (x1 - x0) / max(n, 1)
    bar = slot * 0.7 if slot >= 3 else slot
    values = [fmt.usd(s.cost_usd) for s in rows]
    labelled = bool(rows) and slot >= max(width_of(v, 10) for v in values) + 4
    every = max(1, math.ceil(28 / slot)) if slot > 0 else 1  # request numbers 28 pixels apart at least
    colours = [COST.colour] * len(PARTS) if list(parts) == [COST] else [p.colour for p in PARTS]
    points: list[tuple[float, float]] = []
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
        points.append((bx + bar / 2, bottom - float(s.running_usd) / right_top * height))
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
        ey = points[-1][1]
        canvas.line(points[-1][0], ey, x1, ey, LINE, 1)
        canvas.rect(x1 + 2, ey - 9, width_of(end) + 10, 18, LINE, "running-tag")
        canvas.text(x1 + 7, ey + 4, end, fill=PAPER, bold=True, cls="running-end")
    canvas.text((x0 + x1) / 2, bottom + 34, "request", anchor="middle", fill=MUTED, cls="axis")
    return canvas.document(canvas.caption(bottom + 58, caption) + 4)


def estimate_svg(report: Report) -> str:
    """An estimate: each request's cost stacked by what it paid for, the running total as a line."""
    rows = stacks(report)
    parts = [PARTS[i] for i in used_parts(rows)]
    return _columns(
        estimate_title(report),
        "Cost per request (bars, left axis) and the running total (line, right axis)",
        rows,
        parts,
        estimate_caption(report),
    )


def replay_svg(report: ReplayReport) -> str:
    """A replayed run: each request's cost and the running total."""
    t = report.totals
    s = "" if t.requests == 1 else "s"
    return _columns(
        f"Replay · {os.path.basename(report.path)} · {report.model}",
        "Cost per request (bars, left axis) and the running total (line, right axis)",
        replay_stacks(report),
        [COST],
        f"Total {fmt.usd(t.cost_usd)} for {t.requests:,} request{s}.",
    )


# --------------------------------------------------------------------------------------------
# Rows: horizontal bars per model, per scenario, base vs head
# --------------------------------------------------------------------------------------------


def _rows(title: str, subtitle: str, groups: Sequence[Group], parts: Sequence[Part], caption: str) -> str:
    canvas = Canvas(760, title)
    y = canvas.heading(title, subtitle)
    if len(parts) > 1:
        y = canvas.legend(y + 4, parts)
    values = {id(b): b.text for g in groups for b in g.bars}
    labels = [clip(g.label, 36) for g in groups]
    label_w = min(260.0, max((width_of(t) for t in labels), default=0.0))
    note_w = max((width_of(g.note) for g in groups), default=0.0)
    value_w = max((width_of(v) for v in values.values()), default=0.0)
    x0 = PAD + label_w + 12
    x1 = canvas.width - PAD - (note_w + 16 if note_w else 0) - value_w - 8
    axis = ticks(
        max((b.cost_usd for g in groups for b in g.bars if b.cost_usd is not None), default=Decimal(0))
    )
    scale = (x1 - x0) / float(axis[-1])
    top = y + 12
    bottom = top + sum(8 + 20 * len(g.bars) for g in groups) + 4
    for tick in axis:
        tx = x0 + float(tick) * scale
        canvas.line(tx, top - 4, tx, bottom)
        canvas.text(tx, bottom + 16, tick_label(tick, axis), anchor="middle", fill=MUTED, cls="tick")
    canvas.line(x0, top - 4, x0, bottom, MUTED)
    y = top + 4
    for g, label in zip(groups, labels, strict=True):
        middle = y + 10 * len(g.bars)
        canvas.text(PAD, middle + 4, label, cls="label")
        if g.note:
            canvas.text(canvas.width - PAD, middle + 4, g.note, anchor="end", bold=True, cls="note")
        for b in g.bars:
            length = 0.0 if b.cost_usd is None else float(b.cost_usd) * scale
            canvas.open("bar", f"{g.label} · {b.label}: {values[id(b)]}")
            canvas.rect(x0, y, max(length, 1.0 if b.cost_usd is not None else 0.0), 16, b.part.colour, "seg")
            canvas.close()
            canvas.text(x0 + length + 6, y + 12.5, values[id(b)], cls="value")
            y += 20
        y += 8
    return canvas.document(canvas.caption(bottom + 44, caption) + 4)


def compare_svg(report: CompareReport) -> str:
    """A bar per model: what one run costs, cheapest first."""
    return _rows(
        compare_title(report),
        "Cost per run, per model",
        compare_groups(report),
        [COST],
        compare_caption(report),
    )


def batch_svg(report: BatchReport) -> str:
    """A bar per scenario: what one run costs."""
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
