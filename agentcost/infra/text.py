"""One sanitizer for every text that leaves agentcost: names, paths and messages from input files.

CI runs agentcost on files a pull request's author controls, and its output lands in terminals, CI
logs (where GitHub Actions executes ``::command::`` lines) and pull-request comments. So every text
taken from data goes out through one function per medium:

- :func:`plain`: terminals, plain text, CSV cells, stderr lines. Anything not printable (control
  characters with ESC, NUL, DEL and C1, bidi overrides and isolates, zero-width and other format
  characters, line and paragraph separators, newlines and tabs) is shown escaped (``\\x1b``,
  ``\\u202e``, ``\\n``), so that the text is one line of what it says and nothing else. The legacy
  workflow command ``##[``, which GitHub runs from anywhere in a line, is shown as ``#\\x23[``.
- :func:`markdown`, :func:`markdown_code`, :func:`html`: Markdown reports and PR comments; HTML and
  Markdown specials escaped, ``@mentions`` neutralised.
- :class:`CsvWriter`: CSV rows whose text cells are :func:`csv_cell`: :func:`plain`, and never the
  start of a spreadsheet formula.
- :func:`rich`: a Rich ``Text`` of :func:`plain`, never parsed as Rich markup or emoji codes.
- :func:`workflow_data`, :func:`workflow_property`: the parts of a ``::error`` annotation.
- :func:`guard`: the last pass over a whole output text. It escapes any control or bidi character
  a renderer let through and makes sure no line can start a GitHub workflow command: renderers may
  wrap long lines (Rich does), so a field from the middle of a line can start one.
"""

from __future__ import annotations

import functools
import io
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from rich.text import Text

__all__ = [
    "ZERO_WIDTH_SPACE",
    "CsvWriter",
    "Medium",
    "csv_cell",
    "display_name",
    "guard",
    "html",
    "markdown",
    "markdown_code",
    "plain",
    "rich",
    "workflow_data",
    "workflow_property",
]

Medium = Literal["text", "terminal", "markdown", "svg", "csv", "json"]
"""``terminal``: Rich output as a terminal gets it, with agentcost's own colour codes."""

LEGACY_COMMAND = "##["
"""GitHub Actions' older workflow-command prefix: the runner looks for it anywhere in a line."""


# What the last pass never lets out, whoever wrote it: C0 controls but newline and tab, DEL, C1,
# the bidi controls (marks, embeddings, overrides, isolates), line and paragraph separators, and
# lone surrogates (which cannot even be encoded).
# Compiled on first use (~1 ms, for its ranges): --help and most errors never escape for a medium.
@functools.cache
def _dangerous() -> re.Pattern[str]:
    return re.compile(
        "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff]"
    )


def _escaped(char: str) -> str:
    """``\\x1b``, ``\\n``, ``\\u202e``, ``\\U000e0001``: the character as Python would write it."""
    return char.encode("unicode_escape", "backslashreplace").decode("ascii")


def plain(text: str) -> str:
    """``text`` as one line of plain, printable text: every character that is not printable shown
    escaped (``\\x1b``, ``\\u202e``, ``\\n``), and ``##[`` as ``#\\x23[``. Printable text without
    ``##[`` comes back unchanged."""
    if not text.isprintable():
        text = "".join(c if c.isprintable() else _escaped(c) for c in text)
    if LEGACY_COMMAND in text:
        text = text.replace(LEGACY_COMMAND, "#\\x23[")
    return text


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
"""What starts a formula in a spreadsheet that opens a CSV file (OWASP's list for CSV injection)."""
_PLAIN_NUMBER = re.compile(r"[-+]?[0-9]+(?:\.[0-9]+)?")


def csv_cell(text: str) -> str:
    """A text cell of a CSV file: :func:`plain`, and OWASP's rule against CSV (formula) injection: a
    cell that starts with ``= + - @``, a tab or a CR gets a ``'`` in front, so that a spreadsheet
    shows it as text and runs nothing (``=HYPERLINK(...)``, ``+cmd|...``, ``@SUM(...)``). A cell
    that is a plain decimal number (``-0.0020``, ``+12``) is kept as it is: it is no formula, and a
    change in dollars stays a number a spreadsheet can add up."""
    text = plain(text)
    if text.startswith(_FORMULA_START) and not _PLAIN_NUMBER.fullmatch(text):
        return "'" + text
    return text


class CsvWriter:
    """A CSV writer (``\\n`` line ends) whose text cells are :func:`csv_cell`: a name from a file stays
    one cell on one line, with no control character, and never starts a formula."""

    def __init__(self, out: io.StringIO) -> None:
        import csv

        self._writer = csv.writer(out, lineterminator="\n")

    def writerow(self, row: Iterable[object]) -> None:
        self._writer.writerow([csv_cell(cell) if isinstance(cell, str) else cell for cell in row])


# --------------------------------------------------------------------------------------------
# Names, bounded for display
# --------------------------------------------------------------------------------------------

NAME_LIMIT = 80
"""The most characters of a name (a scenario, model, tool or file) a report shows: a longer one is
cut, its start kept, with an ellipsis. JSON and CSV, which are data, keep every name whole."""
ELLIPSIS = "\u2026"


def display_name(text: str, limit: int = NAME_LIMIT) -> str:
    """``text`` as a report shows a name: whole when it has at most ``limit`` characters, else its
    first ``limit - 1`` and ``…``. Applied before escaping (so no escape is cut in two), by every
    renderer: a name of a megabyte makes a line of 80 characters, not a 6 MB comment (issue 28)."""
    return text if len(text) <= limit else text[: limit - 1] + ELLIPSIS


# --------------------------------------------------------------------------------------------
# Markdown and HTML
# --------------------------------------------------------------------------------------------

_BACKSLASHED = frozenset("\\`*[]|~")
ZERO_WIDTH_SPACE = "\u200b"


def markdown(text: str) -> str:
    """``text`` as literal Markdown (GitHub's flavour) for a report or a pull-request comment, in a
    paragraph, a list item or a table cell. :func:`plain`, then every character that could start
    or end markup written so that it cannot: ``\\ ` * [ ] | ~`` always backslash-escaped; ``_``
    unless between two letters or digits (``read_file`` stays as it is: no emphasis there); ``$``
    unless a digit follows (math); ``<`` as ``&lt;`` unless a space or ``= `` follows (no HTML
    tag, comment or autolink); ``&`` as ``&amp;`` unless a space follows (no entity); ``>`` and
    ``#`` at the start (quote, heading) and ``#`` at the end (a heading's closing sequence); an
    ``@`` that could start a mention followed by a zero-width space (no @mention). Ordinary text,
    such as ``cost $0.01 -> $0.02 <= 10%`` or ``read_file``, comes back unchanged."""
    text = plain(text)
    out: list[str] = []
    last = len(text) - 1
    for i, c in enumerate(text):
        after = text[i + 1] if i < last else ""
        if c in _BACKSLASHED:
            c = "\\" + c
        elif c == "_":
            if not (i and text[i - 1].isalnum() and after.isalnum()):
                c = "\\_"
        elif c == "$":
            if not after.isdigit():
                c = "\\$"
        elif c == "<":
            if not (after == " " or text[i + 1 : i + 3] == "= "):
                c = "&lt;"
        elif c == "&":
            if after != " ":
                c = "&amp;"
        elif c == ">":
            if i == 0:
                c = "&gt;"
        elif c == "#":
            if i in (0, last):
                c = "\\#"
        elif c == "@":  # a mention is an @ after no word character, before a letter or digit
            word_before = i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_")
            if not word_before and (not after or after.isalnum()):
                c = "@" + ZERO_WIDTH_SPACE
        out.append(c)
    return "".join(out)


def markdown_code(text: str, *, table: bool = False) -> str:
    """``text`` as a Markdown code span, backticks included: :func:`plain`, fenced by more backticks
    than it holds in a row; ``table``: inside a table cell, where ``|`` must be ``\\|`` (GitHub
    shows it as ``|``). Nothing in a code span is a link, a tag or a mention. A code span holds a
    name (a path, a model, a key): bounded by :func:`display_name`."""
    text = plain(display_name(text))
    if table:
        text = text.replace("|", "\\|")
    if not text:
        return "` `"
    fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    pad = ""
    if text[0] == "`" or text[-1] == "`" or (text[0] == " " and text[-1] == " " and text.strip()):
        pad = " "  # CommonMark strips one space from each side of such a span
    return f"{fence}{pad}{text}{pad}{fence}"


def html(text: str) -> str:
    """``text`` as HTML text (inside ``<code>``, ``<summary>``...): :func:`plain`, then ``& < > "
    '`` as entities."""
    import html as _html

    return _html.escape(plain(text), quote=True)


# --------------------------------------------------------------------------------------------
# Rich
# --------------------------------------------------------------------------------------------


def rich(text: str, style: str = "") -> Text:
    """``text`` as a Rich ``Text`` of :func:`plain`: shown literally, never parsed as console markup
    (``[/x]`` does not crash, ``[link=...]`` is not a link) nor as an emoji code. ``style``: as a
    string would get it (``"table.title"`` for a table's title)."""
    from rich.text import Text

    return Text(plain(text), style=style)


# --------------------------------------------------------------------------------------------
# GitHub workflow commands
# --------------------------------------------------------------------------------------------


def workflow_data(text: str) -> str:
    """The message of a ``::error ...::MESSAGE`` line, escaped as GitHub's runner unescapes it
    (``%`` -> ``%25``, CR -> ``%0D``, LF -> ``%0A``); any other unprintable character as
    :func:`plain` shows it."""
    return plain(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def workflow_property(text: str) -> str:
    """A property value of a workflow command (``file=``, ``title=``): :func:`workflow_data` and
    ``:`` -> ``%3A``, ``,`` -> ``%2C``."""
    return workflow_data(text).replace(":", "%3A").replace(",", "%2C")


# --------------------------------------------------------------------------------------------
# The last pass over a whole output
# --------------------------------------------------------------------------------------------

# How each medium writes what it must not show as itself: the first ":" of a line that would start
# with "::" (CSV quotes the cell instead), and "##[" (its second "#", or for JSON its "[").
_COLON = {"text": "\\x3a", "terminal": "\\x3a", "markdown": "&#58;", "svg": "&#58;"}
_LEGACY = {
    "text": "#\\x23[",
    "terminal": "#\\x23[",
    "markdown": "#&#35;[",
    "svg": "#&#35;[",
    "csv": "#\\x23[",
    "json": "##\\u005b",
}


def _json_escape(char: str) -> str:
    """``\\u202e``; a character beyond the BMP as its surrogate pair, as JSON writes it."""
    units = char.encode("utf-16-le", "surrogatepass")
    return "".join(f"\\u{int.from_bytes(units[i : i + 2], 'little'):04x}" for i in range(0, len(units), 2))


def guard(text: str, medium: Medium) -> str:
    """The whole output ``text`` of one medium, safe to print in a terminal or a CI log: dangerous
    characters (controls but newline and tab, bidi controls, line separators, lone surrogates)
    escaped, ``##[`` broken, and no line that starts with ``::`` after its leading whitespace (the
    colon escaped, or for CSV the first cell quoted, which keeps its value). Text that needs none
    of this comes back unchanged. ``terminal`` leaves control characters alone: they are the colour
    codes of a Rich console, whose data :func:`plain` has escaped already."""
    escape = _json_escape if medium == "json" else _escaped
    if medium != "terminal" and _dangerous().search(text):
        text = _dangerous().sub(lambda m: escape(m.group()), text)
    if LEGACY_COMMAND in text:
        text = text.replace(LEGACY_COMMAND, _LEGACY[medium])
    if "::" not in text or medium == "json":  # a JSON line starts with a space, a bracket or a quote
        return text
    lines = text.split("\n")
    for n, line in enumerate(lines):
        body = line.lstrip()
        if body.startswith("::"):
            lead = line[: len(line) - len(body)]
            if medium == "csv":  # a first cell that needs no quotes has no comma and no quote
                cell, comma, rest = line.partition(",")
                lines[n] = f'"{cell}"{comma}{rest}'
            else:
                lines[n] = lead + _COLON[medium] + body[1:]
    return "\n".join(lines)
