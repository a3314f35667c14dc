"""CompareReport (one scenario, several models) -> Rich table, Markdown, CSV and the JSON body.

No arithmetic here: every figure is derived in ``agentcost.commands.compare``; numbers become text only
through ``fmt``. Registered with ``agentcost.render.output`` through ``RENDERERS``; the JSON body is
built as :class:`agentcost.report.compare_json.CompareJson`, from which its schema is generated.
``--quiet`` prints the cheapest model's total.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.text import Text

from agentcost.infra.text import CsvWriter, display_name, markdown_code, plain, rich
from agentcost.infra.text import markdown as escape_md
from agentcost.render.fit import SECTION, Cell, Col, FitTable, wrap_id
from agentcost.render.jsonfmt import report_dict
from agentcost.render.output import Renderers
from agentcost.report import fmt
from agentcost.report.batch_json import PERS
from agentcost.report.compare import CompareReport, CompareRow, UnfitRow
from agentcost.report.estimate_json import CACHING_MODES
from agentcost.report.fmt import exact
from agentcost.report.schemagen import one_of

if TYPE_CHECKING:  # the JSON's one definition (report/compare_json.py), also its JSON Schema
    from agentcost.report.compare_json import CompareJson

FITS, OVER = "✓", "OVER"  # the context-window verdict beside the window in the table
UNFIT = "unfit"  # in the cost column of a model the scenario cannot run on


def _ratio(row: CompareRow) -> str:
    """``3.42×``, ``1.00×``: the 2 places the ratio was rounded to (fmt has no such helper yet)."""
    return fmt.ratio(row.ratio_to_cheapest)


def _title(report: CompareReport) -> str:
    return report.scenario_name or report.scenario_path


def _requests(report: CompareReport) -> str:
    counts = sorted({r.requests for r in report.rows})
    return " or ".join(str(n) for n in counts)


def _summary(report: CompareReport, *, markdown: bool = False) -> str:
    cheapest = report.cheapest
    code = markdown_code if markdown else plain
    name = escape_md if markdown else plain
    bold = "**" if markdown else ""
    compared = " compared" if report.unfit else ""
    which = f"Cheapest of {len(report.rows)} models" if len(report.rows) > 1 else "The one model"
    text = (
        f"{which}{compared}: {bold}{code(display_name(cheapest.model))}{bold}"
        f" ({name(cheapest.provider)}) at {bold}{fmt.usd(cheapest.cost_usd)}{bold} {report.unit_text}"
        f" of {_requests(report)} requests"
    )
    priciest = report.rows[-1]
    if len(report.rows) > 1 and priciest.ratio_to_cheapest is not None:
        text += (
            f"; the most expensive, {code(display_name(priciest.model))}, costs {_ratio(priciest)} as much"
        )
    return text + "."


def _unfit_lines(report: CompareReport) -> list[str]:
    """A line per model the scenario cannot run on: why, and what it offers instead."""
    lines = []
    for u in report.unfit:  # the reason names the model's id; the id as typed first when it differs
        named = u.reason if u.reason.startswith(f"{u.model} ") else f"{u.model}: {u.reason}"
        lines.append(named + (f" ({u.hint})" if u.hint else "") + "; not compared.")
    return lines


# --------------------------------------------------------------------------------------------
# Rich
# --------------------------------------------------------------------------------------------


def _window(row: CompareRow) -> Text:
    """The context window with its verdict on the same line: ``400,000 ✓``, ``200,000 OVER``."""
    window = Text(fmt.tokens(row.context_window))
    if row.fits_context is True:
        window.append(f" {FITS}", style="green")
    elif row.fits_context is False:
        window.append(f" {OVER}", style="bold red")
    return window


def _versus_budget(row: CompareRow) -> Text:
    """The row's budget verdict, then its cost minus the budget: ``OVER`` / ``+$0.0672``,
    ``within`` / ``-$0.0231``; ``-`` without a budget."""
    if row.budget is None or row.over_by_usd is None:
        return Text("-")
    if row.budget.over:
        return Text.assemble((OVER, "bold red"), "\n", fmt.signed_usd(row.over_by_usd))
    return Text.assemble(("within", "green"), "\n", fmt.signed_usd(row.over_by_usd))


def _model_cell(row: CompareRow | UnfitRow, width: int | None, cheapest: bool = False) -> Text:
    """The id as typed (bold for the cheapest), then the price row it resolved to when that reads
    differently (``priced as x-ai/grok-4-0709``), else its provider; each wrapped to ``width``
    between separators, never inside a word."""
    model = Text(wrap_id(plain(display_name(row.model)), width), style="bold" if cheapest else "")
    if isinstance(row, UnfitRow):
        under = "priced as " + row.price_row if row.renamed and row.price_row is not None else None
        if under is None and row.price_row is not None:
            under = row.price_row.split("/", 1)[0]
    else:
        under = "priced as " + row.price_row if row.renamed else row.provider
    if under is not None:
        model.append("\n" + wrap_id(plain(display_name(under)), width), style="dim")
    if cheapest:
        model.append(" · cheapest", style="bold green")
    return model


def render_compare_table(report: CompareReport, *, verbose: bool = False) -> RenderableType:
    """A row per model as typed, cheapest first, laid out for the width it is printed at
    (render.fit): the model, its total and its verdicts (budget; context window when a model does
    not fit) always shown, token columns dropped first, then the ratio and (with a budget) the cost
    per request; the
    models the scenario cannot run on last, marked ``unfit``. The request count is the same for
    every model, so it is stated once below the table rather than in a column. With a budget, its
    verdict comes first and a column judges each model. Below the table: the answer, the price
    source and what marks mean; ``verbose`` adds how each column is derived and each model's
    caching."""
    title = rich(f"{_title(report)} · {_models_count(report)}", "table.title")
    parts: list[RenderableType] = []
    verdict = _budget_verdict(report)
    if verdict is not None:
        parts.append(Text(plain(verdict), style="bold red" if report.over_budget else "bold"))
    parts.append(_IdsWhole(lambda width: _table(report, width, title)))
    parts.append(_assumptions(report, verbose=verbose))
    return Group(*parts)


def _models_count(report: CompareReport) -> str:
    n = len(report.rows) + len(report.unfit)
    text = f"{n} model{'' if n == 1 else 's'}"
    return text + (f", {len(report.unfit)} unfit" if report.unfit else "")


def _table(report: CompareReport, width: int | None, title: Text) -> FitTable:
    """The table with its ids wrapped to ``width`` (None: unwrapped)."""
    over = any(r.fits_context is False for r in report.rows)
    budget = report.budget_usd is not None
    columns = [
        Col("model", justify="left", text=True, min_width=12),
        Col("input", drop=3),
        Col("cached", drop=5),
        Col("output", drop=4),
        Col(report.cost_header),
        Col("per request", drop=1 if budget else 0),  # total / requests: before the verdicts go
        Col("vs cheapest", drop=1),
    ]
    if budget:
        columns.append(Col("vs budget"))
    columns.append(Col("context window", drop=0 if over else 2))
    rows: list[list[Cell] | None] = []
    for r in report.rows:
        star = "*" if r.approximate else ""
        cells: list[Cell] = [
            _model_cell(r, width, r.cheapest),
            fmt.tokens(r.input_tokens) + star,
            fmt.percent(r.cached_share),
            fmt.tokens(r.output_tokens) + star,
            Text(fmt.usd(r.cost_usd), style="bold" if r.cheapest else ""),
            fmt.usd(r.cost_per_request_usd),
            _ratio(r),
        ]
        if budget:
            cells.append(_versus_budget(r))
        cells.append(_window(r))
        rows.append(cells)
    if report.unfit:
        rows.append(SECTION)
    for u in report.unfit:
        unknown: list[Cell] = ["-"] * (len(columns) - 1)
        unknown[3] = Text(UNFIT, style="bold red")  # in the cost column: the row's verdict
        rows.append([_model_cell(u, width), *unknown])
    return FitTable(columns, rows, title=title)


class _IdsWhole:
    """The table laid out for the width it is printed at, its ids wrapped between separators to
    the model column's width: an id is never split inside a word (issue 30)."""

    def __init__(self, build: Callable[[int | None], FitTable]) -> None:
        self.build = build

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        table = self.build(None)
        for _ in range(4):  # a narrower model column may let a column back in: wrap again
            plan = table.plan(options.max_width)
            if plan is None:  # stacked: each value beside its header ("context window" and 2 spaces)
                width = max(12, options.max_width - 16)
            elif 0 in plan.columns:
                width = plan.widths[plan.columns.index(0)]
            else:
                break
            if all(_width_of(row[0]) <= width for row in table.rows if row is not None):
                break
            table = self.build(width)
        yield table


def _width_of(cell: Cell) -> int:
    text = cell.plain if isinstance(cell, Text) else cell
    return max((cell_len(line) for line in text.split("\n")), default=0)


def _few(names: list[str], shown: int = 4) -> str:
    """``a, b, c, d, and 3 more``: the first few of ``names``."""
    if len(names) <= shown + 1:
        return ", ".join(names)
    return ", ".join(names[:shown]) + f" and {len(names) - shown} more"


def _budget_verdict(report: CompareReport) -> str | None:
    """The line printed first when there is a budget, the verdict the exit code carries:
    ``OVER budget $0.1000 per run (limits.budget_usd): 2 of 5 models (claude-opus-4-1, grok-4).``"""
    if report.budget_usd is None:
        return None
    what = f"budget {fmt.usd(report.budget_usd)} {report.unit_text} ({report.budget_source})"
    over = report.over_budget
    n = len(report.rows)
    if over:
        names = _few([display_name(r.model) for r in over])
        return f"OVER {what}: {len(over)} of {n} model{'' if n == 1 else 's'} ({names})."
    models = {1: "the one model", 2: "both models"}.get(n, f"all {n} models")
    return f"Within {what}: {models} compared."


def _counters(report: CompareReport) -> str:
    """``Counters: o200k_base (gpt-5), o200k_base × ratio (claude-sonnet-4-5)``: what each model's
    tokens were counted with (issue 29), models sharing a counter named together."""
    models: dict[str, list[str]] = {}
    for r in report.rows:
        models.setdefault(r.encoding, []).append(display_name(r.model))
    if len(models) == 1:
        return f"Counter: {next(iter(models))}"
    return "Counters: " + ", ".join(f"{c} ({', '.join(m)})" for c, m in models.items())


def _assumptions(report: CompareReport, *, verbose: bool = False) -> Text:
    lines = [_summary(report)]
    lines.extend(f"{UNFIT.capitalize()}: {line}" for line in _unfit_lines(report))
    if any(r.fits_context is False for r in report.rows):
        lines.append(f"{OVER}: a request does not fit the model's context window; it cannot run as is.")
    if verbose:
        budget = "; vs budget = total - the budget" if report.budget_usd is not None else ""
        lines.append(
            f"Scenario: {report.scenario_path}. Per request = total / requests; vs cheapest = total /"
            f" the cheapest total{budget}; context window: {FITS} when every request fits."
        )
        modes: dict[str, list[str]] = {}
        for r in report.rows:
            modes.setdefault(r.caching_mode, []).append(display_name(r.model))
        lines.append(
            "Caching: " + "; ".join(f"{mode} for {', '.join(models)}" for mode, models in modes.items()) + "."
        )
    details = "" if verbose else " Details: --verbose."
    lines.append(
        f"Prices: {report.price_sources}, in force on {report.as_of[:10]}. {_counters(report)}.{details}"
    )
    approximate = [display_name(r.model) for r in report.rows if r.approximate]
    if approximate:
        lines.append(
            f"Token counts marked * are approximate ({', '.join(approximate)})"
            + ("; each distinct text was tokenized once per encoding." if verbose else ".")
        )
    lines.extend(report.notes)
    lines.extend(f"Warning: {w}" for w in report.warnings)
    return Text("\n".join(map(plain, lines)))  # names from files in them: one line each, shown escaped


# --------------------------------------------------------------------------------------------
# Markdown
# --------------------------------------------------------------------------------------------


def render_compare_markdown(report: CompareReport) -> str:
    budget = report.budget_usd is not None
    verdict = _budget_verdict(report)
    lines = [f"#### agentcost compare: {escape_md(_title(report))}", ""]
    if verdict is not None:  # first: the verdict the exit code carries
        lines += [f"**{escape_md(verdict)}**", ""]
    lines += [
        _summary(report, markdown=True),
        "",
        f"| model | priced as | requests | input | cached | output | {report.cost_header} | per request"
        " | vs cheapest |" + (" vs budget |" if budget else "") + " context window | fits |",
        "|---|---|--:|--:|--:|--:|--:|--:|--:|" + ("--:|" if budget else "") + "--:|:-:|",
    ]
    for r in report.rows:
        star = "\\*" if r.approximate else ""
        model = markdown_code(display_name(r.model), table=True)
        model = f"**{model}** (cheapest)" if r.cheapest else model
        total = f"**{fmt.usd(r.cost_usd)}**" if r.cheapest else fmt.usd(r.cost_usd)
        fits = {None: "-", True: "yes", False: "**no**"}[r.fits_context]
        cells = [
            model,
            markdown_code(display_name(r.price_row), table=True),
            str(r.requests),
            fmt.tokens(r.input_tokens) + star,
            fmt.percent(r.cached_share),
            fmt.tokens(r.output_tokens) + star,
            total,
            fmt.usd(r.cost_per_request_usd),
            _ratio(r),
        ]
        if budget:
            cells.append(_budget_markdown(r))
        cells += [fmt.tokens(r.context_window), fits]
        lines.append("| " + " | ".join(cells) + " |")
    for u in report.unfit:
        row = "-" if u.price_row is None else markdown_code(display_name(u.price_row), table=True)
        unknown = ["-"] * (10 if budget else 9)
        unknown[4] = f"**{UNFIT}**"  # the cost column
        lines.append(
            "| " + " | ".join([markdown_code(display_name(u.model), table=True), row, *unknown]) + " |"
        )
    lines.append("")
    for line in _unfit_lines(report):
        lines.append(f"- **{UNFIT}**: {escape_md(line)}")
    if report.unfit:
        lines.append("")
    notes = [
        f"Scenario {markdown_code(report.scenario_path)}",
        f"prices: {escape_md(report.price_sources)}, in force on {report.as_of[:10]}",
        escape_md(_counters(report).lower()),
    ]
    if report.approximate:
        notes.append("\\* approximate token counts")
    lines.append("<sub>" + "; ".join(notes) + ".</sub>")
    lines.extend(f"\n{escape_md(n)}" for n in report.notes)
    for w in report.warnings:
        lines.append(f"> [!WARNING]\n> {escape_md(w)}")
    return "\n".join(lines) + "\n"


def _budget_markdown(row: CompareRow) -> str:
    """``**over** +$0.0672``, ``within -$0.0231``: the verdict and the cost minus the budget."""
    if row.budget is None or row.over_by_usd is None:
        return "-"
    word = "**over**" if row.budget.over else "within"
    return f"{word} {fmt.signed_usd(row.over_by_usd)}"


# --------------------------------------------------------------------------------------------
# CSV
# --------------------------------------------------------------------------------------------

CSV_COLUMNS = (
    "scenario",
    "model",
    "provider",
    "requests",
    "input_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "output_tokens",
    "cost_usd",
    "cost_per_request_usd",
    "ratio_to_cheapest",
    "cheapest",
    "context_window",
    "max_input_tokens",
    "fits_context",
    "approximate",
    "model_ref",
    "budget_usd",
    "over_budget",
)


def render_compare_csv(report: CompareReport) -> str:
    """A row per model compared, cheapest first; unknown values are empty cells. ``model`` is the
    price row's id, ``model_ref`` the name as typed; models the scenario cannot run on are left out
    (the JSON lists them under ``unfit``)."""
    out = io.StringIO()
    writer = CsvWriter(out)
    writer.writerow(CSV_COLUMNS)
    for r in report.rows:
        writer.writerow(
            (
                report.scenario_path,
                r.model_id,
                r.provider,
                r.requests,
                r.input_tokens,
                r.cache_read_tokens,
                r.cache_write_tokens,
                r.output_tokens,
                exact(r.cost_usd),
                exact(r.cost_per_request_usd),
                "" if r.ratio_to_cheapest is None else exact(r.ratio_to_cheapest),
                fmt.csv_bool(r.cheapest),
                "" if r.context_window is None else r.context_window,
                r.max_input_tokens,
                fmt.csv_bool(r.fits_context),
                fmt.csv_bool(r.approximate),
                r.model,
                "" if r.budget is None else exact(r.budget.limit_usd),
                fmt.csv_bool(None if r.budget is None else r.budget.over),
            )
        )
    return out.getvalue()


# --------------------------------------------------------------------------------------------
# JSON
# --------------------------------------------------------------------------------------------


def compare_dict(report: CompareReport) -> CompareJson:
    """The JSON fields of kind ``compare`` (the envelope adds version, kind and gates)."""
    cheapest = report.cheapest
    return {
        "scenario": {"path": report.scenario_path, "name": report.scenario_name},
        "per": one_of(PERS, report.per, "per"),
        "models": [
            {
                "model": r.model_id,
                "model_ref": r.model,
                "provider": r.provider,
                "requests": r.requests,
                "input_tokens": r.input_tokens,
                "cache_read_tokens": r.cache_read_tokens,
                "cache_write_tokens": r.cache_write_tokens,
                "output_tokens": r.output_tokens,
                "cached_share": None if r.cached_share is None else exact(r.cached_share),
                "cost_usd": exact(r.cost_usd),
                "cost_per_run_usd": exact(r.cost_per_run_usd),
                "cost_per_completed_task_usd": exact(r.cost_per_task_usd),
                "cost_per_request_usd": exact(r.cost_per_request_usd),
                "ratio_to_cheapest": None if r.ratio_to_cheapest is None else exact(r.ratio_to_cheapest),
                "cheapest": r.cheapest,
                "context_window": r.context_window,
                "max_input_tokens": r.max_input_tokens,
                "fits_context": r.fits_context,
                "approximate": r.approximate,
                "counter": r.encoding,
                "encoding": r.encoding,
                "caching_mode": one_of(CACHING_MODES, r.caching_mode, "caching mode"),
                "price_row": r.price_row,
                "budget": None
                if r.budget is None
                else {
                    "limit_usd": exact(r.budget.limit_usd),
                    "source": r.budget.source,
                    "over": r.budget.over,
                    "headroom_usd": exact(r.budget.headroom_usd),
                },
            }
            for r in report.rows
        ],
        "over_budget": [r.model for r in report.over_budget],
        "unfit": [
            {
                "model_ref": u.model,
                "price_row": u.price_row,
                "reason": u.reason,
                "hint": u.hint,
                "file": u.file,
                "line": u.line,
            }
            for u in report.unfit
        ],
        "cheapest": {
            "model": cheapest.model_id,
            "provider": cheapest.provider,
            "cost_usd": exact(cheapest.cost_usd),
        },
        "prices": {
            "source": report.price_source,
            "version": report.price_version,
            "as_of": report.as_of,
            "label": report.price_label,
        },
        "approximate": report.approximate,
        "notes": list(report.notes),
        "warnings": list(report.warnings),
        "estimates": [report_dict(r.report) for r in report.rows],
    }


RENDERERS = (
    CompareReport,
    Renderers(
        kind="compare",
        body=compare_dict,
        rich=render_compare_table,
        verbose=lambda r: render_compare_table(r, verbose=True),
        markdown=render_compare_markdown,
        csv=render_compare_csv,
        total=lambda r: r.cheapest.cost_usd,
        chart=None,
    ),
)
