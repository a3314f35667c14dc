"""Where each server's tools/list comes from, and reading it into tool definitions.

In this order, for each server of the config:

1. ``--tools-list NAME=FILE``: that file (a tools/list result, ``{"tools": [...]}``, a JSON-RPC
   response carrying one, or a list of tools: any shape a scenario's ``tools: - file:`` takes);
2. with ``--launch``, a stdio server is started and asked (:mod:`agentcost.mcp.launch`); the answer
   is written to the cache directory (below) and read back from there, so a launched list and a
   cached one are read by the same code;
3. the cache directory: ``NAME-KEY.json`` written by an earlier ``--launch``, where ``KEY`` is a
   digest of the server's command, arguments and working directory (or URL), so that a changed
   command is launched afresh (:attr:`agentcost.scenario.mcpconfig.Server.key`). The directory is
   ``--cache-dir``, else ``mcp/`` in agentcost's cache (``~/.cache/agentcost/mcp``; none when
   ``AGENTCOST_CACHE=off``).

Otherwise the server's tools are unknown, and the report says why (a remote server is never
contacted; a stdio server is started only with ``--launch``).

A tool file is read as a scenario's tool file is: bounded, validated, each problem located
(:func:`agentcost.scenario.mcpconfig.read_tool_file`), its text never quoted in an error.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Literal

from agentcost.errors import InputError
from agentcost.infra.record import record
from agentcost.scenario.mcpconfig import McpConfig, Server, read_tool_file
from agentcost.scenario.model import ToolDef

Source = Literal["file", "launch", "cache"]


@record
class ServerTools:
    """One server and its tool definitions, if known."""

    server: Server
    source: Source | None  # None: unknown (``status`` says why)
    path: Path | None  # the file they were read from
    tools: tuple[ToolDef, ...]
    status: str  # "listed", or why not


def cache_root(cache_dir: Path | None) -> Path | None:
    """Where launched tool lists are kept: ``cache_dir``, else ``mcp/`` in agentcost's cache."""
    if cache_dir is not None:
        return cache_dir
    from agentcost.infra.diskcache import cache_dir as agentcost_cache

    root = agentcost_cache()
    return None if root is None else root / "mcp"


_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


def cache_file(root: Path, server: Server) -> Path:
    """The cached tools/list of ``server`` under ``root``."""
    return root / f"{_UNSAFE.sub('_', server.name)[:60]}-{server.key}.json"


def server_tools(
    config: McpConfig,
    *,
    files: dict[str, Path],
    launch: bool,
    timeout: float,
    cache_dir: Path | None,
) -> tuple[ServerTools, ...]:
    """Each server of ``config`` with its tools (see the module's docstring for the order)."""
    unknown = sorted(set(files) - {s.name for s in config.servers})
    if unknown:
        names = ", ".join(repr(s.name) for s in config.servers) or "none"
        raise InputError(
            f"no server {unknown[0]!r} in {config.path}", key="--tools-list", hint=f"its servers: {names}"
        )
    root = cache_root(cache_dir)
    out = []
    for server in config.servers:
        if server.name in files:
            out.append(_read(server, "file", files[server.name]))
            continue
        if launch and server.launchable:
            if root is None:
                raise InputError(
                    "AGENTCOST_CACHE=off leaves no directory for the launched tool lists",
                    key="--launch",
                    hint="give one with --cache-dir",
                )
            from agentcost.mcp.launch import list_tools

            listed = list_tools(server, timeout=timeout, cwd=_project_dir(config.path))
            target = cache_file(root, server)
            _write(target, json.dumps(listed, indent=1, ensure_ascii=False) + "\n")
            out.append(_read(server, "launch", target))
            continue
        cached = None if root is None else cache_file(root, server)
        if cached is not None and cached.is_file():
            out.append(_read(server, "cache", cached))
        elif not server.launchable:
            out.append(ServerTools(server, None, None, (), "not launched: remote server"))
        else:
            out.append(ServerTools(server, None, None, (), "not launched: no cached tools/list (--launch)"))
    return tuple(out)


def _project_dir(config: Path) -> Path:
    """The directory a client starts servers in: the project of ``.vscode/mcp.json`` and
    ``.cursor/mcp.json``, else the config's own directory."""
    parent = config.absolute().parent
    return parent.parent if parent.name in (".vscode", ".cursor") else parent


def _write(path: Path, text: str) -> None:
    from agentcost.infra.writes import write_output

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_output(path, text, key="--cache-dir")
    except OSError as e:
        raise InputError(
            f"cannot write the tools/list to the cache: {e.strerror or e}", file=path, key="--cache-dir"
        ) from None


def _read(server: Server, source: Source, path: Path) -> ServerTools:
    return ServerTools(server, source, path, read_tool_file(path, server.name), "listed")
