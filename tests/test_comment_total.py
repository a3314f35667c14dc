"""Issue 30, item 4 and the container image: one total for a diff's headline and its total gates
(labelled with its unit everywhere it is shown), the action's missing project file as an
``::error`` naming the path and the ``project:`` input, and the Dockerfile (git installed,
dependencies pinned by ``constraints.txt``, runnable as the invoking user).

Reports are built in-process from estimates (:func:`agentcost.commands.diff.build_diff`); the action's
diff step is run once with bash. Docker's daemon is not needed: the Dockerfile's content is checked.

``python tests/test_comment_total.py > constraints.txt`` regenerates the constraints from
pyproject.toml and the environment it runs in (Python 3.11, as the image).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import replace
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from agentcost.commands.diff import Pair, build_diff, diff_gates
from agentcost.render import output
from agentcost.render.diff import DiffComment, render_diff_comment
from agentcost.render.output import Format
from agentcost.report import fmt
from agentcost.report.diff import DiffReport
from agentcost.report.fmt import signed_percent
from agentcost.report.gates import IncreaseLimits

ROOT = Path(__file__).resolve().parent.parent
AS_OF = "2026-11-30"

SCENARIO = """\
version: 1
name: NAME
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


@cache
def _estimate(result: int, name: str) -> Any:
    """The estimate of SCENARIO named ``name`` with a tool result of ``result`` tokens (memoised)."""
    import tempfile
    from datetime import UTC, datetime

    from agentcost.loop.estimate import estimate

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{name}.yaml"
        path.write_text(SCENARIO.replace("NAME", name).replace("RESULT", str(result)), encoding="utf-8")
        return estimate(path, as_of=datetime(2026, 11, 30, tzinfo=UTC))


def _cost(result: int) -> Decimal:
    from agentcost.report.build import build_report

    cost: Decimal = build_report(_estimate(result, "A")).totals.cost_usd
    return cost


LIMITS = IncreaseLimits(fraction=Decimal("0.2"), usd=Decimal("0.001"), warn_fraction=Decimal("0.05"))


def _project_diff(runs: tuple[int, int, int] | None) -> DiffReport:
    """a.yaml 1,000 -> 1,100 result tokens, b.yaml 1,000 -> 4,000, c.yaml added (3,000); with
    ``runs`` their runs_per_day."""
    r = runs or (None, None, None)
    day = [None if n is None else Decimal(n) for n in r]
    pairs = [
        Pair("a.yaml", _estimate(1000, "A"), _estimate(1100, "A"), day[0], day[0]),
        Pair("b.yaml", _estimate(1000, "B"), _estimate(4000, "B"), day[1], day[1]),
        Pair("c.yaml", None, _estimate(3000, "C"), None, day[2]),
    ]
    return build_diff(
        pairs, base_label="main", head_label="pr", kind="project", limits=LIMITS, total_file="agentcost.yml"
    )


def _bold(markdown: str) -> str:
    return next(line for line in markdown.splitlines() if line.startswith("**"))


def test_the_headline_and_the_total_gate_use_one_total_per_month() -> None:
    report = _project_diff((1000, 10, 50))
    g = report.totals.gated
    # weighted by runs, 30 days, the two scenarios on both sides (c.yaml is added: left out)
    before = 30 * (1000 * _cost(1000) + 10 * _cost(1000))
    after = 30 * (1000 * _cost(1100) + 10 * _cost(4000))
    assert (g.unit, g.scope, g.scenarios, g.label) == ("month", "paired", 2, "per 30-day month")
    assert (g.before_usd, g.after_usd) == (before, after)
    assert (g.added, g.added_usd) == (1, 30 * 50 * _cost(3000))
    assert g.runs_per_month == 30 * 1010
    fraction = (after - before) / before
    assert Decimal("0.03") < fraction < Decimal("0.05")  # +4.0%, where one run of each rose +47.9%

    shown = fmt.signed_usd(after - before), signed_percent(fraction), *fmt.usd_pair(before, after)
    gates = {g.name: g for g in diff_gates(report) if g.message.startswith("total per 30-day month: ")}
    assert set(gates) == {"max_increase", "max_increase_usd", "warn_increase"}
    assert (
        f"cost {shown[2]} → {shown[3]} ({shown[1]}) <= allowed increase 20.0%"
        in gates["max_increase"].message
    )
    assert "($0.0010 per run × 30,300 runs)" in gates["max_increase_usd"].message
    assert not any(g.tripped for g in gates.values())
    assert not [g for g in diff_gates(report) if g.message.startswith("total per run")]

    headline = f"**{shown[0]} per 30-day month ({shown[1]})**: {shown[2]} → {shown[3]} ("
    markdown = output.render_text(report, Format.markdown, gates=diff_gates(report))
    assert _bold(markdown).startswith(headline)  # the comment and the step summary
    assert "this total: the 2 scenarios on both sides)." in _bold(markdown)
    comment = render_diff_comment(DiffComment(report, "github"))
    assert _bold(comment) == _bold(markdown)
    table = output.render_text(report, Format.table, gates=diff_gates(report), width=200)
    assert headline.replace("**", "") in table
    body = json.loads(output.render_text(report, Format.json, gates=diff_gates(report)))
    assert body["totals"]["gated"] | {"added_usd": "-"} == {
        "unit": "month",
        "label": "per 30-day month",
        "scope": "paired",
        "scenarios": 2,
        "before_usd": fmt.exact(before),
        "after_usd": fmt.exact(after),
        "change_usd": fmt.exact(after - before),
        "change_fraction": fmt.exact(fraction),
        "added": 1,
        "added_usd": "-",
        "removed": 0,
        "removed_usd": "0",
        "runs_per_month": "30300",
    }
    # no second percentage in the table's total row contradicts the headline
    total_row = next(line for line in markdown.splitlines() if line.startswith("| **total**"))
    assert total_row.split(" | ")[5] == "-"


def test_without_runs_per_day_the_total_is_per_run_and_said_so() -> None:
    report = _project_diff(None)
    g = report.totals.gated
    before, after = 2 * _cost(1000), _cost(1100) + _cost(4000)
    assert (g.unit, g.before_usd, g.after_usd, g.runs_per_month) == ("run", before, after, None)
    change = fmt.signed_usd(after - before)
    percent = signed_percent((after - before) / before)
    assert _bold(output.render_text(report, Format.markdown)).startswith(f"**{change} per run ({percent})**")
    [gate] = [g for g in diff_gates(report) if g.name == "max_increase" and g.message.startswith("total")]
    assert gate.tripped and gate.message.startswith("total per run: cost ")
    assert f"({percent}) > allowed increase 20.0%; scenarios on both sides only, not gated: 1 added +$" in (
        gate.message
    )
    # --gate-new-scenarios: the whole total, the added scenario in it, the same in both places
    whole = build_diff(
        [replace(p) for p in _pairs_of(report)],
        base_label="main",
        head_label="pr",
        kind="project",
        limits=replace(LIMITS, gate_new=True),
    )
    w = whole.totals.gated
    assert (w.scope, w.after_usd, w.added) == ("all", after + _cost(3000), 0)
    assert "this total" not in _bold(output.render_text(whole, Format.markdown))


def _pairs_of(report: DiffReport) -> list[Pair]:
    est = {"a.yaml": ("A", 1000, 1100), "b.yaml": ("B", 1000, 4000)}
    pairs = [Pair(k, _estimate(b, n), _estimate(a, n)) for k, (n, b, a) in est.items()]
    return [*pairs, Pair("c.yaml", None, _estimate(3000, "C"))]


def test_a_failed_check_is_not_repeated_as_a_warning() -> None:
    report = _project_diff((1000, 10, 50))
    named = [(g.name, g.tripped) for g in diff_gates(report) if g.message.startswith("b.yaml:")]
    # b.yaml rose +92.7%: over 20% and over the 5% warning; the failure alone is reported
    assert named == [("max_increase", True), ("max_increase_usd", True)]
    a = [(g.name, g.tripped) for g in diff_gates(report) if g.message.startswith("a.yaml:")]
    assert ("warn_increase", False) in a  # +3.1%: the warning level is checked where nothing failed


# --------------------------------------------------------------------------------------------
# The action: a missing project file
# --------------------------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_the_action_names_the_path_and_the_project_input_when_the_file_is_missing(tmp_path: Path) -> None:
    out = tmp_path / "output"
    out.write_text("", encoding="utf-8")
    env = {"PATH": os.environ["PATH"], "GITHUB_OUTPUT": str(out), "RUNNER_TEMP": str(tmp_path)}
    script = ROOT / ".github" / "agentcost-action" / "diff.sh"
    run = subprocess.run(
        ["bash", str(script)],
        cwd=tmp_path,
        env={**env, "INPUT_BASE_REF": "origin/main"},  # INPUT_PROJECT empty: the default
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0 and out.read_text(encoding="utf-8") == "status=2\n"  # the gate step exits 2
    [line] = run.stdout.splitlines()
    assert line.startswith("::error title=agentcost::agentcost.yml: file not found (looked for ")
    assert f"looked for {tmp_path}/agentcost.yml;" in line
    assert "set the action's project: input" in line and "project: scenarios/agentcost.yml" in line


def test_bad_input_is_an_error_annotation_under_github_actions(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from agentcost.cli import run

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    assert run(["diff", "missing.yml", "other.yml"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "agentcost: error: missing.yml: file not found"
    assert err[1] == "::error file=missing.yml,title=agentcost input error::missing.yml: file not found"


# --------------------------------------------------------------------------------------------
# The container image
# --------------------------------------------------------------------------------------------

PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([0-9][0-9A-Za-z.+!-]*)$")


def _pins() -> dict[str, str]:
    lines = (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines()
    pins = {}
    for line in (x for x in lines if x and not x.startswith("#")):
        match = PIN.match(line)
        assert match, f"constraints.txt: not NAME==VERSION: {line!r}"
        pins[_norm(match[1])] = match[2]
    return pins


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirements() -> list[Any]:
    """pyproject.toml's dependencies that apply on the image's Python (3.11)."""
    from packaging.markers import default_environment
    from packaging.requirements import Requirement

    env = {**default_environment(), "python_version": "3.11", "python_full_version": "3.11.0", "extra": ""}
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    reqs = [Requirement(d) for d in deps]
    return [r for r in reqs if r.marker is None or r.marker.evaluate(env)]


def test_the_dockerfile_installs_git_and_pins_every_dependency() -> None:
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert re.search(r"apt-get install -y --no-install-recommends git\b", text)
    assert "rm -rf /var/lib/apt/lists/*" in text
    assert re.search(r"^COPY pyproject\.toml README\.md constraints\.txt \./$", text, re.M)
    assert "pip install --constraint constraints.txt ." in text
    ignored = (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
    assert "constraints.txt" not in ignored and "*.txt" not in ignored
    pins = _pins()
    for req in _requirements():  # each direct dependency pinned within pyproject's range
        version = pins.get(_norm(req.name))
        assert version is not None, f"constraints.txt does not pin {req.name}"
        assert req.specifier.contains(version, prereleases=True), f"{req.name}=={version} not in {req}"
    assert {"pydantic", "typing-extensions", "regex"} <= set(pins)  # and what they depend on


def test_the_image_runs_as_the_invoking_user_on_a_mounted_directory() -> None:
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert "XDG_CACHE_HOME=/cache" in text and "mkdir -m 1777 /cache" in text  # any uid has a cache
    docs = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    section = docs[docs.index("## Docker") :]
    assert '--user "$(id -u):$(id -g)"' in section and '-v "$PWD:/work"' in section


def _constraints() -> str:
    """constraints.txt from pyproject.toml and the installed distributions: every dependency that
    applies on Python 3.11, and theirs, at the version installed here."""
    from importlib.metadata import distribution

    from packaging.markers import default_environment
    from packaging.requirements import Requirement

    env = {**default_environment(), "python_version": "3.11", "python_full_version": "3.11.0", "extra": ""}
    seen: dict[str, str] = {}
    todo = list(_requirements())
    while todo:
        req = todo.pop()
        if _norm(req.name) in seen or (req.marker is not None and not req.marker.evaluate(env)):
            continue
        dist = distribution(req.name)
        seen[_norm(req.name)] = dist.version
        todo += [Requirement(r) for r in dist.requires or []]
    head = (
        "# The Docker image's dependencies, pinned (Dockerfile: pip install --constraint constraints.txt).\n"
        "# Generated from pyproject.toml by `python tests/test_comment_total.py > constraints.txt`\n"
        "# on Python 3.11; tests/test_comment_total.py checks each pin against pyproject's ranges.\n"
    )
    return head + "".join(f"{name}=={seen[name]}\n" for name in sorted(seen))


if __name__ == "__main__":
    sys.stdout.write(_constraints())
