"""The generated data modules (issue 27): ``facts_data.py`` and ``families_data.py`` say what their YAML
says, a run reads them and never PyYAML, and the generator writes any plain value back exactly."""

from __future__ import annotations

import math
import subprocess
import sys
from datetime import date, datetime
from pathlib import Path

import pytest

from agentcost import facts
from agentcost.infra import pysource
from agentcost.tokens import families as F
from tests.conftest import ROOT

DATA_MODULES = [
    ("agentcost/facts.yaml", "agentcost/facts_data.py", facts.data_module_text, facts.WRITE_DATA),
    ("agentcost/tokens/families.yaml", "agentcost/tokens/families_data.py", F.data_module_text, F.WRITE_DATA),
]


@pytest.mark.parametrize(("source", "module", "generate", "command"), DATA_MODULES, ids=["facts", "families"])
def test_each_generated_module_is_its_yaml(source: str, module: str, generate: object, command: str) -> None:
    """Regenerated in memory, the module is the committed one, byte for byte: a YAML edited without
    regenerating (or a module edited by hand) fails here with the command that fixes it."""
    assert callable(generate)
    committed = (ROOT / module).read_text(encoding="utf-8")
    assert generate() == committed, f"{module} does not match {source}: run `{command}` and commit both"


def test_the_check_sees_an_edited_yaml(monkeypatch: pytest.MonkeyPatch) -> None:
    text = facts.facts_text()
    assert "value: 1024" in text
    monkeypatch.setattr(facts, "facts_text", lambda: text.replace("value: 1024", "value: 1025", 1))
    assert facts.data_module_text() != (ROOT / "agentcost/facts_data.py").read_text(encoding="utf-8")


def test_the_rows_a_run_reads_are_the_yaml_as_parsed() -> None:
    assert facts._rows() == facts._parse(facts.facts_text())


def test_the_families_a_run_reads_are_the_yaml_as_parsed() -> None:
    assert F._table() == F.parse_families(F._plain(F.families_text()))


def test_a_generated_module_names_its_source_and_command() -> None:
    for source, module, _, command in DATA_MODULES:
        first = (ROOT / module).read_text(encoding="utf-8").splitlines()[0]
        assert source in first and command in first and "do not edit" in first, first


def test_a_run_reads_facts_and_families_without_yaml() -> None:
    code = (
        "import sys\n"
        "from agentcost import facts\n"
        "from agentcost.tokens import families\n"
        "assert facts.token_ratio('anthropic', 'claude-sonnet-4-5', 'prose').read.year >= 2026\n"
        "assert facts.host_mechanics('aws', 'claude-sonnet-4-5').provider == 'aws'\n"
        "assert families.family_of('aws', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0').name == 'claude'\n"
        "print(sorted(m for m in sys.modules if m == 'yaml' or m.startswith(('yaml.', '_yaml'))))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("module", ["agentcost.facts", "agentcost.tokens.families"])
def test_the_generator_says_how_it_is_run(module: str) -> None:
    done = subprocess.run([sys.executable, "-m", module], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 2
    assert f"usage: python -m {module} --write-data" in done.stderr


# --- the facts as a run reads them --------------------------------------------------------------


def test_every_fact_a_run_reads_cites_a_public_page_and_a_read_date() -> None:
    rows = [(table, row) for table in facts._rows() for row in facts.table_rows(table)]
    assert len(rows) >= 20
    for table, row in rows:
        assert isinstance(row["url"], str) and row["url"].startswith("https://"), (table, row)
        assert isinstance(row["read"], date) and date(2026, 1, 1) <= row["read"] <= date.today(), (table, row)
        assert isinstance(row["source"], str) and not any(
            s in row["source"] for s in ("pricing-facts", "shared/", "§")
        ), (table, row)
        models = row["models"]
        assert isinstance(models, tuple) and models and all(isinstance(m, str) for m in models), (table, row)
    assert set(facts.TABLES) <= set(facts._rows())


def test_decimals_stay_strings_until_asked_for() -> None:
    """Ratios and fees are written as strings and read as Decimal by the accessors, never floats."""
    for row in facts.table_rows("token_ratio"):
        assert isinstance(row["value"], dict), row
        assert all(isinstance(v, str) for v in row["value"].values()), row
    fact = facts.token_ratio("anthropic", "claude-sonnet-4-5", "json")
    assert str(fact.value) == "1.22"


# --- the generator --------------------------------------------------------------------------------

ODD_VALUES: list[object] = [
    None,
    True,
    0,
    -7,
    1.5,
    "",
    'say "hi"',
    "it's",
    "back\\slash and \\d",
    "line\nbreak\ttab",
    "§ ÷ × — ü",
    "\x00\x7f",
    date(2026, 2, 28),
    (),
    ("one",),
    [],
    {},
    {"a": [1, ("x",), {"b": None}], "c": date(2026, 1, 1)},
]


@pytest.mark.parametrize("depth", [0, 1, 3])
@pytest.mark.parametrize("value", ODD_VALUES, ids=repr)
def test_a_literal_evaluates_to_the_same_value_and_types(value: object, depth: int) -> None:
    text = pysource.literal(value, depth=depth)
    back = eval(text, {"date": date})
    assert back == value and type(back) is type(value)
    assert repr(back) == repr(value)  # nested types too (a tuple stays a tuple)


@pytest.mark.parametrize("value", [datetime(2026, 1, 1), math.inf, math.nan, {1, 2}, b"x"], ids=repr)
def test_a_value_without_an_exact_literal_is_refused(value: object) -> None:
    with pytest.raises(TypeError):
        pysource.literal(value)


def test_a_module_is_the_same_text_for_the_same_values_and_loads_them(tmp_path: Path) -> None:
    values = {"t": (("a", date(2026, 3, 4), {"k": "v"}),)}
    text = pysource.module_text(
        source="x.yaml",
        command="make x",
        purpose="Test rows.",
        assignments=[pysource.Assignment("ROWS", "dict[str, Any]", values)],
    )
    assert text == pysource.module_text(
        source="x.yaml",
        command="make x",
        purpose="Test rows.",
        assignments=[pysource.Assignment("ROWS", "dict[str, Any]", values)],
    )
    assert text.startswith('"""Generated from x.yaml by ``make x``; do not edit.\n')
    namespace: dict[str, object] = {}
    exec(compile(text, "x_data.py", "exec"), namespace)
    assert namespace["ROWS"] == values


def test_write_main_writes_once_and_refuses_other_arguments(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "x_data.py"
    assert pysource.write_main(["--write-data"], target, lambda: "X = 1\n", "make x") == 0
    assert target.read_bytes() == b"X = 1\n"
    assert "wrote" in capsys.readouterr().out
    assert pysource.write_main(["--write-data"], target, lambda: "X = 1\n", "make x") == 0
    assert "up to date" in capsys.readouterr().out
    assert pysource.write_main([], target, lambda: "X = 2\n", "make x") == 2
    assert "usage: make x" in capsys.readouterr().err
    assert target.read_text(encoding="utf-8") == "X = 1\n"
