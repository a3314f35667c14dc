"""What a price lookup gives: :class:`ModelPrices`, and :meth:`ModelPrices.price`, the one place a
request is priced.

``ModelPrices.price`` prices one whole request (:class:`~agentcost.tokens.request.RequestUsage`) at
the prices :func:`agentcost.prices.lookup.resolve_model` fixed, fees included, in a
:class:`~agentcost.tokens.request.RequestCost`: the total and its parts (uncached input, cache
reads, 5-minute and 1-hour cache writes, output, each fee), exact Decimals, long-context tiers
applied per request (crossing a tier reprices ALL tokens of that request), no clock. The accountant
(its pricer), replay and the price sheet's worked example (:meth:`ModelPrices.itemise`) all call it;
reports read its parts and never multiply tokens by a rate (tests/test_architecture.py checks).

The token prices and genai-prices' own per-use prices come from :class:`PriceTable`
(:mod:`agentcost.prices.table`: the resolved price row as plain data, so a row read from the cache
prices requests too), else from genai-prices' price object; server-tool uses genai-prices does not
price, and code-execution container time, from facts.yaml. :meth:`ModelPrices.cost` gives the
genai-prices sums of the same arithmetic (tests compare them with genai-prices on every model).

Usage semantics are genai-prices': ``input_tokens`` counts EVERY prompt token; cache reads and writes
are parts of it. Cache writes on a model without a cache-write price are billed at the plain input
rate (no write premium: OpenAI before GPT-5.6, Gemini implicit caching). 1-hour writes need a
1-hour price (Anthropic); asking for them elsewhere is an error.
"""

from __future__ import annotations

from dataclasses import field
from decimal import ROUND_HALF_UP, Decimal
from functools import cached_property
from typing import TYPE_CHECKING

from agentcost.errors import InputError
from agentcost.infra.record import record
from agentcost.prices.daytime import OffPeak
from agentcost.prices.rates import PriceChange, PriceSource, Rate, rates_of, tier_name

# The table and its usage and sums, re-exported: importers of agentcost.prices.pricing keep using them.
from agentcost.prices.table import REPORTED_USAGE as REPORTED_USAGE
from agentcost.prices.table import Cost as Cost
from agentcost.prices.table import Priced, PriceTable
from agentcost.prices.table import Usage as Usage
from agentcost.prices.table import _cost_of as _cost_of
from agentcost.tokens.request import RequestCost, RequestUsage

if TYPE_CHECKING:
    from genai_prices.types import ModelInfo, ModelPrice

    from agentcost.facts import ContainerRate


@record
class CostLine:
    """One line of a request's price worked out (``agentcost prices``' example request):
    ``tokens`` at ``per_mtok_usd`` = ``usd``, the part :meth:`ModelPrices.price` gives, exact."""

    label: str  # "uncached input", "cache read", "cache write 5m", "cache write 1h", "output"
    tokens: int
    per_mtok_usd: Decimal
    usd: Decimal
    note: str | None = None  # e.g. "no such price: billed as input"


@record
class FeeLine:
    """One per-use price a request pays, worked out (``agentcost prices``' example request): ``uses``
    at ``usd_per`` per ``per`` uses = ``usd``, the fee :meth:`ModelPrices.price` gives, exact.
    Perplexity's per-request fee is one (genai-prices ``requests_kcount``: every request pays it)."""

    label: str  # the rate's label: "requests", "web searches", "code executions"
    uses: int
    per: int  # the rate is USD per this many uses (1,000)
    usd_per: Decimal
    usd: Decimal


@record
class Itemised:
    """A request's price line by line, and the sums :meth:`ModelPrices.price` gives for it."""

    lines: tuple[CostLine, ...]
    total_usd: Decimal  # the sum of the lines and the fees
    cost: Cost  # ModelPrices.price(usage)'s input, output and total: the parts the lines show, summed
    fees: tuple[FeeLine, ...] = ()  # the per-use prices the request pays (a per-request fee...)


NO_PRICE = "no such price: billed as input"

_ZERO = Decimal(0)

# Server tools -> their genai-prices usage key (None: genai-prices has no such key).
_SERVER_TOOL_USAGE_KEYS: dict[str, str | None] = {
    "web_search": "web_searches",
    "web_fetch": None,
    "code_execution": "code_executions",
    "web_search_preview": None,
}

# genai-prices' per-use prices by key: the fee's name and the usage it counts (PriceTable names its
# own the same way: the unit's tool, else its usage key).
_PER_USE = {
    "web_searches_kcount": ("web_search", "web_searches"),
    "code_executions_kcount": ("code_execution", "code_executions"),
    "requests_kcount": ("requests", "requests"),  # every request pays it once (Perplexity)
}
# The facts.yaml fees :meth:`ModelPrices.price` adds, by name: their label in the worked example.
_OWN_FEE_LABELS = {
    "web_search": "web searches",
    "web_fetch": "web fetches",
    "code_execution": "code executions",
}

CONTAINER_QUANTUM = Decimal("0.000000001")
"""Container time is priced to the nano-dollar (rounded half up): an hourly rate over seconds has
no finite decimal ($0.05 for 300 s is $0.0041666...)."""


def container_usd(rate: ContainerRate, seconds: Decimal) -> Decimal:
    """What one request's container costs: ``seconds`` (at least the rate's minimum) at
    ``usd_per_hour``, to the nano-dollar. One container per request that runs code (errs high when
    a client reuses its container across requests, as the OpenAI session fee does)."""
    billed = max(seconds, Decimal(rate.minimum_seconds))
    return (rate.usd_per_hour * billed / 3600).quantize(CONTAINER_QUANTUM, rounding=ROUND_HALF_UP)


def _uses(usage: Usage, counted: str) -> int:
    """How many times a request uses what a per-use price counts: once for ``requests``."""
    return 1 if counted == "requests" else int(getattr(usage, counted))


@record
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
    # Where the model is cheaper by the time of day than at its standard rates: the windows and
    # their discounts on the price date (empty without time-of-day prices).
    off_peak: tuple[OffPeak, ...] = ()
    # False: a date alone of a row with time-of-day prices, priced at the day's standard rates
    # (agentcost.prices.daytime); True: the price date's time picked them, or the row has none.
    at_time: bool = True

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

    def price(self, usage: RequestUsage) -> RequestCost:
        """Price one whole request, fees included: the one place agentcost turns a request's usage
        into dollars (the accountant's pricer, replay, the price sheet's worked example).

        Tokens at the prices in force at ``source.as_of`` (:meth:`cost`'s arithmetic: genai-prices',
        to the last digit). Server-tool uses are priced by genai-prices where the model has a rate for
        them (``web_searches_kcount``, ``code_executions_kcount``), otherwise from facts.yaml
        ``server_tool_fees`` (web fetch $0, Anthropic code execution $0 per use, OpenAI code
        interpreter $0.03 per response...). Container time (``usage.container_seconds``) is priced
        from facts.yaml ``container_time`` (:func:`container_usd`); where the rate is unknown it adds
        nothing and ``container_usd`` is None, which reports show. Fees are part of ``total_usd`` and
        are ``fees_usd`` (each in ``fees``), never part of ``input_usd``/``output_usd``."""
        search, code, own, container = self._fees
        input_usd, output_usd, total_usd, uncached, read, write, write_1h, fees = self._request(
            usage.input_tokens,
            usage.output_tokens,
            usage.cache_read_tokens,
            usage.cache_write_tokens,
            usage.cache_write_1h_tokens,
            0 if search else usage.web_searches,
            0 if code else usage.code_executions,
        )
        # genai-prices puts per-use prices in total_price only (they have no input/output direction)
        fees_usd = total_usd - input_usd - output_usd
        if usage.web_searches or usage.web_fetches or usage.code_executions or usage.web_search_previews:
            uses = (
                ("web_search", usage.web_searches),
                ("web_fetch", usage.web_fetches),
                ("code_execution", usage.code_executions),
                ("web_search_preview", usage.web_search_previews),
            )
            mine = tuple((tool, own[tool] * n / 1000) for tool, n in uses if n and tool in own)
            fees_usd += sum((usd for _, usd in mine), _ZERO)
            fees += mine
        else:
            fees_usd += _ZERO  # the sum of no fees, as above
        box: Decimal | None = _ZERO
        if usage.container_seconds is not None:
            box = None if container is None else container_usd(container, usage.container_seconds)
            if box is not None:
                fees += (("container", box),)
            fees_usd += box or _ZERO
        total = input_usd + output_usd + fees_usd
        return RequestCost(input_usd, output_usd, total, fees_usd, box, uncached, read, write, write_1h, fees)

    def cost(self, usage: Usage) -> Cost:
        """genai-prices' figure for ``usage``: the input, output and total of :meth:`price`'s token
        arithmetic and genai-prices' own per-use prices (no facts.yaml fee), with :class:`PriceTable`
        (equal to genai-prices' ``calc_price`` to the last digit: tests/test_cache.py compares them
        on every model), else with genai-prices' price object."""
        input_usd, output_usd, total_usd, *_ = self._request(*usage.counts())
        return Cost(input_usd=input_usd, output_usd=output_usd, total_usd=total_usd)

    def _request(self, i: int, o: int, r: int, w: int, w1: int, web: int, code: int) -> Priced:
        """``Usage(i, o, r, w, w1, web, code)`` priced by the table (:meth:`PriceTable.request`),
        without building the Usage where the counts are plain (whole numbers >= 0, cache parts within
        the input, a 1-hour price for 1-hour writes) and the table has a compiled plan; anything else
        is checked first, with its errors, and priced by the table's general path or genai-prices."""
        table = self.table
        if (
            table is None
            or table._fast is None
            or not (type(i) is type(o) is type(r) is type(w) is type(w1) is type(web) is type(code) is int)
            or min(o, r, w, w1, web, code) < 0
            or r + w + w1 > i
            or (w1 and self.cache_write_1h_mtok is None)
        ):
            usage = Usage(i, o, r, w, w1, web, code)
            self._check_1h(usage)
            if table is None:
                return self._genai(usage)
        try:
            return table.request(i, o, r, w, w1, web, code)
        except ValueError as error:
            raise InputError(f"cannot price {self.model_id}: {error}") from None

    def _genai(self, usage: Usage) -> Priced:
        """Without a PriceTable: genai-prices' sums (:meth:`genai_cost`), the cached parts at
        :meth:`rates` (the request's tier; a cached part without a price of its own at the input
        rate, as genai-prices bills it), the uncached input what remains of the input."""
        cost = self.genai_cost(usage)
        rates = {r.key: r for r in self.rates()}
        n = usage.input_tokens

        def at(tokens: int, *keys: str) -> Decimal:
            if not tokens:
                return _ZERO
            rate = next((rates[k] for k in keys if k in rates), rates["input_mtok"])
            return rate.at(n) * tokens / rate.per

        read = at(usage.cache_read_tokens, "cache_read_mtok")
        write = at(usage.cache_write_tokens, "cache_write_5m_mtok", "cache_write_mtok")
        write_1h = at(usage.cache_write_1h_tokens, "cache_write_1h_mtok")
        fees = tuple(
            (name, rates[key].at(n) * _uses(usage, counted) / rates[key].per)
            for key, (name, counted) in _PER_USE.items()
            if key in rates and _uses(usage, counted)
        )
        uncached = cost.input_usd - read - write - write_1h
        return cost.input_usd, cost.output_usd, cost.total_usd, uncached, read, write, write_1h, fees

    @cached_property
    def _fees(self) -> tuple[bool, bool, dict[str, Decimal], ContainerRate | None]:
        """How :meth:`price` prices server-tool uses: whether facts.yaml prices web searches, and
        code executions (genai-prices has no rate for them), the facts.yaml fee of each tool it
        prices (USD per 1,000 uses; $0 where the provider lists none), and the container-time rate
        (None: unknown)."""
        from agentcost import facts

        try:
            priced = {rate.key for rate in self.rates()}
        except RuntimeError:  # no genai-prices price object (a user model): facts.yaml prices every tool
            priced = set()
        own: dict[str, Decimal] = {}
        for tool, key in _SERVER_TOOL_USAGE_KEYS.items():
            if key is None or f"{key}_kcount" not in priced:
                fee = facts.server_tool_fee(self.provider, self.rules_id, tool)
                own[tool] = fee.value.usd_per_1000 if fee is not None else _ZERO
        container = facts.container_time(self.provider, self.rules_id)
        rate = None if container is None else container.value
        return "web_search" in own, "code_execution" in own, own, rate

    def itemise(self, usage: Usage) -> Itemised:
        """One request's price line by line (``agentcost prices``' example): uncached input, cache
        reads, cache writes (5-minute, 1-hour), output, each the part :meth:`price` gives, at the rate
        the request pays (its long-context tier's where it crosses one). A cached part without a price
        of its own is billed at the input rate, and says so. The per-use prices the request pays (a
        per-request fee, server-tool uses) follow as :class:`FeeLine` s: the total is :meth:`price`'s."""
        cost = self.price(
            RequestUsage(
                usage.input_tokens,
                usage.output_tokens,
                usage.cache_read_tokens,
                usage.cache_write_tokens,
                usage.cache_write_1h_tokens,
                web_searches=usage.web_searches,
                code_executions=usage.code_executions,
            )
        )
        rates = {r.key: r for r in self.rates()}
        n = usage.input_tokens
        plain = rates["input_mtok"].at(n)
        cached = (usage.cache_read_tokens, usage.cache_write_tokens, usage.cache_write_1h_tokens)
        uncached = cost.input_usd if cost.uncached_input_usd is None else cost.uncached_input_usd
        lines = [CostLine("uncached input", n - sum(cached), plain, uncached)]
        for label, tokens, keys, usd in (
            ("cache read", cached[0], ("cache_read_mtok",), cost.cache_read_usd),
            (
                "cache write 5m" if self.provider == "anthropic" else "cache write",
                cached[1],
                ("cache_write_5m_mtok", "cache_write_mtok"),
                cost.cache_write_5m_usd,
            ),
            ("cache write 1h", cached[2], ("cache_write_1h_mtok",), cost.cache_write_1h_usd),
        ):
            if tokens:
                rate = next((rates[k] for k in keys if k in rates), None)
                if rate is None:
                    lines.append(CostLine(label, tokens, plain, usd, NO_PRICE))
                else:
                    lines.append(CostLine(label, tokens, rate.at(n), usd))
        lines.append(CostLine("output", usage.output_tokens, rates["output_mtok"].at(n), cost.output_usd))
        fee_lines = tuple(self._fee_line(name, usd, usage, rates) for name, usd in cost.fees)
        total = sum((line.usd for line in lines), _ZERO) + sum((fee.usd for fee in fee_lines), _ZERO)
        return Itemised(tuple(lines), total, Cost(cost.input_usd, cost.output_usd, cost.total_usd), fee_lines)

    def _fee_line(self, name: str, usd: Decimal, usage: Usage, rates: dict[str, Rate]) -> FeeLine:
        """The worked line of one fee :meth:`price` gave (``name``, ``usd``): genai-prices' per-use
        rate where the model has one, else facts.yaml's (:attr:`_fees`)."""
        key = next((k for k, (fee, _) in _PER_USE.items() if fee == name), None)
        if key is not None and key in rates:
            rate = rates[key]
            uses = _uses(usage, _PER_USE[key][1])
            return FeeLine(rate.label, uses, rate.per, rate.at(usage.input_tokens), usd)
        counted = {"web_search": usage.web_searches, "code_execution": usage.code_executions}
        own = self._fees[2]
        return FeeLine(_OWN_FEE_LABELS.get(name, name), counted.get(name, 0), 1000, own.get(name, _ZERO), usd)

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
