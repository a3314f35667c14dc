"""``agentcost models`` as JSON: the report of :mod:`agentcost.report.models`, formatted.

The JSON Schema is :data:`agentcost.render.prices.MODELS_JSON_SCHEMA`.
"""

from __future__ import annotations

from typing import Any

from agentcost.render.jsonfmt import dumps, envelope
from agentcost.report.fmt import exact
from agentcost.report.models import CatalogEntry, ModelRow, ModelsReport


def _model_dict(row: ModelRow) -> dict[str, Any]:
    m, entry = row.prices, row.entry
    return {
        "model": m.model_id,
        "name": m.name,
        "provider": m.provider,
        "price_provider": m.price_provider,
        "host": m.host,
        "rules_id": m.rules_id,
        "estimable": True,
        "chat": entry is None or entry.kind == "chat",
        "why": None if entry is None else entry.why,
        "per_mtok_usd": {
            "input": exact(m.input_mtok),
            "output": exact(m.output_mtok),
            "cache_read": None if m.cache_read_mtok is None else exact(m.cache_read_mtok),
            "cache_write": None if m.cache_write_mtok is None else exact(m.cache_write_mtok),
            "cache_write_1h": None if m.cache_write_1h_mtok is None else exact(m.cache_write_1h_mtok),
        },
        "tier_thresholds": list(m.tier_thresholds),
        "service_tiers": list(m.service_tiers),
        "context_window": m.context_window,
        "token_counts": row.token_counts,
        "deprecated": m.deprecated,
        "source": m.source.label,
    }


def _entry_dict(e: CatalogEntry) -> dict[str, Any]:
    """A row agentcost cannot estimate with: what it is and why."""
    return {
        "model": e.model_id,
        "name": e.name,
        "provider": e.provider,
        "price_provider": e.provider,
        "host": None,
        "rules_id": None,
        "estimable": False,
        "chat": False,
        "why": e.why,
        "per_mtok_usd": None,
        "tier_thresholds": [],
        "service_tiers": [],
        "context_window": e.context_window,
        "token_counts": None,
        "deprecated": e.deprecated,
        "source": None,
    }


def models_dict(report: ModelsReport) -> dict[str, Any]:
    return {
        "as_of": report.as_of.isoformat(),
        "order": report.order,
        "models": [_model_dict(row) for row in report.rows] + [_entry_dict(e) for e in report.not_estimable],
        "providers": [
            {
                "provider": c.provider,
                "name": c.name,
                "models": c.models,
                "estimable": c.estimable,
                "chat": c.chat,
                "listed": c.listed,
            }
            for c in report.providers
        ],
    }


def render_models_json(report: ModelsReport) -> str:
    return dumps(envelope("models", models_dict(report)))
