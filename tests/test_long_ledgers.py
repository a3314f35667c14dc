"""Long ledgers: the elided table (first and last requests, the middle summed), --all, and LongTable."""

from __future__ import annotations

import io
from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from agentcost.cli import run
from agentcost.loop.accountant import ttl_options
from agentcost.loop.caching import pricer_for
from agentcost.loop.estimate import estimate, request_gaps
from agentcost.render.fit import FitTable
from agentcost.render.jsonfmt import report_dict
from agentcost.render.longtable import LongTable
from agentcost.render.output import Format, render_text
from agentcost.render.table import _title, ledger_columns, ledger_rows
from agentcost.report import fmt
from agentcost.report.build import build_report
from agentcost.report.estimate import Report
from agentcost.report.ledger import ELIDE_OVER, HEAD, TAIL, ledger_view

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)
ROOT = Path(__file__).resolve().parent.parent


def _scenario(tmp: Path, rounds: int, model: str = "claude-sonnet-4-5") -> Path:
    """``rounds`` tool rounds (ten kinds, repeated) given as token counts: nothing to tokenize."""
    lines = [
        "version: 1",
        f"name: {rounds} rounds",
        f"model: {model}",
        "system: You are a coding agent.",
        "tools:",
        "  - {name: Read, description: Read a file., input_schema: {type: object}}",
        "task: Fix the test.",
        "rounds:",
        *(
            f"  - {{tool: Read, call_tokens: {20 + i}, result: {{tokens: {60 + 13 * i}}}, repeat: {rounds // 10}}}"
            for i in range(10)
        ),
        "final: 50",
    ]
    path = tmp / f"long-{rounds}.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def long_report(tmp_path_factory: pytest.TempPathFactory) -> Report:
    return build_report(estimate(_scenario(tmp_path_factory.mktemp("long"), 300), as_of=AS_OF))


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("│").split("│")]


def _rows(text: str) -> dict[str, list[str]]:
    """The table's body rows by their # cell."""
    out: dict[str, list[str]] = {}
    for line in text.splitlines():
        if line.startswith("│"):
            cells = _cells(line)
            if cells[0]:
                out[cells[0]] = cells
    return out


def test_a_long_ledger_shows_its_first_and_last_requests_and_sums_the_middle(long_report: Report) -> None:
    report = long_report
    assert len(report.requests) == 301 > ELIDE_OVER
    text = render_text(report, Format.table, width=160)
    rows = _rows(text)
    shown = [str(r.index) for r in report.requests[:HEAD] + report.requests[-TAIL:]]
    assert [k for k in rows if k != "…"] == shown
    middle = rows["…"]
    assert middle[1] == "271 more requests"
    data = report_dict(report)["requests"][HEAD:-TAIL]  # the JSON's rows of the middle, every one
    assert len(data) == 271 and data[0]["index"] == 21 and data[-1]["index"] == 291
    assert middle[2:] == [
        fmt.tokens(sum(r["input_tokens"] for r in data)),
        fmt.tokens(sum(r["cache_read_tokens"] for r in data)),
        fmt.tokens(sum(r["cache_write_tokens"] for r in data)),
        fmt.tokens(sum(r["output_tokens"] for r in data)),
        fmt.usd(sum((Decimal(r["cost_usd"]) for r in data), Decimal(0))),
        fmt.usd(Decimal(data[-1]["running_usd"])),
    ]
    view = ledger_view(report)
    assert view.middle is not None
    assert view.middle.cost_usd == sum((Decimal(r["cost_usd"]) for r in data), Decimal(0))  # exactly
    assert "Requests #21 to #291 are summed in one row (…): --all shows each." in text
    assert f"total ({report.totals.requests} requests)" in text


def test_ledgers_up_to_the_limit_are_whole(tmp_path: Path) -> None:
    report = build_report(estimate(_scenario(tmp_path, 40), as_of=AS_OF))
    assert len(report.requests) == 41
    view = ledger_view(report)
    assert view.middle is None and view.head == report.requests
    assert "…" not in render_text(report, Format.table, width=160)


def test_all_prints_every_request(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fixed_terminal: None
) -> None:
    path = _scenario(tmp_path, 300)
    assert run(["estimate", str(path), "--all"]) == 0
    rows = _rows(capsys.readouterr().out)
    assert list(rows) == [str(i) for i in range(1, 302)]
    assert run(["estimate", str(path)]) == 0
    assert len(_rows(capsys.readouterr().out)) == HEAD + 1 + TAIL


def _print(renderable: Any, width: int, colour: bool) -> tuple[str, list[Any]]:
    buffer = io.StringIO()
    console = Console(
        file=buffer,
        width=width,
        record=True,
        force_terminal=colour,
        color_system="truecolor" if colour else None,
        no_color=False if colour else None,
    )
    console.print(renderable)
    parts = (
        list(renderable.__rich_console__(console, console.options))
        if isinstance(renderable, LongTable)
        else []
    )
    return (buffer.getvalue() if colour else console.export_text()), parts


@pytest.fixture(scope="module")
def medium_report(tmp_path_factory: pytest.TempPathFactory) -> Report:
    est = estimate(_scenario(tmp_path_factory.mktemp("medium"), 150), as_of=AS_OF)
    return replace(build_report(est), show_all=True)


@pytest.mark.parametrize(
    ("width", "colour"), [(40, False), (60, True), (80, False), (90, True), (100, False), (200, True)]
)
def test_long_table_draws_what_rich_draws(medium_report: Report, width: int, colour: bool) -> None:
    """The same text as Rich's table, escape codes included, at widths that wrap headers, fold the
    footer's label and drop columns; stacked rows (40 columns) are left to Rich."""
    report = medium_report

    def table() -> FitTable:
        return FitTable(ledger_columns(report), ledger_rows(report), title=_title(report), show_footer=True)

    rich_text, _ = _print(table(), width, colour)
    fast_text, parts = _print(LongTable(table()), width, colour)
    assert fast_text == rich_text
    drawn = not any(isinstance(p, FitTable) for p in parts)  # drawn itself, not handed to Rich
    assert drawn == (width > 40)  # at 40 columns the rows are stacked: Rich draws them


def test_long_table_keeps_numbers_whole_when_columns_are_dropped(medium_report: Report) -> None:
    report = medium_report
    table = FitTable(ledger_columns(report), ledger_rows(report), title=_title(report), show_footer=True)
    text, parts = _print(LongTable(table), 80, False)
    assert not any(isinstance(p, FitTable) for p in parts)
    lines = text.splitlines()
    assert all(len(line) <= 80 for line in lines)
    assert "Not shown at 80 columns: running" in text
    last = _rows(text)["151"]
    r = report.requests[-1]
    assert last[2:] == [
        fmt.tokens(n) for n in (r.input_tokens, r.cache_read_tokens, r.cache_write_tokens)
    ] + [
        fmt.tokens(r.output_tokens),
        fmt.usd(r.cost_usd),
    ]


@pytest.mark.parametrize("name", ["long", "bugfix.yaml", "routing.yaml", "uncertain-steps.yaml"])
def test_the_ttl_option_of_the_runs_own_policy_is_the_ledger(tmp_path: Path, name: str) -> None:
    """The ledger's own run stands in for the accountant's run of the same cache lifetime: the
    comparison is what running every option gives."""
    path = _scenario(tmp_path, 300) if name == "long" else ROOT / "scenarios" / name
    est = estimate(path, as_of=AS_OF)
    s = est.scenario
    assert est.ttl_comparison and not est.subagents
    every = ttl_options(
        est.counts,
        pricer_for(est.prices),
        est.ledger.policy,
        ttls=tuple(o.label for o in est.ttl_comparison[1:]),  # type: ignore[arg-type]
        max_rounds=s.limits.max_rounds,
        gaps=request_gaps(s),
        max_budget_usd=s.limits.max_budget_usd,
    )
    assert every == est.ttl_comparison
