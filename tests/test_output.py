"""Every output format of `agentcost estimate`: JSON against the published schema, Markdown golden,
CSV parsed back, SVG, the chart, --quiet, --output (atomic), --summary and ::error annotations."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from decimal import Decimal
from pathlib import Path

import jsonschema
import pytest

from agentcost.cli import run
from agentcost.render import output
from agentcost.render.schema import report_schema
from tests.conftest import ROOT, GoldenCheck

BUGFIX = str(ROOT / "scenarios" / "bugfix.yaml")
AS_OF = "2026-11-30"

pytestmark = pytest.mark.usefixtures("no_ctok", "fixed_terminal")


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_matches_the_published_schema_and_the_docs_copy(capsys: pytest.CaptureFixture[str]) -> None:
    schema = report_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert jsonschema.validators.validator_for(schema) is jsonschema.Draft202012Validator
    code, out, _ = cli(capsys, "estimate", BUGFIX, "--as-of", AS_OF, "--format", "json")
    assert code == 0
    data = json.loads(out)
    jsonschema.Draft202012Validator(schema).validate(data)  # the schema is checked above, once
    assert list(data)[:2] == ["version", "kind"] and data["kind"] == "estimate"
    assert [g["name"] for g in data["gates"]] == ["budget", "context_window"]
    assert not any(g["tripped"] for g in data["gates"])
    published = json.loads((ROOT / "docs" / "report.schema.json").read_text(encoding="utf-8"))
    assert published == schema, (
        "docs/report.schema.json is stale: python -m agentcost.render.schema > docs/report.schema.json"
    )


def test_json_passes_python_json_tool(capsys: pytest.CaptureFixture[str]) -> None:
    # the report is made in-process (the real process's JSON: tests/test_cli.py); json.tool runs for real
    code, produced, err = cli(capsys, "estimate", BUGFIX, "--as-of", AS_OF, "-f", "json")
    assert code == 0, err
    checked = subprocess.run(
        [sys.executable, "-m", "json.tool"], input=produced, capture_output=True, text=True, check=True
    )
    assert json.loads(checked.stdout)["totals"]["cost_usd"] == "0.0286497"


def test_markdown_golden(capsys: pytest.CaptureFixture[str], golden: GoldenCheck) -> None:
    code, out, _ = cli(capsys, "estimate", "scenarios/bugfix.yaml", "--as-of", AS_OF, "--format", "markdown")
    assert code == 0
    assert out.startswith("#### agentcost: Fix POST /orders validation\n")
    assert "**$0.0286** per run on `claude-sonnet-4-5` (anthropic): 9 requests" in out
    golden("bugfix.md", out)


def test_csv_rows_parse_back_and_sum_exactly(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "estimate", BUGFIX, "--as-of", AS_OF, "--format", "csv")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    requests, total = rows[:-1], rows[-1]
    assert [r["request"] for r in requests] == [str(i) for i in range(1, 10)]
    assert [r["tool"] for r in requests] == [
        "Bash",
        "Read",
        "Read",
        "Bash",
        "Edit",
        "Bash",
        "Bash",
        "Bash",
        "",
    ]
    assert total["request"] == "total" and total["cost_usd"] == "0.0286497"
    assert sum(Decimal(r["cost_usd"]) for r in requests) == Decimal(total["cost_usd"])
    assert sum(int(r["input_tokens"]) for r in requests) == int(total["input_tokens"]) == 20_253


def test_svg_is_an_svg_document_with_the_chart(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "estimate", BUGFIX, "--as-of", AS_OF, "--format", "svg")
    assert code == 0
    root = ET.fromstring(out)
    assert root.tag.endswith("svg")
    text = "".join(root.itertext()).replace("\xa0", " ")
    assert "Fix POST /orders validation" in text and "Cost per request" in text  # tests/test_charts.py


def test_chart_bars_are_scaled_to_the_largest_request(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "estimate", BUGFIX, "--as-of", AS_OF, "--chart")
    assert code == 0
    lines = [line for line in out.splitlines() if line[:1].isdigit() and "$" in line]
    assert len(lines) == 9
    # the costliest request is the first (it writes the whole prefix to the cache): the longest bar
    lengths = [sum(line.count(c) for c in "█▓▒░") for line in lines]
    assert lengths[0] == max(lengths)
    assert lines[-1].rstrip().endswith("$0.0286")  # the running total


def test_quiet_prints_one_number(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "estimate", BUGFIX, "--as-of", AS_OF, "-q")
    assert (code, out, err) == (0, "0.0286497\n", "")
    code, out, err = cli(capsys, "estimate", BUGFIX, "--as-of", AS_OF, "-q", "--budget", "0.01")
    assert code == 1 and out == "0.0286497\n" and "over budget" in err


def test_output_file_is_written_atomically_and_stdout_stays_empty(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    target = tmp_path / "report.json"
    target.write_text("old", encoding="utf-8")
    code, out, _ = cli(capsys, "estimate", BUGFIX, "--as-of", AS_OF, "-f", "json", "-o", str(target))
    assert code == 0 and out == ""
    assert json.loads(target.read_text(encoding="utf-8"))["totals"]["cost_usd"] == "0.0286497"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]  # no temporary file left behind


def test_output_into_a_missing_directory_is_bad_input(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = cli(capsys, "estimate", BUGFIX, "--as-of", AS_OF, "-o", str(tmp_path / "no" / "r.txt"))
    assert code == 2 and out == ""
    assert err.startswith(f"agentcost: error: {tmp_path / 'no' / 'r.txt'}: --output: cannot write the report")
    assert err.count("\n") == 1


def test_summary_appends_markdown_to_the_step_summary(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    code, _, _ = cli(capsys, "estimate", BUGFIX, "--as-of", AS_OF, "-q", "--summary")
    assert code == 0
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("earlier step\n#### agentcost: Fix POST /orders validation\n")
    monkeypatch.delenv("GITHUB_STEP_SUMMARY")
    code, _, err = cli(capsys, "estimate", BUGFIX, "--as-of", AS_OF, "-q", "--summary")
    assert code == 0 and "GITHUB_STEP_SUMMARY is not set" in err


def test_tripped_gates_become_github_error_annotations(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    code, _, err = cli(
        capsys, "estimate", "scenarios/bugfix.yaml", "--as-of", AS_OF, "-q", "--budget", "0.01"
    )
    assert code == 1
    assert err.splitlines() == [
        "agentcost: gate failed: scenarios/bugfix.yaml: over budget: estimated $0.0286 > $0.0100 (--budget)",
        "::error file=scenarios/bugfix.yaml,title=agentcost budget::scenarios/bugfix.yaml: over budget:"
        " estimated $0.0286 > $0.0100 (--budget)",
    ]


def test_scenario_budget_annotation_points_at_its_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    scenario = tmp_path / "s.yaml"
    scenario.write_text(
        "version: 1\nmodel: gpt-4o\ntask: hi\nfinal: 10\nlimits:\n  budget_usd: 0.000001\n", encoding="utf-8"
    )
    code, _, err = cli(capsys, "estimate", str(scenario), "--as-of", AS_OF, "-q")
    assert code == 1
    assert f"::error file={scenario},line=6,title=agentcost budget::" in err


def test_budget_set_from_the_command_line_names_the_override(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(
        capsys, "estimate", BUGFIX, "--as-of", AS_OF, "-f", "json", "--set", "limits.budget_usd=0.02"
    )
    assert code == 1
    budget = json.loads(out)["budget"]
    assert budget == {
        "limit_usd": "0.02",
        "source": "--set limits.budget_usd=0.02",
        "over": True,
        "headroom_usd": "-0.0086497",
        "overrun": None,
    }
    assert err.startswith(
        f"agentcost: gate failed: {BUGFIX}: over budget: estimated $0.0286 > $0.0200 (--set limits.budget_usd=0.02)"
    )


def test_unknown_model_from_set_names_the_override(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "estimate", BUGFIX, "--set", "model=gpt-9")
    assert code == 2 and out == ""
    assert err.startswith(f"agentcost: error: {BUGFIX}: --set model=gpt-9: unknown model 'gpt-9'")


def test_context_window_gate_trips(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # gpt-4o's window is 128,000 tokens: 3 rounds of 50,000-token results overflow it
    scenario = tmp_path / "big.yaml"
    scenario.write_text(
        "version: 1\nmodel: gpt-4o\ntask: summarise\nrounds:\n  - tool: read\n    call_tokens: 10\n"
        "    result: 50000\n    repeat: 3\nfinal: 100\n",
        encoding="utf-8",
    )
    code, out, err = cli(capsys, "estimate", str(scenario), "--as-of", AS_OF, "-f", "json")
    assert code == 1
    gate = next(g for g in json.loads(out)["gates"] if g["name"] == "context_window")
    assert gate["tripped"] is True
    assert "context window 128,000" in gate["message"]
    assert err.startswith(f"agentcost: gate failed: {scenario}: largest request 150,")


def test_annotation_escapes_workflow_command_characters() -> None:
    from agentcost.report.gates import Gate

    gate = Gate("budget", True, "50% over\nbudget", file="a,b:c.yaml", line=7)
    assert (
        output.annotation(gate)
        == "::error file=a%2Cb%3Ac.yaml,line=7,title=agentcost budget::50%25 over%0Abudget"
    )
