"""The estimate report with a Simulation section (``agentcost estimate --simulate N``): the runs'
percentiles, the shares that hit a limit, a histogram of cost and the sensitivity list, in the table,
Markdown, CSV and JSON formats. No arithmetic: every figure, the shares of runs included, is a field
or a property of :class:`~agentcost.loop.simulate.Simulation`; the one computation left here is
layout, a histogram bar's length in characters (:func:`bar_length`) from the report's exact bar
height and the width the bars have.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.text import Text

from agentcost.infra.text import markdown_code, plain, rich
from agentcost.render.fit import Col, FitTable
from agentcost.render.output import with_section
from agentcost.report import fmt
from agentcost.report.schemagen import one_of
from agentcost.report.sections import SimulatedReport, Simulation, Stat
from agentcost.report.sections_json import ENGINES

if TYPE_CHECKING:  # the JSON's one definition (report/sections_json.py), also its JSON Schema
    from typing import TypedDict

    from agentcost.report.sections_json import SimulationJson, StatCountJson, StatUsdJson, TasksJson

    class _TasksPart(TypedDict, total=False):  # SimulationJson's tasks, in its place among the keys
        tasks: TasksJson


MINUS = "\N{MINUS SIGN}"
BAR = 40  # characters of the longest histogram bar
SHARE_PLACES = 4  # decimals of a share in JSON
MEAN_PLACES = 2  # decimals of a count's mean in JSON and CSV


# --- text shared by the formats ----------------------------------------------------------------------


def headline(s: Simulation) -> str:
    engine = s.engine + (f", {s.engine_note}" if s.engine_note else "")
    return f"Simulation: {s.runs:,} runs, seed {s.seed} ({engine} engine)"


def limit_lines(s: Simulation) -> list[str]:
    lines = [f"at the medians (the estimate above): {fmt.usd(s.deterministic_usd)}"]
    if s.max_rounds is not None:
        share = fmt.percent(s.hit_max_rounds_share)
        lines.append(f"hit max_rounds ({s.max_rounds}): {s.hit_max_rounds:,} runs ({share})")
    if s.stopped_by_budget:
        share = fmt.percent(s.stopped_by_budget_share)
        lines.append(f"stopped by max_budget_usd: {s.stopped_by_budget:,} runs ({share})")
    if s.over_budget is not None and s.budget_usd is not None:
        share = fmt.percent(s.over_budget_share)
        lines.append(f"over budget ({fmt.usd(s.budget_usd)}): {s.over_budget:,} runs ({share})")
    for label, value in s.percentile_usd:
        lines.append(f"cost at {label}: {fmt.usd(value)}")
    if s.tasks is not None:  # the scenario's outcome: cost per task is per completed task
        t = s.tasks
        lines.append(
            f"completed their task: {t.completed:,} runs ({fmt.percent(s.completed_share)}),"
            f" mean success {fmt.exact(t.success_mean)}"
        )
        lines.append("cost per task: each completed task with the failed runs before it")
    return lines


def _stat_cells(stat: Stat, kind: str) -> list[str]:
    if kind == "usd":
        return [fmt.usd(v) for v in (stat.mean, stat.p50, stat.p90, stat.p99, stat.max)]
    return [
        fmt.mean_count(stat.mean),
        *(fmt.tokens(int(v)) for v in (stat.p50, stat.p90, stat.p99, stat.max)),
    ]


def stat_rows(s: Simulation) -> list[tuple[str, list[str]]]:
    return [
        ("cost", _stat_cells(s.cost, "usd")),
        ("requests", _stat_cells(s.requests, "int")),
        ("input tokens", _stat_cells(s.input_tokens, "int")),
        *([("cost per task", _stat_cells(s.tasks.cost, "usd"))] if s.tasks and s.tasks.cost else []),
    ]


_STAT_HEADERS = ("mean", "p50", "p90", "p99", "max")


def bar_length(height: Fraction, longest: int) -> int:
    """Layout, not a figure: the characters of a bar ``height`` high (:attr:`Bin.height
    <agentcost.loop.simulate.Bin.height>`, the fullest bin's 1) when the longest bar has ``longest``,
    rounded half to even. The height is exact, so a bar is never a character off by a quotient's last
    digit."""
    return round(longest * height)


def histogram_lines(s: Simulation, width: int | None = None) -> list[str]:
    """One line per bin: its range, a bar and its runs. The longest bar is :data:`BAR` characters,
    or less when ``width`` (a terminal's) has no room for it (never under 10)."""
    edges = fmt.usd_series([e for b in s.histogram for e in (b.low_usd, b.high_usd)])
    lows = [("> " if b.beyond_p99 else "") + low for b, low in zip(s.histogram, edges[::2], strict=True)]
    highs = edges[1::2]
    left, right = max(map(len, lows)), max(map(len, highs))
    bar_max = BAR
    if width is not None:
        rest = max(len(f" {b.runs:,}" + (" (beyond p99)" if b.beyond_p99 else "")) for b in s.histogram)
        bar_max = max(10, min(BAR, width - (left + 3 + right + 1) - rest))
    lines = []
    for b, low, high in zip(s.histogram, lows, highs, strict=True):
        bar = "█" * bar_length(b.height, bar_max)
        if b.runs and not bar:
            bar = "▏"
        note = " (beyond p99)" if b.beyond_p99 else ""
        lines.append(f"{low:>{left}} {MINUS} {high:<{right}} {bar} {b.runs:,}{note}".rstrip())
    return lines


class _Histogram:
    """The histogram's lines drawn for the width they are printed at (bars shortened to fit)."""

    def __init__(self, s: Simulation) -> None:
        self.s = s

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield Text("\n".join(histogram_lines(self.s, options.max_width)))


def sensitivity_lines(s: Simulation) -> list[str]:
    out = []
    at = s.sensitivity_at
    for n, x in enumerate(s.sensitivity, 1):
        line = f" (line {x.input.line})" if x.input.line else ""
        change = f"{MINUS}{fmt.usd(x.drop_usd)}" if x.drop_usd >= 0 else f"+{fmt.usd(abs(x.drop_usd))}"
        out.append(
            f"{n}. {x.input.where}{line}, {x.input.text}: {at} {fmt.usd(x.cost_usd)} when held at "
            f"{x.input.median:,} ({change})"
        )
    return out


def sensitivity_title(s: Simulation) -> str:
    """``Which input moves p90 cost most (...)``: the statistic the list reads, ``--at``'s when given
    (the one the budget is judged at)."""
    return f"Which input moves {s.sensitivity_at} cost most (each held at its median in turn)"


# --- renderers ---------------------------------------------------------------------------------------


def render_simulation_rich(s: Simulation) -> RenderableType:
    parts: list[RenderableType] = []
    # p50 and p90 are the answer; a narrow terminal drops max first, then mean, then p99
    drops = {"mean": 2, "p99": 1, "max": 3}
    stats = FitTable(
        [Col("per run", justify="left", text=True, min_width=8)]
        + [Col(h, drop=drops.get(h, 0)) for h in _STAT_HEADERS],
        [[name, *cells] for name, cells in stat_rows(s)],
        title=Text(headline(s), style="table.title"),
    )
    parts.append(stats)
    parts.append(Text("\n".join(limit_lines(s))))
    inputs = FitTable(
        [
            Col("where", justify="left", text=True, min_width=8),
            Col("line", drop=1),
            Col("distribution", justify="left", text=True),
            Col("median"),
        ],
        [
            [rich(i.where), "" if i.line is None else str(i.line), rich(i.text), f"{i.median:,}"]
            for i in s.inputs
        ],
        title=Text("Uncertain inputs", style="table.title"),
    )
    parts.append(inputs)
    parts.append(Text("Cost per run", style="bold"))
    parts.append(_Histogram(s))
    if s.sensitivity:
        parts.append(Text(sensitivity_title(s), style="bold"))
        parts.append(Text("\n".join(map(plain, sensitivity_lines(s)))))
    return Group(*parts)


def render_simulation_markdown(s: Simulation) -> str:
    lines = [f"##### {headline(s)}", ""]
    lines.append("| per run | " + " | ".join(_STAT_HEADERS) + " |")
    lines.append("|---|" + "---:|" * len(_STAT_HEADERS))
    lines += [f"| {name} | " + " | ".join(cells) + " |" for name, cells in stat_rows(s)]
    lines.append("")
    lines += [f"- {line}" for line in limit_lines(s)]
    lines += ["", "Uncertain inputs:", ""]
    lines += [
        f"- {markdown_code(i.where)}"
        + (f" (line {i.line})" if i.line else "")
        + f": {i.text}, median {i.median:,}"
        for i in s.inputs
    ]
    lines += ["", "Cost per run:", "", "```text", *histogram_lines(s), "```"]
    if s.sensitivity:
        lines += ["", sensitivity_title(s) + ":", "", *sensitivity_lines(s)]
    return "\n".join(lines) + "\n"


def stat_usd_dict(stat: Stat) -> StatUsdJson:
    """A cost's statistics: exact dollars, the mean rounded to 10 places."""
    return {
        "mean": fmt.exact_places(stat.mean, 10),
        "p50": fmt.exact(stat.p50),
        "p90": fmt.exact(stat.p90),
        "p99": fmt.exact(stat.p99),
        "min": fmt.exact(stat.min),
        "max": fmt.exact(stat.max),
    }


def stat_count_dict(stat: Stat) -> StatCountJson:
    """A count's statistics: integers, the mean rounded to 2 places."""
    return {
        "mean": fmt.exact_places(stat.mean, MEAN_PLACES),
        "p50": int(stat.p50),
        "p90": int(stat.p90),
        "p99": int(stat.p99),
        "min": int(stat.min),
        "max": int(stat.max),
    }


def _tasks_part(s: Simulation) -> _TasksPart:
    """``tasks``, only with the scenario's outcome: runs completed and the cost per completed task."""
    t = s.tasks
    if t is None:
        return {}
    cost = None if t.cost is None else stat_usd_dict(t.cost)
    return {
        "tasks": {
            "completed_runs": t.completed,
            "success_mean": fmt.exact(t.success_mean),
            "cost_per_completed_task_usd": cost,
        }
    }


def simulation_dict(s: Simulation) -> SimulationJson:
    return {
        "runs": s.runs,
        "seed": s.seed,
        "engine": one_of(ENGINES, s.engine, "simulation engine"),
        "engine_note": s.engine_note,
        "deterministic_usd": fmt.exact(s.deterministic_usd),
        "cost_usd": stat_usd_dict(s.cost),
        "requests": stat_count_dict(s.requests),
        "input_tokens": stat_count_dict(s.input_tokens),
        "percentiles_usd": {label: fmt.exact(v) for label, v in s.percentile_usd},
        **_tasks_part(s),
        "max_rounds": s.max_rounds,
        "hit_max_rounds_runs": s.hit_max_rounds,
        "stopped_by_budget_runs": s.stopped_by_budget,
        "budget_usd": None if s.budget_usd is None else fmt.exact(s.budget_usd),
        "over_budget_runs": s.over_budget,
        "overrun_probability": (
            None if s.over_budget_share is None else fmt.exact_places(s.over_budget_share, SHARE_PLACES)
        ),
        "inputs": [
            {"where": i.where, "line": i.line, "distribution": i.text, "median": i.median} for i in s.inputs
        ],
        "histogram": [
            {
                "low_usd": fmt.exact(b.low_usd),
                "high_usd": fmt.exact(b.high_usd),
                "runs": b.runs,
                "beyond_p99": b.beyond_p99,
            }
            for b in s.histogram
        ],
        "sensitivity_at": s.sensitivity_at,
        "sensitivity": [
            {"where": x.input.where, "cost_usd": fmt.exact(x.cost_usd), "drop_usd": fmt.exact(x.drop_usd)}
            for x in s.sensitivity
        ],
    }


def _csv(r: SimulatedReport) -> str:
    """The per-run statistics: one row per quantity."""
    s = r.simulation
    rows = ["quantity,mean,p50,p90,p99,min,max"]
    for name, stat, usd in (
        ("cost_usd", s.cost, True),
        ("requests", s.requests, False),
        ("input_tokens", s.input_tokens, False),
    ):
        d: dict[str, object] = dict(stat_usd_dict(stat) if usd else stat_count_dict(stat))
        rows.append(",".join([name, *(str(d[k]) for k in ("mean", "p50", "p90", "p99", "min", "max"))]))
    return "\n".join(rows) + "\n"


def _svg(r: SimulatedReport) -> str:
    """``--format svg``: the histogram of the runs' cost with its percentiles, then the estimate's chart."""
    from agentcost.render.svg import simulated_svg

    return simulated_svg(r)


RENDERERS = (
    SimulatedReport,
    with_section(
        lambda r: r.report,
        "simulation",
        lambda r: r.simulation,
        lambda s: dict(simulation_dict(s)),
        render_simulation_rich,
        render_simulation_markdown,
        csv=_csv,
        total=lambda r: r.total_usd,
        svg=_svg,
    ),
)
