"""The validation engine (agentcost.infra.spec) and what it buys: a scenario load without pydantic.

The messages it leads to are tests/test_error_catalogue.py's; here, its own rules and the import
cost it exists for (issue 27)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from agentcost.errors import InputError
from agentcost.infra.doc import Doc
from agentcost.infra.spec import (
    BAD,
    DictOf,
    Error,
    Int,
    ListOf,
    Lit,
    Model,
    Nullable,
    Spec,
    Str,
    Tagged,
    Union,
    field,
    json_schema,
)
from agentcost.infra.validate import validate

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ["bugfix.yaml", "subagent-research.yaml", "mcp-40-tools.yaml", "uncertain-steps.yaml"]


@pytest.mark.parametrize("name", SHIPPED)
def test_loading_a_scenario_imports_no_pydantic(name: str) -> None:
    probe = (
        "import sys; from agentcost.scenario.load import read_scenario; "
        f"s = read_scenario('scenarios/{name}'); "
        "print(s.model, sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'pydantic_core')))"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    model, imported = done.stdout.strip().split(" ", 1)
    assert model  # the scenario was read
    assert imported == "[]"


def test_project_and_price_files_import_no_pydantic() -> None:
    probe = (
        "import sys; from agentcost.scenario.project import load_project; "
        "import agentcost.prices.user; p = load_project('scenarios/agentcost.yml'); "
        "print(len(p.entries), [m for m in sys.modules if m.startswith('pydantic')])"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    count, imported = done.stdout.strip().split(" ", 1)
    assert int(count) >= 1 and imported == "[]"


class Inner(Spec):
    """An inner mapping."""

    size: int = field(Int(), "A size.")


class Outer(Spec, title="outer"):
    """An outer mapping."""

    name: str = field(Str(min_length=1), "A name.")
    inner: Inner | None = field(Nullable(Model(Inner)), "An inner mapping.", default=None)
    kind: str | None = field(Nullable(Lit("a", "b")), "A kind.", default="a")
    meta: dict[str, Any] | None = field(Nullable(DictOf()), "Free.", default=None, alias="_meta")


def errors_of(shape: Any, value: Any) -> list[Error]:
    found: list[Error] = []
    assert (
        shape.check(value, (), found) if not isinstance(shape, type) else Model(shape).check(value, (), found)
    ) is BAD
    return found


def test_a_mapping_keeps_its_keys_defaults_and_the_keys_given() -> None:
    found: list[Error] = []
    outer = Outer.from_value({"name": "x", "_meta": {"k": 1}, "inner": {"size": 3}}, (), found)
    assert found == []
    assert (outer.name, outer.inner.size, outer.kind, outer.meta) == ("x", 3, "a", {"k": 1})
    assert outer.fields_set == {"name", "meta", "inner"}
    assert Outer.allowed_keys() == ["name", "inner", "kind", "_meta"]


def test_errors_have_pydantic_s_shape() -> None:
    [unknown] = errors_of(Outer, {"name": "x", "meta": 1})  # the alias is the key
    assert (unknown["type"], unknown["loc"], unknown["ctx"]["key"]) == ("unknown_key", (), "meta")
    found = errors_of(Outer, {"inner": {"size": True}, "kind": "c"})
    assert [(e["type"], e["loc"]) for e in found] == [
        ("missing", ("name",)),
        ("int_type", ("inner", "size")),
        ("literal_error", ("kind",)),
    ]
    assert found[2]["ctx"] == {"expected": "'a' or 'b'"}
    [short] = errors_of(ListOf(Int(), 2, 2), [1])
    assert short["msg"] == "List should have at least 2 items after validation, not 1"
    [long] = errors_of(ListOf(Int(), 2, 2), ["a", "b", "c"])  # too long: items not checked
    assert long["msg"] == "List should have at most 2 items after validation, not 3"
    union = errors_of(Union(Int(), Str()), Decimal("1.5"))
    assert [(e["type"], e["loc"]) for e in union] == [("int_type", ("int",)), ("string_type", ("str",))]
    tagged = Tagged(lambda v: "n" if isinstance(v, int) else None, {"n": Int()}, error=("thing", "bad thing"))
    assert [(e["type"], e["loc"]) for e in errors_of(tagged, "x")] == [("thing", ())]
    assert tagged.check(3, (), []) == 3


def test_validate_reports_the_first_error_by_line() -> None:
    doc = Doc(Path("f.yaml"))
    doc.value = {"inner": {"size": "x"}, "name": ""}
    doc.lines.update({("inner",): 1, ("inner", "size"): 2, ("name",): 3})
    with pytest.raises(InputError) as caught:
        validate(Outer, doc, doc.value, ())
    assert str(caught.value) == "f.yaml:2: inner.size: expected an integer, got text 'x'"


def test_json_schema_is_laid_out_as_pydantic_s() -> None:
    schema = json_schema(Outer)
    assert list(schema) == [
        "$schema", "$defs", "additionalProperties", "description", "properties", "required", "title", "type"
    ]  # fmt: skip
    assert schema["title"] == "outer" and schema["required"] == ["name"]
    assert schema["properties"]["kind"] == {
        "anyOf": [{"enum": ["a", "b"], "type": "string"}, {"type": "null"}],
        "default": "a",
        "description": "A kind.",
    }
    assert schema["$defs"]["Inner"]["properties"]["size"] == {"description": "A size.", "type": "integer"}
    assert json.loads(json.dumps(schema)) == schema
