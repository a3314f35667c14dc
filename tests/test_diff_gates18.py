"""Issue 18's gates on ``agentcost diff --base-ref``: warning-level increases, added and removed
scenarios kept out of the increase gates (the project total compares like with like), the monthly
headline, and the pull-request comment mode (``--comment github|gitlab``).

Each test builds a temporary git repository (base commit, then a change in the working tree) and
runs the CLI in-process. Figures come from the reports themselves, never typed in.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from agentcost.cli import run
from agentcost.commands.diff import build_diff, diff_gates
from agentcost.commands.diff_read import diff_paths
from agentcost.render import output
from agentcost.render.diff import COMMENT_MARKER, DiffComment, render_diff_comment
from agentcost.render.output import Format
from agentcost.report.gates import Gate, IncreaseLimits, increase_gates
from tests.conftest import git_in as _git
from tests.conftest import validate_json

pytestmark = [
    pytest.mark.usefixtures("no_ctok", "fixed_terminal"),
    pytest.mark.skipif(shutil.which("git") is None, reason="needs git"),
]

AS_OF = "2026-11-30"

SCENARIO = """\
version: 1
name: Search agent
model: gpt-4o
caching: none
system: {tokens: 500}
tools:
  - name: search
    description: Search the web.
    input_schema: {type: object}
task: {tokens: 100}
rounds:
  - {tool: search, call_tokens: 20, result: {tokens: RESULT}}
final: {tokens: 200}
"""


def _scenario(result: int) -> str:
    return SCENARIO.replace("RESULT", str(result))


def _project(entries: list[str], runs_per_day: int | None = None) -> str:
    runs = "" if runs_per_day is None else f", runs_per_day: {runs_per_day}"
    lines = "".join(f"  - {{path: {e}{runs}}}\n" for e in entries)
    return f"version: 1\nname: Agents\nscenarios:\n{lines}"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repository with one committed scenario (search.yaml) in a project file; the current
    directory. GITHUB_* variables of the machine running the tests are cleared."""
    for name in ("GITHUB_ACTIONS", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"):
        monkeypatch.delenv(name, raising=False)
    root = tmp_path / "repo"
    root.mkdir()
    (root / "search.yaml").write_text(_scenario(1000), encoding="utf-8")
    (root / "agentcost.yml").write_text(_project(["search.yaml"]), encoding="utf-8")
    _git(root, "init", "-q")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "base")
    monkeypatch.chdir(root)
    return root


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run(["diff", "agentcost.yml", "--base-ref", "HEAD", "--as-of", AS_OF, *args])
    out, err = capsys.readouterr()
    return code, out, err


def _raise_cost_by(repo: Path, fraction: Decimal) -> Decimal:
    """Rewrite search.yaml so that its cost rises by about ``fraction``: the result size that does
    it, found from the estimates (cost is linear in the result's tokens here); the exact change."""
    base = diff_paths(
        "search.yaml", "search.yaml", as_of=datetime(2026, 11, 30, tzinfo=UTC), base_reader=None
    )
    cost = base.totals.after_usd
    (repo / "search.yaml").write_text(_scenario(2000), encoding="utf-8")
    bigger = diff_paths("search.yaml", "search.yaml", as_of=datetime(2026, 11, 30, tzinfo=UTC))
    per_1000 = bigger.totals.after_usd - cost  # the cost of 1,000 more result tokens
    tokens = int(1000 + fraction * cost / per_1000 * 1000)
    (repo / "search.yaml").write_text(_scenario(tokens), encoding="utf-8")
    after = diff_paths("search.yaml", "search.yaml", as_of=datetime(2026, 11, 30, tzinfo=UTC))
    return (after.totals.after_usd - cost) / cost


# --------------------------------------------------------------------------------------------
# Acceptance (issue 18)
# --------------------------------------------------------------------------------------------


def test_adding_a_scenario_only_exits_0_and_lists_it(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "fresh.yaml").write_text(_scenario(5000), encoding="utf-8")
    (repo / "agentcost.yml").write_text(_project(["search.yaml", "fresh.yaml"]), encoding="utf-8")
    code, out, err = _cli(capsys, "--max-increase", "10%", "--format", "markdown")
    assert code == 0, err
    assert "- Added: `fresh.yaml`, +$" in out
    assert "| `fresh.yaml` |" in out and "| added |" in out
    assert "gate failed" not in err

    # The total's gate compares like with like, and says what it leaves out.
    code, out, _ = _cli(capsys, "--max-increase", "10%", "--format", "json")
    body = json.loads(out)
    [total] = [g for g in body["gates"] if g["message"].startswith("total per run:")]
    assert not total["tripped"]
    assert "$0.0081 → $0.0081 (0.0%) <= allowed increase 10.0%" in total["message"]
    assert "not gated: 1 added +$" in total["message"]
    assert body["changed"] is True
    assert body["totals"]["paired"]["before_usd"] == body["totals"]["paired"]["after_usd"]
    assert Decimal(body["totals"]["added_usd"]) == Decimal(body["scenarios"][1]["after"]["cost_usd"])

    # --gate-new-scenarios: the whole total, and the new scenario, are gated (as before issue 18).
    code, _, err = _cli(capsys, "--max-increase", "10%", "--gate-new-scenarios")
    assert code == 1
    assert "gate failed: fresh.yaml: cost - → $" not in err  # the added side reads $0, not "-"
    assert "gate failed: total per run: cost $" in err and "fresh.yaml" in err


def test_a_15_percent_rise_warns_and_exits_0(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rise = _raise_cost_by(repo, Decimal("0.15"))
    assert Decimal("0.14") < rise < Decimal("0.16")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    code, out, err = _cli(capsys, "--warn-increase", "10%", "--max-increase", "50%")
    assert code == 0, err
    warnings = [line for line in err.splitlines() if line.startswith("::warning ")]
    assert warnings and all("title=agentcost warn increase" in w for w in warnings)
    assert "file=search.yaml" in warnings[0]
    assert not [line for line in err.splitlines() if line.startswith("::error")]
    assert "agentcost: warning: search.yaml: cost $" in err
    assert "⚠ WARNING warn increase: search.yaml" in out

    code, out, _ = _cli(capsys, "--warn-increase", "10%", "--max-increase", "50%", "--format", "markdown")
    assert "**Gates: ⚠️ 2 warnings, none failed**" in out  # the scenario and the total
    assert "- ⚠️ warn increase: search.yaml: cost $" in out


def test_a_60_percent_rise_fails(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rise = _raise_cost_by(repo, Decimal("0.60"))
    assert Decimal("0.59") < rise < Decimal("0.61")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    code, _, err = _cli(capsys, "--warn-increase", "10%", "--max-increase", "50%")
    assert code == 1
    lines = err.splitlines()
    assert any(line.startswith("::error ") and "title=agentcost max increase" in line for line in lines)
    # one verdict per check: the warning level, tripped too, is not repeated beside the failure
    assert not any(line.startswith("::warning ") for line in lines)
    assert "agentcost: warning:" not in err


# --------------------------------------------------------------------------------------------
# Gates as a library
# --------------------------------------------------------------------------------------------


def test_warning_gates_are_named_and_never_fail() -> None:
    limits = IncreaseLimits(warn_fraction=Decimal("0.1"), warn_usd=Decimal("0.001"))
    gates = increase_gates("a.yaml", Decimal("0.010"), Decimal("0.012"), limits, file="a.yaml")
    assert [(g.name, g.tripped, g.warning) for g in gates] == [
        ("warn_increase", True, True),
        ("warn_increase_usd", True, True),
    ]
    assert "> warning threshold 10.0%" in gates[0].message
    assert not Gate("max_increase", True, "m").warning
    line = output.annotation(Gate("warn_increase", True, "a%b\nc", file="x,y.yaml"))
    assert line == "::warning file=x%2Cy.yaml,title=agentcost warn increase::a%25b%0Ac"


def test_a_removed_scenario_is_left_out_of_the_total_too(repo: Path) -> None:
    (repo / "gone.yaml").write_text(_scenario(9000), encoding="utf-8")
    (repo / "agentcost.yml").write_text(_project(["search.yaml", "gone.yaml"]), encoding="utf-8")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "two")
    (repo / "agentcost.yml").write_text(_project(["search.yaml"]), encoding="utf-8")
    from agentcost.infra.gitread import git_reader

    report = diff_paths(
        "agentcost.yml",
        "agentcost.yml",
        as_of=datetime(2026, 11, 30, tzinfo=UTC),
        base_reader=git_reader("HEAD"),
        limits=IncreaseLimits(usd=Decimal(0)),
    )
    t = report.totals
    assert (t.added, t.removed, t.removed_usd) == (0, 1, report.scenarios[1].before_usd)
    [total] = [g for g in diff_gates(report) if g.message.startswith("total per run:")]
    assert not total.tripped and "not gated: 1 removed -$" in total.message


def test_monthly_change_leads_the_headline(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "agentcost.yml").write_text(_project(["search.yaml"], runs_per_day=100), encoding="utf-8")
    _git(repo, "commit", "-q", "-am", "runs")
    (repo / "search.yaml").write_text(_scenario(2000), encoding="utf-8")
    _, out, _ = _cli(capsys, "--format", "json")
    totals = json.loads(out)["totals"]
    g, p = totals["gated"], totals["per_day"]
    assert (g["unit"], g["scope"]) == ("month", "paired")  # every scenario has runs_per_day
    assert Decimal(g["change_usd"]) == Decimal(p["change_per_month_usd"])
    _, out, _ = _cli(capsys, "--format", "markdown")
    headline = next(line for line in out.splitlines() if line.startswith("**"))
    from agentcost.report import fmt

    change = fmt.signed_usd(Decimal(g["change_usd"]))
    assert headline.startswith(f"**{change} per 30-day month (+")
    before, after = fmt.usd_pair(Decimal(p["before_usd"]) * 30, Decimal(p["after_usd"]) * 30)
    assert f"**: {before} → {after} (1 scenario: 1 changed)." in headline


# --------------------------------------------------------------------------------------------
# The comment
# --------------------------------------------------------------------------------------------


def test_comment_has_the_marker_and_says_whether_anything_changed(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    outputs = tmp_path / "github_output"
    monkeypatch.setenv("GITHUB_OUTPUT", str(outputs))
    code, out, _ = _cli(capsys, "--comment", "github")
    assert code == 0
    assert out.splitlines()[:2] == [COMMENT_MARKER, "<!-- agentcost-changed: no -->"]
    assert "#### agentcost diff:" in out  # Markdown, although no --format was given
    (repo / "search.yaml").write_text(_scenario(1500), encoding="utf-8")
    code, out, _ = _cli(capsys, "--comment", "gitlab", "--format", "markdown")
    assert out.splitlines()[:2] == [COMMENT_MARKER, "<!-- agentcost-changed: yes -->"]
    assert outputs.read_text(encoding="utf-8") == "changed=false\nchanged=true\n"
    code, _, err = _cli(capsys, "--comment", "github", "--format", "json")
    assert code == 2 and "--comment prints a Markdown comment" in err


def test_comment_escapes_names_and_suits_gitlab(repo: Path) -> None:
    (repo / "fresh.yaml").write_text(_scenario(1000), encoding="utf-8")
    (repo / "agentcost.yml").write_text(_project(["search.yaml", "fresh.yaml"]), encoding="utf-8")
    report = diff_paths("agentcost.yml", "agentcost.yml", as_of=datetime(2026, 11, 30, tzinfo=UTC))
    fresh = report.scenarios[1]
    evil = fresh.__class__(**{**fresh.__dict__, "path": "x`<b>*y*</b>.yaml", "status": "added"})
    warned = report.__class__(
        **{
            **report.__dict__,
            "scenarios": (report.scenarios[0], evil),
            "totals": replace(report.totals, added=1),
            "warnings": ("w <i>",),
        }
    )
    github = render_diff_comment(DiffComment(warned, "github"))
    gitlab = render_diff_comment(DiffComment(warned, "gitlab"))
    # a name from a file is shown as code (literal text), whatever it holds; a warning escaped
    assert "- Added: ``x`<b>*y*</b>.yaml``, $0.0000 per run." in github
    assert github.count("<b>") == github.count("``x`<b>")
    assert "w &lt;i>" in github
    assert "> [!WARNING]" in github and "> [!WARNING]" not in gitlab
    assert "> **Warning:** w" in gitlab


def test_json_with_the_new_keys_validates(repo: Path) -> None:
    (repo / "search.yaml").write_text(_scenario(2000), encoding="utf-8")
    from agentcost.infra.gitread import git_reader
    from agentcost.render.schema import kind_schema

    report = diff_paths(
        "agentcost.yml",
        "agentcost.yml",
        as_of=datetime(2026, 11, 30, tzinfo=UTC),
        base_reader=git_reader("HEAD"),
        limits=IncreaseLimits(warn_fraction=Decimal("0.1"), gate_new=True),
    )
    body = json.loads(output.render_text(report, Format.json, gates=diff_gates(report)))
    validate_json(body, kind_schema("diff"))
    assert body["limits"]["warn_increase"] == "0.1" and body["limits"]["gate_new_scenarios"] is True
    assert {g["name"] for g in body["gates"]} >= {"warn_increase"}
    assert build_diff  # the library entry point stays importable from commands.diff
