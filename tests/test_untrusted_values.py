"""Untrusted values (issue 13, groups 2 and 8): what error messages echo, the numbers rule, trace
usage bounds and YAML tags, each through the real command line with the exact line it prints.

* group 2: a message never quotes the text of a file the user does not write into it (a tools
  file, an ``empirical`` file, a subagent or scenario file that is not a mapping, a price file, a
  trace): it names the file, line, key and the type and size found. A value the user wrote in a
  scenario is echoed bounded (40 characters, then its length) and escaped;
* group 8: a size, count or content written as a number in a YAML 1.1 or human form (``1e3``,
  ``9k``, ``010``, ``1:30``, ``"1500"``...) is read as the number it plainly means or refused with
  both spellings, never counted as text or as another number, in files and ``--set`` alike; a
  trace's usage is bounded like a scenario's sizes; a tag on any node is refused.

docs/scenario.md#numbers and docs/limits.md describe the rules.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentcost.cli import run

OK = "version: 1\nmodel: gpt-5\ntask: hi\nfinal: 10\n"  # the smallest valid scenario: lines 1-4
SECRET = "ghp_SECRETSECRETSECRETSECRET0123456789ab"  # 40 characters, like a GitHub token
ROUND = "rounds:\n  - {{tool: Read, call_tokens: {}, result: 40, repeat: {}}}\n"  # line 5 after OK
ANTHROPIC = (  # one Anthropic Messages call as a JSONL line; {} is the usage's input_tokens
    '{{"request": {{"model": "claude-sonnet-4-5", "max_tokens": 100, "messages": [{{"role": "user", '
    '"content": "hi"}}]}}, "response": {{"model": "claude-sonnet-4-5", "content": [{{"type": "text", '
    '"text": "hello"}}], "usage": {{"input_tokens": {}, "output_tokens": 2}}}}}}\n'
)
CHAT = (  # one OpenAI Chat Completions call; {} is prompt_tokens
    '{{"request": {{"model": "gpt-4o", "messages": [{{"role": "user", "content": "hi"}}]}}, "response": '
    '{{"choices": [{{"message": {{"role": "assistant", "content": "yo"}}}}], "usage": {{"prompt_tokens": '
    '{}, "completion_tokens": 2}}}}}}\n'
)
RESPONSES = (  # one OpenAI Responses call; {} is input_tokens
    '{{"request": {{"model": "gpt-4o", "input": "hi"}}, "response": {{"object": "response", "output": '
    '[], "usage": {{"input_tokens": {}, "output_tokens": 2, "total_tokens": 3}}}}}}\n'
)
CLAUDE_CODE = (  # one Claude Code session line; {} is input_tokens
    '{{"type": "assistant", "sessionId": "s", "uuid": "u1", "message": {{"id": "m1", "model": '
    '"claude-sonnet-4-5", "role": "assistant", "content": [{{"type": "text", "text": "hi"}}], '
    '"usage": {{"input_tokens": {}, "output_tokens": 3}}}}}}\n'
)
SWE_AGENT = (  # a SWE-agent trajectory; {} is info.model_stats.tokens_sent
    '{{"history": [{{"role": "user", "content": "fix it"}}, {{"role": "assistant", "content": "ok"}}], '
    '"info": {{"model_stats": {{"tokens_sent": {}, "tokens_received": 3, "instance_cost": 0.1}}}}}}\n'
)
USAGE_BOUND = "must be a whole number from 0 to 1,000,000,000"


def cli(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    files: dict[str, str],
    argv: str | list[str],
) -> tuple[int, str, str]:
    """Write ``files`` into an empty directory and run ``agentcost ARGV`` there: (exit code, stdout, stderr)."""
    monkeypatch.chdir(tmp_path)
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    code = run(argv.split() if isinstance(argv, str) else argv)
    out, err = capsys.readouterr()
    return code, out, err


def refused(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    files: dict[str, str],
    argv: str | list[str],
    message: str,
) -> None:
    """The run exits 2 with exactly ``agentcost: error: MESSAGE`` on stderr, nothing on stdout, and
    the secret nowhere."""
    code, out, err = cli(tmp_path, monkeypatch, capsys, files, argv)
    assert err == f"agentcost: error: {message}\n"
    assert (code, out) == (2, "")
    assert SECRET not in err and SECRET[:12] not in err


# ---------------------------------------------------------------------------------------------
# Group 2: messages name the file, line, key and type, never the text of a file the user did not write

UNQUOTED = [
    pytest.param(
        {"s.yaml": OK + "tools: [{file: token}]\n", "token": SECRET + "\n"},
        "estimate s.yaml",
        "token:1: expected tool definitions, got text (40 characters) (a list of tools, {tools: [...]}, "
        "{result: {tools: [...]}} or one tool; tool file named at s.yaml:5)",
        id="tools file that is a text",
    ),
    pytest.param(
        {"s.yaml": OK + "tools: [{file: token}]\n", "token": f"[{SECRET}]\n"},
        "estimate s.yaml",
        "token:1: [0]: expected a tool definition (a mapping), got text (40 characters) (tool file named "
        "at s.yaml:5)",
        id="tools file item",
    ),
    pytest.param(
        {
            "s.yaml": OK + "tools: [{file: tools.yaml}]\n",
            "tools.yaml": f"- name: Read\n  input_schema: {SECRET}\n",
        },
        "estimate s.yaml",
        "tools.yaml:2: [0].input_schema: expected a mapping, got text (40 characters) (tool file named at s.yaml:5)",
        id="tools file value",
    ),
    pytest.param(
        {"s.yaml": OK + "tools: [{file: token.json}]\n", "token.json": f'{{"key": {SECRET}}}\n'},
        "estimate s.yaml",
        "token.json:1: <key>: not a JSON value: text (40 characters) (quote strings; tool file named at s.yaml:5)",
        id="JSON tools file",
    ),
    pytest.param(
        {
            "s.yaml": OK
            + "rounds:\n  - {tool: x, call_tokens: 3, result: 5, repeat: {empirical: {file: runs}}}\n",
            "runs": f"3 4\n{SECRET}\n",
        },
        "estimate s.yaml",
        "runs:2: not a whole number from 0 to 1,000,000,000: text (40 characters) (observed values for "
        "rounds[0].repeat.empirical, one or more per line)",
        id="empirical file",
    ),
    pytest.param(
        {"s.yaml": OK + "rounds:\n  - {tool: x, call_tokens: 3, subagent: {file: token}}\n", "token": SECRET},
        "estimate s.yaml",
        "token:1: expected a mapping of scenario keys at the top level, got text (40 characters) (subagent "
        "file named at s.yaml:6)",
        id="subagent file",
    ),
    pytest.param(
        {"token": SECRET + "\n"},
        "estimate token",
        "token:1: expected a mapping of scenario keys at the top level, got text (40 characters)",
        id="scenario file",
    ),
    pytest.param(
        {"s.yaml": OK, "token": SECRET + "\n"},
        "estimate s.yaml --prices token",
        "token:1: expected a mapping of price-file keys at the top level, got text (40 characters)",
        id="price file",
    ),
    pytest.param(
        {
            "s.yaml": OK,
            "p.yaml": f"version: 1\nmodels:\n  - {{id: a, provider: {SECRET}, input_mtok: 1, output_mtok: 2, source: x}}\n",
        },
        "estimate s.yaml --prices p.yaml",
        "p.yaml:3: models[0].provider: not a genai-prices provider id, got text (40 characters)"
        " (e.g. anthropic, openai, google, aws, azure, deepseek; 'agentcost models --all' lists them)",
        id="price file value",
    ),
    pytest.param(
        {"run.jsonl": ANTHROPIC.format(json.dumps(SECRET))},
        "replay run.jsonl",
        f"run.jsonl:1: usage.input_tokens: {USAGE_BOUND}, got text (40 characters)",
        id="trace usage",
    ),
    pytest.param(
        {"run.jsonl": ANTHROPIC.format(8).replace("claude-sonnet-4-5", SECRET)},
        "replay run.jsonl",
        "run.jsonl: model: cannot price the model the log names, text (40 characters) (pass --model to name "
        "a model agentcost knows; run 'agentcost models' to list known models)",
        id="trace model",
    ),
]


@pytest.mark.parametrize(("files", "argv", "message"), UNQUOTED)
def test_a_file_the_user_does_not_write_is_never_quoted(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    files: dict[str, str],
    argv: str,
    message: str,
) -> None:
    """Group 2: a secret-looking string in a tools file, an empirical file, a subagent file, a
    scenario or price file, or a trace is named by type and size, never shown (before: the first 40
    characters of it, a whole token)."""
    refused(tmp_path, monkeypatch, capsys, files, argv, message)


ECHOED = [
    pytest.param(
        OK + 'caching: "a\\u202eb\\e' + "c" * 60 + '"\n',
        "s.yaml:5: caching: must be one of none, prefix, conversation, explicit; got text "
        "'a\\u202eb\\x1bccccccccccccccccccccccccc...' (64 characters)",
        id="bidi override and escape, cut",
    ),
    pytest.param(
        OK + "caching: " + "x" * 100 + "\n",
        "s.yaml:5: caching: must be one of none, prefix, conversation, explicit; got text "
        "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...' (100 characters)",
        id="long value",
    ),
    pytest.param(
        OK + "limits: {" + "k" * 100 + ": 1}\n",
        "s.yaml:5: limits.kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk... (100 characters): unknown key (allowed: "
        "max_rounds, budget_usd, max_budget_usd, max_concurrent_subagents, max_tokens)",
        id="long key",
    ),
    pytest.param(
        OK + "limits: {max_rounds: " + "9" * 60 + "}\n",
        "s.yaml:5: limits.max_rounds: must be <= 1,000,000,000, got 9999999999999999999999999999999999999... "
        "(60 digits)",
        id="long number",
    ),
]


@pytest.mark.parametrize(("scenario", "message"), ECHOED)
def test_a_value_written_in_the_scenario_is_echoed_bounded_and_escaped(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    scenario: str,
    message: str,
) -> None:
    """Group 2: what the user wrote is echoed as at most 40 characters, escaped, with its length when
    cut (before: a key or a number of any length, and a bidi override raw)."""
    refused(tmp_path, monkeypatch, capsys, {"s.yaml": scenario}, "estimate s.yaml", message)


# ---------------------------------------------------------------------------------------------
# Group 8: the numbers rule


CONTENT_HINT = 'write {} for a size in tokens, or {{text: "{}"}} for the text'
NUMBERS = [
    pytest.param(
        "final: 1e3",
        "s.yaml:4: final: ambiguous: '1e3' could be a size or a text ("
        + CONTENT_HINT.format(1000, "1e3")
        + ")",
        id="content 1e3",
    ),
    pytest.param(
        "final: 9k",
        "s.yaml:4: final: ambiguous: '9k' could be a size or a text ("
        + CONTENT_HINT.format(9000, "9k")
        + ")",
        id="content 9k",
    ),
    pytest.param(
        'final: "1500"',
        "s.yaml:4: final: ambiguous: '1500' could be a size or a text ("
        + CONTENT_HINT.format(1500, "1500")
        + ")",
        id="content quoted digits",
    ),
    pytest.param(
        "final: 010",
        "s.yaml:4: final: ambiguous number '010': a leading 0 makes it octal in YAML 1.1 (write 8 or 10 for a "
        'number, or quote it for text ({text: "010"} for a content value))',
        id="content 010",
    ),
    pytest.param(
        "final: 1:30",
        "s.yaml:4: final: ambiguous number '1:30': YAML 1.1 reads ':' as base 60 (write 90 for a number, or "
        'quote it for text ({text: "1:30"} for a content value))',
        id="content 1:30",
    ),
    pytest.param(
        "final: 0x10",
        "s.yaml:4: final: ambiguous number '0x10': written in hexadecimal (write 16 for a number, or quote it "
        'for text ({text: "0x10"} for a content value))',
        id="content 0x10",
    ),
    pytest.param(
        "final: 10\n" + ROUND.format(3, "010"),
        "s.yaml:6: rounds[0].repeat: ambiguous number '010': a leading 0 makes it octal in YAML 1.1 (write 8 or "
        '10 for a number, or quote it for text ({text: "010"} for a content value))',
        id="count 010",
    ),
    pytest.param(
        "final: 10\n" + ROUND.format(3, "1.2345k"),
        "s.yaml:6: rounds[0].repeat: not a whole number: '1.2345k' is 1234.5",
        id="count not whole",
    ),
    pytest.param(
        "final: 10\n" + ROUND.format("5m", 1),
        "s.yaml:6: rounds[0].call_tokens: ambiguous number '5m': the only suffixes read are k (thousand) and M "
        "(million) (write the number in plain digits)",
        id="count 5m",
    ),
    pytest.param(
        "final: 10\nrounds:\n  - tool: Read\n    call_tokens: 1,500\n    result: 40",
        "s.yaml:7: rounds[0].call_tokens: ambiguous number '1,500': ',' separates thousands in some languages "
        "and decimals in others (write 1500)",
        id="count 1,500",
    ),
    pytest.param(
        "final: 10\nlimits: {budget_usd: 010}",
        "s.yaml:5: limits.budget_usd: ambiguous number '010': a leading 0 makes it octal in YAML 1.1 (write 8 or "
        '10 for a number, or quote it for text ({text: "010"} for a content value))',
        id="money 010",
    ),
    pytest.param(
        "final: 10\npacing: {round_seconds: 1:30}",
        "s.yaml:5: pacing.round_seconds: ambiguous number '1:30': YAML 1.1 reads ':' as base 60 (write 90 for "
        'a number, or quote it for text ({text: "1:30"} for a content value))',
        id="seconds 1:30",
    ),
    pytest.param(
        "final: 10\nlimits: {max_rounds: 1e12}",
        "s.yaml:5: limits.max_rounds: must be <= 1,000,000,000, got 1e12",
        id="count 1e12 over the limit",
    ),
]


@pytest.mark.parametrize(("tail", "message"), NUMBERS)
def test_numbers_in_yaml_1_1_and_human_forms_are_never_silently_misread(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tail: str,
    message: str,
) -> None:
    """Group 8: ``final: 1e3`` was the 3-token text "1e3", ``010`` the size 8, ``1:30`` 90; each is now
    refused with what it may mean and both spellings."""
    scenario = OK.replace("final: 10\n", tail + "\n")
    refused(tmp_path, monkeypatch, capsys, {"s.yaml": scenario}, "estimate s.yaml", message)


def _json_report(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    scenario: str,
    name: str,
) -> str:
    (tmp_path / name).mkdir()
    code, out, err = cli(
        tmp_path / name, monkeypatch, capsys, {"s.yaml": scenario}, "estimate s.yaml -f json"
    )
    assert (code, err) == (0, "")
    return out


@pytest.mark.parametrize(
    ("written", "plain"),
    [
        pytest.param(ROUND.format("9k", "1e1"), ROUND.format(9000, 10), id="k and exponent"),
        pytest.param(ROUND.format("1.5e3", "1_0"), ROUND.format(1500, 10), id="fraction and underscore"),
        pytest.param(
            ROUND.format("{uniform: [1e1, 0.02k]}", 2).replace("result: 40", "result: {tokens: 1.5k}"),
            ROUND.format("{uniform: [10, 20]}", 2).replace("result: 40", "result: {tokens: 1500}"),
            id="inside mappings",
        ),
        pytest.param(ROUND.format("1.5e+3", "12.0"), ROUND.format(1500, 12), id="whole decimals"),
    ],
)
def test_a_size_in_a_human_form_is_the_size_it_plainly_means(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    written: str,
    plain: str,
) -> None:
    """Group 8: where only a number fits, ``1e3`` is 1000, ``9k`` 9000, ``1.5M`` 1,500,000 (before:
    refused as text); the report is the same, byte for byte, as with the plain digits."""
    assert _json_report(tmp_path, monkeypatch, capsys, OK + written, "a") == _json_report(
        tmp_path, monkeypatch, capsys, OK + plain, "b"
    )


SET_CASES = [
    pytest.param(
        "final=1e3",
        "s.yaml: --set final=1e3: ambiguous: '1e3' could be a size or a text ("
        + CONTENT_HINT.format(1000, "1e3")
        + ")",
        id="content 1e3",
    ),
    pytest.param(
        'final="1500"',
        "s.yaml: --set final=\"1500\": ambiguous: '1500' could be a size or a text ("
        + CONTENT_HINT.format(1500, "1500")
        + ")",
        id="content quoted digits",
    ),
    pytest.param(
        "rounds[0].repeat=1:30",
        "s.yaml: --set rounds[0].repeat=1:30: ambiguous number '1:30': YAML 1.1 reads ':' as base 60 (write 90 "
        'for a number, or quote it for text ({text: "1:30"} for a content value); VALUE is read as YAML, as if '
        "written after 'KEY: ' in the file; quote it if it is text)",
        id="count 1:30",
    ),
    pytest.param(
        "limits.budget_usd=0x10",
        "s.yaml: --set limits.budget_usd=0x10: ambiguous number '0x10': written in hexadecimal (write 16 for a "
        'number, or quote it for text ({text: "0x10"} for a content value); VALUE is read as YAML, as if written '
        "after 'KEY: ' in the file; quote it if it is text)",
        id="money 0x10",
    ),
]


@pytest.mark.parametrize(("override", "message"), SET_CASES)
def test_the_numbers_rule_holds_in_set(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    override: str,
    message: str,
) -> None:
    """Group 8: ``--set`` values follow the same rule (before: ``--set final=1e3`` was the text "1e3")."""
    files = {"s.yaml": OK + ROUND.format(3, 1)}
    refused(tmp_path, monkeypatch, capsys, files, ["estimate", "s.yaml", "--set", override], message)


def test_a_size_in_set_is_read_like_one_in_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Group 8: ``--set rounds[0].repeat=9k`` is 9000 (before: refused as text)."""
    files = {"s.yaml": OK + ROUND.format(3, 1)}
    code, out, err = cli(
        tmp_path, monkeypatch, capsys, files, ["estimate", "s.yaml", "--set", "rounds[0].call_tokens=2k"]
    )
    assert (code, err) == (0, "")
    (tmp_path / "s.yaml").write_text(OK + ROUND.format(2000, 1), encoding="utf-8")
    assert run(["estimate", "s.yaml"]) == 0
    assert capsys.readouterr().out == out


# ---------------------------------------------------------------------------------------------
# Group 8: trace usage is bounded like a scenario's sizes

TRACES = [
    pytest.param("run.jsonl", ANTHROPIC, "1e30", "usage.input_tokens", "1e+30", id="anthropic 1e30"),
    pytest.param(
        "run.jsonl", ANTHROPIC, "1000000001", "usage.input_tokens", "1000000001", id="anthropic over"
    ),
    pytest.param("run.jsonl", ANTHROPIC, "5.0", "usage.input_tokens", "5.0", id="anthropic fraction"),
    pytest.param("run.jsonl", ANTHROPIC, "-8", "usage.input_tokens", "-8", id="anthropic negative"),
    pytest.param(
        "run.jsonl", ANTHROPIC, '"12"', "usage.input_tokens", "text (2 characters)", id="anthropic text"
    ),
    pytest.param(
        "run.jsonl",
        ANTHROPIC,
        "1" + "0" * 40,
        "usage.input_tokens",
        "a number of 41 characters",
        id="anthropic long number",
    ),
    pytest.param("run.jsonl", CHAT, "1e30", "usage.prompt_tokens", "1e+30", id="openai chat"),
    pytest.param("run.jsonl", RESPONSES, "1e30", "usage.input_tokens", "1e+30", id="openai responses"),
    pytest.param("run.jsonl", CLAUDE_CODE, "1e30", "message.usage.input_tokens", "1e+30", id="claude code"),
    pytest.param(
        "run.jsonl", CLAUDE_CODE, "-1", "message.usage.input_tokens", "-1", id="claude code negative"
    ),
]


@pytest.mark.parametrize(("name", "template", "value", "key", "got"), TRACES)
def test_trace_usage_is_bounded(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
    template: str,
    value: str,
    key: str,
    got: str,
) -> None:
    """Group 8: a reported token count over 10^9, a fraction, a negative or text is refused at its
    line and key (before: ``input_tokens: 1e30`` was priced at $6e24 with exit 0, and Claude Code
    logs read a bad count as 0)."""
    message = f"{name}:1: {key}: {USAGE_BOUND}, got {got}"
    refused(tmp_path, monkeypatch, capsys, {name: template.format(value)}, f"replay {name}", message)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            SWE_AGENT.format("1e30"),
            f"run.traj: info.model_stats.tokens_sent: {USAGE_BOUND}, got 1e+30",
            id="swe-agent tokens_sent",
        ),
        pytest.param(
            SWE_AGENT.format(5).replace("0.1", "1e300"),
            "run.traj: info.model_stats.instance_cost: must be a dollar amount from 0 to 1,000,000,000, "
            "got 1e+300",
            id="swe-agent cost",
        ),
        pytest.param(
            CLAUDE_CODE.format(5) + '{"type": "result", "sessionId": "s", "total_cost_usd": 1e300}\n',
            "run.traj: total_cost_usd: must be a dollar amount from 0 to 1,000,000,000, got 1e+300",
            id="claude code cost",
        ),
    ],
)
def test_trace_totals_are_bounded(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    text: str,
    message: str,
) -> None:
    """Group 8: SWE-agent run totals and a reported cost are bounded too (before: a 1e30 total was
    silently dropped, a $1e300 cost reported)."""
    fmt = "claude-code" if "sessionId" in text else "swe-agent"
    argv = f"replay run.traj --format-in {fmt} --model gpt-4o"
    if fmt == "claude-code":
        message = message.replace("run.traj: ", "run.traj:2: ")
    refused(tmp_path, monkeypatch, capsys, {"run.traj": text}, argv, message)


# ---------------------------------------------------------------------------------------------
# Group 8: a tag on any node is refused

TAGS = [
    pytest.param(
        OK + "description: !!python/object/new:os.system {a: 1}\n",
        "s.yaml:5: description: unsupported YAML tag !!python/object/new:os.system (remove the tag)",
        id="mapping",
    ),
    pytest.param(
        OK + "description: !!python/object/new:os.system [ls]\n",
        "s.yaml:5: description: unsupported YAML tag !!python/object/new:os.system (remove the tag)",
        id="sequence",
    ),
    pytest.param(
        OK + "description: !!set {a: null}\n",
        "s.yaml:5: description: unsupported YAML tag !!set (remove the tag)",
        id="standard set",
    ),
    pytest.param(
        OK + "limits:\n  <<: !!python/object/new:os.system {max_rounds: 3}\n",
        "s.yaml:6: limits: unsupported YAML tag !!python/object/new:os.system (remove the tag)",
        id="merged mapping",
    ),
    pytest.param(OK + "!local name: x\n", "s.yaml:5: unsupported YAML tag !local (remove the tag)", id="key"),
]


@pytest.mark.parametrize(("scenario", "message"), TAGS)
def test_a_tag_on_any_node_is_refused(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    scenario: str,
    message: str,
) -> None:
    """Group 8: tags on mappings and sequences were ignored (the node read as plain data); now any tag
    but the standard one of its node is refused at its line, as on a scalar (tests/test_error_catalogue.py)."""
    refused(tmp_path, monkeypatch, capsys, {"s.yaml": scenario}, "estimate s.yaml", message)


def test_a_tag_in_a_tools_file_or_a_json_file_or_set_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Group 8 (and 2): in a tools file the tag is not shown (the file is not the user's); a ``.json``
    file composed as YAML and a ``--set`` value are checked too."""
    tools = f"- name: Read\n  input_schema: !!python/object/new:{SECRET} {{type: object}}\n"
    refused(
        tmp_path,
        monkeypatch,
        capsys,
        {"s.yaml": OK + "tools: [{file: t.yaml}]\n", "t.yaml": tools},
        "estimate s.yaml",
        "t.yaml:2: [0].input_schema: unsupported YAML tag (remove the tag; tool file named at s.yaml:5)",
    )
    refused(
        tmp_path,
        monkeypatch,
        capsys,
        {"s.json": '{"version": 1, "model": "gpt-5", "task": "hi", "final": !!python/name:os.system 10}'},
        "estimate s.json",
        "s.json:1: final: unsupported YAML tag !!python/name:os.system (remove the tag)",
    )
    refused(
        tmp_path,
        monkeypatch,
        capsys,
        {"s.yaml": OK},
        ["estimate", "s.yaml", "--set", "description=!!seq [1]"],
        "s.yaml: --set description=!!seq [1]: expected text, got a list",
    )
