"""Start a stdio MCP server and ask it for its tools (``agentcost mcp footprint --launch``).

Through the official MCP Python SDK (the ``mcp`` extra, https://github.com/modelcontextprotocol/python-sdk,
2.3.0 read 2026-12-07): ``mcp.client.stdio.stdio_client`` starts the process with the config's
command, arguments and ``env`` merged over the SDK's short list of inherited variables, and
``mcp.ClientSession`` runs ``initialize`` then ``tools/list`` (every page). The whole exchange is
bounded by ``timeout`` seconds; the server's standard error goes to the null device, so nothing it
writes is interleaved with agentcost's output. On every way out (the list, an error, the timeout,
Ctrl-C) the SDK's shutdown runs shielded from cancellation: it closes the server's standard input,
then terminates and kills its process tree, each wait bounded (``stdio_client``'s own docstring).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from agentcost.errors import InputError
from agentcost.scenario.mcpconfig import Server

INSTALL_HINT = "pip install 'agentcost-estimate[mcp]'"
MAX_PAGES = 100
"""A server that pages its tools/list more than this is refused (a loop, or a hostile server)."""
MAX_TOOLS = 5_000


_VARIABLE = re.compile(r"\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def expand(text: str) -> str:
    """``${VAR}``, ``${VAR:-default}`` (Claude Code's expansion in .mcp.json,
    https://code.claude.com/docs/en/mcp, read 2026-12-07) and ``${env:VAR}`` (Cursor's and VS
    Code's) replaced from agentcost's environment, as the client would before starting the server;
    a variable that is not set, without a default, is left as written. Other client variables
    (``${workspaceFolder}``, ``${input:...}``) are left as written."""

    def value(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        found = os.environ.get(name)
        if found is not None:
            return found
        return default if default is not None else match.group(0)

    return _VARIABLE.sub(value, text)


def sdk_missing() -> InputError | None:
    """The error to raise when the MCP SDK is not installed, else None."""
    try:
        import mcp  # noqa: F401
    except ImportError:
        return InputError(f"the MCP Python SDK is not installed: {INSTALL_HINT}", key="--launch")
    return None


def list_tools(server: Server, *, timeout: float, cwd: Path | None = None) -> dict[str, Any]:
    """``server``'s tools/list result, ``{"tools": [...]}``, each tool as the protocol writes it."""
    missing = sdk_missing()
    if missing is not None:
        raise missing
    import anyio

    where = f"MCP server {server.name!r}"
    try:
        try:
            tools = anyio.run(_list, server, timeout, cwd)
        except BaseExceptionGroup as group:  # the task groups' wrapping: what went wrong is inside
            raise _leaf(group) from None
    except TimeoutError:
        raise InputError(
            f"{where} did not list its tools within {timeout:g} s",
            key="--launch",
            hint="raise --timeout, or run its command by hand to see why it hangs",
        ) from None
    except OSError as e:
        raise InputError(
            f"cannot start {where}: {e.strerror or type(e).__name__}",
            key="--launch",
            hint="is its command installed and on PATH?",
        ) from None
    except _Refused as e:
        raise InputError(f"{where}: {e}", key="--launch") from None
    except _Signalled as e:  # the server is ended already; end as a process killed by it would
        raise SystemExit(128 + e.signum) from None
    except Exception as e:  # the server died, wrote something that is not MCP, answered an error
        raise InputError(
            f"{where} did not list its tools ({_cause(e)})",
            key="--launch",
            hint="run its command by hand to see its error output",
        ) from None
    return {"tools": tools}


class _Refused(Exception):
    """A tools/list answer beyond agentcost's bounds."""


class _Signalled(Exception):
    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


async def _list(server: Server, timeout: float, cwd: Path | None) -> list[dict[str, Any]]:
    """:func:`_ask`, ended cleanly by SIGTERM or SIGHUP as by Ctrl-C: the asking is cancelled, so
    the SDK's shielded shutdown ends the server before agentcost ends (a CI job cancelled, a
    terminal closed). Without this, Python would die at once and leave the server running."""
    import signal

    import anyio

    wanted = [s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s is not None]
    received: list[int] = []
    tools: list[dict[str, Any]] = []
    async with anyio.create_task_group() as group:

        async def watch() -> None:
            with anyio.open_signal_receiver(*wanted) as signals:
                async for signum in signals:
                    received.append(signum)
                    group.cancel_scope.cancel()
                    return

        group.start_soon(watch)
        tools = await _ask(server, timeout, cwd)
        group.cancel_scope.cancel()
    if received:
        raise _Signalled(received[0])
    return tools


async def _ask(server: Server, timeout: float, cwd: Path | None) -> list[dict[str, Any]]:
    import anyio
    from mcp import ClientSession, StdioServerParameters, stdio_client
    from mcp.types import PaginatedRequestParams

    params = StdioServerParameters(
        command=expand(server.command or ""),
        args=[expand(a) for a in server.args],
        env={k: expand(v) for k, v in server.env.items()} or None,
        cwd=server.cwd if server.cwd is not None else cwd,
    )
    tools: list[dict[str, Any]] = []
    with open(os.devnull, "w", encoding="utf-8") as errlog, anyio.fail_after(timeout):
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            cursor: str | None = None
            for _ in range(MAX_PAGES):
                page_params = None if cursor is None else PaginatedRequestParams(cursor=cursor)
                result = await session.list_tools(params=page_params)
                tools.extend(
                    t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in result.tools
                )
                if len(tools) > MAX_TOOLS:
                    raise _Refused(f"lists more than {MAX_TOOLS:,} tools")
                cursor = result.next_cursor
                if cursor is None:
                    return tools
            raise _Refused(f"pages its tools/list more than {MAX_PAGES} times")
    return tools  # not reached: the loop returns or raises


def _leaf(error: BaseException) -> BaseException:
    """An exception group's first exception that is not a group (the error itself otherwise)."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


def _cause(error: BaseException) -> str:
    """What went wrong, in a few words."""
    error = _leaf(error)
    text = str(error).strip()
    name = type(error).__name__
    return f"{name}: {text[:200]}" if text else name
