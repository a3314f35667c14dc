"""When the CLI writes colour, decided in one place: ``NO_COLOR``, ``FORCE_COLOR``, ``TERM=dumb``, a terminal.

The conventions, first match wins: ``NO_COLOR`` set and not empty: no colour (https://no-color.org);
``FORCE_COLOR`` set and not empty: colour, even into a pipe (https://force-color.org); ``TERM=dumb``:
no colour; else colour only when the stream is a terminal. :func:`colour_system` applies them to one
stream (standard output for the report, standard error for its one-line messages). Colour never
changes the text: the output without its colour codes is the output without colour, byte for byte.
No Rich here: deciding, and colouring a message's prefix, import nothing heavy.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal

import typer

if TYPE_CHECKING:
    from rich.console import RenderableType

ColourSystem = Literal["standard", "256", "truecolor"]
"""The colours a stream takes (Rich's names); ``None`` where it takes none."""

_RED = "\x1b[31m"
_YELLOW = "\x1b[33m"
_RESET = "\x1b[0m"

# The prefixes of agentcost's lines on stderr and their colours, the longest first.
_PREFIXES = (
    ("agentcost: gate failed:", _RED),
    ("agentcost: warning:", _YELLOW),
    ("agentcost: error:", _RED),
    ("agentcost: note:", _YELLOW),
    ("note:", _YELLOW),
)


def colour_system(stream: object, environ: Mapping[str, str] | None = None) -> ColourSystem | None:
    """The colours to write to ``stream`` by the conventions (None: none). ``environ``: the
    environment read (default ``os.environ``); ``COLORTERM`` and ``TERM`` say how many colours."""
    env = os.environ if environ is None else environ
    if env.get("NO_COLOR", ""):
        return None
    term = env.get("TERM", "").strip().lower()
    if not env.get("FORCE_COLOR", "") and (term == "dumb" or not is_terminal(stream)):
        return None
    if env.get("COLORTERM", "").strip().lower() in ("truecolor", "24bit"):
        return "truecolor"
    if term.endswith("-256color"):
        return "256"
    return "standard"


def is_terminal(stream: object) -> bool:
    """Whether ``stream`` is a terminal (False for a closed or missing stream)."""
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if callable(isatty) else False
    except (OSError, ValueError):  # closed
        return False


def coloured(line: str, colour: bool) -> str:
    """``line`` with its agentcost prefix (``agentcost: error:``...) red or yellow when ``colour``;
    the rest of the line, and a line without such a prefix, as they are."""
    if colour:
        for prefix, code in _PREFIXES:
            if line.startswith(prefix):
                return f"{code}{prefix}{_RESET}{line[len(prefix) :]}"
    return line


def echo_err(line: str) -> None:
    """One line on standard error, its prefix coloured as :func:`colour_system` says for stderr:
    ``agentcost: error:`` and ``agentcost: gate failed:`` red, warnings and notes yellow."""
    import sys

    colour = colour_system(sys.stderr) is not None
    typer.echo(coloured(line, colour), err=True, color=True if colour else None)


def print_rich(renderable: RenderableType) -> None:
    """``agentcost models``, ``agentcost prices``: the table on standard output, in colour as
    :func:`colour_system` says for stdout (:func:`agentcost.render.output.print_rich`)."""
    import sys

    from agentcost.render import output

    output.print_rich(renderable, colour=colour_system(sys.stdout))
