"""The report of ``agentcost models``: the priced models with their count accuracy, the rows that
cannot be estimated, every provider's counts, and the lines under the table (what each mark means,
what is not listed).

The rows come from :func:`agentcost.prices.listing.listing`; everything a renderer shows of them is
derived here (:mod:`agentcost.render.models` and :func:`agentcost.render.table.render_models` only
format). The listing's own data types (:class:`ModelPrices`, :class:`CatalogEntry`,
:class:`ProviderCount`) are re-exported as the renderers' vocabulary.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from agentcost.infra.record import record
from agentcost.prices.catalog import CatalogEntry
from agentcost.prices.listing import Listing, ProviderCount
from agentcost.prices.pricing import ModelPrices
from agentcost.prices.rates import tier_name
from agentcost.report.prices import MODELS_ORDER, count_accuracy

if TYPE_CHECKING:
    from agentcost.report.prices_json import TokenCounts


@record
class ModelRow:
    """One model agentcost can estimate with."""

    prices: ModelPrices
    entry: CatalogEntry | None  # its genai-prices catalogue row (None: a --prices file's model)
    token_counts: TokenCounts
    tiers: tuple[str, ...]  # its long-context tiers (">200k") and service tiers besides standard


@record
class ModelsReport:
    as_of: datetime
    order: str  # how the rows are ordered, in words
    rows: tuple[ModelRow, ...]
    not_estimable: tuple[CatalogEntry, ...]
    providers: tuple[ProviderCount, ...]
    footer: tuple[str, ...]  # the lines under the table (models_footer)


def models_report(found: Listing, *, as_of: datetime) -> ModelsReport:
    rows = tuple(
        ModelRow(
            prices=m,
            entry=found.entries.get((m.price_provider, m.model_id)),
            token_counts=count_accuracy(m.provider, m.rules_id),
            tiers=(
                *(tier_name(t) for t in m.tier_thresholds),
                *(t for t in m.service_tiers if t != "standard"),
            ),
        )
        for m in found.models
    )
    return ModelsReport(
        as_of=as_of,
        order=MODELS_ORDER,
        rows=rows,
        not_estimable=tuple(found.not_estimable),
        providers=tuple(found.providers),
        footer=tuple(models_footer(found)),
    )


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


__all__ = ["CatalogEntry", "ModelPrices", "ModelRow", "ModelsReport", "ProviderCount", "models_report"]
