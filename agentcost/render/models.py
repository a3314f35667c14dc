"""``agentcost models`` as JSON: the report of :mod:`agentcost.report.models`, formatted.

The JSON's shape, from which its JSON Schema is generated, is
:class:`agentcost.report.prices_json.ModelsJson`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentcost.render.jsonfmt import dumps, envelope
from agentcost.report.fmt import exact
from agentcost.report.models import CatalogEntry, ModelRow, ModelsReport
from agentcost.report.prices_json import host, service_tier

if TYPE_CHECKING:  # the JSON's one definition (report/prices_json.py), also its JSON Schema
    from agentcost.report.prices_json import ModelJson, ModelsJson


def _model_dict(row: ModelRow) -> ModelJson:
    m, entry = row.prices, row.entry
    return {
        "model": m.model_id,
        "name": m.name,
        "provider": m.provider,
        "price_provider": m.price_provider,
        "host": host(m.host),
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
        "service_tiers": [service_tier(t) for t in m.service_tiers],
        "context_window": m.context_window,
        "token_counts": row.token_counts,
        "deprecated": m.deprecated,
        "source": m.source.label,
    }


def _entry_dict(e: CatalogEntry) -> ModelJson:
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


def models_dict(report: ModelsReport) -> ModelsJson:
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
