"""A scenario's ``tools: - mcp: CONFIG`` entry: an MCP client config's servers, each server's tools
from the tools/list file the scenario names (``tools_lists``); nothing launched, no cache read.

The tools it adds are those of the same tools/list given as ``- file:``: the same definitions, the
same token counts and the same dollars (an independent path through the scenario stage). Its errors
are in tests/test_error_catalogue.py.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agentcost import api
from agentcost.errors import InputError
from agentcost.scenario.load import read_scenario
from agentcost.scenario.mcpconfig import read_config
from tests.conftest import ROOT

AS_OF = "2026-11-30"
GITHUB_TOOLS = ROOT / "scenarios" / "mcp" / "tools-list.json"  # the 40 tools of a GitHub server
CONFIG = ROOT / "docs" / "examples" / "mcp.json"  # github (stdio) and docs (remote)
DOCS_TOOLS = {"tools": [{"name": "search_docs", "inputSchema": {"type": "object"}}]}
HEAD = "version: 1\nmodel: claude-sonnet-4-5\ntask: Fix the failing test.\ntools:\n"
TAIL = "rounds:\n  - {tool: list_issues, call_tokens: 30, result: 500}\nfinal: 100\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with a Claude Code ``.mcp.json`` and the servers' tools/list files under ``mcp/``."""
    shutil.copy(CONFIG, tmp_path / ".mcp.json")
    (tmp_path / "mcp").mkdir()
    shutil.copy(GITHUB_TOOLS, tmp_path / "mcp" / "github-tools.json")
    (tmp_path / "mcp" / "docs-tools.json").write_text(json.dumps(DOCS_TOOLS), encoding="utf-8")
    return tmp_path


def _scenario(root: Path, name: str, tools: str, tail: str = TAIL) -> Path:
    path = root / name
    path.write_text(HEAD + tools + tail, encoding="utf-8")
    return path


def test_an_mcp_entry_costs_what_its_tools_list_as_a_file_costs(project: Path) -> None:
    via_mcp = _scenario(
        project,
        "mcp.yaml",
        "  - mcp: .mcp.json\n    servers: [github]\n    tools_lists: {github: mcp/github-tools.json}\n",
    )
    via_file = _scenario(project, "file.yaml", "  - file: mcp/github-tools.json\n")
    a, b = read_scenario(via_mcp), read_scenario(via_file)
    assert len(a.tools) == 40 and a.tools == b.tools
    mcp_run, file_run = api.estimate(via_mcp, as_of=AS_OF), api.estimate(via_file, as_of=AS_OF)
    tokens = [(r.input_tokens, r.cache_read_tokens, r.cache_write_tokens) for r in mcp_run.requests]
    assert tokens == [(r.input_tokens, r.cache_read_tokens, r.cache_write_tokens) for r in file_run.requests]
    assert tokens[0][0] > 7_000  # the 40 definitions are in every request
    assert mcp_run.total_cost_usd == file_run.total_cost_usd > 0


def test_every_server_by_default_in_config_order_and_defer_loading(project: Path) -> None:
    entry = (
        "  - mcp: .mcp.json\n    defer_loading: true\n"
        "    tools_lists: {docs: mcp/docs-tools.json, github: mcp/github-tools.json}\n"
    )
    s = read_scenario(_scenario(project, "all.yaml", entry))
    names = [t.name for t in s.tools]
    assert len(names) == 41 and names[0] == "list_issues" and names[-1] == "search_docs"  # github, docs
    assert all(t.defer_loading for t in s.tools)
    one = entry.replace("defer_loading: true", "servers: [docs]")
    picked = read_scenario(_scenario(project, "one.yaml", one, tail="final: 100\n"))
    assert [(t.name, t.defer_loading) for t in picked.tools] == [("search_docs", False)]


def test_the_env_values_are_never_read_and_nothing_is_started(project: Path) -> None:
    """A config whose ``env`` value is no text (``mcp footprint``, which may launch, refuses it) and
    whose command does not exist: the scenario reads neither."""
    config = {"servers": {"gh": {"type": "stdio", "command": "/nonexistent/server", "env": {"TOKEN": [1]}}}}
    (project / ".vscode").mkdir()
    (project / ".vscode" / "mcp.json").write_text(json.dumps(config), encoding="utf-8")
    with pytest.raises(InputError, match="expected a text, got a list"):
        read_config(project / ".vscode" / "mcp.json")
    entry = "  - mcp: .vscode/mcp.json\n    tools_lists: {gh: mcp/github-tools.json}\n"
    assert len(read_scenario(_scenario(project, "vscode.yaml", entry)).tools) == 40


def test_a_tool_in_two_servers_is_a_duplicate_named_in_both_places(project: Path) -> None:
    entry = (
        "  - mcp: .mcp.json\n    tools_lists: {docs: mcp/github-tools.json, github: mcp/github-tools.json}\n"
    )
    with pytest.raises(InputError, match="duplicate tool name") as caught:
        read_scenario(_scenario(project, "dup.yaml", entry))
    assert "first defined at" in str(caught.value)
