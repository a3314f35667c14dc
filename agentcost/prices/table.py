"""A resolved price row as plain data (:class:`PriceTable`) and its arithmetic: one request priced
exactly as genai-prices' ``ModelPrice.calc_price`` prices it, unit by unit, with the parts of
:class:`~agentcost.tokens.request.RequestCost` kept (uncached input, cache reads, 5-minute and 1-hour
writes, per-use prices).

An implementation detail of :meth:`agentcost.prices.pricing.ModelPrices.price`, the one place a
request is priced: nothing else calls :meth:`PriceTable.request`. ``ModelPrices.cost`` gives its
genai-prices sums (tests compare them with genai-prices on every model, to the last digit).
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from functools import cached_property

from agentcost.errors import InputError
from agentcost.infra.record import record
from agentcost.prices.rates import Rate


@record
class Usage:
    """One billed request. ``input_tokens`` counts EVERY prompt token, cached or not."""

    input_tokens: int
    output_tokens: int
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0  # 5-minute writes (or the provider's only write bucket)
    cache_write_1h_tokens: int = 0  # Anthropic 1-hour writes
    # Server-tool uses, genai-prices usage keys (priced where the model has web_searches_kcount /
    # code_executions_kcount; agentcost.loop.caching.pricer_for prices the rest from facts.yaml).
    web_searches: int = 0
    code_executions: int = 0

    def __post_init__(self) -> None:
        for name in (
            "input_tokens",
            "output_tokens",
            "cache_read_tokens",
            "cache_write_tokens",
            "cache_write_1h_tokens",
            "web_searches",
            "code_executions",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise InputError(f"{name} must be a whole number >= 0, got {value!r}")
        cached = self.cache_read_tokens + self.cache_write_tokens + self.cache_write_1h_tokens
        if cached > self.input_tokens:
            raise InputError(
                f"cache reads and writes ({cached:,} tokens) exceed the request's input tokens "
                f"({self.input_tokens:,})",
                hint="input_tokens counts every prompt token, cached or not",
            )

    def counts(self) -> tuple[int, int, int, int, int, int, int]:
        """The fields in the order :meth:`PriceTable.request` takes them."""
        return (
            self.input_tokens,
            self.output_tokens,
            self.cache_read_tokens,
            self.cache_write_tokens,
            self.cache_write_1h_tokens,
            self.web_searches,
            self.code_executions,
        )


@record
class Cost:
    """Dollars for one request, exact. ``input_usd`` includes cache reads and writes."""

    input_usd: Decimal
    output_usd: Decimal
    total_usd: Decimal


@record
class PricedUnit:
    """One price of a model as genai-prices applies it: the usage it prices (``usage_key``, with the
    unit's ``dimensions``), per how many, and the rate (``tiers`` in genai-prices' own order)."""

    key: str  # the price key, e.g. "cache_read_mtok"
    usage_key: str  # the usage it prices, e.g. "cache_read_tokens"
    per: int
    dimensions: tuple[tuple[str, str], ...]  # e.g. (("direction", "input"), ("family", "tokens"), ...)
    base: Decimal
    tiers: tuple[tuple[int, Decimal], ...] = ()  # (start, price) as genai-prices lists them
    tiered: bool = False  # a genai-prices TieredPrices (the request's input tokens pick the rate)

    @property
    def direction(self) -> str | None:
        return dict(self.dimensions).get("direction")


def _cost_of(parts: Iterable[tuple[PricedUnit, str | None, int, Decimal, Decimal]]) -> Cost:
    """The :class:`Cost` of a request's priced parts, (unit, direction, count, rate, dollars): the
    total, and the input and output sums by direction (in the parts' order, as genai-prices sums them)."""
    input_usd = output_usd = total_usd = Decimal(0)
    for _, direction, _, _, amount in parts:
        total_usd += amount
        if direction == "input":
            input_usd += amount
        elif direction == "output":
            output_usd += amount
    return Cost(input_usd=input_usd, output_usd=output_usd, total_usd=total_usd)


# Usage keys :class:`Usage` reports to genai-prices (``ModelPrices.genai_cost``); PriceTable needs
# their unit dimensions for genai-prices' inference rule (agentcost.prices.lookup).
REPORTED_USAGE = (
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "cache_write_5m_tokens",
    "cache_write_1h_tokens",
    "web_searches",
    "code_executions",
)

# The usage values of a request as PriceTable._priced reads them, in PriceTable.request's order.
_FAST_SLOTS = (*REPORTED_USAGE, "requests")

# The parts of a request's price (RequestCost's), by the unit's dimensions (:func:`_part_of`).
UNCACHED, READ, WRITE_5M, WRITE_1H, OUTPUT, FEE = range(6)

Priced = tuple[Decimal, Decimal, Decimal, Decimal, Decimal, Decimal, Decimal, tuple[tuple[str, Decimal], ...]]
"""One request as :meth:`PriceTable.request` prices it: genai-prices' input, output and total sums
(its digits: summed in its order), then the input's parts (uncached, cache read, 5-minute write,
1-hour write) and the per-use prices the request pays, (name, dollars) each. A cached part without a
price of its own is billed at the input rate, in the input unit (as genai-prices bills it): its part
is its tokens at that rate, taken out of the uncached part."""

_NO_FEES: tuple[tuple[str, Decimal], ...] = ()
_ZERO = Decimal(0)  # a part with no tokens: one object for every ledger line


def _part_of(unit: PricedUnit) -> tuple[int, str]:
    """The part a unit's dollars go to, and a per-use price's name (its tool, else its usage key)."""
    dims = dict(unit.dimensions)
    direction = dims.get("direction")
    if direction == "output":
        return OUTPUT, ""
    if direction != "input":
        return FEE, dims.get("tool_type") or unit.usage_key
    kind = dims.get("token_type")
    if kind == "cache_read":
        return READ, ""
    if kind == "cache_write":
        return (WRITE_1H if dims.get("cache_ttl") == "1h" else WRITE_5M), ""
    return UNCACHED, ""


def _tier_price(price: Decimal, tiers: Iterable[tuple[int, Decimal]], input_tokens: int) -> Decimal:
    """The price a request of ``input_tokens`` pays: the highest tier it crosses (``tiers`` in
    genai-prices' ascending order), else ``price``."""
    for start, tier_price in reversed(tuple(tiers)):
        if input_tokens > start:
            return tier_price
    return price


def _fold(
    split: list[Decimal],
    price: Decimal,
    per: int,
    missing: Iterable[tuple[int, int]],
    counts: tuple[int, int, int],
) -> None:
    """Move the tokens of the cached parts without a price of their own (``missing``: part, index in
    ``counts``) out of the uncached part, each at the input rate ``price`` per ``per``."""
    for part, n in missing:
        if counts[n]:
            moved = price * counts[n] / per
            split[part] += moved
            split[UNCACHED] -= moved


@record
class PriceTable:
    """A resolved price row as plain data: everything :meth:`ModelPrices.price` needs to price a
    request exactly as genai-prices' ``ModelPrice.calc_price`` does, without genai-prices.

    ``units`` are in genai-prices' order (the order it sums them in); ``reported`` are the
    dimensions of the usage keys :class:`Usage` reports (for genai-prices' inference rule: a priced
    usage not reported is 0, unless reported usage implies it must have been given)."""

    units: tuple[PricedUnit, ...]
    reported: tuple[tuple[str, tuple[tuple[str, str], ...]], ...]
    rates: tuple[Rate, ...]

    def cost(self, usage: Usage) -> Cost:
        """genai-prices' sums of :meth:`request`: input, output and total."""
        input_usd, output_usd, total_usd, *_ = self.request(*usage.counts())
        return Cost(input_usd=input_usd, output_usd=output_usd, total_usd=total_usd)

    def request(self, i: int, o: int, r: int, w: int, w1: int, web: int, code: int) -> Priced:
        """A valid :class:`Usage`, given as its fields, priced (:data:`Priced`): genai-prices'
        arithmetic, each priced unit's leaf count (its usage less the usage of the more specific
        priced units inside it) times its rate over ``per``, a tiered rate chosen by the request's
        whole input (a cliff). With the plan :attr:`_fast` compiled once: the same Decimal
        operations in the same order as :meth:`general` (so the same digits), without its
        per-request dicts, tuples and objects."""
        fast = self._fast
        if fast is None:
            return self.general(Usage(i, o, r, w, w1, web, code))
        steps, units, zeros, fold = fast
        values = (i, o, r, w + w1, w, w1, web, code, 1, *zeros)
        leaves = [0, 0, 0, 0, 0, 0, 0, 0, 1, *zeros]
        for slot, nested, key in steps:
            leaf = values[slot]
            for k in nested:
                leaf -= leaves[k]
            if leaf < 0:
                raise ValueError(f"Invalid usage data: more-specific usage exceeds {key}")
            leaves[slot] = leaf
        input_usd = output_usd = total_usd = Decimal(0)
        split = [_ZERO, _ZERO, _ZERO, _ZERO]  # UNCACHED, READ, WRITE_5M, WRITE_1H
        fees = _NO_FEES
        for part, slot, price, zero, tiers, per, name in units:
            for start, tier_price, tier_zero in tiers:
                if i > start:
                    price, zero = tier_price, tier_zero
                    break
            count = leaves[slot]  # an int operand converts exactly, as Decimal(count) does
            amount = price * count / per if count else zero
            total_usd += amount
            if part < OUTPUT:
                input_usd += amount
                if count:  # a part with no tokens stays _ZERO: nothing new for the ledger to keep
                    split[part] += amount
            elif part == OUTPUT:
                output_usd += amount
            elif count:
                fees += ((name, amount),)
        if fold is not None and (r or w or w1):
            plain, plain_tiers, plain_per, missing = fold
            _fold(split, _tier_price(plain, plain_tiers, i), plain_per, missing, (r, w, w1))
        return input_usd, output_usd, total_usd, split[0], split[1], split[2], split[3], fees

    def general(self, usage: Usage) -> Priced:
        """:meth:`request` without a compiled plan: every unit priced (:meth:`_priced`), summed as
        genai-prices sums them (:func:`_cost_of`), and split into the parts."""
        priced = self._priced(usage)
        cost = _cost_of(priced)
        split = [_ZERO] * 4
        fees = _NO_FEES
        for (part, name), (_, _, count, _, amount) in zip(self._parts, priced, strict=True):
            if part < OUTPUT and count:
                split[part] += amount
            elif part == FEE and count:
                fees += ((name, amount),)
        folded = self._fold
        counts = (usage.cache_read_tokens, usage.cache_write_tokens, usage.cache_write_1h_tokens)
        if folded is not None and any(counts):
            unit, missing = folded
            price = _tier_price(unit.base, unit.tiers if unit.tiered else (), usage.input_tokens)
            _fold(split, price, unit.per, missing, counts)
        return cost.input_usd, cost.output_usd, cost.total_usd, split[0], split[1], split[2], split[3], fees

    @cached_property
    def _parts(self) -> tuple[tuple[int, str], ...]:
        """:func:`_part_of` of every unit, in :attr:`units`' order."""
        return tuple(_part_of(unit) for unit in self.units)

    @cached_property
    def _fold(self) -> tuple[PricedUnit, tuple[tuple[int, int], ...]] | None:
        """The input unit and the cached parts without a unit of their own, (part, index in (reads,
        5-minute writes, 1-hour writes)) each: the input unit bills their tokens. None: every
        cached part has its own unit (or there is no input unit)."""
        have = {part for part, _ in self._parts}
        missing = [(part, n) for n, part in enumerate((READ, WRITE_5M)) if part not in have]
        if WRITE_1H not in have and WRITE_5M not in have:  # else the writes' unit bills 1-hour writes
            missing.append((WRITE_1H, 2))
        plain = next((u for u in self.units if u.usage_key == "input_tokens"), None)
        return None if plain is None or not missing else (plain, tuple(missing))

    @cached_property
    def _fast(
        self,
    ) -> (
        tuple[
            tuple[tuple[int, tuple[int, ...], str], ...],
            tuple[tuple[int, int, Decimal, Decimal, tuple[tuple[int, Decimal, Decimal], ...], int, str], ...],
            tuple[int, ...],
            tuple[Decimal, tuple[tuple[int, Decimal], ...], int, tuple[tuple[int, int], ...]] | None,
        ]
        | None
    ):
        """:meth:`_leaf_counts` and :meth:`_priced` compiled for :meth:`request`: the leaf steps
        (slot, nested slots, usage key) in :attr:`_plan`'s order, per unit (part, slot, base
        rate, its amount for a count of 0, tiers highest first with theirs, per, name), a 0 per unit
        priced on a usage :class:`Usage` does not report where no reported usage can make
        :meth:`_usage` fail for it (it is then always 0), and :attr:`_fold` as (input rate, its
        tiers, per, missing parts). None where a usage could fail, or where a nested usage is not
        yet computed: the general path handles those."""
        slots = {key: n for n, key in enumerate(_FAST_SLOTS)}
        for unit in self.units:
            if unit.usage_key not in slots:
                if not self._always_zero(unit):
                    return None
                slots[unit.usage_key] = len(slots)
        steps = []
        done: set[str] = set()
        for unit, nested in self._plan:
            if any(k not in done for k in nested):
                return None
            steps.append((slots[unit.usage_key], tuple(slots[k] for k in nested), unit.usage_key))
            done.add(unit.usage_key)
        units = []
        for unit, (part, name) in zip(self.units, self._parts, strict=True):
            per = unit.per
            # a count of 0 costs 0, with the exponent price * 0 / per gives it (sums keep that exponent)
            tiers = (
                tuple((start, p, p * Decimal(0) / per) for start, p in reversed(unit.tiers))
                if unit.tiered
                else ()
            )
            units.append(
                (part, slots[unit.usage_key], unit.base, unit.base * Decimal(0) / per, tiers, per, name)
            )
        fold = None
        if self._fold is not None:
            plain, missing = self._fold
            fold = (plain.base, plain.tiers if plain.tiered else (), plain.per, missing)
        return tuple(steps), tuple(units), (0,) * (len(slots) - len(_FAST_SLOTS)), fold

    def _always_zero(self, unit: PricedUnit) -> bool:
        """Whether :meth:`_usage` gives 0 for ``unit`` whatever the reported values: no reported
        usage is more specific than it, and no two reported usages join into it (its errors need
        one of those among the positive reported usages)."""
        wanted = set(unit.dimensions)
        dims = [set(d) for _, d in self.reported]
        if any(wanted <= d and d != wanted for d in dims):
            return False
        for n, (_, left) in enumerate(self.reported):
            for _, right in self.reported[n + 1 :]:
                ldims, rdims = set(left), set(right)
                rmap = dict(right)
                compatible = all(rmap.get(k, v) == v for k, v in left)
                if compatible and not ldims <= rdims and not rdims <= ldims and ldims | rdims == wanted:
                    return False
        return True

    def _priced(self, usage: Usage) -> list[tuple[PricedUnit, str | None, int, Decimal, Decimal]]:
        """(unit, direction, leaf count, rate, dollars) of every priced unit: the one computation
        behind :meth:`cost` and :meth:`parts`."""
        values: dict[str, int] = {
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "cache_read_tokens": usage.cache_read_tokens,
            "cache_write_tokens": usage.cache_write_tokens + usage.cache_write_1h_tokens,
            "cache_write_5m_tokens": usage.cache_write_tokens,
            "cache_write_1h_tokens": usage.cache_write_1h_tokens,
            "web_searches": usage.web_searches,
            "code_executions": usage.code_executions,
        }
        counts = self._leaf_counts(values)
        total_input = usage.input_tokens if self._tiered else 0
        priced = []
        for unit, direction in self._directions:
            price = unit.base
            if unit.tiered:
                for start, tier_price in reversed(unit.tiers):
                    if total_input > start:
                        price = tier_price
                        break
            count = counts[unit.usage_key]
            priced.append((unit, direction, count, price, price * Decimal(count) / unit.per))
        return priced

    @cached_property
    def _tiered(self) -> bool:
        return any(u.tiered for u in self.units)

    @cached_property
    def _directions(self) -> tuple[tuple[PricedUnit, str | None], ...]:
        return tuple((u, u.direction) for u in self.units)

    @cached_property
    def _plan(self) -> tuple[tuple[PricedUnit, tuple[str, ...]], ...]:
        """genai-prices' order of leaf computation (more dimensions first), each unit with the
        priced units nested in it."""
        priced = [u for u in self.units if u.usage_key != "requests"]
        order = sorted(priced, key=lambda u: (-len(u.dimensions), u.usage_key))
        return tuple(
            (
                unit,
                tuple(
                    other.usage_key
                    for other in order
                    if other is not unit and set(unit.dimensions) <= set(other.dimensions)
                ),
            )
            for unit in order
        )

    def _leaf_counts(self, values: dict[str, int]) -> dict[str, int]:
        leaves: dict[str, int] = {}
        for unit, nested in self._plan:
            leaf = self._usage(unit, values) - sum(leaves[k] for k in nested)
            if leaf < 0:
                raise ValueError(f"Invalid usage data: more-specific usage exceeds {unit.usage_key}")
            leaves[unit.usage_key] = leaf
        if any(u.usage_key == "requests" for u in self.units):
            leaves["requests"] = 1
        return leaves

    def _usage(self, unit: PricedUnit, values: dict[str, int]) -> int:
        """A usage value as genai-prices' ``Usage`` gives it: the reported value, else 0 -- or an
        error where positive reported usage is more specific than the unit (or joins into it)."""
        if unit.usage_key in values:
            return values[unit.usage_key]
        wanted = set(unit.dimensions)
        positive = [(k, set(d)) for k, d in self.reported if values.get(k, 0) > 0]
        inside = sorted(k for k, d in positive if wanted <= d and d != wanted)
        if inside:
            raise ValueError(
                f"Missing usage for {unit.usage_key}: reported descendant usage keys "
                f"{', '.join(inside)} require explicit {unit.usage_key}"
            )
        ordered = sorted(positive)
        for i, (left, ldims) in enumerate(ordered):
            for right, rdims in ordered[i + 1 :]:
                lmap, rmap = dict(ldims), dict(rdims)
                compatible = all(rmap.get(k, v) == v for k, v in lmap.items())
                if compatible and not ldims <= rdims and not rdims <= ldims and ldims | rdims == wanted:
                    raise ValueError(
                        f"Missing usage for {unit.usage_key}: reported overlapping usage keys "
                        f"{left}, {right} require explicit {unit.usage_key}"
                    )
        return 0
