"""``agentcost models`` as JSON, and the lines under its table: what each row is, what is not listed.

The rows come from :func:`agentcost.prices.listing.listing` (priced models, the rows that cannot be
estimated with the reason, every provider's counts); the renderers only format them. The JSON
Schema is :data:`agentcost.render.prices.MODELS_JSON_SCHEMA`.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from agentcost.render.jsonfmt import dumps, envelope
from agentcost.render.prices import MODELS_ORDER, count_accuracy
from agentcost.report.fmt import exact

if TYPE_CHECKING:
    from agentcost.prices.catalog import CatalogEntry
    from agentcost.prices.listing import Listing
    from agentcost.prices.model import ModelPrices


def _model_dict(m: ModelPrices, entry: CatalogEntry | None) -> dict[str, Any]:
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
        "token_counts": count_accuracy(m.provider, m.rules_id),
        "deprecated": m.deprecated,
        "source": m.source.label,
    }


# How the footer of `agentcost models` names a counting family, and why rows are not listed.
_FAMILY_LABELS = {
    "openai": "OpenAI",
    "claude": "Claude",
    "gemini": "Gemini",
    "gemma": "Gemma",
    "other": "other models",
}
_WHY_SHORT = {
    "no-token-prices": "{n} without per-token input and output prices",
    "free": "{n} free row{s} without prices",
    "unreachable": "{n} that genai-prices finds only by longer ids",
}
_EXAMPLE = {"azure": "gpt-4o"}  # a model genai-prices prices by fallback
_TIERS_NOTE = (
    "cache write: the 5-minute write on Anthropic. tiers: a long-context tier (>200k: a request over"
    " 200,000 input tokens is priced whole at higher rates) and the service tiers besides standard"
    " (their rates: agentcost prices MODEL)."
)


def models_footer(found: Listing) -> list[str]:
    """The lines under the ``agentcost models`` table: what * means, the rows not listed because
    they cannot be estimated, and the providers (or matching models) not listed."""
    from agentcost.tokens.rules import family_of

    rough: dict[str, None] = {}
    sure: dict[str, None] = {}
    for m in found.models:
        family = family_of(m.provider, m.rules_id)
        (sure if family.exact else rough).setdefault(_FAMILY_LABELS.get(family.name, family.name))
    if rough:
        accuracy = f"* token counts are approximate ({', '.join(rough)})"
        accuracy += f"; {', '.join(sure)} counts are exact." if sure else "."
    else:
        accuracy = f"Token counts are exact ({', '.join(sure)})." if sure else ""
    lines = [f"{accuracy} {_TIERS_NOTE}".strip()]
    unknown = sum(1 for m in found.models if m.context_window is None)
    if unknown:
        lines.append(
            f"context -: unknown for {unknown} model{'' if unknown == 1 else 's'} (genai-prices has no"
            ' window and agentcost\'s facts none); their estimates say "context window unknown: not checked".'
        )
    if found.not_estimable:
        why = ", ".join(
            _WHY_SHORT.get(code, "{n} other").format(n=n, s="" if n == 1 else "s")
            for code, n in found.reasons.items()
        )
        lines.append(f"Not listed: rows agentcost cannot estimate with ({why}); --format json lists them.")
    for pid, others in found.fallbacks.items():
        example = f", e.g. {pid}/{_EXAMPLE[pid]}" if pid in _EXAMPLE else ""
        lines.append(
            f"Not listed: {pid} serves the models of {', '.join(others)} it has no row for at their"
            f" makers' prices in genai-prices (standard tier only): write {pid}/<model>{example}."
        )
    if found.elsewhere:
        shown = ", ".join(f"{pid} {n}" for pid, n in list(found.elsewhere.items())[:6])
        more = ", ..." if len(found.elsewhere) > 6 else ""
        lines.append(
            f"{found.elsewhere_total} more matching models at other providers ({shown}{more}):"
            " add --all, or --provider NAME."
        )
    elif found.default_scope and not found.filtered and found.unlisted_providers:
        unlisted = found.unlisted_providers
        names = ", ".join(c.provider for c in unlisted[:8]) + (", ..." if len(unlisted) > 8 else "")
        lines.append(
            f"{len(unlisted)} more providers price chat models ({names}):"
            " agentcost models --provider NAME, or --all."
        )
    return lines


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


def models_dict(found: Listing, *, as_of: datetime) -> dict[str, Any]:
    models = [_model_dict(m, found.entries.get((m.price_provider, m.model_id))) for m in found.models]
    return {
        "as_of": as_of.isoformat(),
        "order": MODELS_ORDER,
        "models": models + [_entry_dict(e) for e in found.not_estimable],
        "providers": [
            {
                "provider": c.provider,
                "name": c.name,
                "models": c.models,
                "estimable": c.estimable,
                "chat": c.chat,
                "listed": c.listed,
            }
            for c in found.providers
        ],
    }


def render_models_json(found: Listing, *, as_of: datetime) -> str:
    return dumps(envelope("models", models_dict(found, as_of=as_of)))
