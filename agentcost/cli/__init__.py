"""The command line: Typer commands over the library (:mod:`agentcost.cli.core`), exit codes and the
CLI's wording of errors. Every other module here serves the commands: shared options
(:mod:`~agentcost.cli.options`), what to do with a report (:mod:`~agentcost.cli.output`), colour,
the spinner, and the commands that live in modules of their own (catalogue, reconcile, calibrate of
many runs, replay of many runs, the pull-request comment)."""

from agentcost.cli.core import app, main, run

__all__ = ["app", "main", "run"]
