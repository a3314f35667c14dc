"""The JSON reports' typed definitions -> JSON Schema (agentcost.report.schemagen), and the kinds
defined that way (``prices``, ``models``: agentcost.report.prices_json)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, Literal, NotRequired, TypedDict

import jsonschema
import pytest

from agentcost.cli import run
from agentcost.render.schema import kind_schema, report_schema
from agentcost.report.prices_json import host, service_tier
from agentcost.report.schemagen import COUNT, USD, Keywords, schema_of
from tests.conftest import json_validator, validate_json


class Tier(TypedDict):
    """A tier."""

    above: COUNT
    usd: USD


class Rate(TypedDict):
    key: Annotated[str, "the price key"]
    per: Annotated[int, Keywords(minimum=1)]
    tiers: list[Tier]
    kind: Literal["tokens", "uses"]
    host: Literal["bedrock", "azure"] | None
    note: str | None
    cost: USD | None
    extra: NotRequired[bool]


class Sheet(TypedDict):
    rate: Rate
    other: Rate | None
    by_name: dict[str, int]
    one: Literal[1]


def test_a_typeddict_becomes_a_closed_object_with_its_required_keys() -> None:
    schema, defs = schema_of(Tier)
    assert defs == {}
    assert schema == {
        "type": "object",
        "description": "A tier.",
        "properties": {
            "above": {"type": "integer", "minimum": 0},
            "usd": {
                "type": "string",
                "pattern": r"^-?\d+(\.\d+)?$",
                "description": "US dollars, an exact decimal",
            },
        },
        "required": ["above", "usd"],
        "additionalProperties": False,
    }


def test_field_types_annotations_and_not_required_keys() -> None:
    schema, _ = schema_of(Rate)
    p = schema["properties"]
    assert p["key"] == {"type": "string", "description": "the price key"}
    assert p["per"] == {"type": "integer", "minimum": 1}
    assert p["tiers"]["type"] == "array" and p["tiers"]["items"]["required"] == ["above", "usd"]
    assert p["kind"] == {"enum": ["tokens", "uses"]}
    assert p["host"] == {"enum": ["bedrock", "azure", None]}
    assert p["note"] == {"type": ["string", "null"]}
    assert p["cost"]["anyOf"][1] == {"type": "null"} and "pattern" in p["cost"]["anyOf"][0]
    assert p["extra"] == {"type": "boolean"}
    assert "extra" not in schema["required"] and len(schema["required"]) == len(p) - 1


def test_a_shape_used_twice_is_one_definition_under_defs() -> None:
    schema, defs = schema_of(Sheet, defs_prefix="t_")
    assert list(defs) == ["t_Rate"]
    assert schema["properties"]["rate"] == {"$ref": "#/$defs/t_Rate"}
    assert schema["properties"]["other"] == {"anyOf": [{"$ref": "#/$defs/t_Rate"}, {"type": "null"}]}
    assert schema["properties"]["by_name"] == {"type": "object", "additionalProperties": {"type": "integer"}}
    assert schema["properties"]["one"] == {"const": 1}
    root = {"$defs": defs, **schema}
    good = {
        "rate": {
            "key": "k",
            "per": 1,
            "tiers": [],
            "kind": "uses",
            "host": None,
            "note": None,
            "cost": "1.5",
        },
        "other": None,
        "by_name": {"a": 1},
        "one": 1,
    }
    validate_json(good, root)
    with pytest.raises(jsonschema.ValidationError):  # a key without a definition
        validate_json({**good, "rate": {**good["rate"], "new_field": 1}}, root)
    with pytest.raises(jsonschema.ValidationError):  # money is an exact decimal string
        validate_json({**good, "rate": {**good["rate"], "cost": 1.5}}, root)


def test_only_typed_dicts_and_json_types() -> None:
    with pytest.raises(TypeError, match="not a TypedDict"):
        schema_of(dict)

    class Bad(TypedDict):
        when: float | bytes

    with pytest.raises(TypeError, match="no JSON Schema"):
        schema_of(Bad)


def test_a_value_outside_the_definition_is_refused_when_written() -> None:
    assert (host(None), host("bedrock"), service_tier("flex")) == (None, "bedrock", "flex")
    with pytest.raises(ValueError, match="not in the report's JSON definition"):
        host("lambda")
    with pytest.raises(ValueError, match="not in the report's JSON definition"):
        service_tier("turbo")


def _json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    code = run([*args, "--as-of", "2026-11-30", "--format", "json"])
    out = capsys.readouterr().out
    assert code == 0
    data: dict[str, object] = json.loads(out)
    return data


def _shape(value: object) -> str:
    """The keys of ``value`` at every depth, with the JSON type of each leaf: rows of one shape
    validate alike, so the listing is validated one row per shape (2,000 rows are ~40 shapes)."""
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{_shape(v)}" for k, v in sorted(value.items())) + "}"
    if isinstance(value, list):
        return "[" + "|".join(sorted({_shape(v) for v in value})) + "]"
    return type(value).__name__


@pytest.mark.usefixtures("no_ctok")
def test_real_prices_and_models_outputs_fit_the_generated_schema_and_no_more(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Every field the renderers write is defined (additionalProperties false everywhere), and
    every defined field is written (required): a field added to the output without its
    definition fails here, as a definition without the field does."""
    schema = report_schema()
    assert "prices_RateJson" in schema["$defs"]  # the shared shape: one definition
    outputs = [
        _json(capsys, "prices", "claude-sonnet-4-5"),  # facts, cache writes at two lifetimes
        _json(capsys, "prices", "gemini-4-argon"),  # a scheduled change, long-context tiers
        _json(capsys, "prices", "aws/claude-sonnet-4-5"),  # a hosted model
        _json(capsys, "models"),  # estimable rows and not-estimable ones
    ]
    for data in outputs:
        if isinstance(data.get("models"), list):  # one row of each shape (the keys at every depth)
            data = {**data, "models": list({_shape(row): row for row in data["models"]}.values())}
            assert len(data["models"]) > 3
        validate_json(data, schema)
        with pytest.raises(jsonschema.ValidationError):
            validate_json({**data, "undefined": 1}, schema)
    prices = outputs[1]
    assert prices["changes"], "the example must hold a change, to check its nested shape"
    models = outputs[3]
    assert isinstance(models["models"], list)
    row = dict(models["models"][0])
    row["per_mtok_usd"] = {**row["per_mtok_usd"], "cache_write_30m": "1"}  # a nested field without definition
    with pytest.raises(jsonschema.ValidationError):
        validate_json({**models, "models": [row]}, schema)


ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "scenarios"
DATA = ROOT / "tests" / "data"
EXPORTS = DATA / "usage-exports"

# kind -> commands whose --format json output it is; together they write every optional section
# (--explain's insights and tool_footprint, --simulate, subagents, a project's budget and runs per day)
OUTPUTS: dict[str, list[list[str]]] = {
    "estimate": [
        ["estimate", str(SCENARIOS / "bugfix.yaml"), "--explain", "--as-of", "2026-11-30"],
        ["estimate", str(SCENARIOS / "subagent-research.yaml"), "--as-of", "2026-11-30"],
        ["estimate", str(SCENARIOS / "parallel-retries.yaml"), "--explain", "--as-of", "2026-11-30"],
        ["estimate", str(SCENARIOS / "long-run-context.yaml"), "--as-of", "2026-11-30"],
        ["estimate", str(SCENARIOS / "uncertain-steps.yaml"), "--explain", "--simulate", "200", "--seed", "1",
         "--at", "p90", "--as-of", "2026-11-30"],
    ],
    "batch": [["estimate", str(SCENARIOS / "agentcost.yml"), "--as-of", "2026-11-30"]],
    "compare": [
        ["compare", str(SCENARIOS / "bugfix.yaml"), "-m", "gpt-5", "-m", "claude-sonnet-4-5", "--as-of", "2026-11-30"]
    ],
    "diff": [
        ["diff", str(SCENARIOS / "bugfix.yaml"), str(SCENARIOS / "research.yaml"), "--as-of", "2026-11-30"],
        ["diff", str(SCENARIOS / "agentcost.yml"), str(SCENARIOS / "agentcost.yml"), "--max-increase", "10%",
         "--as-of", "2026-11-30"],
    ],
    "reconcile": [
        ["reconcile", str(EXPORTS / "anthropic-usage.json"), str(EXPORTS / "anthropic-cost.json"),
         str(EXPORTS / "openai-usage.json"), str(EXPORTS / "openai-costs.json")],
        ["reconcile", str(EXPORTS / "anthropic-usage.json"), str(EXPORTS / "anthropic-cost.json"),
         "--project", str(SCENARIOS / "agentcost.yml")],
    ],
    "replay": [
        ["replay", str(DATA / "claude-code" / "session.jsonl"), "--as-of", "2026-11-30"],
        ["replay", str(DATA / "api-logs" / "anthropic-prompt-caching.jsonl"), "--as-of", "2026-11-30"],
    ],
    "replay_many": [["replay", str(DATA / "api-logs"), str(DATA / "swe-agent"), "--as-of", "2026-11-30"]],
}  # fmt: skip


def _objects(node: object, path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every JSON object in ``node`` with its path, list indices written ``[]``."""
    if isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            yield from _objects(value, f"{path}/{key}")
    elif isinstance(node, list):
        for item in node:
            yield from _objects(item, f"{path}[]")


def test_the_published_schema_is_the_generated_one() -> None:
    """docs/report.schema.json is written by agentcost schema --report (python -m agentcost.render.schema)."""
    published = json.loads((ROOT / "docs" / "report.schema.json").read_text(encoding="utf-8"))
    assert published == report_schema(), (
        "regenerate: python -m agentcost.render.schema > docs/report.schema.json"
    )


@pytest.mark.usefixtures("no_ctok")
@pytest.mark.parametrize("kind", list(OUTPUTS))
def test_every_kind_fits_the_generated_schema_and_no_field_is_undefined(
    kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Real output of each kind validates, and a key added to any object in it (one per place in
    the document's shape) is refused: every object the renderers write is closed, so a field added
    to the output without its definition fails here (and mypy refuses it in the renderer)."""
    schema = kind_schema(kind)
    for args in OUTPUTS[kind]:
        assert run([*args, "--format", "json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert data["kind"] == kind
        validate_json(data, schema)
        places = dict(_objects(data))  # one object per path: the last of a list's items
        assert len(places) > 3
        validator = json_validator(schema)
        for path, obj in places.items():
            obj["undefined_field"] = 1
            try:
                if validator.is_valid(data):
                    pytest.fail(f"{kind}: an undefined field at {path or '/'} validated")
            finally:
                del obj["undefined_field"]
