"""The command line: Typer commands over the library (:mod:`agentcost.cli.core`), exit codes and the
CLI's wording of errors. Every other module here serves the commands: shared options
(:mod:`~agentcost.cli.options`), what to do with a report (:mod:`~agentcost.cli.output`), colour,
the spinner, and one module per command (:data:`agentcost.cli.core.COMMANDS`).

``main`` (the console script) is defined here, before anything is imported, so that Ctrl-C at any
moment of the start-up (Typer's import takes tens of milliseconds) is exit 130 without a traceback,
as it is once the command runs; ``app`` and ``run`` are imported from :mod:`agentcost.cli.core` on
first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["app", "main", "run"]

if TYPE_CHECKING:
    from agentcost.cli.core import app, run


def main() -> None:
    """The console script (:func:`agentcost.cli.core.main`).

    The garbage collector around a command (both measured in docs/performance.md):

    - A command runs with Python's cyclic collector paused (and restored after it, for a caller in
      the same process). What a command builds holds no reference cycles (ledger rows, exact
      decimals, report lines, JSON dicts: reference counting frees them), yet the collector
      traversed it again and again as it grew: ~10 ms of an edited estimate's imports and 20% of a
      100,000-round estimate, at the same peak memory. ``agentcost mcp serve``, which runs for as
      long as its client, turns it back on.
    - At exit, the objects the run leaves are frozen out of the interpreter's last collection,
      which would traverse every one of them (~25-40 ms) only to find them alive; the exit frees
      them all the same. Nothing relies on a collection at exit (the cache closes in its own
      ``atexit`` handler)."""
    import atexit
    import gc

    atexit.unregister(gc.freeze)  # once, however often main runs in one process (tests)
    atexit.register(gc.freeze)
    collecting = gc.isenabled()
    gc.disable()
    try:
        try:
            from agentcost.cli import core
        except KeyboardInterrupt:
            raise SystemExit(130) from None
        core.main()
    finally:
        if collecting:
            gc.enable()


def __getattr__(name: str) -> Any:
    if name in ("app", "run"):
        from agentcost.cli import core

        return getattr(core, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
