"""Whether this run may be replayed: the CLI marks it, the console script reads the mark.

A run is replayable when its output depends only on the launcher's key and the files it read: one
scenario, no ``--output`` or ``--summary``, no progress bar (:func:`allow_replay`, exit 0 or 1); or
a run that printed help (:func:`replayable_help`: ``--help``, ``-h``, or the bare ``agentcost``,
which prints its help and exits 2). :mod:`agentcost.cli` marks such a path; :mod:`agentcost.launch`
stores the run's output only when :func:`replay_allowed` says so for its exit code. Both import
this module, so neither imports the other for it.
"""

from __future__ import annotations

from typing import Any

_replayable: frozenset[int] = frozenset()  # the exit codes with which this run may be stored


def allow_replay(codes: tuple[int, ...] = (0, 1)) -> None:
    """Called by the CLI on a path whose output depends only on the key and the files read; the run
    is stored if it then exits with one of ``codes`` (errors and bugs always run for real)."""
    global _replayable
    _replayable = _replayable | frozenset(codes)


def forget_replay() -> None:
    """No run marked yet: the console script's start (a second run in one process starts unmarked)."""
    global _replayable
    _replayable = frozenset()


def replay_allowed(code: int) -> bool:
    """Whether the CLI marked this run as replayable (:func:`allow_replay`) with exit ``code``."""
    return code in _replayable


def replayable_help() -> None:
    """Mark a run replayable where Typer prints a command's help (its ``format_help``, which the help
    option and the bare command call): help reads no files, so it is a pure function of the
    launcher's key. Marked where it is printed, not guessed from the command line
    (``--as-of --help`` passes "--help" as a value, and prints no help)."""
    from typer.core import TyperCommand, TyperGroup

    for cls in (TyperCommand, TyperGroup):
        shown = cls.format_help
        if getattr(shown, "marks_replay", False):
            continue

        def format_help(self: Any, ctx: Any, formatter: Any, _shown: Any = shown) -> None:
            _shown(self, ctx, formatter)
            allow_replay((0, 2))  # --help exits 0; the bare command prints its help and exits 2

        format_help.marks_replay = True  # type: ignore[attr-defined]
        cls.format_help = format_help  # type: ignore[method-assign]
