"""Untrusted input, the text budget (issue 13, group 1: memory amplification).

A scenario of a few MB made agentcost hold and tokenize gigabytes: a string used through YAML aliases
as every call's ``input`` (each becomes a JSON text of its own), tool definitions sharing an aliased
description, a subagent file loaded once per call that names it, many different files. The run's
``max_input_bytes`` (64 MiB by default, ``--max-input-bytes``) bounds the text a load holds and the
text a count tokenizes (agentcost.scenario.budget), both checked before anything is tokenized. Every
test here covers group 1; the limits are small so that the tests stay small and fast, and no test
measures time or memory (bench/bench_memory.py does).
"""

from __future__ import annotations

import os
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from agentcost.cli import run
from agentcost.errors import InputError
from agentcost.infra.jsontext import dump_json
from agentcost.infra.policy import DEFAULT_MAX_INPUT_BYTES, InputPolicy, using_policy
from agentcost.scenario.budget import json_length, tokenized_chars, tool_json_length
from agentcost.scenario.load import read_scenario
from agentcost.scenario.model import ToolDef
from agentcost.tokens.count import count_tokens
from agentcost.tokens.memo import TokenMemo

ROOT = Path(__file__).resolve().parent.parent
HEAD = "version: 1\nmodel: gpt-4o\ntask: 100\nfinal: 10\n"  # no text of its own: totals stay simple
RAISE = "raise the limit with --max-input-bytes N"
LOAD_HINT = (
    f"files read, texts, and call inputs and tool definitions as JSON text, each time one is built; {RAISE}"
)
COUNT_HINT = f"each distinct text once, tool definitions as JSON text, subagents included; {RAISE}"
X = "x" * 1000  # a 1,000-character text: its JSON in an input mapping {t: X} is 1,008 characters
ALIASED_INPUTS = (  # X anchored in the first round's input and used through an alias in 9 more
    HEAD
    + "rounds:\n"
    + f"  - {{tool: Read, input: {{t: &x {X}}}, result: 5}}\n"
    + "  - {tool: Read, input: {t: *x}, result: 5}\n" * 9
)


def load_error(file: str, total: int, limit: int) -> str:
    return (
        f"agentcost: error: {file}: more than {limit:,} characters of text to load and tokenize: "
        f"{total:,} so far ({LOAD_HINT})\n"
    )


def count_error(file: str, total: int, limit: int) -> str:
    return (
        f"agentcost: error: {file}: {total:,} characters of text to tokenize, over the limit of "
        f"{limit:,} ({COUNT_HINT})\n"
    )


def first_over(limit: int, parts: list[int]) -> int:
    """The running total of ``parts`` when it first passes ``limit`` (the total the load stops at)."""
    total = 0
    for n in parts:
        total += n
        if total > limit:
            return total
    raise AssertionError(f"{sum(parts):,} never passes {limit:,}")


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Any:
    """``cli(files, argv) -> (exit code, stderr)``: write ``files`` into an empty directory and run
    the command line there."""
    monkeypatch.chdir(tmp_path)

    def call(files: dict[str, str], argv: list[str]) -> tuple[int, str]:
        for name, text in files.items():
            Path(name).write_text(text, encoding="utf-8")
        code = run(argv)
        return code, capsys.readouterr().err

    return call


# --- lengths of JSON texts, without building them ---------------------------------------------------------


VALUES: list[Any] = [
    {},
    [],
    {"a": 1, "b": [True, False, None], "c": {"d": "e"}},
    {"path": "src/app.py", "n": -12, "big": 10**30, "ratio": Decimal("0.125"), "e": Decimal("1E+3")},
    ["plain", 'quo"te', "back\\slash", "new\nline", "tab\t", "nul\x00", "del\x7f", "bell\x07"],
    {"é": "café", "日本": "語", "emoji": "🙂 ok", "nbsp": "a\u00a0b", "sep": "a\u2028b", "bidi": "\u202e"},
    {7: "int key", True: "bool key", None: "null key", 2.5: "float key"},
    {"nested": [[[{"deep": ["x" * 300]}]]], "lone": "\udc80"},
    ("a", "tuple"),
]


@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
@pytest.mark.parametrize("ensure_ascii", [False, True])
@pytest.mark.parametrize("separators", [(",", ":"), (", ", ": ")])
def test_json_length_is_the_length_of_the_json_text(
    value: Any, ensure_ascii: bool, separators: tuple[str, str]
) -> None:
    """Group 1: the budget measures a call input's or a tool definition's JSON text without building
    it (an alias-bombed input would take gigabytes to build); the length is exact."""
    text = dump_json(value, separators=separators, ensure_ascii=ensure_ascii)
    assert json_length(value, separators=separators, ensure_ascii=ensure_ascii) == len(text)


def test_tool_json_length_is_the_length_of_the_definition_counted() -> None:
    """Group 1: a tool definition counts as the JSON text the counting rules tokenize."""
    tool = ToolDef(
        "Read", "Read a file: “quoted”.\n", {"type": "object", "properties": {"p": {"type": "string"}}}
    )
    text = dump_json(
        {"name": tool.name, "description": tool.description, "input_schema": tool.input_schema},
        separators=(", ", ": "),
        ensure_ascii=True,
    )
    assert tool_json_length(tool) == len(text)


# --- the load: refused as the text it holds passes the limit ------------------------------------------------


def test_aliased_inputs_are_refused_before_their_json_is_built(cli: Any) -> None:
    """Group 1: each call's input becomes a JSON text of its own, so 10 aliases of a 1,000-character
    text are 10,080 characters, counted before any is built; the load stops at the limit."""
    code, err = cli({"s.yaml": ALIASED_INPUTS}, ["estimate", "s.yaml", "--max-input-bytes", "5000"])
    assert code == 2
    assert err == load_error("s.yaml", first_over(5000, [len(ALIASED_INPUTS)] + [1008] * 10), 5000)


def test_aliased_inputs_under_the_limit_run(cli: Any) -> None:
    """Group 1: the same file runs under a limit it fits (its file and ten 1,008-character inputs)."""
    limit = len(ALIASED_INPUTS) + 10 * 1008
    code, err = cli({"s.yaml": ALIASED_INPUTS}, ["estimate", "s.yaml", "-q", "--max-input-bytes", str(limit)])
    assert (code, err) == (0, "")


def test_the_python_api_takes_the_limit() -> None:
    """Group 1: ``using_policy`` (what ``max_input_bytes=`` sets) bounds a load made through the API."""
    import agentcost

    tmp = ROOT / "tests" / "golden"  # any directory: the scenario is given as a mapping, no file read
    mapping = {
        "version": 1,
        "model": "gpt-4o",
        "task": 100,
        "final": 10,
        "rounds": [{"tool": "Read", "input": {"t": X}, "result": 5}] * 3,
    }
    with pytest.raises(InputError, match=r"more than 2,000 characters of text to load and tokenize"):
        agentcost.load_scenario(mapping, base_dir=tmp, max_input_bytes=2000)
    assert agentcost.load_scenario(mapping, base_dir=tmp, max_input_bytes=10_000).rounds


def test_aliased_results_count_once(cli: Any) -> None:
    """Group 1: a text used through aliases as 10 rounds' result is one text in memory and is
    tokenized once: it counts once (the file and 1,000 characters fit in 3,000)."""
    text = HEAD + "rounds:\n" + f"  - {{tool: Read, call_tokens: 5, result: &x {X}}}\n"
    text += "  - {tool: Read, call_tokens: 5, result: *x}\n" * 9
    code, err = cli({"s.yaml": text}, ["estimate", "s.yaml", "-q", "--max-input-bytes", "3000"])
    assert (code, err) == (0, "")


def test_repeats_count_once(cli: Any) -> None:
    """Group 1: the 1,000 rounds of a repeat are one round: its input and result count once."""
    text = HEAD + f"rounds:\n  - {{tool: Read, input: {{t: {X}}}, result: {X}, repeat: 1000}}\n"
    limit = len(text) + 1008 + 1000  # the file, the input's JSON and the result, once
    code, err = cli({"s.yaml": text}, ["estimate", "s.yaml", "-q", "--max-input-bytes", str(limit)])
    assert code in (0, 1) and "characters of text" not in err  # exit 1: the context-window gate


def test_parallel_calls_count_each_input(cli: Any) -> None:
    """Group 1: parallel calls through aliases are a JSON text each."""
    text = HEAD + f"rounds:\n  - calls:\n      - {{tool: Read, input: &i {{t: {X}}}, result: 5}}\n"
    text += "      - {tool: Read, input: *i, result: 5}\n" * 4
    code, err = cli({"s.yaml": text}, ["estimate", "s.yaml", "--max-input-bytes", "3000"])
    assert code == 2
    assert err == load_error("s.yaml", first_over(3000, [len(text)] + [1008] * 5), 3000)


def test_different_files_are_refused_as_they_are_read(cli: Any) -> None:
    """Group 1: files read count as they are read, and the load stops at the file that passes the
    limit (100 different 9 MB files would otherwise all be read first)."""
    files = {f"f{i}.txt": str(i) * 1000 for i in range(5)}
    text = HEAD + "rounds:\n"
    text += "".join(f"  - {{tool: Read, call_tokens: 5, result: {{file: f{i}.txt}}}}\n" for i in range(5))
    code, err = cli({"s.yaml": text, **files}, ["estimate", "s.yaml", "--max-input-bytes", "3000"])
    assert code == 2
    assert err == load_error("s.yaml", first_over(3000, [len(text)] + [1000] * 5), 3000)


def test_one_text_under_many_names_counts_once(cli: Any, tmp_path: Path) -> None:
    """Group 1: a file named by many rounds, through symlinks, a hard link or as an equal copy is
    held once and counts once."""
    (tmp_path / "big.txt").write_text(X, encoding="utf-8")
    (tmp_path / "copy.txt").write_text(X, encoding="utf-8")
    os.link(tmp_path / "big.txt", tmp_path / "hard.txt")
    names = ["big.txt", "copy.txt", "hard.txt", "big.txt"]
    for i in range(5):
        (tmp_path / f"link{i}.txt").symlink_to("big.txt")
        names.append(f"link{i}.txt")
    text = HEAD + "rounds:\n"
    text += "".join(f"  - {{tool: Read, call_tokens: 5, result: {{file: {n}}}}}\n" for n in names)
    limit = len(text) + 1000
    code, err = cli({"s.yaml": text}, ["estimate", "s.yaml", "-q", "--max-input-bytes", str(limit)])
    assert (code, err) == (0, "")


def test_a_subagent_counts_each_time_it_is_loaded(cli: Any) -> None:
    """Group 1: a subagent file is loaded (and its texts built) once per call that names it; its
    file is read once."""
    sub = f"version: 1\nmodel: gpt-4o\ntask: 100\nfinal: {X}\n"
    text = HEAD + "rounds:\n" + "  - {tool: Ask, call_tokens: 5, subagent: {file: sub.yaml}}\n" * 5
    code, err = cli({"s.yaml": text, "sub.yaml": sub}, ["estimate", "s.yaml", "--max-input-bytes", "4000"])
    assert code == 2
    assert err == load_error("s.yaml", first_over(4000, [len(text), len(sub)] + [1000] * 5), 4000)


def test_aliased_tool_descriptions_count_per_definition(cli: Any) -> None:
    """Group 1: tools sharing an aliased description are tokenized as a JSON text each."""
    text = HEAD + "tools:\n" + f"  - {{name: t0, description: &d {X}, input_schema: {{type: object}}}}\n"
    text += "".join(
        f"  - {{name: t{i}, description: *d, input_schema: {{type: object}}}}\n" for i in range(1, 5)
    )
    one = len(
        dump_json(
            {"name": "t0", "description": X, "input_schema": {"type": "object"}},
            separators=(", ", ": "),
            ensure_ascii=True,
        )
    )
    code, err = cli({"s.yaml": text}, ["estimate", "s.yaml", "--max-input-bytes", "4000"])
    assert code == 2
    assert err == load_error("s.yaml", first_over(4000, [len(text)] + [one] * 5), 4000)


@pytest.mark.parametrize(
    "argv",
    [
        ["compare", "s.yaml", "-m", "gpt-4o", "-m", "gpt-5"],
        ["estimate", "p.yml"],
        ["estimate", "s.yaml", "--simulate", "50"],
        ["estimate", "s.yaml", "--explain"],
        ["diff", "s.yaml", "b.yaml"],
    ],
    ids=["compare", "project", "simulate", "explain", "diff"],
)
def test_every_command_stops_at_the_limit(cli: Any, argv: list[str]) -> None:
    """Group 1: compare, a project, a simulation, insights and diff load through the same budget."""
    files = {
        "s.yaml": ALIASED_INPUTS,
        "b.yaml": ALIASED_INPUTS,
        "p.yml": "version: 1\nscenarios:\n  - path: s.yaml\n",
    }
    code, err = cli(files, [*argv, "--max-input-bytes", "5000"])
    assert code == 2
    assert err == load_error("s.yaml", first_over(5000, [len(ALIASED_INPUTS)] + [1008] * 10), 5000)


def test_the_default_limit_applies(cli: Any) -> None:
    """Group 1: with no option, 64 MiB: 700 aliases of a 100,000-character input are 70 MB of JSON,
    refused before one is built (before the change: built, then tokenized)."""
    big = "y" * 100_000
    text = HEAD + "rounds:\n" + f"  - {{tool: Read, input: {{t: &y {big}}}, result: 5}}\n"
    text += "  - {tool: Read, input: {t: *y}, result: 5}\n" * 699
    code, err = cli({"s.yaml": text}, ["estimate", "s.yaml"])
    assert code == 2
    total = first_over(DEFAULT_MAX_INPUT_BYTES, [len(text)] + [100_008] * 700)
    assert err == load_error("s.yaml", total, DEFAULT_MAX_INPUT_BYTES)


# --- the count: refused before tokenizing ---------------------------------------------------------------


def test_counting_checks_before_tokenizing(tmp_path: Path) -> None:
    """Group 1: a scenario that did not come through the loader (the cache, the API) is checked by
    ``count_tokens`` before a text is tokenized: each distinct text once."""
    path = tmp_path / "s.yaml"
    path.write_text(ALIASED_INPUTS, encoding="utf-8")
    scenario = read_scenario(path)
    expected = 1008 + len("Read")  # the input's JSON (ten equal texts: one) and the tool's name
    assert tokenized_chars(scenario) == expected
    memo = TokenMemo(persistent=False)
    with using_policy(InputPolicy(max_input_bytes=expected - 1)), pytest.raises(InputError) as caught:
        count_tokens(scenario, provider="openai", model_id="gpt-4o", memo=memo)
    assert f"agentcost: error: {caught.value}\n" == count_error(str(path), expected, expected - 1)
    assert memo.schemes() == ()  # nothing tokenized
    with using_policy(InputPolicy(max_input_bytes=expected)):
        assert count_tokens(scenario, provider="openai", model_id="gpt-4o", memo=memo).rounds


def test_a_lower_budget_on_a_second_run_is_refused(cli: Any) -> None:
    """Group 1: a scenario that loaded under the default limit (its counts now in the token cache)
    is refused under a smaller one: nothing a first run leaves behind lifts a limit."""
    code, _ = cli({"s.yaml": ALIASED_INPUTS}, ["estimate", "s.yaml", "-q"])
    assert code == 0
    code, err = cli({}, ["estimate", "s.yaml", "--max-input-bytes", "1000"])
    assert code == 2
    assert err.startswith("agentcost: error: s.yaml: more than 1,000 characters of text to load and tokenize")


def test_subagents_are_part_of_the_count(tmp_path: Path) -> None:
    """Group 1: the text to tokenize includes every subagent's, each distinct text once."""
    (tmp_path / "sub.yaml").write_text(f"version: 1\nmodel: gpt-4o\ntask: {'z' * 500}\nfinal: {X}\n")
    path = tmp_path / "s.yaml"
    path.write_text(HEAD + "rounds:\n" + "  - {tool: Ask, call_tokens: 5, subagent: {file: sub.yaml}}\n" * 3)
    assert tokenized_chars(read_scenario(path)) == len("Ask") + 500 + 1000


def test_a_long_text_is_counted_without_a_list_of_its_tokens() -> None:
    """Group 1: a text of a million characters or more is counted through a numpy buffer (4 bytes a
    token instead of a 36-byte Python int in a list; one call's input may be 45 MB); the count is
    ``encode_ordinary``'s, special-token text and lone surrogates included."""
    from agentcost.tokens.encodings import get_encoding
    from agentcost.tokens.memo import LONG_TEXT, ordinary_tokens

    encoding = get_encoding("o200k_base")
    text = ("Read <|endoftext|> the file, then édit it: 12345 ✓.\n" * (LONG_TEXT // 50 + 1))[: LONG_TEXT + 7]
    calls: list[str] = []

    class Spy:
        def encode_to_numpy(self, t: str, **kwargs: Any) -> Any:
            calls.append("numpy")
            return encoding.encode_to_numpy(t, **kwargs)

        def encode_ordinary(self, t: str) -> list[int]:
            calls.append("list")
            return encoding.encode_ordinary(t)

    assert ordinary_tokens(Spy(), text) == len(encoding.encode_ordinary(text))
    assert calls == ["numpy"]
    lone = text + "\udc80"  # numpy's path refuses it; encode_ordinary replaces it
    assert ordinary_tokens(encoding, lone) == len(encoding.encode_ordinary(lone))
    assert ordinary_tokens(Spy(), "short") == 1 and calls[-1] == "list"


# --- real scenarios --------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted((ROOT / "scenarios").glob("*.yaml")), ids=lambda p: p.name)
def test_shipped_scenarios_are_far_under_the_default(path: Path) -> None:
    """Group 1: every shipped scenario loads and counts within a 64th of the default limit (1 MiB)."""
    with using_policy(InputPolicy(max_input_bytes=DEFAULT_MAX_INPUT_BYTES // 64)):
        scenario = read_scenario(path)
        assert tokenized_chars(scenario) <= DEFAULT_MAX_INPUT_BYTES // 64
