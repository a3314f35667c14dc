"""Issue 30, item 2: time-of-day prices and the notes that change a figure's meaning.

A date alone is a day, priced at the standard rates (DeepSeek's off-peak window starts at 16:30
UTC and runs past midnight, so midnight used to price deepseek-chat at half price, silently); only a
time given with the date picks a window's rates. Every report of an estimate (estimate, with
distributions or --simulate, compare, a project) notes the time-of-day prices and a cost that is an
upper bound (caching not modelled). The figures are genai-prices' own for the shipped bugfix scenario.
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from decimal import Decimal

import pytest

from agentcost.cli import run

SCENARIO = "scenarios/bugfix.yaml"
DAY = "2026-12-01"
STANDARD_USD = Decimal("0.00535666")  # bugfix on deepseek-chat at $0.27 / $1.10 per MTok
OFF_PEAK_USD = Decimal("0.00267833")  # the same at 50% off
TIME_NOTE = (
    "Deepseek prices follow the time of day: standard rates used; off-peak 16:30-00:30 UTC is 50% off"
    " — give --as-of with a time to price it. Source: genai-prices"
)
CACHING_NOTE = "Caching not modelled: deepseek publishes no minimum; costs are an upper bound"


@pytest.fixture(autouse=True)
def _here(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.conftest import ROOT

    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("AGENTCOST_CACHE", "off")


def _out(capsys: pytest.CaptureFixture[str], *args: str, code: int = 0) -> str:
    got = run(list(args))
    out, err = capsys.readouterr()
    assert got == code, err
    return " ".join(out.split())


def _estimate_json(capsys: pytest.CaptureFixture[str], as_of: str) -> dict[str, object]:
    text = _out(capsys, "estimate", SCENARIO, "-m", "deepseek-chat", "--as-of", as_of, "-f", "json")
    data: dict[str, object] = json.loads(text)
    return data


def _cost(data: dict[str, object]) -> Decimal:
    totals = data["totals"]
    assert isinstance(totals, dict)
    return Decimal(totals["cost_usd"])


def _notes(data: dict[str, object]) -> dict[str, str]:
    notes = data["notes"]
    assert isinstance(notes, list)
    return {n["kind"]: n["text"] for n in notes if n["level"] == "essential"}


def test_a_date_alone_prices_as_ten_o_clock_with_a_note(capsys: pytest.CaptureFixture[str]) -> None:
    """The acceptance: ``--as-of DATE`` equals the same at 10:00 UTC; the note says a window applies."""
    day, ten, five = (_estimate_json(capsys, t) for t in (DAY, f"{DAY}T10:00", f"{DAY}T17:00"))
    assert _cost(day) == _cost(ten) == STANDARD_USD
    assert _cost(five) == OFF_PEAK_USD == STANDARD_USD / 2
    assert _notes(day)["time_of_day"].startswith(TIME_NOTE)
    assert _notes(day)["time_of_day"].endswith("https://api-docs.deepseek.com/quick_start/pricing.")
    assert (
        "priced at 10:00 UTC, standard rates; off-peak 16:30-00:30 UTC is 50% off."
        in _notes(ten)["time_of_day"]
    )
    assert (
        "priced at 17:00 UTC, in the off-peak window 16:30-00:30 UTC (50% off the standard rates)"
        in (_notes(five)["time_of_day"])
    )
    prices = day["prices"]
    assert isinstance(prices, dict) and prices["in_time_window"] is None  # no time: no window picked


def test_a_time_given_as_midnight_is_priced_at_midnight(capsys: pytest.CaptureFixture[str]) -> None:
    assert _cost(_estimate_json(capsys, f"{DAY}T00:00")) == OFF_PEAK_USD
    assert _out(capsys, "estimate", SCENARIO, "-m", "gpt-5", "--as-of", DAY, "-q") == _out(
        capsys, "estimate", SCENARIO, "-m", "gpt-5", "--as-of", f"{DAY}T17:00", "-q"
    )  # a model priced by date only: the time changes nothing


@pytest.mark.parametrize(
    ("value", "timed"),
    [
        (None, False),
        ("2026-12-01", False),
        (" 2026-12-01 ", False),
        ("20261201", False),
        ("2026-12-01T00:00", True),
        ("2026-12-01 17:00", True),
        ("2026-12-01T17:00+02:00", True),
        (date(2026, 12, 1), False),
        (datetime(2026, 12, 1, tzinfo=UTC), True),
    ],
)
def test_has_time(value: object, timed: bool) -> None:
    from agentcost.loop.options import has_time

    assert has_time(value) is timed  # type: ignore[arg-type]


def test_off_peak_windows_are_read_from_genai_prices() -> None:
    from agentcost.prices.daytime import OffPeak
    from agentcost.prices.lookup import resolve_model

    when = datetime(2026, 12, 1, tzinfo=UTC)
    chat = resolve_model("deepseek-chat", as_of=when)
    assert (chat.input_mtok, chat.output_mtok, chat.at_time) == (Decimal("0.27"), Decimal("1.1"), False)
    assert chat.off_peak == (OffPeak("16:30", "00:30", Decimal("0.5"), Decimal("0.5")),)
    # two peak windows in genai-prices' row: the off-peak hours are the rest of the day, merged
    flash = resolve_model("deepseek-v4-flash", as_of=when)
    assert [(o.start, o.end) for o in flash.off_peak] == [("04:00", "06:00"), ("10:00", "01:00")]
    assert flash.input_mtok == Decimal("0.3")  # the day's standard (highest) rates
    assert resolve_model("deepseek-v4-flash", as_of=when, at_time=True).input_mtok == Decimal("0.15")
    assert resolve_model("gpt-5", as_of=when).off_peak == ()


def test_notes_survive_distributions(capsys: pytest.CaptureFixture[str]) -> None:
    """A scenario with distributions has more short notes than are shown by default: the caveats stay."""
    text = _out(capsys, "estimate", "scenarios/uncertain-steps.yaml", "-m", "deepseek-chat", "--as-of", DAY)
    assert "Cost at the medians of its distributions" in text
    assert CACHING_NOTE in text and TIME_NOTE in text


def test_compare_and_projects_show_the_notes(capsys: pytest.CaptureFixture[str]) -> None:
    """Compare labels each note with the model as typed (its rows show the ids as typed)."""
    args = ("compare", SCENARIO, "-m", "deepseek-chat", "-m", "gpt-5", "--as-of", DAY)
    text = _out(capsys, *args)
    assert f"deepseek-chat: {TIME_NOTE}" in text and f"deepseek-chat: {CACHING_NOTE}" in text
    data = json.loads(_out(capsys, *args, "-f", "json"))
    assert len(data["notes"]) == 2 and data["notes"][1].startswith(f"deepseek-chat: {TIME_NOTE}")
    assert Decimal(data["cheapest"]["cost_usd"]) == STANDARD_USD
    markdown = _out(capsys, *args, "-f", "markdown")
    assert f"deepseek-chat: {TIME_NOTE}" in markdown
    project = _out(
        capsys, "estimate", SCENARIO, "scenarios/chat-support.yaml", "-m", "deepseek-chat", "--as-of", DAY
    )
    assert f"Fix POST /orders validation, Support chat about a late order: {TIME_NOTE}" in project
    assert project.count(TIME_NOTE) == 1  # one note naming every scenario it applies to
