"""A per-request bar chart: input tokens (cached vs not) and output tokens, drawn with Rich.

The bars are scaled to the largest request; the scale factor is a layout choice, not a figure the
report states, so it lives here.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from agentcost.infra.text import rich
from agentcost.report import fmt
from agentcost.report.estimate import Report

BAR_WIDTH = 48
CACHED, UNCACHED, OUTPUT = "█", "▓", "▒"


def _bar(cached: int, uncached: int, output: int, scale: float) -> Text:
    text = Text()
    text.append(CACHED * round(cached * scale), style="green")
    text.append(UNCACHED * round(uncached * scale), style="yellow")
    text.append(OUTPUT * max(1 if output else 0, round(output * scale)), style="magenta")
    return text


def render_chart(report: Report, width: int = BAR_WIDTH) -> RenderableType:
    biggest = max((r.total_tokens for r in report.requests), default=0)
    scale = width / biggest if biggest else 0.0
    table = Table.grid(padding=(0, 1))
    table.add_column(justify="right")
    table.add_column()
    table.add_column(justify="right")
    for r in report.requests:
        table.add_row(
            str(r.index),
            _bar(r.cache_read_tokens, r.uncached_input_tokens, r.output_tokens, scale),
            fmt.tokens(r.total_tokens),
        )
    legend = Text()
    legend.append(f"{CACHED} input read from cache  ", style="green")
    legend.append(f"{UNCACHED} input not cached  ", style="yellow")
    legend.append(f"{OUTPUT} output", style="magenta")
    return Group(rich(f"Tokens per request · {report.model_id}", "bold"), table, legend)
