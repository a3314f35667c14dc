"""What a price lookup gives: :class:`ModelPrices`, pricing one request (:class:`Usage`) in :class:`Cost`.

``ModelPrices.cost`` prices one request at the prices :func:`agentcost.prices.lookup.resolve_model`
fixed: exact Decimals, long-context tiers applied per request (crossing a tier reprices ALL tokens
of that request), no clock; from :class:`PriceTable`, the resolved price row as plain data (no
genai-prices needed, so a row read from the cache prices requests too), else with genai-prices'
own price object. ``ModelPrices.itemise`` shows the same computation line by line (the example
request of ``agentcost prices``): the parts ``PriceTable.cost`` sums, never a second arithmetic.

Usage semantics are genai-prices': ``input_tokens`` counts EVERY prompt token; cache reads and writes
are parts of it. Cache writes on a model without a cache-write price are billed at the plain input
rate (no write premium: OpenAI before GPT-5.6, Gemini implicit caching). 1-hour writes need a
1-hour price (Anthropic); asking for them elsewhere is an error.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cached_property
from typing import TYPE_CHECKING

from agentcost.errors import InputError
from agentcost.prices.rates import PriceChange, PriceSource, Rate, rates_of, tier_name

if TYPE_CHECKING:
    from genai_prices.types import ModelInfo, ModelPrice


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class Cost:
    """Dollars for one request, exact. ``input_usd`` includes cache reads and writes."""

    input_usd: Decimal
    output_usd: Decimal
    total_usd: Decimal


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class PricedPart:
    """One priced unit of one request, as :meth:`PriceTable.cost` sums it: ``count`` (the unit's leaf
    usage: its usage less that of the more specific priced units inside it) at ``price`` (the
    request's long-context tier's, where it crosses one) per ``per`` tokens or uses."""

    key: str  # the price key, e.g. "cache_read_mtok"
    usage_key: str  # the usage it prices, e.g. "cache_read_tokens"
    direction: str | None  # "input", "output", or None (a per-use fee)
    count: int
    price: Decimal
    per: int
    usd: Decimal  # price x count / per, exact


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


@dataclass(frozen=True)
class CostLine:
    """One line of a request's price worked out (``agentcost prices``' example request):
    ``tokens`` x ``per_mtok_usd`` / 1,000,000 = ``usd``, exact."""

    label: str  # "uncached input", "cache read", "cache write 5m", "cache write 1h", "output"
    tokens: int
    per_mtok_usd: Decimal
    usd: Decimal
    note: str | None = None  # e.g. "no such price: billed as input"


@dataclass(frozen=True)
class Itemised:
    """A request's price line by line, and what :meth:`ModelPrices.cost` gives for it."""

    lines: tuple[CostLine, ...]
    total_usd: Decimal  # the sum of the lines
    cost: Cost  # ModelPrices.cost(usage): the parts the lines show, summed as the accountant sums them


NO_PRICE = "no such price: billed as input"

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

# The usage values of a request as PriceTable._priced reads them, in PriceTable.counts_usd's order.
_FAST_SLOTS = (*REPORTED_USAGE, "requests")


def _line(label: str, tokens: int, price: Decimal, per: int, note: str | None = None) -> CostLine:
    return CostLine(label, tokens, price, price * Decimal(tokens) / per, note)


@dataclass(frozen=True)
class PriceTable:
    """A resolved price row as plain data: everything :meth:`ModelPrices.cost` needs to price a
    request exactly as genai-prices' ``ModelPrice.calc_price`` does, without genai-prices.

    ``units`` are in genai-prices' order (the order it sums them in); ``reported`` are the
    dimensions of the usage keys :class:`Usage` reports (for genai-prices' inference rule: a priced
    usage not reported is 0, unless reported usage implies it must have been given)."""

    units: tuple[PricedUnit, ...]
    reported: tuple[tuple[str, tuple[tuple[str, str], ...]], ...]
    rates: tuple[Rate, ...]

    def cost(self, usage: Usage) -> Cost:
        """genai-prices' arithmetic: each priced unit's leaf count (its usage less the usage of the
        more specific priced units inside it) times its rate over ``per``; a tiered rate is chosen
        by the request's whole input (a cliff); input and output sums by the unit's direction."""
        if self._fast is None:
            return _cost_of(self._priced(usage))
        input_usd, output_usd, total_usd = self.counts_usd(
            usage.input_tokens,
            usage.output_tokens,
            usage.cache_read_tokens,
            usage.cache_write_tokens,
            usage.cache_write_1h_tokens,
            usage.web_searches,
            usage.code_executions,
        )
        return Cost(input_usd=input_usd, output_usd=output_usd, total_usd=total_usd)

    def counts_usd(
        self, i: int, o: int, r: int, w: int, w1: int, web: int, code: int
    ) -> tuple[Decimal, Decimal, Decimal]:
        """:meth:`cost` of a valid :class:`Usage` given as its fields, as (input, output, total),
        with the plan :attr:`_fast` compiled once: the same Decimal operations in the same order as
        :meth:`_priced` and :func:`_cost_of` (so the same digits), without their per-request dicts,
        tuples and objects."""
        fast = self._fast
        if fast is None:
            cost = _cost_of(self._priced(Usage(i, o, r, w, w1, web, code)))
            return cost.input_usd, cost.output_usd, cost.total_usd
        steps, units, zeros = fast
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
        for direction, slot, price, zero, tiers, per in units:
            for start, tier_price, tier_zero in tiers:
                if i > start:
                    price, zero = tier_price, tier_zero
                    break
            count = leaves[slot]  # an int operand converts exactly, as Decimal(count) does
            amount = price * count / per if count else zero
            total_usd += amount
            if direction == "input":
                input_usd += amount
            elif direction == "output":
                output_usd += amount
        return input_usd, output_usd, total_usd

    @cached_property
    def _fast(
        self,
    ) -> (
        tuple[
            tuple[tuple[int, tuple[int, ...], str], ...],
            tuple[
                tuple[str | None, int, Decimal, Decimal, tuple[tuple[int, Decimal, Decimal], ...], int], ...
            ],
            tuple[int, ...],
        ]
        | None
    ):
        """:meth:`_leaf_counts` and :meth:`_priced` compiled for :meth:`counts_usd`: the leaf steps
        (slot, nested slots, usage key) in :attr:`_plan`'s order, per unit (direction, slot, base
        rate, its amount for a count of 0, tiers highest first with theirs, per), and a 0 per unit
        priced on a usage :class:`Usage` does not report where no reported usage can make
        :meth:`_usage` fail for it (it is then always 0). None where one could, or where a nested
        usage is not yet computed: the general path handles those."""
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
        for unit, direction in self._directions:
            per = unit.per
            # a count of 0 costs 0, with the exponent price * 0 / per gives it (sums keep that exponent)
            tiers = (
                tuple((start, p, p * Decimal(0) / per) for start, p in reversed(unit.tiers))
                if unit.tiered
                else ()
            )
            units.append(
                (direction, slots[unit.usage_key], unit.base, unit.base * Decimal(0) / per, tiers, per)
            )
        return tuple(steps), tuple(units), (0,) * (len(slots) - len(_FAST_SLOTS))

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

    def parts(self, usage: Usage) -> tuple[tuple[PricedPart, ...], Cost]:
        """The request's price unit by unit, in genai-prices' order, and their :class:`Cost`: the
        computation of :meth:`cost`, with its parts kept."""
        priced = self._priced(usage)
        parts = tuple(
            PricedPart(unit.key, unit.usage_key, direction, count, price, unit.per, usd)
            for unit, direction, count, price, usd in priced
        )
        return parts, _cost_of(priced)

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


@dataclass(frozen=True)
class ModelPrices:
    """The prices of one model in force at ``source.as_of``.

    The ``*_mtok`` fields are USD per million tokens, the base (below any tier) rates, for display;
    ``cost`` applies tiers itself. ``None`` means "no such price" (never read it as 0).
    """

    model_ref: str  # what the user wrote (also :attr:`written`)
    model_id: str  # genai-prices' id (its row's id: "regional.anthropic.claude-...-v1:0" on Bedrock)
    name: str
    provider: str  # any genai-prices provider id: "anthropic", "aws", "azure", "deepseek", "x-ai", ...
    context_window: int | None
    source: PriceSource
    input_mtok: Decimal
    output_mtok: Decimal
    cache_read_mtok: Decimal | None
    cache_write_mtok: Decimal | None
    cache_write_1h_mtok: Decimal | None
    has_tiers: bool
    # Input-token thresholds above which a whole request is repriced (empty without tiers).
    tier_thresholds: tuple[int, ...] = ()
    service_tier: str = "standard"  # the tier these prices are for (SERVICE_TIERS)
    service_tiers: tuple[str, ...] = ("standard",)  # the tiers the model offers at source.as_of
    base_id: str | None = None  # a user model's ``base:``: its counting and caching rules apply
    deprecated: bool = False
    price_comments: str | None = None  # genai-prices' notes on this model's prices
    # Price changes genai-prices has scheduled after source.as_of, in date order.
    changes: tuple[PriceChange, ...] = ()
    warnings: tuple[str, ...] = ()  # scheduled changes soon, stale price data
    _price: ModelPrice | None = field(default=None, repr=False, compare=False)
    _info: ModelInfo | None = field(default=None, repr=False, compare=False)
    # the resolved prices as plain data (None: genai-prices' price object prices every request)
    table: PriceTable | None = field(default=None, repr=False, compare=False)
    # The genai-prices provider whose row prices the model ("" on construction: ``provider``). It
    # differs from ``provider`` where genai-prices prices a host's model with another provider's row
    # (azure/gpt-4o: the openai row, billed as azure).
    price_provider: str = ""
    # The host rule that resolved the id (agentcost/prices/hosts.yaml): "bedrock", "azure", "vertex",
    # "openrouter"; None for a provider's own id.
    host: str | None = None
    # The underlying model id without host prefixes or suffixes ("claude-sonnet-4-5-20250929" for
    # "us.anthropic.claude-sonnet-4-5-20250929-v1:0"); None: ``model_id`` itself.
    underlying_id: str | None = None
    # The daily UTC windows ("HH:MM", "HH:MM") in which genai-prices prices this model differently
    # (DeepSeek's peak hours), in force on the price date; empty when its prices follow dates only.
    time_of_day: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if not self.price_provider:
            object.__setattr__(self, "price_provider", self.provider)

    @property
    def written(self) -> str:
        """The id as the user wrote it (``model_ref``)."""
        return self.model_ref

    @property
    def rules_id(self) -> str:
        """The model id whose counting and caching rules (tokenizer, facts.yaml rows) apply: a user
        model's base, else the underlying model id (host prefixes stripped), else ``model_id``."""
        return self.base_id or self.underlying_id or self.model_id

    def tier_label(self, input_tokens: int) -> str | None:
        """``">200k"`` when a request of ``input_tokens`` is priced at a long-context tier, else None.

        Tiers are cliffs (genai-prices ``TieredPrices``): a request with MORE than the threshold
        input tokens pays the tier's rates on all its tokens.
        """
        for threshold, name in self._tier_names:
            if input_tokens > threshold:
                return name
        return None

    @cached_property
    def _tier_names(self) -> tuple[tuple[int, str], ...]:
        """(threshold, :func:`tier_name`) of each tier, highest first: the first one a request
        crosses is the highest it crosses (:meth:`tier_label` runs once per ledger row)."""
        return tuple((t, tier_name(t)) for t in sorted(set(self.tier_thresholds), reverse=True))

    def rates(self) -> tuple[Rate, ...]:
        """Every price of the model in force at ``source.as_of`` (token rates, then per-use fees)."""
        if self.table is not None:
            return self.table.rates
        if self._price is None:
            raise RuntimeError("ModelPrices without a resolved price; use resolve_model()")
        return rates_of(self._price, self.provider)

    def cost(self, usage: Usage) -> Cost:
        """Price one request at the prices in force at ``source.as_of``: with :class:`PriceTable`
        (our Decimal arithmetic, equal to genai-prices' to the last digit: tests/test_cache.py
        compares them on every model), else with genai-prices' price object."""
        self._check_1h(usage)
        if self.table is not None:
            try:
                return self.table.cost(usage)
            except ValueError as error:
                raise InputError(f"cannot price {self.model_id}: {error}") from None
        return self.genai_cost(usage)

    def counts_usd(
        self, i: int, o: int, r: int, w: int, w1: int, web: int, code: int
    ) -> tuple[Decimal, Decimal, Decimal]:
        """:meth:`cost` of ``Usage(i, o, r, w, w1, web, code)`` as (input, output, total) dollars,
        without building the Usage or the Cost where
        the counts are plain (whole numbers >= 0, cache parts within the input, a 1-hour price for
        1-hour writes) and the table has a compiled plan; anything else takes :meth:`cost`, with
        its checks and errors. The accountant's pricer calls this once per request."""
        table = self.table
        if (
            table is None
            or table._fast is None
            or not (type(i) is type(o) is type(r) is type(w) is type(w1) is type(web) is type(code) is int)
            or min(o, r, w, w1, web, code) < 0
            or r + w + w1 > i
            or (w1 and self.cache_write_1h_mtok is None)
        ):
            cost = self.cost(Usage(i, o, r, w, w1, web, code))
            return cost.input_usd, cost.output_usd, cost.total_usd
        try:
            return table.counts_usd(i, o, r, w, w1, web, code)
        except ValueError as error:
            raise InputError(f"cannot price {self.model_id}: {error}") from None

    def itemise(self, usage: Usage) -> Itemised:
        """One request's price line by line (``agentcost prices``' example): uncached input, cache
        reads, cache writes (5-minute, 1-hour), output, each at the rate the request pays (its
        long-context tier's where it crosses one). The lines are the parts :meth:`cost` sums
        (:meth:`PriceTable.parts`), so the example and the price are one computation; a cached part
        without a price of its own is billed in the input part, and is shown as its own line at the
        input rate, saying so. Without a PriceTable (genai-prices' price object prices the request)
        the lines come from :meth:`rates`. Per-use fees are not lines."""
        self._check_1h(usage)
        if self.table is not None:
            try:
                parts, cost = self.table.parts(usage)
            except ValueError as error:
                raise InputError(f"cannot price {self.model_id}: {error}") from None
        else:
            parts = self._rate_parts(usage)
            cost = self.genai_cost(usage)
        lines = self._lines(parts, usage)
        return Itemised(lines, sum((line.usd for line in lines), Decimal(0)), cost)

    def _lines(self, parts: tuple[PricedPart, ...], usage: Usage) -> tuple[CostLine, ...]:
        by_usage = {p.usage_key: p for p in parts}
        plain = by_usage["input_tokens"]
        write = by_usage.get("cache_write_5m_tokens") or by_usage.get("cache_write_tokens")
        cached: list[CostLine] = []
        folded = 0  # cached tokens without a price of their own: the input part bills them
        for label, tokens, part in (
            ("cache read", usage.cache_read_tokens, by_usage.get("cache_read_tokens")),
            (
                "cache write 5m" if self.provider == "anthropic" else "cache write",
                usage.cache_write_tokens,
                write,
            ),
            ("cache write 1h", usage.cache_write_1h_tokens, by_usage.get("cache_write_1h_tokens")),
        ):
            if not tokens:
                continue
            if part is None:
                folded += tokens
                cached.append(_line(label, tokens, plain.price, plain.per, NO_PRICE))
            else:
                cached.append(CostLine(label, part.count, part.price, part.usd))
        if folded:
            uncached = _line("uncached input", plain.count - folded, plain.price, plain.per)
        else:
            uncached = CostLine("uncached input", plain.count, plain.price, plain.usd)
        out = by_usage["output_tokens"]
        return (uncached, *cached, CostLine("output", out.count, out.price, out.usd))

    def _rate_parts(self, usage: Usage) -> tuple[PricedPart, ...]:
        """Without a PriceTable: the token parts at :meth:`rates` (the request's tier), a cached part
        without a price of its own left in the input part (as genai-prices bills it)."""
        rates = {r.key: r for r in self.rates()}
        n = usage.input_tokens

        def part(key: str, usage_key: str, direction: str, count: int) -> PricedPart:
            rate = rates[key]
            price = rate.at(n)
            return PricedPart(
                key, usage_key, direction, count, price, rate.per, price * Decimal(count) / rate.per
            )

        write_key = "cache_write_mtok" if "cache_write_mtok" in rates else "cache_write_5m_mtok"
        cached = [
            part(key, usage_key, "input", count)
            for key, usage_key, count in (
                ("cache_read_mtok", "cache_read_tokens", usage.cache_read_tokens),
                (write_key, "cache_write_tokens", usage.cache_write_tokens),
                ("cache_write_1h_mtok", "cache_write_1h_tokens", usage.cache_write_1h_tokens),
            )
            if key in rates
        ]
        plain = part("input_mtok", "input_tokens", "input", n - sum(p.count for p in cached))
        return (plain, *cached, part("output_mtok", "output_tokens", "output", usage.output_tokens))

    def _check_1h(self, usage: Usage) -> None:
        if usage.cache_write_1h_tokens and self.cache_write_1h_mtok is None:
            raise InputError(
                f"{self.model_id} has no 1-hour cache-write price",
                hint="1-hour cache writes are an Anthropic feature; use 5-minute writes",
            )

    def genai_cost(self, usage: Usage) -> Cost:
        """Price one request with genai-prices' own ``calc_price`` (the reference :meth:`cost` is
        tested against; needs the price object, so not on a row read from the cache)."""
        if self._price is None:
            raise RuntimeError("ModelPrices without a resolved price; use resolve_model()")
        from genai_prices import Usage as GPUsage

        gp_usage = GPUsage(
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cache_read_tokens=usage.cache_read_tokens,
            # genai-prices: cache_write_tokens is ALL writes; the 5m/1h buckets are parts of it.
            cache_write_tokens=usage.cache_write_tokens + usage.cache_write_1h_tokens,
            cache_write_5m_tokens=usage.cache_write_tokens,
            cache_write_1h_tokens=usage.cache_write_1h_tokens,
            web_searches=usage.web_searches,
            code_executions=usage.code_executions,
        )
        try:
            result = self._price.calc_price(gp_usage)
        except (ValueError, LookupError) as error:
            raise InputError(f"cannot price {self.model_id}: {error}") from None
        return Cost(
            input_usd=result["input_price"],
            output_usd=result["output_price"],
            total_usd=result["total_price"],
        )
