"""Report -> Markdown, compact enough for a pull-request comment or a GitHub step summary."""

from __future__ import annotations

from agentcost.infra.text import markdown, markdown_code
from agentcost.render.dynamics import dynamics_lines
from agentcost.report import fmt
from agentcost.report.estimate import Report, all_subagents, cheapest_ttl


def _cache_lines(report: Report) -> list[str]:
    """Explicit-cache storage, expiry, and a cheaper cache TTL for the pacing, when there is one."""
    t, s, lines = report.totals, report.cache_storage, []
    if s is not None:
        lines.append(
            f"Explicit cache: {s.tokens:,} tokens, {fmt.usd(s.total_usd)} for"
            f" creation and {fmt.exact(s.hours)} h of storage."
        )
    if t.cache_expiries:
        lines.append(f"Cache expired before {t.cache_expiries} of {t.requests} requests (past the TTL).")
    best = cheapest_ttl(report)
    used = "none" if report.caching_mode == "none" else report.cache_ttl
    current = next((c for c in report.ttl_comparison if c.ttl == used), None)
    if best is not None and current is not None and best is not current:
        name = "no caching" if best.ttl == "none" else f"a {best.ttl} cache TTL"
        lines.append(
            f"Cheaper for this pacing: {name}, {fmt.usd(best.cost_usd)} per run"
            f" ({fmt.usd(current.extra_usd)} less)."
        )
    return lines


def render_markdown(report: Report) -> str:
    t = report.totals
    mark = "\\*" if report.approximate else ""
    name = report.scenario_name or report.scenario_path
    lines = [
        f"#### agentcost: {markdown(name)}",
        "",
        f"**{fmt.usd(t.cost_usd)}** per run on {markdown_code(report.model_id)}"
        f" ({markdown(report.provider)}):"
        f" {t.requests} requests, {fmt.tokens(t.input_tokens)} input tokens{mark}"
        f" ({fmt.percent(t.cached_share)} cached), {fmt.tokens(t.output_tokens)} output tokens{mark}.",
    ]
    if t.subagent_requests:
        runs = len(all_subagents(report))
        lines.append(
            f"Subagents: {runs} run{'' if runs == 1 else 's'}, {t.subagent_requests} of the {t.requests}"
            f" requests, {fmt.usd(t.subagents_usd)} of the total."
        )
    if report.budget is not None:
        b = report.budget
        verdict = "**over budget**" if b.over else "within budget"
        lines.append(f"Budget {fmt.usd(b.limit_usd)} ({markdown(b.source)}): {verdict}.")
    lines.extend(_cache_lines(report))
    lines.extend(dynamics_lines(report, markdown))  # parallel calls, retries, routing, context editing...
    lines += [
        "",
        "<details><summary>Per request</summary>",
        "",
        f"| # | model did | input{mark} | cache read | cache write | output{mark} | cost | running |",
        "|--:|---|--:|--:|--:|--:|--:|--:|",
    ]
    for r in report.requests:
        cells = [
            str(r.index),
            markdown(r.label) + (f" [{r.tier}]" if r.tier else ""),
            fmt.tokens(r.input_tokens),
            fmt.tokens(r.cache_read_tokens),
            fmt.tokens(r.cache_write_tokens),
            fmt.tokens(r.output_tokens),
            fmt.usd(r.cost_usd),
            fmt.usd(r.running_usd),
        ]
        lines.append("| " + " | ".join(cells) + " |")
        for sub in r.subagents:  # folded under the request whose call started it; totals include it
            st = sub.report.totals
            cells = [
                "",
                "↳ " + markdown(sub.text),
                fmt.tokens(st.input_tokens),
                fmt.tokens(st.cache_read_tokens),
                fmt.tokens(st.cache_write_tokens),
                fmt.tokens(st.output_tokens),
                fmt.usd(sub.cost_usd),
                "",
            ]
            lines.append("| " + " | ".join(cells) + " |")
    totals = [
        "",
        "**total**",
        fmt.tokens(t.input_tokens),
        fmt.tokens(t.cache_read_tokens),
        fmt.tokens(t.cache_write_tokens),
        fmt.tokens(t.output_tokens),
        f"**{fmt.usd(t.cost_usd)}**",
        "",
    ]
    lines.append("| " + " | ".join(totals) + " |")
    lines += ["", "</details>", ""]
    default = " (provider default)" if report.caching_is_default else ""
    accuracy = "approximate (\\*)" if report.approximate else "exact tokenizer"
    tier = f", {report.service_tier} service tier" if report.service_tier != "standard" else ""
    lines.append(
        f"<sub>Prices: {markdown(report.price_label)} as of {report.as_of[:10]}{tier};"
        f" caching: {report.caching_mode}{default}; token counts: {accuracy}.</sub>"
    )
    for w in report.warnings:
        lines.append(f"> [!WARNING]\n> {markdown(w)}")
    return "\n".join(lines) + "\n"
