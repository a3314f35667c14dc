"""Report -> Rich renderable: the per-request table, then its notes (agentcost.render.notes)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.text import Text

from agentcost.infra.text import display_name, plain, rich
from agentcost.render.fit import SECTION, Cell, Col, FitTable
from agentcost.render.notes import notes
from agentcost.report import fmt
from agentcost.report.estimate import Report, RequestLine
from agentcost.report.ledger import ELIDE_OVER, Middle, ledger_view

if TYPE_CHECKING:
    from agentcost.report.models import ModelsReport


def _title(report: Report) -> Text:
    title = display_name(report.scenario_name or report.scenario_path)
    return rich(f"{title} · {display_name(report.model_id)} ({report.provider})", "table.title")


def ledger_columns(report: Report) -> list[Col]:
    """The ledger's columns. #, what the model did, input, output and cost are the answer and always
    shown; on a narrow terminal running goes first, then cache write, then cache read (FitTable)."""
    mark, dim = ("*", "dim") if report.approximate else ("", None)  # approximate counts: marked, dim
    t = report.totals
    return [
        Col("#"),
        Col("model did", justify="left", text=True, footer=f"total ({t.requests} requests)"),
        Col(f"input (all){mark}", footer=fmt.tokens(t.input_tokens), style=dim),  # cache included
        Col("cache read", drop=1, footer=fmt.tokens(t.cache_read_tokens)),
        Col("cache write", drop=2, footer=fmt.tokens(t.cache_write_tokens)),
        Col(f"output{mark}", footer=fmt.tokens(t.output_tokens), style=dim),
        Col("cost", footer=fmt.usd(t.cost_usd)),
        Col("running", drop=3),
    ]


def ledger_rows(report: Report, requests: Sequence[RequestLine] | None = None) -> list[list[Cell]]:
    """One row per billed request (of ``requests``, by default all of the report's); each subagent it
    started folded under it (``↳``; totals include it)."""
    rows: list[list[Cell]] = []
    for r in report.requests if requests is None else requests:
        rows.append(
            [
                str(r.index),
                rich(display_name(r.label) + (f" [{r.tier}]" if r.tier else "")),
                fmt.tokens(r.input_tokens),
                fmt.tokens(r.cache_read_tokens),
                fmt.tokens(r.cache_write_tokens),
                fmt.tokens(r.output_tokens),
                fmt.usd(r.cost_usd),
                fmt.usd(r.running_usd),
            ]
        )
        for sub in r.subagents:
            st = sub.report.totals
            rows.append(
                [
                    "",
                    rich("↳ " + sub.text),
                    fmt.tokens(st.input_tokens),
                    fmt.tokens(st.cache_read_tokens),
                    fmt.tokens(st.cache_write_tokens),
                    fmt.tokens(st.output_tokens),
                    fmt.usd(sub.cost_usd),
                    "",
                ]
            )
    return rows


def _middle_row(m: Middle) -> list[Cell]:
    """The requests an elided ledger leaves out, summed by the report (agentcost.report.ledger)."""
    s = "" if m.requests == 1 else "s"
    return [
        "…",
        Text(f"{m.requests:,} more request{s}", style="dim"),
        fmt.tokens(m.input_tokens),
        fmt.tokens(m.cache_read_tokens),
        fmt.tokens(m.cache_write_tokens),
        fmt.tokens(m.output_tokens),
        fmt.usd(m.cost_usd),
        fmt.usd(m.running_usd),
    ]


def render_table(report: Report, *, verbose: bool = False) -> RenderableType:
    """The ledger: every request up to :data:`~agentcost.report.ledger.ELIDE_OVER` (or with ``--all``),
    else the first and last requests with the middle summed in one row; a long table is drawn by
    :class:`~agentcost.render.longtable.LongTable` (the same lines, in linear time)."""
    view = ledger_view(report, show_all=report.show_all)
    rows = ledger_rows(report, view.head)
    parts: list[RenderableType] = []
    if view.middle is not None:
        m = view.middle
        rows += [_middle_row(m), *ledger_rows(report, view.tail)]
        parts.append(Text(f"Requests #{m.first} to #{m.last} are summed in one row (…): --all shows each."))
    table = FitTable(ledger_columns(report), rows, title=_title(report), show_footer=True)
    if len(rows) > ELIDE_OVER:
        from agentcost.render.longtable import LongTable

        return Group(LongTable(table), *parts, notes(report, verbose=verbose))
    return Group(table, *parts, notes(report, verbose=verbose))


def render_models(report: ModelsReport) -> RenderableType:
    """The ``agentcost models`` listing: prices per million tokens in force at the lookup date, the
    long-context tiers and service tiers genai-prices knows, and which token counts are approximate
    (marked *, as in estimates); then what is not listed (rows that cannot be estimated, other
    providers)."""

    models = [row.prices for row in report.rows]
    rows: list[tuple[str, list[str]]] = []
    for row in report.rows:
        m = row.prices
        approximate = row.token_counts == "approximate"
        name = m.model_id + ("*" if approximate else "") + (" †" if m.source.kind == "user" else "")
        cells = [
            name,
            fmt.per_mtok(m.input_mtok),
            fmt.per_mtok(m.output_mtok),
            fmt.per_mtok(m.cache_read_mtok),
            fmt.per_mtok(m.cache_write_mtok),
            fmt.tokens(m.context_window),
            " ".join(row.tiers) or "-",
        ]
        rows.append((m.provider, [plain(c) for c in cells]))

    # model, input and output are the answer; on a narrow terminal cache write goes first, then
    # tiers, cache read and context (FitTable says which)
    columns = [
        Col("model", justify="left", text=True),
        Col("input"),
        Col("output"),
        Col("cache read", drop=2),
        Col("cache write", drop=4),
        Col("context", drop=1),
        Col("tiers", justify="left", text=True, min_width=5, drop=3),
    ]
    table_rows: list[list[Cell] | None] = []
    provider: str | None = None
    for pid, cells in rows:
        if pid != provider:  # a heading row per provider (the listing is grouped by provider)
            if provider is not None:
                table_rows.append(SECTION)
            provider = pid
            table_rows.append([rich(pid, "bold"), *[""] * (len(columns) - 1)])
        table_rows.append(list(map(rich, cells)))
    from agentcost.render.longtable import LongTable  # 2,000 rows with --all: drawn in linear time

    table = LongTable(FitTable(columns, table_rows))

    sources: dict[str, None] = {}
    for m in models:
        if m.source.kind != "user":
            sources.setdefault(m.source.label)
    lines = [f"{len(models)} model{'' if len(models) == 1 else 's'}, {report.order}."]
    if models:
        day = models[0].source.as_of.date().isoformat()
        lines.append(
            f"Prices in USD per million tokens in force on {day}, from"
            f" {'; '.join(sources) or 'your price file'}."
        )
    lines.extend(report.footer)
    user = [m for m in models if m.source.kind == "user"]
    if user:
        lines.append("† from " + "; ".join(dict.fromkeys(m.source.label for m in user)) + ".")
    lines.extend(f"Warning: {w}" for w in dict.fromkeys(w for m in models for w in m.warnings))
    return Group(table, Text("\n".join(map(plain, lines))))
