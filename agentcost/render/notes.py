"""An estimate's notes as Rich text under its table: the essential lines, or every line with ``--verbose``.

Which line is essential and which a detail is decided in :mod:`agentcost.report.notes`; this module
only picks, orders and styles them. By default: the total, the budget, the price source, then at most
:data:`~agentcost.report.notes.MAX_SHORT_NOTES` short notes, warnings among them (the first warning,
and how many more ``--verbose`` shows).
"""

from __future__ import annotations

from rich.text import Text

from agentcost.infra.text import rich
from agentcost.report.estimate import Report
from agentcost.report.notes import MAX_SHORT_NOTES, OVER_BUDGET, Note, estimate_notes

HEAD = ("total", "budget", "prices")
MORE = "Details: --verbose."


def notes(report: Report, *, verbose: bool = False) -> Text:
    """The lines under the table: every note with ``verbose``, else the essential ones and the
    warnings (the first, then how many more)."""
    every = estimate_notes(report)
    if verbose:
        shown = [n for n in every if not (report.warnings_apart and n.level == "warning")]
        return Text("\n").join(_styled(n) for n in shown)
    head = [n for n in every if n.level == "essential" and n.kind in HEAD]
    short = [n for n in every if n.level == "essential" and n.kind not in HEAD]
    warnings = [] if report.warnings_apart else [n for n in every if n.level == "warning"]
    more: str | None = None
    if len(warnings) > 1:
        others = len(warnings) - 1
        more = f"{others} more warning{'' if others == 1 else 's'}: --verbose."
    room = MAX_SHORT_NOTES - min(len(warnings), 1) - (more is not None)
    lines = [_styled(n, hint=n.kind == "prices") for n in head]
    lines += [_styled(n) for n in short[: max(room, 0)]]
    lines += [_styled(n) for n in warnings[:1]]
    if more is not None:
        lines.append(rich(more))
    return Text("\n").join(lines)


def warning_lines(report: Report) -> tuple[str, ...]:
    """The warnings the table leaves out (``warnings_apart``), one line each: the CLI prints them on
    stderr. None when the table shows them."""
    if not report.warnings_apart:
        return ()
    return tuple(n.text for n in estimate_notes(report) if n.level == "warning")


def _styled(note: Note, *, hint: bool = False) -> Text:
    """One line, shown escaped (names from input files are in it): a budget's verdict in colour,
    the approximate-count note dim, a warning with its label."""
    if note.level == "warning":
        return rich(f"Warning: {note.text}")
    text = rich(f"{note.text} {MORE}" if hint else note.text)
    if note.kind == "budget":
        text.highlight_words([OVER_BUDGET], "bold red")
        text.highlight_words(["within budget"], "green")
    elif note.kind == "approximate":
        text.stylize("dim")
    return text
