"""Report -> Rich renderable: the per-request table, then the assumptions it rests on."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from agentcost.catalog.prices import ModelPrices
from agentcost.report import Report, fmt


def _title(report: Report) -> str:
    name = report.scenario_name or report.scenario_path
    return f"{name} · {report.model_id} ({report.provider})"


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
            r.label,
            fmt.tokens(r.input_tokens),
            fmt.tokens(r.cache_read_tokens),
            fmt.tokens(r.cache_write_tokens),
            fmt.tokens(r.output_tokens),
            fmt.usd(r.cost_usd),
            fmt.usd(r.running_usd),
        )
    return Group(table, _assumptions(report))


def _assumptions(report: Report) -> Text:
    lines: list[str] = []
    t = report.totals
    lines.append(
        f"Total {fmt.usd(t.cost_usd, 6)} = input {fmt.usd(t.input_usd, 6)}"
        f" + output {fmt.usd(t.output_usd, 6)};"
        f" {fmt.percent(t.cached_share)} of input tokens read from cache."
    )
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
    lines.append(f"Prices: {report.price_source} {report.price_version}, as of {report.as_of}.")
    default = " (provider default)" if report.caching_is_default else ""
    ttl = (
        f", TTL {report.cache_ttl}"
        if report.provider == "anthropic" and report.caching_mode != "none"
        else ""
    )
    lines.append(
        f"Caching: {report.caching_mode}{default}{ttl}; prefixes under"
        f" {report.cache_min_tokens:,} tokens are not cached."
    )
    accuracy = "approximate, marked *" if report.approximate else "exact tokenizer"
    lines.append(f"Token counts ({accuracy}): {report.count_method}.")
    lines.extend(f"Note: {n}" for n in report.count_notes)
    lines.extend(f"Warning: {w}" for w in report.warnings)
    return Text("\n".join(lines))


def render_models(models: list[ModelPrices]) -> RenderableType:
    """The ``agentcost models`` listing: prices per million tokens in force at the lookup date."""
    table = Table(header_style="bold")
    for name, justify in [
        ("model", "left"),
        ("provider", "left"),
        ("input", "right"),
        ("output", "right"),
        ("cache read", "right"),
        ("cache write", "right"),
        ("context", "right"),
    ]:
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for m in models:
        table.add_row(
            m.model_id,
            m.provider,
            fmt.rate(m.input_mtok),
            fmt.rate(m.output_mtok),
            fmt.rate(m.cache_read_mtok),
            fmt.rate(m.cache_write_mtok),
            fmt.tokens(m.context_window),
        )
    source = models[0].source if models else None
    footer = f"{len(models)} models; prices per million tokens"
    if source is not None:
        footer += f" from {source.name} {source.version}, as of {source.as_of.isoformat()}"
    return Group(table, Text(footer + "."))
