"""Whether this run may be replayed: the CLI marks it, the console script reads the mark.

A run is replayable when its output depends only on the launcher's key and the files it read (one
scenario, no ``--output`` or ``--summary``, no progress bar). :mod:`agentcost.cli` calls
:func:`allow_replay` on such a path; :mod:`agentcost.launch` stores the run's output only when
:func:`replay_allowed` says so. Both import this module, so neither imports the other for it.
"""

from __future__ import annotations

_replayable = False


def allow_replay() -> None:
    """Called by the CLI on a path whose output depends only on the key and the files read."""
    global _replayable
    _replayable = True


def replay_allowed() -> bool:
    """Whether the CLI marked this run as replayable (:func:`allow_replay`)."""
    return _replayable
