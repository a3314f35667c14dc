"""Listing the models agentcost can price (``agentcost models``), newest first.

:func:`list_models` prices every model agentcost can estimate with (a user price file's included)
of the chosen providers whose id matches a pattern; :func:`newest_first` orders them by
:func:`release_key`. :func:`listing` adds what ``agentcost models`` shows besides: the rows of those
providers that cannot be estimated (and why), every provider's counts, and how many matching models
the providers not listed have.
"""

from __future__ import annotations

import re
from dataclasses import field
from datetime import datetime
from typing import TYPE_CHECKING

from agentcost.infra.record import record
from agentcost.prices.catalog import CatalogEntry, entries, estimable, provider_ids
from agentcost.prices.catalog import provider as catalog_provider
from agentcost.prices.gpdata import MAIN_PROVIDERS
from agentcost.prices.hosts import host_of
from agentcost.prices.locate import check_provider, split_provider
from agentcost.prices.lookup import resolve_model

if TYPE_CHECKING:
    from agentcost.prices.pricing import ModelPrices
    from agentcost.prices.user import UserPrices


@record
class ProviderCount:
    """One genai-prices provider: its rows, those agentcost can estimate, its chat models."""

    provider: str
    name: str
    models: int
    estimable: int
    chat: int
    listed: bool  # whether the listing shows its models


@record
class Listing:
    """What ``agentcost models`` shows: the priced models, newest first; the matching rows of the
    same providers that cannot be estimated; every provider's counts; the providers not listed that
    have matching models agentcost can estimate (with how many)."""

    models: list[ModelPrices]
    entries: dict[tuple[str, str], CatalogEntry]  # (price provider, model id) -> its catalog row
    not_estimable: list[CatalogEntry]
    providers: list[ProviderCount]
    elsewhere: dict[str, int]  # provider -> matching estimable models it has (not listed)
    filtered: bool = False  # an id pattern was given

    @property
    def unlisted_providers(self) -> list[ProviderCount]:
        """The providers not listed that have chat models agentcost can estimate."""
        return [c for c in self.providers if not c.listed and c.chat]

    @property
    def elsewhere_total(self) -> int:
        """Matching models agentcost can estimate at the providers not listed."""
        return sum(self.elsewhere.values())

    default_scope: bool = False  # no provider asked for: anthropic, openai and google listed
    # listed providers genai-prices also prices other providers' models for (azure: openai, ...)
    fallbacks: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def reasons(self) -> dict[str, int]:
        """Why the rows not estimable are not (:attr:`CatalogEntry.why_code`), with how many rows
        each, most first."""
        counts: dict[str, int] = {}
        for entry in self.not_estimable:
            code = entry.why_code or ""
            counts[code] = counts.get(code, 0) + 1
        return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


def _matcher(pattern: str | None) -> re.Pattern[str] | None:
    """A pattern (a substring, or a glob such as ``claude-*``), case-insensitive."""
    import fnmatch

    if not pattern:
        return None
    if any(c in pattern for c in "*?["):
        return re.compile(fnmatch.translate(pattern), re.IGNORECASE)
    return re.compile(re.escape(pattern), re.IGNORECASE)


def _scope(pattern: str | None, provider: str | None, every: bool) -> tuple[tuple[str, ...], str | None]:
    """The providers to list and the id pattern: ``provider`` (an id or alias), else the head of
    ``provider/pattern`` when it names one, else every provider (``every``) or the three main ones."""
    if provider is not None:
        return (check_provider(provider),), pattern
    if pattern and "/" in pattern:
        head, rest = split_provider(pattern)
        if head is not None:
            return (head,), rest
    return (provider_ids() if every else MAIN_PROVIDERS), pattern


def list_models(
    *,
    as_of: datetime,
    pattern: str | None = None,
    user_prices: UserPrices | None = None,
    provider: str | None = None,
    every: bool = False,
) -> list[ModelPrices]:
    """The models agentcost can estimate with whose id matches ``pattern`` (a substring, or a glob
    such as ``claude-*``, case-insensitive; ``deepseek/*`` filters by provider), priced at
    ``as_of``, in genai-prices' order per provider: ``provider``'s, else every provider's
    (``every``), else those of anthropic, openai and google. Models of ``user_prices`` replace the
    genai-prices models they override and follow the others of their provider."""
    pids, wanted = _scope(pattern, provider, every)
    return _priced(pids, _matcher(wanted), as_of, user_prices)


def _priced(
    pids: tuple[str, ...], match: re.Pattern[str] | None, as_of: datetime, user_prices: UserPrices | None
) -> list[ModelPrices]:
    """The priced models of ``pids`` matching ``match``. The three main providers listed by default
    show their own models: Claude on Vertex (google's claude-* rows) only when google is asked for."""
    out: list[ModelPrices] = []
    default = pids == MAIN_PROVIDERS
    for pid in pids:
        mine = [] if user_prices is None else [m for m in user_prices.models if m.provider == pid]
        overridden = {m.id.lower() for m in mine}
        for entry in estimable(pid):
            if default and host_of(pid, entry.model_id) is not None:
                continue
            if (match is None or match.search(entry.model_id)) and entry.model_id.lower() not in overridden:
                out.append(resolve_model(entry.model_id, provider=pid, as_of=as_of, cached=False))
        for user in mine:
            if match is None or match.search(user.id):
                out.append(
                    resolve_model(user.id, provider=pid, as_of=as_of, user_prices=user_prices, cached=False)
                )
    return out


def listing(
    *,
    as_of: datetime,
    pattern: str | None = None,
    user_prices: UserPrices | None = None,
    provider: str | None = None,
    every: bool = False,
) -> Listing:
    """:func:`list_models` (newest first), with the rest of what ``agentcost models`` shows."""
    pids, wanted = _scope(pattern, provider, every)
    match = _matcher(wanted)
    models = newest_first(_priced(pids, match, as_of, user_prices))
    default = pids == MAIN_PROVIDERS
    if default and match is not None and not models:  # "grok": none of the three main providers
        pids, default = provider_ids(), False
        models = newest_first(_priced(pids, match, as_of, user_prices))
    listed = set(pids)
    rows: dict[tuple[str, str], CatalogEntry] = {}
    not_estimable: list[CatalogEntry] = []
    counts: list[ProviderCount] = []
    elsewhere: dict[str, int] = {}
    user_providers = {m.provider for m in user_prices.models} if user_prices is not None else set()
    for pid in provider_ids():
        rows_of = entries(pid)
        ok = [e for e in rows_of if e.estimable]
        if pid in listed:
            rows.update({(pid, e.model_id): e for e in ok})
            not_estimable += [
                e for e in rows_of if not e.estimable and (match is None or match.search(e.model_id))
            ]
        elif match is not None and pid not in user_providers:
            hits = sum(1 for e in ok if match.search(e.model_id))
            if hits:
                elsewhere[pid] = hits
        counts.append(
            ProviderCount(pid, _name(pid), len(rows_of), len(ok), sum(e.chat for e in ok), pid in listed)
        )
    fallbacks = {
        pid: tuple(str(f) for f in catalog_provider(pid).fallback_model_providers or ())
        for pid in pids
        if not default and catalog_provider(pid).fallback_model_providers
    }
    return Listing(
        models,
        rows,
        not_estimable,
        counts,
        elsewhere,
        filtered=match is not None,
        default_scope=default,
        fallbacks=fallbacks,
    )


def _name(pid: str) -> str:
    from agentcost.prices.catalog import provider_name

    return provider_name(pid)


_VERSION_PART = re.compile(r"\d{1,3}")


def release_key(model_id: str) -> tuple[int, ...]:
    """A proxy for release order (genai-prices has no release dates): the version numbers in the
    id, up to the first part that is not one (``claude-opus-4-5`` -> (4, 5), ``gpt-5.4-mini`` ->
    (5, 4), ``claude-3-5-haiku-latest`` -> (3, 5), ``gemini-2.5-pro`` -> (2, 5)). Dates
    (``2024-05-13``) and sizes (``31b``) are not version numbers. A vendor or host prefix
    (``anthropic/``, ``regional.anthropic.``) is skipped."""
    model_id = model_id.rpartition("/")[2]
    head = model_id.split("-")[0].split(".")
    if len(head) > 1 and all(h.isalpha() for h in head[:-1]) and head[-1][:1].isalpha():
        model_id = model_id[len(".".join(head[:-1])) + 1 :]  # "regional.anthropic.claude-..."
    parts = re.split(r"[-.]", model_id.lower())
    numbers: list[int] = []
    for part in parts[1:]:
        if part.startswith("v") and part[1:].isdigit() and not numbers:
            part = part[1:]  # claude-v1
        if _VERSION_PART.fullmatch(part):
            numbers.append(int(part))
        elif numbers:
            break
        elif part[:1].isdigit() and part.rstrip("o").isdigit():  # gpt-4o
            numbers.append(int(part.rstrip("o")))
    if not numbers and parts[0][:1] == "o" and parts[0][1:].isdigit():  # o3, o4-mini
        numbers.append(int(parts[0][1:]))
    return tuple(numbers)


def newest_first(models: list[ModelPrices]) -> list[ModelPrices]:
    """``models`` by provider (anthropic, openai, google, then the others in genai-prices' order),
    then by :func:`release_key` descending, then by id: the order of ``agentcost models``."""
    order = {pid: i for i, pid in enumerate(MAIN_PROVIDERS)}
    others = sorted({m.provider for m in models} - set(order))
    if others:
        known = {pid: i for i, pid in enumerate(provider_ids())}
        others.sort(key=lambda pid: known.get(pid, len(known)))
    order.update({pid: len(MAIN_PROVIDERS) + i for i, pid in enumerate(others)})
    by_id = sorted(models, key=lambda m: m.model_id)

    def key(m: ModelPrices) -> tuple[int, tuple[int, ...]]:
        version = (*release_key(m.model_id), 0, 0, 0, 0)[:4]  # gpt-5 is (5, 0): older than gpt-5.4
        return order[m.provider], tuple(-n for n in version)

    return sorted(by_id, key=key)
