"""A long :class:`~agentcost.render.fit.FitTable` drawn in linear time: the same lines, written directly.

Rich's ``Table`` measures and wraps every cell of every row (about 1 ms a row), which a ledger of
100,000 requests cannot afford. :class:`LongTable` measures each column in one pass over its cells,
lets ``FitTable.plan`` choose the columns and widths from each column's widest cells (the plan depends
on nothing else), and when every number fits its column on one line writes the rows itself
with the same box characters, padding and justification as Rich (``tests/test_long_ledgers.py``
compares the two; a header wraps as Rich wraps it, and so does a name too long for its text column:
``agentcost models --all`` at 60 columns). Otherwise (a number that folds, a styled name that folds
in colour, a stacked layout, a cell of several lines) it hands the table to Rich as it is.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from rich import box
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from agentcost.render.fit import Cell, FitTable, _longest_word


def _plain(cell: Cell) -> str:
    return cell.plain if isinstance(cell, Text) else cell


def _len(text: str) -> int:
    return len(text) if text.isascii() else cell_len(text)


class LongTable:
    """``table`` as Rich would draw it, in time linear in its cells (see the module's docstring)."""

    def __init__(self, table: FitTable) -> None:
        self.table = table

    def _proxy(self) -> tuple[FitTable, list[int]] | None:
        """A two-row table with the plan of ``table`` (each column's widest cell, and its cell with the
        longest word), and each column's widest cell; None when a cell has several lines."""
        t = self.table
        n = len(t.columns)
        widest: list[Cell] = [""] * n
        wide = [0] * n
        wordy: list[Cell] = [""] * n
        word = [0] * n
        for row in t.rows:
            if row is None:
                continue
            for i, cell in enumerate(row):
                plain = _plain(cell)
                if "\n" in plain:
                    return None
                w = _len(plain)
                if w > wide[i]:
                    wide[i], widest[i] = w, cell
                if t.columns[i].text and w > word[i]:
                    longest = _longest_word(plain)
                    if longest > word[i]:
                        word[i], wordy[i] = longest, cell
        proxy = FitTable(
            t.columns, [widest, wordy], title=t.title, show_footer=t.show_footer, dropped_note=t.dropped_note
        )
        return proxy, wide

    def _plain_column(self, i: int) -> bool:
        """Whether column ``i``'s cells carry no style of their own: a text column's cells then fold
        here as Rich folds them (without colour, any column's)."""
        return all(
            row is None or not isinstance(row[i], Text) or not (row[i].style or row[i].spans)  # type: ignore[union-attr]
            for row in self.table.rows
        )

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        t = self.table
        found = self._proxy() if t.row_styles is None else None
        plan = found[0].plan(options.max_width) if found is not None else None
        if found is None or plan is None:
            yield t
            return
        _, wide = found
        headers = [found[0]._header(i, plan.short) for i in plan.columns]
        for k, i in enumerate(plan.columns):
            w = plan.widths[k]
            unstyled = console.color_system is None or self._plain_column(i)
            if wide[i] > w and not (t.columns[i].text and unstyled):
                yield t  # a number would fold, or a styled name wrap in colour: Rich lays it out
                return
        if t.title is not None:
            yield t.title if isinstance(t.title, Text) else Text(t.title, style="table.title")
        yield from self._lines(console, options, plan.columns, plan.widths, headers)
        if plan.dropped and t.dropped_note:
            names = ", ".join(plan.dropped)
            yield Text(
                f"Not shown at {options.max_width} columns: {names} (a wider terminal or --format json).",
                style="dim",
            )

    def _lines(
        self,
        console: Console,
        options: ConsoleOptions,
        shown: Sequence[int],
        widths: Sequence[int],
        headers: Sequence[str],
    ) -> Iterator[Segment]:
        t = self.table
        edges = box.HEAVY_HEAD.substitute(options, safe=True)
        new_line = Segment.line()
        rules = [w + 2 for w in widths]  # a cell's padding: one space either side
        right = [t.columns[i].justify == "right" for i in shown]
        named = [t.columns[i].style for i in shown]
        styles = [None if name is None else console.get_style(name) for name in named]
        bold = console.get_style("bold")
        foot = console.get_style("table.footer")

        def line(
            cells: Sequence[str | None], left: str, sep: str, end: str, style: Sequence[Style | None]
        ) -> Iterator[Segment]:
            """One line of a row; a cell of None is a blank line below (or above) a wrapped cell."""
            if console.color_system is None:  # no styles shown: the line as one segment
                yield Segment(left + sep.join(justified(cells)) + end)
                yield new_line
                return
            yield Segment(left)
            for k, text in enumerate(cells):
                if k:
                    yield Segment(sep)
                if text is None:  # Rich draws it as one run of spaces
                    yield Segment(" " * (widths[k] + 2), style[k])
                    continue
                pad = " " * (widths[k] - _len(text))
                body = pad + text if right[k] else text + pad
                if style[k] is None:
                    yield Segment(f" {body} ")
                else:  # as Rich splits it: the same escape codes
                    yield from (Segment(" ", style[k]), Segment(body, style[k]), Segment(" ", style[k]))
            yield Segment(end)
            yield new_line

        def justified(cells: Sequence[str | None]) -> Iterator[str]:
            for k, cell in enumerate(cells):
                text = cell or ""
                pad = " " * (widths[k] - _len(text))
                yield f" {pad}{text} " if right[k] else f" {text}{pad} "

        yield Segment(edges.get_top(rules))
        yield new_line

        def wrapped(cells: Sequence[str], bottom: bool = False) -> Iterator[list[str | None]]:
            """The lines of a row whose cells may be wider than their columns (a header, the footer):
            each cell wrapped at spaces as Rich wraps it, shorter cells padded below (``bottom``:
            above, as Rich aligns headers)."""
            split: list[list[str | None]] = [
                [c] if _len(c) <= w else [x.plain.rstrip() for x in Text(c).wrap(console, w, overflow="fold")]
                for c, w in zip(cells, widths, strict=True)
            ]
            height = max(map(len, split))
            blank: list[str | None] = [None]
            padded = [
                blank * (height - len(lines)) + lines if bottom else lines + blank * (height - len(lines))
                for lines in split
            ]
            for n in range(height):
                yield [lines[n] for lines in padded]

        for heads in wrapped(headers, bottom=True):
            yield from line(
                heads, edges.head_left, edges.head_vertical, edges.head_right, [bold] * len(shown)
            )
        yield Segment(edges.get_row(rules, "head"))
        yield new_line
        for row in t.rows:
            if row is None:
                yield Segment(edges.get_row(rules, "row"))
                yield new_line
                continue
            cells = [_plain(row[i]) for i in shown]
            if any(_len(c) > w for c, w in zip(cells, widths, strict=True)):  # a name folds
                for folded in wrapped(cells):
                    yield from line(folded, edges.mid_left, edges.mid_vertical, edges.mid_right, styles)
                continue
            yield from line(cells, edges.mid_left, edges.mid_vertical, edges.mid_right, styles)
        if t.show_footer:
            yield Segment(edges.get_row(rules, "foot"))
            yield new_line
            for feet in wrapped([_plain(t.columns[i].footer) for i in shown]):
                yield from line(
                    feet, edges.foot_left, edges.foot_vertical, edges.foot_right, [foot] * len(shown)
                )
        yield Segment(edges.get_bottom(rules))
        yield new_line
