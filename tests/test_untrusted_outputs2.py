"""Untrusted inputs, round two (issue 28, items 3-6 and two of item 10), each through the real
command line or the function that does the work, with the exact result:

* numbers: a value of ten characters (``1e99999999``) anywhere a number is read exits 2 with one
  line, and no huge integer is ever built (the magnitude is read from the exponent first);
* CSV: no cell of any CSV report starts a spreadsheet formula (OWASP's rule), while agentcost's own
  signed numbers stay numbers;
* names are bounded for display and a Markdown report kept under GitHub's limits, saying so;
* the comment step of the action edits only a comment its own account wrote;
* ``calibrate`` keeps a tool name with NEL exact, ``reconcile --runs-per-day`` names its limit.

docs/security.md, docs/limits.md and docs/ci.md describe the rules.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from agentcost.cli import run
from agentcost.infra.validate import numeral_problem, small_whole

OK = "version: 1\nmodel: gpt-5\ntask: hi\nfinal: 10\n"  # the smallest valid scenario: lines 1-4


def cli(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    files: dict[str, str],
    argv: list[str],
) -> tuple[int, str, str]:
    """Write ``files`` into an empty directory and run ``agentcost ARGV`` there: (exit code, stdout, stderr)."""
    monkeypatch.chdir(tmp_path)
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    code = run(argv)
    out, err = capsys.readouterr()
    return code, out, err


# ---------------------------------------------------------------------------------------------
# Item 5: a number of ten characters never builds a huge integer

AMBIGUOUS = "ambiguous: '{0}' could be a size or a text (write a whole number for a size in tokens, or {{text: \"{0}\"}} for the text)"
UNQUOTED = (  # the same from a named file (a subagent's, a project's scenario): its text is never quoted
    'ambiguous: a number could be a size or a text (write a whole number for a size in tokens, or {text: "..."}'
    " for the text"
)
BIG = "1e99999999"  # int() of it: a hundred million digits, minutes of CPU
HUGE = "1e10000000000000"  # int() of it: a MemoryError at once, so a regression fails fast here


@pytest.mark.parametrize(
    ("files", "argv", "message"),
    [
        pytest.param(
            {"s.yaml": OK.replace("final: 10", f"final: {BIG}")},
            ["estimate", "s.yaml"],
            "s.yaml:4: final: " + AMBIGUOUS.format(BIG),
            id="final",
        ),
        pytest.param(
            {"s.yaml": OK.replace("final: 10", f"final: {HUGE}")},
            ["estimate", "s.yaml"],
            "s.yaml:4: final: " + AMBIGUOUS.format(HUGE),
            id="final, exponent of 14 digits",
        ),
        pytest.param(
            {"s.yaml": OK.replace("task: hi", f"task: -{BIG}")},
            ["estimate", "s.yaml"],
            "s.yaml:3: task: " + AMBIGUOUS.format("-" + BIG),
            id="task, negative",
        ),
        pytest.param(
            {"s.yaml": OK + f"system: {BIG}\n"},
            ["estimate", "s.yaml"],
            "s.yaml:5: system: " + AMBIGUOUS.format(BIG),
            id="system",
        ),
        pytest.param(
            {"s.yaml": OK + f"rounds:\n  - {{tool: x, call_tokens: 3, result: {BIG}}}\n"},
            ["estimate", "s.yaml"],
            "s.yaml:6: rounds[0].result: " + AMBIGUOUS.format(BIG),
            id="result",
        ),
        pytest.param(
            {"s.yaml": OK + f"rounds:\n  - {{reply: 10, user: {BIG}}}\n"},
            ["estimate", "s.yaml"],
            "s.yaml:6: rounds[0].user: " + AMBIGUOUS.format(BIG),
            id="a chat user",
        ),
        pytest.param(
            {
                "s.yaml": OK + "rounds:\n  - {tool: x, call_tokens: 3, subagent: {file: sub.yaml}}\n",
                "sub.yaml": OK.replace("final: 10", f"final: {BIG}"),
            },
            ["estimate", "s.yaml"],
            "sub.yaml:4: final: " + UNQUOTED + "; subagent file named at s.yaml:6)",
            id="a subagent's final",
        ),
        pytest.param(
            {"s.yaml": OK},
            ["estimate", "s.yaml", "--set", f"final={BIG}"],
            f"s.yaml: --set final={BIG}: " + AMBIGUOUS.format(BIG),
            id="--set",
        ),
        pytest.param(
            {
                "s.yaml": OK,
                "p.yml": f"version: 1\nname: P\nscenarios:\n  - {{path: s.yaml, set: [final={BIG}]}}\n",
            },
            ["estimate", "p.yml"],
            f"p.yml:4: scenarios[0].set[0]: final={BIG}: " + UNQUOTED + "; set: applies to s.yaml)",
            id="a project's set:",
        ),
        pytest.param(
            {"s.yaml": OK.replace("task: hi", f"task: {{tokens: -{BIG}}}")},
            ["estimate", "s.yaml"],
            f"s.yaml:3: task.tokens: must be >= 0, got -{BIG}",
            id="a size, negative",
        ),
        pytest.param(
            {"s.yaml": OK + f"rounds:\n  - {{tool: x, call_tokens: -{HUGE}}}\n"},
            ["estimate", "s.yaml"],
            f"s.yaml:6: rounds[0].call_tokens: must be >= 1, got -{HUGE}",
            id="a positive count, negative",
        ),
        pytest.param(
            {"s.yaml": OK.replace("task: hi", f"task: {{tokens: {BIG}}}")},
            ["estimate", "s.yaml"],
            f"s.yaml:3: task.tokens: must be <= 1,000,000,000, got {BIG}",
            id="a size",
        ),
        pytest.param(
            {"s.yaml": OK + "limits: {budget_usd: 1e-99999999}\n"},
            ["estimate", "s.yaml"],
            "s.yaml:5: limits.budget_usd: must be 0 or at least 1e-100, got 1e-99999999",
            id="an amount of 1e-99999999 (its dollars would take 10^8 digits)",
        ),
    ],
)
def test_a_number_of_ten_characters_is_one_line_and_exit_2(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    files: dict[str, str],
    argv: list[str],
    message: str,
) -> None:
    code, out, err = cli(tmp_path, monkeypatch, capsys, files, argv)
    assert (code, out, err) == (2, "", f"agentcost: error: {message}\n")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("1e99999999", None),
        ("-1e99999999", None),
        ("1e15", None),  # the first magnitude no hint shows
        ("9.99e14", 999_000_000_000_000),
        ("1.5e3", 1500),
        ("1.5", None),
        ("1e-99999999", None),
    ],
)
def test_small_whole_reads_the_magnitude_before_any_int(value: str, expected: int | None) -> None:
    assert small_whole(Decimal(value)) == expected


def test_a_hint_names_the_size_only_when_it_is_small() -> None:
    assert numeral_problem("1.5e3", "content") == (
        "ambiguous: '1.5e3' could be a size or a text",
        'write 1500 for a size in tokens, or {text: "1.5e3"} for the text',
    )
    assert (
        numeral_problem(BIG, "content")[1]
        == f'write a whole number for a size in tokens, or {{text: "{BIG}"}} for the text'
    )


# ---------------------------------------------------------------------------------------------
# Item 4: no CSV cell starts a formula; agentcost's own signed numbers stay numbers

FORMULAS = ['=HYPERLINK("https://e.vil","x")', "+cmd|' /C calc'!A0", "-2+3+cmd", "@SUM(1+1)*cmd"]


@pytest.mark.parametrize(
    ("cell", "written"),
    [
        ('=HYPERLINK("https://e.vil","x")', '\'=HYPERLINK("https://e.vil","x")'),
        ("+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"),
        ("-2+3+cmd", "'-2+3+cmd"),
        ("@SUM(1+1)", "'@SUM(1+1)"),
        ("\t=1+1", "\\t=1+1"),  # plain() shows the tab escaped: the cell starts with a backslash
        ("\r=1+1", "\\r=1+1"),
        ("-", "'-"),
        ("-0.0020", "-0.0020"),  # a change in dollars: a number, no formula
        ("+12", "+12"),
        ("-12", "-12"),
        ("-1e3", "'-1e3"),  # agentcost writes no exponent; a name that looks so is text
        ("1+1", "1+1"),  # only the first character starts a formula
        ("read_file", "read_file"),
        ("", ""),
    ],
)
def test_csv_cell_by_owasps_rule(cell: str, written: str) -> None:
    from agentcost.infra.text import csv_cell

    assert csv_cell(cell) == written


def _cells(text: str) -> list[str]:
    import csv
    import io

    return [cell for row in csv.reader(io.StringIO(text)) for cell in row]


def _starts_no_formula(cells: list[str]) -> None:
    import re

    for cell in cells:
        assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")) or re.fullmatch(
            r"[-+][0-9]+(\.[0-9]+)?", cell
        ), cell


def test_no_csv_report_starts_a_formula(tmp_path: Path) -> None:
    """Every report kind (estimate, compare, project, diff, replay) in CSV, its names all formulas:
    each such cell is written with a ``'`` in front, and the dollars of a cheaper side stay negative
    numbers."""
    from agentcost.commands.diff_read import diff_paths
    from agentcost.render.output import Format, render_text
    from agentcost.report.gates import IncreaseLimits
    from tests.test_untrusted_output import AS_OF, _reports

    name, tool, other, project = FORMULAS
    folder = tmp_path / "=cmd"
    folder.mkdir()
    seen: set[str] = set()
    for report, gates in _reports(folder, name, tool, other, project):
        cells = _cells(render_text(report, Format.csv, gates=gates))
        _starts_no_formula(cells)
        seen.update(cells)
    assert {"'" + name, "'" + tool, "'" + other, "'" + project} <= seen  # each written, as text
    cheaper = diff_paths(folder / "head.yaml", folder / "base.yaml", as_of=AS_OF, limits=IncreaseLimits())
    cells = _cells(render_text(cheaper, Format.csv))
    _starts_no_formula(cells)
    negative = [cell for cell in cells if cell.startswith("-")]
    assert negative and all(Decimal(cell) < 0 for cell in negative)  # numbers, as a spreadsheet reads them


# ---------------------------------------------------------------------------------------------
# Item 10: calibrate keeps a tool's name exact; reconcile names the limit of --runs-per-day


@pytest.mark.parametrize(
    "tool", ["a\x85b", "line\u2028sep\u2029para", "tab\there", "del\x7fx", "ok \u00e9\u4e2d"]
)
def test_calibrate_writes_a_tool_name_that_reads_back_exactly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tool: str
) -> None:
    from agentcost.api import load_scenario
    from tests.test_untrusted_output import trace_jsonl

    files = {"t.jsonl": trace_jsonl(tool)}
    code, _, err = cli(
        tmp_path,
        monkeypatch,
        capsys,
        files,
        ["calibrate", "t.jsonl", "-o", "c.yaml", "--as-of", "2026-11-30"],
    )
    assert code == 0, err
    written = (tmp_path / "c.yaml").read_text(encoding="utf-8")
    assert written.isascii() or "\u00e9" in tool  # every unprintable character escaped in the YAML
    assert all(line.isprintable() for line in written.splitlines())
    [call] = load_scenario(tmp_path / "c.yaml").rounds[0].calls
    assert call.tool == tool


def test_one_line_escapes_unicode_line_breaks_instead_of_spacing_them() -> None:
    from agentcost.errors import one_line

    assert one_line(" a\x85b\u2028c \n\t d\u00a0e ") == "a\\x85b\\u2028c d\\xa0e"


@pytest.mark.parametrize("value", ["10000001", "0", "-5", "many", "1e99999999", "1e-99999999", "nan"])
def test_reconcile_runs_per_day_names_its_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    exports = Path(__file__).parent / "data" / "usage-exports"
    argv = [
        "reconcile",
        str(exports / "anthropic-usage.json"),
        "--project",
        "s.yaml",
        "--runs-per-day",
        value,
    ]
    code, out, err = cli(tmp_path, monkeypatch, capsys, {"s.yaml": OK}, argv)
    message = (
        f"--runs-per-day: expected a number of runs above 0 and at most 10,000,000, got '{value}' (e.g. 200)"
    )
    assert (code, out, err) == (2, "", f"agentcost: error: {message}\n")


# ---------------------------------------------------------------------------------------------
# Item 3: the action's comment step edits only a comment its own account wrote

COMMENT_SH = Path(__file__).resolve().parents[1] / ".github" / "agentcost-action" / "comment.sh"
MARKER = "<!-- agentcost-cost-report -->"
BOT = {"login": "github-actions[bot]", "type": "Bot"}
STRANGER = {"login": "mallory", "type": "User"}
# ``gh`` as the GitHub API answers it: the comments in a JSON file (GET lists them, POST adds one by
# the poster, PATCH edits one), every call recorded; ``gh api user`` answers GH_WHOAMI's login, or
# fails as it does for GITHUB_TOKEN (403) when that is empty.
FAKE_GH = """\
import json, os, sys
args = sys.argv[1:]
with open(os.environ["GH_STATE"], encoding="utf-8") as handle:
    state = json.load(handle)
body = sys.stdin.read() if any(a.endswith("=@-") for a in args) else None
method = args[args.index("--method") + 1] if "--method" in args else "GET"
path = next(a for a in args[1:] if not a.startswith("-") and a != method)
state["calls"].append([method, path])
poster = {"login": os.environ["GH_WHOAMI"] or "github-actions[bot]", "type": "Bot"}
code = 0
if path == "user":
    if os.environ["GH_WHOAMI"]:
        print(os.environ["GH_WHOAMI"])  # --jq .login
    else:
        print("Resource not accessible by integration (HTTP 403)", file=sys.stderr)
        code = 1
elif method == "GET":
    print(json.dumps(state["comments"]))
elif method == "POST":
    state["comments"].append({"id": 100 + len(state["comments"]), "body": body, "user": poster})
elif method == "PATCH":
    [comment] = [c for c in state["comments"] if c["id"] == int(path.rsplit("/", 1)[1])]
    comment["body"] = body
with open(os.environ["GH_STATE"], "w", encoding="utf-8") as handle:
    json.dump(state, handle)
sys.exit(code)
"""


def _comment_step(
    tmp_path: Path, comments: list[dict[str, object]], *, author: str = "", whoami: str = ""
) -> tuple[str, list[list[str]], list[dict[str, object]]]:
    """comment.sh run as the action runs it (MODE update) against a fake API holding ``comments``:
    (its ``comment`` output, the API calls made, the comments after)."""
    import json
    import os
    import subprocess
    import sys

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "gh").write_text(f"#!{sys.executable}\n{FAKE_GH}", encoding="utf-8")
    (bin_dir / "gh").chmod(0o755)
    (bin_dir / "python3").symlink_to(sys.executable)
    state = tmp_path / "gh.json"
    state.write_text(json.dumps({"calls": [], "comments": comments}), encoding="utf-8")
    body = tmp_path / "cost.md"
    body.write_text(f"{MARKER}\n**+$0.01** per run\n", encoding="utf-8")
    output = tmp_path / "output"
    env = {
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "GH_STATE": str(state),
        "GH_WHOAMI": whoami,
        "GITHUB_REPOSITORY": "owner/repo",
        "GITHUB_OUTPUT": str(output),
        "MODE": "update",
        "BODY_FILE": str(body),
        "PR": "7",
        "AUTHOR": author,
    }
    done = subprocess.run(["bash", str(COMMENT_SH)], env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    seen = json.loads(state.read_text(encoding="utf-8"))
    return output.read_text(encoding="utf-8").strip(), seen["calls"], seen["comments"]


LIST = ["GET", "repos/owner/repo/issues/7/comments?per_page=100"]
POST = ["POST", "repos/owner/repo/issues/7/comments"]


@pytest.mark.parametrize(
    ("comments", "author", "whoami", "outcome", "last_call"),
    [
        pytest.param(
            [{"id": 1, "body": f"{MARKER}\nmine now", "user": STRANGER}],
            "",
            "",
            "comment=created",
            POST,
            id="a stranger's comment with the marker: untouched, a new comment posted",
        ),
        pytest.param(
            [{"id": 1, "body": f"x {MARKER}", "user": {"login": "github-actions", "type": "User"}}],
            "",
            "",
            "comment=created",
            POST,
            id="a user named like the bot, without [bot]",
        ),
        pytest.param(
            [{"id": 1, "body": MARKER, "user": STRANGER}, {"id": 2, "body": MARKER, "user": BOT}],
            "",
            "",
            "comment=updated",
            ["PATCH", "repos/owner/repo/issues/comments/2"],
            id="ours after a stranger's: ours edited",
        ),
        pytest.param(
            [{"id": 1, "body": MARKER}, {"id": 2, "body": MARKER, "user": None}],
            "",
            "",
            "comment=created",
            POST,
            id="no author at all (a deleted account, a malformed answer)",
        ),
        pytest.param(
            [
                {"id": 1, "body": MARKER, "user": BOT},
                {"id": 2, "body": MARKER, "user": {"login": "my-app[bot]"}},
            ],
            "my-app[bot]",
            "",
            "comment=updated",
            ["PATCH", "repos/owner/repo/issues/comments/2"],
            id="comment-author names an app: only its comment is edited",
        ),
        pytest.param(
            [{"id": 1, "body": MARKER, "user": BOT}, {"id": 2, "body": MARKER, "user": {"login": "alice"}}],
            "",
            "alice",
            "comment=updated",
            ["PATCH", "repos/owner/repo/issues/comments/2"],
            id="a personal token: GET /user says who posts",
        ),
        pytest.param(
            [{"id": 1, "body": MARKER, "user": BOT}],
            "",
            "alice",
            "comment=created",
            POST,
            id="a personal token does not edit the bot's comment",
        ),
    ],
)
def test_the_comment_step_edits_only_a_comment_its_account_wrote(
    tmp_path: Path,
    comments: list[dict[str, object]],
    author: str,
    whoami: str,
    outcome: str,
    last_call: list[str],
) -> None:
    before = [dict(c) for c in comments]
    done, calls, after = _comment_step(tmp_path, comments, author=author, whoami=whoami)
    assert done == outcome
    ask = [] if author else [["GET", "user"]]
    assert calls == [*ask, LIST, last_call]
    edited = int(last_call[1].rsplit("/", 1)[1]) if last_call[0] == "PATCH" else None
    for old, new in zip(before, after, strict=False):  # every other comment exactly as it was
        if old["id"] != edited:
            assert new == old
    if edited is None:
        [posted] = after[len(before) :]
        assert posted["body"].startswith(MARKER)


# ---------------------------------------------------------------------------------------------
# Item 6: names bounded for display, every Markdown report under GitHub's limits


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("Read", "Read"),
        ("", ""),
        ("x" * 80, "x" * 80),
        ("x" * 81, "x" * 79 + "…"),
        ("é" * 1_000_000, "é" * 79 + "…"),
    ],
)
def test_display_name_keeps_the_start_of_a_long_name(text: str, shown: str) -> None:
    from agentcost.infra.text import display_name

    assert display_name(text) == shown


SECTION = "<details><summary>{}</summary>\n\n{}\n\n</details>\n"


def test_fit_markdown_drops_per_request_details_first_then_says_so() -> None:
    from agentcost.render.fitmd import fit_markdown

    head = "#### agentcost: x\n\n**$1** per run.\n\n"
    per_request = SECTION.format("Per request", "| 1 | Read |\n" * 20)
    assumptions = SECTION.format("Assumptions", "- one")
    text = head + per_request + "\n" + assumptions + "\n<sub>Prices.</sub>\n"
    assert fit_markdown(text, len(text)) == text  # at the limit: unchanged
    shortened = fit_markdown(text, 400)
    assert shortened == (
        head.rstrip("\n")
        + "\n\n"
        + assumptions
        + "\n<sub>Prices.</sub>\n\n**Shortened** to fit GitHub's limit of 400"
        " characters for a comment: 1 folded section (per-request details first) left out. The whole"
        " report: `--format json`, or the table in the job log.\n"
    )
    assert len(shortened) <= 400
    assert fit_markdown(text, 300) == (
        head + "<sub>Prices.</sub>\n\n**Shortened** to fit GitHub's limit of 300 characters for a comment:"
        " 2 folded sections (per-request details first) left out. The whole report: `--format json`, or"
        " the table in the job log.\n"
    )
    assert fit_markdown(text, 244) == (  # no section left to drop: the end goes, and the note says so
        "#### agentcost: x\n\n**Shortened** to fit GitHub's limit of 244 characters for a comment: 2 folded"
        " sections (per-request details first) left out and the end of the report left out. The whole"
        " report: `--format json`, or the table in the job log.\n"
    )
    line = fit_markdown("a" * 230 + "&amp;" + "b" * 1000, 400)  # one line: cut (at 232), never in an escape
    assert line.split("\n\n**Shortened**")[0] == "a" * 230 and len(line) <= 400


def test_a_megabyte_name_gives_a_markdown_report_under_githubs_limits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    name, tool = "N" * 1_000_000, "T" * 5000
    scenario = (
        f"version: 1\nname: {json.dumps(name)}\nmodel: gpt-5\ntask: hi\n"
        f"rounds:\n  - {{tool: {tool}, call_tokens: 3, result: 10, repeat: 600}}\nfinal: 10\n"
    )
    summary = tmp_path / "summary.md"
    summary.write_text("", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    argv = ["estimate", "m.yaml", "-f", "markdown", "-o", "m.md", "--summary", "--as-of", "2026-11-30"]
    code, out, _ = cli(tmp_path, monkeypatch, capsys, {"m.yaml": scenario}, argv)
    assert (code, out) == (1, "")  # a gate trips (the 5,000-character tool name, 600 times in context)
    report = (tmp_path / "m.md").read_text(encoding="utf-8")
    assert len(report) < 65_536 and len(summary.read_bytes()) < 1_048_576
    assert report.startswith(f"#### agentcost: {'N' * 79}…\n")
    assert "<details><summary>Per request</summary>" not in report
    assert "<details><summary>Assumptions</summary>" in report
    assert report.endswith(
        "**Shortened** to fit GitHub's limit of 65,536 characters for a comment: 1 folded section"
        " (per-request details first) left out. The whole report: `--format json`, or the table in the"
        " job log.\n"
    )
    assert summary.read_text(encoding="utf-8") == report
