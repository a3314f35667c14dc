"""Secrets never quoted (issue 28, item 2): an error about a file named inside another, or about a
data file the command line names, quotes nothing that file holds; in CI a command-line path that a
symlink leads out of the working tree is refused.

Every hostile file below holds :data:`SECRET` where a value, a key, a path or a model name goes; the
run must exit 2 with exactly one line that names the file, the line, the key (agentcost's own words
only) and the kind of problem, and the secret must appear nowhere in stdout or stderr. The top
scenario and the command line are the workflow's: their values are still echoed (bounded and
escaped), which the last cases of the table hold. docs/security.md states the rule.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentcost.cli import run

SECRET = "SECRET-d41d8cd9"
OK = "version: 1\nmodel: gpt-5\ntask: hi\nfinal: 10\n"  # the smallest valid scenario: lines 1-4
SUB = OK + "rounds:\n  - {tool: x, call_tokens: 3, subagent: {file: sub.yaml}}\n"  # names sub.yaml at line 6
NAMED_SUB = "subagent file named at s.yaml:6"
TOOLS = OK + "tools: [{file: t.yaml}]\n"  # names t.yaml at line 5
NAMED_TOOLS = "tool file named at s.yaml:5"
PROJECT = "version: 1\nscenarios:\n  - path: sub.yaml\n"
LISTING = "run 'agentcost models' to list known models"
SWE = (  # a SWE-agent trajectory that names no model: --config names it
    '{"history": [{"role": "user", "content": "fix it"}, {"role": "assistant", "content": "ok"}], '
    '"info": {"model_stats": {"tokens_sent": 10, "tokens_received": 3, "instance_cost": 0.1, "api_calls": 1}}}\n'
)


def cli(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    files: dict[str, str],
    argv: str,
) -> tuple[int, str, str]:
    """Write ``files`` into an empty directory and run ``agentcost ARGV`` there: (exit code, stdout, stderr)."""
    monkeypatch.chdir(tmp_path)
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    code = run(argv.split())
    out, err = capsys.readouterr()
    return code, out, err


def refused(code: int, out: str, err: str, message: str) -> None:
    """Exit 2, nothing on stdout, exactly ``message`` on stderr, and the secret (or any piece of it) nowhere."""
    assert (code, out, err) == (2, "", f"agentcost: error: {message}\n")
    for piece in (SECRET, "SECRET", "d41d8cd9"):
        assert piece not in out + err


NAMED = [
    # a subagent file: its values, keys, numbers, paths and model are never quoted
    pytest.param(
        {"s.yaml": SUB, "sub.yaml": f"version: 1\nmodel: {SECRET}\ntask: hi\nfinal: 10\n"},
        "estimate s.yaml",
        f"sub.yaml:2: model: not a model agentcost can price ({LISTING})",
        id="subagent model",
    ),
    pytest.param(
        {"s.yaml": SUB, "sub.yaml": f"version: {SECRET}\nmodel: gpt-5\ntask: hi\nfinal: 10\n"},
        "estimate s.yaml",
        f"sub.yaml:1: version: expected an integer, got text (15 characters) (supported: 1; {NAMED_SUB})",
        id="subagent version",
    ),
    pytest.param(
        {"s.yaml": SUB, "sub.yaml": OK + f"caching: {SECRET}\n"},
        "estimate s.yaml",
        "sub.yaml:5: caching: must be one of none, prefix, conversation, explicit; got text (15 characters) "
        f"({NAMED_SUB})",
        id="subagent caching",
    ),
    pytest.param(
        {"s.yaml": SUB, "sub.yaml": OK + f"{SECRET}: 1\n"},
        "estimate s.yaml",
        "sub.yaml:5: <key>: unknown key (allowed: version, name, description, model, provider, system, tools, "
        "tool_choice, task, defaults, rounds, final, caching, cache_ttl, limits, pacing, service_tier, "
        "thinking_retention, final_thinking, server_tool_quota, retries, trim, context_editing, "
        f"tool_search_stub, outcome; {NAMED_SUB})",
        id="subagent unknown key",
    ),
    pytest.param(
        {"s.yaml": SUB, "sub.yaml": OK + f"limits: {{{SECRET}: 1}}\n"},
        "estimate s.yaml",
        "sub.yaml:5: limits.<key>: unknown key (allowed: max_rounds, budget_usd, max_budget_usd, "
        f"max_concurrent_subagents, max_tokens; {NAMED_SUB})",
        id="subagent nested unknown key",
    ),
    pytest.param(
        {"s.yaml": SUB, "sub.yaml": OK + f"rounds:\n  - {{tool: x, call_tokens: {SECRET}}}\n"},
        "estimate s.yaml",
        f"sub.yaml:6: rounds[0].call_tokens: expected an integer, got text (15 characters) ({NAMED_SUB})",
        id="subagent size",
    ),
    pytest.param(
        {"s.yaml": SUB, "sub.yaml": OK.replace("final: 10", "final: '0123456701234567'")},
        "estimate s.yaml",
        "sub.yaml:4: final: ambiguous: a number could be a size or a text (write a whole number for a size in "
        f'tokens, or {{text: "..."}} for the text; {NAMED_SUB})',
        id="subagent digits",
    ),
    pytest.param(
        {"s.yaml": SUB, "sub.yaml": OK + f"system: {{file: {SECRET}}}\n"},
        "estimate s.yaml",
        f"sub.yaml:5: system.file: cannot read the file named here: file not found ({NAMED_SUB})",
        id="subagent content path",
    ),
    pytest.param(
        {"s.yaml": SUB, "sub.yaml": OK + f"system: {{file: /{SECRET}/x}}\n"},
        "estimate s.yaml",
        "sub.yaml:5: system.file: the path written here resolves outside the allowed directories (a file named "
        "in an input file must be inside that file's directory, the directory of the file given on the "
        f"command line or its git work tree; pass --allow-path DIR to allow another; {NAMED_SUB})",
        id="subagent path outside",
    ),
    pytest.param(
        {
            "s.yaml": SUB,
            "sub.yaml": OK + f"tools: [{{name: Read, input_schema: {{}}}}]\nrounds: [{{tool: {SECRET}}}]\n",
        },
        "estimate s.yaml",
        f"sub.yaml:6: rounds[0].tool: unknown tool (not a name of the tools this file defines; {NAMED_SUB})",
        id="subagent unknown tool",
    ),
    pytest.param(
        {
            "s.yaml": SUB,
            "sub.yaml": OK
            + f"rounds:\n  - {{tool: x, subagent: {{model: gpt-5, task: hi, final: 1, {SECRET}: 1}}}}\n",
        },
        "estimate s.yaml",
        "sub.yaml:6: rounds[0].subagent.<key>: unknown key (allowed: version, name, description, model, provider, "
        "system, tools, tool_choice, task, defaults, rounds, final, caching, cache_ttl, limits, pacing, "
        "service_tier, thinking_retention, final_thinking, server_tool_quota, retries, trim, context_editing, "
        "tool_search_stub, outcome)",
        id="inline subagent in a subagent file",
    ),
    pytest.param(
        {"s.yaml": SUB, "sub.yaml": OK + f"x: *{SECRET}\n"},
        "estimate s.yaml",
        f"sub.yaml:5: YAML syntax error: found undefined alias ({NAMED_SUB})",
        id="subagent alias",
    ),
    # a tools file
    pytest.param(
        {"s.yaml": TOOLS, "t.yaml": f"- name: Read\n  {SECRET}: 1\n  input_schema: {{type: object}}\n"},
        "estimate s.yaml",
        "t.yaml:2: [0].<key>: unknown key (allowed: name, description, input_schema, type, cache_control, "
        f"strict, defer_loading; {NAMED_TOOLS})",
        id="tools file unknown key",
    ),
    pytest.param(
        {
            "s.yaml": TOOLS,
            "t.yaml": f"- {{name: {SECRET}, input_schema: {{}}}}\n- {{name: {SECRET}, input_schema: {{}}}}\n",
        },
        "estimate s.yaml",
        f"t.yaml:2: [1].name: duplicate tool name (first defined at t.yaml:1; {NAMED_TOOLS})",
        id="tools file duplicate name",
    ),
    pytest.param(
        {
            "s.yaml": OK + "tools: [{file: t.json}]\n",
            "t.json": f'[{{"name": "x", "input_schema": {{"{SECRET}": {SECRET}}}}}]',
        },
        "estimate s.yaml",
        f"t.json:1: [0].input_schema.<key>: not a JSON value: text (15 characters) (quote strings; {NAMED_TOOLS})",
        id="tools file JSON key",
    ),
    # a project's scenarios are named by the project
    pytest.param(
        {"p.yaml": PROJECT, "sub.yaml": OK + f"caching: {SECRET}\n"},
        "estimate p.yaml",
        "sub.yaml:5: caching: must be one of none, prefix, conversation, explicit; got text (15 characters)",
        id="project scenario value",
    ),
    pytest.param(
        {"p.yaml": PROJECT, "sub.yaml": OK.replace("gpt-5", SECRET)},
        "estimate p.yaml",
        f"sub.yaml:2: model: not a model agentcost can price ({LISTING})",
        id="project scenario model",
    ),
    # compare --models FILE: a data file, never quoted
    pytest.param(
        {"s.yaml": OK, "m.txt": f"gpt-5\n{SECRET}\n"},
        "compare s.yaml --models m.txt",
        f"m.txt:2: not a model agentcost can price ({LISTING})",
        id="models file line",
    ),
    pytest.param(
        {"s.yaml": OK, "m.txt": f"- gpt-5\n- {SECRET}\n"},
        "compare s.yaml --models m.txt",
        f"m.txt:2: not a model agentcost can price ({LISTING})",
        id="models file list",
    ),
    pytest.param(
        {"s.yaml": OK, "m.txt": f"gpt-5\n{SECRET}*\n"},
        "compare s.yaml --models m.txt",
        f"m.txt:2: no known model matches the glob on this line ({LISTING})",
        id="models file glob",
    ),
    pytest.param(
        {"s.yaml": OK, "m.txt": f"[gpt-5, {SECRET}\n"},
        "compare s.yaml --models m.txt",
        f"m.txt:1: no known model matches the glob on this line ({LISTING})",
        id="models file broken YAML",
    ),
    pytest.param(
        {"s.yaml": OK, "m.txt": "- gpt-5\n- 41234567890123\n"},
        "compare s.yaml --models m.txt",
        "m.txt:2: expected a model name, got a number (a YAML list of model names, or one name per line)",
        id="models file number",
    ),
    pytest.param(
        {"s.yaml": OK, "m.txt": f"gpt-5\n{SECRET}/gpt-5\n"},
        "compare s.yaml --models m.txt",
        f"m.txt:2: not a model agentcost can price ({LISTING})",
        id="models file provider",
    ),
]


@pytest.mark.parametrize(("files", "argv", "message"), NAMED)
def test_an_error_about_a_named_file_quotes_none_of_it(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    files: dict[str, str],
    argv: str,
    message: str,
) -> None:
    """Before: the subagent's model, version and caching, an unknown key of a tools file, a path
    written in a subagent file and the lines of a --models file were quoted whole."""
    refused(*cli(tmp_path, monkeypatch, capsys, files, argv), message)


def test_a_run_config_is_never_quoted_by_either_yaml_parser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``replay --config F``: the pure-Python parser (no libyaml) names an undefined alias in its
    message; it is cut out like the other quotes of a file that is never quoted."""
    import yaml

    monkeypatch.setattr("agentcost.infra.yamlread.Loader", yaml.SafeLoader)
    files = {"t.traj": SWE, "a.yaml": f"agent: *{SECRET}\n"}
    refused(
        *cli(tmp_path, monkeypatch, capsys, files, "replay t.traj --config a.yaml"),
        "a.yaml:1: --config: not valid YAML: found undefined alias '...'",
    )


ECHOED = [  # the workflow's own words: the top scenario, -m, --set
    pytest.param(
        {"s.yaml": OK + "caching: prefx\n"},
        "estimate s.yaml",
        "s.yaml:5: caching: must be one of none, prefix, conversation, explicit; got text 'prefx' "
        "(did you mean 'prefix'?)",
        id="top scenario value",
    ),
    pytest.param(
        {"s.yaml": OK + "limits: {max_rund: 1}\n"},
        "estimate s.yaml",
        "s.yaml:5: limits.max_rund: unknown key (allowed: max_rounds, budget_usd, max_budget_usd, "
        "max_concurrent_subagents, max_tokens; did you mean 'max_rounds'?)",
        id="top scenario key",
    ),
    pytest.param(
        {"s.yaml": OK},
        "compare s.yaml -m zzqx",
        f"--model: unknown model 'zzqx' ({LISTING})",
        id="command-line model",
    ),
]


@pytest.mark.parametrize(("files", "argv", "message"), ECHOED)
def test_what_the_workflow_wrote_is_still_echoed(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    files: dict[str, str],
    argv: str,
    message: str,
) -> None:
    code, out, err = cli(tmp_path, monkeypatch, capsys, files, argv)
    assert (code, out, err) == (2, "", f"agentcost: error: {message}\n")


# ---------------------------------------------------------------------------------------------
# In CI, a command-line path that a symlink leads out of the working tree


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git work tree (the working directory) whose ``agentcost.yml`` and ``prices.yaml`` are
    symlinks to a runner file outside it that holds a secret; ``inner.yaml`` links inside it."""
    tree, outside = tmp_path / "tree", tmp_path / "runner"
    tree.mkdir()
    outside.mkdir()
    (tree / ".git").mkdir()
    (outside / "passwd").write_text(OK.replace("gpt-5", SECRET), encoding="utf-8")
    (tree / "ok.yaml").write_text(OK, encoding="utf-8")
    (tree / "agentcost.yml").symlink_to(outside / "passwd")
    (tree / "prices.yaml").symlink_to(outside / "passwd")
    (tree / "inner.yaml").symlink_to(tree / "ok.yaml")
    monkeypatch.chdir(tree)
    return outside


def _refusal(path: str, flag: str, outside: Path) -> str:
    return (
        f"{path}: {flag}a symlink out of the working tree, to {os.path.realpath(outside / 'passwd')} (in CI a "
        f"path on the command line must stay inside the working directory or its git work tree; pass "
        f"--allow-path {os.path.realpath(outside)} to read it)"
    )


@pytest.mark.parametrize(
    ("argv", "path", "flag"),
    [
        pytest.param("estimate agentcost.yml", "agentcost.yml", "", id="scenario"),
        pytest.param("estimate ok.yaml --prices prices.yaml", "prices.yaml", "--prices: ", id="price file"),
        pytest.param("compare agentcost.yml -m gpt-5", "agentcost.yml", "", id="compare"),
        pytest.param("diff ok.yaml agentcost.yml", "agentcost.yml", "", id="diff"),
    ],
)
def test_in_ci_a_symlink_out_of_the_tree_is_refused(
    checkout: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: str,
    path: str,
    flag: str,
) -> None:
    monkeypatch.setenv("CI", "true")
    code = run(argv.split())
    out, err = capsys.readouterr()
    refused(code, out, err, _refusal(path, flag, checkout))


def test_outside_ci_or_allowed_or_inside_the_tree_a_symlink_is_read(
    checkout: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Outside CI, with ``--allow-path`` naming where it leads, or leading inside the tree, the file is
    read (here the runner file is a scenario of an unknown model: the top input, so named)."""
    read = "agentcost.yml:2: model: unknown model 'SECRET-d41d8cd9' (run 'agentcost models' to list known models)"
    for ci, argv in (
        ("", "estimate agentcost.yml"),
        ("false", "estimate agentcost.yml"),
        ("true", f"estimate agentcost.yml --allow-path {checkout}"),
    ):
        monkeypatch.setenv("CI", ci)
        assert run(argv.split()) == 2
        assert capsys.readouterr() == ("", f"agentcost: error: {read}\n")
    monkeypatch.setenv("CI", "1")
    assert run(["estimate", "inner.yaml", "-q"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and float(out) > 0  # -q: the cost alone
