"""compare, the project report, diff and replay at 60, 80 and 120 columns (issue 14).

Each table output is pinned by a golden file per width (``tests/golden/widths/``), made in-process with
the output going to a pipe (COLUMNS=N); the project report and the diff also go through a real
pseudo-terminal at 60 and 80 columns (a subprocess whose stdout is the terminal, its window N
columns wide): the same text, ``\\r`` aside. At every width: no line wider than the terminal, no ``…``, and every dollar
figure of the JSON report shown whole (formatted from its exact value by the money policy of
``agentcost.report.fmt``), unless its column is one the table names as not shown at that width.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from typer.testing import CliRunner

from agentcost.cli import app
from agentcost.report import fmt
from tests.conftest import TERMINAL_ENV, GoldenCheck, run_in_pty
from tests.test_diff import BASE, HEAD

pytestmark = pytest.mark.usefixtures("no_ctok")

ROOT = Path(__file__).resolve().parent.parent
AS_OF = "2026-11-30"
WIDTHS = (60, 80, 120)

COMMANDS: dict[str, tuple[str, ...]] = {
    "compare": (
        "compare",
        "scenarios/research.yaml",
        "-m",
        "claude-sonnet-4-5",
        "-m",
        "gpt-5",
        "-m",
        "gemini-2.5-pro",
        "--budget",  # its limits.budget_usd is $1.00: gemini-2.5-pro ($1.84) would fail the run
        "2",
    ),
    "project": ("estimate", "scenarios/agentcost.yml"),
    "diff-project": ("diff", "old/agentcost.yml", "new/agentcost.yml"),
    "replay-swe-agent": (
        "replay",
        "tests/data/swe-agent/swe-agent__test-repo-i1.traj",
        "--config",
        "tests/data/swe-agent/test-repo-i1.args.yaml",
    ),
    "replay-claude-code": ("replay", "tests/data/claude-code/session.jsonl"),
}


# The diff: a project of two scenarios on both sides (tests/test_diff.py's pair: one more tool and
# bigger results on gpt-4o, exact counts), and a Claude scenario (approximate counts) whose final
# answer doubles and that runs 40 -> 60 times a day.
TRIAGE = BASE.replace("name: Search agent", "name: Support triage").replace(
    "model: gpt-4o\ncaching: none", "model: claude-sonnet-4-5\ncaching: conversation"
)
PROJECT = "version: 1\nname: Agents\nscenarios:\n  - {{path: search.yaml, runs_per_day: 100}}\n" + (
    "  - {{path: triage.yaml, runs_per_day: {runs}}}\n"
)


def _write_diff_sides(folder: Path) -> None:
    for side, search, triage, runs in (
        ("old", BASE, TRIAGE, 40),
        ("new", HEAD, TRIAGE.replace("final: {tokens: 200}", "final: {tokens: 400}"), 60),
    ):
        (folder / side).mkdir()
        (folder / side / "search.yaml").write_text(search, encoding="utf-8")
        (folder / side / "triage.yaml").write_text(triage, encoding="utf-8")
        (folder / side / "agentcost.yml").write_text(PROJECT.format(runs=runs), encoding="utf-8")


def _cwd(name: str, tmp_path: Path) -> Path:
    """Where a command runs: the diff in a folder of its own, the others at the repository root."""
    if name.startswith("diff"):
        _write_diff_sides(tmp_path)
        return tmp_path
    return ROOT


def invoke(args: tuple[str, ...], width: int = 120, code: int = 0) -> str:
    env = {**TERMINAL_ENV, "COLUMNS": str(width), "LINES": "50", "NO_COLOR": "1"}
    result = CliRunner().invoke(app, [*args, "--as-of", AS_OF], env=env, catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result.stdout


# --------------------------------------------------------------------------------------------
# The dollar figures each JSON report has, as a table must show them
# --------------------------------------------------------------------------------------------

Figure = tuple[str | None, str]
"""(the column a figure is shown in, or None where it is always shown; the text it must appear as)."""


def _d(value: str | None) -> Decimal | None:
    return None if value is None else Decimal(value)


def _pair(before: str | None, after: str | None) -> tuple[str, str]:
    """Before and after as the report shows them: more decimals where 4 would read the same."""
    b, a = _d(before), _d(after)
    if b is None or a is None:
        return fmt.usd(b), fmt.usd(a)
    return fmt.usd_pair(b, a)


def _compare_figures(body: dict[str, Any]) -> Iterator[Figure]:
    for m in body["models"]:
        yield None, fmt.usd(Decimal(m["cost_usd"]))
        yield "per request", fmt.usd(Decimal(m["cost_per_request_usd"]))


def _batch_figures(body: dict[str, Any]) -> Iterator[Figure]:
    """Each scenario's cost beside its budget (compared), per day and per month; the same in total."""
    project = body["project"]["budget"]
    for s, budget in [(s, s["budget"]) for s in body["scenarios"]] + [(body["totals"], project)]:
        cost, limit = (
            _pair(s["cost_usd"], budget["limit_usd"]) if budget else (fmt.usd(Decimal(s["cost_usd"])), "")
        )
        yield None, cost
        if limit:
            yield "budget", limit
        yield "per day", fmt.usd(_d(s["cost_per_day_usd"]))
        yield None, fmt.usd(_d(s["cost_per_month_usd"]))
    yield None, _pair(body["totals"]["cost_usd"], project["limit_usd"])[1]  # the sentence below
    yield None, fmt.usd(Decimal(project["headroom_usd"]))


def _per_day_figures(p: dict[str, Any], *, month: str | None) -> Iterator[Figure]:
    """The per-day line (always shown under the table), and the month's change in its column."""
    for shown in _pair(p["before_usd"], p["after_usd"]):
        yield None, f"{shown}/day"
    yield None, f"{fmt.signed_usd(Decimal(p['change_usd']))}/day"
    yield month, fmt.signed_usd(Decimal(p["change_per_month_usd"]))


def _diff_figures(body: dict[str, Any]) -> Iterator[Figure]:
    t = body["totals"]
    before, after = _pair(t["before"]["cost_usd"], t["after"]["cost_usd"])
    yield None, before
    yield None, after
    yield None, fmt.signed_usd(Decimal(t["change"]["cost_usd"]))
    g = t["gated"]  # the headline: the one total, the figure the total's gates compare (issue 30)
    yield from ((None, shown) for shown in _pair(g["before_usd"], g["after_usd"]))
    yield None, fmt.signed_usd(Decimal(g["change_usd"]))
    for s in body["scenarios"]:
        before, after = _pair(s["before"]["cost_usd"], s["after"]["cost_usd"])
        yield "before", before
        yield None, after
        yield None, fmt.signed_usd(Decimal(s["change"]["cost_usd"]))
        yield from _per_day_figures(s["per_day"], month="Δ per month")
        for r in s["requests"]:
            before, after = _pair(r["before"]["cost_usd"], r["after"]["cost_usd"])
            yield "$ before", before
            yield None, after
            yield None, fmt.signed_usd(Decimal(r["change"]["cost_usd"]))


def _replay_figures(body: dict[str, Any]) -> Iterator[Figure]:
    for r in body["requests"]:
        yield None, fmt.usd(Decimal(r["cost_usd"]))
        yield "running", fmt.usd(Decimal(r["running_usd"]))
    t = body["totals"]
    if t["reported_cost_usd"] is None:
        yield None, fmt.usd(Decimal(t["cost_usd"]))
    else:
        for shown in fmt.usd_pair(Decimal(t["cost_usd"]), Decimal(t["reported_cost_usd"])):
            yield None, shown


FIGURES = {
    "compare": _compare_figures,
    "batch": _batch_figures,
    "diff": _diff_figures,
    "replay": _replay_figures,
}


def _not_shown(out: str) -> str:
    """Every "Not shown at N columns: ..." note of the output, joined (a note may wrap)."""
    notes = re.findall(r"Not shown at \d+ columns: (.*?) \(a wider terminal", out, flags=re.DOTALL)
    return " ".join(" ".join(n.split()) for n in notes)


def check_output(out: str, width: int, figures: list[Figure]) -> None:
    assert out.strip()
    for line in out.splitlines():
        assert cell_len(line) <= width, f"{cell_len(line)} > {width} columns: {line!r}"
    assert "…" not in out
    dropped = [name.strip() for name in _not_shown(out).split(",")]
    for column, text in figures:
        if column is not None and column in dropped:
            continue  # the table says it left this column out at this width
        whole = re.compile(r"(?<![\d.$])" + re.escape(text) + r"(?![\d,])")
        assert whole.search(out), f"{text} ({column or 'always shown'}) not whole at {width} columns"


_JSON: dict[str, dict[str, Any]] = {}


@pytest.fixture
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Every command's JSON report (the width does not change it), by command name: made once, in
    the first test that asks, under that test's private cache and counting path."""
    if not _JSON:
        here = Path.cwd()
        try:
            for name, args in COMMANDS.items():
                os.chdir(_cwd(name, tmp_path_factory.mktemp(name)))
                _JSON[name] = json.loads(invoke((*args, "--format", "json")))
        finally:
            os.chdir(here)
    return _JSON


def _figures(report: dict[str, Any]) -> list[Figure]:
    return list(FIGURES[report["kind"]](report))


# --------------------------------------------------------------------------------------------
# Through a pipe (in-process)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_width_golden(
    name: str,
    width: int,
    golden: GoldenCheck,
    reports: dict[str, dict[str, Any]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(_cwd(name, tmp_path))
    out = invoke(COMMANDS[name], width)
    check_output(out, width, _figures(reports[name]))
    golden(f"widths/{name}-{width}.txt", out)


def test_the_answer_is_kept_and_the_rest_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """At 80 columns (a real terminal's default) every model and scenario name is whole on one line
    (compare used to fold them to 2 characters a line), the diff keeps # and "model did", and what
    is left out is named."""
    monkeypatch.chdir(ROOT)
    compare = invoke(COMMANDS["compare"], 80)
    for model in ("claude-sonnet-4-5", "gpt-5", "gemini-2.5-pro"):
        assert re.search(rf"│ {model} +│", compare), model
    assert "openai · cheapest" in compare
    assert "Not shown at 80 columns: cached, output" in compare
    project = invoke(COMMANDS["project"], 80)
    assert "│ Research briefing (gpt-5-mini) " in project and "scenarios/mcp-40-tools.yaml" in project
    assert len(project.splitlines()) < 40  # it was 163 lines long, the names a character wide
    monkeypatch.chdir(_cwd("diff", tmp_path))
    diff = invoke(COMMANDS["diff-project"], 80)
    assert re.search(r"┃ # ┃ model did +┃", diff)


def test_the_window_verdict_stays_when_a_model_does_not_fit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Context window is dropped early when every model fits, never when one does not."""
    monkeypatch.chdir(ROOT)
    fits = invoke(COMMANDS["compare"], 60)
    assert "context window" in _not_shown(fits)
    over = invoke(("compare", "scenarios/research.yaml", "-m", "gpt-5", "-m", "gpt-4"), 60, code=1)  # budget
    assert "context window" not in _not_shown(over)
    assert re.search(r"│ +8,192 OVER │", over)


def test_each_scenario_marks_its_own_approximate_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The exact-count gpt-4o scenario's per-request table is not marked * because the Claude one
    is (the project's pull-request comment marked both)."""
    monkeypatch.chdir(_cwd("diff", tmp_path))
    for text in (
        invoke(COMMANDS["diff-project"], 120),
        invoke((*COMMANDS["diff-project"], "-f", "markdown")),
    ):
        search, triage = [line.replace("\\*", "*") for line in text.splitlines() if "model did" in line]
        assert "input " in search and "*" not in search
        assert "input*" in triage and "output*" in triage


def test_monthly_figures_are_totals_and_changes_each_labelled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(_cwd("diff", tmp_path))
    out = invoke(COMMANDS["diff-project"], 120)
    body = json.loads(invoke((*COMMANDS["diff-project"], "--format", "json")))
    g = body["totals"]["gated"]  # the one total, per 30-day month, leads (issue 30)
    before, after = fmt.usd_pair(*(Decimal(g[k]) for k in ("before_usd", "after_usd")))
    change = fmt.signed_usd(Decimal(g["change_usd"]))
    assert f"{change} per 30-day month (" in out and f": {before} → {after} (" in out
    triage = body["scenarios"][1]["per_day"]
    day = _pair(triage["before_usd"], triage["after_usd"])
    assert f"  Per day (40 → 60 runs): {day[0]}/day → {day[1]}/day (" in out
    assert "Δ per month" in out and "per month" in out


# --------------------------------------------------------------------------------------------
# Through a real pseudo-terminal
# --------------------------------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a POSIX pseudo-terminal")
@pytest.mark.parametrize("width", (60,))  # a subprocess: the narrowest width, where layout matters most
@pytest.mark.parametrize("name", ["project"])  # the terminal's width is read in one place for every report
@pytest.mark.usefixtures("seeded_cache")
def test_a_real_terminal_gets_the_same_table(
    name: str, width: int, golden: GoldenCheck, reports: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if k not in TERMINAL_ENV}
    env.update(COLUMNS=str(width), LINES="50", TERM="xterm-256color", NO_COLOR="1")
    out = run_in_pty([*COMMANDS[name], "--as-of", AS_OF], width, cwd=_cwd(name, tmp_path), env=env)
    check_output(out, width, _figures(reports[name]))
    golden(f"widths/{name}-{width}.txt", out)
