"""Listing the models agentcost can price (``agentcost models``), newest first.

:func:`list_models` prices every known model of the supported providers (a user price file's
included) whose id matches a pattern; :func:`newest_first` orders them by :func:`release_key`.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import TYPE_CHECKING

from agentcost.prices.genai import SUPPORTED_PROVIDERS, known_model_ids
from agentcost.prices.lookup import resolve_model

if TYPE_CHECKING:
    from agentcost.prices.model import ModelPrices
    from agentcost.prices.user import UserPrices


def list_models(
    *, as_of: datetime, pattern: str | None = None, user_prices: UserPrices | None = None
) -> list[ModelPrices]:
    """Known models of the supported providers whose id matches ``pattern`` (a substring, or a glob
    such as ``claude-*``; ``anthropic/*`` filters by provider), priced at ``as_of``, in genai-prices'
    order per provider. Models of ``user_prices`` replace the genai-prices models they override and
    follow the others of their provider."""
    import fnmatch

    provider: str | None = None
    if pattern and "/" in pattern:
        provider, _, pattern = pattern.partition("/")

    def matches(model_id: str) -> bool:
        if not pattern:
            return True
        if any(c in pattern for c in "*?["):
            return fnmatch.fnmatch(model_id, pattern)
        return pattern in model_id

    out: list[ModelPrices] = []
    for pid in SUPPORTED_PROVIDERS if provider is None else (provider,):
        mine = [] if user_prices is None else [m for m in user_prices.models if m.provider == pid]
        overridden = {m.id.lower() for m in mine}
        for model_id in known_model_ids(pid):
            if matches(model_id) and model_id.lower() not in overridden:
                out.append(resolve_model(model_id, provider=pid, as_of=as_of))
        for entry in mine:
            if matches(entry.id):
                out.append(resolve_model(entry.id, provider=pid, as_of=as_of, user_prices=user_prices))
    return out


_VERSION_PART = re.compile(r"\d{1,3}")


def release_key(model_id: str) -> tuple[int, ...]:
    """A proxy for release order (genai-prices has no release dates): the version numbers in the
    id, up to the first part that is not one (``claude-opus-4-5`` -> (4, 5), ``gpt-5.4-mini`` ->
    (5, 4), ``claude-3-5-haiku-latest`` -> (3, 5), ``gemini-2.5-pro`` -> (2, 5)). Dates
    (``2024-05-13``) and sizes (``31b``) are not version numbers."""
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
    """``models`` by provider (in SUPPORTED_PROVIDERS order), then by :func:`release_key`
    descending, then by id: the order of ``agentcost models``."""
    order = {pid: i for i, pid in enumerate(SUPPORTED_PROVIDERS)}
    by_id = sorted(models, key=lambda m: m.model_id)

    def key(m: ModelPrices) -> tuple[int, tuple[int, ...]]:
        version = (*release_key(m.model_id), 0, 0, 0, 0)[:4]  # gpt-5 is (5, 0): older than gpt-5.4
        return order.get(m.provider, len(order)), tuple(-n for n in version)

    return sorted(by_id, key=key)
