"""From what a user writes to one genai-prices row: :func:`locate`.

The forms, tried in order:

1. a hosted form (:func:`agentcost.prices.hosts.host_form`): a Bedrock model id or inference profile
   (``us.anthropic.claude-...``, ``bedrock/...``, an ARN), ``azure/<model>``, ``vertex_ai/<model>``,
   ``openrouter/<vendor>/<model>``: looked up at that host's provider;
2. ``provider/model`` where ``provider`` is a genai-prices provider id or alias (``deepseek/...``,
   ``xai/grok-4``, ``groq/llama-3.3-70b-versatile``);
3. a bare id: every provider that has it (a row of that id, else genai-prices' match clauses). One
   provider: that one. Several: genai-prices' own routing for the id (its providers'
   ``model_match``), else the model's maker (:data:`agentcost.prices.hosts.MAKERS`), else one of
   anthropic, openai, google; else an :class:`InputError` listing them as ``provider/model``.

A provider given apart from the id (a scenario's ``provider:``) must agree with the id's form. At a
provider, a row of exactly that id comes first, then genai-prices' own lookup (its match clauses,
compact dates normalised, and for Azure and Google their fallback providers: ``azure/gpt-4o`` is
OpenAI's row, billed as Azure).
"""

from __future__ import annotations

import difflib
from functools import lru_cache
from typing import TYPE_CHECKING

from agentcost.errors import InputError
from agentcost.infra.record import record
from agentcost.prices import catalog, hosts
from agentcost.prices.catalog import CatalogEntry
from agentcost.prices.gpdata import MAIN_PROVIDERS, snapshot

if TYPE_CHECKING:
    from genai_prices.types import ModelInfo


@record
class Located:
    """The row a written id resolves to, and how it got there."""

    provider: str  # the provider that bills it: ModelPrices.provider
    price_provider: str  # whose row prices it (azure/gpt-4o: openai)
    info: ModelInfo
    ref: str  # the id that found the row at ``provider``
    host: str | None  # "bedrock", "azure", "vertex", "openrouter"; None: a provider's own model
    underlying_id: str | None  # the model's own id (host prefixes stripped); None: the row's id

    @property
    def entry(self) -> CatalogEntry:
        return catalog.entry_of(self.price_provider, self.info)

    @property
    def via_fallback(self) -> bool:
        """genai-prices prices it with another provider's row (Azure's, Vertex's fallbacks)."""
        return self.price_provider != self.provider


def check_provider(name: str, *, key: str = "provider") -> str:
    """The genai-prices provider id ``name`` names (an id or an alias such as ``bedrock``, ``xai``);
    an :class:`InputError` (``key``) naming the closest ids otherwise."""
    found = catalog.find_provider(name)
    if found is not None:
        return found
    close = difflib.get_close_matches(name.strip().lower(), catalog.provider_ids(), n=3, cutoff=0.6)
    listing = "'agentcost models --all' lists every provider"
    raise InputError(
        f"unknown provider {name.strip()!r}",
        key=key,
        hint=f"did you mean: {', '.join(close)}? {listing}" if close else listing,
    )


def split_provider(text: str) -> tuple[str | None, str]:
    """``provider/rest`` -> (the provider id, rest) when the head names a genai-prices provider
    (``deepseek/deepseek-chat``, ``xai/grok-4``); else (None, text)."""
    head, slash, tail = text.strip().partition("/")
    if slash and tail.strip():
        pid = catalog.find_provider(head)
        if pid is not None:
            return pid, tail.strip()
    return None, text.strip()


@lru_cache(maxsize=4096)  # genai-prices' find_model scans every match clause; its data is fixed a process
def locate_in(pid: str, ref: str, *, fallback: bool = True) -> tuple[str, ModelInfo] | None:
    """(the provider whose row it is, the row) for ``ref`` at provider ``pid``: a row of exactly that
    id (one genai-prices finds again, :func:`agentcost.prices.catalog.ref_of`), else genai-prices'
    own lookup, with ``pid``'s fallback providers when ``fallback``."""
    wanted = ref.strip()
    if not wanted:
        return None
    row = catalog.rows_by_id(pid).get(wanted.lower())
    if row is not None and catalog.ref_of_row(pid, row) is not None:
        return pid, row
    prov = catalog.provider(pid)
    info = prov.find_model(wanted, all_providers=snapshot().providers if fallback else None)
    if info is None:
        return None
    return catalog.owner_of(info, pid), info


def locate(model: str, provider: str | None = None) -> Located:
    """The genai-prices row ``model`` (as the user wrote it) resolves to, of ``provider`` when given
    (see the module doc). Raises :class:`InputError` (key ``model``, or ``provider`` for an unknown
    provider): unknown model (closest ids suggested), a model several providers serve with no maker
    among them, a model not of the given provider, an Azure deployment name."""
    written = model.strip()
    pid = None if provider is None else check_provider(provider)
    if pid is not None:  # a row id of the given provider, whatever its form ("aws" rows look hosted)
        row = catalog.rows_by_id(pid).get(written.lower())
        if row is not None and catalog.ref_of_row(pid, row) is not None:
            return _located(pid, (pid, row), written, None)
    form = hosts.host_form(written)
    if form is not None:
        if pid is not None and pid != form.provider:
            raise InputError(
                f"model {written!r} is a {form.host} id (provider {form.provider!r}), not {pid!r}",
                key="model",
                hint=f"set provider: {form.provider}, or leave provider out",
            )
        for ref in (form.ref, form.retry):
            found = locate_in(form.provider, ref) if ref else None
            if found is not None:
                return _located(form.provider, found, ref or form.ref, form.host)
        raise _not_at(form.provider, form.ref, written, form.host)
    head, ref = split_provider(written)
    if pid is not None:
        found = locate_in(pid, written)  # a row id with a "/" (groq's "openai/gpt-oss-120b")
        if found is None and head == pid:
            found = locate_in(pid, ref)
        if found is not None:
            return _located(pid, found, written if head != pid else ref, None)
        raise _not_at(pid, ref if head == pid else written, written, None)
    if head is not None:
        found = locate_in(head, ref)
        if found is not None:
            return _located(head, found, ref, None)
        try:  # a vendor-prefixed id of a host ("anthropic/claude-sonnet-4.5" is OpenRouter's)
            return _bare(written)
        except InputError:
            raise _not_at(head, ref, written, None) from None
    return _bare(written)


def _located(pid: str, found: tuple[str, ModelInfo], ref: str, host: str | None) -> Located:
    owner, info = found
    plain = pid in MAIN_PROVIDERS and owner in MAIN_PROVIDERS and host is None
    return Located(
        provider=pid,
        price_provider=owner,
        info=info,
        ref=ref,
        host=host or hosts.host_of(pid, info.id),
        underlying_id=None if plain else hosts.underlying_id(owner, info.id),
    )


def candidates(ref: str) -> list[tuple[str, ModelInfo]]:
    """Every provider with a row ``ref`` finds (no fallbacks), in genai-prices' order; only rows
    with token prices when some have them."""
    found = [(pid, hit[1]) for pid in catalog.provider_ids() if (hit := locate_in(pid, ref, fallback=False))]
    priced = [(pid, info) for pid, info in found if catalog.entry_of(pid, info).priced]
    return priced or found


def preferred(ref: str, pids: list[str]) -> str | None:
    """Which of the providers serving ``ref`` a bare id means: genai-prices' own routing (the first
    provider whose ``model_match`` matches), else the maker (:data:`hosts.MAKERS`), else the first
    of anthropic, openai, google; None when none of them serves it."""
    lowered = ref.strip().lower()
    for pid in catalog.provider_ids():
        match = catalog.provider(pid).model_match
        if pid in pids and match is not None and match.is_match(lowered):
            return pid
    for maker in (*hosts.makers(lowered), *MAIN_PROVIDERS):
        if maker in pids:
            return maker
    return None


def _bare(written: str) -> Located:
    found = candidates(written)
    if not found:
        raise InputError(f"unknown model {written!r}", key="model", hint=catalog.suggest_model(written, None))
    pids = [pid for pid, _ in found]
    pick = pids[0] if len(pids) == 1 else preferred(written, pids)
    if pick is None:
        shown = [f"{pid}/{written}" for pid in pids]
        more = f", ... ({len(shown)} in all)" if len(shown) > 8 else ""
        raise InputError(
            f"model {written!r} is served by {len(pids)} providers and none of them made it:"
            f" {', '.join(shown[:8])}{more}",
            key="model",
            hint="write one as provider/model",
        )
    return _located(pick, (pick, dict(found)[pick]), written, None)


def _not_at(pid: str, ref: str, written: str, host: str | None) -> InputError:
    """The error for ``ref`` not found at provider ``pid``: the provider it belongs to when another
    one has it, an Azure deployment name, else the closest ids of ``pid``."""
    if host == "azure":
        return InputError(
            f"no model {ref!r} in genai-prices' Azure prices (Azure deployment names cannot be known)",
            key="model",
            hint="write azure/<model>, the model the deployment serves, e.g. azure/gpt-4o",
        )
    elsewhere = [other for other, _ in candidates(ref) if other != pid]
    owner = preferred(ref, elsewhere) if len(elsewhere) > 1 else next(iter(elsewhere), None)
    if owner is not None:
        return InputError(
            f"model {ref!r} belongs to provider {owner!r}, not {pid!r}",
            key="model",
            hint=f"set provider: {owner}, or leave provider out"
            if written == ref
            else f"write {owner}/{ref}, or leave the provider out",
        )
    if elsewhere:
        shown = ", ".join(f"{other}/{ref}" for other in elsewhere[:8])
        more = f", ... ({len(elsewhere)} in all)" if len(elsewhere) > 8 else ""
        return InputError(
            f"model {ref!r} is not in genai-prices' {pid} prices; it is served by {shown}{more}",
            key="model",
            hint="write one as provider/model",
        )
    label = f"{host} " if host is not None else f"{pid} " if pid not in MAIN_PROVIDERS else ""
    message = f"unknown {label}model {ref!r}" if label else f"unknown model {ref!r}"
    return InputError(message, key="model", hint=catalog.suggest_model(ref, pid))
