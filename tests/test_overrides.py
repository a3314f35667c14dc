"""``--set PATH=VALUE`` overrides, and reading a scenario through a reader (memory, a git revision)."""

from __future__ import annotations

import hashlib
import subprocess
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

import agentcost.infra.spec as spec
import agentcost.infra.yamlread as yamlread
import agentcost.scenario.format as scenario_format
import agentcost.scenario.overrides as scenario_overrides
import agentcost.scenario.values as scenario_values
from agentcost.errors import InputError
from agentcost.infra.doc import OverrideError
from agentcost.infra.files import Reader
from agentcost.infra.gitread import GitReader, git_reader
from agentcost.loop.estimate import estimate_scenario
from agentcost.scenario.load import read_scenario
from agentcost.scenario.model import Content, Scenario

ROOT = Path(__file__).resolve().parent.parent
RESEARCH = ROOT / "scenarios" / "research.yaml"
AS_OF = datetime(2026, 11, 30, tzinfo=UTC)
BASE = "version: 1\nmodel: m\ntask: t\nfinal: 1\n"  # lines 1-4


def write(tmp_path: Path, text: str, name: str = "s.yaml") -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def load_text(tmp_path: Path, text: str, *overrides: str) -> Scenario:
    return read_scenario(write(tmp_path, text), overrides=overrides)


def results(s: Scenario) -> list[Content]:
    return [r.calls[0].result for r in s.rounds]


def snapshot(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.parts
    }


# ---------------------------------------------------------------------------------------------
# Overriding the shipped research scenario


def test_without_overrides_nothing_changes() -> None:
    assert read_scenario(RESEARCH) == read_scenario(RESEARCH, overrides=())
    assert read_scenario(RESEARCH).overrides == ()


def test_model_and_limits() -> None:
    s = read_scenario(RESEARCH, overrides=["model=claude-sonnet-4-5", "limits.max_rounds=40"])
    assert s.model == "claude-sonnet-4-5"
    assert s.model_line is None  # the model is not on a line of the file any more
    assert s.limits.max_rounds == 40 and s.limits.max_rounds_line is None
    assert s.limits.budget_usd == Decimal("1.00") and s.limits.budget_line == 59  # untouched
    assert s.overrides == ("model=claude-sonnet-4-5", "limits.max_rounds=40")


def test_every_result_becomes_the_same_size() -> None:
    before = read_scenario(RESEARCH)
    s = read_scenario(RESEARCH, overrides=["rounds[*].result.tokens=2000"])
    assert len(s.rounds) == 30  # repeats unrolled as before
    assert results(s) == [Content(tokens=2000)] * 30
    # the rest of each round is unchanged: calls, thinking, text, lines
    assert [r.calls[0].input for r in s.rounds] == [r.calls[0].input for r in before.rounds]
    assert [(r.thinking, r.text, r.line) for r in s.rounds] == [
        (r.thinking, r.text, r.line) for r in before.rounds
    ]


def test_an_input_mapping_and_a_default() -> None:
    s = read_scenario(RESEARCH, overrides=["rounds[0].input={query: x}", "defaults.result=10"])
    assert s.rounds[0].calls[0].input == Content(text='{"query":"x"}')
    sizes = [c.tokens for c in results(s)]
    # rounds with their own result keep it; the 24 that took the default now get 10
    assert sizes.count(10) == 24 and sizes.count(1200) == 5 and sizes[-1] == 6000


def test_negative_index_is_counted_from_the_end() -> None:
    s = read_scenario(RESEARCH, overrides=["rounds[-1].result=7", "rounds[-1].thinking=5"])
    assert s.rounds[-1].calls[0].result == Content(tokens=7) and s.rounds[-1].thinking == 5


def test_doubled_results_cost_more_by_exactly_the_resent_tokens() -> None:
    small = estimate_scenario(
        read_scenario(RESEARCH, overrides=["rounds[*].result.tokens=2000"]), as_of=AS_OF
    )
    large = estimate_scenario(
        read_scenario(RESEARCH, overrides=["rounds[*].result.tokens=4000"]), as_of=AS_OF
    )
    # 30 rounds, 31 requests: the result of round i is sent in requests i+1 .. 31, so the 2,000
    # extra tokens of each result are sent 30 + 29 + ... + 1 = 465 times
    assert large.ledger.totals.input_tokens - small.ledger.totals.input_tokens == 2000 * 465
    assert large.ledger.totals.output_tokens == small.ledger.totals.output_tokens
    assert large.ledger.totals.cost_usd > small.ledger.totals.cost_usd


def test_the_model_override_is_priced() -> None:
    s = read_scenario(RESEARCH, overrides=["model=claude-sonnet-4-5"])
    est = estimate_scenario(s, as_of=AS_OF)
    assert est.prices.provider == "anthropic"


# ---------------------------------------------------------------------------------------------
# How values are set


def test_a_missing_mapping_is_created(tmp_path: Path) -> None:
    s = load_text(tmp_path, BASE, "limits.max_rounds=3", "limits.budget_usd=0.25")
    assert s.limits.max_rounds == 3 and s.limits.budget_usd == Decimal("0.25")
    assert str(s.limits.budget_usd) == "0.25"


def test_content_keys_replace_the_whole_content_value(tmp_path: Path) -> None:
    write(tmp_path, "result text", "r.txt")
    write(tmp_path, "system text", "prompts/sys.md")
    text = BASE + (
        "system: {tokens: 100}\n"
        "rounds:\n"
        "  - {tool: a, call_tokens: 1, result: 1200}\n"
        "  - {tool: a, call_tokens: 1, result: {file: r.txt}}\n"
        "  - {tool: a, call_tokens: 1, result: inline text}\n"
        "  - {tool: a, call_tokens: 1, result: {text: x}}\n"
        "  - {tool: a, call_tokens: 1}\n"  # no result of its own: it gets one
    )
    s = load_text(
        tmp_path, text, "rounds[*].result.tokens=2000", "system.file=prompts/sys.md", "final.text=Done."
    )
    assert results(s) == [Content(tokens=2000)] * 5
    assert s.system == Content(text="system text")  # relative to the scenario file
    assert s.final == Content(text="Done.")


def test_a_whole_content_value_may_be_set(tmp_path: Path) -> None:
    s = load_text(tmp_path, BASE, "task={tokens: 300}", "final=Short answer.", "defaults.text=5")
    assert s.task == Content(tokens=300) and s.final == Content(text="Short answer.")


def test_later_overrides_win(tmp_path: Path) -> None:
    text = BASE + "rounds:\n  - {tool: a, call_tokens: 1, result: 1}\n"
    s = load_text(
        tmp_path, text, "rounds[0]={tool: b, call_tokens: 2, result: 3}", "rounds[0].result=4", "model=x"
    )
    call = s.rounds[0].calls[0]
    assert (call.tool, call.input, call.result) == ("b", Content(tokens=2), Content(tokens=4))
    assert s.rounds[0].line is None  # the whole item came from an override


def test_wildcard_over_no_rounds_changes_nothing(tmp_path: Path) -> None:
    s = load_text(tmp_path, BASE, "rounds[*].result.tokens=5")
    assert s.rounds == ()
    s = load_text(tmp_path, BASE + "rounds: []\n", "rounds[*].thinking=5")
    assert s.rounds == ()


def test_tool_fields_by_format(tmp_path: Path) -> None:
    tools = (
        "tools:\n"
        "  - {name: a, description: old, input_schema: {type: object}}\n"
        "  - {type: function, function: {name: b, description: old}}\n"
    )
    s = load_text(
        tmp_path,
        BASE + tools,
        "tools[0].description=new a",
        "tools[1].function.description=new b",
        "tools[0].input_schema.properties={q: {type: string}}",
    )
    assert [t.description for t in s.tools] == ["new a", "new b"]
    assert s.tools[0].input_schema == {"type": "object", "properties": {"q": {"type": "string"}}}


def test_several_wildcards(tmp_path: Path) -> None:
    tools = "tools:\n  - {name: a, input_schema: {}}\n  - {name: b, inputSchema: {}}\n"
    s = load_text(tmp_path, BASE + tools, "tools[*].description=same")
    assert [t.description for t in s.tools] == ["same", "same"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2000", 2000),
        ("0.5", Decimal("0.5")),
        ("1.50", Decimal("1.50")),
        ("none", "none"),
        ("{tokens: 300}", {"tokens": 300}),
        ("[1,2]", [1, 2]),
        ("''", ""),
        ("", None),
        ("null", None),
        ("true", True),
        ("2025-01-02", "2025-01-02"),
        ("gpt-5", "gpt-5"),
        ("'on'", "on"),
        ("  spaced  ", "spaced"),
        ("a=b", "a=b"),  # only the first '=' separates the path
        ("two\nlines", "two lines"),  # as YAML folds a plain scalar
    ],
)
def test_values_are_read_as_yaml_like_the_file(value: str, expected: Any) -> None:
    parsed = yamlread.parse_override(f"name={value}", 0, Path("s.yaml")).value
    assert parsed == expected and type(parsed) is type(expected)


def test_a_value_on_several_lines_cannot_add_keys(tmp_path: Path) -> None:
    with pytest.raises(OverrideError, match="YAML syntax error"):
        load_text(tmp_path, BASE, "name=x\nmodel: other")


def test_user_files_are_never_modified(tmp_path: Path) -> None:
    write(tmp_path, "r", "r.txt")
    path = write(tmp_path, BASE + "rounds:\n  - {tool: a, call_tokens: 1, result: {file: r.txt}}\n")
    before = snapshot(tmp_path)
    read_scenario(path, overrides=["rounds[*].result.text=x", "limits.max_rounds=1", "model=y"])
    with pytest.raises(InputError):
        read_scenario(path, overrides=["rounds[0].tool="])
    assert snapshot(tmp_path) == before


def test_overrides_must_be_a_sequence_of_texts() -> None:
    with pytest.raises(TypeError):
        read_scenario(RESEARCH, overrides="model=x")


# ---------------------------------------------------------------------------------------------
# Bad overrides: one line naming the file and the --set, ``key`` is the path

# (id, overrides, expected key, the text after "scenarios/research.yaml: ")
BAD: list[tuple[str, list[str], str | None, str]] = [
    ("no-equals", ["limits.max_rounds"], None,
     "--set limits.max_rounds: no '=' between the path and the value "
     "(write --set PATH=VALUE, e.g. --set limits.max_rounds=40)"),
    ("empty-path", ["=40"], None, "--set =40: the path before '=' is empty (write --set PATH=VALUE"),
    ("bad-syntax", ["rounds[x].result=1"], "rounds[x].result",
     "--set rounds[x].result=1: not a key path: '[x].result' cannot follow 'rounds' (keys joined by "
     "'.', list items as [N], [-1] or [*], e.g. rounds[*].result.tokens)"),
    ("leading-dot", [".model=x"], ".model", "--set .model=x: not a key path: '.model' does not start with a key"),
    ("empty-key", ["limits..max_rounds=1"], "limits..max_rounds",
     "--set limits..max_rounds=1: not a key path: '..max_rounds' cannot follow 'limits'"),
    ("unknown-top-key", ["modle=gpt-5"], "modle",
     "--set modle=gpt-5: unknown key 'modle' (allowed: version, name, description, model, provider, "
     "system, tools, tool_choice, task, defaults, rounds, final, caching, cache_ttl, limits, pacing, "
     "service_tier, thinking_retention, final_thinking, server_tool_quota, retries, trim, "
     "context_editing, tool_search_stub, outcome; did you mean 'model'?)"),
    ("unknown-limits-key", ["limits.max_round=40"], "limits.max_round",
     "--set limits.max_round=40: unknown key 'max_round' in limits (allowed: max_rounds, budget_usd, "
     "max_budget_usd, max_concurrent_subagents, max_tokens; did you mean 'max_rounds'?)"),
    ("unknown-round-key", ["rounds[*].reslt.tokens=2000"], "rounds[*].reslt",
     "--set rounds[*].reslt.tokens=2000: unknown key 'reslt' in rounds[*] (allowed: tool, input, "
     "call_tokens, result, calls, subagent, model, repeat, thinking, text, seconds, container_seconds, "
     "server_tools; "
     "did you mean 'result'?)"),
    ("unknown-content-key", ["rounds[*].result.tokns=2000"], "rounds[*].result.tokns",
     "--set rounds[*].result.tokns=2000: unknown key 'tokns' in rounds[*].result (allowed: tokens, "
     "text, file; did you mean 'tokens'?)"),
    ("unknown-defaults-key", ["defaults.input={}"], "defaults.input",
     "--set defaults.input={}: unknown key 'input' in defaults (allowed: call_tokens, result, "
     "thinking, text, seconds, server_tools)"),
    ("inside-a-tool-file", ["tools[0].description=x"], "tools[0].description",
     "--set tools[0].description=x: unknown key 'description' in tools[0] (allowed: file, defer_loading, include, exclude; "
     "tools[0] names a tool file; --set cannot change the tools in it)"),
    ("index-out-of-range", ["rounds[11].result=1"], "rounds[11]",
     "--set rounds[11].result=1: index 11 is out of range: rounds has 11 items (rounds[0] to "
     "rounds[10], or rounds[-1] for the last; a round with repeat is one item)"),
    ("negative-out-of-range", ["tools[-2].file=x"], "tools[-2]",
     "--set tools[-2].file=x: index -2 is out of range: tools has 1 item (tools[0] to tools[0], "
     "or tools[-1] for the last)"),
    ("wildcard-on-text", ["model[*]=x"], "model",
     "--set model[*]=x: model is not a list: it is text 'gpt-5' ([N] and [*] select the items of a list)"),
    ("wildcard-on-mapping", ["limits[*]=1"], "limits",
     "--set limits[*]=1: limits is not a list: it is a mapping"),
    ("key-of-a-list", ["rounds.result=1"], "rounds",
     "--set rounds.result=1: rounds is a list (select its items with rounds[N] or rounds[*])"),
    ("key-of-text", ["model.name=x"], "model", "--set model.name=x: model is not a mapping: it is text 'gpt-5'"),
    ("key-of-number", ["limits.max_rounds.n=1"], "limits.max_rounds",
     "--set limits.max_rounds.n=1: limits.max_rounds is not a mapping: it is 30"),
    ("bad-yaml", ["rounds[0].input={query: x"], "rounds[0].input",
     "--set rounds[0].input={query: x: YAML syntax error: did not find expected ',' or '}' (while "
     "parsing a flow mapping; VALUE is read as YAML, as if written after 'KEY: ' in the file; "
     "quote it if it is text)"),
    ("colon-in-text", ["task=Fix it: now"], "task",
     "--set task=Fix it: now: YAML syntax error: mapping values are not allowed"),
    ("infinite", ["limits.budget_usd=.inf"], "limits.budget_usd",
     "--set limits.budget_usd=.inf: not a finite number: .inf (VALUE is read as YAML"),
    # found by the validation of the result: the same messages as for the file
    ("max-rounds-text", ["limits.max_rounds=abc"], "limits.max_rounds",
     "--set limits.max_rounds=abc: expected an integer, got text 'abc'"),
    ("max-rounds-zero", ["limits.max_rounds=0"], "limits.max_rounds",
     "--set limits.max_rounds=0: must be >= 1, got 0"),
    ("negative-tokens", ["rounds[*].result.tokens=-5"], "rounds[0].result.tokens",
     "--set rounds[*].result.tokens=-5: rounds[0].result.tokens: must be >= 0, got -5"),
    ("content-typo-in-value", ["final={tokns: 5}"], "final.tokns",
     "--set final={tokns: 5}: final.tokns: unknown key (allowed: tokens, text, file; did you mean 'tokens'?)"),
    ("caching-off", ["caching=off"], "caching",
     "--set caching=off: must be one of none, prefix, conversation, explicit; got the boolean false "
     "(YAML reads "
     "no/off/false as a boolean; write none)"),
    ("model-empty", ["model="], "model", "--set model=: expected text, got nothing (null)"),
    ("version", ["version=2"], "version", "--set version=2: unsupported version 2 (supported: 1)"),
    ("unknown-tool", ["rounds[0].tool=search"], "rounds[0].tool",
     "--set rounds[0].tool=search: unknown tool 'search' (defined: web_search, fetch_page; "
     "did you mean 'web_search'?)"),
    ("tool-choice-none", ["tool_choice=none"], "tool_choice",
     "--set tool_choice=none: 'none' forbids tool calls, but rounds has 11 tool round(s)"),
    ("input-and-call-tokens", ["rounds[0].call_tokens=5"], "rounds[0].call_tokens",
     "--set rounds[0].call_tokens=5: input and call_tokens exclude each other (give one of them)"),
    ("missing-file", ["rounds[-1].result.file=pages/iea.txt"], "rounds[10].result.file",
     "--set rounds[-1].result.file=pages/iea.txt: rounds[10].result.file: cannot read "
     "scenarios/pages/iea.txt: file not found"),
    ("missing-tool-file", ["tools[0].file=nope.json"], "tools[0].file",
     "--set tools[0].file=nope.json: cannot read scenarios/nope.json: file not found"),
    ("second-override-fails", ["model=x", "limits.budget_usd=-1"], "limits.budget_usd",
     "--set limits.budget_usd=-1: must be > 0, got -1"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("overrides", "key", "expected"), [pytest.param(*case[1:], id=case[0]) for case in BAD]
)
def test_bad_override(
    monkeypatch: pytest.MonkeyPatch, overrides: list[str], key: str | None, expected: str
) -> None:
    monkeypatch.chdir(ROOT)  # the file named as a user would type it
    with pytest.raises(OverrideError) as caught:
        read_scenario("scenarios/research.yaml", overrides=overrides)
    err = caught.value
    assert str(err).startswith("scenarios/research.yaml: " + expected)
    assert err.key == key and err.line is None and err.file == Path("scenarios/research.yaml")
    assert err.override == overrides[-1] and "\n" not in str(err)
    assert isinstance(err, InputError)


def test_bad_override_table_is_large() -> None:
    assert len(BAD) >= 15


def test_a_long_override_is_shortened_in_the_message(tmp_path: Path) -> None:
    with pytest.raises(OverrideError) as caught:
        load_text(tmp_path, BASE, "limits.max_rounds=" + "x" * 200)
    assert f"--set limits.max_rounds={'x' * 59}...: expected an integer" in str(caught.value)
    assert caught.value.override == "limits.max_rounds=" + "x" * 200


def test_an_error_inside_what_an_override_changed_says_so(tmp_path: Path) -> None:
    text = BASE + "rounds:\n  - tool: a\n    input: {q: 1}\n    result: 1\n"
    with pytest.raises(InputError) as caught:
        load_text(tmp_path, text, "rounds[0].input=null")
    assert str(caught.value) == (
        f"{tmp_path / 's.yaml'}:6: rounds[0]: the round has neither input nor call_tokens (add input: "
        "{...} or call_tokens: N, or set defaults.call_tokens; after --set rounds[0].input=null)"
    )


def test_a_duplicate_tool_names_the_override_that_defined_it(tmp_path: Path) -> None:
    tools = "tools:\n  - {name: a, input_schema: {}}\n  - {name: b, input_schema: {}}\n"
    with pytest.raises(InputError) as caught:
        load_text(tmp_path, BASE + tools, "tools[0].name=b")
    assert str(caught.value).endswith(
        f"s.yaml:7: tools[1].name: duplicate tool name 'b' (first defined at {tmp_path / 's.yaml'}:6, "
        "changed by --set tools[0].name=b)"
    )


def test_an_error_in_the_file_comes_first(tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        load_text(tmp_path, BASE + "cache_ttl: 10m\n", "limits.max_rounds=0")
    assert not isinstance(caught.value, OverrideError) and caught.value.line == 5


def test_override_errors_keep_their_form_when_located() -> None:
    err = OverrideError(
        "must be >= 1, got 0", file="s.yaml", override="limits.max_rounds=0", key="limits.max_rounds"
    )
    located = err.located(file="other.yaml", line=3, key="x")
    assert str(located) == str(err) == "s.yaml: --set limits.max_rounds=0: must be >= 1, got 0"


def _holds_a_mapping(shape: spec.Shape) -> bool:
    """Whether a value of ``shape`` may be a Spec mapping (anywhere inside it)."""
    if isinstance(shape, spec.Model):
        return True
    if isinstance(shape, spec.Tagged):
        return any(_holds_a_mapping(member) for member in shape.members.values())
    if isinstance(shape, spec.Union):
        return any(_holds_a_mapping(member) for member in shape.members)
    inner = getattr(shape, "inner", None) or getattr(shape, "item", None)
    return inner is not None and _holds_a_mapping(inner)


def _unwrapped(shape: spec.Shape) -> spec.Shape:
    return shape.inner if isinstance(shape, spec.Nullable) else shape


def test_every_nested_field_is_known_to_the_override_walk() -> None:
    """A key holding a content value or another model needs an entry in _CHILDREN."""
    models = [
        scenario_format.ScenarioFile, scenario_format.RoundSpec, scenario_format.DefaultsSpec,
        scenario_format.LimitsSpec, scenario_values.OpenAIChatTool, *scenario_overrides._TOOL_MODELS.values(),
        scenario_format.PacingSpec, scenario_format.ServerToolSpec, scenario_format.CallSpec,
        scenario_format.RetriesSpec, scenario_format.TrimSpec, scenario_format.ContextEditingSpec,
    ]  # fmt: skip
    counts = (scenario_values.COUNT_VALUE, scenario_values.POSITIVE_COUNT_VALUE)
    for model in models:
        for f in model.fields:
            shape = _unwrapped(f.shape)
            level = scenario_overrides._CHILDREN.get((model, f.key), "any")
            if shape is scenario_values.CONTENT:
                assert level == "content", (model.__name__, f.key)
            elif shape in counts:  # a number or a distribution: --set replaces it whole
                assert level == "any", (model.__name__, f.key)
            elif _holds_a_mapping(shape):
                assert level != "any", (model.__name__, f.key)
            else:
                assert level == "any", (model.__name__, f.key)


# ---------------------------------------------------------------------------------------------
# Readers


def memory_reader(files: dict[str, bytes], calls: list[Path]) -> Reader:
    def read(path: Path) -> bytes:
        calls.append(path)
        name = path.as_posix()
        if name not in files:
            raise FileNotFoundError(f"file not found in memory: {name}")
        return files[name]

    return read


def test_a_reader_reads_the_scenario_and_every_file_it_names(tmp_path: Path) -> None:
    root = tmp_path / "nowhere"  # nothing is on disk
    tools = b'[{"name": "a", "input_schema": {}}]'
    files = {
        f"{root}/s.yaml": (BASE + "system: {file: sys.md}\ntools:\n  - file: t.json\n").encode(),
        f"{root}/sys.md": b"\xef\xbb\xbfsystem from memory",
        f"{root}/t.json": tools,
    }
    calls: list[Path] = []
    s = read_scenario(root / "s.yaml", reader=memory_reader(files, calls))
    assert s.system == Content(text="system from memory")  # the BOM dropped as for a file
    assert [t.name for t in s.tools] == ["a"]
    assert all(p.is_absolute() for p in calls) and len(calls) == 3


def test_a_reader_gets_absolute_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    calls: list[Path] = []
    files = {f"{tmp_path}/sub/s.yaml": BASE.encode()}
    s = read_scenario("sub/s.yaml", reader=memory_reader(files, calls))
    assert calls == [tmp_path / "sub/s.yaml"] and s.path == Path("sub/s.yaml")


def test_a_readers_own_reason_is_used(tmp_path: Path) -> None:
    files = {f"{tmp_path}/s.yaml": (BASE + "system: {file: sys.md}\n").encode()}
    with pytest.raises(InputError) as caught:
        read_scenario(tmp_path / "s.yaml", reader=memory_reader(files, []))
    assert str(caught.value) == (
        f"{tmp_path / 's.yaml'}:5: system.file: cannot read {tmp_path / 'sys.md'}: "
        f"file not found in memory: {tmp_path / 'sys.md'}"
    )


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (FileNotFoundError(2, "No such file or directory"), "file not found"),
        (PermissionError(13, "Permission denied"), "permission denied"),
        (IsADirectoryError(21, "Is a directory"), "is a directory, not a file"),
        (OSError(5, "Input/output error"), "Input/output error"),
        (OSError("the network is down"), "the network is down"),
    ],
)
def test_reader_errors_give_the_usual_messages(tmp_path: Path, error: OSError, reason: str) -> None:
    def read(path: Path) -> bytes:
        raise error

    with pytest.raises(InputError) as caught:
        read_scenario(tmp_path / "s.yaml", reader=read)
    assert str(caught.value) == f"{tmp_path / 's.yaml'}: {reason}"


# ---------------------------------------------------------------------------------------------
# git_reader: files as committed


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repository with one commit of a scenario (in a subdirectory) and its result file."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    write(root, BASE + "rounds:\n  - {tool: a, call_tokens: 1, result: {file: out/r.txt}}\n", "sc/s.yaml")
    write(root, "old result", "sc/out/r.txt")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "base")
    # the working tree moves on
    write(root, BASE.replace("model: m", "model: new") + "rounds:\n  - {tool: a, call_tokens: 1, result: "
          "{file: out/r.txt}}\n  - {tool: b, call_tokens: 1, result: {file: new.txt}}\n", "sc/s.yaml")  # fmt: skip
    write(root, "new result", "sc/out/r.txt")
    write(root, "added", "sc/new.txt")
    return root


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-C", str(root), *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def test_git_reader_reads_the_committed_files(repo: Path) -> None:
    head = read_scenario(repo / "sc/s.yaml")
    assert head.model == "new" and results(head) == [Content(text="new result"), Content(text="added")]
    base = read_scenario(repo / "sc/s.yaml", reader=git_reader("HEAD"))
    assert base.model == "m" and results(base) == [Content(text="old result")]
    assert base.path == repo / "sc/s.yaml"


def test_git_reader_with_overrides_and_a_given_root(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo / "sc")
    s = read_scenario("s.yaml", reader=git_reader("HEAD", repo_root=repo), overrides=["model=x"])
    assert s.model == "x" and results(s) == [Content(text="old result")]


def test_a_file_missing_at_the_revision(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)
    with pytest.raises(InputError) as caught:
        read_scenario("sc/s.yaml", reader=git_reader("HEAD"), overrides=["rounds[0].result.file=new.txt"])
    assert str(caught.value) == (
        "sc/s.yaml: --set rounds[0].result.file=new.txt: cannot read sc/new.txt: file not found at HEAD"
    )
    with pytest.raises(InputError) as caught:
        read_scenario("sc/new.yaml", reader=git_reader("HEAD"))
    assert str(caught.value) == "sc/new.yaml: file not found at HEAD"


def test_a_directory_at_the_revision(repo: Path) -> None:
    with pytest.raises(InputError, match=r"cannot read .*out: is a directory at HEAD, not a file"):
        read_scenario(repo / "sc/s.yaml", reader=git_reader("HEAD"), overrides=["rounds[0].result.file=out"])


def test_a_file_outside_the_repository(repo: Path, tmp_path: Path) -> None:
    write(tmp_path, "outside", "outside.txt")
    with pytest.raises(InputError, match=r"outside.txt, outside the allowed directories"):
        read_scenario(
            repo / "sc/s.yaml",
            reader=git_reader("HEAD"),
            overrides=["rounds[0].result.file=../../outside.txt"],
        )
    from agentcost.infra.policy import InputPolicy, using_policy

    with (
        using_policy(InputPolicy(allowed_roots=(tmp_path,))),
        pytest.raises(InputError, match=r"file not found at HEAD: it is outside the git repository"),
    ):
        read_scenario(
            repo / "sc/s.yaml",
            reader=git_reader("HEAD"),
            overrides=["rounds[0].result.file=../../outside.txt"],
        )


def test_unknown_revision(repo: Path) -> None:
    with pytest.raises(InputError) as caught:
        read_scenario(repo / "sc/s.yaml", reader=git_reader("no-such-branch"))
    assert str(caught.value).startswith(f"unknown git revision 'no-such-branch' in {repo} (check the name")
    assert "fetch-depth: 0" in str(caught.value)


@pytest.mark.parametrize("ref", ["", "--output=x"])
def test_not_a_revision(ref: str) -> None:
    with pytest.raises(InputError, match="not a git revision"):
        git_reader(ref)


def test_not_a_git_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))  # do not find a repository above
    path = write(tmp_path / "plain", BASE)
    with pytest.raises(InputError) as caught:
        read_scenario(path, reader=git_reader("main"))
    assert str(caught.value).startswith(
        f"cannot read files at git revision 'main': no git repository at {tmp_path / 'plain'} (fatal: not a git "
        "repository"
    )


def test_git_missing(repo: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    with pytest.raises(InputError, match="git is not installed"):
        read_scenario(repo / "sc/s.yaml", reader=git_reader("HEAD"))


def test_each_file_is_read_from_git_once(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_run = subprocess.run
    commands: list[tuple[str, ...]] = []

    def counting_run(args: list[str], **kwargs: Any) -> Any:
        commands.append(tuple(args[3:]))
        return real_run(args, **kwargs)

    monkeypatch.setattr(subprocess, "run", counting_run)
    reader = git_reader("HEAD")
    assert isinstance(reader, GitReader) and reader.ref == "HEAD"
    read_scenario(repo / "sc/s.yaml", reader=reader)
    first = len(commands)
    read_scenario(repo / "sc/s.yaml", reader=reader)
    with pytest.raises(FileNotFoundError):
        reader(repo / "sc/new.txt")
    with pytest.raises(FileNotFoundError):
        reader(repo / "sc/new.txt")
    blobs = [c for c in commands if c[:2] == ("cat-file", "blob")]
    assert len(blobs) == 2  # the scenario and r.txt, once each
    sizes = [c for c in commands if c[:2] == ("cat-file", "-s")]
    assert len(sizes) == 2  # each asked its size first, once
    assert sum(c[:1] == ("rev-parse",) for c in commands) == 2  # the root and the commit, once
    assert len(commands) == first + 1  # the missing file: one look, then remembered
