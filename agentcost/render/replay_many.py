"""ReplayManyReport (``agentcost replay DIR...``) -> every output format: tables, Markdown, CSV, JSON.

Formatting only: every figure comes from :mod:`agentcost.commands.replay_many`. JSON is one object:
the summary and one compact row per run; CSV is one row per run; ``--quiet`` prints the total cost of
the runs read. ``RENDERERS`` registers the kind (the CLI registers it before rendering). The JSON is
built as :class:`agentcost.report.replay_many_json.ReplayManyJson`, from which its schema is generated.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from decimal import Decimal
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from agentcost.infra.text import CsvWriter, display_name, plain, rich
from agentcost.infra.text import markdown as escape_md
from agentcost.render.fit import Col, FitTable
from agentcost.render.output import Renderers
from agentcost.report import fmt
from agentcost.report.fmt import exact
from agentcost.report.replay_json import REPORTED_KINDS
from agentcost.report.replay_many import SUFFIXES, ReplayManyReport, RunOutcomes, RunRow
from agentcost.report.replay_many_json import OUTCOME_FROM
from agentcost.report.schemagen import one_of
from agentcost.report.sections import Stat

if TYPE_CHECKING:  # the JSON's one definition (report/replay_many_json.py), also its JSON Schema
    from agentcost.report.replay_caps import CapCheck, CapsOutcome
    from agentcost.report.replay_many_json import (
        ManyCapsJson,
        OutcomesJson,
        ReplayManyJson,
        RunCapsJson,
        RunJson,
        StatDecimalJson,
    )
    from agentcost.report.sections_json import StatUsdJson

STATS = ("mean", "p50", "p90", "p99", "min", "max")
CSV_HEADERS = (
    "index",
    "path",
    "format",
    "model",
    "requests",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cached_share",
    "cost_usd",
    "reported_kind",
    "priced_from",
    "truncated",
    "warnings",
    "succeeded",
    "outcome_from",
)


def _share(d: Decimal) -> str:
    return fmt.percent(d, 2)


def _count(d: Decimal) -> str:
    """A count (a percentile, min, max: some run's) as a whole number."""
    return f"{int(d):,}"


def _mean(d: Decimal) -> str:
    return f"{d:,.2f}"


def _dists(report: ReplayManyReport) -> list[tuple[str, list[str]]]:
    """(quantity, its mean/p50/p90/p99/min/max as text) for the distributions table."""
    rows: list[tuple[str, Stat | None, Callable[[Decimal], str]]] = [
        ("cost per run", report.cost, fmt.usd),
        ("requests per run", report.requests, _count),
        (f"cached share ({report.cached_runs} runs)", report.cached_share, _share),
    ]
    out = []
    for name, s, show in rows:
        if s is None:
            out.append((name, ["-"] * len(STATS)))
        else:
            mean = _mean if show is _count else show
            out.append((name, [(mean if k == "mean" else show)(s.at(k)) for k in STATS]))
    return out


def _models(report: ReplayManyReport, show: Callable[[str], str]) -> str:
    """The models by price id, with the names merged into each (``gpt-4o-mini 3 (as gpt-4o-mini,
    gpt-4o-mini-2024-07-18)``)."""
    names = dict(report.model_names)
    return ", ".join(
        f"{show(m)} {n}" + (f" (as {', '.join(show(a) for a in names[m])})" if m in names else "")
        for m, n in report.models
    )


def _summary(report: ReplayManyReport, show: Callable[[str], str] = plain) -> list[tuple[str, str]]:
    read = len(report.runs)
    lines = [
        ("inputs", ", ".join(show(i) for i in report.inputs)),
        (
            "runs",
            f"{read} read, {report.skipped} skipped; {report.files} log files found, "
            f"{report.ignored} other files ignored (a directory is searched for {', '.join(SUFFIXES)})",
        ),
    ]
    if report.limit is not None:
        lines.append(("limit", f"stopped at {report.limit}: further files were not read"))
    lines += [
        ("formats", ", ".join(f"{show(f)} {n}" for f, n in report.formats)),
        ("models", _models(report, show)),
        ("requests", f"{report.total_requests:,}"),
        ("input tokens", f"{report.input_tokens:,} (reported where recorded, else ours)"),
        ("output tokens", f"{report.output_tokens:,}"),
        ("failed / retried", _failed(report)),
        ("total cost", fmt.usd(report.total_usd)),
        *_outcome_lines(report, show),
    ]
    for r in report.reasons:
        lines.append(("skipped", f"{r.files} × {show(r.reason)}"))
    for s in report.first_skipped:
        lines.append(("  e.g.", show(s.detail)))
    return lines


def _outcome_lines(report: ReplayManyReport, show: Callable[[str], str]) -> list[tuple[str, str]]:
    """Runs succeeded, failed and unknown, what says so, and the cost per completed task."""
    o = report.outcomes
    if o is None:
        return []
    sources = []
    if o.from_logs:
        sources.append(f"{o.from_logs:,} by their logs")
    if o.outcomes_file is not None:
        sources.append(f"{o.from_outcomes:,} by {show(o.outcomes_file)}")
    lines = [
        (
            "outcomes",
            f"{o.succeeded:,} succeeded, {o.failed:,} failed, {o.unknown:,} unknown"
            + (f" (labelled {', '.join(sources)})" if sources else ""),
        )
    ]
    per = o.cost_per_completed_usd
    lines.append(
        (
            "per completed task",
            "- (no run succeeded)"
            if per is None
            else f"{fmt.usd(per)} = total cost {fmt.usd(report.total_usd)} / {o.succeeded:,} succeeded"
            + (f" (the {o.unknown:,} unknown runs count as spend)" if o.unknown else ""),
        )
    )
    if o.unmatched:
        named = ", ".join(show(u) for u in o.first_unmatched)
        lines.append(("not read", f"{o.unmatched:,} runs of the outcomes file, e.g. {named}"))
    return lines


def _failed(report: ReplayManyReport) -> str:
    if report.failed_share is None or report.retried_share is None:
        return "not recorded in these logs"
    return f"{_share(report.failed_share)} failed, {_share(report.retried_share)} retried"


def render_many_table(report: ReplayManyReport) -> RenderableType:
    title = rich(f"Replay of {len(report.runs)} runs", "table.title")
    dists = FitTable(
        (Col("per run", justify="left", text=True), *(Col(k) for k in STATS)),
        [[name, *cells] for name, cells in _dists(report)],
        title=title,
    )
    summary = Table(show_header=False, box=None, padding=(0, 2, 0, 0))
    summary.add_column(style="bold", overflow="fold")
    summary.add_column(overflow="fold")
    for k, v in _summary(report):
        summary.add_row(k, rich(v))
    parts: list[RenderableType] = [dists, summary]
    if report.caps is not None:  # --caps: the verdict first
        parts[:0] = [*(rich(line) for line in caps_lines(report)), Text("")]
    if report.tools:
        parts.append(
            FitTable(
                (
                    Col("tool", justify="left", text=True),
                    Col("calls"),
                    Col("runs"),
                    Col("p50"),
                    Col("p90"),
                    Col("mean"),
                    Col("max"),
                ),
                [
                    (
                        rich(display_name(t.tool)),
                        f"{t.calls:,}",
                        f"{t.runs:,}",
                        f"{t.p50:,}",
                        f"{t.p90:,}",
                        _mean(t.mean),
                        f"{t.max:,}",
                    )
                    for t in report.tools
                ],
                title="Result tokens per tool call",
            )
        )
    return Group(*parts) if parts else Text("")


def _caps_given(o: CapsOutcome) -> str:
    c = o.caps
    given = [
        f"max_turns {c.max_turns:,}" if c.max_turns is not None else None,
        f"max_budget_usd ${exact(c.max_budget_usd)}" if c.max_budget_usd is not None else None,
        f"max_tokens {c.max_tokens:,}" if c.max_tokens is not None else None,
    ]
    return ", ".join(g for g in given if g is not None)


def caps_lines(report: ReplayManyReport, show: Callable[[str], str] = plain) -> list[str]:
    """--caps: the verdict over the runs first, then each run a cap would have stopped or cut."""
    o = report.caps
    if o is None:
        return []
    lines = [
        f"Caps ({_caps_given(o)}, from {show(o.caps.path)}) would have stopped {o.stopped:,} of "
        f"{o.runs:,} runs ({_share(o.stopped_share)}): {o.by_turns:,} at max_turns, {o.by_budget:,} at "
        f"max_budget_usd; they spent {fmt.usd(o.beyond_usd)} past the stops. {o.over_tokens:,} runs had "
        "a request over max_tokens."
    ]
    for r in report.runs:
        c = r.caps
        if c is None or (c.stopped_by is None and c.over_tokens_request is None):
            continue
        what = []
        if c.stopped_by is not None:
            what.append(
                f"{c.stopped_by} stops it after request {c.stopped_after:,}, "
                f"{fmt.usd(c.beyond_usd)} spent past it"
            )
        if c.over_tokens_request is not None and c.over_tokens is not None:
            what.append(f"request {c.over_tokens_request:,} wrote {c.over_tokens:,} output tokens")
        lines.append(f"  {show(r.path)}: {'; '.join(what)}")
    return lines


def render_many_markdown(report: ReplayManyReport) -> str:
    out = [f"### Replay of {len(report.runs)} runs", ""]
    if report.caps is not None:  # --caps: the verdict first
        head, *runs = caps_lines(report, escape_md)
        out += [head, "", *(f"- {line.strip()}" for line in runs), *([""] if runs else [])]
    out.append("| per run | " + " | ".join(STATS) + " |")
    out.append("|---|" + "---:|" * len(STATS))
    out += [f"| {name} | " + " | ".join(cells) + " |" for name, cells in _dists(report)]
    out.append("")
    out += [f"- **{k.strip()}**: {v}" for k, v in _summary(report, escape_md)]
    if report.tools:
        out += ["", "| tool | calls | runs | p50 | p90 | mean | max |", "|---|---:|---:|---:|---:|---:|---:|"]
        out += [
            f"| {escape_md(display_name(t.tool))} | {t.calls:,} | {t.runs:,} | {t.p50:,} | {t.p90:,} "
            f"| {_mean(t.mean)} | {t.max:,} |"
            for t in report.tools
        ]
    return "\n".join(out) + "\n"


def _row_cells(index: int, r: RunRow) -> tuple[object, ...]:
    return (
        index,
        r.path,
        r.format,
        r.model,
        r.requests,
        r.input_tokens,
        r.output_tokens,
        r.cache_read_tokens,
        r.cached_share,
        r.cost_usd,
        r.reported_kind,
        r.priced_from,
        fmt.csv_bool(r.truncated),
        r.warnings,
        fmt.csv_bool(r.succeeded),
        r.outcome_from,
    )


def render_many_csv(report: ReplayManyReport) -> str:
    buf = io.StringIO()
    w = CsvWriter(buf)
    w.writerow(CSV_HEADERS)
    for i, r in enumerate(report.runs, start=1):
        w.writerow("" if v is None else str(v) for v in _row_cells(i, r))
    return buf.getvalue()


def _stat(s: Stat) -> StatDecimalJson:
    return {
        "mean": exact(s.at("mean")),
        "p50": exact(s.at("p50")),
        "p90": exact(s.at("p90")),
        "p99": exact(s.at("p99")),
        "min": exact(s.at("min")),
        "max": exact(s.at("max")),
    }


def _stat_usd(s: Stat) -> StatUsdJson:
    return _stat(s)  # the same fields; the two definitions differ only in what the schema says


def _run_caps(c: CapCheck) -> RunCapsJson:
    return {
        "turns": c.turns,
        "stopped_by": c.stopped_by,
        "stopped_after": c.stopped_after,
        "beyond_usd": exact(c.beyond_usd),
        "max_turns_stop": c.turns_stop,
        "max_budget_usd_stop": c.budget_stop,
        "over_max_tokens_request": c.over_tokens_request,
        "over_max_tokens": c.over_tokens,
    }


def _many_caps(o: CapsOutcome) -> ManyCapsJson:
    c = o.caps
    return {
        "caps": {
            "file": c.path,
            "max_turns": c.max_turns,
            "max_budget_usd": None if c.max_budget_usd is None else exact(c.max_budget_usd),
            "max_tokens": c.max_tokens,
        },
        "runs": o.runs,
        "stopped": o.stopped,
        "stopped_share": fmt.exact_places(o.stopped_share, 6),
        "by_max_turns": o.by_turns,
        "by_max_budget_usd": o.by_budget,
        "over_max_tokens": o.over_tokens,
        "beyond_usd": exact(o.beyond_usd),
    }


def _run_dict(index: int, r: RunRow) -> RunJson:
    out = _run_row(index, r)
    if r.caps is not None:
        out["caps"] = _run_caps(r.caps)
    return out


def _run_row(index: int, r: RunRow) -> RunJson:
    return {
        "index": index,
        "path": r.path,
        "format": r.format,
        "model": r.model,
        "requests": r.requests,
        "input_tokens": r.input_tokens,
        "output_tokens": r.output_tokens,
        "cache_read_tokens": r.cache_read_tokens,
        "cached_share": r.cached_share,
        "cost_usd": r.cost_usd,
        "reported_kind": one_of(REPORTED_KINDS, r.reported_kind, "reported kind"),
        "priced_from": r.priced_from,
        "truncated": r.truncated,
        "warnings": r.warnings,
        "succeeded": r.succeeded,
        "outcome_from": None
        if r.outcome_from is None
        else one_of(OUTCOME_FROM, r.outcome_from, "outcome source"),
    }


def _outcomes_dict(o: RunOutcomes | None) -> OutcomesJson | None:
    if o is None:
        return None
    per = o.cost_per_completed_usd
    return {
        "succeeded": o.succeeded,
        "failed": o.failed,
        "unknown": o.unknown,
        "from_outcomes": o.from_outcomes,
        "from_logs": o.from_logs,
        "cost_per_completed_task_usd": None if per is None else exact(per),
        "outcomes_file": o.outcomes_file,
        "unmatched": o.unmatched,
        "first_unmatched": list(o.first_unmatched),
    }


def many_dict(report: ReplayManyReport) -> ReplayManyJson:
    out = _many_dict(report)
    if report.caps is not None:
        out["caps"] = _many_caps(report.caps)
    return out


def _many_dict(report: ReplayManyReport) -> ReplayManyJson:
    def share(d: Decimal | None) -> str | None:
        return None if d is None else exact(d)

    return {
        "summary": {
            "inputs": list(report.inputs),
            "files": report.files,
            "ignored": report.ignored,
            "limit": report.limit,
            "runs": len(report.runs),
            "skipped": report.skipped,
            "skip_reasons": [{"reason": r.reason, "files": r.files} for r in report.reasons],
            "first_skipped": [{"path": s.path, "error": s.detail} for s in report.first_skipped],
            "cost_usd": _stat_usd(report.cost),
            "requests": _stat(report.requests),
            "cached_share": None if report.cached_share is None else _stat(report.cached_share),
            "cached_runs": report.cached_runs,
            "tools": [
                {
                    "tool": t.tool,
                    "calls": t.calls,
                    "runs": t.runs,
                    "p50": t.p50,
                    "p90": t.p90,
                    "mean": exact(t.mean),
                    "max": t.max,
                }
                for t in report.tools
            ],
            "failed_share": share(report.failed_share),
            "retried_share": share(report.retried_share),
            "formats": [{"format": f, "runs": n} for f, n in report.formats],
            "models": [
                {"model": m, "runs": n, "names": list(dict(report.model_names).get(m, (m,)))}
                for m, n in report.models
            ],
            "totals": {
                "requests": report.total_requests,
                "input_tokens": report.input_tokens,
                "output_tokens": report.output_tokens,
                "cost_usd": exact(report.total_usd),
            },
            "outcomes": _outcomes_dict(report.outcomes),
        },
        "runs": [_run_dict(i, r) for i, r in enumerate(report.runs, start=1)],
    }


RENDERERS = (
    ReplayManyReport,
    Renderers(
        kind="replay_many",
        body=many_dict,
        rich=render_many_table,
        markdown=render_many_markdown,
        csv=render_many_csv,
        total=lambda r: r.total_usd,
        chart=None,
    ),
)
