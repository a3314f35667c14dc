"""PriceTable's compiled cost path (``counts_usd``) prices like its general path to the last digit."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcost.errors import InputError
from agentcost.prices import lookup as P
from agentcost.prices.model import Cost, ModelPrices, Usage, _cost_of

WHEN = datetime(2026, 11, 30, tzinfo=UTC)
MODELS = (
    ("claude-sonnet-4-5", "standard"),  # 5-minute and 1-hour writes, web-search fee
    ("gemini-2.5-pro", "standard"),  # a long-context tier (>200k)
    ("gpt-5", "batch"),  # a batch tier, a storage-search fee no Usage reports (always 0)
    ("gpt-4.1", "standard"),
    ("gpt-realtime", "standard"),  # audio and image units nested in input and cache reads
)
_prices: dict[tuple[str, str], ModelPrices] = {}


def prices_of(model: str, tier: str) -> ModelPrices:
    if (model, tier) not in _prices:
        _prices[model, tier] = P.resolve_model(model, as_of=WHEN, service_tier=tier)
    return _prices[model, tier]


def exact(cost: Cost) -> tuple[str, str, str]:
    """Digits and exponent as printed: equal Decimals with other exponents differ here."""
    return (str(cost.input_usd), str(cost.output_usd), str(cost.total_usd))


def outcome(fn: Callable[[], Cost]) -> tuple[str, ...]:
    try:
        return exact(fn())
    except (InputError, ValueError) as error:
        return ("error", str(error))


counts = st.integers(min_value=0, max_value=2_500_000)


@st.composite
def usages(draw: st.DrawFn) -> tuple[int, int, int, int, int, int, int]:
    """Valid usages (cache parts within the input, around the 200k tier too) and some invalid ones."""
    i = draw(st.one_of(counts, st.integers(min_value=199_990, max_value=200_010)))
    parts = [draw(st.integers(min_value=0, max_value=i)) for _ in range(3)]
    if draw(st.booleans()):  # keep the cache parts within the input
        read = parts[0]
        write = min(parts[1], i - read)
        write_1h = min(parts[2], i - read - write)
    else:
        read, write, write_1h = parts
    small = st.integers(min_value=0, max_value=5)
    return i, draw(counts), read, write, write_1h, draw(small), draw(small)


@pytest.mark.parametrize(("model", "tier"), MODELS)
@settings(max_examples=150, deadline=None)
@given(usage=usages())
def test_compiled_path_prices_like_the_general_path(
    model: str, tier: str, usage: tuple[int, int, int, int, int, int, int]
) -> None:
    prices = prices_of(model, tier)
    table = prices.table
    assert table is not None and table._fast is not None
    fast = outcome(lambda: Cost(*prices.counts_usd(*usage)))
    general = outcome(lambda: prices.cost(Usage(*usage)))
    assert fast == general
    if fast[0] != "error":
        valid = Usage(*usage)
        assert exact(Cost(*table.counts_usd(*usage))) == exact(_cost_of(table._priced(valid))) == fast
        assert outcome(lambda: prices.genai_cost(valid)) == fast


def test_counts_that_are_not_plain_take_the_general_path() -> None:
    prices = prices_of("gpt-5", "standard")
    for bad in ((10, 0, 11, 0, 0, 0, 0), (10, -1, 0, 0, 0, 0, 0), (True, 0, 0, 0, 0, 0, 0)):
        with pytest.raises(InputError):
            prices.counts_usd(*bad)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="no 1-hour cache-write price"):
        prices.counts_usd(10, 0, 0, 0, 5, 0, 0)


def test_a_table_whose_usage_could_fail_has_no_compiled_path() -> None:
    table = prices_of("claude-sonnet-4-5", "standard").table
    assert table is not None
    unit = table.units[0]
    # a unit for a usage Usage does not report, with reported usages more specific than it
    odd = type(unit)(
        key="any_mtok",
        usage_key="any_tokens",
        per=1_000_000,
        dimensions=(("family", "tokens"),),
        base=unit.base,
    )
    other = type(table)(units=(*table.units, odd), reported=table.reported, rates=table.rates)
    assert other._fast is None
    usage = Usage(1000, 10, 100, 50, 0)
    with pytest.raises(ValueError, match="any_tokens"):
        other.cost(usage)
