"""Issue 13, group 3 (raw text to terminals, CI logs and PR comments): every text from an input file
leaves through one sanitizer (agentcost.infra.text). Names with ESC sequences, NUL, bidi overrides,
newlines, workflow commands (``::error``, ``##[``), Rich markup and Markdown/HTML are shown escaped
in the table, SVG, CSV, Markdown and JSON of every report kind, on stderr and in ``::error``
annotations; a hypothesis test renders random names through all of them.

Every test here covers group 3 and fails on the code before the sanitizer (the API tests import a
module that did not exist; the others show the raw text, crash on markup or let a line start with
``::``)."""

from __future__ import annotations

import csv
import io
import json
import re
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcost.cli import run
from agentcost.errors import InputError
from agentcost.render.output import Format, annotation, render_text
from agentcost.report.gates import Gate
from tests.conftest import fuzz_examples

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)
FORMATS = (Format.table, Format.svg, Format.markdown, Format.csv, Format.json)

pytestmark = pytest.mark.usefixtures("fixed_terminal")

# What no output may hold, whoever wrote it: C0 controls but newline and tab, DEL, C1, bidi
# controls, line and paragraph separators.
DANGEROUS = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]"
)
OUR_TAGS = re.compile(r"</?(?:details|summary|sub|code)>")


def _q(text: str) -> str:
    """A YAML double-quoted scalar of ``text`` (JSON's escapes are YAML's)."""
    return json.dumps(text)


def scenario_yaml(name: str, tools: list[str], *, description: str = "d", result: int = 1000) -> str:
    defs = "".join(
        f"  - name: {_q(t)}\n    description: Search.\n    input_schema: {{type: object}}\n" for t in tools
    )
    rounds = "".join(f"  - {{tool: {_q(t)}, call_tokens: 20, result: {{tokens: {result}}}}}\n" for t in tools)
    return (
        f"version: 1\nname: {_q(name)}\ndescription: {_q(description)}\nmodel: gpt-4o\ncaching: none\n"
        f"system: {{tokens: 500}}\ntools:\n{defs}task: {{tokens: 100}}\nrounds:\n{rounds}"
        "final: {tokens: 200}\n"
    )


def trace_jsonl(tool: str) -> str:
    """An OpenAI Chat Completions log of two calls: one calls ``tool``, one answers."""
    request = {
        "model": "gpt-4o",
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [{"type": "function", "function": {"name": tool, "parameters": {"type": "object"}}}],
    }
    call = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": tool, "arguments": "{}"}}]}  # fmt: skip
    first = {
        "model": "gpt-4o-2024-08-06",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": call}],
        "usage": {"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60},
    }
    followed = dict(request, messages=[*request["messages"], call, {"role": "tool", "tool_call_id": "call_1",
                    "content": "a result"}])  # fmt: skip
    second = {
        "model": "gpt-4o-2024-08-06",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "ok"}}],
        "usage": {"prompt_tokens": 70, "completion_tokens": 5, "total_tokens": 75},
    }
    return "".join(
        json.dumps({"request": r, "response": s}) + "\n" for r, s in ((request, first), (followed, second))
    )


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def squash(text: str) -> str:
    return "".join(text.split())


def check_output(text: str, fmt: Format | str) -> None:
    """What holds for every output, whatever the names: no control or bidi character (the renderer's
    own newlines aside), no line that GitHub Actions would run as a workflow command, and each format
    still well formed."""
    found = DANGEROUS.search(text)
    assert found is None, f"{fmt}: {found.group()!r} in {text!r}"
    assert "##[" not in text, text
    for line in text.split("\n"):
        assert not line.lstrip().startswith("::"), f"{fmt}: a line starts a workflow command: {line!r}"
    if fmt == Format.markdown:
        check_markdown(text)
    elif fmt == Format.svg:
        ET.fromstring(text)
    elif fmt == Format.csv:
        rows = list(csv.reader(io.StringIO(text)))
        assert len({len(row) for row in rows}) == 1, rows  # no row broken by a name
    elif fmt == Format.json:
        json.loads(text)


def check_markdown(text: str) -> None:
    """Parsed as CommonMark with tables: no HTML but agentcost's own tags (and the escaped text in
    them), no link or image, no @mention in the text."""
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    for token in parser.parse(text):
        for t in [token, *(token.children or [])]:
            if t.type in ("html_inline", "html_block"):
                assert "<" not in OUR_TAGS.sub("", t.content), t.content
            assert t.type not in ("link_open", "image"), text
            if t.type == "text":
                assert re.search(r"(?<!\w)@[A-Za-z0-9]", t.content) is None, t.content


# --------------------------------------------------------------------------------------------
# The sanitizer's API
# --------------------------------------------------------------------------------------------


def test_plain_shows_every_unprintable_character_escaped_and_breaks_legacy_commands() -> None:
    from agentcost.infra.text import plain

    assert plain("Fix POST /orders validation") == "Fix POST /orders validation"
    assert plain("a\x1b[31mb\x00c\x7fd\x85e\u202ef\u2066g\u2028h\n\ti\u200b") == (
        "a\\x1b[31mb\\x00c\\x7fd\\x85e\\u202ef\\u2066g\\u2028h\\n\\ti\\u200b"
    )
    assert plain("x ##[error]y") == "x #\\x23[error]y"
    assert plain("\udcff") == "\\udcff"  # a file name that is not UTF-8
    assert plain(plain("\x1b##[")) == plain("\x1b##[")


def test_markdown_escapes_what_could_become_markup_and_leaves_ordinary_text() -> None:
    from agentcost.infra.text import ZERO_WIDTH_SPACE, markdown

    ordinary = "head.yaml: cost $0.0152075 -> $0.0302975 (+99.2%) > allowed <= 10.0%; read_file a & b"
    assert markdown(ordinary) == ordinary
    assert (
        markdown("<img src=x onerror=alert(1)></details>") == "&lt;img src=x onerror=alert(1)>&lt;/details>"
    )
    assert markdown("@octocat a@b.c") == f"@{ZERO_WIDTH_SPACE}octocat a@b.c"
    assert markdown("[x](https://e.vil) ![i](u)") == "\\[x\\](https://e.vil) !\\[i\\](u)"
    assert markdown("*b* _i_ `c` ~s~ a|b \\ $x$ &amp;") == (
        "\\*b\\* \\_i\\_ \\`c\\` \\~s\\~ a\\|b \\\\ \\$x\\$ &amp;amp;"
    )
    assert markdown("# h #") == "\\# h \\#"
    assert markdown("> quote") == "&gt; quote"
    assert markdown("a\nb") == "a\\\\nb"


def test_markdown_code_and_html() -> None:
    from agentcost.infra.text import html, markdown_code

    assert markdown_code("claude-sonnet-4-5") == "`claude-sonnet-4-5`"
    assert markdown_code("a`b") == "``a`b``"
    assert markdown_code("`x") == "`` `x ``"
    assert markdown_code("a|b", table=True) == "`a\\|b`"
    assert markdown_code("a\x1bb") == "`a\\x1bb`"
    assert html("<b>&\"'") == "&lt;b&gt;&amp;&quot;&#x27;"


def test_rich_text_is_never_markup_nor_an_emoji_code() -> None:
    from agentcost.infra.text import rich

    text = rich("[/x] [link=https://e.vil]Read[/link] :smile: \x1b[2J", "bold")
    assert text.plain == "[/x] [link=https://e.vil]Read[/link] :smile: \\x1b[2J"
    assert str(text.style) == "bold"


def test_workflow_command_escaping() -> None:
    from agentcost.infra.text import workflow_data, workflow_property

    assert workflow_data("50% of\r\nit\x1b") == "50%25 of%0D%0Ait\\x1b"
    assert workflow_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"


def test_guard_per_medium() -> None:
    from agentcost.infra.text import guard

    text = "ok\n  ::error::x\n##[warning]y \x1b \u202e\n"
    assert guard(text, "text") == "ok\n  \\x3a:error::x\n#\\x23[warning]y \\x1b \\u202e\n"
    assert guard(text, "markdown") == "ok\n  &#58;:error::x\n#&#35;[warning]y \\x1b \\u202e\n"
    assert guard("::a,1\n b,2\n", "csv") == '"::a",1\n b,2\n'
    assert guard('{"a": "##[x\u202e\x7f"}', "json") == '{"a": "##\\u005bx\\u202e\\u007f"}'
    assert json.loads(guard('{"a": "##[x\u202e\x7f"}', "json")) == {"a": "##[x\u202e\x7f"}
    assert guard("nothing to do\n", "text") == "nothing to do\n"


# --------------------------------------------------------------------------------------------
# The examples of the issue, exactly
# --------------------------------------------------------------------------------------------


Write = Callable[[str, str], str]


@pytest.fixture
def write(tmp_path: Path) -> Write:
    """``write(name, text)``: the path of a new file in the test's directory."""

    def put(name: str, text: str) -> str:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return str(path)

    return put


ESCAPES = "a\x1b[31mred\x00nul\u202eevil"


@pytest.mark.parametrize("fmt", [f.value for f in FORMATS])
def test_escape_sequences_nul_and_bidi_overrides_are_shown_escaped(
    capsys: pytest.CaptureFixture[str], write: Write, fmt: str
) -> None:
    path = write("s.yaml", scenario_yaml(ESCAPES, [f"t{ESCAPES}"]))
    code, out, err = cli(capsys, "estimate", path, "--as-of", "2026-11-30", "-f", fmt)
    assert code == 0, err
    check_output(out, fmt)
    if fmt == "json":
        assert json.loads(out)["scenario"]["name"] == ESCAPES  # JSON keeps the value itself
    elif fmt == "table":
        assert "a\\x1b[31mred\\x00nul\\u202eevil" in squash(out)
    elif fmt == "csv":
        assert next(csv.DictReader(io.StringIO(out)))["tool"] == "ta\\x1b[31mred\\x00nul\\u202eevil"
    elif fmt == "markdown":
        assert "#### agentcost: a\\\\x1b\\[31mred\\\\x00nul\\\\u202eevil\n" in out


NEWLINES = "x\n::error title=pwned::hello\u202e\n::stop-commands::tok\n  ::warning::y ##[error]z"


@pytest.mark.parametrize("fmt", [f.value for f in FORMATS])
def test_a_name_with_a_newline_cannot_start_a_workflow_command(
    capsys: pytest.CaptureFixture[str], write: Write, fmt: str
) -> None:
    path = write("s.yaml", scenario_yaml(NEWLINES, [NEWLINES, "::error::t"]))
    code, out, err = cli(capsys, "estimate", path, "--as-of", "2026-11-30", "-f", fmt)
    assert code == 0, err
    check_output(out, fmt)


def test_a_wrapped_line_cannot_start_a_workflow_command(
    capsys: pytest.CaptureFixture[str], write: Write, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rich wraps a long title at a space: a ``::`` from the middle of a name starts a line. (A name
    is shown with at most 80 characters: the terminal is narrower here.)"""
    monkeypatch.setenv("COLUMNS", "60")
    name = "w " * 27 + "::error title=wrapped::x"  # wraps right before the "::" (at 60 columns)
    path = write("s.yaml", scenario_yaml(name, ["t"]))
    code, out, err = cli(capsys, "estimate", path, "--as-of", "2026-11-30")
    assert code == 0, err
    check_output(out, "table")
    assert "\\x3a:error title=wrapped::x" in out  # the line that wrapped, its colon escaped


def test_tool_names_are_escaped_in_the_diff_markdown_comment(
    capsys: pytest.CaptureFixture[str], write: Write
) -> None:
    evil = "<img src=x onerror=alert(1)></details>@octocat [x](https://e.vil)"
    base = write("base.yaml", scenario_yaml("n", ["search"]))
    head = write("head.yaml", scenario_yaml("n", ["search", evil], result=3000))
    code, out, err = cli(capsys, "diff", base, head, "--as-of", "2026-11-30", "-f", "markdown")
    assert code == 0, err
    check_output(out, "markdown")
    assert "<img" not in out and out.count("</details>") == out.count("<details>")
    shown = "&lt;img src=x onerror=alert(1)>&lt;/details>@\u200boctocat \\[x\\](https://e.vil)"
    assert f"| 2 | final answer → {shown} |" in out  # the per-request row
    assert f"(+{shown})" in out  # what changed in the inputs


@pytest.mark.parametrize("fmt", ["table", "svg"])
def test_a_name_like_a_closing_tag_renders(
    capsys: pytest.CaptureFixture[str], write: Write, fmt: str
) -> None:
    path = write("s.yaml", scenario_yaml("[/x]", ["[/x]"]))
    code, out, err = cli(capsys, "estimate", path, "--as-of", "2026-11-30", "-f", fmt, "--chart")
    assert code == 0, err  # was MarkupError, exit 3
    check_output(out, fmt)
    if fmt == "table":
        assert out.startswith("[/x] · gpt-4o (openai)")
        assert "│ 1 │ [/x]" in out


def test_link_markup_and_emoji_codes_show_literally(capsys: pytest.CaptureFixture[str], write: Write) -> None:
    name = "[link=https://e.vil]Read[/link] :smile: [bold]b[/bold]"
    path = write("s.yaml", scenario_yaml(name, ["[link=https://e.vil]Read[/link]"]))
    code, out, err = cli(capsys, "estimate", path, "--as-of", "2026-11-30")
    assert code == 0, err
    assert out.startswith(f"{name} · gpt-4o (openai)")  # was "Read 😄 b"
    assert "│ 1 │ [link=https://e.vil]Read[/link]" in out


def test_json_escapes_bidi_del_c1_and_legacy_commands(
    capsys: pytest.CaptureFixture[str], write: Write
) -> None:
    name = "a\u202eb\u2066c\x7fd\x9be\u2028f ##[error]g"
    path = write("s.yaml", scenario_yaml(name, ["t"]))
    code, out, err = cli(capsys, "estimate", path, "--as-of", "2026-11-30", "-f", "json")
    assert code == 0, err
    check_output(out, "json")
    assert '"name": "a\\u202eb\\u2066c\\u007fd\\u009be\\u2028f ##\\u005berror]g"' in out
    assert json.loads(out)["scenario"]["name"] == name


def test_gate_lines_and_annotations_on_stderr(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "d,x:y ##[error]z\n::error::w"
    folder.mkdir()
    path = folder / "s.yaml"
    path.write_text(scenario_yaml("n", ["t"]), encoding="utf-8")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    code, out, err = cli(capsys, "estimate", str(path), "--as-of", "2026-11-30", "--budget", "0.0001")
    assert code == 1
    check_output(out, "table")
    lines = err.splitlines()
    assert len(lines) == 2, err
    where = str(folder).replace("##[", "#\\x23[").replace("\n", " ")
    assert (
        lines[0]
        == f"agentcost: gate failed: {where}/s.yaml: over budget: estimated $0.0081 > $0.0001 (--budget)"
    )
    check_output(lines[0], "text")
    assert "##[" not in lines[1] and DANGEROUS.search(lines[1]) is None
    file = str(path).replace("\n", "%0A").replace(":", "%3A").replace(",", "%2C").replace("##[", "#\\x23[")
    assert lines[1] == (
        f"::error file={file},title=agentcost budget::"
        f"{file.replace('%3A', ':').replace('%2C', ',')}: over budget: estimated $0.0081 > $0.0001 (--budget)"
    )


def test_annotation_escapes_its_parts_exactly() -> None:
    gate = Gate(
        name="budget",
        tripped=True,
        message="over\n::error::x 100% ##[warning]w \x1b",
        file="a,b:c\nd.yaml",
        line=3,
    )
    assert annotation(gate) == (
        "::error file=a%2Cb%3Ac%0Ad.yaml,line=3,title=agentcost budget::"
        "over%0A::error::x 100%25 #\\x23[warning]w \\x1b"
    )


def test_error_lines_break_legacy_commands_and_stay_one_line() -> None:
    err = InputError("bad ##[error]x\n::error::y \x1b[2J\u202e", file="a\nb.yaml", line=2, key="k")
    assert str(err) == "a b.yaml:2: k: bad #\\x23[error]x ::error::y \\x1b[2J\\u202e"


def test_replay_tool_names_are_escaped(capsys: pytest.CaptureFixture[str], write: Write) -> None:
    tool = "ev\x1bil\n::error::x [/x] <img src=x> @u"
    path = write("t.jsonl", trace_jsonl(tool))
    shown = {
        "table": "ev\\x1b",  # the cell is cut at its width
        "markdown": "| 1 | 1 | ev\\\\x1bil\\\\n::error::x \\[/x\\] &lt;img src=x> @\u200bu |",
        "csv": "1,1,ev\\x1bil\\n::error::x [/x] <img src=x> @u,",
        "json": '"tool": "ev\\u001bil\\n::error::x [/x] <img src=x> @u"',
    }
    for fmt, expected in shown.items():
        code, out, err = cli(capsys, "replay", path, "--as-of", "2026-11-30", "-f", fmt)
        assert code == 0, err
        check_output(out, fmt)
        assert expected in out, out


def test_models_and_prices_show_a_price_files_names_literally(
    capsys: pytest.CaptureFixture[str], write: Write
) -> None:
    model = "x[b]y[link=e.vil]z@u:smile:"
    source = "[link=https://e.vil]y[/link] ::error::z ##[warning]\x1b[2J"
    prices = write(
        "p.yaml",
        f"version: 1\nmodels:\n  - {{id: {_q(model)}, provider: openai, input_mtok: 1, output_mtok: 2,"
        f" source: {_q(source)}}}\n",
    )
    code, out, err = cli(capsys, "models", "x*", "--prices", prices)
    assert code == 0, err
    check_output(out, "table")
    assert f"│ {model} †" in out  # was "xyz@u😄", bold and a link
    assert squash("[link=https://e.vil]y[/link] ::error::z #\\x23[warning]\\x1b[2J") in squash(out)
    code, out, err = cli(capsys, "prices", model, "--prices", prices)
    assert code == 0, err
    check_output(out, "table")
    assert out.startswith(f"{model} · {model} (openai): prices in force on ")


def test_console_output_cannot_start_a_workflow_command_where_rich_wraps(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from rich.text import Text

    from agentcost.render.output import print_rich

    print_rich(Text("w " * 59 + "::error::wrapped ##[warning]x"))
    out = capsys.readouterr().out
    check_output(out, "table")
    assert out.splitlines()[1] == "\\x3a:error::wrapped #\\x23[warning]x"


# --------------------------------------------------------------------------------------------
# Random names through every report kind and format
# --------------------------------------------------------------------------------------------

PIECES = [
    "\x1b[31m", "\x1b]8;;https://e.vil\x07", "\x00", "\x07", "\x7f", "\x85", "\x9b", "\r", "\n", "\t",
    "\u202e", "\u2066", "\u2069", "\u200b", "\u200e", "\u2028", "\u2029", "\ufeff",
    "\n::error title=x::pwned", "\n::stop-commands::tok", "::", " ::warning::", "##[error]", "##[",
    "[/x]", "[bold]", "[link=https://e.vil]Read[/link]", ":smile:", "\\",
    "<img src=x onerror=alert(1)>", "</details>", "<!--", "&lt;", "&#64;", "@octocat", "|", "`", "*", "_",
    "~", "$x$", "#", "]", "(https://e.vil)", "> ", "read_file", " ",
]  # fmt: skip
CHARS = st.characters(max_codepoint=0xFFFF, codec="utf-8")  # no surrogates: names are UTF-8
NAMES = st.lists(st.sampled_from(PIECES) | st.text(CHARS, max_size=3), min_size=1, max_size=6).map("".join)
FILE_NAMES = NAMES.map(lambda s: s.replace("/", "\u2215").replace("\x00", "0")[:60]).filter(
    lambda s: s not in ("", ".", "..")
)


def _reports(
    folder: Path, name: str, tool: str, other: str, project: str
) -> Iterator[tuple[object, Sequence[Gate]]]:
    """Every report kind (estimate, compare, project, diff, replay) and its gates, built in-process
    from files in ``folder`` that hold the names: the scenario's, two tools', the project's."""
    from agentcost.api import compare, estimate
    from agentcost.commands.batch import batch_report_for_paths
    from agentcost.commands.compare import compare_gates
    from agentcost.commands.diff_read import diff_paths
    from agentcost.replay import load_trace, replay
    from agentcost.report.gates import IncreaseLimits, estimate_gates

    base, head = folder / "base.yaml", folder / "head.yaml"
    base.write_text(scenario_yaml(name, [tool], description=project), encoding="utf-8")
    head.write_text(scenario_yaml(name, [tool, other], result=3000), encoding="utf-8")
    (folder / "agentcost.yml").write_text(
        f"version: 1\nname: {_q(project)}\nbudget_usd: 0.0001\nscenarios:\n"
        f"  - {{path: base.yaml, name: {_q(other)}}}\n  - {{path: head.yaml}}\n",
        encoding="utf-8",
    )
    (folder / "t.jsonl").write_text(trace_jsonl(tool), encoding="utf-8")
    result = estimate(base, as_of=AS_OF, budget_usd="0.0001")
    yield result.report, estimate_gates(result.report)  # the renderers read the report's own gates
    compared = compare(base, ["gpt-4o", "gpt-4o-mini"], as_of=AS_OF)
    yield compared.report, compare_gates(compared.report)
    from agentcost.commands.batch import batch_gates

    batch = batch_report_for_paths([folder / "agentcost.yml"], as_of=AS_OF)
    yield batch, batch_gates(batch)
    from agentcost.commands.diff import diff_gates

    diff = diff_paths(base, head, as_of=AS_OF, limits=IncreaseLimits(fraction=Decimal("0.01"), usd=None))
    yield diff, diff_gates(diff)
    yield replay(load_trace(folder / "t.jsonl"), as_of=AS_OF), ()


@settings(
    max_examples=fuzz_examples(10),  # 5 reports x 4 formats each
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(name=NAMES, tool=NAMES, other=NAMES, project=NAMES, folder=FILE_NAMES)
def test_random_names_through_every_report_and_format(
    name: str, tool: str, other: str, project: str, folder: str
) -> None:
    if tool == other:
        other += "2"
    with tempfile.TemporaryDirectory() as top:
        where = Path(top) / folder
        where.mkdir()
        try:
            reports = list(_reports(where, name, tool, other, project))
        except InputError as err:  # a name the scenario schema refuses: its message is one safe line
            check_output(str(err), "text")
            assert "\n" not in str(err)
            return
        for report, gates in reports:
            for fmt in FORMATS:
                text = render_text(report, fmt, gates=gates, chart=fmt is Format.table)
                check_output(text, fmt)
                kind = type(report).__name__
                if kind in ("Report", "CompareReport") and fmt is Format.table and name:
                    from agentcost.infra.text import plain

                    # the title: the scenario's name shown literally (not as markup), in one piece
                    assert squash(plain(name)) in squash(text.replace("\\x3a:", "::")), text
                if kind == "Report" and fmt is Format.markdown and name:
                    from agentcost.infra.text import markdown

                    assert text.startswith(f"#### agentcost: {markdown(name)}\n")
                if kind == "Report" and fmt is Format.json:
                    assert json.loads(text)["scenario"]["name"] == name  # JSON keeps the value itself
            for gate in gates:
                line = annotation(gate)
                assert "\n" not in line and "\r" not in line and DANGEROUS.search(line) is None
                assert "##[" not in line and line.startswith("::error ")
                properties = line[len("::error ") : line.index("::", 2)]
                assert all(p.split("=", 1)[0] in ("file", "line", "title") for p in properties.split(","))
