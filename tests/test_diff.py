"""`agentcost diff` as a library: exact deltas by hand arithmetic, --base-ref through git, project
files (added and removed scenarios), the gates, and every output format.

The main pair is small enough to work out on paper: gpt-4o with ``caching: none`` (so no cache to
reason about) and sizes given as ``{tokens: N}``. Rates: gpt-4o $2.50 input / $10 output per MTok
(shared/reference/pricing-facts.md §A.0, genai-prices 0.2.3 on 2026-11-30). OpenAI framing
(pricing-facts.md §C.2, the cookbook): 3 per message + the role, 3 reply-priming tokens per
request; a tool definition is func_init 7 + tokens of "name:description" (trailing period
dropped), plus func_end 12 once for all tools. Our loop framing (agentcost.tokens.count): a tool call is
3 + "assistant" + name + arguments + 9; a tool result 3 + "tool" + name + 7 + content.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from agentcost.commands.diff import diff_gates
from agentcost.commands.diff_read import diff_paths
from agentcost.errors import InputError
from agentcost.render import output
from agentcost.render.diff import COLUMNS
from agentcost.render.output import Format
from agentcost.render.schema import kind_schema, report_schema
from agentcost.report.diff import DiffReport
from agentcost.report.gates import IncreaseLimits, parse_increase
from agentcost.tokens.memo import count_text
from tests.conftest import GoldenCheck, validate_json
from tests.conftest import git_in as _git

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)
MTOK = Decimal(1_000_000)
GPT4O_INPUT = Decimal("2.50")  # $/MTok, pricing-facts.md §A.0
GPT4O_OUTPUT = Decimal(10)

pytestmark = pytest.mark.usefixtures("no_ctok", "fixed_terminal")

BASE = """\
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
  - {tool: search, call_tokens: 20, result: {tokens: 1000}}
  - {tool: search, call_tokens: 20, result: {tokens: 1000}}
final: {tokens: 200}
"""

# One more tool, and both results 2,000 tokens bigger.
HEAD = BASE.replace(
    "    input_schema: {type: object}\n",
    "    input_schema: {type: object}\n"
    "  - name: fetch\n"
    "    description: Fetch a page.\n"
    "    input_schema: {type: object}\n",
).replace("result: {tokens: 1000}", "result: {tokens: 3000}")


@pytest.fixture
def pair(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """base.yaml and head.yaml in a temporary folder, which is also the current directory (so
    that the paths in reports are short and the same on every machine)."""
    (tmp_path / "base.yaml").write_text(BASE, encoding="utf-8")
    (tmp_path / "head.yaml").write_text(HEAD, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return "base.yaml", "head.yaml"


def _diff(base: str, head: str, **options: object) -> DiffReport:
    return diff_paths(base, head, as_of=AS_OF, **options)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------
# Hand arithmetic
# --------------------------------------------------------------------------------------------


def test_the_token_counts_the_hand_arithmetic_rests_on() -> None:
    # o200k_base, which tiktoken maps gpt-4o to
    assert count_text("search:Search the web") == 5
    assert count_text("fetch:Fetch a page") == 5
    for word in ("system", "user", "assistant", "tool", "search"):
        assert count_text(word) == 1, word


def test_one_more_tool_and_bigger_results_exact_deltas(pair: tuple[str, str]) -> None:
    report = _diff(*pair)
    [s] = report.scenarios
    assert s.status == "changed" and s.path == "head.yaml"

    # Base, by hand. Tools: func_end 12 + (func_init 7 + 5) = 24. System 3 + 1 + 500 = 504;
    # task 3 + 1 + 100 = 104; reply priming 3. Request 1 = 24 + 504 + 104 + 3 = 635.
    # Each round appends its call (3 + 1 + 1 + 20 + 9 = 34) and its result (3 + 1 + 1 + 7 + 1,000
    # = 1,012): 1,046 tokens. Outputs: the call 1 + 20 + 9 = 30, the final answer 200.
    base_inputs = [635, 635 + 1046, 635 + 2 * 1046]
    assert [r.before.input_tokens for r in s.requests if r.before] == base_inputs == [635, 1681, 2727]
    assert [r.before.output_tokens for r in s.requests if r.before] == [30, 30, 200]

    # Head: one more definition, 7 + 5 = 12 tokens in every request; each result +2,000.
    tool_delta = 7 + 5
    head_inputs = [647, 647 + 3046, 647 + 2 * 3046]
    assert [r.after.input_tokens for r in s.requests if r.after] == head_inputs == [647, 3693, 6739]

    # Per request: +12, +12 + 2,000, +12 + 4,000; outputs unchanged.
    assert [r.change.input_tokens for r in s.requests] == [12, 2012, 4012]
    assert [r.change.output_tokens for r in s.requests] == [0, 0, 0]
    assert [r.change.cost_usd for r in s.requests] == [
        Decimal(12) * GPT4O_INPUT / MTOK,  # $0.00003
        Decimal(2012) * GPT4O_INPUT / MTOK,  # $0.00503
        Decimal(4012) * GPT4O_INPUT / MTOK,  # $0.01003
    ]
    assert all(r.status == "changed" for r in s.requests)

    # In total: 3 x 12 + 2 x 2,000 (request 2 carries one bigger result, request 3 two) = 6,036.
    total_delta = 3 * tool_delta + (1 + 2) * 2000
    assert total_delta == 6036
    assert s.change.input_tokens == report.totals.change.input_tokens == 6036
    assert s.change.output_tokens == 0 and s.change.cache_read_tokens == 0
    usd_delta = Decimal(6036) * GPT4O_INPUT / MTOK
    assert usd_delta == Decimal("0.01509")
    assert s.change.cost_usd == report.totals.change.cost_usd == usd_delta

    # Before: 5,043 input and 260 output tokens.
    before_usd = Decimal(sum(base_inputs)) * GPT4O_INPUT / MTOK + Decimal(260) * GPT4O_OUTPUT / MTOK
    assert before_usd == Decimal("0.0152075") == s.before_usd == report.totals.before_usd
    assert s.after_usd == report.totals.after_usd == before_usd + usd_delta == Decimal("0.0302975")
    assert s.change_fraction == usd_delta / before_usd  # 99.2%
    assert report.totals.change_fraction == usd_delta / before_usd

    # What changed in the inputs
    assert [c.text for c in s.inputs] == [
        "tools: +1 definition (+fetch), +12 tokens per request",
        "results: +4,000 tokens in all",
    ]
    tools = s.inputs[0]
    assert (tools.part, tools.before, tools.after) == ("tools", 24, 24 + tool_delta)
    results = s.inputs[1]
    assert (results.before, results.after) == (2 * 1012, 2 * 3012)


def test_max_increase_10_percent_trips_and_a_generous_limit_does_not(pair: tuple[str, str]) -> None:
    tight = _diff(*pair, limits=IncreaseLimits(fraction=parse_increase("10%")))
    [gate] = [g for g in diff_gates(tight) if g.name == "max_increase"]
    assert gate.tripped  # +99.2% > 10%
    assert gate.file == "head.yaml"
    assert gate.message == ("head.yaml: cost $0.0152 → $0.0303 (+99.2%) > allowed increase 10.0%")

    generous = _diff(*pair, limits=IncreaseLimits(fraction=parse_increase("100%")))
    [gate] = [g for g in diff_gates(generous) if g.name == "max_increase"]
    assert not gate.tripped  # 99.2% <= 100%

    # In dollars: +$0.01509 is over $0.01 and under $0.02.
    over = _diff(*pair, limits=IncreaseLimits(usd=Decimal("0.01")))
    under = _diff(*pair, limits=IncreaseLimits(usd=Decimal("0.02")))
    assert [g.tripped for g in diff_gates(over) if g.name == "max_increase_usd"] == [True]
    assert [g.tripped for g in diff_gates(under) if g.name == "max_increase_usd"] == [False]

    # No increase limit: only the head side's gates (gpt-4o's context window; no budget set).
    assert [(g.name, g.tripped) for g in diff_gates(_diff(*pair))] == [("context_window", False)]


def test_head_budget_gate_comes_from_the_head_side(pair: tuple[str, str]) -> None:
    report = _diff(*pair, budget_usd=Decimal("0.02"))
    budget = [g for g in diff_gates(report) if g.name == "budget"]
    assert [(g.tripped, g.file) for g in budget] == [(True, "head.yaml")]  # $0.0302975 > $0.02


def test_identical_sides_are_unchanged(pair: tuple[str, str]) -> None:
    report = _diff("base.yaml", "base.yaml", limits=IncreaseLimits(fraction=Decimal(0)))
    [s] = report.scenarios
    assert s.status == "unchanged" and not s.inputs
    assert all(r.status == "unchanged" for r in s.requests)
    assert s.change.cost_usd == 0 and s.change_fraction == 0
    assert not any(g.tripped for g in diff_gates(report))  # 0% is not above 0%


def test_more_rounds_add_requests_and_say_so(pair: tuple[str, str], tmp_path: Path) -> None:
    longer = BASE.replace(
        "final: {tokens: 200}",
        "  - {tool: search, call_tokens: 20, result: {tokens: 1000}}\nfinal: {tokens: 200}",
    )
    (tmp_path / "longer.yaml").write_text(longer, encoding="utf-8")
    forward = _diff("base.yaml", "longer.yaml")
    [s] = forward.scenarios
    assert [(r.index, r.status, r.label) for r in s.requests] == [
        (1, "unchanged", "search"),
        (2, "unchanged", "search"),
        (3, "changed", "final answer → search"),
        (4, "added", "final answer"),
    ]
    assert [c.text for c in s.inputs] == [
        "rounds: 2 → 3",
        "calls: +30 output tokens in all",
        "results: +1,012 tokens in all",
    ]
    added = s.requests[3]
    assert added.before is None and added.after is not None
    assert added.change.input_tokens == 2727 + 1046  # the whole new request
    back = _diff("longer.yaml", "base.yaml")
    assert [r.status for r in back.scenarios[0].requests][-1] == "removed"
    assert back.scenarios[0].inputs[0].text == "rounds: 3 → 2"


def test_model_caching_system_and_budget_changes_are_named(pair: tuple[str, str], tmp_path: Path) -> None:
    other = (
        BASE.replace("model: gpt-4o", "model: gpt-4o-mini")
        .replace("caching: none", "caching: conversation")
        .replace("system: {tokens: 500}", "system: {tokens: 585}")
        .replace("final: {tokens: 200}", "final: {tokens: 200}\nlimits: {budget_usd: 0.05}")
    )
    (tmp_path / "other.yaml").write_text(other, encoding="utf-8")
    [s] = _diff("base.yaml", "other.yaml").scenarios
    assert [c.text for c in s.inputs] == [
        "model: gpt-4o → gpt-4o-mini",
        "caching: none → conversation",
        "system: +85 tokens per request",
        "budget: none → $0.0500",
    ]
    assert s.model == "gpt-4o → gpt-4o-mini"


def test_tool_searches_and_failed_attempts_are_not_scenario_rounds(
    pair: tuple[str, str], tmp_path: Path
) -> None:
    # regression: the token sums over rounds zipped the scenario's rounds with every counted round,
    # inserted ones included, and crashed on a scenario with retries or deferred tools
    # on gpt-5.4: gpt-4o has no tool search (facts.yaml tool_search)
    base = BASE.replace("model: gpt-4o", "model: gpt-5.4")
    inserted = (
        base.replace(
            "    input_schema: {type: object}\n",
            "    input_schema: {type: object}\n    defer_loading: true\n",
        )
        + "retries: {count: 1}\n"
    )
    (tmp_path / "base54.yaml").write_text(base, encoding="utf-8")
    (tmp_path / "inserted.yaml").write_text(inserted, encoding="utf-8")
    [s] = _diff("base54.yaml", "inserted.yaml").scenarios
    # a tool search before round 0, a failed attempt before round 1: two more requests
    assert [(r.index, r.status, r.label) for r in s.requests] == [
        (1, "changed", "search → tool_search"),
        (2, "changed", "search"),
        (3, "changed", "final answer → search (failed, retried)"),
        (4, "added", "search"),
        (5, "added", "final answer"),
    ]
    # the scenario rounds' calls and results are the same on both sides: only the tool prefix changed
    # (OpenAI keeps a deferred function's name and description: "search" has no parameters, so its
    # stub is its whole definition and only the tool-search tool's 120 tokens are added)
    assert [c.text for c in s.inputs] == ["tools: +120 tokens per request"]


def test_overrides_apply_to_both_sides(pair: tuple[str, str]) -> None:
    report = _diff(*pair, overrides=["model=gpt-4o-mini"])
    [s] = report.scenarios
    assert s.base is not None and s.head is not None
    assert s.base.model_id == s.head.model_id == "gpt-4o-mini"
    # the same token deltas, at gpt-4o-mini's $0.15/MTok input (pricing-facts.md §A.0)
    assert s.change.input_tokens == 6036
    assert s.change.cost_usd == Decimal(6036) * Decimal("0.15") / MTOK


# --------------------------------------------------------------------------------------------
# --base-ref: the base side read from git
# --------------------------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_base_ref_reads_the_committed_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentcost.infra.gitread import git_reader

    repo = tmp_path / "repo"
    (repo / "scenarios").mkdir(parents=True)
    scenario = repo / "scenarios" / "agent.yaml"
    scenario.write_text(BASE, encoding="utf-8")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "base")
    scenario.write_text(HEAD, encoding="utf-8")  # the working tree now has the head version
    monkeypatch.chdir(repo)

    path = Path("scenarios/agent.yaml")
    report = diff_paths(
        path,
        path,
        as_of=AS_OF,
        base_reader=git_reader("HEAD"),
        limits=IncreaseLimits(fraction=Decimal("0.1")),
    )
    assert (report.base_label, report.head_label) == ("HEAD", "working tree")
    [s] = report.scenarios
    # the before side is the committed text, the after side the edited file: the same deltas as
    # the two files above
    assert s.base is not None and s.base.totals.cost_usd == Decimal("0.0152075")
    assert s.head is not None and s.head.totals.cost_usd == Decimal("0.0302975")
    assert s.change.input_tokens == 6036
    assert [c.part for c in s.inputs] == ["tools", "results"]
    assert [g.tripped for g in diff_gates(report) if g.name == "max_increase"] == [True]

    # A scenario that is not in the base revision is new: "added", no increase gate.
    (repo / "scenarios" / "new.yaml").write_text(BASE, encoding="utf-8")
    new = Path("scenarios/new.yaml")
    added = diff_paths(
        new, new, as_of=AS_OF, base_reader=git_reader("HEAD"), limits=IncreaseLimits(Decimal(0))
    )
    assert [s.status for s in added.scenarios] == ["added"]
    assert added.totals.change_fraction is None
    assert not [g for g in diff_gates(added) if g.name == "max_increase"]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_base_ref_with_a_project_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentcost.infra.gitread import git_reader

    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "search.yaml").write_text(BASE, encoding="utf-8")
    (repo / "gone.yaml").write_text(BASE, encoding="utf-8")
    _project(repo, "  - {path: search.yaml}\n  - {path: gone.yaml}\n")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "base")
    (repo / "search.yaml").write_text(HEAD, encoding="utf-8")
    (repo / "gone.yaml").unlink()
    _project(repo, "  - {path: search.yaml}\n")
    monkeypatch.chdir(repo)

    report = diff_paths("agentcost.yml", "agentcost.yml", as_of=AS_OF, base_reader=git_reader("HEAD"))
    assert [(s.path, s.status) for s in report.scenarios] == [
        ("search.yaml", "changed"),
        ("gone.yaml", "removed"),
    ]
    assert report.scenarios[0].change.cost_usd == Decimal("0.01509")
    assert report.totals.change.cost_usd == Decimal("0.01509") - Decimal("0.0152075")


# --------------------------------------------------------------------------------------------
# Project files
# --------------------------------------------------------------------------------------------


def _project(folder: Path, entries: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "agentcost.yml"
    path.write_text(f"version: 1\nname: Agents\nscenarios:\n{entries}", encoding="utf-8")
    return path


def test_project_diff_pairs_by_path_and_shows_added_and_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for side in ("old", "new"):
        (tmp_path / side).mkdir()
        (tmp_path / side / "search.yaml").write_text(BASE if side == "old" else HEAD, encoding="utf-8")
    (tmp_path / "old" / "gone.yaml").write_text(BASE, encoding="utf-8")
    (tmp_path / "new" / "fresh.yaml").write_text(BASE, encoding="utf-8")
    _project(
        tmp_path / "old",
        "  - {path: search.yaml, runs_per_day: 100}\n  - {path: gone.yaml, runs_per_day: 10}\n",
    )
    _project(
        tmp_path / "new",
        "  - {path: search.yaml, runs_per_day: 100}\n  - {path: fresh.yaml, runs_per_day: 20}\n",
    )
    report = _diff("old/agentcost.yml", "new/agentcost.yml", limits=IncreaseLimits(fraction=Decimal("0.5")))
    assert report.kind == "project"
    assert [(s.path, s.status) for s in report.scenarios] == [
        ("search.yaml", "changed"),
        ("fresh.yaml", "added"),
        ("gone.yaml", "removed"),
    ]
    search, fresh, gone = report.scenarios
    assert search.change.cost_usd == Decimal("0.01509")  # as for the two files above
    assert fresh.before_usd is None and fresh.after_usd == Decimal("0.0152075")
    assert fresh.change_fraction is None and fresh.change.cost_usd == Decimal("0.0152075")
    assert gone.after_usd is None and gone.change.cost_usd == Decimal("-0.0152075")
    assert [r.status for r in fresh.requests] == ["added"] * 3
    assert [r.status for r in gone.requests] == ["removed"] * 3
    assert gone.file == str(Path("old/gone.yaml"))

    t = report.totals
    assert (t.scenarios, t.changed, t.added, t.removed, t.unchanged) == (3, 1, 1, 1, 0)
    # before: search + gone = 2 x 0.0152075; after: search' + fresh = 0.0302975 + 0.0152075
    assert t.before_usd == Decimal("0.030415")
    assert t.after_usd == Decimal("0.045505")
    assert t.change.cost_usd == Decimal("0.01509")  # the added and removed scenarios cost the same
    assert t.change_fraction == Decimal("0.01509") / Decimal("0.030415")  # 49.6%
    assert t.change.input_tokens == 6036

    # Per day: search 100 x (0.0302975 - 0.0152075) = 1.509; fresh +20 x 0.0152075 = 0.30415;
    # gone -10 x 0.0152075 = -0.152075. Total +1.661075 a day, x 30 = 49.83225 a month.
    assert search.per_day is not None and search.per_day.change_usd == Decimal("1.509")
    assert t.per_day is not None
    assert t.per_day.change_usd == Decimal("1.509") + Decimal("0.30415") - Decimal("0.152075")
    assert t.per_day.change_per_month_usd == Decimal("49.83225")

    # Increase gates: search (+99.2% > 50%) and the total of the scenarios on both sides (search
    # alone, issue 18); none for the added one. --gate-new-scenarios: the whole total (+49.6% <= 50%).
    increase = [(g.message.split(":")[0], g.tripped) for g in diff_gates(report) if g.name == "max_increase"]
    assert increase == [("search.yaml", True), ("total per 30-day month", True)]
    totals_gate = next(g for g in diff_gates(report) if g.message.startswith("total per 30-day month:"))
    assert totals_gate.file == str(Path("new/agentcost.yml"))


def test_project_diff_against_a_base_ref_without_the_project_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "search.yaml").write_text(BASE, encoding="utf-8")
    project = _project(tmp_path, "  - {path: search.yaml}\n")

    def nothing_at_base(path: Path) -> bytes:
        raise FileNotFoundError(f"{path} not found at base")

    report = diff_paths(
        project.name,
        project.name,
        as_of=AS_OF,
        base_reader=nothing_at_base,
        base_label="main",
        limits=IncreaseLimits(fraction=Decimal("0.1")),
    )
    assert [s.status for s in report.scenarios] == ["added"]
    assert report.totals.before_usd == 0 and report.totals.change_fraction is None
    assert report.base_label == "main"
    # A project new on the head side is gated by its budgets only: no "increase" from nothing.
    assert [g.name for g in diff_gates(report)] == ["context_window"]
    markdown = output.render_text(report, Format.markdown)
    assert "| `search.yaml` | gpt-4o | - | $0.0152 | **+$0.0152** | added |" in markdown
    assert "Per request" not in markdown  # an added scenario's requests are `agentcost estimate`'s job
    assert "**Gates: ✅ all 1 passed**" in markdown


def test_a_project_file_and_a_scenario_file_cannot_be_compared(pair: tuple[str, str], tmp_path: Path) -> None:
    _project(tmp_path / "p", "  - {path: ../base.yaml}\n")
    with pytest.raises(InputError, match=r"project file .* scenario file"):
        _diff("p/agentcost.yml", "head.yaml")


# --------------------------------------------------------------------------------------------
# Output formats
# --------------------------------------------------------------------------------------------


def _tight(pair: tuple[str, str]) -> DiffReport:
    return _diff(*pair, limits=IncreaseLimits(fraction=Decimal("0.1")))


def test_markdown_golden(pair: tuple[str, str], golden: GoldenCheck) -> None:
    report = _tight(pair)
    text = output.render_text(report, Format.markdown, gates=diff_gates(report))
    assert text.startswith("#### agentcost diff: `base.yaml` → `head.yaml`\n")
    assert "**+$0.0151 per run (+99.2%)**: $0.0152 → $0.0303" in text
    assert (
        "**Gates: ❌ 1 of 2 failed**\n\n- ❌ max increase: head.yaml: cost $0.0152 → $0.0303 (+99.2%)" in text
    )
    assert "<details><summary>✅ 1 passed</summary>\n\n- ✅ context window:" in text
    assert "<details><summary>Per request: <code>head.yaml</code> (changed)</summary>" in text
    golden("diff.md", text)


def test_json_validates_against_the_kind_and_the_published_schema(pair: tuple[str, str]) -> None:
    report = _tight(pair)
    data = json.loads(output.render_text(report, Format.json, gates=diff_gates(report)))
    assert (data["version"], data["kind"]) == (1, "diff")
    validate_json(data, kind_schema("diff"))
    validate_json(data, report_schema())  # the envelope with this kind inside
    [s] = data["scenarios"]
    assert s["change"] == {
        "input_tokens": 6036,
        "cache_read_tokens": 0,
        "cache_write_tokens": 0,
        "output_tokens": 0,
        "cost_usd": "0.01509",
    }
    assert [r["change"]["input_tokens"] for r in s["requests"]] == [12, 2012, 4012]
    assert s["inputs"][0] == {
        "part": "tools",
        "before": 24,
        "after": 36,
        "text": "tools: +1 definition (+fetch), +12 tokens per request",
    }
    assert data["totals"]["before"]["cost_usd"] == "0.0152075"
    assert data["totals"]["after"]["cost_usd"] == "0.0302975"
    assert Decimal(data["totals"]["change_fraction"]) == Decimal("0.01509") / Decimal("0.0152075")
    assert data["limits"] == {
        "max_increase": "0.1",
        "max_increase_usd": None,
        "warn_increase": None,
        "warn_increase_usd": None,
        "gate_new_scenarios": False,
    }
    assert [(g["name"], g["tripped"]) for g in data["gates"]] == [
        ("max_increase", True),
        ("context_window", False),
    ]


def test_project_json_validates_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()  # a checkout: its projects may name scenarios anywhere in it
    (tmp_path / "a.yaml").write_text(BASE, encoding="utf-8")
    (tmp_path / "b.yaml").write_text(HEAD, encoding="utf-8")
    _project(tmp_path / "x", "  - {path: ../a.yaml, runs_per_day: 2.5}\n")
    _project(tmp_path / "y", "  - {path: ../b.yaml, runs_per_day: 2.5}\n")
    report = _diff("x/agentcost.yml", "y/agentcost.yml")
    data = json.loads(output.render_text(report, Format.json, gates=diff_gates(report)))
    validate_json(data, report_schema())
    assert [s["status"] for s in data["scenarios"]] == ["added", "removed"]
    assert data["scenarios"][0]["per_day"]["runs_after"] == "2.5"


def test_csv_parses_back(pair: tuple[str, str]) -> None:
    text = output.render_text(_tight(pair), Format.csv)
    rows = list(csv.DictReader(io.StringIO(text)))
    assert tuple(rows[0]) == COLUMNS
    requests, scenario_total, grand_total = rows[:3], rows[3], rows[4]
    assert [r["request"] for r in requests] == ["1", "2", "3"]
    assert [int(r["change_input_tokens"]) for r in requests] == [12, 2012, 4012]
    assert [r["after_tool"] for r in requests] == ["search", "search", ""]
    assert sum(Decimal(r["change_cost_usd"]) for r in requests) == Decimal(scenario_total["change_cost_usd"])
    assert scenario_total["request"] == "total" and scenario_total["status"] == "changed"
    assert int(scenario_total["change_input_tokens"]) == 6036
    assert grand_total["scenario"] == "total"
    assert (
        grand_total["before_cost_usd"],
        grand_total["after_cost_usd"],
        grand_total["change_cost_usd"],
    ) == (
        "0.0152075",
        "0.0302975",
        "0.01509",
    )
    assert grand_total["before_input_tokens"] == "5043" and grand_total["after_input_tokens"] == "11079"


def test_rich_table_and_quiet(pair: tuple[str, str]) -> None:
    report = _tight(pair)
    text = output.render_text(report, Format.table, width=110)
    assert "agentcost diff: base.yaml → head.yaml" in text
    assert "tools: +1 definition (+fetch), +12 tokens per request" in text
    row = next(line for line in text.splitlines() if line.startswith("│ 2 │"))
    assert [cell.strip() for cell in row.split("│")[2:6]] == ["search", "3,693", "+2,012", "0"]
    assert "✗ FAILED max increase: head.yaml" in text
    assert output.quiet_total(report) == "0.01509\n"


def test_svg_renders(pair: tuple[str, str]) -> None:
    svg = output.render_text(_tight(pair), Format.svg)
    assert svg.lstrip().startswith("<svg")
