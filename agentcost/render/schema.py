"""The published JSON Schema of every JSON report (``agentcost schema --report``).

One envelope for all commands: ``version``, ``kind``, the kind's own fields, ``gates``. Each kind's
fields are generated from its one typed definition (:data:`agentcost.report.envelope_json.KINDS`,
by :mod:`agentcost.report.schemagen`), the same types its renderer builds the JSON as.
``docs/report.schema.json`` is this function's output, checked for drift by the tests.
"""

from __future__ import annotations

import importlib
from typing import Any

from agentcost.report.envelope_json import KINDS, GateJson
from agentcost.report.schemagen import schemas_of


def _definition(where: str) -> type:
    module_name, _, attribute = where.partition(":")
    definition: type = getattr(importlib.import_module(module_name), attribute)
    return definition


def _kind_schema(kind: str, body: dict[str, Any], gate: dict[str, Any]) -> dict[str, Any]:
    """The envelope around a kind's body: version and kind first, gates last."""
    properties = {
        "version": {"const": 1},
        "kind": {"const": kind},
        **body["properties"],
        "gates": {"type": "array", "items": gate},
    }
    out: dict[str, Any] = {"type": "object"}
    if "description" in body:
        out["description"] = body["description"]
    required = ["version", "kind", *body["required"], "gates"]
    return out | {"properties": properties, "required": required, "additionalProperties": False}


def report_schema() -> dict[str, Any]:
    """JSON Schema (draft 2020-12) of ``--format json`` output of every command."""
    schemas, defs = schemas_of(GateJson, *(_definition(where) for where in KINDS.values()))
    gate, bodies = schemas[0], schemas[1:]
    defs = {"envelope_GateJson": gate, **defs}
    gate_ref = {"$ref": "#/$defs/envelope_GateJson"}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "agentcost JSON report",
        "description": "The output of `agentcost <command> --format json`, version 1.",
        "$defs": defs,
        "oneOf": [_kind_schema(kind, body, gate_ref) for kind, body in zip(KINDS, bodies, strict=True)],
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
