"""genai-prices' models, every provider: which rows agentcost can estimate, and why not the others.

genai-prices has no modality field, so a row is a text-generation chat model when it has per-token
input AND output prices and neither its id nor its name matches :data:`NOT_CHAT_PATTERNS`
(:class:`CatalogEntry`). Each provider's rows are classified once, on first use (:func:`entries`;
a dict build, no cross-provider scan). Whether genai-prices finds a row again by an id
(:func:`ref_of`: its own id, else one its match clauses name, such as Bedrock's
``anthropic.claude-...`` for a ``regional.`` row or Fireworks' ``accounts/fireworks/models/...``)
is worked out per row only when asked: listings, suggestions and the price-equality test.
"""

from __future__ import annotations

import re
from dataclasses import field
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any, Literal

from agentcost.infra.record import record
from agentcost.prices.gpdata import MAIN_PROVIDERS, snapshot
from agentcost.prices.hosts import PROVIDER_ALIASES

if TYPE_CHECKING:
    from collections.abc import Iterable

    from genai_prices.types import ModelInfo, ModelPrice, Provider

# Models that do not generate text from a chat prompt, told by their id or name (genai-prices has no
# modality field; the research for issue 15 read every row's id and name, 2,330 rows of 0.2.3).
# Each pattern is searched case-insensitively in "<id> <name>"; the word says what the model is.
# A row that matches is "not a chat model": listed, priced by its tokens if it has token prices,
# but never picked by a glob in `compare`.
NOT_CHAT_PATTERNS: tuple[tuple[str, str], ...] = (
    (r"embed|(?<![a-z])(bge|gte|e5|nomic|jina|clip)(?![a-z])", "embeddings"),
    (r"voyage", "embeddings"),
    (r"rerank", "reranking"),
    (r"moderation|(?<![a-z])guard(?![a-z])|prompt-guard|llama-guard", "moderation"),
    (r"whisper|transcri|(?<![a-z])asr(?![a-z])|voxtral", "speech to text"),
    (r"(?<![a-z])tts(?![a-z])|text-to-speech|speech|eleven_|orpheus|(?<![a-z])sonic(?![a-z])", "speech"),
    (r"realtime|(?<![a-z])live(?![a-z])|(?<![a-z])audio(?![a-z])", "realtime audio"),
    (r"dall-e|imagen|(?<![a-z])image(?![a-z])|flux|stable-diffusion|sdxl|nano-banana", "images"),
    (r"(?<![a-z])(veo|sora|lyria)(?![a-z])", "video or music"),
    (r"(?<![a-z])ocr(?![a-z])|document-ai|layout", "document reading"),
    (r"search-api", "search"),
)


@lru_cache(maxsize=1)
def _not_chat() -> tuple[tuple[re.Pattern[str], str], ...]:
    return tuple((re.compile(pattern, re.IGNORECASE), word) for pattern, word in NOT_CHAT_PATTERNS)


def not_chat_kind(model_id: str, name: str | None = None) -> str | None:
    """What a model does instead of chat, by its id and name (``"embeddings"``, ``"speech"``, ...;
    :data:`NOT_CHAT_PATTERNS`), or None for a text-generation model."""
    text = f"{model_id} {name or ''}"
    return next((word for pattern, word in _not_chat() if pattern.search(text)), None)


Kind = Literal["chat", "not-chat", "no-token-prices", "free"]
WHY: dict[str, str] = {
    "no-token-prices": "no per-token input and output prices",
    "free": "a free row: genai-prices lists no prices for it",
    "unreachable": "genai-prices finds it only by longer ids (e.g. with a fine-tune suffix)",
}


@record
class CatalogEntry:
    """One genai-prices model row, classified.

    ``kind``: ``chat`` (per-token input and output prices), ``not-chat`` (token prices, but its id
    or name says embeddings, speech, images... :data:`NOT_CHAT_PATTERNS`), ``no-token-prices``
    (priced per request, per character, or input only), ``free`` (no prices at all)."""

    provider: str
    model_id: str
    name: str
    kind: Kind
    context_window: int | None
    deprecated: bool
    not_chat: str | None = None  # what a not-chat row is ("embeddings", "speech", ...)
    time_of_day: bool = False  # some price applies by the time of day (DeepSeek's peak hours)
    info: ModelInfo | None = field(default=None, repr=False, compare=False)

    @property
    def priced(self) -> bool:
        """Whether it has per-token input and output prices (what an estimate needs)."""
        return self.kind in ("chat", "not-chat")

    @property
    def ref(self) -> str | None:
        """An id genai-prices finds this row by (:func:`ref_of`)."""
        return ref_of(self)

    @property
    def estimable(self) -> bool:
        """Whether agentcost can estimate with it: token prices, and an id that finds it."""
        return self.priced and self.ref is not None

    @property
    def chat(self) -> bool:
        """An estimable text-generation chat model (what ``compare`` globs pick)."""
        return self.kind == "chat" and self.estimable

    @property
    def why_code(self) -> str | None:
        """``no-token-prices``, ``free``, ``unreachable`` (cannot be estimated), ``not-chat``
        (estimable, not a chat model), or None (an estimable chat model)."""
        if not self.priced:
            return self.kind
        if self.ref is None:
            return "unreachable"
        return "not-chat" if self.kind == "not-chat" else None

    @property
    def why(self) -> str | None:
        """Why it cannot be estimated (None if it can; a not-chat row says what it is)."""
        code = self.why_code
        if code == "not-chat":
            return f"not a chat model ({self.not_chat})"
        return None if code is None else WHY[code]


# --------------------------------------------------------------------------------------------
# Providers
# --------------------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _providers() -> dict[str, Provider]:
    return {p.id: p for p in snapshot().providers}


def provider_ids() -> tuple[str, ...]:
    """Every genai-prices provider id, in its data's order."""
    return tuple(_providers())


def provider(pid: str) -> Provider:
    """genai-prices' provider ``pid`` (an exact id: :func:`find_provider` reads aliases)."""
    return _providers()[pid]


def find_provider(name: str) -> str | None:
    """The provider id ``name`` names: an id (``deepseek``), else an alias genai-prices knows
    (``bedrock`` -> aws, ``xai`` -> x-ai, ``vertex_ai`` -> google, ``together_ai`` -> together), else
    one of agentcost's own (:data:`agentcost.prices.hosts.PROVIDER_ALIASES`: ``fireworks_ai``)."""
    wanted = name.strip().lower()
    if not wanted:
        return None
    if wanted in _providers():
        return wanted
    if wanted in PROVIDER_ALIASES:
        return PROVIDER_ALIASES[wanted]
    from genai_prices.data_snapshot import find_provider_by_id

    found = find_provider_by_id(snapshot().providers, wanted)
    return None if found is None else str(found.id)


def provider_name(pid: str) -> str:
    """The provider's display name (``AWS Bedrock``)."""
    return str(provider(pid).name or pid)


# --------------------------------------------------------------------------------------------
# Rows
# --------------------------------------------------------------------------------------------


def _price_sets(info: ModelInfo) -> list[ModelPrice]:
    from genai_prices.types import ModelPrice

    if isinstance(info.prices, ModelPrice):
        return [info.prices]
    return [p.prices for p in info.prices]


def latest_price(info: ModelInfo) -> ModelPrice:
    """The row's last listed price set (its newest): what the catalog classifies it by."""
    return _price_sets(info)[-1]


def _has_time_of_day(info: ModelInfo) -> bool:
    from genai_prices.types import ConditionalPrice, TimeOfDateConstraint

    constraints: list[Any] = [v.constraint for v in info.price_variants or ()]
    if isinstance(info.prices, list):
        constraints += [p.constraint for p in info.prices if isinstance(p, ConditionalPrice)]
    return any(isinstance(c, TimeOfDateConstraint) for c in constraints)


def _classify(pid: str, info: ModelInfo) -> CatalogEntry:
    price = latest_price(info)
    given = [k for k, v in price.__dict__.items() if v is not None and not k.startswith("_")]
    not_chat = None
    if not given:
        kind: Kind = "free"
    elif price.input_mtok is None or price.output_mtok is None:
        kind = "no-token-prices"
    else:
        not_chat = not_chat_kind(info.id, info.name)
        kind = "chat" if not_chat is None else "not-chat"
    return CatalogEntry(
        provider=pid,
        model_id=info.id,
        name=info.name or info.id,
        kind=kind,
        context_window=info.context_window,
        deprecated=bool(info.deprecated),
        not_chat=not_chat,
        time_of_day=_has_time_of_day(info),
        info=info,
    )


@cache
def entries(pid: str) -> tuple[CatalogEntry, ...]:
    """Every row of provider ``pid``, classified, in genai-prices' order (built once)."""
    return tuple(_classify(pid, info) for info in provider(pid).models)


@cache
def by_id(pid: str) -> dict[str, CatalogEntry]:
    """Provider ``pid``'s rows by their id, lowercased (the first row of an id wins)."""
    index: dict[str, CatalogEntry] = {}
    for entry in entries(pid):
        index.setdefault(entry.model_id.lower(), entry)
    return index


@cache
def rows_by_id(pid: str) -> dict[str, ModelInfo]:
    """Provider ``pid``'s rows by their id, lowercased, unclassified (cheap: what lookups use)."""
    index: dict[str, ModelInfo] = {}
    for info in provider(pid).models:
        index.setdefault(info.id.lower(), info)
    return index


def entry_of(pid: str, info: ModelInfo) -> CatalogEntry:
    """The catalog entry of one of provider ``pid``'s rows (classified on its own)."""
    return _classify(pid, info)


def owner_of(info: ModelInfo, first: str) -> str:
    """The provider whose rows hold ``info`` (``first`` when it does, else a fallback provider)."""
    if any(m is info for m in provider(first).models):
        return first
    for pid in provider(first).fallback_model_providers or ():
        if any(m is info for m in provider(pid).models):
            return str(pid)
    raise KeyError(f"{info.id} is not a row of {first} or its fallbacks")  # pragma: no cover


def _clause_values(clause: Any) -> Iterable[tuple[int, str]]:
    """The literal ids a match clause names, ranked (an exact id first, then prefixes, contains)."""
    for key, rank in (("equals", 0), ("starts_with", 1), ("contains", 2), ("ends_with", 3)):
        value = getattr(clause, key, None)
        if isinstance(value, str):
            yield rank, value
    for key in ("or_", "and_"):
        for inner in getattr(clause, key, None) or ():
            yield from _clause_values(inner)


@cache
def _ref(pid: str, model_id: str) -> str | None:
    info = rows_by_id(pid).get(model_id.lower())
    if info is None:
        return None
    prov = provider(pid)
    if prov.find_model(info.id) is info:
        return str(info.id)
    candidates = []
    if info.id.startswith("regional."):  # Bedrock: its clauses name anthropic.<model>, us.<...>
        candidates.append(info.id.removeprefix("regional."))
    candidates += [v for _, v in sorted(_clause_values(info.match), key=lambda rv: rv[0])]
    for ref in candidates:
        # a prefix clause ("ft:gpt-4o-2024-") is not an id anyone writes
        if not ref or ref[-1] in "-.:/_" or "*" in ref:
            continue
        if prov.find_model(ref) is info:
            return ref
    return None


def ref_of(entry: CatalogEntry) -> str | None:
    """An id genai-prices' own lookup finds ``entry`` by under its provider: its id, else one its
    match clauses name (Bedrock ``regional.`` rows: ``anthropic.claude-...``; Fireworks rows:
    ``accounts/fireworks/models/<id>``). None when only longer ids find it (``ft:gpt-4o``)."""
    return _ref(entry.provider, entry.model_id)


def ref_of_row(pid: str, info: ModelInfo) -> str | None:
    """:func:`ref_of` for a row of provider ``pid`` (None when another row has its id first)."""
    return _ref(pid, info.id) if rows_by_id(pid).get(info.id.lower()) is info else None


# --------------------------------------------------------------------------------------------
# What can be estimated
# --------------------------------------------------------------------------------------------


def has_chat(pid: str) -> bool:
    """Whether provider ``pid`` has a row with per-token chat prices (cheap: no id check)."""
    return any(e.kind == "chat" for e in entries(pid))


def estimable(pid: str) -> tuple[CatalogEntry, ...]:
    """Provider ``pid``'s rows agentcost can estimate with, in genai-prices' order."""
    return tuple(e for e in entries(pid) if e.estimable)


def known_model_ids(provider: str | None = None) -> list[str]:
    """genai-prices ids of the models agentcost can price: ``provider``'s, or every provider's (in
    genai-prices' order, each id once). Left out: rows without per-token input and output prices,
    and rows their own id does not find (genai-prices' ``ft:gpt-4o`` matches only
    ``ft:gpt-4o:...`` references)."""
    pids = provider_ids() if provider is None else (provider,)
    ids: dict[str, None] = {}
    for pid in pids:
        for entry in estimable(pid):
            ids.setdefault(entry.model_id)
    return list(ids)


def suggest_model(model: str, provider: str | None, more_ids: Iterable[str] = ()) -> str:
    """The hint for a model not found: the ids closest to ``model`` among ``provider``'s (every
    provider's if None, as ``provider/model`` for another provider's) and ``more_ids`` (a user
    price file's), and how to list them."""
    import difflib

    wanted = model.strip().lower()
    names: dict[str, str] = {}  # lowercased id -> as suggested
    main_first = (*MAIN_PROVIDERS, *(p for p in provider_ids() if p not in MAIN_PROVIDERS))
    for pid in main_first if provider is None else (provider,):
        for entry in estimable(pid):
            shown = (
                entry.model_id if provider is not None or pid in MAIN_PROVIDERS else f"{pid}/{entry.model_id}"
            )
            names.setdefault(entry.model_id.lower(), shown)
    for extra in more_ids:
        names.setdefault(extra.lower(), extra)
    close = difflib.get_close_matches(wanted, list(names), n=3, cutoff=0.6)
    listing = "run 'agentcost models' to list known models"
    return f"did you mean: {', '.join(names[c] for c in close)}? {listing}" if close else listing
