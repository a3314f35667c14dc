"""The published JSON Schema of every JSON report (``agentcost schema --report``).

One envelope for all commands: ``version``, ``kind``, the kind's own fields, ``gates``. A kind's
fields are generated from its typed definition (:data:`agentcost.report.envelope_json.KINDS`, by
:mod:`agentcost.report.schemagen`); kinds not yet typed contribute a hand-kept ``JSON_SCHEMA``.
``docs/report.schema.json`` is this function's output, checked for drift by the tests.
"""

from __future__ import annotations

import importlib
from typing import Any

from agentcost.report.envelope_json import KINDS, GateJson
from agentcost.report.schemagen import schemas_of

USD = {"type": "string", "pattern": r"^-?\d+(\.\d+)?$", "description": "US dollars, an exact decimal"}
USD_OR_NULL = {"anyOf": [USD, {"type": "null"}]}
COUNT = {"type": "integer", "minimum": 0}


def object_schema(properties: dict[str, Any], *, required: list[str] | None = None) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": required if required is not None else list(properties),
        "additionalProperties": False,
    }


def _body(where: str) -> type | dict[str, Any]:
    module_name, _, attribute = where.partition(":")
    module = importlib.import_module(module_name)
    fragment: type | dict[str, Any] = getattr(module, attribute or "JSON_SCHEMA")
    return fragment


def _kind_schema(kind: str, body: dict[str, Any]) -> dict[str, Any]:
    """The envelope around a kind's body: version and kind first, gates last."""
    properties = {
        "version": {"const": 1},
        "kind": {"const": kind},
        **body["properties"],
        "gates": {"type": "array", "items": {"$ref": "#/$defs/envelope_GateJson"}},
    }
    required = ["version", "kind", *body["required"], "gates"]
    out = {"type": "object"}
    if "description" in body:
        out["description"] = body["description"]
    return out | {"properties": properties, "required": required, "additionalProperties": False}


def report_schema() -> dict[str, Any]:
    """JSON Schema (draft 2020-12) of ``--format json`` output of every command: each kind's body
    generated from its typed definition (:data:`agentcost.report.envelope_json.KINDS`) in the envelope."""
    bodies = {kind: _body(where) for kind, where in KINDS.items()}
    typed = {kind: body for kind, body in bodies.items() if isinstance(body, type)}
    schemas, defs = schemas_of(GateJson, *typed.values())
    generated = dict(zip(typed, schemas[1:], strict=True))
    defs = {"envelope_GateJson": schemas[0], **defs}
    variants = []
    for kind, body in bodies.items():
        if kind in generated:
            variants.append(_kind_schema(kind, generated[kind]))
        else:  # a hand-kept JSON_SCHEMA: every key required
            assert isinstance(body, dict)
            props = body.get("properties", body)
            variants.append(_kind_schema(kind, {"properties": props, "required": list(props)}))
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "agentcost JSON report",
        "description": "The output of `agentcost <command> --format json`, version 1.",
        "$defs": defs,
        "oneOf": variants,
    }


def kind_schema(kind: str) -> dict[str, Any]:
    """The published schema with only ``kind``'s variant: one kind's JSON validated on its own."""
    schema = report_schema()
    variants = [v for v in schema.pop("oneOf") if v["properties"]["kind"]["const"] == kind]
    variant: dict[str, Any] = variants[0]
    return schema | variant


if __name__ == "__main__":  # python -m agentcost.render.schema > docs/report.schema.json
    import json

    print(json.dumps(report_schema(), indent=2))
