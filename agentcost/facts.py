"""Billing facts genai-prices does not carry, each with the public page it was read from and the date.

The data lives in ONE file, ``facts.yaml`` next to this module, edited by hand; a run reads it, once,
from ``facts_data.py``, generated from it by :data:`WRITE_DATA` (no YAML parser on a run). Each
fact carries a public ``url`` and ``read`` date (what reports show), an optional public ``note`` (a
quote, or why a default was chosen) and an optional ``provenance`` in agentcost's internal reference
notes, kept for maintainers and never shown. Rows are matched by
genai-prices model id: an exact id wins, then the longest prefix pattern (``"claude-opus-5*"``), then
``"*"`` (a documented default), then a ``provider: "*"`` row (a default for makers without rows of
their own); an id with a date or version suffix (``-20250929``, ``@20250929``,
``-v1:0``) also matches the rows of the id without it. Facts about a model are looked up in its
maker's rows: Claude ids in the anthropic rows whatever provider serves them (Claude on Vertex has
``claude-*`` ids under genai-prices' ``google`` provider, Claude on Bedrock ``aws``), OpenAI ids in
the openai rows. Facts about a host (:data:`HOST_TABLES`: how the serving provider caches and
batches) are looked up in the serving provider's rows only; the minimum cacheable length in the
serving provider's rows, then the maker's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import date
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from agentcost.errors import InputError
from agentcost.infra.record import record

if TYPE_CHECKING:
    import yaml

T = TypeVar("T")

FACTS_FILE = "facts.yaml"
WRITE_DATA = "python -m agentcost.facts --write-data"
"""The command that regenerates ``facts_data.py`` after facts.yaml is edited."""
TABLES = (
    "anthropic_tool_prompt_tokens",
    "token_ratio",
    "min_cacheable_tokens",
    "thinking_retention",
    "server_tool_fees",
    "server_tool_free_quota",
    "server_tool_iteration_cap",
    "caching_kind",
    "cache_ttl",
    "cache_writes_extra",
    "batch_api",
    "tool_search",
)
HOST_TABLES = ("caching_kind", "cache_ttl", "cache_writes_extra", "batch_api")
"""Tables about the provider serving a model, read for that provider only."""
HOST_THEN_MAKER_TABLES = ("min_cacheable_tokens",)
"""Tables read for the serving provider (Azure's own page), then for the model's maker (Claude's
minimums on Bedrock are Anthropic's)."""
ANY_PROVIDER = "*"
"""A row's ``provider: "*"``: a documented default for models whose maker has no row of its own."""
_PROVIDER_ID = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")  # a genai-prices provider id
_SUFFIX = re.compile(r"(?:[-@]\d{8}|-v?\d+:\d+)$")  # -20250929, @20250929, -v1:0, -1:0
_ROW_KEYS = {"provider", "models", "value", "url", "read"}  # required
_OPTIONAL_KEYS = {"note", "provenance"}
_DEFAULT_MARKS = ("DEFAULT", "WEAK EVIDENCE")  # a note starting so: not a published value


@record
class Fact(Generic[T]):
    """One value with the public page it was read from (``url``), when (``read``), an optional public
    ``note``, and the internal ``provenance`` (for maintainers and tests; never shown)."""

    value: T
    url: str
    read: date
    note: str | None = None
    provenance: str | None = None

    @property
    def source(self) -> str:
        """The public citation: the URL, and the note when there is one."""
        return self.url if self.note is None else f"{self.url} ({self.note})"

    @property
    def cite(self) -> str:
        """``URL, read YYYY-MM-DD``: what a report line cites."""
        return f"{self.url}, read {self.read.isoformat()}"


@record
class _Row:
    """One fact as stored: its table, provider, models, value and source (URL and date read)."""

    table: str
    provider: str
    models: tuple[str, ...]
    value: Any
    url: str
    read: date
    note: str | None = None
    provenance: str | None = None

    def fact(self, value: T) -> Fact[T]:
        return Fact(value, self.url, self.read, self.note, self.provenance)


class FactsDataError(Exception):
    """facts.yaml is malformed: a packaging bug, not bad user input."""


def facts_text() -> str:
    """The raw text of facts.yaml (for tests and for showing sources)."""
    from importlib import resources

    return resources.files(__package__).joinpath(FACTS_FILE).read_text(encoding="utf-8")


def _loader() -> type[yaml.SafeLoader]:
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@lru_cache(maxsize=1)
def _rows() -> dict[str, tuple[_Row, ...]]:
    """The tables, read once per process when a fact is first asked for, from ``facts_data.py``
    (facts.yaml as :func:`_parse` read and checked it; no YAML parser on a run)."""
    from agentcost import facts_data

    return {name: tuple(_Row(name, *row) for row in rows) for name, rows in facts_data.TABLES.items()}


def data_module_text() -> str:
    """The text of ``facts_data.py``: facts.yaml parsed and checked by :func:`_parse`, row by row
    (:func:`_rows` reads it back)."""
    from agentcost.infra.pysource import Assignment, module_text

    tables = {
        name: tuple((r.provider, r.models, r.value, r.url, r.read, r.note, r.provenance) for r in rows)
        for name, rows in _parse(facts_text()).items()
    }
    row = "tuple[str, tuple[str, ...], Any, str, date, str | None, str | None]"
    return module_text(
        source=f"agentcost/{FACTS_FILE}",
        command=WRITE_DATA,
        purpose="Each table's rows in the file's order: (provider, models, value, url, read, note,"
        " provenance).",
        assignments=[Assignment("TABLES", f"dict[str, tuple[{row}, ...]]", tables)],
    )


def _parse(text: str) -> dict[str, tuple[_Row, ...]]:
    import yaml

    data = yaml.load(text, Loader=_loader())
    if not isinstance(data, dict) or data.get("version") != 1:
        raise FactsDataError(f"{FACTS_FILE}: expected a mapping with 'version: 1'")
    tables = data.get("tables")
    if not isinstance(tables, dict):
        raise FactsDataError(f"{FACTS_FILE}: 'tables' must be a mapping")
    out: dict[str, tuple[_Row, ...]] = {}
    for name, rows in tables.items():
        if not isinstance(rows, list):
            raise FactsDataError(f"{FACTS_FILE}: tables.{name} must be a list")
        out[str(name)] = tuple(_parse_row(str(name), i, row) for i, row in enumerate(rows))
    missing = [t for t in TABLES if t not in out]
    if missing:
        raise FactsDataError(f"{FACTS_FILE}: missing tables {missing}")
    return out


def _parse_row(table: str, index: int, row: object) -> _Row:
    where = f"{FACTS_FILE}: tables.{table}[{index}]"
    if not isinstance(row, dict) or not _ROW_KEYS <= set(row) <= _ROW_KEYS | _OPTIONAL_KEYS:
        raise FactsDataError(
            f"{where}: a row has the keys {sorted(_ROW_KEYS)}, and may have {sorted(_OPTIONAL_KEYS)}"
        )
    provider, models, url, read = row["provider"], row["models"], row["url"], row["read"]
    if not isinstance(provider, str) or not (provider == ANY_PROVIDER or _PROVIDER_ID.match(provider)):
        raise FactsDataError(f"{where}: provider must be a genai-prices provider id, got {provider!r}")
    if not isinstance(models, list) or not models or not all(isinstance(m, str) for m in models):
        raise FactsDataError(f"{where}: models must be a non-empty list of strings")
    if not isinstance(url, str) or not url.startswith("https://") or len(url.split()) != 1:
        raise FactsDataError(f"{where}: url must be one https:// address")
    if not isinstance(read, date):
        raise FactsDataError(f"{where}: read must be a date (YYYY-MM-DD)")
    texts: dict[str, str | None] = {}
    for key in sorted(_OPTIONAL_KEYS):
        text = row.get(key)
        if text is not None and (not isinstance(text, str) or not text.strip()):
            raise FactsDataError(f"{where}: {key} must be a non-empty string when given")
        texts[key] = None if text is None else " ".join(text.split())
    return _Row(table, provider, tuple(models), row["value"], url, read, texts["note"], texts["provenance"])


_OPENAI_IDS = re.compile(r"^(?:gpt-(?!oss)|o[1-9]|chatgpt-|codex-)")


def _maker(provider: str, model_id: str) -> str:
    """Whose rows apply: the model's maker, not the serving provider (Claude and OpenAI models on
    any host, Gemini and Gemma on Vertex...)."""
    if model_id.startswith("claude-"):
        return "anthropic"
    if model_id.startswith(("gemini-", "gemma-")):
        return "google"
    if _OPENAI_IDS.match(model_id):
        return "openai"
    return provider


def _match_rank(pattern: str, model_id: str) -> int | None:
    """Higher is more specific; None when the pattern does not match."""
    if pattern.endswith("*"):
        prefix = pattern[:-1]
        return len(prefix) if model_id.startswith(prefix) else None
    return 1_000_000 if pattern == model_id else None


def _ids(model_id: str) -> tuple[str, ...]:
    """The id, and the id without its date or version suffixes (``claude-sonnet-4-5-20250929`` ->
    ``claude-sonnet-4-5``; ``anthropic.claude-sonnet-4-5-20250929-v1:0`` -> ``...-4-5``)."""
    ids = [model_id]
    while (stripped := _SUFFIX.sub("", ids[-1])) != ids[-1] and stripped:
        ids.append(stripped)
    return tuple(ids)


def _best(table: str, owner: str, model_id: str, tool: str | None) -> _Row | None:
    """The best row of ``owner`` for the model (the id as given wins a tie with a stripped one)."""
    best: tuple[int, _Row] | None = None
    for candidate in _ids(model_id):
        for row in _rows()[table]:
            if row.provider != owner:
                continue
            if tool is not None and not (isinstance(row.value, Mapping) and row.value.get("tool") == tool):
                continue
            for pattern in row.models:
                rank = _match_rank(pattern, candidate)
                if rank is not None and (best is None or rank > best[0]):
                    best = (rank, row)
    return best[1] if best else None


def _lookup(table: str, provider: str, model_id: str, *, tool: str | None = None) -> _Row | None:
    """The best row for the model; with ``tool``, only rows whose value names that tool. Host tables
    (:data:`HOST_TABLES`) are read for the serving provider itself: Claude on Bedrock caches as
    Bedrock says, not as Anthropic's own API does."""
    maker = _maker(provider, model_id)
    if table in HOST_TABLES:
        owners: tuple[str, ...] = (provider,)
    elif table in HOST_THEN_MAKER_TABLES:
        owners = (provider, maker)
    else:
        owners = (maker,)
    for owner in (*dict.fromkeys(owners), ANY_PROVIDER):
        row = _best(table, owner, model_id, tool)
        if row is not None:
            return row
    return None


def _int(row: _Row, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise FactsDataError(f"{FACTS_FILE}: tables.{row.table}: {value!r} is not an integer")
    return value


def _decimal(row: _Row, value: object) -> Decimal:
    if not isinstance(value, str):
        raise FactsDataError(f"{FACTS_FILE}: tables.{row.table}: write decimals as strings, got {value!r}")
    try:
        return Decimal(value)
    except InvalidOperation:
        raise FactsDataError(f"{FACTS_FILE}: tables.{row.table}: bad decimal {value!r}") from None


def _field(row: _Row, key: str) -> object:
    if not isinstance(row.value, Mapping) or key not in row.value:
        raise FactsDataError(f"{FACTS_FILE}: tables.{row.table}: value lacks {key!r}")
    return row.value[key]


_TOOL_CHOICE_COLUMN = {"auto": "auto_none", "none": "auto_none", "any": "any_tool", "tool": "any_tool"}


def anthropic_tool_prompt_tokens(model_id: str, tool_choice: str) -> Fact[int] | None:
    """Tokens of Anthropic's hidden tool-use system prompt for this model and ``tool_choice``.

    ``auto``/``none`` and ``any``/``tool`` share a column each. ``None`` when the model's value is
    not published (e.g. Fable 5.x, Opus 5.5): the caller then uses its documented fallback.
    """
    column = _TOOL_CHOICE_COLUMN.get(tool_choice)
    if column is None:
        raise InputError(
            f"unknown tool_choice {tool_choice!r}",
            key="tool_choice",
            hint="one of: " + ", ".join(_TOOL_CHOICE_COLUMN),
        )
    row = _lookup("anthropic_tool_prompt_tokens", "anthropic", model_id)
    if row is None:
        return None
    return row.fact(_int(row, _field(row, column)))


def token_ratio(provider: str, model_id: str, kind: Literal["prose", "json"]) -> Fact[Decimal]:
    """The model's tokens per o200k_base token for this kind of text (1 for OpenAI: exact)."""
    row = _lookup("token_ratio", provider, model_id)
    if row is None:
        raise FactsDataError(f"{FACTS_FILE}: no token_ratio row for {provider}/{model_id}")
    return row.fact(_decimal(row, _field(row, kind)))


def min_cacheable_tokens(provider: str, model_id: str) -> Fact[int]:
    """The shortest prefix the provider caches for this model (a documented default if unknown)."""
    row = _lookup("min_cacheable_tokens", provider, model_id)
    if row is None:
        raise FactsDataError(f"{FACTS_FILE}: no min_cacheable_tokens row for {provider}/{model_id}")
    return row.fact(_int(row, row.value))


Retention = Literal["all", "last_turn", "none"]
ServerTool = Literal["web_search", "web_fetch", "code_execution"]
SERVER_TOOLS: tuple[ServerTool, ...] = ("web_search", "web_fetch", "code_execution")
FEE_TOOLS: tuple[str, ...] = (*SERVER_TOOLS, "web_search_preview")
"""The tools ``server_tool_fees`` prices: a scenario's server tools, and OpenAI's web search preview
(the per-call fee of its Chat Completions search models; agentcost.prices.billing)."""
_RETENTIONS: tuple[Retention, ...] = ("all", "last_turn", "none")


@record
class ServerToolFee:
    """What one server-side tool costs: ``usd_per_1000`` per use, or per response that uses it
    (``per="request"``: Gemini 2.5 bills a grounded prompt once whatever its number of queries)."""

    usd_per_1000: Decimal
    per: Literal["use", "request"]


@record
class FreeQuota:
    """A provider's free allowance of a server tool, shared org- or project-wide (``scope``)."""

    amount: int
    per: Literal["use", "request", "hour"]
    period: Literal["day", "month"]
    scope: str


def _choice(row: _Row, value: object, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise FactsDataError(f"{FACTS_FILE}: tables.{row.table}: {value!r} is not one of {allowed}")
    return str(value)


def thinking_retention(provider: str, model_id: str) -> Fact[Retention]:
    """Whether earlier turns' thinking is re-sent (and billed as input) in later requests:
    ``all`` turns, only the ``last_turn``, or ``none`` (a documented default where not found)."""
    row = _lookup("thinking_retention", provider, model_id)
    if row is None:
        raise FactsDataError(f"{FACTS_FILE}: no thinking_retention row for {provider}/{model_id}")
    value: Retention
    if row.value == "all":
        value = "all"
    elif row.value == "last_turn":
        value = "last_turn"
    else:
        _choice(row, row.value, _RETENTIONS)
        value = "none"
    return row.fact(value)


def server_tool_fee(provider: str, model_id: str, tool: str) -> Fact[ServerToolFee] | None:
    """The fee of a server-side tool on this model; ``None`` when the provider does not offer it."""
    row = _lookup("server_tool_fees", provider, model_id, tool=tool)
    if row is None:
        return None
    per = _choice(row, _field(row, "per"), ("use", "request"))
    fee = ServerToolFee(
        usd_per_1000=_decimal(row, _field(row, "usd_per_1000")),
        per="request" if per == "request" else "use",
    )
    return row.fact(fee)


def server_tool_free_quota(provider: str, model_id: str, tool: str) -> Fact[FreeQuota] | None:
    """The free allowance of a server tool on this model, ``None`` when there is none."""
    row = _lookup("server_tool_free_quota", provider, model_id, tool=tool)
    if row is None:
        return None
    per = _choice(row, _field(row, "per"), ("use", "request", "hour"))
    period = _choice(row, _field(row, "period"), ("day", "month"))
    scope = _field(row, "scope")
    if not isinstance(scope, str):
        raise FactsDataError(f"{FACTS_FILE}: tables.{row.table}: scope must be a string")
    quota = FreeQuota(
        amount=_int(row, _field(row, "amount")),
        per="use" if per == "use" else "request" if per == "request" else "hour",
        period="day" if period == "day" else "month",
        scope=scope,
    )
    return row.fact(quota)


def server_tool_iteration_cap(provider: str, model_id: str) -> Fact[int] | None:
    """Server-tool iterations one request may run before ``pause_turn`` (Anthropic: 10); ``None``
    for providers without such a cap."""
    row = _lookup("server_tool_iteration_cap", provider, model_id)
    if row is None:
        return None
    return row.fact(_int(row, row.value))


@record
class ContainerRate:
    """What the container of code execution costs by time: ``usd_per_hour``, billed per request that
    runs code for at least ``minimum_seconds``; ``free_hours`` per ``free_period`` are the
    organization's (shared by every run, so never applied to one)."""

    usd_per_hour: Decimal
    minimum_seconds: int
    free_hours: int | None = None
    free_period: Literal["day", "month"] | None = None


def container_time(provider: str, model_id: str, tool: str = "code_execution") -> Fact[ContainerRate] | None:
    """The container-time rate of a server tool on this model; ``None`` when it is unknown (reports
    say so instead of pricing it at $0)."""
    row = _lookup("container_time", provider, model_id, tool=tool)
    if row is None:
        return None
    free = _field(row, "free_hours")
    period = _field(row, "free_period")
    per: Literal["day", "month"] | None = None
    if period is not None:
        per = "day" if _choice(row, period, ("day", "month")) == "day" else "month"
    rate = ContainerRate(
        usd_per_hour=_decimal(row, _field(row, "usd_per_hour")),
        minimum_seconds=_int(row, _field(row, "minimum_seconds")),
        free_hours=None if free is None else _int(row, free),
        free_period=per,
    )
    return row.fact(rate)


def is_default(fact: Fact[Any]) -> bool:
    """True when the fact comes from a documented default row rather than a published value (its note
    starts with DEFAULT or WEAK EVIDENCE)."""
    return fact.note is not None and fact.note.startswith(_DEFAULT_MARKS)


def table_rows(table: str) -> Sequence[Mapping[str, object]]:
    """The rows of one table as plain mappings (for `agentcost prices` and tests); ``source`` is the
    public citation (:attr:`Fact.source`)."""
    return [
        {
            "provider": r.provider,
            "models": r.models,
            "value": r.value,
            "url": r.url,
            "note": r.note,
            "provenance": r.provenance,
            "source": r.fact(r.value).source,
            "read": r.read,
        }
        for r in _rows()[table]
    ]


def gemini_cache_storage_usd_per_mtok_hour(model_id: str, as_of: date | None = None) -> Fact[Decimal] | None:
    """USD per million tokens per hour of storage of a Gemini explicit cache (``CachedContent``) at
    ``as_of`` (default: the price before any dated change); ``None`` when no storage price is known
    (e.g. implicit-caching-only models)."""
    if "gemini_cache_storage" not in _rows():
        return None
    row = _lookup("gemini_cache_storage", "google", model_id)
    if row is None:
        return None
    price = _decimal(row, _field(row, "usd_per_mtok_hour"))
    if isinstance(row.value, Mapping) and "then" in row.value:
        start = _field(row, "from")
        if not isinstance(start, date):
            raise FactsDataError(f"{FACTS_FILE}: tables.{row.table}: 'from' must be a date")
        if as_of is not None and as_of >= start:
            price = _decimal(row, _field(row, "then"))
    return row.fact(price)


def context_window(provider: str, model_id: str) -> Fact[int] | None:
    """The model's context window (input tokens) where genai-prices has none; ``None`` if unknown."""
    if "context_window" not in _rows():
        return None
    row = _lookup("context_window", provider, model_id)
    if row is None:
        return None
    return row.fact(_int(row, row.value))


def release_date(provider: str, model_id: str) -> Fact[date] | None:
    """The day the model was released (a price date before it is suspect); ``None`` if unknown."""
    if "release_date" not in _rows():
        return None
    row = _lookup("release_date", provider, model_id)
    if row is None:
        return None
    if not isinstance(row.value, date):
        raise FactsDataError(f"{FACTS_FILE}: tables.{row.table}: {row.value!r} is not a date")
    return row.fact(row.value)


# --- host mechanics: how the serving provider caches and batches ------------------------------------

CachingKind = Literal["automatic-prefix", "explicit", "implicit", "none", "unknown"]
CACHING_KINDS: tuple[CachingKind, ...] = ("automatic-prefix", "explicit", "implicit", "none", "unknown")


@record
class HostMechanics:
    """How the provider serving a model caches prompts and batches requests, each fact with its page
    (``None``: no public page was found, the fact is unknown). Discounts are not here: cache-read,
    cache-write and batch prices are genai-prices'."""

    provider: str  # the serving provider (genai-prices id)
    kind: Fact[CachingKind] | None
    min_tokens: Fact[int] | None  # the shortest prefix cached
    ttl_seconds: Fact[int] | None  # how long an unused entry lives
    writes_extra: Fact[bool] | None  # written entries cost more than plain input
    batch: Fact[bool] | None  # an asynchronous batch API exists

    @property
    def caching(self) -> CachingKind:
        """The caching kind, ``unknown`` when no page says."""
        return "unknown" if self.kind is None else self.kind.value


def _kind(row: _Row) -> CachingKind:
    for kind in CACHING_KINDS:
        if row.value == kind and kind != "unknown":
            return kind
    raise FactsDataError(
        f"{FACTS_FILE}: tables.{row.table}: {row.value!r} is not one of {CACHING_KINDS[:-1]}"
        " (unknown: no row)"
    )


def _bool(row: _Row) -> bool:
    if not isinstance(row.value, bool):
        raise FactsDataError(f"{FACTS_FILE}: tables.{row.table}: {row.value!r} is not true or false")
    return row.value


def caching_kind(provider: str, model_id: str) -> Fact[CachingKind] | None:
    """How ``provider`` caches prompts for this model; ``None`` when no page says (unknown)."""
    row = _lookup("caching_kind", provider, model_id)
    return None if row is None else row.fact(_kind(row))


def cache_minimum(provider: str, model_id: str) -> Fact[int] | None:
    """The shortest prefix ``provider`` caches for this model (``min_cacheable_tokens``, the maker's
    rows); ``None`` when no page gives one."""
    row = _lookup("min_cacheable_tokens", provider, model_id)
    return None if row is None else row.fact(_int(row, row.value))


def host_mechanics(provider: str, model_id: str) -> HostMechanics:
    """Every caching and batch fact of ``provider`` serving ``model_id``."""
    ttl = _lookup("cache_ttl", provider, model_id)
    writes = _lookup("cache_writes_extra", provider, model_id)
    batch = _lookup("batch_api", provider, model_id)
    return HostMechanics(
        provider=provider,
        kind=caching_kind(provider, model_id),
        min_tokens=cache_minimum(provider, model_id),
        ttl_seconds=None if ttl is None else ttl.fact(_int(ttl, ttl.value)),
        writes_extra=None if writes is None else writes.fact(_bool(writes)),
        batch=None if batch is None else batch.fact(_bool(batch)),
    )


# --- tool search (defer_loading) --------------------------------------------------------------------

NAME_DESCRIPTION = "name_description"
"""A deferred tool's stub on OpenAI: its name and description stay in the prompt."""


@record
class ToolSearch:
    """Whether the model has tool search, how it runs, and what a deferred tool costs until a search
    loads it: ``stub`` tokens each (Anthropic), or :data:`NAME_DESCRIPTION` (OpenAI); ``None`` when
    the model has no tool search."""

    supported: bool
    server_side: bool = (
        False  # the provider runs the search (Anthropic's regex/BM25 tool, OpenAI's hosted one)
    )
    client_side: bool = False  # the caller runs it and returns the definitions
    stub: int | Literal["name_description"] | None = None


def tool_search(provider: str, model_id: str) -> Fact[ToolSearch] | None:
    """Tool search on this model (the maker's rows); ``None`` when no page says (unknown)."""
    row = _lookup("tool_search", provider, model_id)
    if row is None:
        return None
    supported = _field(row, "supported")
    if not isinstance(supported, bool):
        raise FactsDataError(f"{FACTS_FILE}: tables.{row.table}: supported must be true or false")
    if not supported:
        return row.fact(ToolSearch(False))
    flags = [_field(row, key) for key in ("server_side", "client_side")]
    if not all(isinstance(flag, bool) for flag in flags):
        raise FactsDataError(
            f"{FACTS_FILE}: tables.{row.table}: server_side and client_side are true or false"
        )
    raw = _field(row, "stub")
    stub: int | Literal["name_description"] = (
        "name_description" if raw == NAME_DESCRIPTION else _int(row, raw)
    )
    return row.fact(ToolSearch(True, bool(flags[0]), bool(flags[1]), stub))


def tool_search_models(provider: str, model_id: str) -> tuple[str, ...]:
    """The model patterns with tool search among the model's maker's rows, or every maker's when
    its maker has none (for the message refusing ``defer_loading``)."""
    rows = [
        r for r in _rows()["tool_search"] if isinstance(r.value, Mapping) and r.value.get("supported") is True
    ]
    maker = _maker(provider, model_id)
    own = [r for r in rows if r.provider == maker] or rows
    return tuple(m for r in own for m in r.models)


# --- active tools (how many functions a request should carry) --------------------------------------


@record
class ActiveToolsGuidance:
    """A maker's published advice on how many functions a request should have active: at most
    ``max_active``, in the guide's words ``advice`` (e.g. "fewer than 20 functions at the start of a
    turn")."""

    max_active: int
    advice: str


def active_tools_guidance(provider: str, model_id: str) -> Fact[ActiveToolsGuidance] | None:
    """The model's maker's advice on active tools (facts.yaml ``active_tools_guidance``); ``None``
    when the maker publishes no number (unknown: nothing is flagged)."""
    if "active_tools_guidance" not in _rows():
        return None
    row = _lookup("active_tools_guidance", provider, model_id)
    if row is None:
        return None
    advice = _field(row, "advice")
    if not isinstance(advice, str):
        raise FactsDataError(f"{FACTS_FILE}: tables.{row.table}: advice must be a text")
    return row.fact(ActiveToolsGuidance(_int(row, _field(row, "max_active")), advice))


if __name__ == "__main__":
    import sys
    from pathlib import Path

    from agentcost.infra.pysource import write_main

    target = Path(__file__).with_name("facts_data.py")
    sys.exit(write_main(sys.argv[1:], target, data_module_text, WRITE_DATA))
