"""Report -> CSV: one row per billed request (and per subagent it started, ``kind`` ``subagent``),
then a totals row. Dollars are exact decimal strings; ``counter`` names the counter each row's tokens
were counted with (a subagent's is its own model's)."""

from __future__ import annotations

import io

from agentcost.infra.text import CsvWriter
from agentcost.report.estimate import Report
from agentcost.report.fmt import exact

COLUMNS = (
    "scenario",
    "model",
    "request",
    "kind",
    "tool",
    "input_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "output_tokens",
    "cost_usd",
    "running_usd",
    "counter",
)


def render_csv(report: Report) -> str:
    out = io.StringIO()
    writer = CsvWriter(out)
    writer.writerow(COLUMNS)
    for r in report.requests:
        writer.writerow(
            (
                report.scenario_path,
                report.model_id,
                r.index,
                r.kind,
                ";".join(r.tools),
                r.input_tokens,
                r.cache_read_tokens,
                r.cache_write_tokens,
                r.output_tokens,
                exact(r.cost_usd),
                exact(r.running_usd),
                report.encoding,
            )
        )
        for sub in r.subagents:  # one row per subagent, its own subagents included: rows sum to the total
            st = sub.report.totals
            writer.writerow(
                (
                    sub.path,
                    sub.model_id,
                    r.index,
                    "subagent",
                    sub.label,
                    st.input_tokens,
                    st.cache_read_tokens,
                    st.cache_write_tokens,
                    st.output_tokens,
                    exact(sub.cost_usd),
                    "",
                    sub.report.encoding,
                )
            )
    t = report.totals
    writer.writerow(
        (
            report.scenario_path,
            report.model_id,
            "total",
            "",
            "",
            t.input_tokens,
            t.cache_read_tokens,
            t.cache_write_tokens,
            t.output_tokens,
            exact(t.cost_usd),
            "",
            report.encoding,
        )
    )
    return out.getvalue()
