"""The commands end to end through the CLI: compare, diff, several scenarios, project files.

Every command's JSON must pass ``python -m json.tool`` (one interpreter for all of them) and validate
against the published report schema; ``--quiet`` prints exactly one number; gates exit 1; the compare
totals equal ``estimate``. The commands run in-process; tests/test_cli.py runs the real process.
"""

from __future__ import annotations

import functools
import json
import re
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from agentcost.cli import run
from agentcost.render.schema import report_schema

AS_OF = "2026-11-30"
BUGFIX = "scenarios/bugfix.yaml"
VARIANT = "docs/examples/bugfix-more-tools.yaml"
PROJECT = "scenarios/agentcost.yml"
NUMBER = re.compile(r"^-?\d+(\.\d+)?\n$")

pytestmark = pytest.mark.usefixtures("no_ctok", "fixed_terminal")

COMMANDS = {
    "estimate": ["estimate", BUGFIX],
    "batch": ["estimate", BUGFIX, "scenarios/research.yaml"],
    "project": ["estimate", PROJECT],
    "compare": ["compare", BUGFIX, "-m", "claude-sonnet-4-5", "-m", "gpt-5", "-m", "gemini-2.5-pro"],
    "diff": ["diff", BUGFIX, VARIANT],
}


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run([*args, "--as-of", AS_OF])
    out, err = capsys.readouterr()
    return code, out, err


def strict_json(text: str) -> Any:
    """``json.loads``, refusing NaN and Infinity (not JSON, though Python's parser accepts them)."""

    def refuse(constant: str) -> Any:
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


@functools.cache
def report_validator() -> jsonschema.Draft202012Validator:
    """A validator of the published report schema, made once (``jsonschema.validate`` would also check
    the schema against its meta-schema on every call: tests/test_output.py does that, once)."""
    return jsonschema.Draft202012Validator(report_schema())


@pytest.mark.parametrize("name", list(COMMANDS))
def test_json_of_every_command_validates(capsys: pytest.CaptureFixture[str], name: str) -> None:
    code, out, err = cli(capsys, *COMMANDS[name], "--format", "json")
    assert code == 0, err
    data = strict_json(out)
    report_validator().validate(data)
    assert list(data)[:2] == ["version", "kind"] and data["version"] == 1
    assert data["kind"] == {"project": "batch"}.get(name, name)


# `python -m json.tool` on every file, all in one interpreter (one process per command cost ~1 s each)
JSON_TOOL = """
import runpy, sys
for path in sys.argv[1:]:
    sys.argv = ["json.tool", path, path + ".tool"]
    runpy.run_module("json.tool", run_name="__main__", alter_sys=True)
"""


def test_json_of_every_command_passes_json_tool(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    produced = {}
    for name, args in COMMANDS.items():
        code, out, err = cli(capsys, *args, "--format", "json")
        assert code == 0, err
        produced[name] = out
        (tmp_path / f"{name}.json").write_text(out, encoding="utf-8")
    files = [str(tmp_path / f"{name}.json") for name in produced]
    tool = subprocess.run(
        [sys.executable, "-c", JSON_TOOL, *files], capture_output=True, text=True, timeout=60
    )
    assert tool.returncode == 0, tool.stderr
    for name, out in produced.items():
        rewritten = (tmp_path / f"{name}.json.tool").read_text(encoding="utf-8")
        assert json.loads(rewritten) == json.loads(out), name


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("estimate", "0.0286497"),
        ("compare", None),  # the cheapest model's total
        ("diff", "0.01469895"),  # $0.04334865 - $0.0286497
    ],
)
def test_quiet_prints_one_number(capsys: pytest.CaptureFixture[str], name: str, expected: str | None) -> None:
    code, out, err = cli(capsys, *COMMANDS[name], "-q")
    assert code == 0, err
    assert NUMBER.match(out), out
    if expected is not None:
        assert out == expected + "\n"


@pytest.mark.parametrize("fmt", ["table", "markdown", "csv", "svg"])
@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_format_of_every_command_renders(
    capsys: pytest.CaptureFixture[str], name: str, fmt: str, tmp_path: Path
) -> None:
    target = tmp_path / f"report.{fmt}"
    code, out, err = cli(capsys, *COMMANDS[name], "--format", fmt, "--output", str(target))
    assert code == 0, err
    assert out == ""
    text = target.read_text(encoding="utf-8")
    if fmt == "svg":
        assert text.startswith("<svg") and text.rstrip().endswith("</svg>")
    elif fmt == "csv":
        assert text.count("\n") >= 2 and "," in text.splitlines()[0]
    elif fmt == "markdown":
        assert text.startswith("#### agentcost")
    else:
        assert "$" in text


def test_compare_totals_equal_estimate_with_set_model(capsys: pytest.CaptureFixture[str]) -> None:
    models = ["claude-sonnet-4-5", "gpt-5", "gemini-2.5-pro"]
    args = ["compare", "scenarios/research.yaml", *[a for m in models for a in ("-m", m)], "-f", "json"]
    code, out, err = cli(capsys, *args)
    assert code == 1, err  # gemini-2.5-pro is over the scenario's $1 budget, as estimate says below
    rows = {row["model"]: row for row in json.loads(out)["models"]}
    assert set(rows) == set(models)
    for model in models:
        code, out, err = cli(
            capsys, "estimate", "scenarios/research.yaml", "--set", f"model={model}", "-f", "json"
        )
        assert code in (0, 1), err  # 1: this model is over the scenario's $1 budget
        assert (code == 1) == json.loads(out)["budget"]["over"]
        assert rows[model]["cost_usd"] == json.loads(out)["totals"]["cost_usd"]
    costs = [Decimal(rows[m]["cost_usd"]) for m in models]
    cheapest = min(costs)
    assert [r["cheapest"] for r in (rows[m] for m in models)] == [c == cheapest for c in costs]


def test_diff_trips_max_increase_with_exit_1_and_names_the_change(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "diff", BUGFIX, VARIANT, "--max-increase", "10%", "-f", "json")
    assert code == 1
    data = json.loads(out)
    assert data["totals"]["before"]["cost_usd"] == "0.0286497"
    assert data["totals"]["after"]["cost_usd"] == "0.04334865"
    assert data["totals"]["change"]["cost_usd"] == "0.01469895"
    scenario = data["scenarios"][0]
    assert "tools: +1 definition (+Grep), +106 tokens per request" in [i["text"] for i in scenario["inputs"]]
    tripped = [g for g in data["gates"] if g["tripped"]]
    assert [g["name"] for g in tripped] == ["max_increase"]
    assert err == (
        f"agentcost: gate failed: {VARIANT}: cost $0.0286 → $0.0433 (+51.3%) > allowed increase 10.0%\n"
    )
    # a generous limit passes; a dollar limit below the change trips
    assert cli(capsys, "diff", BUGFIX, VARIANT, "--max-increase", "60%", "-q")[0] == 0
    assert cli(capsys, "diff", BUGFIX, VARIANT, "--max-increase-usd", "0.01", "-q")[0] == 1
    assert cli(capsys, "diff", BUGFIX, VARIANT, "--max-increase-usd", "0.02", "-q")[0] == 0


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["diff", BUGFIX], "diff: needs HEAD, or --base-ref REF"),
        (["diff", BUGFIX, VARIANT, "--max-increase", "ten"], "--max-increase: not a percentage: 'ten'"),
        (
            ["diff", BUGFIX, VARIANT, "--max-increase-usd", "-1"],
            "--max-increase-usd: must be a dollar amount 0 or more",
        ),
        (["diff", BUGFIX, "--base-ref", "no-such-ref-xyz"], "no-such-ref-xyz"),
        (["compare", BUGFIX], "--model"),
        (["compare", BUGFIX, "-m", "gpt-9"], "gpt-9"),
        (["compare", BUGFIX, "-m", "nosuchprovider/*"], "nosuchprovider"),
        (["estimate", BUGFIX, PROJECT], "project"),
    ],
)
def test_bad_command_input_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str], args: list[str], fragment: str
) -> None:
    code, out, err = cli(capsys, *args)
    assert code == 2, (out, err)
    assert out == "" and err.count("\n") == 1 and err.startswith("agentcost: error: ")
    assert fragment in err


def test_diff_base_ref_reads_the_committed_version(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True)

    scenario = tmp_path / "s.yaml"
    scenario.write_text(
        "version: 1\nmodel: gpt-4o\ncaching: none\ntask: {tokens: 100}\nrounds:\n"
        "  - {tool: read, call_tokens: 10, result: 1000}\nfinal: 50\n",
        encoding="utf-8",
    )
    git("init", "-q")
    git("add", "s.yaml")
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "base")
    scenario.write_text(
        scenario.read_text(encoding="utf-8").replace("result: 1000", "result: 3000"), encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    code, out, err = cli(capsys, "diff", "s.yaml", "--base-ref", "HEAD", "-f", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["base"].startswith("HEAD")
    # only request 2 carries the result: +2,000 input tokens x $2.50/MTok = +$0.005
    assert data["totals"]["change"]["cost_usd"] == "0.005"
