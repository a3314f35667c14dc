"""DiffReport -> every output format: Rich tables, Markdown for a pull request, CSV, JSON fields.

Registered with ``agentcost.render.output`` through ``RENDERERS``; ``JSON_SCHEMA`` describes the
JSON fields (``agentcost.render.schema`` wraps them in the envelope). Formatting only: every figure,
change and verdict comes from :mod:`agentcost.commands.diff`.
"""

from __future__ import annotations

import csv
import io
from decimal import Decimal
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from agentcost.commands.diff import (
    Amounts,
    DiffReport,
    PerDay,
    RequestDiff,
    ScenarioDiff,
    diff_gates,
    signed_percent,
    signed_tokens,
    signed_usd,
)
from agentcost.render.output import Renderers
from agentcost.render.schema import COUNT, USD, USD_OR_NULL
from agentcost.report import fmt
from agentcost.report.estimate import Report, RequestLine, Totals
from agentcost.report.fmt import exact
from agentcost.report.gates import Gate

ARROW = "→"

# --------------------------------------------------------------------------------------------
# Shared cell text
# --------------------------------------------------------------------------------------------


def _pair(
    before: str, after: str, change: str, *, same: bool, before_missing: bool, after_missing: bool
) -> str:
    """``1,137 → 1,233 (+96)``; just the value when it did not change; ``- → 1,233`` for a new side."""
    if before_missing or after_missing:
        return f"{before} {ARROW} {after}"
    if same:
        return after
    return f"{before} {ARROW} {after} ({change})"


def _tokens_cell(before: int | None, after: int | None, change: int) -> str:
    return _pair(
        fmt.tokens(before),
        fmt.tokens(after),
        signed_tokens(change),
        same=before == after,
        before_missing=before is None,
        after_missing=after is None,
    )


def _change_usd(d: Decimal) -> str:
    """A change in dollars: 4 places, or 6 where 4 would show a real change as $0.0000."""
    return signed_usd(d, 6 if d and abs(d) < Decimal("0.00005") else 4)


def _usd_cell(before: Decimal | None, after: Decimal | None, change: Decimal) -> str:
    return _pair(
        fmt.usd(before),
        fmt.usd(after),
        _change_usd(change),
        same=before == after,
        before_missing=before is None,
        after_missing=after is None,
    )


def _line_value(line: RequestLine | None, attr: str) -> int | None:
    return None if line is None else int(getattr(line, attr))


def _request_cells(r: RequestDiff) -> list[str]:
    c = r.change
    return [
        str(r.index),
        r.label.replace("->", ARROW),
        _tokens_cell(
            _line_value(r.before, "input_tokens"), _line_value(r.after, "input_tokens"), c.input_tokens
        ),
        _tokens_cell(
            _line_value(r.before, "cache_read_tokens"),
            _line_value(r.after, "cache_read_tokens"),
            c.cache_read_tokens,
        ),
        _tokens_cell(
            _line_value(r.before, "output_tokens"), _line_value(r.after, "output_tokens"), c.output_tokens
        ),
        _usd_cell(
            r.before.cost_usd if r.before is not None else None,
            r.after.cost_usd if r.after is not None else None,
            c.cost_usd,
        ),
    ]


def _totals_cells(s: ScenarioDiff) -> list[str]:
    b = s.base.totals if s.base is not None else None
    a = s.head.totals if s.head is not None else None
    c = s.change
    return [
        "",
        "total",
        _tokens_cell(b.input_tokens if b else None, a.input_tokens if a else None, c.input_tokens),
        _tokens_cell(
            b.cache_read_tokens if b else None, a.cache_read_tokens if a else None, c.cache_read_tokens
        ),
        _tokens_cell(b.output_tokens if b else None, a.output_tokens if a else None, c.output_tokens),
        _usd_cell(s.before_usd, s.after_usd, c.cost_usd),
    ]


def _percent_cell(s: ScenarioDiff) -> str:
    if s.status in ("added", "removed"):
        return s.status
    return signed_percent(s.change_fraction)


def _scenario_title(s: ScenarioDiff) -> str:
    return f"{s.path} ({s.name})" if s.name else s.path


def _counts(report: DiffReport) -> str:
    t = report.totals
    parts = [
        f"{n} {word}" for n, word in ((t.changed, "changed"), (t.added, "added"), (t.removed, "removed"))
    ]
    shown = [p for p in parts if not p.startswith("0 ")]
    noun = "scenario" if t.scenarios == 1 else "scenarios"
    return f"{t.scenarios} {noun}" + (": " + ", ".join(shown) if shown else ", no change")


def _headline(report: DiffReport) -> tuple[str, str]:
    """(change, rest): ``+$0.0123 (+25.3%)`` and `` per run: $0.0487 → $0.0610 (1 scenario: 1 changed)``."""
    t = report.totals
    change = _change_usd(t.change.cost_usd)
    if t.change_fraction is not None:
        change += f" ({signed_percent(t.change_fraction)})"
    rest = f" per run: {fmt.usd(t.before_usd)} {ARROW} {fmt.usd(t.after_usd)} ({_counts(report)})."
    return change, rest


def _per_day_text(per_day: PerDay | None) -> str | None:
    if per_day is None:
        return None
    return (
        f"Per day: {fmt.usd(per_day.before_usd, 2)} {ARROW} {fmt.usd(per_day.after_usd, 2)}"
        f" ({signed_usd(per_day.change_usd, 2)});"
        f" per 30-day month: {signed_usd(per_day.change_per_month_usd, 2)}."
    )


def _gate_text(gate: Gate) -> str:
    return f"{gate.name.replace('_', ' ')}: {gate.message}"


def _footer(report: DiffReport) -> str:
    accuracy = "approximate, marked *" if report.approximate else "exact tokenizer"
    return f"Both sides priced with {report.price_label} as of {report.as_of}; token counts: {accuracy}."


# --------------------------------------------------------------------------------------------
# Rich
# --------------------------------------------------------------------------------------------


def render_diff_table(report: DiffReport) -> RenderableType:
    """The summary table, then per changed scenario its input changes and per-request table, then gates."""
    parts: list[RenderableType] = [_summary_table(report)]
    change, rest = _headline(report)
    lines = [change + rest]
    per_day = _per_day_text(report.totals.per_day)
    if per_day:
        lines.append(per_day)
    parts.append(Text("\n".join(lines)))
    for s in report.changed:
        if s.status == "changed":  # added or removed: one side only, as `agentcost estimate` shows it
            parts.append(Text(""))
            parts.append(_scenario_section(report, s))
    gates = diff_gates(report)
    if gates:
        gate_lines = [("✗ FAILED " if g.tripped else "✓ ok ") + _gate_text(g) for g in gates]
        parts.append(Text("\nGates:\n" + "\n".join(gate_lines)))
    tail = [_footer(report), *(f"Warning: {w}" for w in report.warnings)]
    parts.append(Text("\n".join(tail)))
    return Group(*parts)


def _summary_table(report: DiffReport) -> Table:
    t = report.totals
    several = t.scenarios > 1
    per_month = t.per_day is not None or any(s.per_day is not None for s in report.scenarios)
    table = Table(
        title=f"agentcost diff: {report.base_label} {ARROW} {report.head_label}",
        title_justify="left",
        show_footer=several,
        header_style="bold",
    )
    table.add_column("scenario", footer=f"total ({t.scenarios} scenarios)" if several else "")
    table.add_column("model")
    table.add_column("before", justify="right", footer=fmt.usd(t.before_usd))
    table.add_column("after", justify="right", footer=fmt.usd(t.after_usd))
    table.add_column("change", justify="right", footer=_change_usd(t.change.cost_usd))
    table.add_column("%", justify="right", footer=signed_percent(t.change_fraction))
    if per_month:
        footer = signed_usd(t.per_day.change_per_month_usd, 2) if t.per_day is not None else "-"
        table.add_column("per month", justify="right", footer=footer)
    for s in report.scenarios:
        row = [
            s.path,
            s.model.replace("->", ARROW),
            fmt.usd(s.before_usd),
            fmt.usd(s.after_usd),
            _change_usd(s.change.cost_usd),
            _percent_cell(s),
        ]
        if per_month:
            row.append(signed_usd(s.per_day.change_per_month_usd, 2) if s.per_day is not None else "-")
        table.add_row(*row)
    return table


def _delta(n: int) -> str:
    return signed_tokens(n) if n else ""


def _wide_cells(
    index: str,
    label: str,
    before: RequestLine | Totals | None,
    after: RequestLine | Totals | None,
    change: Amounts,
) -> list[str]:
    """Rich's per-request row: the head side's value beside each change (blank when none), and the
    cost before and after."""

    def value(side: RequestLine | Totals | None, attr: str) -> str:
        return "-" if side is None else fmt.tokens(int(getattr(side, attr)))

    return [
        index,
        label,
        value(after, "input_tokens"),
        _delta(change.input_tokens),
        value(after, "cache_read_tokens"),
        _delta(change.cache_read_tokens),
        value(after, "output_tokens"),
        _delta(change.output_tokens),
        fmt.usd(None if before is None else before.cost_usd),
        fmt.usd(None if after is None else after.cost_usd),
        _change_usd(change.cost_usd),
    ]


def _scenario_section(report: DiffReport, s: ScenarioDiff) -> RenderableType:
    mark = "*" if report.approximate else ""
    heading = f"{_scenario_title(s)}: {s.status}"
    lines = [heading, *(f"  {c.text}" for c in s.inputs)]
    table = Table(header_style="bold", show_footer=True)
    names = [
        "#",
        "model did",
        f"input{mark}",
        "Δ",
        "cached",
        "Δ",
        f"output{mark}",
        "Δ",
        "$ before",
        "$ after",
        "Δ $",
    ]
    footers = _wide_cells(
        "",
        "total",
        s.base.totals if s.base is not None else None,
        s.head.totals if s.head is not None else None,
        s.change,
    )
    for name, footer in zip(names, footers, strict=True):
        if name == "model did":
            table.add_column(name, footer=footer)
        else:
            table.add_column(name, justify="right", footer=footer, no_wrap=True)
    for r in s.requests:
        table.add_row(*_wide_cells(str(r.index), r.label.replace("->", ARROW), r.before, r.after, r.change))
    return Group(Text("\n".join(lines)), table)


# --------------------------------------------------------------------------------------------
# Markdown
# --------------------------------------------------------------------------------------------


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _md_row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def render_diff_markdown(report: DiffReport) -> str:
    """Compact enough for a pull-request comment: headline, summary table, what changed, per-request
    details folded in ``<details>``, gate verdicts."""
    t = report.totals
    mark = "\\*" if report.approximate else ""
    change, rest = _headline(report)
    lines = [
        f"#### agentcost diff: `{_md(report.base_label)}` {ARROW} `{_md(report.head_label)}`",
        "",
        f"**{change}**{rest}",
    ]
    per_day = _per_day_text(t.per_day)
    if per_day:
        lines.append(per_day)
    per_month = t.per_day is not None or any(s.per_day is not None for s in report.scenarios)
    header = ["scenario", "model", "before", "after", "change", "%"] + (["per month"] if per_month else [])
    lines += ["", _md_row(header), "|---|---|" + "--:|" * (len(header) - 2)]
    for s in report.scenarios:
        cells = [
            f"`{_md(s.path)}`",
            _md(s.model.replace("->", ARROW)),
            fmt.usd(s.before_usd),
            fmt.usd(s.after_usd),
            f"**{_change_usd(s.change.cost_usd)}**"
            if s.status != "unchanged"
            else _change_usd(s.change.cost_usd),
            _percent_cell(s),
        ]
        if per_month:
            cells.append(signed_usd(s.per_day.change_per_month_usd, 2) if s.per_day is not None else "-")
        lines.append(_md_row(cells))
    if t.scenarios > 1:
        cells = [
            "**total**",
            "",
            fmt.usd(t.before_usd),
            fmt.usd(t.after_usd),
            f"**{_change_usd(t.change.cost_usd)}**",
            signed_percent(t.change_fraction),
        ]
        if per_month:
            cells.append(signed_usd(t.per_day.change_per_month_usd, 2) if t.per_day is not None else "-")
        lines.append(_md_row(cells))
    changed_inputs = [s for s in report.scenarios if s.inputs]
    if changed_inputs:
        lines += ["", "**What changed in the inputs**", ""]
        for s in changed_inputs:
            lines.append(f"- `{_md(s.path)}`: " + "; ".join(_md(c.text) for c in s.inputs))
    for s in report.changed:
        if s.status != "changed":  # added or removed: one side only, as `agentcost estimate` shows it
            continue
        lines += [
            "",
            f"<details><summary>Per request: <code>{_md(s.path)}</code> ({s.status})</summary>",
            "",
            _md_row(["#", "model did", f"input{mark}", "cache read", f"output{mark}", "cost"]),
            "|--:|---|--:|--:|--:|--:|",
        ]
        for r in s.requests:
            lines.append(_md_row([_md(c) for c in _request_cells(r)]))
        total = _totals_cells(s)
        total[1] = "**total**"
        lines.append(_md_row([_md(c) for c in total]))
        lines += ["", "</details>"]
    lines += _md_gates(diff_gates(report))
    accuracy = "approximate (\\*)" if report.approximate else "exact tokenizer"
    lines += [
        "",
        f"<sub>Both sides priced with {report.price_label} as of"
        f" {report.as_of[:10]}; token counts: {accuracy}.</sub>",
    ]
    for w in report.warnings:
        lines.append(f"> [!WARNING]\n> {_md(w)}")
    return "\n".join(lines) + "\n"


def _md_gates(gates: tuple[Gate, ...]) -> list[str]:
    """Tripped gates in full; the ones that passed folded away (a project has two per scenario)."""
    if not gates:
        return []
    tripped = [g for g in gates if g.tripped]
    passed = [g for g in gates if not g.tripped]
    if tripped:
        lines = ["", f"**Gates: ❌ {len(tripped)} of {len(gates)} failed**", ""]
        lines += ["- ❌ " + _md(_gate_text(g)) for g in tripped]
    else:
        lines = ["", f"**Gates: ✅ all {len(gates)} passed**"]
    if passed:
        lines += ["", f"<details><summary>✅ {len(passed)} passed</summary>", ""]
        lines += ["- ✅ " + _md(_gate_text(g)) for g in passed]
        lines += ["", "</details>"]
    return lines


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
    writer = csv.writer(out, lineterminator="\n")
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
        },
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
            "per_day": _per_day_dict(t.per_day),
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
        "provider": {"enum": ["anthropic", "openai", "google"]},
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
        "limits": _obj({"max_increase": _nullable(_DECIMAL), "max_increase_usd": USD_OR_NULL}),
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
                "per_day": _PER_DAY,
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
