"""compare: model selectors, one scenario on several models (each total equal to its own estimate),
sorting and ratios, tokens counted once per encoding, the context-window gate, and every output format.

Hand-checked totals on scenarios/bugfix.yaml (Claude on the ratio path, ``no_ctok``), with the rates of
shared/reference/pricing-facts.md §A.0 (in µ$: 1 token at $1.25/MTok = 1.25 µ$):

* claude-sonnet-4-5: $0.0286497 (tests/test_end_to_end.py, request by request)
* gpt-5: 12,402 input of which 8,064 cache reads, 448 output:
  4,338 x 1.25 + 8,064 x 0.125 + 448 x 10 = 5,422.5 + 1,008 + 4,480 = 10,910.5 µ$
* gemini-2.5-pro (no caching by default, no request over 200k): 12,771 input, 376 output:
  12,771 x 1.25 + 376 x 10 = 15,963.75 + 3,760 = 19,723.75 µ$
"""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from agentcost.commands.compare import compare_gates, compare_models, expand_models
from agentcost.errors import InputError
from agentcost.loop.estimate import estimate_scenario
from agentcost.prices.genai import known_model_ids
from agentcost.render.jsonfmt import report_dict
from agentcost.render.output import Format, quiet_total, render_text
from agentcost.render.schema import kind_schema, report_schema
from agentcost.report.compare import CompareReport
from agentcost.scenario.load import read_scenario as load_scenario
from agentcost.tokens.memo import DEFAULT_MEMO
from tests.conftest import ROOT, GoldenCheck, validate_json

pytestmark = pytest.mark.usefixtures("no_ctok", "fixed_terminal")

AS_OF = datetime(2026, 11, 30, tzinfo=UTC)
BUGFIX = "scenarios/bugfix.yaml"
THREE = ["claude-sonnet-4-5", "gpt-5", "gemini-2.5-pro"]  # one model of each provider
BY_HAND = {
    "gpt-5": Decimal("0.0109105"),
    "gemini-2.5-pro": Decimal("0.01972375"),
    "claude-sonnet-4-5": Decimal("0.0286497"),
}


@pytest.fixture
def three(monkeypatch: pytest.MonkeyPatch) -> CompareReport:
    monkeypatch.chdir(ROOT)  # paths in the report as a user in the repository types them
    return compare_models(load_scenario(BUGFIX), expand_models(THREE, as_of=AS_OF), as_of=AS_OF)


# ---------------------------------------------------------------------------------------------
# Model selectors


def test_names_are_kept_as_typed_one_row_each() -> None:
    # issue 30: a name typed is a row of its own, shown as typed (not merged with another name of
    # its model); the same selector twice is one
    assert expand_models(["gpt-5", " gpt-5 "], as_of=AS_OF) == ["gpt-5"]
    assert expand_models(
        ["claude-sonnet-4-5", "anthropic/claude-sonnet-4-5", "gpt-5", "openai/gpt-5", "gemini-2.5-pro"],
        as_of=AS_OF,
    ) == ["claude-sonnet-4-5", "anthropic/claude-sonnet-4-5", "gpt-5", "openai/gpt-5", "gemini-2.5-pro"]


def test_globs_and_provider_selectors() -> None:
    assert expand_models(["anthropic/*"], as_of=AS_OF) == [
        f"anthropic/{m}" for m in known_model_ids("anthropic")
    ]
    sonnets = expand_models(["claude-sonnet-*"], as_of=AS_OF)
    assert "anthropic/claude-sonnet-4-5" in sonnets
    assert all(m.startswith("anthropic/claude-sonnet-") for m in sonnets)
    gpt5 = expand_models(["openai/gpt-5*"], as_of=AS_OF)
    assert gpt5[0] == "openai/gpt-5" and "openai/gpt-5-mini" in gpt5
    assert all(m.startswith("openai/gpt-5") for m in gpt5)
    # the order given is kept; a glob does not add again a model a name already chose
    mixed = expand_models(["gpt-5-mini", "openai/gpt-5*", "gpt-4o"], as_of=AS_OF)
    assert mixed[0] == "gpt-5-mini" and mixed[-1] == "gpt-4o"
    assert "openai/gpt-5-mini" not in mixed and len(mixed) == len(gpt5) + 1


def test_a_models_file_as_a_yaml_list_or_as_lines(tmp_path: Path) -> None:
    listed = tmp_path / "models.yaml"
    listed.write_text("- gpt-5\n- 'anthropic/claude-haiku-4-5'\n", encoding="utf-8")
    assert expand_models(["gemini-2.5-flash"], as_of=AS_OF, models_file=listed) == [
        "gemini-2.5-flash",  # --model options first, then the file, each as written
        "gpt-5",
        "anthropic/claude-haiku-4-5",
    ]
    lines = tmp_path / "models.txt"
    lines.write_text("# the cheap ones\ngpt-5-mini   # OpenAI\n\n  gemini-2.5-flash\n", encoding="utf-8")
    assert expand_models([], as_of=AS_OF, models_file=lines) == ["gpt-5-mini", "gemini-2.5-flash"]


def test_selector_errors_name_the_option_or_the_file_line(tmp_path: Path) -> None:
    def error(selectors: list[str], models_file: Path | None = None) -> str:
        with pytest.raises(InputError) as caught:
            expand_models(selectors, as_of=AS_OF, models_file=models_file)
        return str(caught.value)

    assert error(["gpt-6"]).startswith("model: unknown model 'gpt-6' (did you mean: gpt-5")
    no_match = error(["claud-sonnet-*"])
    assert no_match.startswith("model: no known model matches 'claud-sonnet-*' (did you mean: claude-sonnet-")
    assert no_match.endswith("run 'agentcost models' to list known models)")
    assert error(["azur/*"]) == (
        "model: unknown provider 'azur' (did you mean: azure? 'agentcost models --all' lists every provider)"
    )
    assert "azure/o3-2025-04-16" in expand_models(["azure/*"], as_of=AS_OF)  # issue 15: any provider
    assert error([]) == "model: no models to compare (e.g. --model gpt-5 --model 'anthropic/*')"
    bad = tmp_path / "models.txt"
    bad.write_text("gpt-5\n# next\ngtp-4o\n", encoding="utf-8")
    # a --models file is never quoted (issue 28): the kind of problem, and agentcost's own close ids
    assert error([], bad).startswith(f"{bad}:3: not a model agentcost can price (did you mean: gpt-4o")
    nested = tmp_path / "models.yaml"
    nested.write_text("- gpt-5\n- {name: gpt-4o}\n", encoding="utf-8")
    assert error([], nested).startswith(f"{nested}:2: expected a model name, got a nested list or mapping")
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing yet\n", encoding="utf-8")
    assert error([], empty) == f"{empty}: models_file: the file names no models (one model name per line)"
    assert (
        error([], tmp_path / "missing.txt") == f"{tmp_path / 'missing.txt'}: models_file: file not found"
    )  # the CLI says --models


# ---------------------------------------------------------------------------------------------
# The comparison


def test_each_total_equals_the_models_own_estimate(three: CompareReport) -> None:
    scenario = load_scenario(BUGFIX)
    for row in three.rows:
        by_option = estimate_scenario(scenario, as_of=AS_OF, model=row.model_id)
        by_set = estimate_scenario(load_scenario(BUGFIX, overrides=[f"model={row.model_id}"]), as_of=AS_OF)
        assert row.cost_usd == by_option.ledger.totals.cost_usd == by_set.ledger.totals.cost_usd
        assert row.cost_usd == BY_HAND[row.model_id]
        assert row.input_tokens == by_set.ledger.totals.input_tokens
        assert row.output_tokens == by_set.ledger.totals.output_tokens
    assert {r.provider for r in three.rows} == {"anthropic", "openai", "google"}


def test_rows_are_sorted_by_cost_with_ratios_to_the_cheapest(three: CompareReport) -> None:
    assert [r.model_id for r in three.rows] == ["gpt-5", "gemini-2.5-pro", "claude-sonnet-4-5"]
    assert [r.cheapest for r in three.rows] == [True, False, False]
    assert three.cheapest.model_id == "gpt-5"
    # 0.01972375 / 0.0109105 = 1.8077..., 0.0286497 / 0.0109105 = 2.6258...
    assert [r.ratio_to_cheapest for r in three.rows] == [Decimal("1.00"), Decimal("1.81"), Decimal("2.63")]
    assert [str(r.ratio_to_cheapest) for r in three.rows] == ["1.00", "1.81", "2.63"]
    # $ per request: total / 9 requests, rounded half-up to 10 places
    assert [r.cost_per_request_usd for r in three.rows] == [
        Decimal("0.0012122778"),  # 0.0109105 / 9 = 0.00121227777...
        Decimal("0.0021915278"),  # 0.01972375 / 9 = 0.00219152777...
        Decimal("0.0031833"),  # 0.0286497 / 9
    ]
    assert [r.requests for r in three.rows] == [9, 9, 9]
    assert [r.cached_share for r in three.rows] == [Decimal("0.6502"), Decimal(0), Decimal("0.8388")]
    assert [r.context_window for r in three.rows] == [400_000, 1_048_576, 200_000]  # gemini: facts.yaml
    assert [r.fits_context for r in three.rows] == [True, True, True]
    assert [r.approximate for r in three.rows] == [False, True, True]


def test_ties_are_ordered_by_model_id_and_are_all_cheapest() -> None:
    scenario = load_scenario(ROOT / BUGFIX)
    tied = compare_models(scenario, ["gpt-5.3", "gpt-5.2"], as_of=AS_OF)  # the same rates
    assert [r.model_id for r in tied.rows] == ["gpt-5.2", "gpt-5.3"]
    assert [r.cheapest for r in tied.rows] == [True, True]
    assert [r.ratio_to_cheapest for r in tied.rows] == [Decimal("1.00"), Decimal("1.00")]
    four = compare_models(scenario, ["gpt-5.3", "gpt-5.2", "openai/gpt-5", "gpt-5"], as_of=AS_OF)
    # a row per name typed (issue 30): gpt-5 twice, tied (ties by model id, then name as typed)
    assert [r.model for r in four.rows] == ["gpt-5", "openai/gpt-5", "gpt-5.2", "gpt-5.3"]
    assert [str(r.ratio_to_cheapest) for r in four.rows] == ["1.00", "1.00", "1.40", "1.40"]
    with pytest.raises(InputError, match="no models to compare"):
        compare_models(scenario, [], as_of=AS_OF)


def test_each_text_is_tokenized_once_per_encoding_not_once_per_model() -> None:
    scenario = load_scenario(ROOT / BUGFIX)
    DEFAULT_MEMO.clear()
    estimate_scenario(scenario, as_of=AS_OF, model="gpt-5")
    one = DEFAULT_MEMO.stats("o200k_base")
    assert one.texts_counted > 20
    DEFAULT_MEMO.clear()
    report = compare_models(scenario, ["gpt-5", "gpt-4.1", "gpt-4o"], as_of=AS_OF)
    assert {r.encoding for r in report.rows} == {"o200k_base"}
    three = DEFAULT_MEMO.stats("o200k_base")
    assert DEFAULT_MEMO.schemes() == ("o200k_base",)
    # three models, the same texts tokenized once: the second and third model only hit the memo
    # (the texts the first run tokenized now come from the persistent cache: agentcost.infra.diskcache)
    assert three.texts_counted + three.disk_hits == one.texts_counted
    assert three.hits > one.hits


def test_the_context_window_check_of_each_model_never_trips(tmp_path: Path) -> None:
    # a what-if: the row that does not fit is marked OVER; the check is reported, never tripped
    path = tmp_path / "big.yaml"
    path.write_text("version: 1\nmodel: gpt-5\ntask: {tokens: 150000}\nfinal: 10\n", encoding="utf-8")
    report = compare_models(load_scenario(path), ["gpt-4o", "gpt-5"], as_of=AS_OF)
    assert [(r.model_id, r.fits_context) for r in report.rows] == [("gpt-5", True), ("gpt-4o", False)]
    biggest = report.rows[0].max_input_tokens
    gates = compare_gates(report)
    assert [(g.name, g.file, g.tripped) for g in gates] == [
        ("context_window", str(path), False),
        ("context_window", str(path), False),
    ]
    assert gates[1].message == (
        f"{path}: largest request {biggest:,} input tokens > gpt-4o context window 128,000"
    )
    assert report.warnings == ()  # the context column says it (the estimate itself still warns)
    assert any("exceeds the context window" in w for w in report.rows[1].report.warnings)
    assert "OVER" in render_text(report, Format.table, width=110)


# ---------------------------------------------------------------------------------------------
# Output formats


def wrapped_schema() -> dict[str, Any]:
    """The compare kind inside the JSON envelope, as agentcost.render.schema publishes it."""
    return kind_schema("compare")


def test_json_matches_the_schema_and_carries_every_estimate(three: CompareReport) -> None:
    schema = wrapped_schema()  # validate_json checks it against the meta-schema first
    data = json.loads(render_text(three, Format.json, gates=compare_gates(three)))
    validate_json(data, schema)
    validate_json(data, report_schema())  # the published schema includes this kind
    assert data["kind"] == "compare"
    assert data["scenario"] == {"path": BUGFIX, "name": "Fix POST /orders validation"}
    assert data["cheapest"] == {"model": "gpt-5", "provider": "openai", "cost_usd": "0.0109105"}
    assert [(m["model"], m["model_ref"], m["price_row"], m["cost_usd"]) for m in data["models"]] == [
        ("gpt-5", "gpt-5", "openai/gpt-5", "0.0109105"),
        ("gemini-2.5-pro", "gemini-2.5-pro", "google/gemini-2.5-pro", "0.01972375"),
        ("claude-sonnet-4-5", "claude-sonnet-4-5", "anthropic/claude-sonnet-4-5", "0.0286497"),
    ]
    assert [m["ratio_to_cheapest"] for m in data["models"]] == ["1", "1.81", "2.63"]
    assert data["estimates"] == [report_dict(r.report) for r in three.rows]
    # the scenario's limits.budget_usd ($0.10) judged per model: each within it
    assert [m["budget"]["headroom_usd"] for m in data["models"]] == ["0.0890895", "0.08027625", "0.0713503"]
    assert data["over_budget"] == [] and data["unfit"] == []
    assert [g["name"] for g in data["gates"]] == ["budget"] * 3 + ["context_window"] * 3


def test_markdown_golden(three: CompareReport, golden: GoldenCheck) -> None:
    text = render_text(three, Format.markdown)
    assert text.startswith("#### agentcost compare: Fix POST /orders validation\n")
    assert "| **`gpt-5`** (cheapest) | `openai/gpt-5` | 9 | 12,402 | 65.0% | 448 | **$0.0109** |" in text
    golden("compare.md", text)


def test_csv_parses_back(three: CompareReport) -> None:
    rows = list(csv.DictReader(io.StringIO(render_text(three, Format.csv))))
    assert [r["model"] for r in rows] == ["gpt-5", "gemini-2.5-pro", "claude-sonnet-4-5"]
    assert [Decimal(r["cost_usd"]) for r in rows] == [
        BY_HAND[m] for m in ("gpt-5", "gemini-2.5-pro", "claude-sonnet-4-5")
    ]
    assert [r["ratio_to_cheapest"] for r in rows] == ["1", "1.81", "2.63"]
    assert [r["cheapest"] for r in rows] == ["true", "false", "false"]
    assert [r["context_window"] for r in rows] == ["400000", "1048576", "200000"]
    assert [r["fits_context"] for r in rows] == ["true", "true", "true"]
    assert {r["scenario"] for r in rows} == {BUGFIX}


def test_rich_table_fits_110_columns_and_marks_the_cheapest(three: CompareReport) -> None:
    text = render_text(three, Format.table, width=110)
    assert "…" not in text
    assert max(len(line) for line in text.splitlines()) <= 110
    assert "openai · cheapest" in text
    for figure in ("$0.0109", "$0.0197", "$0.0286", "1.00×", "1.81×", "2.63×", "$0.0012"):  # per request too
        assert figure in text, figure
    assert "Cheapest of 3 models: gpt-5 (openai) at $0.0109 per run of 9 requests" in text


def test_quiet_prints_the_cheapest_total(three: CompareReport) -> None:
    assert quiet_total(three) == "0.0109105\n"


def test_repeated_selectors_count_once_and_too_many_are_refused(tmp_path: Path) -> None:
    from agentcost.commands.compare import MAX_SELECTORS, expand_models

    when = datetime(2026, 11, 30, tzinfo=UTC)
    many = tmp_path / "models.txt"
    many.write_text("gpt-5\n" * 900 + "claude-sonnet-4-5\n" * 100)
    assert expand_models([], as_of=when, models_file=many) == ["gpt-5", "claude-sonnet-4-5"]
    many.write_text("".join(f"gpt-{i}*\n" for i in range(MAX_SELECTORS)) + "gpt-4o\n")
    with pytest.raises(InputError) as caught:
        expand_models(["gemini-2.5-pro"], as_of=when, models_file=many)
    assert str(caught.value) == (
        f"{many}:1000: more than 1,000 model selectors (globs such as 'anthropic/*' select many models in one line)"
    )
