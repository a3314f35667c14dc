"""The public Python API (``agentcost.estimate``, ``load_scenario``, ``compare``): the same pipeline
and the same figures as the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
import typing
from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import yaml

import agentcost
from agentcost.api import CompareResult, EstimateResult, Gate, ModelCost, Request, Totals
from agentcost.cli import run
from tests.conftest import ROOT

AS_OF = "2026-11-30"
BUGFIX = ROOT / "scenarios" / "bugfix.yaml"
pytestmark = pytest.mark.usefixtures("no_ctok")


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code = run(list(argv))
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    return out


def test_the_total_is_the_one_estimate_q_prints(capsys: pytest.CaptureFixture[str]) -> None:
    result = agentcost.estimate(BUGFIX, as_of=AS_OF)
    assert str(result.total_cost_usd) == cli(capsys, "estimate", str(BUGFIX), "--as-of", AS_OF, "-q").strip()
    assert result.total_cost_usd == Decimal("0.0286497")  # README's bugfix total, hand-checked there
    assert len(result.requests) == 9 and result.requests[-1].kind == "final"
    assert sum((r.cost_usd for r in result.requests), Decimal(0)) == result.totals.cost_usd
    assert result.passed  # within its $0.10 budget


def test_to_json_is_what_format_json_prints(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    result = agentcost.estimate("scenarios/research.yaml", as_of=AS_OF)
    assert result.to_json() == cli(
        capsys, "estimate", "scenarios/research.yaml", "--as-of", AS_OF, "-f", "json"
    )


def bugfix_mapping() -> dict[str, Any]:
    """scenarios/bugfix.yaml, parsed: its files are read relative to ``base_dir=BUGFIX.parent``."""
    mapping: dict[str, Any] = yaml.safe_load(BUGFIX.read_text(encoding="utf-8"))
    return mapping


def test_a_parsed_mapping_costs_what_its_file_costs(capsys: pytest.CaptureFixture[str]) -> None:
    from_cli = json.loads(cli(capsys, "estimate", str(BUGFIX), "--as-of", AS_OF, "-f", "json"))
    assert from_cli["totals"]["cost_usd"] == "0.0286497"
    from_mapping = agentcost.estimate(bugfix_mapping(), base_dir=BUGFIX.parent, as_of=AS_OF)
    from_file = agentcost.estimate(BUGFIX, as_of=AS_OF)
    assert from_mapping.total_cost_usd == from_file.total_cost_usd == Decimal("0.0286497")
    assert from_mapping.requests == from_file.requests and from_mapping.totals == from_file.totals
    assert from_mapping.to_dict()["scenario"]["path"] == str(BUGFIX.parent / "<mapping>")
    # limits.budget_usd: 0.10 parsed by yaml.safe_load is a float; it is read as Decimal('0.1')
    assert from_mapping.to_dict()["budget"] == from_cli["budget"]
    assert from_mapping.to_dict()["budget"]["limit_usd"] == "0.1"


def mapping_error(mapping: dict[str, Any], **options: Any) -> agentcost.InputError:
    with pytest.raises(agentcost.InputError) as caught:
        agentcost.estimate(mapping, base_dir=BUGFIX.parent, as_of=AS_OF, **options)
    return caught.value


def test_a_mapping_error_names_the_key_path_and_no_file() -> None:
    mapping = bugfix_mapping()
    assert mapping["rounds"][1]["tool"] == "Read"
    mapping["rounds"][1]["tool"] = "Raed"
    error = mapping_error(mapping)
    assert (
        str(error) == "rounds[1].tool: unknown tool 'Raed' (defined: Read, Edit, Bash; did you mean 'Read'?)"
    )
    assert (error.file, error.line, error.key) == (None, None, "rounds[1].tool")


def test_nested_mapping_errors_name_their_whole_key_path() -> None:
    mapping = bugfix_mapping()
    mapping["rounds"][1]["result"] = {"tokens": "lots"}
    assert str(mapping_error(mapping)) == "rounds[1].result.tokens: expected an integer, got text 'lots'"

    mapping = bugfix_mapping()
    del mapping["rounds"][0]["result"]
    mapping["rounds"][0]["subagent"] = {"model": "gpt-5", "task": "t", "rounds": [{"tool": "x"}], "final": 5}
    assert str(mapping_error(mapping)) == (
        "rounds[0].subagent.rounds[0]: the round has no result "
        "(add result: N tokens, a text or {file: path}, or set defaults.result)"
    )

    mapping = bugfix_mapping()
    mapping["tools"].append(dict(mapping["tools"][0]))
    assert (
        str(mapping_error(mapping)) == "tools[3].name: duplicate tool name 'Read' (first defined at tools[0])"
    )


def test_values_python_has_and_yaml_has_not_are_refused_by_key_path() -> None:
    mapping = bugfix_mapping()
    mapping["limits"]["budget_usd"] = float("nan")
    assert str(mapping_error(mapping)) == "limits.budget_usd: not a finite number: nan"
    mapping = bugfix_mapping()
    mapping["rounds"][2]["input"] = {"file_path": {"a", "b"}}
    assert str(mapping_error(mapping)) == (
        "rounds[2].input.file_path: expected text, a number, true/false, None, a list or a mapping, "
        "got a value of type set"
    )
    mapping = bugfix_mapping()
    looped: dict[str, Any] = {}
    looped["again"] = looped
    mapping["rounds"][2]["input"] = looped
    assert str(mapping_error(mapping)) == "rounds[2].input.again: the value contains itself"


def test_an_override_on_a_mapping_names_the_override_and_no_file() -> None:
    error = mapping_error(bugfix_mapping(), overrides=["rounds[1].tool=Nope"])
    assert str(error) == "--set rounds[1].tool=Nope: unknown tool 'Nope' (defined: Read, Edit, Bash)"
    assert error.file is None


def test_files_a_mapping_names_are_read_from_base_dir_and_keep_their_own_lines(tmp_path: Path) -> None:
    mapping = bugfix_mapping()
    mapping["rounds"][1]["result"] = {"file": "bugfix/missing.py"}
    assert str(mapping_error(mapping)) == (
        f"rounds[1].result.file: cannot read {BUGFIX.parent / 'bugfix' / 'missing.py'}: file not found"
    )
    tools = tmp_path / "tools.yaml"
    tools.write_text("- name: a\n  description: d\n  input_schema: {type: object}\n  extra: 1\n", "utf-8")
    mapping = {"version": 1, "model": "gpt-5", "task": "t", "tools": [{"file": "tools.yaml"}], "final": 5}
    with pytest.raises(agentcost.InputError) as caught:
        agentcost.estimate(mapping, base_dir=tmp_path, as_of=AS_OF)
    assert str(caught.value) == (
        f"{tools}:4: [0].<key>: unknown key (allowed: name, description, input_schema, type, "
        "cache_control, strict, defer_loading; tool file named at tools[0])"
    )
    mapping["tools"] = [{"file": "../outside.yaml"}]
    with pytest.raises(agentcost.InputError, match=r"^tools\[0\]\.file: .* outside the allowed directories"):
        agentcost.estimate(mapping, base_dir=tmp_path, as_of=AS_OF)


def test_every_spelling_of_a_date_prices_alike() -> None:
    expected = agentcost.estimate(BUGFIX, as_of=AS_OF).as_of
    assert expected == datetime(2026, 11, 30, tzinfo=UTC)
    for as_of in (
        date(2026, 11, 30),
        datetime(2026, 11, 30),  # naive: UTC
        datetime(2026, 11, 30, tzinfo=UTC),
        datetime(2026, 11, 30, 1, tzinfo=timezone(timedelta(hours=1))),  # 00:00 UTC
    ):
        assert agentcost.estimate(BUGFIX, as_of=as_of).as_of == expected, as_of


def test_bad_options_are_errors_worded_for_the_library() -> None:
    with pytest.raises(agentcost.InputError, match=r"^as_of: not a usable date: 'soon'"):
        agentcost.estimate(BUGFIX, as_of="soon")
    scenario = agentcost.load_scenario(BUGFIX)
    with pytest.raises(TypeError, match="overrides apply while a scenario is read"):
        agentcost.estimate(scenario, as_of=AS_OF, overrides=["final=10"])
    with pytest.raises(TypeError):
        agentcost.compare(BUGFIX, "gpt-5", as_of=AS_OF)


def test_a_budget_and_overrides_change_the_result_as_on_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    over = agentcost.estimate(BUGFIX, as_of=AS_OF, budget_usd="0.01", overrides=["final=400"])
    line = cli(capsys, "estimate", str(BUGFIX), "--as-of", AS_OF, "--set", "final=400", "-q")
    assert str(over.total_cost_usd) == line.strip()
    assert not over.passed and [g.name for g in over.gates if g.tripped] == ["budget"]


def test_a_float_budget_is_read_as_its_text_and_trips_the_gate(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    result = agentcost.estimate("scenarios/bugfix.yaml", budget_usd=0.01, as_of=AS_OF)
    assert result.passed is False  # $0.0286497 > $0.01
    assert result.to_dict()["budget"]["limit_usd"] == "0.01"  # not 0.01000000000000000020816681711721685...
    assert [g for g in result.gates if g.tripped] == [
        Gate("budget", True, "scenarios/bugfix.yaml: over budget: estimated $0.0286 > $0.0100 (--budget)")
    ]
    for spelled in (Decimal("0.01"), "0.01"):
        assert (
            agentcost.estimate(BUGFIX, budget_usd=spelled, as_of=AS_OF).to_dict()["budget"]["limit_usd"]
            == "0.01"
        )
    assert agentcost.estimate(BUGFIX, budget_usd=1, as_of=AS_OF).passed is True


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (
            True,
            "budget_usd: expected a dollar amount, got bool True (give a Decimal, an int, a float or a text such as '0.05')",
        ),
        (float("nan"), "budget_usd: not a finite amount: nan (e.g. '0.05')"),
        (float("inf"), "budget_usd: not a finite amount: inf (e.g. '0.05')"),
        (Decimal("NaN"), "budget_usd: not a finite amount: Decimal('NaN') (e.g. '0.05')"),
        ("lots", "budget_usd: not a dollar amount: 'lots' (e.g. '0.05')"),
        (0, "budget_usd: must be a dollar amount above 0, got 0"),
        (-0.5, "budget_usd: must be a dollar amount above 0, got -0.5"),
    ],
)
def test_a_bad_amount_is_an_input_error_naming_the_keyword(given: Any, message: str) -> None:
    with pytest.raises(agentcost.InputError) as caught:
        agentcost.estimate(BUGFIX, budget_usd=given, as_of=AS_OF)
    assert str(caught.value) == message


def test_the_result_is_small_exact_and_what_the_json_says(capsys: pytest.CaptureFixture[str]) -> None:
    result = agentcost.estimate(BUGFIX, as_of=AS_OF)
    printed = cli(capsys, "estimate", str(BUGFIX), "--as-of", AS_OF, "-f", "json")
    assert result.to_json() == printed
    assert result.to_dict() == json.loads(printed, parse_float=Decimal)
    assert result.requests[0] == Request(
        index=1,
        kind="tool_use",
        label="Bash",
        input_tokens=1137,
        cache_read_tokens=0,
        cache_write_tokens=1133,
        output_tokens=70,
        cost_usd=Decimal("0.00531075"),
        subagents_cost_usd=Decimal(0),
    )
    assert [(r.index, r.kind, r.label) for r in result.requests][-1] == (9, "final", "final answer")
    assert result.totals == Totals(9, 20253, 16989, 3228, 756, Decimal("0.0286497"))
    for row, line in zip(result.requests, result.to_dict()["requests"], strict=True):
        assert (row.input_tokens, str(row.cost_usd)) == (line["input_tokens"], line["cost_usd"])
    assert (result.model, result.passed) == ("claude-sonnet-4-5", True)
    with pytest.raises(AttributeError):
        result.total_cost_usd = Decimal(0)  # type: ignore[misc]


def test_subagents_costs_are_on_the_request_that_started_them() -> None:
    result = agentcost.estimate(ROOT / "scenarios" / "subagent-research.yaml", as_of=AS_OF)
    assert result.total_cost_usd == Decimal("0.12054745")
    own = sum((r.cost_usd for r in result.requests), Decimal(0))
    started = sum((r.subagents_cost_usd for r in result.requests), Decimal(0))
    assert (own, started) == (Decimal("0.0373224"), Decimal("0.08322505"))
    assert own + started == result.total_cost_usd
    assert (len(result.requests), result.totals.requests) == (5, 23)


def test_a_loaded_scenario_estimates_on_other_models(capsys: pytest.CaptureFixture[str]) -> None:
    scenario = agentcost.load_scenario(BUGFIX)
    assert isinstance(scenario, agentcost.Scenario)
    on_gpt = agentcost.estimate(scenario, as_of=AS_OF, model="gpt-5")
    compared = agentcost.compare(BUGFIX, ["gpt-5", "claude-sonnet-4-5"], as_of=AS_OF)
    assert compared.costs_usd == {"claude-sonnet-4-5": Decimal("0.0286497"), "gpt-5": on_gpt.total_cost_usd}
    assert list(compared.costs_usd) == ["gpt-5", "claude-sonnet-4-5"]  # cheapest first
    assert compared.rows[0] == ModelCost(
        "gpt-5", "openai", 9, 12402, 8064, 0, 448, Decimal("0.0109105"), True
    )
    assert compared.passed and [g.name for g in compared.gates] == ["budget"] * 2 + ["context_window"] * 2
    printed = cli(
        capsys,
        "compare",
        str(BUGFIX),
        "-m",
        "gpt-5",
        "-m",
        "claude-sonnet-4-5",
        "--as-of",
        AS_OF,
        "-f",
        "json",
    )
    assert compared.to_json() == printed
    assert compared.to_dict()["kind"] == "compare"


def test_a_loaded_mapping_is_a_scenario_in_base_dir() -> None:
    scenario = agentcost.load_scenario(bugfix_mapping(), base_dir=BUGFIX.parent)
    assert scenario.path == BUGFIX.parent / "<mapping>"
    assert agentcost.estimate(scenario, as_of=AS_OF).total_cost_usd == Decimal("0.0286497")
    wrong = bugfix_mapping()
    wrong["final"] = 1.5  # a float is read as Decimal('1.5'), as 1.5 written in the file
    with pytest.raises(agentcost.InputError) as caught:
        agentcost.load_scenario(wrong, base_dir=BUGFIX.parent)
    assert str(caught.value) == (
        "final: expected an integer (tokens), a text, or one of {tokens: N}, {text: ...}, {file: path}, got 1.5"
    )


@pytest.mark.parametrize(
    "function",
    [
        agentcost.estimate,
        agentcost.load_scenario,
        agentcost.compare,
        EstimateResult,
        EstimateResult.to_json,
        EstimateResult.to_dict,
        CompareResult,
        CompareResult.to_json,
        CompareResult.to_dict,
        typing.cast(property, CompareResult.costs_usd).fget,
        typing.cast(property, EstimateResult.report).fget,
        Request,
        Totals,
        Gate,
        ModelCost,
    ],
)
def test_every_public_annotation_resolves_at_run_time(function: Any) -> None:
    hints = typing.get_type_hints(function)
    assert hints  # NameError before: the annotations named types imported only for type checkers
    if function is agentcost.estimate:
        assert hints["return"] is EstimateResult and hints["budget_usd"] == Decimal | int | float | str | None
    if function is agentcost.compare:
        assert hints["return"] is CompareResult


def test_import_agentcost_api_is_light() -> None:
    heavy = ("pydantic", "yaml", "typer", "rich", "tiktoken", "numpy", "genai_prices")
    probe = f"import sys, agentcost.api; print(sorted(m for m in {heavy!r} if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert (done.returncode, done.stdout) == (0, "[]\n")


def test_import_agentcost_is_light() -> None:
    probe = "import sys, agentcost; print(sorted(m for m in ('pydantic', 'yaml', 'typer', 'rich', 'tiktoken') if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert (done.returncode, done.stdout) == (0, "[]\n")
    assert agentcost.__version__ and "estimate" in dir(agentcost)
    with pytest.raises(AttributeError):
        agentcost.nothing_here  # noqa: B018


def test_dates_outside_the_supported_range_are_input_errors_in_every_spelling() -> None:
    """A date object outside --as-of's range is refused like the same text (an OverflowError once)."""
    for as_of in ("9999-12-31", date(9999, 12, 31), datetime(9999, 12, 31), date(1969, 12, 31)):
        with pytest.raises(agentcost.InputError, match="outside the supported dates"):
            agentcost.estimate(BUGFIX, as_of=as_of)
