"""DiffReport -> every output format: CSV and JSON fields here, Rich and Markdown in ``diff_text``.

Registered with ``agentcost.render.output`` through ``RENDERERS`` (the Rich tables and the Markdown
for a pull request come from :mod:`agentcost.render.diff_text`); the JSON fields are built as
:class:`agentcost.report.diff_json.DiffJson`, from which their published schema is generated.
Formatting only: every figure, change and verdict comes from :mod:`agentcost.commands.diff`.
"""

from __future__ import annotations

import io
from decimal import Decimal
from typing import TYPE_CHECKING, Literal

from agentcost.infra.record import record
from agentcost.infra.text import CsvWriter
from agentcost.render.diff_text import render_diff_markdown, render_diff_table
from agentcost.render.output import Renderers
from agentcost.report.batch_json import PERS
from agentcost.report.diff import Amounts, DiffReport, GatedTotal, PerDay
from agentcost.report.diff_json import INPUT_PARTS
from agentcost.report.estimate import Report, RequestLine
from agentcost.report.estimate_json import CACHING_MODES, REQUEST_KINDS
from agentcost.report.fmt import exact
from agentcost.report.schemagen import one_of

if TYPE_CHECKING:  # the JSON's one definition (report/diff_json.py), also its JSON Schema
    from agentcost.report.diff_json import (
        ChangeJson,
        DiffJson,
        GatedTotalJson,
        PerDayJson,
        RequestSideJson,
        SideJson,
    )

# --------------------------------------------------------------------------------------------
# CSV
# --------------------------------------------------------------------------------------------

_MEASURES = ("input_tokens", "cache_read_tokens", "cache_write_tokens", "output_tokens", "cost_usd")

COLUMNS = (
    "scenario",
    "request",
    "status",
    "before_model",
    "after_model",
    "before_kind",
    "after_kind",
    "before_tool",
    "after_tool",
    *(f"{side}_{m}" for m in _MEASURES for side in ("before", "after", "change")),
    "before_counter",
    "after_counter",
)


def _csv_value(value: int | Decimal | None) -> str | int:
    if value is None:
        return ""
    return exact(value) if isinstance(value, Decimal) else value


def _measure_cells(before: object | None, after: object | None, change: Amounts) -> list[str | int]:
    """before, after, change of every measure; ``before``/``after`` are request lines, report totals
    or sums (anything with the measures as attributes), None for a side that does not exist."""
    cells: list[str | int] = []
    for m in _MEASURES:
        cells += [
            _csv_value(None if before is None else getattr(before, m)),
            _csv_value(None if after is None else getattr(after, m)),
            _csv_value(getattr(change, m)),
        ]
    return cells


def _tool(line: RequestLine | None) -> str:
    return "" if line is None else ";".join(line.tools)


def _model(report: Report | None) -> str:
    return "" if report is None else report.model_id


def _counter(report: Report | None) -> str:
    return "" if report is None else report.encoding


def render_diff_csv(report: DiffReport) -> str:
    """A row per scenario per request, a ``total`` row per scenario, then the grand ``total`` row.
    A side that does not exist is an empty cell; dollars are exact decimal strings."""
    out = io.StringIO()
    writer = CsvWriter(out)
    writer.writerow(COLUMNS)
    for s in report.scenarios:
        models = [_model(s.base), _model(s.head)]
        counters = [_counter(s.base), _counter(s.head)]
        for r in s.requests:
            writer.writerow(
                [
                    s.path,
                    r.index,
                    r.status,
                    *models,
                    "" if r.before is None else r.before.kind,
                    "" if r.after is None else r.after.kind,
                    _tool(r.before),
                    _tool(r.after),
                    *_measure_cells(r.before, r.after, r.change),
                    *counters,
                ]
            )
        writer.writerow(
            [
                s.path,
                "total",
                s.status,
                *models,
                "",
                "",
                "",
                "",
                *_measure_cells(
                    s.base.totals if s.base is not None else None,
                    s.head.totals if s.head is not None else None,
                    s.change,
                ),
                *counters,
            ]
        )
    t = report.totals
    writer.writerow(
        ["total", "total", "", "", "", "", "", "", "", *_measure_cells(t.before, t.after, t.change), "", ""]
    )
    return out.getvalue()


# --------------------------------------------------------------------------------------------
# JSON
# --------------------------------------------------------------------------------------------


def _decimal(d: Decimal | None) -> str | None:
    return None if d is None else exact(d)


def _amounts_dict(c: Amounts) -> ChangeJson:
    return {
        "input_tokens": c.input_tokens,
        "cache_read_tokens": c.cache_read_tokens,
        "cache_write_tokens": c.cache_write_tokens,
        "output_tokens": c.output_tokens,
        "cost_usd": exact(c.cost_usd),
    }


def _side_dict(report: Report | None) -> SideJson | None:
    if report is None:
        return None
    t = report.totals
    return {
        "model": report.model_id,
        "provider": report.provider,
        "caching": one_of(CACHING_MODES, report.caching_mode, "caching mode"),
        "requests": t.requests,
        "input_tokens": t.input_tokens,
        "cache_read_tokens": t.cache_read_tokens,
        "cache_write_tokens": t.cache_write_tokens,
        "output_tokens": t.output_tokens,
        "cost_usd": exact(t.cost_usd),
        "budget_usd": _decimal(report.budget.limit_usd if report.budget is not None else None),
        "max_input_tokens": report.max_input_tokens,
        "context_window": report.context_window,
        "approximate": report.approximate,
        "counter": report.encoding,
    }


def _request_dict(r: RequestLine | None) -> RequestSideJson | None:
    if r is None:
        return None
    return {
        "index": r.index,
        "kind": one_of(REQUEST_KINDS, r.kind, "request kind"),
        "tool": None if not r.tools else (r.tools[0] if len(r.tools) == 1 else list(r.tools)),
        "input_tokens": r.input_tokens,
        "cache_read_tokens": r.cache_read_tokens,
        "cache_write_tokens": r.cache_write_tokens,
        "output_tokens": r.output_tokens,
        "cost_usd": exact(r.cost_usd),
        "running_usd": exact(r.running_usd),
    }


def _per_day_dict(p: PerDay | None) -> PerDayJson | None:
    if p is None:
        return None
    return {
        "runs_before": _decimal(p.runs_before),
        "runs_after": _decimal(p.runs_after),
        "before_usd": _decimal(p.before_usd),
        "after_usd": _decimal(p.after_usd),
        "change_usd": exact(p.change_usd),
        "change_per_month_usd": exact(p.change_per_month_usd),
    }


def _gated_dict(g: GatedTotal) -> GatedTotalJson:
    return {
        "unit": g.unit,
        "label": g.label,
        "scope": g.scope,
        "scenarios": g.scenarios,
        "before_usd": exact(g.before_usd),
        "after_usd": exact(g.after_usd),
        "change_usd": exact(g.change_usd),
        "change_fraction": _decimal(g.change_fraction),
        "added": g.added,
        "added_usd": exact(g.added_usd),
        "removed": g.removed,
        "removed_usd": exact(g.removed_usd),
        "runs_per_month": _decimal(g.runs_per_month),
    }


def diff_dict(report: DiffReport) -> DiffJson:
    """The JSON fields of a diff (the envelope adds ``version``, ``kind`` and ``gates``)."""
    t = report.totals
    return {
        "compared": report.kind,
        "per": one_of(PERS, report.per, "per"),
        "base": report.base_label,
        "head": report.head_label,
        "prices": {
            "source": report.price_source,
            "version": report.price_version,
            "as_of": report.as_of,
            "label": report.price_label,
        },
        "limits": {
            "max_increase": _decimal(report.limits.fraction),
            "max_increase_usd": _decimal(report.limits.usd),
            "warn_increase": _decimal(report.limits.warn_fraction),
            "warn_increase_usd": _decimal(report.limits.warn_usd),
            "gate_new_scenarios": report.limits.gate_new,
        },
        "changed": report.any_change,
        "scenarios": [
            {
                "path": s.path,
                "name": s.name,
                "file": s.file,
                "status": s.status,
                "before": _side_dict(s.base),
                "after": _side_dict(s.head),
                "change": _amounts_dict(s.change),
                "change_fraction": _decimal(s.change_fraction),
                "per_task": {
                    "before_usd": _decimal(s.before_task_usd),
                    "after_usd": _decimal(s.after_task_usd),
                },
                "per_day": _per_day_dict(s.per_day),
                "inputs": [
                    {
                        "part": one_of(INPUT_PARTS, c.part, "input part"),
                        "before": c.before,
                        "after": c.after,
                        "text": c.text,
                    }
                    for c in s.inputs
                ],
                "requests": [
                    {
                        "index": r.index,
                        "status": r.status,
                        "before": _request_dict(r.before),
                        "after": _request_dict(r.after),
                        "change": _amounts_dict(r.change),
                    }
                    for r in s.requests
                ],
            }
            for s in report.scenarios
        ],
        "totals": {
            "scenarios": t.scenarios,
            "changed": t.changed,
            "unchanged": t.unchanged,
            "added": t.added,
            "removed": t.removed,
            "before": _amounts_dict(t.before),
            "after": _amounts_dict(t.after),
            "change": _amounts_dict(t.change),
            "change_fraction": _decimal(t.change_fraction),
            "gated": _gated_dict(t.gated),
            "per_task": {"before_usd": _decimal(t.before_task_usd), "after_usd": _decimal(t.after_task_usd)},
            "per_day": _per_day_dict(t.per_day),
            "paired": {
                "before_usd": exact(t.paired_before_usd),
                "after_usd": exact(t.paired_after_usd),
                "change_fraction": _decimal(t.paired_change_fraction),
            },
            "added_usd": exact(t.added_usd),
            "removed_usd": exact(t.removed_usd),
        },
        "approximate": report.approximate,
        "counters": {
            "before": list(report.counters[0]),
            "after": list(report.counters[1]),
            "same": report.counters[0] == report.counters[1],
            "text": report.counter_text,
        },
        "warnings": list(report.warnings),
    }


RENDERERS = (
    DiffReport,
    Renderers(
        kind="diff",
        body=diff_dict,
        rich=render_diff_table,
        markdown=render_diff_markdown,
        csv=render_diff_csv,
        total=lambda r: r.totals.change.cost_usd,
        chart=None,
    ),
)


# --------------------------------------------------------------------------------------------
# The pull-request comment (``agentcost diff --comment github|gitlab``)
# --------------------------------------------------------------------------------------------

COMMENT_MARKER = "<!-- agentcost-cost-report -->"
"""The first line of every comment body: a workflow finds its own comment by it, to update it."""

CommentHost = Literal["github", "gitlab"]


@record
class DiffComment:
    """A diff shown as a pull/merge-request comment: the Markdown report under a hidden marker."""

    report: DiffReport
    host: CommentHost


def changed_marker(report: DiffReport) -> str:
    """The second line of a comment body, hidden too: ``<!-- agentcost-changed: yes -->`` or ``no``."""
    return f"<!-- agentcost-changed: {'yes' if report.any_change else 'no'} -->"


def render_diff_comment(comment: DiffComment) -> str:
    """The marker, whether anything changed, then the Markdown report. GitLab has no GitHub alert
    blocks (``> [!WARNING]``): there a warning is a quoted bold "Warning:" line."""
    body = render_diff_markdown(comment.report)
    if comment.host == "gitlab":
        body = body.replace("> [!WARNING]\n> ", "> **Warning:** ")
    return f"{COMMENT_MARKER}\n{changed_marker(comment.report)}\n{body}"


COMMENT_RENDERERS = (
    DiffComment,
    Renderers(
        kind="diff",
        body=lambda c: dict(diff_dict(c.report)),
        rich=lambda c: render_diff_table(c.report),
        markdown=render_diff_comment,
        csv=lambda c: render_diff_csv(c.report),
        total=lambda c: c.report.totals.change.cost_usd,
        chart=None,
    ),
)
