"""The published JSON Schema of every JSON report (``agentcost schema --report``).

One envelope for all commands: ``version``, ``kind``, the kind's own fields, ``gates``. The
estimate body is described here; other kinds contribute ``JSON_SCHEMA`` from their own modules.
``docs/report.schema.json`` is this function's output, checked for drift by the tests.
"""

from __future__ import annotations

import importlib
from typing import Any, get_args, is_typeddict

from agentcost.report.gates import GateName
from agentcost.report.notes import KINDS, LEVELS
from agentcost.report.schemagen import schema_of

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
        "name": {"enum": list(get_args(GateName))},  # warn_*: diff --warn-increase, never exit 1
        "tripped": {"type": "boolean"},
        "message": {"type": "string"},
        "file": {"type": ["string", "null"]},
        "line": {"type": ["integer", "null"]},
    }
)

REQUEST = object_schema(
    {
        "index": {"type": "integer", "minimum": 1},
        "kind": {
            "enum": ["tool_use", "reply", "final"],
            "description": "tool_use: a tool call; reply: a chat turn's answer; final: the final answer",
        },
        "tool": {
            "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}, {"type": "null"}],
            "description": "the tool(s) called, server tools included; null when none",
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
        "failed": {
            "type": "boolean",
            "description": "a failed attempt (retries), answered by an error result",
        },
        "model": {
            "type": ["string", "null"],
            "description": "routing: the model this request ran on; null when it is the scenario's",
        },
        "subagents": {
            "type": "array",
            "description": "subagents the calls of this response started, each "
            "billed on its own model; the totals include them",
            "items": object_schema(
                {
                    "path": {"type": "string", "description": "its scenario file (inline: the parent's)"},
                    "label": {"type": "string", "description": "the file as the parent names it, or inline"},
                    "inline": {"type": "boolean"},
                    "call": {**COUNT, "description": "0-based index of the call in this response"},
                    "model": {"type": "string"},
                    "requests": {**COUNT, "description": "its requests, its own subagents' included"},
                    "cost_usd": {**USD, "description": "its cost, its own subagents' included"},
                    "estimate": {"$ref": "#/$defs/estimate"},
                }
            ),
        },
    }
)

# context editing and deferred tools (agentcost.render.dynamics)
SIGNED_USD = {**USD, "description": "US dollars, an exact decimal; negative: a loss"}

EDITING_SCHEMA: dict[str, Any] = {
    "description": "context editing (clear_tool_uses) and its saving against the same run without "
    "editing; null when the scenario does not edit context",
    "anyOf": [
        object_schema(
            {
                "edits": {**COUNT, "description": "requests before which tool results were cleared"},
                "results_cleared": COUNT,
                "tokens_cleared": {
                    **COUNT,
                    "description": "input tokens each clearing removed (bodies - placeholders), summed",
                },
                "cost_usd": USD,
                "baseline_usd": {**USD, "description": "the same run without context editing"},
                "saving_usd": SIGNED_USD,
            }
        ),
        {"type": "null"},
    ],
}

AGENT_DYNAMICS_SCHEMA: dict[str, Any] = {
    "description": "parallel calls, retries, routing and max_budget_usd; null when none is in play",
    "anyOf": [
        object_schema(
            {
                "parallel": {
                    "description": "the same calls made one per round; null without parallel calls",
                    "anyOf": [object_schema({"sequential_usd": USD, "saving_usd": USD}), {"type": "null"}],
                },
                "retries": {
                    "description": "failed attempts (invalid call + error result); null without any",
                    "anyOf": [
                        object_schema(
                            {
                                "failed_requests": COUNT,
                                "failed_usd": USD,
                                "failed_share": {
                                    "anyOf": [
                                        {"type": "string", "pattern": r"^\d+(\.\d+)?$"},
                                        {"type": "null"},
                                    ],
                                    "description": "failed_usd / this run's cost (subagents excluded)",
                                },
                            }
                        ),
                        {"type": "null"},
                    ],
                },
                "routing": {
                    "type": "array",
                    "items": object_schema({"model": {"type": "string"}, "cost_usd": USD}),
                    "description": "the run with every request on one model: the scenario's, then "
                    "each routed model; empty without routing",
                },
                "budget_stop": {
                    "type": ["integer", "null"],
                    "description": "limits.max_budget_usd stopped the run after this request (1-based)",
                },
            }
        ),
        {"type": "null"},
    ],
}

TOOL_SEARCH_SCHEMA: dict[str, Any] = {
    "description": "deferred tools (defer_loading) and their saving against loading every tool up "
    "front; null when no tool is deferred",
    "anyOf": [
        object_schema(
            {
                "deferred": {"type": "array", "items": {"type": "string"}},
                "loaded": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "deferred tools a tool search loaded, in order",
                },
                "searches": {**COUNT, "description": "tool-search requests"},
                "definitions_tokens": {
                    **COUNT,
                    "description": "what the deferred definitions would cost in the tool prefix",
                },
                "prefix_tokens": {
                    **COUNT,
                    "description": "what they cost instead: stubs + the tool-search tool's definition",
                },
                "cost_usd": USD,
                "baseline_usd": {**USD, "description": "the same run with every tool loaded up front"},
                "saving_usd": SIGNED_USD,
            }
        ),
        {"type": "null"},
    ],
}

OVERRUN_SCHEMA: dict[str, Any] = {
    "description": "a scenario with distributions: how many of a quick simulation's runs go over the "
    "budget (the same count as estimate --simulate RUNS --seed SEED); null without distributions, or "
    "when only the per-run engine could simulate the scenario",
    "anyOf": [
        object_schema(
            {
                "runs": {"type": "integer", "minimum": 1},
                "seed": {"type": "integer"},
                "over_budget_runs": COUNT,
                "probability": {
                    "type": "string",
                    "pattern": r"^\d+(\.\d+)?$",
                    "description": "over_budget_runs / runs, rounded to 4 places",
                },
            }
        ),
        {"type": "null"},
    ],
}

NOTES_SCHEMA: dict[str, Any] = {
    "type": "array",
    "description": "the lines the table format prints under the table, in --verbose order: level "
    "essential (shown by default), detail (shown with --verbose) or warning (always shown)",
    "items": object_schema(
        {
            "level": {"enum": list(LEVELS)},
            "kind": {"enum": list(KINDS)},
            "text": {"type": "string"},
        }
    ),
}

ESTIMATE_BODY: dict[str, Any] = {
    "scenario": object_schema({"path": {"type": "string"}, "name": {"type": ["string", "null"]}}),
    "model": {"type": "string"},
    "model_ref": {"type": "string"},
    "provider": {
        "type": "string",
        "description": "the genai-prices provider serving the model (anthropic, aws, azure, deepseek...)",
    },
    "price_provider": {
        "type": "string",
        "description": "the genai-prices provider whose price row prices it (azure/gpt-4o: openai)",
    },
    "host": {
        "type": ["string", "null"],
        "description": "the host id form that resolved the model (bedrock, azure, vertex, openrouter...); "
        "null for a provider's own id",
    },
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
            "time_of_day": {
                "type": "array",
                "description": "daily UTC windows in which the model is priced differently (DeepSeek's "
                "peak hours); empty when its prices follow the date only",
                "items": object_schema({"start": {"type": "string"}, "end": {"type": "string"}}),
            },
            "in_time_window": {
                "type": ["boolean", "null"],
                "description": "as_of falls in one of the time_of_day windows; null without windows",
            },
        }
    ),
    "caching": object_schema(
        {
            "mode": {"enum": ["none", "prefix", "conversation", "explicit"]},
            "default": {"type": "boolean"},
            "kind": {
                "enum": ["automatic-prefix", "explicit", "implicit", "none", "unknown"],
                "description": "how the provider serving the model caches prompts (facts.yaml caching_kind)",
            },
            "note": {
                "type": ["string", "null"],
                "description": "where the host's caching is not (fully) modelled: why, in one line",
            },
            "ttl": {"enum": ["5m", "1h", "1h+5m"]},
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
                        "ttl": {"enum": ["none", "5m", "1h", "1h+5m"]},
                        "cost_usd": USD,
                        "extra_usd": USD,
                        "cache_expiries": COUNT,
                    }
                ),
            },
            "cheapest_ttl": {"enum": ["none", "5m", "1h", "1h+5m", None]},
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
            "family": {
                "type": "string",
                "description": "the model's counting family: openai, claude, gemini, llama3, qwen, "
                "deepseek, mistral, gpt-oss, grok, ..., other",
            },
            "exact": {"type": "boolean", "description": "not approximate: the model's own tokenizer"},
            "family_method": {"type": "string", "description": "the family's counting method, one line"},
            "source": {
                "type": "string",
                "description": "where the family's method comes from: a public page, or a measurement",
            },
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
            "subagents_usd": {**USD, "description": "what subagents cost, part of cost_usd"},
            "subagent_requests": {**COUNT, "description": "requests made by subagents, part of requests"},
            "container": {
                **object_schema(
                    {
                        "seconds": {
                            "type": "string",
                            "pattern": r"^\d+(\.\d+)?$",
                            "description": "code-execution container time billed, in seconds",
                        },
                        "usd": {
                            "anyOf": [USD, {"type": "null"}],
                            "description": "its price, part of the server-tool fees; null: rate unknown",
                        },
                    }
                ),
                "description": "only when code runs in a container (code_execution or container_seconds)",
            },
        },
        required=[
            "requests",
            "input_tokens",
            "cache_read_tokens",
            "cache_write_tokens",
            "output_tokens",
            "input_usd",
            "output_usd",
            "cost_usd",
            "storage_usd",
            "cache_creation_usd",
            "subagents_usd",
            "subagent_requests",
        ],
    ),
    "budget": {
        "anyOf": [
            object_schema(
                {
                    "limit_usd": USD,
                    "source": {"type": "string"},
                    "over": {"type": "boolean"},
                    "headroom_usd": USD,
                    "overrun": OVERRUN_SCHEMA,
                    "per": {
                        "enum": ["task"],
                        "description": "present with --per task: over and headroom_usd are of the"
                        " expected cost per completed task (outcome.cost_per_completed_task_usd)",
                    },
                },
                required=["limit_usd", "source", "over", "headroom_usd", "overrun"],
            ),
            {"type": "null"},
        ]
    },
    "rounds": object_schema({"planned": COUNT, "run": COUNT, "truncated": {"type": "boolean"}}),
    "context_window": {"type": ["integer", "null"]},
    "max_input_tokens": COUNT,
    "approximate": {"type": "boolean"},
    "uncertain": {
        "type": "boolean",
        "description": "the scenario has distributions: every figure is at their medians",
    },
    "warnings": {"type": "array", "items": {"type": "string"}},
    "notes": NOTES_SCHEMA,
    "context_editing": EDITING_SCHEMA,
    "tool_search": TOOL_SEARCH_SCHEMA,
    "agent_dynamics": AGENT_DYNAMICS_SCHEMA,
}

SHARE_OR_NULL = {
    "anyOf": [{"type": "string", "pattern": r"^\d+(\.\d+)?$"}, {"type": "null"}],
    "description": "a share, an exact decimal rounded to 4 places; null when unknown",
}
INSIGHTS = object_schema(  # estimate --explain (docs/insights.md)
    {
        "base_usd": USD,
        "checks": object_schema(
            {
                "requests": COUNT,
                "tool_rounds": COUNT,
                "chat_turns": COUNT,
                "tool_searches": COUNT,
                "failed_attempts": COUNT,
                "definition_tokens_per_request": COUNT,
                "definition_share": SHARE_OR_NULL,
                "result_tokens": {
                    "type": "array",
                    "items": object_schema({"tool": {"type": "string"}, "calls": COUNT, "tokens": COUNT}),
                },
                "fees_usd": USD,
                "retry_usd": USD,
                "retry_share": SHARE_OR_NULL,
                "retry_note": {"type": "string"},
                "cached_share": SHARE_OR_NULL,
            }
        ),
        "levers": {
            "type": "array",
            "description": "best first; a lever with a tradeoff (batch) last",
            "items": object_schema(
                {
                    "name": {"type": "string"},
                    "description": {"type": "string"},
                    "cost_usd": {**USD, "description": "the total re-estimated with this one change"},
                    "saved_usd": USD,
                    "saved_fraction": SHARE_OR_NULL,
                    "tradeoff": {"type": ["string", "null"]},
                }
            ),
        },
    }
)
ESTIMATE_BODY["insights"] = INSIGHTS
# estimate --simulate (docs/uncertainty.md)
_STAT_USD = object_schema({k: USD for k in ("mean", "p50", "p90", "p99", "min", "max")})
_STAT_COUNT = object_schema(
    {
        "mean": {"type": "string", "description": "rounded to 2 places"},
        **{k: COUNT for k in ("p50", "p90", "p99", "min", "max")},
    }
)
SIMULATION = object_schema(
    {
        "runs": {"type": "integer", "minimum": 1},
        "seed": {"type": "integer"},
        "engine": {"enum": ["vectorized", "per run"]},
        "engine_note": {"type": ["string", "null"], "description": "why the per-run engine ran"},
        "deterministic_usd": {**USD, "description": "the estimate with every distribution at its median"},
        "cost_usd": {**_STAT_USD, "description": "nearest-rank percentiles; the mean rounded to 10 places"},
        "requests": _STAT_COUNT,
        "input_tokens": _STAT_COUNT,
        "percentiles_usd": {"type": "object", "additionalProperties": USD, "description": "--at pNN"},
        "tasks": object_schema(
            {
                "completed_runs": COUNT,
                "success_mean": {"type": "string", "description": "mean drawn success, 4 places"},
                "cost_per_completed_task_usd": {
                    "anyOf": [_STAT_USD, {"type": "null"}],
                    "description": "each completed task carries the spend since the previous one",
                },
            }
        ),
        "max_rounds": {"type": ["integer", "null"]},
        "hit_max_rounds_runs": COUNT,
        "stopped_by_budget_runs": COUNT,
        "budget_usd": {"anyOf": [USD, {"type": "null"}]},
        "over_budget_runs": {"type": ["integer", "null"]},
        "overrun_probability": {
            "anyOf": [{"type": "string"}, {"type": "null"}],
            "description": "share of runs over budget_usd, rounded to 4 places",
        },
        "inputs": {
            "type": "array",
            "items": object_schema(
                {
                    "where": {"type": "string"},
                    "line": {"type": ["integer", "null"]},
                    "distribution": {"type": "string"},
                    "median": COUNT,
                }
            ),
        },
        "histogram": {
            "type": "array",
            "description": "equal-width bins from the cheapest run to the p99 run, then the costlier runs",
            "items": object_schema(
                {"low_usd": USD, "high_usd": USD, "runs": COUNT, "beyond_p99": {"type": "boolean"}}
            ),
        },
        "sensitivity": {
            "type": "array",
            "description": "largest p90 drop first",
            "items": object_schema({"where": {"type": "string"}, "p90_usd": USD, "drop_usd": USD}),
        },
    }
)
SIMULATION["required"] = [k for k in SIMULATION["properties"] if k != "tasks"]  # tasks: with outcome


ESTIMATE_BODY["simulation"] = SIMULATION
_NULL_STAT: dict[str, Any] = {"anyOf": [_STAT_USD, {"type": "null"}]}
_MISSING = {"enum": ["limits.max_rounds", "limits.max_budget_usd"]}
_STOPS: dict[str, Any] = {"missing": {"type": "array", "items": _MISSING}}
_STOPS |= {"runs": COUNT, "seed": COUNT, "uncapped_usd": _NULL_STAT, "capped_usd": _NULL_STAT}
_STOPS |= {"max_rounds": {"type": ["integer", "null"]}, "note": {"type": ["string", "null"]}}
_STEPS = {"runs": COUNT, "seed": COUNT, "requests": _STAT_COUNT}  # --explain --simulate: requests per run
INSIGHTS["properties"] |= {  # --explain: the stop rules missing (null: none), the cost of not converging
    "stop_rules": {"anyOf": [object_schema(_STOPS), {"type": "null"}]},
    "steps": {"anyOf": [object_schema(_STEPS), {"type": "null"}]},
}
INSIGHTS["required"] += ["stop_rules", "steps"]
_DECIMAL = {"type": "string", "pattern": r"^\d+(\.\d+)?$"}
OUTCOME = object_schema(  # the scenario's outcome (docs/scenario.md#outcome)
    {
        "success": {**_DECIMAL, "description": "probability that a run completes its task (0 < p <= 1)"},
        "on_failure": {"enum": ["retry", "abandon"]},
        "max_attempts": {
            "type": ["integer", "null"],
            "minimum": 1,
            "description": "retry: most runs per task; null: until it succeeds (or abandon)",
        },
        "cost_per_run_usd": {**USD, "description": "totals.cost_usd: one run"},
        "failure_rounds": {
            "type": "integer",
            "minimum": 1,
            "description": "present with failure_rounds: a failed run is cut after this many rounds",
        },
        "failure_cost_usd": {**USD, "description": "with failure_rounds: what a failed run costs (f)"},
        "success_distribution": {
            "type": "string",
            "description": "present when success is given as a distribution: success is its median",
        },
        "runs_per_task": {
            **_DECIMAL,
            "description": "expected runs per started task: abandon 1; retry 1/p; retry up to K"
            " (1-(1-p)^K)/p",
        },
        "completion_probability": {
            **_DECIMAL,
            "description": "probability a started task is completed: abandon p; retry 1; retry up to"
            " K 1-(1-p)^K",
        },
        "cost_per_task_usd": {
            **USD,
            "description": "expected cost per started task: c x completion_probability + f x"
            " (runs_per_task - completion_probability)",
        },
        "cost_per_completed_task_usd": {
            **USD,
            "description": "expected cost per completed task: c + f (1-p)/p whatever the policy"
            " (c / p when a failed run costs a whole run)",
        },
    }
)
OUTCOME["required"] = [k for k in OUTCOME["properties"] if not k.startswith(("failure_", "success_"))]
ESTIMATE_BODY["outcome"] = OUTCOME
# --explain (insights, tool_footprint) / --simulate / a scenario's outcome
ESTIMATE_OPTIONAL = ("insights", "simulation", "outcome", "tool_footprint")

# estimate --explain: each tool definition's footprint (docs/insights.md, agentcost.render.footprint)
TOOL_FOOTPRINT = object_schema(
    {
        "request_1": object_schema(
            {
                "tool_prefix_tokens": {**COUNT, "description": "the tool prefix of request 1, all of it"},
                "tools_tokens": {**COUNT, "description": "the tools' tokens_per_request, summed"},
                "residual_tokens": {
                    "type": "integer",
                    "description": "tool_prefix_tokens - tools_tokens: one-off parts (hidden tool-use"
                    " system prompt, framing, the tool-search tool)",
                },
                "residual": {"type": "string", "description": "what the residual is made of"},
            }
        ),
        "requests": COUNT,
        "run_usd": USD,
        "without_definitions_usd": {**USD, "description": "the run re-priced with no tool definitions"},
        "definitions_usd": {**USD, "description": "run_usd - without_definitions_usd"},
        "usd_method": {"type": "string"},
        "active_tools": {
            "anyOf": [
                object_schema(
                    {
                        "active": COUNT,
                        "max_active": COUNT,
                        "advice": {"type": "string"},
                        "exceeded": {"type": "boolean"},
                        "url": {"type": "string"},
                        "read": {"type": "string"},
                        "note": {"type": ["string", "null"]},
                    }
                ),
                {"type": "null"},
            ],
            "description": "null: the model's maker publishes no advice",
        },
        "tools": {
            "type": "array",
            "description": "every tool definition, most dollars first",
            "items": object_schema(
                {
                    "name": {"type": "string"},
                    "tokens_per_request": COUNT,
                    "deferred": {"type": "boolean"},
                    "requests": COUNT,
                    "run_tokens": COUNT,
                    "calls": COUNT,
                    "result_tokens": COUNT,
                    "usd_share": {**USD, "description": "its share of definitions_usd, by run_tokens"},
                }
            ),
        },
    }
)
ESTIMATE_BODY["tool_footprint"] = TOOL_FOOTPRINT

ESTIMATE = object_schema(ESTIMATE_BODY, required=[k for k in ESTIMATE_BODY if k not in ESTIMATE_OPTIONAL])

_OTHER_KINDS = {  # kind -> "module" (its JSON_SCHEMA) or "module:ATTRIBUTE"
    "batch": "agentcost.render.batch",
    "compare": "agentcost.render.compare",
    "diff": "agentcost.render.diff",
    "models": "agentcost.report.prices_json:ModelsJson",  # typed: report.schemagen writes its schema
    "prices": "agentcost.report.prices_json:PricesJson",
    "reconcile": "agentcost.render.reconcile",
    "replay": "agentcost.render.replay",
    "replay_many": "agentcost.render.replay_many",  # agentcost replay DIR... (many runs)
}


def _kind_schema(kind: str, body: dict[str, Any], optional: tuple[str, ...] = ()) -> dict[str, Any]:
    properties = {
        "version": {"const": 1},
        "kind": {"const": kind},
        **body,
        "gates": {"type": "array", "items": GATE},
    }
    return object_schema(properties, required=[k for k in properties if k not in optional])


def report_schema() -> dict[str, Any]:
    """JSON Schema (draft 2020-12) of ``--format json`` output of every command."""
    variants = [_kind_schema("estimate", ESTIMATE_BODY, ESTIMATE_OPTIONAL)]
    defs: dict[str, Any] = {"estimate": ESTIMATE}
    for kind, where in _OTHER_KINDS.items():
        module_name, _, attribute = where.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as err:
            if err.name == module_name:
                continue
            raise
        fragment: Any = getattr(module, attribute or "JSON_SCHEMA")
        if is_typeddict(fragment):  # one typed definition: its JSON is built as it, its schema from it
            fragment, shared = schema_of(fragment, defs_prefix=f"{kind}_")
            defs |= shared
        body = fragment.get("properties", fragment)
        variants.append(_kind_schema(kind, body))
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "agentcost JSON report",
        "description": "The output of `agentcost <command> --format json`, version 1.",
        "$defs": defs,
        "oneOf": variants,
    }


if __name__ == "__main__":  # python -m agentcost.render.schema > docs/report.schema.json
    import json

    print(json.dumps(report_schema(), indent=2))
