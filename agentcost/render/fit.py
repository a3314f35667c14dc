"""Tables that fit the terminal they are printed on, and never cut a number.

A :class:`FitTable` is laid out when Rich renders it, for the width it is given (a terminal's, or
``render_text``'s). Number columns keep their full width; free-text columns fold onto more lines,
between words while that fits (names whole). When the columns do not fit, headers take their short
forms, then columns are dropped in the order their ``drop`` rank says (secondary ones first) and the
table says which; then words in text columns may fold; when even the essential columns do not fit,
each row is stacked as ``header  value`` lines. The title sits above the table, wrapped at the
page's width. Nothing is ever shown with ``…``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Literal

from rich import box
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.table import Table
from rich.text import Text

from agentcost.infra.record import record

Cell = str | Text
SECTION = None
"""A row of ``None`` in :class:`FitTable` rows draws a section line there."""

_PADDING = 2  # one space either side of every cell
WORD_CAP = 24
"""A text column is kept wide enough for its longest word up to this many cells (a tool or model
name stays whole); a longer word folds."""


@record
class Col:
    """One column. ``drop`` 0 is always shown; higher ranks are dropped first when space is short.
    ``text`` columns hold free text (names, labels) that may fold onto several lines, no narrower
    than ``min_width`` nor than their longest word (up to :data:`WORD_CAP` cells: names stay
    whole); all other columns are as wide as their widest cell, so a number is always whole on one
    line (their headers wrap at spaces when there is no room to keep them on one line)."""

    header: str
    short: str | None = None
    justify: Literal["left", "right"] = "right"
    drop: int = 0
    text: bool = False
    min_width: int = 12
    footer: Cell = ""
    style: str | None = None


def _width(cell: Cell) -> int:
    plain = cell.plain if isinstance(cell, Text) else cell
    return max((cell_len(line) for line in plain.split("\n")), default=0)


def _longest_word(text: Cell) -> int:
    plain = text.plain if isinstance(text, Text) else text
    return max((cell_len(w) for w in plain.split()), default=0)


@record
class _Plan:
    """The columns a table shows at a width, their widths, and what was left out."""

    columns: tuple[int, ...]  # indexes of the columns shown
    widths: tuple[int, ...]
    short: bool
    dropped: tuple[str, ...]


class FitTable:
    """A table laid out for the width it is rendered at (see the module's docstring)."""

    def __init__(
        self,
        columns: Sequence[Col],
        rows: Iterable[Sequence[Cell] | None],
        *,
        title: Cell | None = None,
        show_footer: bool = False,
        row_styles: Sequence[str | None] | None = None,
        dropped_note: bool = True,
    ) -> None:
        self.columns = tuple(columns)
        self.rows: list[Sequence[Cell] | None] = list(rows)
        self.title = title
        self.show_footer = show_footer
        self.row_styles = row_styles
        self.dropped_note = dropped_note
        for row in self.rows:
            if row is not None and len(row) != len(self.columns):
                raise ValueError(f"a row has {len(row)} cells for {len(self.columns)} columns")

    # -- layout ---------------------------------------------------------------------------------

    def _natural(self, i: int, short: bool) -> int:
        """The width column ``i`` needs to show every cell whole (text columns: their widest cell)."""
        col = self.columns[i]
        header = self._header(i, short)
        cells = [r[i] for r in self.rows if r is not None]
        if self.show_footer:
            cells.append(col.footer)
        return max([_longest_word(header), *map(_width, cells), 1])

    def _header(self, i: int, short: bool) -> str:
        col = self.columns[i]
        return col.short if short and col.short else col.header

    def _need(self, i: int, short: bool, words: bool) -> int:
        """The narrowest column ``i`` may be: a number column's natural width; a text column's
        ``min_width`` (widened to its longest word when ``words``: names whole), never wider than
        its natural width."""
        natural = self._natural(i, short)
        col = self.columns[i]
        if col.text:
            word = 0
            if words:
                cells = [r[i] for r in self.rows if r is not None]
                if self.show_footer:
                    cells.append(col.footer)
                word = min(WORD_CAP, max(map(_longest_word, cells), default=0))
            return min(natural, max(col.min_width, _longest_word(self._header(i, short)), word))
        return natural

    def plan(self, width: int) -> _Plan | None:
        """The columns and widths that fit ``width`` cells, or None when even the essential columns
        do not (the table is then stacked). Text columns keep their words whole if that fits with
        the essential columns; else their words may fold."""
        shown = list(range(len(self.columns)))
        dropped: list[str] = []
        for words in (True, False):  # the second pass starts from the essential columns alone
            while True:
                for short in (False, True):
                    needs = [self._need(i, short, words) for i in shown]
                    chrome = len(shown) * _PADDING + len(shown) + 1
                    if sum(needs) + chrome <= width:
                        return self._widen(shown, needs, width - chrome, short, dropped)
                droppable = [i for i in shown if self.columns[i].drop > 0]
                if not droppable:
                    break
                worst = max(droppable, key=lambda i: (self.columns[i].drop, i))
                shown.remove(worst)
                dropped.append(" ".join(self.columns[worst].header.split()))
        return None

    def _widen(self, shown: list[int], needs: list[int], room: int, short: bool, dropped: list[str]) -> _Plan:
        """Spend the room left: first on the number columns' headers, if it keeps all of them on one
        line; then on the text columns, up to their natural widths, left to right."""
        widths = list(needs)
        spare = room - sum(needs)
        extras = [
            0 if self.columns[i].text else max(0, _width(self._header(i, short)) - widths[k])
            for k, i in enumerate(shown)
        ]
        if sum(extras) <= spare:
            widths = [w + e for w, e in zip(widths, extras, strict=True)]
            spare -= sum(extras)
        for k, i in enumerate(shown):
            if self.columns[i].text and spare > 0:
                extra = min(spare, self._natural(i, short) - widths[k])
                widths[k] += extra
                spare -= extra
        return _Plan(tuple(shown), tuple(widths), short, tuple(dropped))

    # -- rendering ------------------------------------------------------------------------------

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        plan = self.plan(options.max_width)
        if plan is None:
            yield from self._stacked()
            return
        if self.title is not None:  # above the table, wrapped at the page's width, not the table's
            yield self.title if isinstance(self.title, Text) else Text(self.title, style="table.title")
        table = Table(
            show_footer=self.show_footer,
            header_style="bold",
            box=box.HEAVY_HEAD,
        )
        for i, w in zip(plan.columns, plan.widths, strict=True):
            col = self.columns[i]
            table.add_column(
                self._header(i, plan.short),
                justify=col.justify,
                width=w,
                overflow="fold",
                footer=col.footer,
                style=col.style,
            )
        for n, row in enumerate(self.rows):
            if row is None:
                table.add_section()
                continue
            style = self.row_styles[n] if self.row_styles is not None else None
            table.add_row(*(row[i] for i in plan.columns), style=style)
        yield table
        if plan.dropped and self.dropped_note:
            names = ", ".join(plan.dropped)
            yield Text(
                f"Not shown at {options.max_width} columns: {names} (a wider terminal or --format json).",
                style="dim",
            )

    def _stacked(self) -> RenderResult:
        """Each row as ``header  value`` lines, a value folding under itself: every value whole."""
        if self.title is not None:
            yield self.title if isinstance(self.title, Text) else Text(self.title, style="table.title")
        grid = Table.grid(padding=(0, 2, 0, 0))
        grid.add_column(style="bold", no_wrap=True)
        grid.add_column(overflow="fold")
        names = [" ".join(c.header.split()) for c in self.columns]
        blocks = [r for r in self.rows if r is not None]
        if self.show_footer:
            blocks.append([c.footer for c in self.columns])
        for n, row in enumerate(blocks):
            if n:
                grid.add_row("", "")
            for name, cell in zip(names, row, strict=True):
                if _width(cell):
                    grid.add_row(name, cell)
        yield grid


def abbreviated(col: Col, short: str) -> Col:
    """``col`` with a short header (for columns built from a shared template)."""
    return replace(col, short=short)


_BREAKS = re.compile(r"[^./:_@-]*[./:_@-]+|[^./:_@-]+")


def wrap_id(text: str, width: int | None) -> str:
    """``text`` on lines of at most ``width`` cells: broken at spaces first, and a word wider than
    the line after a separator (``. - / : _ @``), never inside a part between two separators unless
    that part alone is wider (then folded, as Rich folds): ``regional.anthropic.`` /
    ``claude-sonnet-4-5-`` / ``20250929-v1:0``; ``priced as`` / ``x-ai/grok-4-0709``. ``None``:
    one line."""
    if width is None or cell_len(text) <= width:
        return text
    lines: list[str] = []
    line = ""
    for word in text.split():
        if line and cell_len(line) + 1 + cell_len(word) <= width:
            line += " " + word
            continue
        if line:
            lines.append(line)
            line = ""
        for part in _BREAKS.findall(word):  # the word on lines of its own, broken after separators
            if line and cell_len(line) + cell_len(part) > width:
                lines.append(line)
                line = ""
            while cell_len(line + part) > width:  # a part wider than the line: folded
                room = max(1, width - cell_len(line))
                lines.append(line + part[:room])
                line, part = "", part[room:]
            line += part
    if line:
        lines.append(line)
    return "\n".join(lines)
