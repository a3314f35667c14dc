"""``agentcost mcp``: footprint (client configs, tools/list, counting, pricing, gates) and serve.

Two real stdio MCP servers are started in the whole file, each once (module-scoped fixtures): the
fixture server of tests/data/mcp/server.py (3 tools, built with the MCP Python SDK) by
``agentcost mcp footprint --launch``, and ``agentcost mcp serve`` driven by the SDK's own client.
Everything else (config formats, errors, pricing, gates) runs in-process on cached tool lists.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from agentcost.cli import run
from agentcost.scenario.mcpconfig import MAX_CONFIG_BYTES, read_config
from tests.conftest import ROOT

pytest.importorskip("mcp")

AS_OF = "2026-11-30"
SERVER = ROOT / "tests" / "data" / "mcp" / "server.py"
GITHUB_TOOLS = ROOT / "scenarios" / "mcp" / "tools-list.json"  # the 40 tools of mcp-40-tools.yaml
SECRET = "hunter2-do-not-print"


def _processes_running(marker: str) -> list[int]:
    """Processes whose command line holds ``marker`` (a path unique to this test run)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if marker.encode() in f.read():
                    found.append(int(entry))
        except OSError:
            continue
    return found


def _valid(report: dict[str, Any]) -> None:
    """``report`` against the published JSON Schema (docs/report.schema.json)."""
    schema = json.loads((ROOT / "docs" / "report.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(report)


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = run(list(argv))
    return code, out.getvalue(), err.getvalue()


# ---------------------------------------------------------------------------------------------
# footprint --launch: a real stdio server, once


@pytest.fixture(scope="module")
def launched(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """``agentcost mcp footprint cfg.json --launch -m claude-sonnet-4-5 --format json`` on a copy of
    the fixture server (a path unique to this run, to look for its process afterwards)."""
    root = tmp_path_factory.mktemp("mcp-launch")
    server = root / "fixture_server.py"
    shutil.copy(SERVER, server)
    config = root / ".mcp.json"
    config.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "files": {"command": sys.executable, "args": [str(server)], "env": {"API_TOKEN": SECRET}},
                    "docs": {"type": "http", "url": "https://example.com/mcp"},
                }
            }
        ),
        encoding="utf-8",
    )
    cache = root / "cache"
    code, out, err = _run(
        "mcp", "footprint", str(config), "--launch", "-m", "claude-sonnet-4-5", "--format", "json",
        "--as-of", AS_OF, "--cache-dir", str(cache),
    )  # fmt: skip
    return {
        "code": code, "out": out, "err": err, "config": config, "cache": cache, "server": server,
        "report": json.loads(out) if out else None,
    }  # fmt: skip


def test_launch_lists_the_servers_tools_with_their_tokens(launched: dict[str, Any]) -> None:
    assert (launched["code"], launched["err"]) == (0, "")
    report = launched["report"]
    assert report["kind"] == "mcp_footprint"
    _valid(report)
    files, docs = report["servers"]
    assert (files["name"], files["source"], files["tool_count"]) == ("files", "launch", 3)
    (on_sonnet,) = files["models"]
    assert sorted(t["name"] for t in on_sonnet["tools"]) == ["grep", "read_file", "run_tests"]
    assert on_sonnet["tokens"] == sum(t["tokens"] for t in on_sonnet["tools"])
    assert (docs["source"], docs["status"], docs["models"]) == (None, "not launched: remote server", [])


def test_launched_tokens_are_what_a_scenario_with_that_tool_list_counts(launched: dict[str, Any]) -> None:
    """The independent path: the cached tools/list given to a scenario's ``tools: - file:`` (read by
    the scenario loader, not by agentcost.mcp); its tool prefix as the token counter counts a
    scenario's (``TokenCounts.tools``) and each tool's marginal tokens (--explain's footprint)."""
    from agentcost import api
    from agentcost.loop.footprint import definition_sizes
    from agentcost.tokens.count import count_tokens

    (cached,) = launched["cache"].iterdir()
    scenario = api.load_scenario(
        {
            "version": 1,
            "model": "claude-sonnet-4-5",
            "tools": [{"file": cached.name}],
            "task": "hi",
            "final": 10,
        },
        base_dir=cached.parent,
    )
    model = launched["report"]["models"][0]
    assert (
        model["prefix_tokens"]
        == count_tokens(scenario, provider="anthropic", model_id="claude-sonnet-4-5").tools
    )
    sizes = definition_sizes(scenario, "anthropic", "claude-sonnet-4-5")
    (on_sonnet,) = launched["report"]["servers"][0]["models"]
    assert {t["name"]: t["tokens"] for t in on_sonnet["tools"]} == sizes
    # $3 per million input tokens, $0.30 read from the cache (claude-sonnet-4-5 on 2026-11-30)
    assert Decimal(model["request_usd"]) == Decimal(model["prefix_tokens"]) * Decimal("0.000003")
    assert Decimal(model["cached_request_usd"]) == Decimal(model["prefix_tokens"]) * Decimal("0.0000003")


def test_launch_shows_no_secret_no_server_stderr_and_leaves_no_process(launched: dict[str, Any]) -> None:
    assert SECRET not in launched["out"] + launched["err"]
    assert "test server: starting" not in launched["out"] + launched["err"]  # its stderr is discarded
    assert launched["report"]["servers"][0]["env"] == ["API_TOKEN"]
    assert _processes_running(str(launched["server"])) == []


def test_a_launched_list_is_read_from_the_cache_without_launch(launched: dict[str, Any]) -> None:
    code, out, err = _run(
        "mcp", "footprint", str(launched["config"]), "-m", "claude-sonnet-4-5", "--format", "json",
        "--as-of", AS_OF, "--cache-dir", str(launched["cache"]),
    )  # fmt: skip
    assert (code, err) == (0, "")
    again = json.loads(out)
    assert again["servers"][0]["source"] == "cache"
    assert again["models"] == launched["report"]["models"]


# ---------------------------------------------------------------------------------------------
# serve: the SDK's client over stdio, once


@pytest.fixture(scope="module")
def served() -> dict[str, Any]:
    import anyio
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "agentcost", "mcp", "serve"],
        env={"PYTHONPATH": str(ROOT), **{k: v for k, v in os.environ.items() if k.startswith("AGENTCOST_")}},
        cwd=str(ROOT),
    )
    results: dict[str, Any] = {}

    async def session() -> None:
        with open(os.devnull, "w", encoding="utf-8") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as s:
                await s.initialize()
                results["tools"] = [t.name for t in (await s.list_tools()).tools]
                args = {"scenario": "scenarios/bugfix.yaml", "as_of": AS_OF}
                results["estimate"] = await s.call_tool("estimate", args)
                results["missing"] = await s.call_tool("estimate", {"scenario": "scenarios/nope.yaml"})

    anyio.run(session)
    return results


def test_serve_lists_its_tools(served: dict[str, Any]) -> None:
    assert served["tools"] == ["estimate", "compare", "prices", "footprint", "caps"]


def test_serve_estimate_is_the_clis_json(served: dict[str, Any]) -> None:
    result = served["estimate"]
    assert not result.is_error
    text = result.content[0].text
    assert json.loads(text)["totals"]["cost_usd"] == "0.0286497"  # README's bugfix total
    code, out, err = _run("estimate", "scenarios/bugfix.yaml", "--as-of", AS_OF, "--format", "json")
    assert (code, err) == (0, "") and text == out


def test_serve_bad_input_is_a_tool_error_of_one_line(served: dict[str, Any]) -> None:
    result = served["missing"]
    assert result.is_error
    (content,) = result.content
    assert content.text == "Error executing tool estimate: scenarios/nope.yaml: file not found"


# ---------------------------------------------------------------------------------------------
# config formats, in-process


def _write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=1), encoding="utf-8")
    return path


def test_the_four_client_config_formats(tmp_path: Path) -> None:
    claude_code = _write(
        tmp_path / ".mcp.json",
        {
            "mcpServers": {
                "fs": {"command": "npx", "args": ["-y", "server-fs", "."], "env": {"B": "2", "A": "1"}},
                "notion": {"type": "http", "url": "https://mcp.notion.com/mcp"},
                "old": {"type": "sse", "url": "https://example.com/sse"},
            }
        },
    )
    desktop = _write(
        tmp_path / "claude_desktop_config.json",
        {"mcpServers": {"git": {"command": "uvx", "args": ["mcp-server-git"]}}, "preferences": {}},
    )
    cursor = _write(
        tmp_path / ".cursor" / "mcp.json",
        {"mcpServers": {"ctx": {"url": "https://mcp.context7.com/mcp", "headers": {"K": "v"}}}},
    )
    vscode = _write(
        tmp_path / ".vscode" / "mcp.json",
        {
            "inputs": [{"type": "promptString", "id": "token", "password": True}],
            "servers": {"gh": {"type": "stdio", "command": "docker", "args": ["run", "-i", "gh"]}},
        },
    )
    fs, notion, old = read_config(claude_code).servers
    assert (fs.transport, fs.command, fs.args, fs.env_names) == (
        "stdio",
        "npx",
        ("-y", "server-fs", "."),
        ("A", "B"),
    )
    assert (notion.transport, notion.url, old.transport) == ("http", "https://mcp.notion.com/mcp", "sse")
    assert SECRET not in repr(fs)  # env values are never in a repr
    (git,) = read_config(desktop).servers
    assert (git.name, git.command, git.args) == ("git", "uvx", ("mcp-server-git",))
    (ctx,) = read_config(cursor).servers
    assert (ctx.transport, ctx.url) == ("http", "https://mcp.context7.com/mcp")
    config = read_config(vscode)
    assert config.layout == "servers"
    assert [(s.name, s.transport, s.command) for s in config.servers] == [("gh", "stdio", "docker")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"mcpServers": {"a": {"command": "x"', "cfg.json:1: invalid JSON: "),  # cut short
        ("[1, 2]", "cfg.json:1: expected a JSON object, got a list"),
        ('{"tools": []}', "cfg.json:1: no MCP servers: neither 'mcpServers' nor 'servers' is a key"),
        ('{"mcpServers": []}', "cfg.json:1: mcpServers: expected an object of servers by name, got a list"),
        ('{"mcpServers": {"a": 1}}', "cfg.json:1: mcpServers.a: expected a server object, got a number"),
        ('{"mcpServers": {"a": {"args": []}}}', "cfg.json:1: mcpServers.a.command: missing"),
        (
            '{"mcpServers": {"a": {"command": "x", "args": "' + SECRET + '"}}}',
            "cfg.json:1: mcpServers.a.args: expected a list of texts, got a text",
        ),
        (
            '{"mcpServers": {"a": {"command": "x", "env": {"K": {"v": "' + SECRET + '"}}}}}',
            "cfg.json:1: mcpServers.a.env.K: expected a text, got an object",
        ),
        (
            '{"mcpServers": {"a": {"type": "ws", "url": "u"}}}',
            "cfg.json:1: mcpServers.a.type: unknown server type 'ws'",
        ),
        ('{"servers": {"a": {"type": "http"}}}', "cfg.json:1: servers.a.url: missing"),
    ],
)
def test_bad_configs_are_one_line_errors(tmp_path: Path, text: str, expected: str) -> None:
    config = _write(tmp_path / "cfg.json", text)
    code, out, err = _run("mcp", "footprint", str(config), "-m", "gpt-5", "--as-of", AS_OF)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and "Traceback" not in err and SECRET not in err, err
    assert err.startswith(f"agentcost: error: {tmp_path / expected}"), err


def test_a_huge_config_is_refused_by_its_size(tmp_path: Path) -> None:
    config = _write(tmp_path / "cfg.json", '{"mcpServers": {}, "pad": "' + "x" * MAX_CONFIG_BYTES + '"}')
    code, out, err = _run("mcp", "footprint", str(config), "-m", "gpt-5")
    assert (code, out) == (2, "")
    assert (
        err.startswith(f"agentcost: error: {config}: cannot read the MCP config: file too large: ")
        and "\n" not in err[:-1]
    ), err


# ---------------------------------------------------------------------------------------------
# pricing and gates, in-process, on a cached tools/list


@pytest.fixture
def github(tmp_path: Path) -> Path:
    return _write(tmp_path / ".mcp.json", {"mcpServers": {"github": {"command": "github-mcp"}}})


def _footprint(config: Path, *args: str) -> tuple[int, str, str]:
    return _run(
        "mcp", "footprint", str(config), "--tools-list", f"github={GITHUB_TOOLS}", "--as-of", AS_OF,
        "--cache-dir", str(config.parent / "cache"), *args,
    )  # fmt: skip


def test_per_request_dollars_on_two_models(github: Path) -> None:
    code, out, err = _footprint(github, "-m", "claude-sonnet-4-5", "-m", "gpt-5", "--format", "json")
    assert (code, err) == (0, "")
    sonnet, gpt5 = json.loads(out)["models"]
    # the 40 tools: 7,648 tokens on Claude Sonnet 4.5 (approximate), 3,267 on GPT-5 (exact)
    assert (sonnet["prefix_tokens"], sonnet["approximate"]) == (7648, True)
    assert (gpt5["prefix_tokens"], gpt5["approximate"]) == (3267, False)
    assert sonnet["request_usd"] == "0.022944"  # 7,648 x $3 / 1M
    assert sonnet["cached_request_usd"] == "0.0022944"  # 7,648 x $0.30 / 1M
    assert gpt5["request_usd"] == "0.00408375"  # 3,267 x $1.25 / 1M
    assert gpt5["cached_request_usd"] == "0.000408375"  # 3,267 x $0.125 / 1M
    assert (sonnet["run"], gpt5["definitions_tokens"]) == (None, 3255)  # 12 tokens of closing framing


def test_the_gates_exit_1_and_say_so(github: Path) -> None:
    code, out, err = _footprint(github, "-m", "gpt-5", "--max-tokens", "3000", "--budget", "0.01")
    assert code == 1
    tripped = "over --max-tokens: the tool definitions are 3,267 > 3,000 tokens per request on gpt-5"
    assert " ".join(out.split()).startswith(f"O{tripped[1:]}.")  # the verdict leads, as the exit code says
    assert err == f"agentcost: gate failed: {github}: {tripped}\n"
    code, out, err = _footprint(github, "-m", "gpt-5", "--max-tokens", "3267", "--budget", "0.004")
    assert (code, err.count("gate failed")) == (1, 1)  # $0.00408375 > $0.004 per request
    assert "over budget: $0.0041 > $0.0040 per request on gpt-5" in err
    code, out, err = _footprint(github, "-m", "gpt-5", "--max-tokens", "3267", "--budget", "0.0041")
    assert (code, err) == (0, "")
    # decimals to tell apart, first
    assert " ".join(out.split()).startswith("Within --max-tokens: the tool definitions are 3,267 <= 3,267")
    assert "Within budget: $0.00408 <= $0.00410 per request" in " ".join(out.split())


def test_with_a_scenario_the_run_is_priced_with_the_tools_loaded_and_deferred(github: Path) -> None:
    code, out, err = _footprint(
        github,
        "-m",
        "claude-sonnet-4-5",
        "--scenario",
        str(ROOT / "scenarios/bugfix.yaml"),
        "--format",
        "json",
    )
    assert (code, err) == (0, "")
    data = json.loads(out)
    _valid(data)  # every run field, against the published schema
    run_ = data["models"][0]["run"]
    assert run_["scenario_usd"] == "0.0286497"  # the scenario as written: README's bugfix total
    assert Decimal(run_["scenario_usd"]) < Decimal(run_["deferred_usd"]) < Decimal(run_["with_tools_usd"])
    assert Decimal(run_["added_usd"]) == Decimal(run_["with_tools_usd"]) - Decimal("0.0286497")
    assert run_["requests"] == 9


def test_the_table_leads_with_the_answer_and_fits_60_columns(
    github: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    monkeypatch.chdir(github.parent)
    code, out, err = _footprint(Path(".mcp.json"), "-m", "gpt-5")
    assert (code, err) == (0, "")
    assert " ".join(out.split()).startswith(
        "MCP tools of .mcp.json: 40 tools on 1 server, in every request: 3,267 tokens on gpt-5. gpt-5 (openai)"
    )
    assert max(len(line) for line in out.splitlines()) <= 60
    assert "│ github │    40 │  3,255 │     $0.0041 │    $0.0004 │" in out


def test_launch_without_the_sdk_says_what_to_install(github: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "mcp", None)  # import mcp raises ImportError
    code, out, err = _run(
        "mcp", "footprint", str(github), "--launch", "-m", "gpt-5", "--cache-dir", str(github.parent)
    )
    assert (code, out) == (2, "")
    assert (
        err
        == "agentcost: error: --launch: the MCP Python SDK is not installed: pip install 'agentcost-estimate[mcp]'\n"
    )


def test_a_server_that_never_answers_times_out_and_is_ended(tmp_path: Path) -> None:
    marker = f"{tmp_path}/never-answers"
    config = _write(
        tmp_path / ".mcp.json",
        {
            "mcpServers": {
                "mute": {"command": sys.executable, "args": ["-c", "import time; time.sleep(60)", marker]}
            }
        },
    )
    code, out, err = _run(
        "mcp",
        "footprint",
        str(config),
        "--launch",
        "--timeout",
        "0.2",
        "-m",
        "gpt-5",
        "--cache-dir",
        str(tmp_path),
    )
    assert (code, out) == (2, "")
    assert err == (
        "agentcost: error: --launch: MCP server 'mute' did not list its tools within 0.2 s"
        " (raise --timeout, or run its command by hand to see why it hangs)\n"
    )
    assert _processes_running(marker) == []


def test_a_server_that_cannot_start_is_one_line(tmp_path: Path) -> None:
    config = _write(
        tmp_path / ".mcp.json", {"mcpServers": {"gone": {"command": str(tmp_path / "no-such-server")}}}
    )
    code, out, err = _run(
        "mcp", "footprint", str(config), "--launch", "-m", "gpt-5", "--cache-dir", str(tmp_path)
    )
    assert (code, out) == (2, "")
    assert err == (
        "agentcost: error: --launch: cannot start MCP server 'gone': No such file or directory"
        " (is its command installed and on PATH?)\n"
    )


def test_variables_are_expanded_from_the_environment_as_the_clients_do(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agentcost.mcp.launch import expand

    monkeypatch.setenv("AGENTCOST_TEST_TOKEN", "t0k")
    monkeypatch.delenv("AGENTCOST_TEST_UNSET", raising=False)
    assert expand("Bearer ${AGENTCOST_TEST_TOKEN}") == "Bearer t0k"  # Claude Code
    assert expand("${env:AGENTCOST_TEST_TOKEN}") == "t0k"  # Cursor, VS Code
    assert expand("${AGENTCOST_TEST_UNSET:-fallback}") == "fallback"
    assert expand("${AGENTCOST_TEST_UNSET}/${input:token}") == "${AGENTCOST_TEST_UNSET}/${input:token}"


def test_serve_caps_is_the_clis_json() -> None:
    """The caps tool (called in-process, as the server calls it) prints what `agentcost caps` does,
    on the same simulated runs: 500 runs, seed 0, at p99 (tests/test_caps.py checks the figures)."""
    from agentcost.mcp import serve

    text = serve.caps("scenarios/uncertain-steps.yaml", runs=500, as_of=AS_OF)
    args = (
        "caps",
        "scenarios/uncertain-steps.yaml",
        "--simulate",
        "500",
        "--as-of",
        AS_OF,
        "--format",
        "json",
    )
    code, out, err = _run(*args)
    assert (code, err) == (0, "") and text == out
    assert json.loads(text)["max_turns"] == 24  # tests/test_caps.py: p99 of these runs, 24 requests
