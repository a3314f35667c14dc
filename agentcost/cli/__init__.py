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
    """The console script (:func:`agentcost.cli.core.main`)."""
    try:
        from agentcost.cli import core
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    core.main()


def __getattr__(name: str) -> Any:
    if name in ("app", "run"):
        from agentcost.cli import core

        return getattr(core, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
