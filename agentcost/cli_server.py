"""``agentcost server``: show, start or stop this installation's warm process (``agentcost.warm``)."""

from __future__ import annotations

import time
from enum import StrEnum
from typing import Annotated, Any

import typer

from agentcost import warm


class Action(StrEnum):
    status = "status"
    start = "start"
    stop = "stop"


def register(app: typer.Typer) -> None:
    """Add ``server`` to ``app``."""
    app.command(epilog="Example: agentcost server stop")(server)


def server(
    action: Annotated[
        Action,
        typer.Argument(metavar="ACTION", help="status (the default), start, or stop.", show_default=False),
    ] = Action.status,
) -> None:
    """The warm process: estimate, compare, diff, prices and models without the start-up cost (Linux).

    One starts after a run at a terminal (not in CI) and exits after 15 minutes without a request.
    AGENTCOST_SERVER=off: never; =on: also where no terminal is.
    """
    if not warm.supported():
        typer.echo("No warm process: it needs Linux. Every run starts afresh.")
        return
    if warm.setting() == "off" and action is not Action.stop:
        typer.echo("No warm process: AGENTCOST_SERVER or AGENTCOST_CACHE is off. Every run starts afresh.")
        return
    if action is Action.status:
        found = warm.ask("status")
        typer.echo(_running(found) if found else _none())
    elif action is Action.stop:
        found = warm.ask("stop")
        typer.echo(f"Stopped the warm process (pid {found['pid']})." if found else _none())
    else:
        already = warm.ask("status")
        found = already or warm.start_and_wait()
        if found is None:
            typer.echo("agentcost: error: the warm process did not start; runs go on without it.", err=True)
            raise typer.Exit(code=1)
        typer.echo(_running(found) if already else f"Started. {_running(found)}")


def _running(status: dict[str, Any]) -> str:
    up = _duration(time.time() - float(status.get("started", time.time())))
    idle = _duration(float(status.get("idle_seconds", warm.IDLE_SECONDS)))
    runs = int(status.get("runs", 0))
    return (
        f"A warm process serves this installation: pid {status.get('pid')}, up {up}, "
        f"{runs} run{'' if runs == 1 else 's'}; it exits after {idle} without one."
    )


def _none() -> str:
    return "No warm process runs for this installation; one starts after a run at a terminal."


def _duration(seconds: float) -> str:
    seconds = max(0, int(seconds))
    if seconds < 120:
        return f"{seconds} s"
    return f"{seconds // 60} min"
