"""Report -> Markdown, compact enough for a pull-request comment or a GitHub step summary."""

from __future__ import annotations

from agentcost.infra.text import display_name, markdown, markdown_code
from agentcost.report import fmt
from agentcost.report.estimate import Report
from agentcost.report.notes import OVER_BUDGET, estimate_notes


def render_markdown(report: Report) -> str:
    t = report.totals
    mark = "\\*" if report.approximate else ""
    title = report.scenario_name or report.scenario_path
    lines = [
        f"#### agentcost: {markdown(display_name(title))}",
        "",
        f"**{fmt.usd(t.cost_usd)}** per run on {markdown_code(report.model_id)}"
        f" ({markdown(report.provider)}):"
        f" {t.requests} requests, {fmt.tokens(t.input_tokens)} input tokens{mark}"
        f" ({fmt.percent(t.cached_share)} cached), {fmt.tokens(t.output_tokens)} output tokens{mark}.",
    ]
    notes = estimate_notes(report)  # the table's essential / detail split (agentcost.report.notes)
    for n in notes:  # the total is the line above; the price source goes last, small
        if n.level == "essential" and n.kind not in ("total", "prices"):
            text = markdown(n.text)
            if n.kind == "budget":
                text = text.replace(OVER_BUDGET, f"**{OVER_BUDGET}**")
            lines.append(text)
    for n in notes:
        if n.level == "warning":
            lines.append(f"> [!WARNING]\n> {markdown(n.text)}")
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
            markdown(display_name(r.label)) + (f" [{r.tier}]" if r.tier else ""),
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
    details = [f"- {markdown(n.text)}" for n in notes if n.level == "detail"]
    if details:
        lines += ["<details><summary>Assumptions</summary>", "", *details, "", "</details>", ""]
    lines.extend(f"<sub>{markdown(n.text)}</sub>" for n in notes if n.kind == "prices")
    return "\n".join(lines) + "\n"
