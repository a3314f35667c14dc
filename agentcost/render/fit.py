"""Tables that fit the terminal they are printed on, and never cut a number.

A :class:`FitTable` is laid out when Rich renders it, for the width it is given (a terminal's, or
``render_text``'s). Number columns keep their full width; free-text columns fold onto more lines.
When the columns do not fit, headers take their short forms, then columns are dropped in the order
their ``drop`` rank says (secondary ones first) and the table says which; when even the essential
columns do not fit, each row is stacked as ``header: value`` lines. Nothing is ever shown with ``…``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from rich import box
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.table import Table
from rich.text import Text

Cell = str | Text
SECTION = None
"""A row of ``None`` in :class:`FitTable` rows draws a section line there."""

_PADDING = 2  # one space either side of every cell


@dataclass(frozen=True)
class Col:
    """One column. ``drop`` 0 is always shown; higher ranks are dropped first when space is short.
    ``text`` columns hold free text (names, labels) that may fold onto several lines, no narrower
    than ``min_width``; all other columns are as wide as their widest cell, so a number is always
    whole on one line (their headers may wrap at spaces)."""

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


def _longest_word(header: str) -> int:
    return max((cell_len(w) for w in header.split()), default=0)


@dataclass(frozen=True)
class _Plan:
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
        header = col.short if short and col.short else col.header
        cells = [r[i] for r in self.rows if r is not None]
        if self.show_footer:
            cells.append(col.footer)
        return max([_longest_word(header), *map(_width, cells), 1])

    def _need(self, i: int, short: bool) -> int:
        natural = self._natural(i, short)
        col = self.columns[i]
        if col.text:
            header = col.short if short and col.short else col.header
            return min(natural, max(col.min_width, _longest_word(header)))
        return natural

    def plan(self, width: int) -> _Plan | None:
        """The columns and widths that fit ``width`` cells, or None when even the essential columns
        do not (the table is then stacked)."""
        shown = list(range(len(self.columns)))
        dropped: list[str] = []
        while True:
            for short in (False, True):
                needs = [self._need(i, short) for i in shown]
                chrome = len(shown) * _PADDING + len(shown) + 1
                if sum(needs) + chrome <= width:
                    return self._widen(shown, needs, width - chrome, short, dropped)
            droppable = [i for i in shown if self.columns[i].drop > 0]
            if not droppable:
                return None
            worst = max(droppable, key=lambda i: (self.columns[i].drop, i))
            shown.remove(worst)
            dropped.append(self.columns[worst].header)

    def _widen(self, shown: list[int], needs: list[int], room: int, short: bool, dropped: list[str]) -> _Plan:
        """Give the room left to text columns, up to their natural widths, left to right."""
        widths = list(needs)
        spare = room - sum(needs)
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
        table = Table(
            title=self.title,
            title_justify="left",
            show_footer=self.show_footer,
            header_style="bold",
            box=box.HEAVY_HEAD,
        )
        for i, w in zip(plan.columns, plan.widths, strict=True):
            col = self.columns[i]
            table.add_column(
                col.short if plan.short and col.short else col.header,
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
        """Each row as ``header: value`` lines: every value whole at any width."""
        if self.title is not None:
            yield self.title if isinstance(self.title, Text) else Text(self.title)
        label = max(cell_len(c.header) for c in self.columns)
        blocks = [r for r in self.rows if r is not None]
        if self.show_footer:
            blocks.append([c.footer for c in self.columns])
        for n, row in enumerate(blocks):
            if n:
                yield Text("")
            for col, cell in zip(self.columns, row, strict=True):
                if not _width(cell):
                    continue
                line = Text(f"{col.header:<{label}}  ", style="bold")
                line.append_text(cell if isinstance(cell, Text) else Text(cell))
                yield line


def abbreviated(col: Col, short: str) -> Col:
    """``col`` with a short header (for columns built from a shared template)."""
    return replace(col, short=short)
