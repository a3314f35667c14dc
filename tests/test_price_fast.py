"""PriceTable's compiled path (``PriceTable.request``) prices like its general path to the last digit, and
the parts ``ModelPrices.price`` gives are the tokens at the rates the request pays."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcost.errors import InputError
from agentcost.prices import lookup as P
from agentcost.prices.pricing import Cost, ModelPrices, Usage
from agentcost.prices.table import Priced
from agentcost.tokens.request import RequestUsage

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


def exact(priced: Priced | Cost) -> tuple[str, ...]:
    """Digits and exponent as printed: equal Decimals with other exponents differ here."""
    if isinstance(priced, Cost):
        return (str(priced.input_usd), str(priced.output_usd), str(priced.total_usd))
    return (*(str(d) for d in priced[:7]), repr(priced[7]))


def outcome(fn: Callable[[], Priced | Cost]) -> tuple[str, ...]:
    try:
        return exact(fn())
    except (InputError, ValueError) as error:
        return ("error", str(error))


def general(prices: ModelPrices, usage: tuple[int, ...]) -> Priced:
    """The table's general path, with ModelPrices' checks and errors."""
    valid = Usage(*usage)
    prices._check_1h(valid)
    assert prices.table is not None
    try:
        return prices.table.general(valid)
    except ValueError as error:
        raise InputError(f"cannot price {prices.model_id}: {error}") from None


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
    fast = outcome(lambda: prices._request(*usage))
    assert fast == outcome(lambda: general(prices, usage))
    if fast[0] != "error":
        valid = Usage(*usage)
        assert exact(table.general(valid)) == exact(table.request(*usage)) == fast
        assert outcome(lambda: prices.genai_cost(valid)) == fast[:3] == outcome(lambda: prices.cost(valid))


@pytest.mark.parametrize(("model", "tier"), MODELS)
@settings(max_examples=100, deadline=None)
@given(usage=usages())
def test_the_parts_are_the_tokens_at_the_rates_the_request_pays(
    model: str, tier: str, usage: tuple[int, int, int, int, int, int, int]
) -> None:
    """What report/split.py used to work out from the rates, the pricer now gives: each cached part
    at its own rate (the request's tier's), or the input rate where it has none; the uncached part
    is the rest of the input; the fees are the rest of the total."""
    prices = prices_of(model, tier)
    try:
        i, o, r, w, w1, web, code = usage
        cost = prices.price(RequestUsage(i, o, r, w, w1, web_searches=web, code_executions=code))
    except InputError:
        return
    rates = {rate.key: rate for rate in prices.rates()}

    def at(tokens: int, *keys: str) -> Decimal:
        rate = next((rates[k] for k in keys if k in rates), rates["input_mtok"])
        return rate.at(i) * tokens / rate.per

    assert cost.cache_read_usd == at(r, "cache_read_mtok")
    assert cost.cache_write_5m_usd == at(w, "cache_write_5m_mtok", "cache_write_mtok")
    assert cost.cache_write_1h_usd == at(w1, "cache_write_1h_mtok")
    assert cost.uncached_input_usd == at(i - r - w - w1)
    assert cost.output_usd == at(o, "output_mtok")
    parts = (cost.uncached_input_usd, cost.cache_read_usd, cost.cache_write_5m_usd, cost.cache_write_1h_usd)
    assert cost.input_usd == sum(parts, Decimal(0))
    assert cost.fees_usd == sum((usd for _, usd in cost.fees), Decimal(0))
    assert cost.total_usd == cost.input_usd + cost.output_usd + cost.fees_usd
    assert prices.cost(Usage(*usage)).input_usd == cost.input_usd


def test_counts_that_are_not_plain_take_the_general_path() -> None:
    prices = prices_of("gpt-5", "standard")
    for bad in ((10, 0, 11, 0, 0), (10, -1, 0, 0, 0), (True, 0, 0, 0, 0)):
        with pytest.raises(InputError):
            prices.price(RequestUsage(*bad))
    with pytest.raises(InputError, match="no 1-hour cache-write price"):
        prices.price(RequestUsage(10, 0, 0, 0, 5))


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
