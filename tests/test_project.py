"""Project files: the shipped example, paths relative to the project file, Decimal runs per day,
which files count as project files, and bad input pointing at the file, line and key."""

from __future__ import annotations

import hashlib
import json
from decimal import Decimal
from pathlib import Path

import jsonschema
import pytest
import yaml

from agentcost.errors import InputError
from agentcost.scenario.project import (
    Project,
    ProjectEntry,
    is_project_file,
    json_schema,
    load_project,
    load_targets,
)
from tests.conftest import ROOT, validate_json

SCENARIOS = ROOT / "scenarios"
SCENARIO = "version: 1\nmodel: gpt-5\ntask: t\nfinal: 1\n"
BASE = "version: 1\nscenarios:\n  - path: s.yaml\n"  # the smallest valid project: lines 1-3


def write(root: Path, text: str | bytes, name: str) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------
# Good files


def test_the_shipped_project_file() -> None:
    project = load_project(SCENARIOS / "agentcost.yml")
    assert project.name == "Support agents"
    assert project.budget_usd == Decimal("0.25") and project.budget_line == 6
    assert [e.path for e in project.entries] == [
        SCENARIOS / "bugfix.yaml",
        SCENARIOS / "research.yaml",
        SCENARIOS / "mcp-40-tools.yaml",
    ]
    bugfix, research, mcp = project.entries
    assert (bugfix.runs_per_day, bugfix.budget_usd, bugfix.budget_line) == (Decimal(200), Decimal("0.05"), 10)
    assert bugfix.line == 8  # the "- path:" line of the entry
    assert research.name == "Research briefing (gpt-5-mini)"
    assert research.runs_per_day == Decimal("12.5")
    assert research.overrides == ("model=gpt-5-mini",)
    assert research.override_lines == (14,)
    assert (mcp.runs_per_day, mcp.budget_usd, mcp.overrides) == (Decimal(24), None, ())


def test_numbers_are_decimals_from_their_text_never_floats(tmp_path: Path) -> None:
    write(tmp_path, SCENARIO, "s.yaml")
    path = write(
        tmp_path,
        "version: 1\nbudget_usd: 0.3\nscenarios:\n  - path: s.yaml\n    runs_per_day: 0.1\n"
        "    budget_usd: 7\n  - path: s.yaml\n    runs_per_day: 1_000\n",
        "p.yml",
    )
    project = load_project(path)
    first, second = project.entries
    for value in (project.budget_usd, first.runs_per_day, first.budget_usd, second.runs_per_day):
        assert type(value) is Decimal
    assert (project.budget_usd, first.runs_per_day, first.budget_usd) == (
        Decimal("0.3"),
        Decimal("0.1"),
        Decimal(7),
    )
    assert str(first.runs_per_day) == "0.1"  # the text written, not float(0.1)'s 55 digits
    assert second.runs_per_day == Decimal(1000)
    assert second.budget_usd is None and second.budget_line is None


def test_paths_are_relative_to_the_project_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, SCENARIO, "team/agents/a.yaml")
    write(tmp_path, "version: 1\nscenarios:\n  - path: agents/a.yaml\n", "team/agentcost.yml")
    monkeypatch.chdir(tmp_path)
    project = load_project("team/agentcost.yml")
    assert project.path == Path("team/agentcost.yml")
    assert project.entries[0].path == Path("team/agents/a.yaml")


def test_the_same_scenario_may_be_listed_twice_with_different_overrides(tmp_path: Path) -> None:
    write(tmp_path, SCENARIO, "s.yaml")
    path = write(
        tmp_path,
        BASE + "    name: on gpt-5\n  - path: s.yaml\n    name: on gpt-4o\n    set: [model=gpt-4o]\n",
        "p.yml",
    )
    first, second = load_project(path).entries
    assert first.path == second.path
    assert (first.name, first.overrides) == ("on gpt-5", ())
    assert (second.name, second.overrides, second.override_lines) == ("on gpt-4o", ("model=gpt-4o",), (7,))


def test_is_project_file(tmp_path: Path) -> None:
    assert is_project_file(SCENARIOS / "agentcost.yml")
    assert not is_project_file(SCENARIOS / "bugfix.yaml")
    assert not is_project_file(tmp_path / "missing.yml")
    assert not is_project_file(tmp_path)  # a directory
    assert not is_project_file(write(tmp_path, "scenarios: [\n", "broken.yml"))
    assert not is_project_file(write(tmp_path, "- scenarios\n", "list.yml"))
    assert not is_project_file(write(tmp_path, "", "empty.yml"))
    assert not is_project_file(write(tmp_path, b"scenarios: \xff\n", "binary.yml"))
    # a mapping with a scenarios: key is a project file, however wrong the rest is: load_project says why
    assert is_project_file(write(tmp_path, "scenarios: 3\nversion: 9\n", "wrong.yml"))


def test_load_targets(tmp_path: Path) -> None:
    project = load_targets([SCENARIOS / "agentcost.yml"])
    assert project.path == SCENARIOS / "agentcost.yml" and len(project.entries) == 3
    loose = load_targets(["a.yaml", Path("b.yaml")])
    assert loose == Project(path=None, entries=(ProjectEntry(Path("a.yaml")), ProjectEntry(Path("b.yaml"))))
    with pytest.raises(InputError, match="a project file cannot be combined with other files"):
        load_targets([SCENARIOS / "bugfix.yaml", SCENARIOS / "agentcost.yml"])
    with pytest.raises(InputError, match="no scenario files given"):
        load_targets([])


# ---------------------------------------------------------------------------------------------
# Bad files: one InputError, one line, pointing at the file, line and key

ENTRY = "version: 1\nscenarios:\n  - path: s.yaml\n"  # add entry keys at line 4

# (id, project text, extra files, expected line, expected key, fragment of the message)
BAD: list[tuple[str, str | bytes, dict[str, str], int | None, str | None, str]] = [
    ("unknown-top-key", BASE + "budget: 5\n", {}, 4, "budget",
     "unknown key (allowed: version, name, description, budget_usd, monthly_budget_usd, scenarios; did you mean 'budget_usd'?)"),
    ("unknown-entry-key", ENTRY + "    runs_per_dya: 3\n", {}, 4, "scenarios[0].runs_per_dya",
     "unknown key (allowed: path, name, runs_per_day, budget_usd, set; did you mean 'runs_per_day'?)"),
    ("missing-scenario-file", BASE.replace("s.yaml", "nope.yaml"), {}, 3, "scenarios[0].path",
     "cannot read nope.yaml: file not found"),
    ("scenario-path-typo", BASE.replace("s.yaml", "s.yml"), {}, 3, "scenarios[0].path",
     "cannot read s.yml: file not found (did you mean 's.yaml'?)"),
    ("scenario-path-is-directory", BASE.replace("s.yaml", "sub"), {"sub/x.yaml": "x"}, 3,
     "scenarios[0].path", "cannot read sub: is a directory, not a file"),
    ("nested-project", BASE.replace("s.yaml", "other.yml"), {"other.yml": BASE}, 3,
     "scenarios[0].path", "other.yml is a project file, not a scenario (projects cannot nest)"),
    ("runs-negative", ENTRY + "    runs_per_day: -1\n", {}, 4, "scenarios[0].runs_per_day",
     "must be >= 0, got -1"),
    ("runs-text", ENTRY + "    runs_per_day: 200/day\n", {}, 4, "scenarios[0].runs_per_day",
     "expected a number, got text '200/day'"),
    ("runs-boolean", ENTRY + "    runs_per_day: yes\n", {}, 4, "scenarios[0].runs_per_day",
     "expected a number, got the boolean true (YAML reads yes/no/on/off/true/false as booleans"),
    ("runs-infinite", ENTRY + "    runs_per_day: .inf\n", {}, 4, "scenarios[0].runs_per_day",
     "not a finite number: .inf"),
    ("runs-too-many", ENTRY + "    runs_per_day: 2000000000\n", {}, 4, "scenarios[0].runs_per_day",
     "must be <= 1,000,000,000, got 2000000000"),
    ("entry-budget-zero", ENTRY + "    budget_usd: 0\n", {}, 4, "scenarios[0].budget_usd",
     "must be > 0, got 0"),
    ("project-budget-text", "version: 1\nbudget_usd: '$50'\nscenarios:\n  - path: s.yaml\n", {}, 2,
     "budget_usd", "expected a number, got text '$50'"),
    ("set-not-a-list", ENTRY + "    set: limits.max_rounds=3\n", {}, 4, "scenarios[0].set",
     "expected a list, got text 'limits.max_rounds=3'"),
    ("set-without-equals", ENTRY + "    set:\n      - model=gpt-4o\n      - limits.max_rounds\n", {}, 6,
     "scenarios[0].set[1]", "no '=' between the path and the value (write --set PATH=VALUE"),
    ("set-bad-path", ENTRY + "    set: ['rounds[x].tool=Read']\n", {}, 4, "scenarios[0].set[0]",
     "not a key path: '[x].tool' cannot follow 'rounds'"),
    ("set-empty", ENTRY + "    set: ['']\n", {}, 4, "scenarios[0].set[0]", "must not be empty"),
    ("path-missing", "version: 1\nscenarios:\n  - name: x\n", {}, 3, "scenarios[0].path",
     "required key is missing"),
    ("path-empty", "version: 1\nscenarios:\n  - path: ''\n", {}, 3, "scenarios[0].path", "must not be empty"),
    ("duplicate-key", ENTRY + "    path: t.yaml\n", {}, 4, "scenarios[0].path",
     "duplicate key (first at line 3)"),
    ("scenarios-empty", "version: 1\nscenarios: []\n", {}, 2, "scenarios",
     "must list at least one scenario"),
    ("scenarios-mapping", "version: 1\nscenarios:\n  path: s.yaml\n", {}, 2, "scenarios",
     "expected a list, got a mapping"),
    ("scenario-item-text", "version: 1\nscenarios:\n  - s.yaml\n", {}, 3, "scenarios[0]",
     "expected a mapping, got text 's.yaml'"),
    ("scenarios-missing", "version: 1\nname: x\n", {}, 1, "scenarios",
     "required key is missing (a project file lists its scenario files"),
    ("version-missing", "scenarios:\n  - path: s.yaml\n", {}, 1, "version",
     "required key is missing (add 'version: 1' at the top)"),
    ("version-2", "version: 2\nscenarios:\n  - path: s.yaml\n", {}, 1, "version",
     "unsupported version 2 (supported: 1)"),
    ("version-text", "version: '1'\nscenarios: []\n", {}, 1, "version", "expected an integer, got text '1'"),
    ("top-level-list", "- path: s.yaml\n", {}, 1, None,
     "expected a mapping of project keys at the top level, got a list"),
    ("yaml-syntax", BASE + "  - path: [\n", {}, 5, None, "YAML syntax error"),
    ("empty", "", {}, 1, None, "the file is empty"),
    ("not-utf8", BASE.encode() + b"name: caf\xe9\n", {}, 4, None, "not UTF-8 text (byte 0xe9 on line 4)"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("text", "files", "line", "key", "fragment"), [pytest.param(*case[1:], id=case[0]) for case in BAD]
)
def test_bad_project_file(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    text: str | bytes,
    files: dict[str, str],
    line: int | None,
    key: str | None,
    fragment: str,
) -> None:
    monkeypatch.chdir(tmp_path)  # relative paths in messages, as a user would type them
    write(tmp_path, SCENARIO, "s.yaml")
    for name, content in files.items():
        write(tmp_path, content, name)
    write(tmp_path, text, "p.yml")
    before = snapshot(tmp_path)
    with pytest.raises(InputError) as caught:
        load_project("p.yml")
    err = caught.value
    assert fragment in str(err)
    assert (err.file, err.line, err.key) == (Path("p.yml"), line, key)
    assert str(err).startswith(f"p.yml:{line}: " + (f"{key}: " if key else ""))
    assert "\n" not in str(err)
    assert snapshot(tmp_path) == before  # user files are never modified


def test_bad_input_table_is_large() -> None:
    assert len(BAD) >= 10


def test_project_file_that_does_not_exist(tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        load_project(tmp_path / "agentcost.yml")
    assert str(caught.value) == f"{tmp_path / 'agentcost.yml'}: file not found"


def test_a_reader_reads_the_project_and_checks_its_scenarios(tmp_path: Path) -> None:
    files = {tmp_path / "p.yml": BASE.encode(), tmp_path / "s.yaml": SCENARIO.encode()}
    read: list[Path] = []

    def reader(path: Path) -> bytes:
        read.append(path)
        try:
            return files[path]
        except KeyError:
            raise FileNotFoundError("not in revision abc123") from None

    project = load_project(tmp_path / "p.yml", reader=reader)  # nothing on disk
    assert project.entries[0].path == tmp_path / "s.yaml"
    assert read == [tmp_path / "p.yml", tmp_path / "s.yaml"]
    assert is_project_file(tmp_path / "p.yml", reader=reader)
    del files[tmp_path / "s.yaml"]
    with pytest.raises(
        InputError, match=r"p.yml:3: scenarios\[0\].path: cannot read .*s.yaml: not in revision"
    ):
        load_project(tmp_path / "p.yml", reader=reader)


def snapshot(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


# ---------------------------------------------------------------------------------------------
# The published JSON Schema of project files (for editors)


def test_committed_schema_is_current() -> None:
    committed = json.loads((ROOT / "docs" / "project.schema.json").read_text(encoding="utf-8"))
    assert committed == json_schema(), (
        "docs/project.schema.json is stale: python -m agentcost.scenario.project > docs/project.schema.json"
    )


def test_the_shipped_project_is_valid_against_the_schema_and_typos_are_not() -> None:
    schema = json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    data = yaml.safe_load((SCENARIOS / "agentcost.yml").read_text(encoding="utf-8"))
    validate_json(data, schema)
    data["scenarios"][0]["runs_per_dya"] = 3
    with pytest.raises(jsonschema.ValidationError):
        validate_json(data, schema)
