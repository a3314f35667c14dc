"""The public Python API (``agentcost.estimate``, ``load_scenario``, ``compare``): the same pipeline
and the same figures as the CLI."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal

import pytest
import yaml

import agentcost
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
    assert result.total_cost_usd == Decimal("0.0320049")  # README's bugfix total, hand-checked there
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


def test_a_parsed_mapping_reads_its_files_from_base_dir() -> None:
    mapping = yaml.safe_load(BUGFIX.read_text(encoding="utf-8"))
    from_mapping = agentcost.estimate(mapping, base_dir=BUGFIX.parent, as_of=AS_OF)
    from_file = agentcost.estimate(BUGFIX, as_of=AS_OF)
    assert from_mapping.total_cost_usd == from_file.total_cost_usd
    assert from_mapping.requests == from_file.requests
    assert from_mapping.report.scenario_path.endswith("<mapping>.yaml")


def test_a_mapping_error_names_the_key_and_its_line() -> None:
    bad = {"version": 1, "model": "gpt-5", "task": "t", "rounds": [{"tool": "a", "rsult": 3}], "final": 5}
    with pytest.raises(agentcost.InputError) as caught:
        agentcost.estimate(bad, as_of=AS_OF)
    # line 6 of the mapping dumped as YAML: version, model, task, rounds, "- tool: a", "rsult: 3"
    assert str(caught.value).startswith("<mapping>.yaml:6: rounds[0].rsult: unknown key")


def test_every_spelling_of_a_date_prices_alike() -> None:
    expected = agentcost.estimate(BUGFIX, as_of=AS_OF).report.as_of
    assert expected == "2026-11-30T00:00:00+00:00"
    for as_of in (
        date(2026, 11, 30),
        datetime(2026, 11, 30),  # naive: UTC
        datetime(2026, 11, 30, tzinfo=UTC),
        datetime(2026, 11, 30, 1, tzinfo=timezone(timedelta(hours=1))),  # 00:00 UTC
    ):
        assert agentcost.estimate(BUGFIX, as_of=as_of).report.as_of == expected, as_of


def test_bad_options_are_errors_worded_for_the_library() -> None:
    with pytest.raises(agentcost.InputError, match=r"^as_of: not a usable date: 'soon'"):
        agentcost.estimate(BUGFIX, as_of="soon")
    with pytest.raises(TypeError, match="not a float"):
        agentcost.estimate(BUGFIX, as_of=AS_OF, budget_usd=0.05)  # type: ignore[arg-type]
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


def test_a_loaded_scenario_estimates_on_other_models() -> None:
    scenario = agentcost.load_scenario(BUGFIX)
    assert isinstance(scenario, agentcost.Scenario)
    on_gpt = agentcost.estimate(scenario, as_of=AS_OF, model="gpt-5")
    compared = agentcost.compare(BUGFIX, ["gpt-5", "claude-sonnet-4-5"], as_of=AS_OF)
    assert compared.costs_usd == {"claude-sonnet-4-5": Decimal("0.0320049"), "gpt-5": on_gpt.total_cost_usd}
    assert list(compared.costs_usd) == ["gpt-5", "claude-sonnet-4-5"]  # cheapest first
    assert '"kind": "compare"' in compared.to_json()


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
