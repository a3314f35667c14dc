"""DiffReport -> every output format: CSV and JSON fields here, Rich and Markdown in ``diff_text``.

Registered with ``agentcost.render.output`` through ``RENDERERS`` (the Rich tables and the Markdown
for a pull request come from :mod:`agentcost.render.diff_text`); ``JSON_SCHEMA`` describes the
JSON fields (``agentcost.render.schema`` wraps them in the envelope). Formatting only: every
figure, change and verdict comes from :mod:`agentcost.commands.diff`.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

from agentcost.infra.text import CsvWriter
from agentcost.render.diff_text import render_diff_markdown, render_diff_table
from agentcost.render.output import Renderers
from agentcost.render.schema import COUNT, USD, USD_OR_NULL
from agentcost.report.diff import Amounts, DiffReport, PerDay
from agentcost.report.estimate import Report, RequestLine
from agentcost.report.fmt import exact

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


def render_diff_csv(report: DiffReport) -> str:
    """A row per scenario per request, a ``total`` row per scenario, then the grand ``total`` row.
    A side that does not exist is an empty cell; dollars are exact decimal strings."""
    out = io.StringIO()
    writer = CsvWriter(out)
    writer.writerow(COLUMNS)
    for s in report.scenarios:
        models = [_model(s.base), _model(s.head)]
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
            ]
        )
    t = report.totals
    writer.writerow(
        ["total", "total", "", "", "", "", "", "", "", *_measure_cells(t.before, t.after, t.change)]
    )
    return out.getvalue()


# --------------------------------------------------------------------------------------------
# JSON
# --------------------------------------------------------------------------------------------


def _decimal(d: Decimal | None) -> str | None:
    return None if d is None else exact(d)


def _amounts_dict(c: Amounts) -> dict[str, Any]:
    return {
        "input_tokens": c.input_tokens,
        "cache_read_tokens": c.cache_read_tokens,
        "cache_write_tokens": c.cache_write_tokens,
        "output_tokens": c.output_tokens,
        "cost_usd": exact(c.cost_usd),
    }


def _side_dict(report: Report | None) -> dict[str, Any] | None:
    if report is None:
        return None
    t = report.totals
    return {
        "model": report.model_id,
        "provider": report.provider,
        "caching": report.caching_mode,
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
    }


def _request_dict(r: RequestLine | None) -> dict[str, Any] | None:
    if r is None:
        return None
    return {
        "index": r.index,
        "kind": r.kind,
        "tool": None if not r.tools else (r.tools[0] if len(r.tools) == 1 else list(r.tools)),
        "input_tokens": r.input_tokens,
        "cache_read_tokens": r.cache_read_tokens,
        "cache_write_tokens": r.cache_write_tokens,
        "output_tokens": r.output_tokens,
        "cost_usd": exact(r.cost_usd),
        "running_usd": exact(r.running_usd),
    }


def _per_day_dict(p: PerDay | None) -> dict[str, Any] | None:
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


def diff_dict(report: DiffReport) -> dict[str, Any]:
    """The JSON fields of a diff (the envelope adds ``version``, ``kind`` and ``gates``)."""
    t = report.totals
    return {
        "compared": report.kind,
        "per": report.per,
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
                    {"part": c.part, "before": c.before, "after": c.after, "text": c.text} for c in s.inputs
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
        "warnings": list(report.warnings),
    }


def _obj(properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


_DELTA = {"type": "integer"}
_PER_TASK = {
    "type": "object",
    "properties": {"before_usd": USD_OR_NULL, "after_usd": USD_OR_NULL},
    "required": ["before_usd", "after_usd"],
    "additionalProperties": False,
    "description": "expected cost per completed task of each side (its outcome; per run without one)",
}
_STATUS = {"enum": ["changed", "unchanged", "added", "removed"]}
_DECIMAL = {"type": "string", "pattern": r"^-?\d+(\.\d+)?$", "description": "an exact decimal"}
_CHANGE = _obj(
    {
        "input_tokens": _DELTA,
        "cache_read_tokens": _DELTA,
        "cache_write_tokens": _DELTA,
        "output_tokens": _DELTA,
        "cost_usd": USD,
    }
)
_SUMS = _obj(
    {
        "input_tokens": COUNT,
        "cache_read_tokens": COUNT,
        "cache_write_tokens": COUNT,
        "output_tokens": COUNT,
        "cost_usd": USD,
    }
)
_SIDE = _obj(
    {
        "model": {"type": "string"},
        "provider": {"type": "string"},
        "caching": {"enum": ["none", "prefix", "conversation", "explicit"]},
        "requests": COUNT,
        "input_tokens": COUNT,
        "cache_read_tokens": COUNT,
        "cache_write_tokens": COUNT,
        "output_tokens": COUNT,
        "cost_usd": USD,
        "budget_usd": USD_OR_NULL,
        "max_input_tokens": COUNT,
        "context_window": {"type": ["integer", "null"]},
        "approximate": {"type": "boolean"},
    }
)
_REQUEST = _obj(
    {
        "index": {"type": "integer", "minimum": 1},
        "kind": {"enum": ["tool_use", "reply", "final"]},
        "tool": {
            "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}, {"type": "null"}]
        },
        "input_tokens": COUNT,
        "cache_read_tokens": COUNT,
        "cache_write_tokens": COUNT,
        "output_tokens": COUNT,
        "cost_usd": USD,
        "running_usd": USD,
    }
)
_PER_DAY = _nullable(
    _obj(
        {
            "runs_before": _nullable(_DECIMAL),
            "runs_after": _nullable(_DECIMAL),
            "before_usd": USD_OR_NULL,
            "after_usd": USD_OR_NULL,
            "change_usd": USD,
            "change_per_month_usd": USD,
        }
    )
)
_INPUT = _obj(
    {
        "part": {
            "enum": [
                "model",
                "caching",
                "cache_ttl",
                "tools",
                "tool_choice",
                "system",
                "task",
                "rounds",
                "rounds_run",
                "calls",
                "replies",
                "thinking",
                "results",
                "user_messages",
                "final",
                "budget",
            ]
        },
        "before": {"type": ["integer", "string", "null"]},
        "after": {"type": ["integer", "string", "null"]},
        "text": {"type": "string"},
    }
)

JSON_SCHEMA: dict[str, Any] = _obj(
    {
        "compared": {
            "enum": ["scenario", "project"],
            "description": "two scenario files or two project files",
        },
        "per": {"enum": ["run", "task"], "description": "--per: what the increase gates compare"},
        "base": {"type": "string", "description": "the base side: a git ref or a file"},
        "head": {"type": "string", "description": "the head side: 'working tree' or a file"},
        "prices": _obj(
            {
                "source": {"type": "string"},
                "version": {"type": "string"},
                "as_of": {"type": "string", "format": "date-time"},
                "label": {"type": "string", "description": "every scenario's price source, one line"},
            }
        ),
        "limits": _obj(
            {
                "max_increase": _nullable(_DECIMAL),
                "max_increase_usd": USD_OR_NULL,
                "warn_increase": _nullable(_DECIMAL),
                "warn_increase_usd": USD_OR_NULL,
                "gate_new_scenarios": {"type": "boolean"},
            }
        ),
        "changed": {
            "type": "boolean",
            "description": "whether any scenario's cost or inputs differ (added and removed ones count)",
        },
        "scenarios": {
            "type": "array",
            "items": _obj(
                {
                    "path": {"type": "string"},
                    "name": {"type": ["string", "null"]},
                    "file": {"type": ["string", "null"]},
                    "status": _STATUS,
                    "before": _nullable(_SIDE),
                    "after": _nullable(_SIDE),
                    "change": _CHANGE,
                    "change_fraction": _nullable(_DECIMAL),
                    "per_task": _PER_TASK,
                    "per_day": _PER_DAY,
                    "inputs": {"type": "array", "items": _INPUT},
                    "requests": {
                        "type": "array",
                        "items": _obj(
                            {
                                "index": {"type": "integer", "minimum": 1},
                                "status": _STATUS,
                                "before": _nullable(_REQUEST),
                                "after": _nullable(_REQUEST),
                                "change": _CHANGE,
                            }
                        ),
                    },
                }
            ),
        },
        "totals": _obj(
            {
                "scenarios": COUNT,
                "changed": COUNT,
                "unchanged": COUNT,
                "added": COUNT,
                "removed": COUNT,
                "before": _SUMS,
                "after": _SUMS,
                "change": _CHANGE,
                "change_fraction": _nullable(_DECIMAL),
                "per_task": _PER_TASK,
                "per_day": _PER_DAY,
                "paired": _obj({"before_usd": USD, "after_usd": USD, "change_fraction": _nullable(_DECIMAL)}),
                "added_usd": USD,
                "removed_usd": USD,
            }
        ),
        "approximate": {"type": "boolean"},
        "warnings": {"type": "array", "items": {"type": "string"}},
    }
)
"""The JSON fields of ``kind: "diff"`` (draft 2020-12); the envelope's fields are added around them."""

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


@dataclass(frozen=True)
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
        body=lambda c: diff_dict(c.report),
        rich=lambda c: render_diff_table(c.report),
        markdown=render_diff_comment,
        csv=lambda c: render_diff_csv(c.report),
        total=lambda c: c.report.totals.change.cost_usd,
        chart=None,
    ),
)
