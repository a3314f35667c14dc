"""``agentcost reconcile`` of a Google Cloud Billing export (issue 31): Gemini token SKUs priced by
agentcost beside the export's cost, other Gemini SKUs as money only, other services left out.

tests/data/usage-exports/google-billing.csv (and .json, the same rows nested) is synthetic, shaped
after the documented standard usage cost schema (PROVENANCE.md there). Rates (genai-prices, USD per
million tokens, 2026-11-02/03): gemini-2.5-flash input 0.30, cache read 0.03, output 2.50;
gemini-2.5-pro input 1.25, output 10.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from agentcost.cli import run
from agentcost.commands.reconcile import reconcile
from agentcost.commands.reconcile_google import model_of, token_kind
from agentcost.commands.reconcile_read import parse_export, read_export
from agentcost.errors import InputError
from agentcost.render.schema import report_schema
from agentcost.report.reconcile import Reconciliation
from tests.conftest import validate_json

DATA = Path(__file__).parent / "data" / "usage-exports"
CSV = DATA / "google-billing.csv"
JSON = DATA / "google-billing.json"


def _check(r: Reconciliation) -> None:
    flash, pro = r.rows
    assert (flash.day.isoformat(), flash.model, flash.provider) == (
        "2026-11-02",
        "gemini-2.5-flash",
        "google",
    )
    # 1,000,000 in, 2,000,000 cache reads, 200,000 + 100,000 (thinking) out
    assert (flash.input_tokens, flash.cache_read_tokens, flash.output_tokens) == (
        1_000_000,
        2_000_000,
        300_000,
    )
    # 1,000,000 x 0.30 + 2,000,000 x 0.03 + 300,000 x 2.50, per million = 0.30 + 0.06 + 0.75
    assert flash.agentcost_usd == Decimal("1.11") and flash.export_usd == Decimal("1.11")
    assert flash.status == "match"
    # 400,000 x 1.25 + 50,000 x 10 = 0.50 + 0.50, against 0.50 + 0.60 exported
    assert pro.agentcost_usd == Decimal("1.00") and pro.export_usd == Decimal("1.10")
    assert pro.status == "differs"
    day1, day2 = r.days
    assert day1.export_usd == Decimal("1.13")  # 1.11 + 0.02 of caching storage (money only)
    assert day2.export_usd == Decimal("1.15")  # 1.10 + 0.05 of tax (money only)
    assert r.agentcost_usd == Decimal("2.11")
    assert r.difference_usd == Decimal("0.17")  # 2.28 - 2.11; the $1.50 of Compute Engine is left out
    assert any("1 row of SKUs that name no Gemini model left out ($1.5000)" in n for n in r.notes)
    assert any("2 rows of Gemini SKUs not billed in tokens" in n for n in r.notes)


def test_csv_export_priced_by_hand() -> None:
    export = read_export(CSV)
    assert export.kind == "google-billing"
    _check(reconcile([export]))


def test_json_rows_and_json_lines_read_the_same() -> None:
    _check(reconcile([read_export(JSON)]))
    rows = json.loads(JSON.read_text(encoding="utf-8"))
    _check(reconcile([parse_export(rows, "rows.json")]))


def test_json_lines(tmp_path: Path) -> None:
    rows = json.loads(JSON.read_text(encoding="utf-8"))
    path = tmp_path / "export.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    _check(reconcile([read_export(path)]))


@pytest.mark.parametrize(
    ("sku", "model", "kind"),
    [
        ("Gemini 2.5 Flash GA Text Input - Predictions", "gemini-2.5-flash", "uncached_input"),
        ("Gemini 2.5 Flash GA Thinking Text Output - Predictions", "gemini-2.5-flash", "output"),
        ("Gemini 2.5 Flash GA Input Text Caching", "gemini-2.5-flash", "cache_read"),
        ("Gemini 3 Flash Text Input Caching Storage", "gemini-3-flash", None),
        ("Gemini 2.5 Flash Lite Text Output - Predictions", "gemini-2.5-flash-lite", "output"),
        ("Gemini 2.5 Pro Image Input - Predictions", "gemini-2.5-pro", None),
        ("N1 Predefined Instance Core running in Americas", None, None),
    ],
)
def test_sku_text(sku: str, model: str | None, kind: str | None) -> None:
    assert model_of(sku) == model
    assert (token_kind(sku) if model else None) == kind


HEADER = "sku.description,usage_start_time,cost,currency,usage.amount,usage.unit\n"
FLASH = "Gemini 2.5 Flash GA Text Input - Predictions"


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (f"{FLASH},2026-11-02 07:00:00 UTC,lots,USD,1,count", "e.csv:2: cost: expected a number: dollars"),
        (
            f"{FLASH},2026-11-02 07:00:00 UTC,0.3,EUR,1,count",
            "e.csv:2: currency: only USD amounts are compared",
        ),
        (f"{FLASH},yesterday,0.3,USD,1,count", "e.csv:2: usage_start_time: expected a time"),
        (
            f"{FLASH},2026-11-02 07:00:00 UTC,0.3,USD,1.5,count",
            "e.csv:2: usage.amount: expected a whole number",
        ),
        (f"{FLASH},2026-11-02 07:00:00 UTC,0.3,USD", "e.csv:2: expected 6 columns as in the header, got 4"),
        (
            ",2026-11-02 07:00:00 UTC,0.3,USD,1,count",
            "e.csv:2: sku.description: expected the SKU's description",
        ),
    ],
)
def test_errors_name_the_file_line_and_column(tmp_path: Path, row: str, message: str) -> None:
    path = tmp_path / "e.csv"
    path.write_text(HEADER + row + "\n", encoding="utf-8")
    with pytest.raises(InputError) as e:
        read_export(path)
    shown = str(e.value).replace(str(tmp_path) + "/", "")
    assert shown.startswith(message)
    assert "lots" not in shown and "yesterday" not in shown  # nothing of the file is echoed


def test_json_row_errors_name_the_row(tmp_path: Path) -> None:
    rows = json.loads(JSON.read_text(encoding="utf-8"))
    rows[3]["cost"] = "NaN"
    with pytest.raises(InputError) as e:
        parse_export(rows, "rows.json")
    assert str(e.value).startswith("rows.json: [3].cost: expected a number")


def test_cli_table_fits_60_columns(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    assert run(["reconcile", str(CSV)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Reconciled difference: +$0.1700 (export minus agentcost)")
    assert max(len(line) for line in out.splitlines()) <= 60
    assert run(["reconcile", str(JSON), "--format", "json"]) == 0
    body = json.loads(capsys.readouterr().out)
    validate_json(body, report_schema())  # kind google-billing and provider google are published
    assert body["sources"][0]["kind"] == "google-billing" and body["difference_usd"] == "0.17"
