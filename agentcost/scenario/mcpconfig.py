"""MCP client configuration files -> the servers they declare (:class:`Server`), validated; and a
server's tools/list file -> its tool definitions.

The one definition of both formats: ``agentcost mcp footprint`` (:mod:`agentcost.mcp`) and a
scenario's ``tools: - mcp: .mcp.json`` entry (:mod:`agentcost.scenario.build`) read them here.

The formats (their documented shapes, read 2026-12-07; docs/mcp.md):

- ``.mcp.json`` of Claude Code, ``{"mcpServers": {NAME: {command, args, env} | {type: "http" |
  "sse", url, headers}}}`` (https://code.claude.com/docs/en/mcp);
- ``claude_desktop_config.json`` of Claude Desktop, ``{"mcpServers": {NAME: {command, args, env}}}``
  (https://modelcontextprotocol.io/docs/develop/connect-local-servers);
- ``.cursor/mcp.json`` of Cursor, ``{"mcpServers": {NAME: {command, args, env} | {url, headers}}}``
  (https://cursor.com/docs/mcp);
- ``.vscode/mcp.json`` of VS Code, ``{"servers": {NAME: {type: "stdio", command, args, env,
  envFile} | {type: "http" | "sse", url}}, "inputs": [...]}``
  (https://code.visualstudio.com/docs/copilot/reference/mcp-configuration).

A config file is untrusted input: read within a size bound, every field checked, each problem one
:class:`~agentcost.errors.InputError` naming the file, line and key. Keys other than the ones read
here are left alone (each client has its own: ``disabled``, ``alwaysAllow``, ``headers``...). The
values of ``env`` are secrets: they are kept to start the server and never shown (:class:`Server`
holds them out of its ``repr``); a report names the variables, never their values. A scenario reads
a config without them (``parse_config(doc, env=False)``): it never launches a server.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import field
from pathlib import Path
from typing import Any, Literal

from agentcost.errors import InputError
from agentcost.infra.doc import Doc, KeyPath, bounded
from agentcost.infra.files import MAX_FILE_BYTES, Unreadable, read_text
from agentcost.infra.record import record
from agentcost.infra.text import plain
from agentcost.infra.validate import quoted
from agentcost.infra.yamlread import parse
from agentcost.scenario.model import ToolDef
from agentcost.scenario.tools import tool_def, tool_file_models
from agentcost.scenario.values import ClientToolModel, McpTools, ServerToolModel

MAX_CONFIG_BYTES = 1_000_000
"""A client config larger than this is refused (the largest real one is a few kilobytes)."""
MAX_SERVERS = 200
MAX_ARGS = 500
MAX_TEXT = 10_000
"""The most characters of a command, an argument, a URL or an environment value."""

Transport = Literal["stdio", "http", "sse"]
Layout = Literal["mcpServers", "servers"]

_REMOTE_TYPES: dict[str, Transport] = {"http": "http", "streamable-http": "http", "sse": "sse"}


@record
class Server:
    """One server of a client config."""

    name: str
    transport: Transport
    command: str | None = None  # stdio: the executable
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict, repr=False, compare=False)  # secrets: never shown
    cwd: str | None = None
    url: str | None = None  # http/sse
    line: int | None = None

    @property
    def env_names(self) -> tuple[str, ...]:
        """The names of the variables ``env`` sets (their values are never reported)."""
        return tuple(sorted(self.env))

    @property
    def launchable(self) -> bool:
        return self.transport == "stdio"

    @property
    def key(self) -> str:
        """What identifies the server's tool list in the cache: its name, and a digest of how it is
        started (command, arguments, working directory) or reached (URL); never of ``env``."""
        spec = json.dumps([self.transport, self.command, list(self.args), self.cwd, self.url])
        return hashlib.sha256(spec.encode("utf-8")).hexdigest()[:12]


@record
class McpConfig:
    path: Path
    layout: Layout  # the top-level key the servers are under
    servers: tuple[Server, ...]


def read_config(path: Path) -> McpConfig:
    """The servers of the client config at ``path``, validated (one clear error each, exit 2)."""
    try:
        text = read_text(path, limit=MAX_CONFIG_BYTES)
    except Unreadable as e:
        raise InputError(f"cannot read the MCP config: {e.reason}", file=path) from None
    return parse_config(parse(Doc(path), text))  # JSON, or YAML (of which JSON is a part)


def parse_config(doc: Doc, *, env: bool = True) -> McpConfig:
    """The servers of a parsed config document; without ``env`` (a scenario's reading), the values
    of each server's ``env`` are neither read nor kept."""
    value = doc.value
    if not isinstance(value, dict):
        raise doc.error((), f"expected a JSON object, got {_kind(value)}", _LAYOUT_HINT)
    if "mcpServers" in value:
        layout: Layout = "mcpServers"
    elif "servers" in value:
        layout = "servers"
    else:
        raise doc.error((), "no MCP servers: neither 'mcpServers' nor 'servers' is a key", _LAYOUT_HINT)
    servers = value[layout]
    if not isinstance(servers, dict):
        raise doc.error((layout,), f"expected an object of servers by name, got {_kind(servers)}")
    if len(servers) > MAX_SERVERS:
        raise doc.error((layout,), f"{len(servers)} servers, more than the {MAX_SERVERS} agentcost reads")
    return McpConfig(
        doc.path, layout, tuple(_server(doc, (layout, name), spec, env) for name, spec in servers.items())
    )


_LAYOUT_HINT = (
    'an MCP client config: {"mcpServers": {...}} (Claude Code, Claude Desktop, Cursor) or'
    ' {"servers": {...}} (VS Code)'
)


def _server(doc: Doc, path: KeyPath, spec: Any, with_env: bool) -> Server:
    name = str(path[-1])
    if not name or len(name) > 200:
        raise doc.error(path, "a server name is 1 to 200 characters")
    if not isinstance(spec, dict):
        raise doc.error(
            path, f"expected a server object, got {_kind(spec)}", '{"command": ..., "args": [...]}'
        )
    kind = spec.get("type")
    if kind is not None and kind not in ("stdio", *_REMOTE_TYPES):
        raise doc.error(
            (*path, "type"),
            f"unknown server type {_shown_type(kind)}",
            "stdio, http, streamable-http or sse",
        )
    line = doc.line(path)
    if kind in _REMOTE_TYPES or (kind is None and "url" in spec and "command" not in spec):
        url = _text(doc, (*path, "url"), spec.get("url"), required=True)
        transport = _REMOTE_TYPES.get(kind, "http") if isinstance(kind, str) else "http"
        return Server(name, transport, url=url, line=line)
    command = _text(doc, (*path, "command"), spec.get("command"), required=True)
    args = spec.get("args", [])
    if not isinstance(args, list):
        raise doc.error((*path, "args"), f"expected a list of texts, got {_kind(args)}")
    if len(args) > MAX_ARGS:
        raise doc.error((*path, "args"), f"{len(args)} arguments, more than {MAX_ARGS}")
    texts = tuple(
        _text(doc, (*path, "args", i), a, required=True, empty=True) or "" for i, a in enumerate(args)
    )
    env = spec.get("env", {}) if with_env else {}
    if env is None:
        env = {}
    if not isinstance(env, dict):
        raise doc.error((*path, "env"), f"expected an object of variables, got {_kind(env)}")
    values: dict[str, str] = {}
    for key, val in env.items():
        if not isinstance(val, str | int | float) or isinstance(val, bool):
            raise doc.error((*path, "env", key), f"expected a text, got {_kind(val)}")
        if len(str(val)) > MAX_TEXT:
            raise doc.error((*path, "env", key), f"longer than {MAX_TEXT:,} characters")
        values[str(key)] = str(val)
    cwd = _text(doc, (*path, "cwd"), spec.get("cwd"), required=False)
    return Server(name, "stdio", command=command, args=texts, env=values, cwd=cwd, line=line)


def _text(doc: Doc, path: KeyPath, value: Any, *, required: bool, empty: bool = False) -> str | None:
    """A text field; its value is never shown in an error (a config may hold secrets anywhere)."""
    if value is None and not required:
        return None
    if value is None:
        raise doc.error(path, "missing", "a stdio server needs a command; a remote one a url")
    if not isinstance(value, str):
        raise doc.error(path, f"expected a text, got {_kind(value)}")
    if not value.strip() and not empty:
        raise doc.error(path, "empty")
    if len(value) > MAX_TEXT:
        raise doc.error(path, f"longer than {MAX_TEXT:,} characters")
    return value


def listed_tools(doc: Doc) -> list[tuple[ClientToolModel, KeyPath]]:
    """The tools of a parsed tools/list file (any shape a scenario's tool file takes), each with its
    key path; a provider's server tool is refused (no MCP server lists one)."""
    out: list[tuple[ClientToolModel, KeyPath]] = []
    for model, where in tool_file_models(doc):
        if isinstance(model, ServerToolModel):
            raise doc.error(where, "a provider's server tool, not a tool an MCP server lists")
        out.append((model, where))
    return out


def read_tool_file(path: Path, server: str) -> tuple[ToolDef, ...]:
    """The tool definitions of a tools/list file (any shape a scenario's tool file takes)."""
    try:
        text = read_text(path, limit=MAX_FILE_BYTES)
    except Unreadable as e:
        raise InputError(f"cannot read the tools/list of server {server!r}: {e.reason}", file=path) from None
    doc = parse(Doc(path, hint=f"the tools/list of MCP server {server!r}", quotes=False), text)
    tools = []
    seen: set[str] = set()
    for model, where in listed_tools(doc):
        tool = tool_def(model, doc.line(where))
        if tool.name in seen:
            raise doc.error((*where, "name"), "duplicate tool name")
        seen.add(tool.name)
        tools.append(tool)
    return tuple(tools)


def _no_list_hint(name: str, config: str) -> str:
    return (
        f"give its tools/list in tools_lists: {{{name}: FILE}}, a file committed with the scenario: "
        f"`agentcost mcp footprint {config} --launch --cache-dir DIR` saves each server's list in DIR"
    )


def scenario_tools(
    entry: McpTools, doc: Doc, path: KeyPath, read: Callable[[str, KeyPath], str]
) -> list[tuple[ClientToolModel, Doc, KeyPath]]:
    """The tools of a scenario's ``{mcp: CONFIG}`` entry at ``path`` of ``doc``: those of each server
    it picks (``servers``, default every server of the config, in order), read from its
    ``tools_lists`` file; each tool with the document and key path it was defined at. ``read`` reads
    a file the scenario names, relative to it (confined, bounded, each file once); nothing is started,
    no cache is read, and the config's ``env`` values are not read."""
    where = doc.where(path)
    base = doc.path.parent
    config_doc = parse(
        Doc(base / entry.mcp, hint=f"MCP config named at {where}", quotes=False),
        read(entry.mcp, (*path, "mcp")),
    )
    config = parse_config(config_doc, env=False)
    shown_config = bounded(str(config_doc.path)) if doc.quotes else "CONFIG"
    by_name = {server.name: server for server in config.servers}
    lists = entry.tools_lists or {}

    def named(name: str) -> str:
        return f" {quoted(name)}" if doc.quotes else ""

    def not_in_config(at: KeyPath, name: str) -> InputError:
        return doc.error(
            at,
            f"no MCP server{named(name)} in the config",
            f"name one of the {len(by_name)} servers under {config.layout!r} in the config",
        )

    for name in lists:
        if name not in by_name:
            raise not_in_config((*path, "tools_lists", name), name)
    picked: list[tuple[str, KeyPath | None]]
    if entry.servers is None:
        picked = [(server.name, None) for server in config.servers]
    else:
        picked = []
        for j, name in enumerate(entry.servers):
            at = (*path, "servers", j)
            if name not in by_name:
                raise not_in_config(at, name)
            if name in entry.servers[:j]:
                raise doc.error(at, f"MCP server{named(name)} listed twice")
            picked.append((name, at))
    out: list[tuple[ClientToolModel, Doc, KeyPath]] = []
    for name, given_at in picked:
        if name not in lists:
            if given_at is None:  # a server of the config: located there, its name not quoted
                server = config_doc.where((config.layout, name))
                message = f"no tools list for the MCP server at {server}"
                raise doc.error((*path, "mcp"), message, _no_list_hint("NAME", shown_config))
            hint = _no_list_hint(bounded(name) if doc.quotes else "NAME", shown_config)
            raise doc.error(given_at, f"no tools list for MCP server{named(name)}", hint)
        key = (*path, "tools_lists", name)
        list_doc = parse(
            Doc(base / lists[name], hint=f"tools/list named at {doc.where(key)}", quotes=False),
            read(lists[name], key),
        )
        out.extend((model, list_doc, w) for model, w in listed_tools(list_doc))
    return out


def _shown_type(value: Any) -> str:
    if isinstance(value, str) and len(value) <= 30:
        return repr(plain(value))
    return _kind(value)


def _kind(value: Any) -> str:
    """What a JSON value is, in words, without its content."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float) or type(value).__name__ == "Decimal":
        return "a number"
    if isinstance(value, str):
        return "a text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__
