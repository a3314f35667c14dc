"""Bar charts of dollars for the terminal (``--chart``): per request, per model, per scenario, base vs head.

Every number a chart shows is a report field, formatted by ``fmt``. The bars are layout: their
lengths are floats scaled to the longest bar, and a request's bar is split in proportion to what
its tokens cost at the model's list rates (uncached input, cache reads, cache writes, output; the
rest of its cost, when the run pays server-tool fees, as fees), stretched to the request's exact
cost. The report carries each request's cost, not its parts, so the split is drawn, never shown
as a number. :mod:`agentcost.render.svg` draws the same data as SVG.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from decimal import Decimal
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.console import Group as RichGroup
from rich.text import Text

from agentcost.infra.record import record
from agentcost.infra.text import plain, rich
from agentcost.report import fmt
from agentcost.report.estimate import BudgetLine, Report, RequestLine

if TYPE_CHECKING:
    from agentcost.report.batch import BatchReport
    from agentcost.report.compare import CompareReport
    from agentcost.report.diff import DiffReport
    from agentcost.report.replay import ReplayReport


@record
class Part:
    """One kind of spending in a stacked bar: its name, terminal glyph and style, and SVG colour."""

    label: str
    glyph: str
    style: str
    colour: str  # Okabe-Ito: told apart with the common colour-vision deficiencies


PARTS = (
    Part("input not cached", "▓", "yellow", "#E69F00"),
    Part("cache read", "█", "green", "#009E73"),
    Part("cache write", "▒", "cyan", "#56B4E9"),
    Part("output", "░", "magenta", "#CC79A7"),
    Part("server-tool fees", "▞", "red", "#D55E00"),
)
FEES = 4  # the index of server-tool fees in PARTS
SPLIT = (  # an estimate's cost split (agentcost.loop.carry): what the run's dollars paid for
    Part("fixed prefix", "█", "blue", "#0072B2"),
    Part("re-sent history", "▓", "yellow", "#E69F00"),
    Part("output", "░", "magenta", "#CC79A7"),
    Part("fees and cache storage", "▞", "red", "#D55E00"),
)
COST = Part("cost", "█", "blue", "#0072B2")  # an unsplit bar: a model, a scenario, a replayed request
BASE = Part("base", "▒", "bright_black", "#8C8C8C")  # diff: before the change
HEAD = Part("head", "█", "blue", "#0072B2")  # diff: after it


# --------------------------------------------------------------------------------------------
# What the charts draw (shared with agentcost.render.svg)
# --------------------------------------------------------------------------------------------


@record
class Stack:
    """One request's bar: ``sizes`` per :data:`PARTS` (floats summing to its cost, layout only)
    and the figures shown, from the report."""

    index: int
    label: str  # what the request did (tools called), for a tooltip
    sizes: tuple[float, ...]
    cost_usd: Decimal
    running_usd: Decimal


@record
class Bar:
    """One horizontal bar: a model, a scenario, or one side of a diff (``cost_usd`` None: absent),
    and its figure as shown."""

    label: str
    cost_usd: Decimal | None
    text: str
    part: Part = COST
    budget_usd: Decimal | None = None  # the budget this bar's cost is judged against, if any


@record
class Group:
    """Bars drawn together under one label, with a note (a diff's change)."""

    label: str
    bars: tuple[Bar, ...]
    note: str = ""


def _sizes(r: RequestLine) -> tuple[float, ...]:
    """The request's bar split by :data:`PARTS`: the report's figures (agentcost.report.split) as
    floats, for layout only; the figure shown is the request's own ``cost_usd``."""
    if r.parts is None:
        return (float(r.cost_usd), *(0.0 for _ in PARTS[1:]))
    return tuple(float(part) for part in r.parts.as_tuple())


def stacks(report: Report) -> tuple[Stack, ...]:
    """A bar per request of an estimate."""
    return tuple(Stack(r.index, r.label, _sizes(r), r.cost_usd, r.running_usd) for r in report.requests)


def replay_stacks(report: ReplayReport) -> tuple[Stack, ...]:
    """A bar per replayed request, unsplit (the first part holds it all)."""
    return tuple(
        Stack(
            r.index,
            r.tool or "",
            (float(r.cost_usd), *(0.0 for _ in PARTS[1:])),
            r.cost_usd,
            r.running_usd,
        )
        for r in report.requests
    )


def estimate_title(report: Report) -> str:
    """``Fix POST /orders validation · claude-sonnet-4-5``"""
    return f"{report.scenario_name or report.scenario_path} · {report.model_id}"


def estimate_caption(report: Report) -> str:
    """The run's total, and what it holds beyond the bars."""
    t = report.totals
    s = "" if t.requests == 1 else "s"
    parts = [f"Total {fmt.usd(t.cost_usd)} for {t.requests:,} request{s}"]
    if t.subagent_requests or t.subagents_usd:
        parts.append(
            f"{t.subagent_requests:,} of them by subagents, {fmt.usd(t.subagents_usd)}"
            " (in the running total, not in the bars)"
        )
    if t.fees_usd:
        parts.append(f"server-tool fees {fmt.usd(t.fees_usd)}")
    if t.explicit_cache_usd:
        parts.append(f"explicit cache {fmt.usd(t.explicit_cache_usd)} (not in the bars)")
    return "; ".join(parts) + "."


def used_parts(rows: Sequence[Stack]) -> tuple[int, ...]:
    """The indexes of the parts some bar has (the legend lists only those)."""
    return tuple(i for i in range(len(PARTS)) if any(s.sizes[i] > 0 for s in rows)) or (0,)


def _limit(budget: BudgetLine | None) -> Decimal | None:
    return None if budget is None else budget.limit_usd


def compare_groups(report: CompareReport) -> tuple[Group, ...]:
    """A bar per model as typed, cheapest first (the report's order), each with the budget it is
    judged by; then the models the scenario cannot run on, without a bar, marked ``unfit``."""
    compared = tuple(
        Group(
            row.model,
            (Bar(row.model, row.cost_usd, fmt.usd(row.cost_usd), budget_usd=_limit(row.report.budget)),),
        )
        for row in report.rows
    )
    return compared + tuple(Group(u.model, (Bar(u.model, None, "unfit"),)) for u in report.unfit)


def batch_groups(report: BatchReport) -> tuple[Group, ...]:
    """A bar per scenario, in the project's order, each with its own budget."""
    return tuple(
        Group(row.name, (Bar(row.name, row.cost_usd, fmt.usd(row.cost_usd), budget_usd=_limit(row.budget)),))
        for row in report.rows
    )


def diff_groups(report: DiffReport) -> tuple[Group, ...]:
    """Per scenario, its base and head bars and the change."""
    from agentcost.report.fmt import signed_percent

    groups = []
    for s in report.scenarios:
        change = fmt.signed_usd(s.change.cost_usd)
        if s.status in ("added", "removed"):
            change += f" ({s.status})"
        elif s.change_fraction is not None:
            change += f" ({signed_percent(s.change_fraction)})"
        before, after = fmt.usd(s.before_usd), fmt.usd(s.after_usd)
        if s.before_usd is not None and s.after_usd is not None:
            before, after = fmt.usd_pair(s.before_usd, s.after_usd)  # two amounts never read the same
        bars = (
            Bar("base", s.before_usd, before, BASE, _limit(s.base.budget if s.base else None)),
            Bar("head", s.after_usd, after, HEAD, _limit(s.head.budget if s.head else None)),
        )
        groups.append(Group(s.name or s.path, bars, change))
    return tuple(groups)


def diff_title(report: DiffReport) -> str:
    return f"Cost per run: {report.base_label} {fmt.ARROW} {report.head_label}"


def diff_legend(report: DiffReport) -> tuple[Part, Part]:
    """The two sides, named as the report names them (``base: origin/main``)."""
    return replace(BASE, label=f"base: {report.base_label}"), replace(
        HEAD, label=f"head: {report.head_label}"
    )


def diff_caption(report: DiffReport) -> str:
    from agentcost.report.fmt import signed_percent

    t = report.totals
    change = fmt.signed_usd(t.change.cost_usd)
    if t.change_fraction is not None:
        change += f" ({signed_percent(t.change_fraction)})"
    before, after = fmt.usd_pair(t.before_usd, t.after_usd)
    return f"Total {before} {fmt.ARROW} {after}: {change}."


def batch_title(report: BatchReport) -> str:
    if report.project is not None:
        return f"{report.project.name or report.project.path} · cost per run"
    return "Cost per run, per scenario"


def batch_caption(report: BatchReport) -> str:
    t = report.totals
    text = f"Total {fmt.usd(t.cost_usd)} for one run of every scenario"
    if t.cost_per_month_usd is not None:
        text += f"; {fmt.usd(t.cost_per_month_usd)} per month"
    if report.project is not None and report.project.budget is not None:
        text += f"; the project's budget {fmt.usd(report.project.budget.limit_usd)} is for that total"
    return text + "."


def compare_title(report: CompareReport) -> str:
    return f"{report.scenario_name or report.scenario_path} · cost per run, cheapest first"


def compare_caption(report: CompareReport) -> str:
    best = report.cheapest
    return f"Cheapest: {best.model} at {fmt.usd(best.cost_usd)} {report.unit_text}."


# --------------------------------------------------------------------------------------------
# Drawing in the terminal
# --------------------------------------------------------------------------------------------


@record
class _Row:
    label: str  # a name (left aligned) or a request number (right aligned)
    sizes: tuple[tuple[float, Part], ...]  # the bar; empty: no bar
    numbers: tuple[str, ...]  # right-aligned columns after the bar
    heading: bool = False  # a group's label line: label, then its numbers, no bar


class _Chart:
    """Rows of ``label bar numbers``: the bar takes the width the console leaves, numbers never cut."""

    def __init__(
        self,
        title: str,
        rows: Sequence[_Row],
        legend: Sequence[Part],
        caption: str,
        header: Sequence[str] = (),
    ) -> None:
        self.title, self.rows, self.legend, self.caption, self.header = title, rows, legend, caption, header

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        yield Text("")
        yield rich(self.title, "bold")
        bars = [r for r in self.rows if not r.heading]
        columns = max((len(r.numbers) for r in bars), default=0)
        numbers = [max((cell_len(r.numbers[c]) for r in bars), default=0) for c in range(columns)]
        if self.header:
            numbers = [max(n, cell_len(h)) for n, h in zip(numbers, self.header[1:], strict=False)]
        wanted = max((cell_len(r.label) for r in bars), default=0)
        fixed = sum(numbers) + columns + 1  # a space before each number column, one after the label
        label_w = max(1, min(wanted, max(8, width // 3), width - fixed - 8))
        bar_w = max(1, width - fixed - label_w)
        top = max((sum(s for s, _ in r.sizes) for r in bars), default=0.0)
        scale = bar_w / top if top > 0 else 0.0
        if self.header:
            line = Text(_fit(self.header[0], label_w).rjust(label_w) + " " + " " * bar_w, style="dim")
            for head, n in zip(self.header[1:], numbers, strict=False):
                line.append(" " + head.rjust(n), style="dim")
            yield line
        for row in self.rows:
            if row.heading:
                yield from self._heading(row, width)
            else:
                yield from self._row(row, label_w, bar_w, numbers, scale)
        if len(self.legend) > 1:
            key = Text()
            for n, part in enumerate(self.legend):
                key.append("  " if n else "")
                key.append(f"{part.glyph} {plain(part.label)}", style=part.style)
            yield key
        if self.caption:
            yield rich(self.caption)

    @staticmethod
    def _heading(row: _Row, width: int) -> Iterator[Text]:
        note = " ".join(row.numbers)
        room = max(1, width - cell_len(note) - 2)
        *first, last = _wrap(row.label, room)
        yield from (Text(part, style="bold") for part in first)
        line = Text(last, style="bold")
        if note:
            line.append("  " + note)
        yield line

    @staticmethod
    def _row(row: _Row, label_w: int, bar_w: int, numbers: Sequence[int], scale: float) -> Iterator[Text]:
        label, *more = _wrap(row.label, label_w)  # a long label goes on under its bar, whole
        line = Text((label.rjust if row.label.isdigit() else label.ljust)(label_w) + " ")
        drawn = 0
        so_far = 0.0
        for size, part in row.sizes:
            so_far += size
            end = min(bar_w, round(so_far * scale))
            line.append(part.glyph * (end - drawn), style=part.style)
            drawn = max(drawn, end)
        line.append(" " * (bar_w - drawn))
        for text, n in zip(row.numbers, numbers, strict=False):
            line.append(" " + text.rjust(n))
        yield line
        yield from (Text(part) for part in more)


def _fit(label: str, width: int) -> str:
    """``label`` as plain text in at most ``width`` cells, an ellipsis marking a cut."""
    text = plain(label)
    if cell_len(text) <= width:
        return text
    out = ""
    for char in text:
        if cell_len(out + char) > width - 1:
            break
        out += char
    return out + "…"


def _wrap(label: str, width: int) -> list[str]:
    """``label`` as plain text in lines of at most ``width`` cells: broken between words, a word too
    long after ``/ - _ . :`` where it can, else between characters. Nothing is cut."""
    lines: list[str] = []
    for word in plain(label).split(" "):
        if lines and cell_len(f"{lines[-1]} {word}") <= width:
            lines[-1] += " " + word
            continue
        while len(word) > 1 and cell_len(word) > width:
            fits = 1
            while cell_len(word[: fits + 1]) <= width:
                fits += 1
            cut = max((n + 1 for n in range(fits) if word[n] in "/-_.:"), default=fits)
            lines.append(word[:cut])
            word = word[cut:]
        lines.append(word)
    return lines or [""]


def _stack_rows(rows: Sequence[Stack]) -> Iterator[_Row]:
    for s in rows:
        sizes = tuple((size, part) for size, part in zip(s.sizes, PARTS, strict=True))
        yield _Row(str(s.index), sizes, (fmt.usd(s.cost_usd), fmt.usd(s.running_usd)))


def render_chart(report: Report) -> RenderableType:
    """An estimate: each request's cost stacked by what it paid for, and the running total; then the
    run's cost split into the fixed prefix, the re-sent history and output (:func:`split_chart`)."""
    rows = stacks(report)
    legend = [PARTS[i] for i in used_parts(rows)]
    chart = _Chart(
        f"Cost per request · {estimate_title(report)}",
        list(_stack_rows(rows)),
        legend,
        estimate_caption(report),
        header=("#", "cost", "running"),
    )
    split = split_chart(report)
    return chart if split is None else RichGroup(chart, split)


def split_bars(report: Report) -> tuple[tuple[Part, Decimal, Decimal | None], ...]:
    """The run's cost split (the report's ``carry``, subagents included): each part with its dollars
    and its share of the cost; fees and cache storage only when the run pays any."""
    carry = report.carry
    if carry is None:
        return ()
    s = carry.split
    parts = [(SPLIT[0], s.fixed_usd), (SPLIT[1], s.history_usd), (SPLIT[2], s.output_usd)]
    if s.other_usd:
        parts.append((SPLIT[3], s.other_usd))
    return tuple((part, usd, s.fraction(usd)) for part, usd in parts)


def split_caption(report: Report) -> str:
    """The cost split in one sentence, for the SVG's caption: ``Split: fixed prefix $0.0021 (0.6%), ...``."""
    bars = split_bars(report)
    if not bars:
        return ""
    parts = [f"{p.label} {fmt.usd(usd)} ({fmt.percent(share)})" for p, usd, share in bars]
    return "Split: " + ", ".join(parts) + "."


def split_chart(report: Report) -> _Chart | None:
    """A bar per part of the run's cost: the fixed prefix, the history re-sent, output (and fees)."""
    bars = split_bars(report)
    if not bars:
        return None
    rows = [
        _Row(part.label, ((float(usd), part),), (fmt.usd(usd), fmt.percent(share)))
        for part, usd, share in bars
    ]
    return _Chart(
        "Cost split · what the run's dollars carried",
        rows,
        [],
        "Fixed prefix: tools, system, task; history: every round's call and result, re-sent in each"
        " later request (the blocks: --format json carry, --explain).",
    )


def _group_rows(groups: Sequence[Group]) -> Iterator[_Row]:
    for g in groups:
        if len(g.bars) == 1:
            bar = g.bars[0]
            size = 0.0 if bar.cost_usd is None else float(bar.cost_usd)
            yield _Row(g.label, ((size, bar.part),), (bar.text,))
            continue
        yield _Row(g.label, (), (g.note,), heading=True)
        for bar in g.bars:
            size = 0.0 if bar.cost_usd is None else float(bar.cost_usd)
            yield _Row(bar.label, ((size, bar.part),), (bar.text,))


def compare_chart(report: CompareReport) -> _Chart:
    """A bar per model: what one run costs, cheapest first."""
    return _Chart(
        compare_title(report), list(_group_rows(compare_groups(report))), [COST], compare_caption(report)
    )


def batch_chart(report: BatchReport) -> _Chart:
    """A bar per scenario: what one run costs."""
    return _Chart(batch_title(report), list(_group_rows(batch_groups(report))), [COST], batch_caption(report))


def diff_chart(report: DiffReport) -> _Chart:
    """Per scenario, the cost of a run before and after, and the change."""
    return _Chart(
        diff_title(report), list(_group_rows(diff_groups(report))), diff_legend(report), diff_caption(report)
    )
