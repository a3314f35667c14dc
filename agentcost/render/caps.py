"""CapsReport (``agentcost caps SCENARIO``) -> the terminal's text, Markdown, CSV and JSON.

Formatting only: every figure is a field or a property of :class:`agentcost.report.caps.CapsReport`.
The terminal text leads with the caps, then the settings to paste, one per line, per SDK; lines of
prose wrap at the terminal's width (the settings are short enough for 60 columns). The JSON is
built as :class:`agentcost.report.caps_json.CapsJson`, from which its schema is generated.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.text import Text

from agentcost.infra.text import CsvWriter, display_name, plain, rich
from agentcost.infra.text import markdown as escape_md
from agentcost.render.output import Renderers
from agentcost.report import fmt
from agentcost.report.caps import READ, SOURCES, CapsReport
from agentcost.report.fmt import exact

if TYPE_CHECKING:  # the JSON's one definition (report/caps_json.py), also its JSON Schema
    from agentcost.report.caps_json import CapsJson


def _runs_text(report: CapsReport) -> str:
    r = report.runs
    if not r.simulated:
        return "the scenario's one run (no distribution)"
    return f"{r.label} of {r.runs:,} simulated runs (seed {r.seed})"


def headline(report: CapsReport) -> str:
    """The answer, first: the three caps and what they are read from."""
    return (
        f"Caps at {_runs_text(report)}: max_turns {report.max_turns:,}, "
        f"max_budget_usd ${exact(report.max_budget_usd)}, max_tokens {report.max_tokens:,}."
    )


def settings(report: CapsReport) -> list[tuple[str, list[str]]]:
    """(where it goes, the lines to paste) per SDK."""
    budget = exact(report.max_budget_usd)
    return [
        (
            "Claude Agent SDK, ClaudeAgentOptions:",
            [f"max_turns={report.claude_max_turns}", f"max_budget_usd={budget}"],
        ),
        ("OpenAI Agents SDK, Runner.run:", [f"max_turns={report.openai_max_turns}"]),
        ("LangGraph, the config of invoke:", [f'{{"recursion_limit": {report.langgraph_recursion_limit}}}']),
        ("Every request (OpenAI SDK: ModelSettings):", [f"max_tokens={report.max_tokens}"]),
    ]


def details(report: CapsReport) -> list[str]:
    """The runs' figures at the statistic, the runs beyond the caps, what the caps rest on."""
    r = report.runs
    who = f"At {r.label} a run makes" if r.simulated else "Its one run makes"
    lines = [
        f"{who} {r.requests:,} requests, costs {fmt.usd(r.cost_usd)} and writes "
        f"{r.largest_output:,} output tokens in its largest request."
    ]
    if r.simulated:
        lines.append(
            f"Runs beyond a cap: {r.beyond_any:,} of {r.runs:,} ({fmt.percent(report.beyond_any_share)}): "
            f"turns {r.beyond_turns:,}, budget {r.beyond_budget:,}, max_tokens {r.beyond_tokens:,}."
        )
    lines += list(report.notes())
    e = report.estimate
    lines.append(f"Prices: {e.price_name}, in force on {e.price_day}. Sources: docs/caps.md.")
    return lines


def render_caps_table(report: CapsReport) -> RenderableType:
    e = report.estimate
    name = display_name(e.scenario_name or e.scenario_path)
    parts: list[RenderableType] = [
        Text(headline(report), style="bold"),
        rich(f"{name} · {e.model}"),
        Text(""),
    ]
    for where, lines in settings(report):
        parts.append(Text(where, style="bold"))
        parts += [Text(f"  {line}") for line in lines]
    parts.append(Text(""))
    parts += [rich(line) for line in details(report)]  # a price file's label is the user's text
    return Group(*parts)


def render_caps_markdown(report: CapsReport) -> str:
    e = report.estimate
    name = escape_md(display_name(e.scenario_name or e.scenario_path))
    out = [f"### Caps: {name}", "", f"**{headline(report)}**", ""]
    for where, lines in settings(report):
        out += [f"{where}", "", "```", *lines, "```", ""]
    out += [f"- {escape_md(line)}" for line in details(report)]
    return "\n".join(out) + "\n"


def render_caps_csv(report: CapsReport) -> str:
    """One row per setting: the SDK, the setting, its value."""
    buf = io.StringIO()
    w = CsvWriter(buf)
    w.writerow(("sdk", "setting", "value"))
    budget = exact(report.max_budget_usd)
    for row in (
        ("claude_agent_sdk", "max_turns", str(report.claude_max_turns)),
        ("claude_agent_sdk", "max_budget_usd", budget),
        ("openai_agents_sdk", "max_turns", str(report.openai_max_turns)),
        ("langgraph", "recursion_limit", str(report.langgraph_recursion_limit)),
        ("any", "max_tokens", str(report.max_tokens)),
    ):
        w.writerow(row)
    return buf.getvalue()


def caps_dict(report: CapsReport) -> CapsJson:
    r, e = report.runs, report.estimate
    return {
        "scenario": e.scenario_path,
        "name": e.scenario_name,
        "model": e.model,
        "as_of": e.as_of,
        "prices": plain(e.price_name),
        "percentile": r.label,
        "runs": r.runs,
        "seed": r.seed,
        "engine": r.engine,
        "margin_percent": exact(r.margin),
        "max_turns": report.max_turns,
        "max_budget_usd": exact(report.max_budget_usd),
        "max_tokens": report.max_tokens,
        "at": {
            "requests": r.requests,
            "cost_usd": exact(r.cost_usd),
            "largest_output_tokens": r.largest_output,
        },
        "sdk": {
            "claude_agent_sdk": {
                "max_turns": report.claude_max_turns,
                "max_budget_usd": exact(report.max_budget_usd),
            },
            "openai_agents_sdk": {"max_turns": report.openai_max_turns, "max_tokens": report.max_tokens},
            "langgraph": {"recursion_limit": report.langgraph_recursion_limit},
        },
        "beyond": {
            "turns": r.beyond_turns,
            "budget": r.beyond_budget,
            "max_tokens": r.beyond_tokens,
            "any": r.beyond_any,
            "any_share": fmt.exact_places(report.beyond_any_share, 6),
        },
        "notes": list(report.notes()),
        "sources": [{"what": what, "url": url} for what, url in SOURCES],
        "sources_read": READ,
    }


RENDERERS = (
    CapsReport,
    Renderers(
        kind="caps",
        body=caps_dict,
        rich=render_caps_table,
        markdown=render_caps_markdown,
        csv=render_caps_csv,
        total=lambda r: r.max_budget_usd,
        chart=None,
    ),
)
