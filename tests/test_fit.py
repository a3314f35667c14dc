"""Tables laid out for their width (agentcost.render.fit) and the money policy (agentcost.report.fmt).

At every width a table is printed at: no line wider than the width, no ``…``, every number whole on
one line; secondary columns dropped in their ``drop`` order with a note saying which; and, when even
the essential columns do not fit, each row stacked as ``header  value`` lines.
"""

from __future__ import annotations

import io
import itertools
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.console import Console, RenderableType
from rich.text import Text

from agentcost.render.fit import SECTION, WORD_CAP, Cell, Col, FitTable, abbreviated
from agentcost.report import fmt

WIDTHS = (40, 60, 80, 120, 200)


def render(renderable: RenderableType, width: int) -> str:
    console = Console(file=io.StringIO(), width=width, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def check_fits(out: str, width: int) -> None:
    for line in out.splitlines():
        assert cell_len(line) <= width, f"{cell_len(line)} > {width}: {line!r}"
    assert "…" not in out


def found_whole(out: str, cell: str) -> bool:
    return any(cell in line for line in out.splitlines())


def ledger() -> FitTable:
    columns = [
        Col("#"),
        Col("model did", justify="left", text=True, footer="total (4 requests)"),
        Col("input (all)*", footer="1,234,567"),
        Col("cache read", drop=1, footer="1,000,000"),
        Col("cache write", drop=2, footer="200,000"),
        Col("output*", footer="12,345"),
        Col("cost", footer="$12.3456"),
        Col("running", drop=3),
    ]
    rows: list[list[Cell] | None] = [
        ["1", Text("fetch_page_content"), "300,000", "0", "100,000", "3,000", "$1.2345", "$1.2345"],
        ["2", Text("search_web"), "300,000", "300,000", "50,000", "3,000", "$2.0000", "$3.2345"],
        [
            "",
            Text("↳ subagent sub/researcher.yaml (claude-haiku-4-5): 5 requests"),
            "9",
            "0",
            "0",
            "9",
            "$0.000012",
            "",
        ],
        SECTION,
        ["3", Text("final answer"), "634,567", "700,000", "50,000", "6,345", "$9.1111", "$12.3456"],
    ]
    return FitTable(columns, rows, title="Fix POST /orders validation · claude-sonnet-4-5", show_footer=True)


NUMBERS = {
    "#": ["1", "2", "3"],
    "input (all)*": ["300,000", "634,567", "1,234,567"],
    "cache read": ["300,000", "700,000", "1,000,000"],
    "cache write": ["100,000", "50,000", "200,000"],
    "output*": ["3,000", "6,345", "12,345"],
    "cost": ["$1.2345", "$2.0000", "$0.000012", "$9.1111", "$12.3456"],
    "running": ["$3.2345", "$12.3456"],
}


@pytest.mark.parametrize("width", WIDTHS)
def test_the_ledger_fits_every_width_with_every_number_whole(width: int) -> None:
    table = ledger()
    out = render(table, width)
    check_fits(out, width)
    plan = table.plan(width)
    dropped = () if plan is None else plan.dropped
    for header, cells in NUMBERS.items():
        if header not in dropped:
            for cell in cells:
                assert found_whole(out, cell), (width, cell, out)
    assert "↳ subagent" in out  # subagent rows stay
    if dropped:
        assert f"Not shown at {width} columns: {', '.join(dropped)}" in " ".join(out.split())


def test_columns_are_dropped_in_their_rank_order_essential_ones_never() -> None:
    table = ledger()
    seen: list[tuple[str, ...]] = []
    for width in range(200, 30, -1):
        plan = table.plan(width)
        if plan is None:
            break
        seen.append(plan.dropped)
    orders = [d for d in dict.fromkeys(seen)]
    assert orders[0] == ()
    assert orders[-1] == ("running", "cache write", "cache read")
    for before, after in itertools.pairwise(orders):
        assert after[: len(before)] == before  # a column dropped stays dropped at narrower widths


def test_a_wide_table_shows_every_column_and_headers_on_one_line() -> None:
    out = render(ledger(), 200)
    assert "Not shown" not in out
    assert "input (all)*" in out and "cache write" in out and "running" in out


def test_names_stay_whole_when_the_essential_columns_allow() -> None:
    out = render(ledger(), 80)
    assert found_whole(out, "fetch_page_content")
    assert "sub/researcher.yaml" in out


def test_stacked_when_even_the_essential_columns_do_not_fit() -> None:
    table = ledger()
    assert table.plan(40) is None
    out = render(table, 40)
    check_fits(out, 40)
    lines = out.splitlines()
    assert lines[0].startswith("Fix POST /orders validation")
    assert any(line.split() == ["cost", "$12.3456"] for line in lines)  # the footer row's block
    assert any(line.split()[:2] == ["model", "did"] and "fetch_page_content" in line for line in lines)
    assert "┃" not in out


def test_short_headers_are_tried_before_a_column_is_dropped() -> None:
    columns = [
        Col("name", justify="left", text=True, min_width=4),
        Col("a rather long header", short="h"),
        Col("second", drop=1),
    ]
    table = FitTable(columns, [["x", "1", "2"]])
    plan = table.plan(24)
    assert plan is not None and plan.short and plan.dropped == ()
    assert abbreviated(columns[1], "s").short == "s"


def test_sections_and_row_styles_and_a_bad_row() -> None:
    table = FitTable([Col("a"), Col("b")], [["1", "2"], SECTION, ["3", "4"]], row_styles=["bold", None, None])
    out = render(table, 40)
    assert "├" in out and "1" in out and "4" in out
    with pytest.raises(ValueError, match="2 columns"):
        FitTable([Col("a"), Col("b")], [["1"]])


def test_a_word_longer_than_the_cap_folds_rather_than_drops() -> None:
    word = "x" * (WORD_CAP + 10)
    table = FitTable([Col("what", justify="left", text=True), Col("n")], [[word, "1"]])
    out = render(table, 40)
    check_fits(out, 40)
    assert out.count("x") == len(word)  # folded over lines, never cut


# --- the money policy --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("amount", "shown"),
    [
        ("0.0312129", "$0.0312"),
        ("0.1", "$0.1000"),
        ("1", "$1.0000"),
        ("0", "$0.0000"),
        ("-0", "$0.0000"),
        ("0.00015", "$0.0002"),  # half-up
        ("0.00005", "$0.000050"),
        ("0.00001234", "$0.000012"),  # a tiny amount keeps two significant digits
        ("0.0000000000012", "$0.0000000000012"),
        ("0.00009996", "$0.0001"),  # rounds up to the usual last digit
        ("-0.00004", "-$0.000040"),
        ("-0.0312129", "-$0.0312"),
        ("1234567.12345", "$1,234,567.1235"),
        ("123456789012345678901234567890.5", "$123,456,789,012,345,678,901,234,567,890.5000"),
    ],
)
def test_usd(amount: str, shown: str) -> None:
    assert fmt.usd(Decimal(amount)) == shown


def test_usd_unknown_is_a_dash() -> None:
    assert fmt.usd(None) == "-"


@pytest.mark.parametrize(
    ("a", "b", "shown"),
    [
        ("0.0312129", "0.1", ("$0.0312", "$0.1000")),
        ("1.00001", "1.00002", ("$1.00001", "$1.00002")),
        ("0.03121", "0.03124", ("$0.03121", "$0.03124")),
        ("2", "2", ("$2.0000", "$2.0000")),
        ("-0.01", "0.01", ("-$0.0100", "$0.0100")),
        ("0.00001", "0.000011", ("$0.000010", "$0.000011")),
    ],
)
def test_usd_pair(a: str, b: str, shown: tuple[str, str]) -> None:
    assert fmt.usd_pair(Decimal(a), Decimal(b)) == shown


@given(
    st.decimals(min_value=-(10**6), max_value=10**6, places=12, allow_nan=False),
    st.decimals(min_value=-(10**6), max_value=10**6, places=12, allow_nan=False),
)
def test_two_different_amounts_never_read_the_same(a: Decimal, b: Decimal) -> None:
    first, second = fmt.usd_pair(a, b)
    assert (first == second) == (a == b)
    assert len(first.split(".")[1]) == len(second.split(".")[1]) or min(abs(a), abs(b)) < Decimal("0.0001")


def test_usd_series_widens_all_together() -> None:
    edges = [Decimal("0.1"), Decimal("0.10001"), Decimal("0.2")]
    assert fmt.usd_series(edges) == ["$0.10000", "$0.10001", "$0.20000"]
    assert fmt.usd_series([Decimal("0.1"), Decimal("0.1")]) == ["$0.1000", "$0.1000"]


@pytest.mark.parametrize(
    ("amount", "shown"),
    [
        ("0.0312", "+$0.0312"),
        ("-0.005", "-$0.0050"),
        ("0", "$0.0000"),
        ("0.00000123", "+$0.0000012"),
        ("-1234.5", "-$1,234.5000"),
    ],
)
def test_signed_usd(amount: str, shown: str) -> None:
    assert fmt.signed_usd(Decimal(amount)) == shown


def test_the_arrow() -> None:
    assert fmt.ARROW == "→"


# --- the property ------------------------------------------------------------------------------

_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_-./", min_size=1, max_size=30)
_NUMBER = st.one_of(
    st.integers(min_value=0, max_value=10**9).map(fmt.tokens),
    st.decimals(min_value=-(10**5), max_value=10**5, places=8, allow_nan=False).map(fmt.usd),
    st.integers(min_value=0, max_value=999).map(str),
)


@st.composite
def tables(draw: st.DrawFn) -> tuple[list[Col], list[list[str]]]:
    kinds = draw(st.lists(st.booleans(), min_size=1, max_size=8))  # True: a text column
    headers = st.lists(st.text(alphabet="abcdefgh", min_size=1, max_size=6), min_size=1, max_size=2)
    columns = [
        Col(
            " ".join(draw(headers)),
            justify="left" if text else "right",
            text=text,
            drop=draw(st.integers(min_value=0, max_value=3)),
            min_width=draw(st.integers(min_value=0, max_value=16)),
        )
        for text in kinds
    ]
    n = draw(st.integers(min_value=1, max_value=6))
    rows = [
        [" ".join(draw(st.lists(_WORD, min_size=1, max_size=6))) if text else draw(_NUMBER) for text in kinds]
        for _ in range(n)
    ]
    return columns, rows


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(), st.integers(min_value=40, max_value=200), st.booleans())
def test_any_table_fits_any_width_with_its_numbers_whole(
    table: tuple[list[Col], list[list[str]]], width: int, titled: bool
) -> None:
    columns, rows = table
    fit = FitTable(columns, [list(r) for r in rows], title="A title of some words" if titled else None)
    out = render(fit, width)
    check_fits(out, width)
    plan = fit.plan(width)
    shown = range(len(columns)) if plan is None else plan.columns
    for i in shown:
        if not columns[i].text:
            for row in rows:
                assert found_whole(out, row[i]), (width, row[i], out)
