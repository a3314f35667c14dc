"""The published JSON Schema of every JSON report (``agentcost schema --report``).

One envelope for all commands: ``version``, ``kind``, the kind's own fields, ``gates``. The
estimate body is described here; other kinds contribute ``JSON_SCHEMA`` from their own modules.
``docs/report.schema.json`` is this function's output, checked for drift by the tests.
"""

from __future__ import annotations

import importlib
from typing import Any

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


GATE = object_schema(
    {
        "name": {"enum": ["budget", "context_window", "max_increase", "max_increase_usd"]},
        "tripped": {"type": "boolean"},
        "message": {"type": "string"},
        "file": {"type": ["string", "null"]},
        "line": {"type": ["integer", "null"]},
    }
)

REQUEST = object_schema(
    {
        "index": {"type": "integer", "minimum": 1},
        "kind": {"enum": ["tool_use", "final"]},
        "tool": {
            "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}, {"type": "null"}]
        },
        "input_tokens": COUNT,
        "cache_read_tokens": COUNT,
        "cache_write_tokens": COUNT,
        "output_tokens": COUNT,
        "cost_usd": USD,
        "running_usd": USD,
        "tier": {
            "type": ["string", "null"],
            "description": "the long-context price tier the request crossed, e.g. '>200k'",
        },
        "cache_expired": {"type": "boolean"},
    }
)

ESTIMATE_BODY: dict[str, Any] = {
    "scenario": object_schema({"path": {"type": "string"}, "name": {"type": ["string", "null"]}}),
    "model": {"type": "string"},
    "model_ref": {"type": "string"},
    "provider": {"enum": ["anthropic", "openai", "google"]},
    "prices": object_schema(
        {
            "source": {"type": "string"},
            "version": {"type": "string"},
            "as_of": {"type": "string", "format": "date-time"},
            "urls": {"type": "array", "items": {"type": "string"}},
            "per_mtok_usd": object_schema(
                {k: USD_OR_NULL for k in ("input", "output", "cache_read", "cache_write", "cache_write_1h")}
            ),
            "label": {"type": "string"},
            "data_date": {"type": ["string", "null"], "format": "date"},
            "service_tier": {"enum": ["standard", "batch", "flex", "priority"]},
            "tier_thresholds": {"type": "array", "items": COUNT},
        }
    ),
    "caching": object_schema(
        {
            "mode": {"enum": ["none", "prefix", "conversation", "explicit"]},
            "default": {"type": "boolean"},
            "ttl": {"enum": ["5m", "1h"]},
            "min_cacheable_tokens": COUNT,
            "cache_expiries": {
                **COUNT,
                "description": "requests that found the cache expired (a pause longer than the TTL)",
            },
            "ttl_comparison": {
                "type": "array",
                "description": "the run's cost with no caching, 5m and 1h entries, for the scenario's "
                "pacing (Anthropic; empty elsewhere)",
                "items": object_schema(
                    {
                        "ttl": {"enum": ["none", "5m", "1h"]},
                        "cost_usd": USD,
                        "extra_usd": USD,
                        "cache_expiries": COUNT,
                    }
                ),
            },
            "cheapest_ttl": {"enum": ["none", "5m", "1h", None]},
            "storage": {
                "description": "the Gemini explicit cache (caching: explicit), else null",
                "anyOf": [
                    object_schema(
                        {
                            "tokens": COUNT,
                            "creations": COUNT,
                            "hours": {"type": "string", "pattern": r"^\d+(\.\d+)?$"},
                            "usd_per_mtok_hour": USD,
                            "creation_usd": USD,
                            "storage_usd": USD,
                        }
                    ),
                    {"type": "null"},
                ],
            },
        }
    ),
    "counts": object_schema(
        {
            "encoding": {"type": "string"},
            "approximate": {"type": "boolean"},
            "method": {"type": "string"},
            "notes": {"type": "array", "items": {"type": "string"}},
        }
    ),
    "requests": {"type": "array", "items": REQUEST},
    "totals": object_schema(
        {
            "requests": COUNT,
            "input_tokens": COUNT,
            "cache_read_tokens": COUNT,
            "cache_write_tokens": COUNT,
            "output_tokens": COUNT,
            "input_usd": USD,
            "output_usd": USD,
            "cost_usd": USD,
            "storage_usd": USD,
            "cache_creation_usd": USD,
        }
    ),
    "budget": {
        "anyOf": [
            object_schema(
                {
                    "limit_usd": USD,
                    "source": {"type": "string"},
                    "over": {"type": "boolean"},
                    "headroom_usd": USD,
                }
            ),
            {"type": "null"},
        ]
    },
    "rounds": object_schema({"planned": COUNT, "run": COUNT, "truncated": {"type": "boolean"}}),
    "context_window": {"type": ["integer", "null"]},
    "max_input_tokens": COUNT,
    "approximate": {"type": "boolean"},
    "warnings": {"type": "array", "items": {"type": "string"}},
}

ESTIMATE = object_schema(ESTIMATE_BODY)

_OTHER_KINDS = {  # kind -> "module" (its JSON_SCHEMA) or "module:ATTRIBUTE"
    "batch": "agentcost.report.batch",
    "compare": "agentcost.report.compare",
    "diff": "agentcost.report.diff",
    "models": "agentcost.report.prices:MODELS_JSON_SCHEMA",
    "prices": "agentcost.report.prices:PRICES_JSON_SCHEMA",
}


def _kind_schema(kind: str, body: dict[str, Any]) -> dict[str, Any]:
    properties = {
        "version": {"const": 1},
        "kind": {"const": kind},
        **body,
        "gates": {"type": "array", "items": GATE},
    }
    return object_schema(properties)


def report_schema() -> dict[str, Any]:
    """JSON Schema (draft 2020-12) of ``--format json`` output of every command."""
    variants = [_kind_schema("estimate", ESTIMATE_BODY)]
    for kind, where in _OTHER_KINDS.items():
        module_name, _, attribute = where.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as err:
            if err.name == module_name:
                continue
            raise
        fragment: dict[str, Any] = getattr(module, attribute or "JSON_SCHEMA")
        body = fragment.get("properties", fragment)
        variants.append(_kind_schema(kind, body))
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "agentcost JSON report",
        "description": "The output of `agentcost <command> --format json`, version 1.",
        "$defs": {"estimate": ESTIMATE},
        "oneOf": variants,
    }


if __name__ == "__main__":  # python -m agentcost.report.schema > docs/report.schema.json
    import json

    print(json.dumps(report_schema(), indent=2))
