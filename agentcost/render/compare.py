"""CompareReport (one scenario, several models) -> Rich table, Markdown, CSV and the JSON body.

No arithmetic here: every figure is derived in ``agentcost.commands.compare``; numbers become text only
through ``fmt``. Registered with ``agentcost.render.output`` through ``RENDERERS``; the JSON body is
built as :class:`agentcost.report.compare_json.CompareJson`, from which its schema is generated.
``--quiet`` prints the cheapest model's total.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.text import Text

from agentcost.infra.text import CsvWriter, display_name, markdown_code, plain, rich
from agentcost.infra.text import markdown as escape_md
from agentcost.render.fit import Col, FitTable
from agentcost.render.jsonfmt import report_dict
from agentcost.render.output import Renderers
from agentcost.report import fmt
from agentcost.report.batch_json import PERS
from agentcost.report.compare import CompareReport, CompareRow
from agentcost.report.estimate_json import CACHING_MODES
from agentcost.report.fmt import exact
from agentcost.report.schemagen import one_of

if TYPE_CHECKING:  # the JSON's one definition (report/compare_json.py), also its JSON Schema
    from agentcost.report.compare_json import CompareJson

FITS, OVER = "✓", "OVER"  # the context-window verdict beside the window in the table


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
    text = (
        f"Cheapest of {len(report.rows)} models: {bold}{code(cheapest.model_id)}{bold}"
        f" ({name(cheapest.provider)}) at {bold}{fmt.usd(cheapest.cost_usd)}{bold} {report.unit_text}"
        f" of {_requests(report)} requests"
    )
    priciest = report.rows[-1]
    if len(report.rows) > 1 and priciest.ratio_to_cheapest is not None:
        text += f"; the most expensive, {code(priciest.model_id)}, costs {_ratio(priciest)} as much"
    return text + "."


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


def render_compare_table(report: CompareReport, *, verbose: bool = False) -> RenderableType:
    """A row per model, cheapest first, laid out for the width it is printed at (render.fit): the
    model and every dollar figure always shown, token columns dropped first. The request count is
    the same for every model, so it is stated once below the table rather than in a column. Below
    it: the answer, the price source and what marks mean; ``verbose`` adds how each column is
    derived and each model's caching."""
    over = any(r.fits_context is False for r in report.rows)
    columns = (
        Col("model", justify="left", text=True, min_width=12),
        Col("input", drop=3),
        Col("cached", drop=5),
        Col("output", drop=4),
        Col(report.cost_header),
        Col("per request"),
        Col("vs cheapest", drop=1),
        Col("context window", drop=0 if over else 2),
    )
    rows = []
    for r in report.rows:
        star = "*" if r.approximate else ""
        model = Text(plain(display_name(r.model_id)), style="bold" if r.cheapest else "")
        model.append(f"\n{plain(r.provider)}", style="dim")
        if r.cheapest:
            model.append(" · cheapest", style="bold green")
        rows.append(
            (
                model,
                fmt.tokens(r.input_tokens) + star,
                fmt.percent(r.cached_share),
                fmt.tokens(r.output_tokens) + star,
                Text(fmt.usd(r.cost_usd), style="bold" if r.cheapest else ""),
                fmt.usd(r.cost_per_request_usd),
                _ratio(r),
                _window(r),
            )
        )
    title = rich(f"{_title(report)} · {len(report.rows)} models", "table.title")
    return Group(FitTable(columns, rows, title=title), _assumptions(report, verbose=verbose))


def _counters(report: CompareReport) -> str:
    """``Counters: o200k_base (gpt-5), o200k_base × ratio (claude-sonnet-4-5)``: what each model's
    tokens were counted with (issue 29), models sharing a counter named together."""
    models: dict[str, list[str]] = {}
    for r in report.rows:
        models.setdefault(r.encoding, []).append(r.model_id)
    if len(models) == 1:
        return f"Counter: {next(iter(models))}"
    return "Counters: " + ", ".join(f"{c} ({', '.join(m)})" for c, m in models.items())


def _assumptions(report: CompareReport, *, verbose: bool = False) -> Text:
    lines = [_summary(report)]
    if any(r.fits_context is False for r in report.rows):
        lines.append(f"{OVER}: a request does not fit the model's context window; it cannot run as is.")
    if verbose:
        lines.append(
            f"Scenario: {report.scenario_path}. Per request = total / requests; vs cheapest = total /"
            f" the cheapest total; context window: {FITS} when every request fits."
        )
        modes: dict[str, list[str]] = {}
        for r in report.rows:
            modes.setdefault(r.caching_mode, []).append(r.model_id)
        lines.append(
            "Caching: " + "; ".join(f"{mode} for {', '.join(models)}" for mode, models in modes.items()) + "."
        )
    details = "" if verbose else " Details: --verbose."
    lines.append(
        f"Prices: {report.price_sources}, in force on {report.as_of[:10]}. {_counters(report)}.{details}"
    )
    approximate = [r.model_id for r in report.rows if r.approximate]
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
    lines = [
        f"#### agentcost compare: {escape_md(_title(report))}",
        "",
        _summary(report, markdown=True),
        "",
        f"| model | provider | requests | input | cached | output | {report.cost_header} | per request"
        " | vs cheapest | context window | fits |",
        "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|:-:|",
    ]
    for r in report.rows:
        star = "\\*" if r.approximate else ""
        model = markdown_code(r.model_id, table=True)
        model = f"**{model}** (cheapest)" if r.cheapest else model
        total = f"**{fmt.usd(r.cost_usd)}**" if r.cheapest else fmt.usd(r.cost_usd)
        fits = {None: "-", True: "yes", False: "**no**"}[r.fits_context]
        cells = [
            model,
            escape_md(r.provider),
            str(r.requests),
            fmt.tokens(r.input_tokens) + star,
            fmt.percent(r.cached_share),
            fmt.tokens(r.output_tokens) + star,
            total,
            fmt.usd(r.cost_per_request_usd),
            _ratio(r),
            fmt.tokens(r.context_window),
            fits,
        ]
        lines.append("| " + " | ".join(cells) + " |")
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
)


def render_compare_csv(report: CompareReport) -> str:
    """A row per model, cheapest first; unknown values are empty cells."""
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
            }
            for r in report.rows
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
