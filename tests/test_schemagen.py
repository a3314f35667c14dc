"""The JSON reports' typed definitions -> JSON Schema (agentcost.report.schemagen), and the kinds
defined that way (``prices``, ``models``: agentcost.report.prices_json)."""

from __future__ import annotations

import json
from typing import Annotated, Literal, NotRequired, TypedDict

import jsonschema
import pytest

from agentcost.cli import run
from agentcost.render.schema import report_schema
from agentcost.report.prices_json import host, service_tier
from agentcost.report.schemagen import COUNT, USD, Keywords, schema_of
from tests.conftest import validate_json


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
