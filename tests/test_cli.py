"""The command line: exit code, stdout and stderr checked separately.

Most tests call ``agentcost.cli.run`` in-process (what ``main`` passes to ``sys.exit``); a few run the
real module in a subprocess, one of them with the network cut off. Exit codes: 0 ok, 1 over budget,
2 bad input or usage with exactly one line on stderr.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from decimal import Decimal
from importlib import metadata
from pathlib import Path
from typing import Any

import genai_prices
import pytest

import agentcost
from agentcost.cli import run

pytestmark = pytest.mark.usefixtures("no_ctok", "fixed_terminal")

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"
AS_OF = "2026-11-30"
ERROR = "agentcost: error: "


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code: int, out: str, err: str) -> str:
    """Exit 2, nothing on stdout, one non-empty ``agentcost: error:`` line on stderr, no traceback."""
    assert code == 2, (code, out, err)
    assert out == ""
    assert "Traceback" not in err
    assert err.endswith("\n") and err.count("\n") == 1, err
    line = err.rstrip("\n")
    assert line.startswith(ERROR) and line[len(ERROR) :].strip(), line
    return line


def table_rows(out: str) -> tuple[list[list[str]], list[list[str]]]:
    """The body rows and the footer rows of the Rich table in ``out``, as stripped cells."""
    body: list[list[str]] = []
    footer: list[list[str]] = []
    in_footer = False
    for line in out.splitlines():
        if line.startswith("├"):
            in_footer = True
        elif line.startswith("│"):
            cells = [c.strip() for c in line.strip().strip("│").split("│")]
            (footer if in_footer else body).append(cells)
    return body, footer


def subprocess_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE")}
    env.update(COLUMNS="120", NO_COLOR="1", **extra)
    return env


def agentcost_module(
    *args: str, prefix: tuple[str, ...] = (), **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*prefix, sys.executable, "-m", "agentcost", *args],
        cwd=ROOT,
        env=subprocess_env(**env),
        capture_output=True,
        text=True,
        timeout=120,
    )


def write(tmp_path: Path, text: str | bytes, name: str = "s.yaml") -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------
# Exit 0: the table
# ---------------------------------------------------------------------------------------------


def test_table_for_the_bugfix_scenario(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    code, out, err = cli(capsys, "estimate", "scenarios/bugfix.yaml", "--as-of", AS_OF)
    assert (code, err) == (0, "")
    body, footer = table_rows(out)
    assert [row[0] for row in body] == [str(i) for i in range(1, 10)]  # one row per billed request
    assert body[0] == ["1", "Bash", "1,137", "0", "1,133", "70", "$0.0053", "$0.0053"]
    assert body[4][1] == "Edit"
    assert body[8] == ["9", "final answer", "3,232", "2,992", "236", "182", "$0.0045", "$0.0286"]
    assert footer == [["", "total (9 requests)", "20,253", "16,989", "3,228", "756", "$0.0286", ""]]
    header = next(line for line in out.splitlines() if line.startswith("┃"))
    assert "input (all)*" in header and "output*" in header  # approximate counts are marked
    assert "Fix POST /orders validation · claude-sonnet-4-5 (anthropic)" in out
    assert "Total $0.0286 per run: 9 requests, 83.9% of input tokens read from cache." in out
    assert "Budget $0.1000 (limits.budget_usd): within budget, headroom $0.0714." in out
    assert f"Prices: genai-prices {genai_prices.__version__}, in force on 2026-11-30." in out
    assert "Model: Claude Sonnet 4.5" not in out  # a detail: --verbose
    assert max(len(line) for line in out.splitlines()) <= 120
    code, out, err = cli(capsys, "estimate", "scenarios/bugfix.yaml", "--as-of", AS_OF, "--verbose")
    assert "Total $0.0286 = input $0.0173 + output $0.0113." in out
    assert "Model: Claude Sonnet 4.5 [claude-sonnet-4-5], provider anthropic;" in out
    assert "Price data: genai-prices 0.2.3, last known current on 2026-11-30;" in out
    assert (
        "Caching: conversation (provider default), TTL 5m; prefixes under 1,024 tokens are not cached." in out
    )
    assert "Token counts (approximate, marked *):" in out


def test_table_for_an_exact_openai_count(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "estimate", str(SCENARIOS / "research.yaml"), "--as-of", AS_OF, "-v")
    assert (code, err) == (0, "")
    body, footer = table_rows(out)
    assert len(body) == 31 and footer[0][1] == "total (31 requests)" and footer[0][6] == "$0.3236"
    header = next(line for line in out.splitlines() if line.startswith("┃"))
    assert "*" not in header
    assert "Token counts (exact tokenizer): tiktoken o200k_base" in out
    assert "Caching: conversation (provider default); prefixes under 1,024 tokens" in out  # no TTL


def test_table_states_a_caching_mode_set_in_the_scenario(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write(tmp_path, "version: 1\nmodel: claude-sonnet-4-5\ncaching: none\ntask: hi\nfinal: 10\n")
    code, out, err = cli(capsys, "estimate", str(path), "--as-of", AS_OF, "-v")
    assert (code, err) == (0, "")
    assert "Caching: none; prefixes under 1,024 tokens are not cached." in out
    assert "provider default" not in out


# ---------------------------------------------------------------------------------------------
# Exit 0: JSON
# ---------------------------------------------------------------------------------------------


def usd_values(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """Every dollar amount in the report: ``*_usd`` fields and the entries of ``*_usd`` objects."""
    if isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{key}" if path else key
            if key.endswith("_usd") and isinstance(item, dict):
                yield from ((f"{where}.{k}", v) for k, v in item.items() if v is not None)
            elif key.endswith("_usd"):
                yield where, item
            else:
                yield from usd_values(item, where)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from usd_values(item, f"{path}[{i}]")


@pytest.mark.parametrize(
    ("name", "requests", "approximate", "limit"),
    [
        ("bugfix.yaml", 9, True, "0.1"),
        ("research.yaml", 31, False, "1"),
        ("mcp-40-tools.yaml", 7, True, "0.5"),
    ],
)
def test_json_report(
    name: str, requests: int, approximate: bool, limit: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = cli(capsys, "estimate", str(SCENARIOS / name), "--as-of", AS_OF, "--format", "json")
    assert (code, err) == (0, "")
    assert out.startswith('{\n  "version": 1,\n')  # version is the first key of the text
    data = json.loads(out)
    assert next(iter(data)) == "version" and data["version"] == 1
    assert len(data["requests"]) == data["totals"]["requests"] == requests
    assert [r["index"] for r in data["requests"]] == list(range(1, requests + 1))
    assert [r["kind"] for r in data["requests"]] == ["tool_use"] * (requests - 1) + ["final"]
    assert data["requests"][-1]["tool"] is None and isinstance(data["requests"][0]["tool"], str)

    amounts = list(usd_values(data))
    assert len(amounts) >= 2 * requests + 3
    for where, value in amounts:
        assert isinstance(value, str), where
        assert "E" not in value.upper() and Decimal(value).is_finite(), (where, value)
    costs = [Decimal(r["cost_usd"]) for r in data["requests"]]
    totals = data["totals"]
    assert sum(costs, Decimal(0)) == Decimal(totals["cost_usd"])  # exactly, no rounding anywhere
    running = Decimal(0)
    for request, cost in zip(data["requests"], costs, strict=True):
        running += cost
        assert Decimal(request["running_usd"]) == running
    assert Decimal(totals["input_usd"]) + Decimal(totals["output_usd"]) == Decimal(totals["cost_usd"])
    for key in ("input_tokens", "cache_read_tokens", "cache_write_tokens", "output_tokens"):
        assert sum(r[key] for r in data["requests"]) == totals[key], key
    for r in data["requests"]:
        assert r["input_tokens"] >= r["cache_read_tokens"] + r["cache_write_tokens"], r
    assert data["max_input_tokens"] == max(r["input_tokens"] for r in data["requests"])

    assert data["prices"]["source"] == "genai-prices"
    assert data["prices"]["version"] == genai_prices.__version__
    assert data["prices"]["as_of"] == "2026-11-30T00:00:00+00:00"
    assert data["approximate"] is data["counts"]["approximate"] is approximate
    assert data["caching"]["default"] is True
    assert data["budget"] == {
        "limit_usd": limit,
        "source": "limits.budget_usd",
        "over": False,
        "headroom_usd": str(Decimal(limit) - Decimal(totals["cost_usd"])),
        "overrun": None,  # no distributions
    }
    assert data["rounds"] == {"planned": requests - 1, "run": requests - 1, "truncated": False}
    assert data["warnings"] == []


def test_json_golden_bugfix(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, golden: Callable[[str, str], None]
) -> None:
    monkeypatch.chdir(ROOT)
    code, out, err = cli(capsys, "estimate", "scenarios/bugfix.yaml", "--as-of", AS_OF, "--format", "json")
    assert (code, err) == (0, "")
    golden("bugfix.json", out)


def test_as_of_is_read_in_utc_and_short_format_option(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("estimate", str(SCENARIOS / "bugfix.yaml"), "-f", "json")
    code, out, err = cli(capsys, *args, "--as-of", "2026-11-30T10:00:00+02:00")
    assert (code, err) == (0, "")
    assert json.loads(out)["prices"]["as_of"] == "2026-11-30T08:00:00+00:00"
    code, out, err = cli(capsys, *args, "--as-of", "2026-11-30T10:00:00")  # no zone: UTC
    assert json.loads(out)["prices"]["as_of"] == "2026-11-30T10:00:00+00:00"


def test_model_option_prices_another_model(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("estimate", str(SCENARIOS / "bugfix.yaml"), "--as-of", AS_OF, "-f", "json")
    code, out, err = cli(capsys, *args, "--model", "openai/gpt-5")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert (data["model"], data["model_ref"], data["provider"]) == ("gpt-5", "openai/gpt-5", "openai")
    assert data["approximate"] is False  # counted with OpenAI's exact tokenizer now
    assert data["prices"]["per_mtok_usd"]["input"] == "1.25"


# ---------------------------------------------------------------------------------------------
# Exit 1: over budget
# ---------------------------------------------------------------------------------------------


def test_budget_option_exceeded(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    code, out, err = cli(capsys, "estimate", "scenarios/bugfix.yaml", "--as-of", AS_OF, "--budget", "0.01")
    assert code == 1
    assert (
        err
        == "agentcost: gate failed: scenarios/bugfix.yaml: over budget: estimated $0.0286 > $0.0100 (--budget)\n"
    )
    assert "total (9 requests)" in out  # the report is still printed
    assert "Budget $0.0100 (--budget): over budget by $0.0186." in out  # $0.0286497 - $0.01


def test_budget_option_exceeded_json(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("estimate", str(SCENARIOS / "bugfix.yaml"), "--as-of", AS_OF, "-f", "json")
    code, out, err = cli(capsys, *args, "--budget", "$0.01")  # a leading $ is allowed
    assert code == 1 and err.count("\n") == 1 and "over budget" in err
    assert json.loads(out)["budget"] == {
        "limit_usd": "0.01",
        "source": "--budget",
        "over": True,
        "headroom_usd": "-0.0186497",
        "overrun": None,
    }


@pytest.mark.parametrize(("budget", "code"), [("0.0286497", 0), ("0.0286496", 1)])
def test_budget_equal_to_the_estimate_is_not_over(
    budget: str, code: int, capsys: pytest.CaptureFixture[str]
) -> None:
    # bugfix estimates exactly $0.0286497 (tests/test_end_to_end.py)
    args = ("estimate", str(SCENARIOS / "bugfix.yaml"), "--as-of", AS_OF, "-f", "json", "--budget", budget)
    result, out, err = cli(capsys, *args)
    assert result == code
    assert json.loads(out)["budget"]["over"] is bool(code)
    assert ("over budget" in err) is bool(code)


# gpt-5: task 3 + "user" 1 + 1,000, 3 priming = 1,007 x $1.25 = 1,258.75 µ$ + output 100 x $10 = 1,000 µ$
SMALL_OVER = "version: 1\nmodel: gpt-5\ntask: {tokens: 1000}\nfinal: 100\nlimits: {budget_usd: 0.001}\n"


def test_scenario_budget_exceeded(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = write(tmp_path, SMALL_OVER)
    code, out, err = cli(capsys, "estimate", str(path), "--as-of", AS_OF)
    assert code == 1
    assert (
        err
        == f"agentcost: gate failed: {path}: over budget: estimated $0.0023 > $0.0010 (limits.budget_usd)\n"
    )
    assert "over budget by $0.0013." in out and "headroom" not in out  # $0.00225875 - $0.001


def test_budget_option_overrides_the_scenario_limit(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = write(tmp_path, SMALL_OVER)
    code, out, err = cli(capsys, "estimate", str(path), "--as-of", AS_OF, "--budget", "5", "-f", "json")
    assert (code, err) == (0, "")
    budget = json.loads(out)["budget"]
    assert (budget["source"], budget["over"], budget["limit_usd"]) == ("--budget", False, "5")
    # ... in both directions: a scenario within its own limit, over a stricter --budget
    code, _, err = cli(
        capsys, "estimate", str(SCENARIOS / "bugfix.yaml"), "--as-of", AS_OF, "--budget", "0.02"
    )
    assert code == 1 and "(--budget)" in err


# ---------------------------------------------------------------------------------------------
# Exit 2: bad input and usage, one line on stderr
# ---------------------------------------------------------------------------------------------

OK = "version: 1\nmodel: gpt-5\ntask: hi\nfinal: 10\n"


def case(case_id: str, argv: str | list[str], *fragments: str, text: str | bytes | None = None) -> Any:
    """One bad-input case. In ``argv`` and ``fragments``, {ok} is a valid scenario, {s} the scenario
    file written from ``text``, {dir} the directory holding both."""
    return pytest.param(argv.split() if isinstance(argv, str) else argv, text, list(fragments), id=case_id)


BAD_INPUT = [
    case("missing file", "estimate {dir}/nope.yaml", "{dir}/nope.yaml: file not found"),
    case("a directory", "estimate {dir}", "{dir}: is a directory"),
    case("unknown option", "estimate {ok} --bogus", "No such option: --bogus"),
    case("missing argument", "estimate", "Missing argument 'SCENARIO...'"),
    case("unknown command", "estimat {ok}", "No such command 'estimat'"),
    case("option without value", "estimate {ok} --budget", "'--budget' requires an argument"),
    case("bad format", "estimate {ok} --format xml", "'--format'", "'xml'", "'json'"),
    case("budget not a number", "estimate {ok} --budget abc", "--budget: not a dollar amount: 'abc'"),
    case(
        "budget negative",
        "estimate {ok} --budget -1",
        "--budget: must be a dollar amount above 0 and at most 1,000,000,000",
        "'-1'",
    ),
    case(
        "budget zero",
        "estimate {ok} --budget 0",
        "--budget: must be a dollar amount above 0 and at most 1,000,000,000",
        "'0'",
    ),
    case(
        "budget nan",
        "estimate {ok} --budget NaN",
        "--budget: must be a dollar amount above 0 and at most 1,000,000,000",
    ),
    case(
        "budget infinite",
        "estimate {ok} --budget Infinity",
        "--budget: must be a dollar amount above 0 and at most 1,000,000,000",
    ),
    case("as-of not a date", "estimate {ok} --as-of yesterday", "--as-of: not a usable date: 'yesterday'"),
    case("as-of impossible date", "estimate {ok} --as-of 2026-13-45", "--as-of: not a usable date"),
    case("unknown --model", "estimate {ok} --model gpt-5x", "unknown model 'gpt-5x'", "did you mean: gpt-5"),
    case("blank --model", ["estimate", "{ok}", "--model", " "], "--model: must name a model"),
    case("empty --model", ["estimate", "{ok}", "--model", ""], "--model: must name a model"),
    case("unknown --model names the option", "estimate {ok} --model gpt-5x", "error: --model: unknown model"),
    case(
        "as-of past year 9999 in UTC",
        "estimate {ok} --as-of 9999-12-31T23:59:59-05:00",
        "--as-of: not a usable date",
    ),
    case(
        "as-of before year 1 in UTC",
        "estimate {ok} --as-of 0001-01-01T00:00:00+05:00",
        "--as-of: not a usable date",
    ),
    case("huge --budget", "estimate {ok} --budget 1e999999999", "--budget: must be a dollar amount above 0"),
    case(
        "huge limits.budget_usd",
        "estimate {s}",
        "limits.budget_usd",
        text=OK + "limits: {budget_usd: 1.0e+999999999}\n",
    ),
    case(
        "--model several providers serve",
        "estimate {ok} --model qwen3.8-27b",
        "--model: model 'qwen3.8-27b' is served by 2 providers and none of them made it:"
        " ovhcloud/qwen3.8-27b, quicksilverpro/qwen3.8-27b",
        "write one as provider/model",
    ),
    case(
        "unknown model in the scenario",
        "estimate {s}",
        "{s}:3: model: unknown model 'gpt-5x'",
        "did you mean: gpt-5",
        text="version: 1\nname: typo\nmodel: gpt-5x\ntask: hi\nfinal: 10\n",
    ),
    case(
        "model several providers serve",
        "estimate {s}",
        "{s}:2: model: model 'qwen3.8-27b' is served by 2 providers",
        "write one as provider/model",
        text="version: 1\nmodel: qwen3.8-27b\ntask: hi\nfinal: 10\n",
    ),
    case(
        "model of another provider than given",
        "estimate {s}",
        "{s}:2: model: model 'claude-sonnet-4-5' belongs to provider 'anthropic'",
        text="version: 1\nmodel: claude-sonnet-4-5\nprovider: openai\ntask: hi\nfinal: 10\n",
    ),
    case(
        "YAML syntax error",
        "estimate {s}",
        "{s}:4: YAML syntax error",
        text="version: 1\nmodel: gpt-5\ntask: [hi\nfinal: 10\n",
    ),
    case(
        "unknown key",
        "estimate {s}",
        "{s}:5: bogus: unknown key",
        "allowed: version, name",
        text=OK + "bogus: 1\n",
    ),
    case(
        "not UTF-8",
        "estimate {s}",
        "{s}:3: not UTF-8",
        text=b"version: 1\nmodel: gpt-5\ntask: h\xe9\nfinal: 10\n",
    ),
    case("empty file", "estimate {s}", "{s}:1: the file is empty", text=""),
    case("a list, not a mapping", "estimate {s}", "{s}:1: expected a mapping", text="- a\n- b\n"),
    case(
        "no version",
        "estimate {s}",
        "{s}:1: version: required key is missing",
        text="model: gpt-5\ntask: hi\nfinal: 10\n",
    ),
    case(
        "later version",
        "estimate {s}",
        "{s}:1: version: unsupported version 2",
        text=OK.replace("version: 1", "version: 2"),
    ),
    case("caching: off", "estimate {s}", "{s}:5: caching:", "write none", text=OK + "caching: off\n"),
    case(
        "zero budget in file",
        "estimate {s}",
        "{s}:5: limits.budget_usd: must be > 0",
        text=OK + "limits: {budget_usd: 0}\n",
    ),
    case(
        "missing named file",
        "estimate {s}",
        "{s}:3: task.file: cannot read {dir}/gone.txt: file not found",
        text=OK.replace("task: hi", "task: {file: gone.txt}"),
    ),
    case(
        "round without result",
        "estimate {s}",
        "{s}:6: rounds[0]: the round has no result",
        text=OK + "rounds:\n  - {tool: x, call_tokens: 5}\n",
    ),
]


@pytest.mark.parametrize(("argv", "text", "fragments"), BAD_INPUT)
def test_bad_input_exits_2_with_one_line(
    argv: list[str],
    text: str | bytes | None,
    fragments: list[str],
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    places = {"dir": str(tmp_path), "ok": str(write(tmp_path, OK, "ok.yaml")), "s": str(tmp_path / "s.yaml")}
    if text is not None:
        write(tmp_path, text)
    code, out, err = cli(capsys, *(a.format(**places) for a in argv))
    line = assert_one_line_error(code, out, err)
    for fragment in fragments:
        assert fragment.format(**places) in line


def test_unknown_model_option_names_the_option(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = write(tmp_path, OK)
    code, out, err = cli(capsys, "estimate", str(path), "--model", "gpt-5x")
    line = assert_one_line_error(code, out, err)
    assert line.startswith(f"{ERROR}--model: unknown model 'gpt-5x'")


def test_over_budget_line_writes_the_limit_as_a_plain_decimal(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = cli(
        capsys, "estimate", str(write(tmp_path, OK)), "--as-of", AS_OF, "--budget", "0.00000001"
    )
    assert code == 1
    assert "> $0.000000010 (--budget)" in err


def test_the_command_suggested_for_unknown_models_exists(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = cli(capsys, "estimate", str(write(tmp_path, OK)), "--model", "gpt-5x")
    assert "run 'agentcost models'" in err
    code, out, err = cli(capsys, "models", "gpt-5", "--as-of", AS_OF)
    assert (code, err) == (0, "")
    assert "│ gpt-5  " in out and "│ $1.25 │" in out  # USD per MTok


# ---------------------------------------------------------------------------------------------
# No arguments, --version, schema
# ---------------------------------------------------------------------------------------------


def test_no_arguments_prints_help_without_an_error_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys)
    assert code == 2  # Click's convention for a bare group with no_args_is_help: a usage error
    assert "Usage: agentcost [OPTIONS] COMMAND [ARGS]..." in out
    for command in ("estimate", "schema", "models"):
        assert command in out
    assert err == ""  # the help is the message: no empty "agentcost: error:" line


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "estimate", "--help")
    assert (code, err) == (0, "")
    assert "--budget" in out and "--as-of" in out and "--format" in out


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "--version")
    assert (code, out, err) == (0, f"agentcost {agentcost.__version__}\n", "")
    assert metadata.version("agentcost-estimate") == agentcost.__version__  # pyproject and package agree


def test_console_script_is_the_cli() -> None:
    """The console script runs the CLI itself: no launcher, no stored output, no other process."""
    (script,) = metadata.entry_points(group="console_scripts", name="agentcost")
    assert script.value == "agentcost.cli:main"


def test_schema_prints_the_committed_schema(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "schema")
    assert (code, err) == (0, "")
    committed = (ROOT / "docs" / "scenario.schema.json").read_text(encoding="utf-8")
    assert out == committed, "regenerate with: agentcost schema > docs/scenario.schema.json"
    assert json.loads(out)["$schema"] == "https://json-schema.org/draft/2020-12/schema"


# ---------------------------------------------------------------------------------------------
# User files are never modified
# ---------------------------------------------------------------------------------------------


def tree_state(directory: Path) -> dict[str, tuple[str, int] | None]:
    """Every path under ``directory``: files by sha256 and mtime, directories as None."""
    return {
        str(p.relative_to(directory)): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
        if p.is_file()
        else None
        for p in sorted(directory.rglob("*"))
    }


def test_scenario_files_are_never_modified(capsys: pytest.CaptureFixture[str]) -> None:
    before = tree_state(SCENARIOS)
    assert len(before) >= 15
    for name in ("bugfix.yaml", "research.yaml", "mcp-40-tools.yaml"):
        path = str(SCENARIOS / name)
        assert cli(capsys, "estimate", path, "--as-of", AS_OF)[0] == 0
        assert cli(capsys, "estimate", path, "--as-of", AS_OF, "-f", "json")[0] == 0
        assert cli(capsys, "estimate", path, "--as-of", AS_OF, "--budget", "0.0001")[0] == 1
    assert tree_state(SCENARIOS) == before


# ---------------------------------------------------------------------------------------------
# The real module in a subprocess
# ---------------------------------------------------------------------------------------------


@pytest.mark.usefixtures("seeded_cache")
def test_subprocess_over_budget_json(seeded_cache: Path) -> None:
    proc = agentcost_module(
        "estimate", "scenarios/bugfix.yaml", "--as-of", AS_OF, "--format", "json", "--budget", "0.001"
    )
    assert proc.returncode == 1, proc.stderr
    (line,) = proc.stderr.splitlines()
    assert line.startswith("agentcost: gate failed: scenarios/bugfix.yaml: over budget: estimated $")
    assert line.endswith(" > $0.0010 (--budget)")
    data = json.loads(proc.stdout)  # the whole report, whatever Claude counter this Python has
    assert data["version"] == 1 and data["totals"]["requests"] == 9 and data["budget"]["over"] is True


def test_subprocess_bad_input() -> None:
    proc = agentcost_module("estimate", "scenarios/no-such-file.yaml")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr == "agentcost: error: scenarios/no-such-file.yaml: file not found\n"


def test_a_bug_exits_3_with_its_traceback_not_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Exit 1 means over budget; a crash must never look like one to CI."""
    from agentcost.cli import core as cli_module

    def broken(argv: list[str] | None = None) -> int:
        raise ZeroDivisionError("simulated bug")

    monkeypatch.setattr(cli_module, "run", broken)
    with pytest.raises(SystemExit) as exited:
        cli_module.main()
    assert exited.value.code == 3
    err = capsys.readouterr().err
    assert "Traceback" in err and "ZeroDivisionError: simulated bug" in err
    assert err.rstrip().endswith("please report it with the traceback above")


def test_one_hour_ttl_on_openai_is_flagged(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = write(tmp_path, OK + "cache_ttl: 1h\n")
    code, out, _ = cli(capsys, "estimate", str(path), "--as-of", AS_OF, "--format", "json")
    assert code == 0
    assert json.loads(out)["warnings"] == [
        "cache_ttl: 1h has no effect on openai: gpt-5 has no 1-hour cache-write price"
    ]


@pytest.mark.parametrize("collecting", [True, False])
def test_a_command_runs_with_the_cyclic_collector_paused_and_restores_it(
    monkeypatch: pytest.MonkeyPatch, collecting: bool
) -> None:
    """agentcost.cli.main pauses Python's cyclic garbage collector while the command runs (its data
    holds no cycles) and leaves it as it found it, for a caller in the same process."""
    import gc

    from agentcost.cli import core, main

    seen: list[bool] = []

    def command() -> None:
        seen.append(gc.isenabled())
        raise SystemExit(0)

    monkeypatch.setattr(core, "main", command)
    was = gc.isenabled()
    try:
        (gc.enable if collecting else gc.disable)()
        with pytest.raises(SystemExit):
            main()
        assert (seen, gc.isenabled()) == ([False], collecting)
    finally:
        (gc.enable if was else gc.disable)()


def test_mcp_serve_runs_with_the_collector_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server runs for as long as its client: the collector the command line paused is back on."""
    import gc

    from agentcost.mcp import serve

    seen: list[bool] = []

    class Server:
        def run(self, transport: str) -> None:
            seen.append(gc.isenabled())

    monkeypatch.setattr(serve, "build_server", Server)
    gc.disable()
    try:
        serve.run()
    finally:
        gc.enable()
    assert seen == [True]
