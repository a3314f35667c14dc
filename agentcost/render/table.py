"""Report -> Rich renderable: the per-request table, then the assumptions it rests on."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from agentcost.infra.text import plain, rich
from agentcost.prices.model import ModelPrices
from agentcost.render.dynamics import dynamics_lines
from agentcost.report import fmt
from agentcost.report.estimate import Report, all_subagents, cheapest_ttl


def _title(report: Report) -> Text:
    name = report.scenario_name or report.scenario_path
    return rich(f"{name} · {report.model_id} ({report.provider})", "table.title")


def render_table(report: Report) -> RenderableType:
    mark = "*" if report.approximate else ""
    table = Table(title=_title(report), title_justify="left", show_footer=True, header_style="bold")
    t = report.totals
    table.add_column("#", justify="right", footer="")
    table.add_column("model did", footer=f"total ({t.requests} requests)")
    table.add_column(f"input{mark}", justify="right", footer=fmt.tokens(t.input_tokens))
    table.add_column("cache read", justify="right", footer=fmt.tokens(t.cache_read_tokens))
    table.add_column("cache write", justify="right", footer=fmt.tokens(t.cache_write_tokens))
    table.add_column(f"output{mark}", justify="right", footer=fmt.tokens(t.output_tokens))
    table.add_column("cost", justify="right", footer=fmt.usd(t.cost_usd))
    table.add_column("running", justify="right", footer="")
    for r in report.requests:
        table.add_row(
            str(r.index),
            rich(r.label + (f" [{r.tier}]" if r.tier else "")),
            fmt.tokens(r.input_tokens),
            fmt.tokens(r.cache_read_tokens),
            fmt.tokens(r.cache_write_tokens),
            fmt.tokens(r.output_tokens),
            fmt.usd(r.cost_usd),
            fmt.usd(r.running_usd),
        )
        for sub in r.subagents:  # folded under the request whose call started it; totals include it
            st = sub.report.totals
            table.add_row(
                "",
                rich("↳ " + sub.text),
                fmt.tokens(st.input_tokens),
                fmt.tokens(st.cache_read_tokens),
                fmt.tokens(st.cache_write_tokens),
                fmt.tokens(st.output_tokens),
                fmt.usd(sub.cost_usd),
                "",
            )
    return Group(table, _assumptions(report))


def _assumptions(report: Report) -> Text:
    lines: list[str] = []
    t = report.totals
    fees = f" + server-tool fees {fmt.usd(t.fees_usd, 6)}" if t.fees_usd else ""
    if report.cache_storage is not None:
        fees += f" + explicit cache {fmt.usd(t.explicit_cache_usd, 6)}"
    lines.append(
        f"Total {fmt.usd(t.cost_usd, 6)} = input {fmt.usd(t.input_usd, 6)}"
        f" + output {fmt.usd(t.output_usd, 6)}{fees};"
        f" {fmt.percent(t.cached_share)} of input tokens read from cache."
    )
    if t.subagent_requests:
        lines.append(_subagents_line(report))
    if report.budget is not None:
        b = report.budget
        verdict = "OVER" if b.over else "within"
        lines.append(
            f"Budget {fmt.usd(b.limit_usd)} ({b.source}): {verdict} budget,"
            f" headroom {fmt.usd(b.headroom_usd)}."
        )
    names = {
        "input": "input",
        "output": "output",
        "cache_read": "cache read",
        "cache_write": "cache write",
        "cache_write_1h": "1h cache write",
    }
    rates = ", ".join(
        f"{label} {fmt.rate(report.rates[key])}"
        for key, label in names.items()
        if report.rates[key] is not None
    )
    lines.append(f"Model: {report.model_name} [{report.model_id}], provider {report.provider}; {rates}.")
    tier = f"; {report.service_tier} service tier" if report.service_tier != "standard" else ""
    lines.append(f"Prices: {report.price_label}, as of {report.as_of}{tier}.")
    default = " (provider default)" if report.caching_is_default else ""
    ttl = (
        f", TTL {report.cache_ttl}"
        if (report.provider == "anthropic" and report.caching_mode != "none")
        or report.caching_mode == "explicit"
        else ""
    )
    lines.append(
        f"Caching: {report.caching_mode}{default}{ttl}; prefixes under"
        f" {report.cache_min_tokens:,} tokens are not cached."
    )
    lines.extend(_cache_lines(report))
    lines.extend(dynamics_lines(report))
    accuracy = "approximate, marked *" if report.approximate else "exact tokenizer"
    lines.append(f"Token counts ({accuracy}): {report.count_method}.")
    lines.extend(f"Note: {n}" for n in report.count_notes)
    lines.extend(f"Warning: {w}" for w in report.warnings)
    return Text("\n".join(map(plain, lines)))  # names from files in them: one line each, shown escaped


def _subagents_line(report: Report) -> str:
    """How much of the total the subagents are, and on which models."""
    t, subs = report.totals, all_subagents(report)
    models = ", ".join(dict.fromkeys(s.model_id for s in subs))
    runs = "run" if len(subs) == 1 else "runs"
    return (
        f"Subagents: {len(subs)} {runs} ({models}), {t.subagent_requests} of the {t.requests} requests,"
        f" {fmt.usd(t.subagents_usd, 6)} of the total; each billed on its own model, only its final"
        " answer returned as the call's result."
    )


def _cache_lines(report: Report) -> list[str]:
    """Explicit-cache storage, cache expiry under the scenario's pacing, and the cheapest TTL."""
    lines: list[str] = []
    t, s = report.totals, report.cache_storage
    if s is not None:
        times = "once" if s.creations == 1 else f"{s.creations} times"
        lines.append(
            f"Explicit cache: {s.tokens:,} tokens created {times} at the input price"
            f" ({fmt.usd(s.creation_usd, 6)}) and stored {fmt.exact(s.hours)} h"
            f" x ${fmt.exact(s.usd_per_mtok_hour)}/MTok/hour ({fmt.usd(s.storage_usd, 6)});"
            " reads do not extend its TTL."
        )
    if t.cache_expiries:
        requests = "request" if t.cache_expiries == 1 else "requests"
        again = (
            "the explicit cache was created again"
            if s is not None
            else "each read nothing and wrote its prefix again"
        )
        lines.append(f"Cache expired before {t.cache_expiries} {requests} (past the TTL): {again}.")
    best = cheapest_ttl(report)
    if best is not None:
        names = {"none": "no caching", "5m": "5m TTL", "1h": "1h TTL"}
        others = ", ".join(
            f"{names.get(c.ttl, c.ttl)} {fmt.usd(c.cost_usd, 6)} (+{fmt.usd(c.extra_usd, 6)})"
            for c in report.ttl_comparison
            if c is not best
        )
        lines.append(
            f"Cheapest for this pacing: {names.get(best.ttl, best.ttl)} at {fmt.usd(best.cost_usd, 6)};"
            f" {others}."
        )
    return lines


def render_models(models: list[ModelPrices]) -> RenderableType:
    """The ``agentcost models`` listing: prices per million tokens in force at the lookup date, the
    long-context tiers and service tiers genai-prices knows, and which token counts are approximate
    (marked *, as in estimates)."""
    from decimal import Decimal

    from agentcost.prices.rates import tier_name
    from agentcost.render.prices import MODELS_ORDER, count_accuracy

    def per_mtok(d: Decimal | None) -> str:
        return "-" if d is None else f"${fmt.exact(d)}"

    rows: list[tuple[str, list[str]]] = []
    for m in models:
        tiers = [tier_name(t) for t in m.tier_thresholds]
        tiers += [t for t in m.service_tiers if t != "standard"]
        approximate = count_accuracy(m.provider, m.rules_id) == "approximate"
        name = m.model_id + ("*" if approximate else "") + (" †" if m.source.kind == "user" else "")
        cells = [
            name,
            per_mtok(m.input_mtok),
            per_mtok(m.output_mtok),
            per_mtok(m.cache_read_mtok),
            per_mtok(m.cache_write_mtok),
            fmt.tokens(m.context_window),
            " ".join(tiers) or "-",
        ]
        rows.append((m.provider, [plain(c) for c in cells]))

    table = Table(header_style="bold")
    longest = max((len(cells[0]) for _, cells in rows), default=5)
    table.add_column("model", min_width=min(longest, 30), overflow="fold")  # long ids fold, never crop
    for name in ("input", "output", "cache\nread", "cache\nwrite", "context"):
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column("tiers", min_width=5, max_width=12)
    provider: str | None = None
    for pid, cells in rows:
        if pid != provider:  # a heading row per provider (the listing is grouped by provider)
            if provider is not None:
                table.add_section()
            provider = pid
            table.add_row(rich(pid, "bold"))
        table.add_row(*map(rich, cells))

    sources: dict[str, None] = {}
    for m in models:
        if m.source.kind != "user":
            sources.setdefault(m.source.label)
    lines = [f"{len(models)} model{'' if len(models) == 1 else 's'}, {MODELS_ORDER}."]
    if models:
        day = models[0].source.as_of.date().isoformat()
        lines.append(
            f"Prices in USD per million tokens in force on {day}, from"
            f" {'; '.join(sources) or 'your price file'}."
        )
    lines.append(
        "* token counts are approximate (Claude, Gemini); OpenAI counts are exact. cache write: the"
        " 5-minute write on Anthropic. tiers: a long-context tier (>200k: a request over 200,000 input"
        " tokens is priced whole at higher rates) and the service tiers besides standard (their rates:"
        " agentcost prices MODEL)."
    )
    user = [m for m in models if m.source.kind == "user"]
    if user:
        lines.append("† from " + "; ".join(dict.fromkeys(m.source.label for m in user)) + ".")
    lines.extend(f"Warning: {w}" for w in dict.fromkeys(w for m in models for w in m.warnings))
    return Group(table, Text("\n".join(map(plain, lines))))
