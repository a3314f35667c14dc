"""The error catalogue: malformed and hostile input through the real command line, each with the exact
line it prints.

Every case writes its files into an empty directory, runs ``agentcost.cli.run(argv)`` there and
checks the whole of standard error: one line (``agentcost: error: FILE:LINE: KEY: MESSAGE (HINT)``,
the parts that apply), no traceback, nothing on standard output, exit code 2. Read the table as
documentation of what each kind of bad input says; docs/limits.md explains the limits behind the
hostile ones (huge files, alias bombs, deep nesting, round counts).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agentcost.cli import run

OK = "version: 1\nmodel: gpt-5\ntask: hi\nfinal: 10\n"  # the smallest valid scenario: lines 1-4
TOOL = "tools: [{name: Read, input_schema: {type: object}}]\n"  # line 5 after OK
BOMB = (
    OK
    + "description:\n"
    + "".join(  # "billion laughs": 10 aliases per level, 9 levels
        f"  a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10 if i else ["lol"] * 10) + "]\n" for i in range(9)
    )
)
SUB = (  # a scenario whose one round, repeated {1} times, starts the subagent of file {0}
    "version: 1\nmodel: gpt-4o\ntask: 100\nrounds:\n"
    "  - {{tool: ask, call_tokens: 20, subagent: {{file: {}}}, repeat: {}}}\nfinal: 200\n"
)
ANTHROPIC = (  # one call of the Anthropic Messages API, as a JSONL log line; {} is the tools list
    '{{"request": {{"model": "claude-sonnet-4-5", "max_tokens": 100, "tools": {}, "messages": [{{"role": '
    '"user", "content": "hi"}}]}}, "response": {{"model": "claude-sonnet-4-5", "content": [{{"type": '
    '"text", "text": "hello"}}], "usage": {{"input_tokens": 8, "output_tokens": 2}}}}}}\n'
)
MCP_CONFIG = (  # a Claude Code .mcp.json: a stdio server (line 2) and a remote one (line 3)
    '{"mcpServers": {\n  "github": {"command": "github-mcp-server"},\n'
    '  "docs": {"type": "http", "url": "https://mcp.example.com/mcp"}\n}}\n'
)
MCP_LIST = '{"tools": [{"name": "list_issues", "inputSchema": {"type": "object"}}]}\n'
MCP = OK + "tools:\n  - mcp: .mcp.json\n"  # the entry at line 6; {"tools_lists": ...} at line 7
TRAJ = '{"history": [{"role": "user", "content": "fix it"}], "info": {"model_stats": {}}}'
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01"


@dataclass(frozen=True)
class Sparse:
    """A file of ``size`` bytes made with ``truncate``: no disk blocks, created in no time."""

    size: int


@dataclass(frozen=True)
class Unreadable:
    """A file with this text and mode 000 (not readable by its owner, unless the owner is root)."""

    text: str


DIR = "a directory"
Files = dict[str, str | bytes | Sparse | Unreadable]


def case(case_id: str, files: Files, argv: str | list[str], message: str, code: int = 2) -> Any:
    """One row: the files written first, the command line (split on spaces), the whole error line."""
    marks = []
    if any(isinstance(v, Unreadable) for v in files.values()):
        marks.append(
            pytest.mark.skipif(
                hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads mode 000 files"
            )
        )
    return pytest.param(files, argv, message, code, id=case_id, marks=marks)


CATALOGUE = [
    # -- the command line -----------------------------------------------------------------------
    case(
        "unknown option",
        {"s.yaml": OK},
        "estimate s.yaml --bogus",
        "No such option: --bogus (Possible options: --verbose) (see 'agentcost estimate --help')",
    ),
    case(
        "unknown command",
        {},
        "estimat s.yaml",
        "No such command 'estimat'. Did you mean 'estimate'? (see 'agentcost --help')",
    ),
    case(
        "missing argument",
        {},
        "estimate",
        "Missing argument 'SCENARIO...'. (see 'agentcost estimate --help')",
    ),
    case(
        "unknown --format",
        {"s.yaml": OK},
        "estimate s.yaml --format xml",
        (
            "Invalid value for '--format' / '-f': 'xml' is not one of 'table', 'json', "
            "'markdown', 'csv', 'svg'. (see 'agentcost estimate --help')"
        ),
    ),
    case(
        "unknown --service-tier",
        {"s.yaml": OK},
        "estimate s.yaml --service-tier gold",
        (
            "Invalid value for '--service-tier': 'gold' is not one of 'standard', 'batch', "
            "'flex', 'priority'. (see 'agentcost estimate --help')"
        ),
    ),
    case(
        "negative --budget",
        {"s.yaml": OK},
        "estimate s.yaml --budget -1",
        "--budget: must be a dollar amount above 0 and at most 1,000,000,000, got '-1'",
    ),
    case(
        "NaN --budget",
        {"s.yaml": OK},
        "estimate s.yaml --budget NaN",
        "--budget: must be a dollar amount above 0 and at most 1,000,000,000, got 'NaN'",
    ),
    case(
        "--budget not a number",
        {"s.yaml": OK},
        "estimate s.yaml --budget abc",
        "--budget: not a dollar amount: 'abc' (e.g. --budget 0.05)",
    ),
    case(
        "huge --budget",
        {"s.yaml": OK},
        "estimate s.yaml --budget 1e999999999",
        "--budget: must be a dollar amount above 0 and at most 1,000,000,000, got '1e999999999'",
    ),
    case(
        "--as-of not a date",
        {"s.yaml": OK},
        "estimate s.yaml --as-of yesterday",
        "--as-of: not a usable date: 'yesterday' (use an ISO date such as 2026-11-30)",
    ),
    case(
        "--as-of impossible date",
        {"s.yaml": OK},
        "estimate s.yaml --as-of 2026-13-45",
        "--as-of: not a usable date: '2026-13-45' (use an ISO date such as 2026-11-30)",
    ),
    case(
        "--set without =",
        {"s.yaml": OK},
        "estimate s.yaml --set limits.max_rounds",
        (
            "s.yaml: --set limits.max_rounds: no '=' between the path and the value (write --set PATH=VALUE, "
            "e.g. --set limits.max_rounds=40)"
        ),
    ),
    case(
        "--set unknown key",
        {"s.yaml": OK},
        "estimate s.yaml --set limits.max_round=40",
        (
            "s.yaml: --set limits.max_round=40: unknown key 'max_round' in limits (allowed: max_rounds, "
            "budget_usd, max_budget_usd, max_concurrent_subagents, max_tokens; did you mean 'max_rounds'?)"
        ),
    ),
    case(
        "--set negative size",
        {"s.yaml": OK},
        "estimate s.yaml --set final=-5",
        "s.yaml: --set final=-5: must be >= 0, got -5",
    ),
    case(
        "--set NUL character",
        {"s.yaml": OK},
        ["estimate", "s.yaml", "--set", "name=a\x00b"],
        (
            "s.yaml: --set name=a\\x00b: YAML syntax error: character '\\x00' is not allowed in YAML (control "
            "characters are not allowed) (VALUE is read as YAML, as if written after 'KEY: ' in the file; "
            "quote it if it is text)"
        ),
    ),
    case(
        "path with a NUL character",
        {},
        ["estimate", "s\x00.yaml"],
        "Invalid value for 'SCENARIO...': embedded null byte (see 'agentcost estimate --help')",
    ),
    case(
        "unknown --model",
        {"s.yaml": OK},
        "estimate s.yaml --model gpt-5x",
        (
            "--model: unknown model 'gpt-5x' (did you mean: gpt-5, gpt-5.5, gpt-5.4? run 'agentcost models' "
            "to list known models)"
        ),
    ),
    case(
        "--max-increase not a percentage",
        {"s.yaml": OK},
        "diff s.yaml s.yaml --max-increase abc",
        "--max-increase: not a percentage: 'abc' (e.g. 10%)",
    ),
    case(
        "--output is a directory",
        {"s.yaml": OK, "out": DIR},
        "estimate s.yaml -o out --as-of 2026-11-30",
        "out: --output: is a directory, not a file (give a file name)",
    ),
    # -- files that cannot be read as text --------------------------------------------------------
    case(
        "missing file",
        {},
        "estimate nope.yaml",
        "nope.yaml: file not found",
    ),
    case(
        "a directory as the scenario",
        {"scenarios": DIR},
        "estimate scenarios",
        "scenarios: is a directory, not a file",
    ),
    case(
        "unreadable file (mode 000)",
        {"s.yaml": Unreadable(OK)},
        "estimate s.yaml",
        "s.yaml: permission denied",
    ),
    case(
        "binary file",
        {"s.yaml": PNG},
        "estimate s.yaml",
        "s.yaml:1: not UTF-8 text (byte 0x89 on line 1)",
    ),
    case(
        "NUL byte in UTF-8 text",
        {"s.yaml": OK.encode() + b"name: a\x00b\n"},
        "estimate s.yaml",
        "s.yaml:5: not a text file (a NUL byte on line 5; binary data, or UTF-16?)",
    ),
    case(
        "Latin-1 text",
        {"s.yaml": (OK + "name: café\n").encode("latin-1")},
        "estimate s.yaml",
        "s.yaml:5: not UTF-8 text (byte 0xe9 on line 5)",
    ),
    case(
        "UTF-16 text with a BOM",
        {"s.yaml": OK.encode("utf-16")},
        "estimate s.yaml",
        "s.yaml:1: not UTF-8 text (byte 0xff on line 1)",
    ),
    case(
        "UTF-16 text without a BOM",
        {"s.yaml": OK.encode("utf-16-le")},
        "estimate s.yaml",
        "s.yaml:1: not a text file (a NUL byte on line 1; binary data, or UTF-16?)",
    ),
    case(
        "empty file",
        {"s.yaml": ""},
        "estimate s.yaml",
        "s.yaml:1: the file is empty",
    ),
    case(
        "100 MB scenario",
        {"s.yaml": Sparse(100_000_000)},
        "estimate s.yaml",
        (
            "s.yaml: file too large: 100,000,000 bytes, over the limit of 10,000,000 bytes ("
            "real files stay far below it)"
        ),
    ),
    case(
        "100 MB content file",
        {"s.yaml": OK + "system: {file: big.md}\n", "big.md": Sparse(100_000_000)},
        "estimate s.yaml",
        (
            "s.yaml:5: system.file: cannot read big.md: file too large: 100,000,000 bytes, over the limit of "
            "10,000,000 bytes (real files stay far below it)"
        ),
    ),
    case(
        "binary content file",
        {"s.yaml": OK + "system: {file: logo.png}\n", "logo.png": PNG},
        "estimate s.yaml",
        "s.yaml:5: system.file: cannot read logo.png: not UTF-8 text (byte 0x89 on line 1)",
    ),
    case(
        "missing content file",
        {"s.yaml": OK + "system: {file: prompts/system.md}\n"},
        "estimate s.yaml",
        "s.yaml:5: system.file: cannot read prompts/system.md: file not found",
    ),
    # -- YAML ---------------------------------------------------------------------------------------
    case(
        "YAML syntax error",
        {"s.yaml": "version: 1\nmodel: gpt-5\ntask: [hi\nfinal: 10\n"},
        "estimate s.yaml",
        "s.yaml:4: YAML syntax error: did not find expected ',' or ']' (while parsing a flow sequence)",
    ),
    case(
        "tab indentation",
        {"s.yaml": OK + "rounds:\n\t- tool: Read\n"},
        "estimate s.yaml",
        (
            "s.yaml:6: YAML syntax error: found character that cannot start any token (indent with spaces: "
            "YAML does not allow tabs there)"
        ),
    ),
    case(
        "duplicate key",
        {"s.yaml": OK + "final: 20\n"},
        "estimate s.yaml",
        "s.yaml:5: final: duplicate key (first at line 4)",
    ),
    case(
        "a list at the top",
        {"s.yaml": "- version: 1\n"},
        "estimate s.yaml",
        "s.yaml:1: expected a mapping of scenario keys at the top level, got a list",
    ),
    case(
        "python tag",
        {"s.yaml": OK + "name: !!python/object:os.system ls\n"},
        "estimate s.yaml",
        "s.yaml:5: name: unsupported YAML tag !!python/object:os.system (remove the tag)",
    ),
    case(
        "alias bomb (billion laughs)",
        {"s.yaml": BOMB},
        "estimate s.yaml",
        (
            "s.yaml:12: description.a6: expands to more than 2,000,000 values, the limit for one file (each "
            "YAML alias repeats all that its anchor holds, so aliases of aliases multiply; "
            "real files stay far below it)"
        ),
    ),
    case(
        "alias inside its own anchor",
        {"s.yaml": OK + "description: &a [*a]\n"},
        "estimate s.yaml",
        "s.yaml:5: description[0]: a YAML alias refers to a node that contains it",
    ),
    case(
        "nested 150 levels deep",
        {"s.yaml": OK + "description: " + "[" * 150 + "]" * 150 + "\n"},
        "estimate s.yaml",
        (
            "s.yaml:5: description: the file is nested too deeply: more than 100 levels of mappings and "
            "lists (flatten it; real files stay far below it)"
        ),
    ),
    case(
        "nested 100,000 levels deep",
        {"s.yaml": OK + "description: " + "[" * 100_000 + "]" * 100_000},
        "estimate s.yaml",
        (
            "s.yaml:5: the file is nested too deeply: more than 100 levels of mappings and lists (flatten "
            "it; real files stay far below it)"
        ),
    ),
    case(
        "deep JSON tool file",
        {"s.yaml": OK + "tools: [{file: tools.json}]\n", "tools.json": "[" * 5000 + "]" * 5000},
        "estimate s.yaml",
        (
            "tools.json:1: the file is nested too deeply: more than 100 levels of mappings and lists "
            "(flatten it; real files stay far below it; tool file named at s.yaml:5)"
        ),
    ),
    case(
        "mcp: a server without a tools list",
        {
            "s.yaml": MCP + "    tools_lists: {github: gh.json}\n",
            ".mcp.json": MCP_CONFIG,
            "gh.json": MCP_LIST,
        },
        "estimate s.yaml",
        (
            "s.yaml:6: tools[0].mcp: no tools list for the MCP server at .mcp.json:3 (give its tools/list"
            " in tools_lists: {NAME: FILE}, a file committed with the scenario: `agentcost mcp footprint "
            ".mcp.json --launch --cache-dir DIR` saves each server's list in DIR)"
        ),
    ),
    case(
        "mcp: a named server without a tools list",
        {
            "s.yaml": MCP + "    servers: [github, docs]\n    tools_lists: {github: gh.json}\n",
            ".mcp.json": MCP_CONFIG,
            "gh.json": MCP_LIST,
        },
        "estimate s.yaml",
        (
            "s.yaml:7: tools[0].servers[1]: no tools list for MCP server 'docs' (give its tools/list in "
            "tools_lists: {docs: FILE}, a file committed with the scenario: `agentcost mcp footprint "
            ".mcp.json --launch --cache-dir DIR` saves each server's list in DIR)"
        ),
    ),
    case(
        "mcp: an unknown server",
        {"s.yaml": MCP + "    servers: [github, gitlab]\n", ".mcp.json": MCP_CONFIG},
        "estimate s.yaml",
        (
            "s.yaml:7: tools[0].servers[1]: no MCP server 'gitlab' in the config (name one of the 2 "
            "servers under 'mcpServers' in the config)"
        ),
    ),
    case(
        "mcp: a tools list of an unknown server",
        {"s.yaml": MCP + "    tools_lists: {gh: gh.json}\n", ".mcp.json": MCP_CONFIG, "gh.json": MCP_LIST},
        "estimate s.yaml",
        (
            "s.yaml:7: tools[0].tools_lists.gh: no MCP server 'gh' in the config (name one of the 2 "
            "servers under 'mcpServers' in the config)"
        ),
    ),
    case(
        "mcp: a bad config",
        {
            "s.yaml": MCP + "    tools_lists: {github: gh.json}\n",
            ".mcp.json": MCP_CONFIG.replace('"command"', '"comand"'),
            "gh.json": MCP_LIST,
        },
        "estimate s.yaml",
        (
            ".mcp.json:2: <key>.<key>.<key>: missing (a stdio server needs a command; a remote one a url;"
            " MCP config named at s.yaml:6)"
        ),
    ),
    case(
        "mcp: a config that is not one",
        {"s.yaml": MCP, ".mcp.json": '{"tools": []}\n'},
        "estimate s.yaml",
        (
            ".mcp.json:1: no MCP servers: neither 'mcpServers' nor 'servers' is a key (an MCP client "
            'config: {"mcpServers": {...}} (Claude Code, Claude Desktop, Cursor) or {"servers": {...}} '
            "(VS Code); MCP config named at s.yaml:6)"
        ),
    ),
    case(
        "mcp: a bad tools list",
        {
            "s.yaml": MCP + "    tools_lists: {github: gh.json}\n",
            ".mcp.json": MCP_CONFIG,
            "gh.json": '{"tools": [{"name": "x", "input": {}}]}',
        },
        "estimate s.yaml",
        (
            "gh.json:1: tools[0].input: unknown key (allowed: name, title, description, inputSchema, "
            "outputSchema, annotations, _meta, icons, defer_loading; did you mean 'inputSchema'?; "
            "tools/list named at s.yaml:7)"
        ),
    ),
    case(
        "mcp: a server tool in a tools list",
        {
            "s.yaml": MCP + "    tools_lists: {github: gh.json}\n",
            ".mcp.json": MCP_CONFIG,
            "gh.json": '[{"type": "web_search_20250305", "name": "web_search"}]',
        },
        "estimate s.yaml",
        (
            "gh.json:1: [0]: a provider's server tool, not a tool an MCP server lists (tools/list named "
            "at s.yaml:7)"
        ),
    ),
    case(
        "mcp: a config not found",
        {"s.yaml": MCP.replace(".mcp.json", "nope.json")},
        "estimate s.yaml",
        "s.yaml:6: tools[0].mcp: cannot read nope.json: file not found",
    ),
    case(
        "a 5,000-digit number",
        {"s.yaml": OK.replace("final: 10", "final: " + "9" * 5000)},
        "estimate s.yaml",
        (
            "s.yaml:4: final: not an integer: 9999999999999999999999999999999999999... (5,000 characters) (a "
            "number is read with at most 4,300 digits)"
        ),
    ),
    # -- keys, types and values ---------------------------------------------------------------------
    case(
        "unknown key",
        {"s.yaml": OK + TOOL + "rounds:\n  - tool: Read\n    rsult: 1200\n"},
        "estimate s.yaml",
        (
            "s.yaml:8: rounds[0].rsult: unknown key (allowed: tool, input, call_tokens, result, calls, "
            "subagent, model, repeat, thinking, text, seconds, container_seconds, server_tools; did you mean "
            "'result'?)"
        ),
    ),
    case(
        "missing required key",
        {"s.yaml": OK.replace("final: 10\n", "")},
        "estimate s.yaml",
        (
            "s.yaml:1: final: required key is missing (the final answer: an integer (tokens), a text, or one "
            "of {tokens: N}, {text: ...}, {file: path})"
        ),
    ),
    case(
        "version as text",
        {"s.yaml": OK.replace("version: 1", "version: one")},
        "estimate s.yaml",
        "s.yaml:1: version: expected an integer, got text 'one' (supported: 1)",
    ),
    case(
        "rounds as a mapping",
        {"s.yaml": OK + TOOL + "rounds:\n  tool: Read\n"},
        "estimate s.yaml",
        "s.yaml:6: rounds: expected a list, got a mapping (start each item with '- ')",
    ),
    case(
        "size as a float",
        {"s.yaml": OK.replace("final: 10", "final: 1.5")},
        "estimate s.yaml",
        (
            "s.yaml:4: final: expected an integer (tokens), a text, or one of {tokens: N}, {text: ...}, "
            "{file: path}, got 1.5"
        ),
    ),
    case(
        "negative size",
        {"s.yaml": OK + TOOL + "rounds:\n  - {tool: Read, call_tokens: 9, result: -5}\n"},
        "estimate s.yaml",
        "s.yaml:7: rounds[0].result: must be >= 0, got -5",
    ),
    case(
        "NaN size",
        {"s.yaml": OK.replace("final: 10", "final: .nan")},
        "estimate s.yaml",
        "s.yaml:4: final: not a finite number: .nan",
    ),
    case(
        "infinite size",
        {"s.yaml": OK.replace("final: 10", "final: .inf")},
        "estimate s.yaml",
        "s.yaml:4: final: not a finite number: .inf",
    ),
    case(
        "huge size",
        {"s.yaml": OK.replace("final: 10", "final: {tokens: 100000000000000}")},
        "estimate s.yaml",
        "s.yaml:4: final.tokens: must be <= 1,000,000,000, got 100000000000000",
    ),
    case(
        "huge round count",
        {"s.yaml": OK + TOOL + "rounds:\n  - {tool: Read, call_tokens: 9, result: 9, repeat: 1000000000}\n"},
        "estimate s.yaml",
        "s.yaml:7: rounds[0]: more than 100,000 rounds after repeats",
    ),
    case(
        "negative budget in the file",
        {"s.yaml": OK + "limits: {budget_usd: -1}\n"},
        "estimate s.yaml",
        "s.yaml:5: limits.budget_usd: must be > 0, got -1",
    ),
    case(
        "output cap of zero",
        {"s.yaml": OK + "limits: {max_tokens: 0}\n"},
        "estimate s.yaml",
        "s.yaml:5: limits.max_tokens: must be >= 1, got 0",
    ),
    case(
        "output cap as a fraction",
        {"s.yaml": OK + "limits: {max_tokens: 1.5}\n"},
        "estimate s.yaml",
        "s.yaml:5: limits.max_tokens: expected an integer, got 1.5",
    ),
    case(
        "unknown model",
        {"s.yaml": OK.replace("gpt-5", "gpt-5x")},
        "estimate s.yaml --as-of 2026-11-30",
        (
            "s.yaml:2: model: unknown model 'gpt-5x' (did you mean: gpt-5, gpt-5.5, gpt-5.4? run 'agentcost "
            "models' to list known models)"
        ),
    ),
    case(
        "unknown tool",
        {"s.yaml": OK + TOOL + "rounds:\n  - {tool: Grep, call_tokens: 9, result: 9}\n"},
        "estimate s.yaml",
        "s.yaml:7: rounds[0].tool: unknown tool 'Grep' (defined: Read)",
    ),
    case(
        "caching: off",
        {"s.yaml": OK + "caching: off\n"},
        "estimate s.yaml",
        (
            "s.yaml:5: caching: must be one of none, prefix, conversation, explicit; got the boolean false "
            "(YAML reads no/off/false as a boolean; write none)"
        ),
    ),
    # -- subagents ----------------------------------------------------------------------------------
    case(
        "subagent cycle",
        {"a.yaml": SUB.format("b.yaml", 1), "b.yaml": SUB.format("a.yaml", 1)},
        "estimate a.yaml",
        (
            "b.yaml:5: rounds[0].subagent.file: subagent cycle: a.yaml -> b.yaml -> a.yaml (a subagent "
            "cannot run a scenario that is already running it; subagent file named at a.yaml:5)"
        ),
    ),
    case(
        "subagent of itself",
        {"a.yaml": SUB.format("a.yaml", 1)},
        "estimate a.yaml",
        (
            "a.yaml:5: rounds[0].subagent.file: subagent cycle: a.yaml -> a.yaml (a subagent cannot run a "
            "scenario that is already running it)"
        ),
    ),
    case(
        "subagents multiplying rounds",
        {"a.yaml": SUB.format("b.yaml", 1000), "b.yaml": SUB.format("c.yaml", 1000), "c.yaml": OK},
        "estimate a.yaml",
        (
            "a.yaml:5: rounds[0].subagent: more than 100,000 rounds in all, counting failed calls and "
            "subagents' rounds: 1,001,000, 1,000,000 of them in the runs of this subagent (a round starts "
            "its subagent each time it runs, repeats too; lower repeat, the subagent's rounds or "
            "limits.max_rounds)"
        ),
    ),
    case(
        "parallel calls repeated",
        {
            "s.yaml": OK
            + TOOL
            + "rounds:\n  - calls: [{tool: Read, call_tokens: 9, result: 9}, {tool: Read, call_tokens: 9, result: 9}, "
            "{tool: Read, call_tokens: 9, result: 9}]\n    repeat: 100000\n"
        },
        "estimate s.yaml",
        (
            "s.yaml:7: rounds[0]: more than 200,000 tool calls in all, counting parallel calls and "
            "subagents': 300,000, 300,000 of them made by this round (each repeat makes all of the "
            "round's calls again; lower repeat or the parallel calls)"
        ),
    ),
    case(
        "a billion failed calls",
        {
            "s.yaml": OK
            + TOOL
            + "rounds:\n  - {tool: Read, call_tokens: 9, result: 9}\nretries: {count: 1000000000}\n"
        },
        "estimate s.yaml",
        (
            "s.yaml:8: retries.count: more than 100,000 rounds in all, counting failed calls and subagents' "
            "rounds: 1,000,000,001, 1,000,000,000 of them failed calls (each failed call is a request of its "
            "own; give fewer, or retries.share)"
        ),
    ),
    case(
        "success rate of 0",
        {"s.yaml": OK + "outcome: {success: 0}\n"},
        "estimate s.yaml",
        "s.yaml:5: outcome.success: must be above 0 and at most 1, got 0 (a probability: 0.7 for 70%)",
    ),
    case(
        "success rate over 1",
        {"s.yaml": OK + "outcome:\n  success: 70\n"},
        "estimate s.yaml",
        "s.yaml:6: outcome.success: must be above 0 and at most 1, got 70 (a probability: 0.7 for 70%)",
    ),
    case(
        "success rate too small",
        {"s.yaml": OK + "outcome: {success: 1e-999999}\n"},
        "estimate s.yaml",
        "s.yaml:5: outcome.success: must be at least 0.000001 (one success in a million runs), got 1E-999999",
    ),
    case(
        "max_attempts without retry",
        {"s.yaml": OK + "outcome: {success: 0.7, on_failure: abandon, max_attempts: 3}\n"},
        "estimate s.yaml",
        (
            "s.yaml:5: outcome.max_attempts: max_attempts applies to on_failure: retry (an abandoned run is "
            "never made again; remove max_attempts or use on_failure: retry)"
        ),
    ),
    # -- price files (--prices) ---------------------------------------------------------------------
    case(
        "missing price file",
        {"s.yaml": OK},
        "estimate s.yaml --prices p.yaml",
        "p.yaml: --prices: file not found",
    ),
    case(
        "price file YAML error",
        {"s.yaml": OK, "p.yaml": "version: 1\nmodels: [\n"},
        "estimate s.yaml --prices p.yaml",
        "p.yaml:3: YAML syntax error: did not find expected node content (while parsing a flow node)",
    ),
    case(
        "price file without models",
        {"s.yaml": OK, "p.yaml": "version: 1\n"},
        "estimate s.yaml --prices p.yaml",
        (
            "p.yaml:1: models: required key is missing (a price file lists models: 'models: [{id: ..., "
            "provider: ..., input_mtok: ..., ...}]')"
        ),
    ),
    case(
        "negative price",
        {
            "s.yaml": OK,
            "p.yaml": "version: 1\nmodels:\n  - {id: mine, provider: openai, "
            "base: gpt-5, input_mtok: -1, output_mtok: 1}\n",
        },
        "estimate s.yaml --prices p.yaml",
        "p.yaml:3: models[0].input_mtok: must be >= 0, got -1",
    ),
    case(
        "100 MB price file",
        {"s.yaml": OK, "p.yaml": Sparse(100_000_000)},
        "estimate s.yaml --prices p.yaml",
        (
            "p.yaml: --prices: file too large: 100,000,000 bytes, over the limit of 10,000,000 bytes ("
            "real files stay far below it)"
        ),
    ),
    # -- recorded runs (replay, calibrate) ----------------------------------------------------------
    case(
        "missing trace",
        {},
        "replay run.traj",
        "run.traj: file not found",
    ),
    case(
        "a directory as the trace",
        {"runs": DIR},
        "replay runs",
        "runs: no log file found (a directory is searched for .traj, .json, .jsonl files; 0 other files ignored)",
    ),
    case(
        "binary trace",
        {"run.jsonl": PNG},
        "replay run.jsonl",
        "run.jsonl:1: not UTF-8 text (byte 0x89 on line 1)",
    ),
    case(
        "empty trace",
        {"run.jsonl": ""},
        "replay run.jsonl",
        "run.jsonl:1: the file is empty (a recorded run has one API call or more)",
    ),
    case(
        "trajectory not JSON",
        {"run.traj": "history: []\n"},
        "replay run.traj",
        "run.traj:1: not valid JSON: Expecting value (column 1)",
    ),
    case(
        "trajectory without a model",
        {"run.traj": TRAJ},
        "replay run.traj",
        (
            "run.traj: the log does not name the model (pass --model, or --config with the run config for "
            "SWE-agent)"
        ),
    ),
    case(
        "bad JSON line",
        {"run.jsonl": ANTHROPIC.format("[]") + "{oops}\n" + ANTHROPIC.format("[]")},
        "replay run.jsonl",
        "run.jsonl:2: not valid JSON: Expecting property name enclosed in double quotes (column 2)",
    ),
    case(
        "deeply nested trace",
        {"run.jsonl": ANTHROPIC.format("[" * 200 + "]" * 200)},
        "replay run.jsonl",
        (
            "run.jsonl:1: nested too deeply: more than 100 levels of JSON objects and arrays (real logs "
            "nest fewer than 20 levels)"
        ),
    ),
    case(
        "negative usage",
        {"run.jsonl": ANTHROPIC.format("[]").replace('"input_tokens": 8', '"input_tokens": -8')},
        "replay run.jsonl",
        "run.jsonl:1: usage.input_tokens: must be a whole number from 0 to 1,000,000,000, got -8",
    ),
    case(
        "tool schema not an object",
        {"run.jsonl": ANTHROPIC.format('[{"name": "Read", "input_schema": [1, 2]}]')},
        "replay run.jsonl",
        "run.jsonl:1: request.tools: a tool's 'input_schema' must be a JSON object, got an array",
    ),
    case(
        "unknown --format-in",
        {"run.jsonl": ANTHROPIC.format("[]")},
        "replay run.jsonl --format-in har",
        (
            "--format-in: unknown log format 'har' (supported: swe-agent, claude-code, anthropic-jsonl, "
            "openai-chat-jsonl, openai-responses-jsonl, otel, langfuse)"
        ),
    ),
    case(
        "300 MB trace",
        {"run.jsonl": Sparse(300_000_000)},
        "replay run.jsonl",
        (
            "run.jsonl: file too large: 300,000,000 bytes, over the limit of 256,000,000 bytes ("
            "real files stay far below it)"
        ),
    ),
    case(
        "--tools not a list",
        {"run.jsonl": ANTHROPIC.format("[]"), "tools.json": '{"name": "Read"}'},
        "replay run.jsonl --tools tools.json",
        'tools.json: --tools: expected a JSON list of tool definitions (or {"tools": [...]})',
    ),
    case(
        "--config not YAML",
        {"run.traj": TRAJ, "args.yaml": "agent: [\n"},
        "replay run.traj --config args.yaml",
        "args.yaml:2: --config: not valid YAML: did not find expected node content",
    ),
    case(
        "calibrate over an existing file",
        {"run.jsonl": ANTHROPIC.format("[]"), "s.yaml": OK},
        "calibrate run.jsonl -o s.yaml",
        "s.yaml: --output: the file exists (pass --force to overwrite it)",
    ),
    case(
        "--outcomes value not true or false",
        {"runs/a.traj": "{}", "o.csv": "run,success\na.traj,maybe\n"},
        "replay runs --outcomes o.csv",
        (
            "o.csv:2: success: expected true or false (a CSV file with a header row 'run,success', then rows"
            " such as 'a/run1.traj,true' (docs/replay.md))"
        ),
    ),
    case(
        "Google billing export cost not a number",
        {
            "e.csv": "sku.description,usage_start_time,cost,currency,usage.amount,usage.unit\n"
            "Gemini 2.5 Flash GA Text Input - Predictions,2026-11-02 07:00:00 UTC,lots,USD,1,count\n"
        },
        "reconcile e.csv",
        (
            "e.csv:2: cost: expected a number: dollars, e.g. 0.1234 (give a Cloud Billing export: CSV with"
            " the columns sku.description, usage_start_time, cost, currency, usage.amount, usage.unit"
            " (docs/reconcile.md#google-cloud-billing))"
        ),
    ),
    # -- --models files and project files -----------------------------------------------------------
    case(
        "--models entry not a name",
        {"s.yaml": OK, "models.yaml": "- gpt-5\n- [gpt-4o]\n"},
        "compare s.yaml --models models.yaml",
        (
            "models.yaml:2: expected a model name, got a nested list or mapping (a YAML list of model names, "
            "or one name per line)"
        ),
    ),
    case(
        "project entry not a mapping",
        {"agentcost.yml": "version: 1\nscenarios:\n  - s.yaml\n", "s.yaml": OK},
        "estimate agentcost.yml",
        "agentcost.yml:3: scenarios[0]: expected a mapping, got text 's.yaml'",
    ),
    case(
        "project runs_per_day distribution out of order",
        {
            "agentcost.yml": "version: 1\nscenarios:\n  - path: s.yaml\n    runs_per_day: {pert: [3, 2, 4]}\n",
            "s.yaml": OK,
        },
        "estimate agentcost.yml",
        (
            "agentcost.yml:4: scenarios[0].runs_per_day.pert: min 3, most likely 2, max 4 are not in order"
            " (write [min, most likely, max] with min <= most likely <= max)"
        ),
    ),
    case(
        "project monthly budget without runs per day",
        {"agentcost.yml": "version: 1\nmonthly_budget_usd: 5\nscenarios:\n  - path: s.yaml\n", "s.yaml": OK},
        "estimate agentcost.yml",
        (
            "agentcost.yml:2: monthly_budget_usd: monthly_budget_usd needs runs_per_day for every scenario"
            " (add runs_per_day to each scenario, or remove monthly_budget_usd)"
        ),
    ),
]


def write_files(root: Path, files: Files) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if content == DIR:
            path.mkdir()
        elif isinstance(content, Sparse):
            with path.open("wb") as handle:
                handle.truncate(content.size)
        elif isinstance(content, Unreadable):
            path.write_text(content.text, encoding="utf-8")
            path.chmod(0)
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(str(content), encoding="utf-8")


@pytest.mark.parametrize(("files", "argv", "message", "code"), CATALOGUE)
def test_error_catalogue(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    fixed_terminal: None,
    files: Files,
    argv: str | list[str],
    message: str,
    code: int,
) -> None:
    monkeypatch.chdir(tmp_path)
    write_files(tmp_path, files)
    try:
        exit_code = run(argv.split() if isinstance(argv, str) else argv)
    finally:
        for path in tmp_path.rglob("*"):
            path.chmod(0o700 if path.is_dir() else 0o600)  # so that pytest can remove mode-000 files
    out, err = capsys.readouterr()
    assert err == f"agentcost: error: {message}\n"
    assert (exit_code, out) == (code, "")


# ---------------------------------------------------------------------------------------------
# A file over the size limit is refused by its size, before a byte of it is read


class _ReadSpy:
    """A file object that records every read of it (everything else goes to the real one)."""

    def __init__(self, handle: Any, reads: list[str]) -> None:
        self._handle = handle
        self._reads = reads

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._handle, name)
        if name.startswith("read") or name == "__next__":
            self._reads.append(name)
        return attribute

    def __iter__(self) -> Any:
        self._reads.append("__iter__")
        return iter(self._handle)

    def __enter__(self) -> _ReadSpy:
        return self

    def __exit__(self, *exc: object) -> None:
        self._handle.close()


@pytest.mark.parametrize(
    ("files", "argv"),
    [
        pytest.param({}, "estimate big.yaml", id="scenario"),
        pytest.param({"s.yaml": OK + "system: {file: big.yaml}\n"}, "estimate s.yaml", id="content file"),
        pytest.param({"s.yaml": OK}, "estimate s.yaml --prices big.yaml", id="--prices"),
        pytest.param({"s.yaml": OK}, "compare s.yaml --models big.yaml", id="--models"),
        pytest.param({}, "replay big.yaml --format-in anthropic-jsonl", id="trace (over 256 MB)"),
        pytest.param({"run.jsonl": ANTHROPIC.format("[]")}, "replay run.jsonl --tools big.yaml", id="--tools"),
    ],
)  # fmt: skip
def test_a_huge_file_is_refused_before_it_is_read(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    files: Files,
    argv: str,
) -> None:
    import builtins
    import io

    monkeypatch.chdir(tmp_path)
    write_files(tmp_path, {**files, "big.yaml": Sparse(300_000_000)})
    big = str(tmp_path / "big.yaml")
    reads: list[str] = []
    real_open = builtins.open

    def spying_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        handle = real_open(file, *args, **kwargs)
        if isinstance(file, str | os.PathLike) and os.path.abspath(file) == big:
            return _ReadSpy(handle, reads)
        return handle

    monkeypatch.setattr(builtins, "open", spying_open)
    monkeypatch.setattr(io, "open", spying_open)
    assert run(argv.split()) == 2
    assert "file too large: 300,000,000 bytes" in capsys.readouterr().err
    assert reads == []
