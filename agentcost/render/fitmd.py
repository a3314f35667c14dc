"""A Markdown report kept under GitHub's limits, saying what it left out.

GitHub refuses a comment over 65,536 characters and a step summary over 1 MiB; a report that big
would then be lost whole. Every Markdown report (``--format markdown``, ``--comment``,
``--summary``) passes :func:`fit_markdown`: under the limit it is unchanged; over it, the folded
``<details>`` sections go first (the per-request tables before any other), then the lines at the
end, and a last paragraph says what was shortened. 65,536 characters are at most 256 KiB of UTF-8,
so the same text also fits a step summary. Formatting only: no figure is computed here.
"""

from __future__ import annotations

import re

__all__ = ["COMMENT_LIMIT", "fit_markdown"]

COMMENT_LIMIT = 65_536
"""The most characters GitHub takes in an issue or pull-request comment (a step summary takes 1 MiB)."""

_PARTIAL_ESCAPE = re.compile(r"(?:\\+|&[#A-Za-z0-9]*)$")
_DETAILS = re.compile(r"\n*<details><summary>(.*?)</summary>.*?</details>\n?", re.DOTALL)


def _note(limit: int, dropped: int, cut: bool) -> str:
    parts = []
    if dropped:
        parts.append(
            f"{dropped:,} folded section{'s' if dropped != 1 else ''} (per-request details first) left out"
        )
    if cut:
        parts.append("the end of the report left out")
    return (
        f"\n\n**Shortened** to fit GitHub's limit of {limit:,} characters for a comment: "
        f"{' and '.join(parts)}. The whole report: `--format json`, or the table in the job log.\n"
    )


def fit_markdown(text: str, limit: int = COMMENT_LIMIT) -> str:
    """``text`` when it has at most ``limit`` characters; else the report shortened to fit, with a
    last paragraph saying what was left out: ``<details>`` sections dropped (those whose summary
    starts with "Per request" first, the last first), then whole lines from the end, and a line
    longer than all the room left cut short."""
    if len(text) <= limit:
        return text
    sections = list(_DETAILS.finditer(text))
    order = sorted(range(len(sections)), key=lambda i: (not sections[i][1].startswith("Per request"), -i))
    dropped: set[int] = set()

    def without() -> str:
        kept, at = [], 0
        for i, match in enumerate(sections):
            if i in dropped:
                kept.append(text[at : match.start()] + "\n")
                at = match.end()
        kept.append(text[at:])
        return re.sub("\n{3,}", "\n\n", "".join(kept))  # one blank line where a section was

    body = text
    for i in order:
        if len(body) + len(_note(limit, len(dropped), False)) <= limit:
            break
        dropped.add(i)
        body = without()
    note = _note(limit, len(dropped), False)
    if len(body.rstrip("\n")) + len(note) <= limit:
        return body.rstrip("\n") + note
    note = _note(limit, len(dropped), True)
    room = limit - len(note)
    kept_lines: list[str] = []
    size = 0
    for line in body.split("\n"):
        if size + len(line) + 1 > room:
            if not kept_lines:  # one line longer than the room: its start, never half an escape
                kept_lines.append(_PARTIAL_ESCAPE.sub("", line[: max(room - 1, 0)]))
            break
        kept_lines.append(line)
        size += len(line) + 1
    return "\n".join(kept_lines).rstrip("\n") + note
