"""The genai-prices database (pydantic's price data, offline): loading it, and finding models in it.

genai-prices is imported lazily (it costs ~170 ms), and without its online price updater
(:func:`light_genai_prices`). Only models of :data:`SUPPORTED_PROVIDERS` served by their own maker
are found (:func:`find_model`, :func:`known_model_ids`); :func:`suggest_model` names the closest ids
to a model that is not. Both :mod:`agentcost.prices.lookup` and the user price file's loader
(:mod:`agentcost.prices.user`) find models here.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from agentcost.errors import InputError

if TYPE_CHECKING:
    from genai_prices.types import ModelInfo, ModelPrice, Provider


def light_genai_prices() -> None:
    """Make ``import genai_prices`` skip its price updater until something needs it.

    genai-prices' package ``__init__`` imports its online price updater, and with it an HTTP client
    and asyncio (~0.45 s, over a third of a cold run); agentcost works offline from the bundled
    snapshot and needs only its submodules (``data_snapshot``, ``types``, ``units``, ...). So the
    package is registered as a bare module whose submodules import as usual, with ``__version__``
    read from its metadata; the first access to anything else it defines (``calc_price``, ``Usage``,
    the updater) runs the real ``__init__`` in it, so every other use of genai-prices is unchanged.
    """
    import sys

    if "genai_prices" in sys.modules:
        return
    import importlib.util
    import types

    spec = importlib.util.find_spec("genai_prices")
    if spec is None or spec.origin is None or spec.loader is None or not spec.submodule_search_locations:
        return  # not installed: the import error comes where it is used
    package = types.ModuleType("genai_prices")
    package.__spec__ = spec
    package.__file__ = spec.origin
    package.__path__ = list(spec.submodule_search_locations)
    package.__package__ = "genai_prices"
    package.__version__ = _installed_version("genai_prices", package.__path__[0])  # type: ignore[attr-defined]
    origin = spec.origin

    def complete(name: str) -> Any:
        """A submodule (``from genai_prices import data_snapshot`` asks for it as an attribute),
        else the real ``__init__``, run in the module on the first access to a name it defines."""
        import importlib
        import os

        if not name.startswith("__") and os.path.exists(os.path.join(package.__path__[0], f"{name}.py")):
            return importlib.import_module(f"genai_prices.{name}")
        if package.__dict__.get("_agentcost_complete"):
            raise AttributeError(f"module 'genai_prices' has no attribute {name!r}")
        package.__dict__["_agentcost_complete"] = True
        del package.__dict__["__getattr__"]
        with open(origin, "rb") as handle:
            code = compile(handle.read(), origin, "exec")
        exec(code, package.__dict__)
        return getattr(package, name)

    package.__getattr__ = complete  # type: ignore[method-assign]
    sys.modules["genai_prices"] = package


def _installed_version(name: str, package_dir: str) -> str:
    """A distribution's version from the dist-info directory beside its package (importlib.metadata
    as the fallback: it imports the email parser)."""
    import glob
    import os

    site = os.path.dirname(package_dir)
    for info in glob.glob(os.path.join(glob.escape(site), f"{name}-*.dist-info")):
        try:
            with open(os.path.join(info, "METADATA"), encoding="utf-8") as handle:
                for line in handle:
                    if line.startswith("Version:"):
                        return line.split(":", 1)[1].strip()
                    if not line.strip():
                        break
        except OSError:
            continue
    from importlib.metadata import version

    return version(name)


SUPPORTED_PROVIDERS = ("anthropic", "openai", "google")
PRICE_SOURCE_NAME = "genai-prices"

# The serving provider must be the model's maker: Claude on Google Vertex (genai-prices lists
# claude-* models under "google") is billed differently and uses Anthropic's caching, so it is
# refused for now rather than mixed with Gemini mechanics.
_FOREIGN_PREFIXES: dict[str, tuple[str, ...]] = {"google": ("claude-",)}


def snapshot() -> Any:
    """genai-prices' bundled price data (its ``DataSnapshot``)."""
    light_genai_prices()
    from genai_prices import data_snapshot

    return data_snapshot.get_snapshot()


def providers() -> dict[str, Provider]:
    """The supported providers in genai-prices' data, in SUPPORTED_PROVIDERS order."""
    found = {p.id: p for p in snapshot().providers if p.id in SUPPORTED_PROVIDERS}
    return {pid: found[pid] for pid in SUPPORTED_PROVIDERS if pid in found}


def _is_foreign(provider_id: str, model_id: str) -> bool:
    return model_id.startswith(_FOREIGN_PREFIXES.get(provider_id, ()))


def _latest_price(info: ModelInfo) -> ModelPrice:
    light_genai_prices()
    from genai_prices.types import ModelPrice

    if isinstance(info.prices, ModelPrice):
        return info.prices
    return info.prices[-1].prices


def _priced_per_token(price: ModelPrice) -> bool:
    return price.input_mtok is not None and price.output_mtok is not None


def known_model_ids(provider: str | None = None) -> list[str]:
    """genai-prices ids of the chat models we can price, in SUPPORTED_PROVIDERS order.

    Left out: models of another maker (Claude on Vertex), models without per-token input and output
    prices, and models their own id does not find (genai-prices' ``ft:gpt-4o`` matches only
    ``ft:gpt-4o:...`` references).
    """
    return list(_known_ids(provider))


@lru_cache(maxsize=8)
def _known_ids(provider: str | None) -> tuple[str, ...]:
    if provider is not None:
        check_provider(provider)
    ids: list[str] = []
    for pid, prov in providers().items():
        if provider is not None and pid != provider:
            continue
        for info in prov.models:
            if _is_foreign(pid, info.id) or not _priced_per_token(_latest_price(info)):
                continue
            if prov.find_model(info.id) is not info:
                continue
            if info.id not in ids:
                ids.append(info.id)
    return tuple(ids)


def check_provider(provider: str) -> None:
    """Raise :class:`InputError` (key ``provider``) for a provider agentcost does not support."""
    if provider not in SUPPORTED_PROVIDERS:
        raise InputError(
            f"unsupported provider {provider!r}",
            key="provider",
            hint="supported providers: " + ", ".join(SUPPORTED_PROVIDERS),
        )


def find_model(model: str, provider_id: str) -> ModelInfo | None:
    """The model as ``provider_id`` serves it (no cross-provider fallback)."""
    info: ModelInfo | None = providers()[provider_id].find_model(model)
    if info is None or _is_foreign(provider_id, info.id):
        return None
    return info


def suggest_model(model: str, provider: str | None, more_ids: Iterable[str] = ()) -> str:
    """The hint for a model not found: the ids closest to ``model`` among ``provider``'s (every
    supported provider's if None) and ``more_ids`` (a user price file's), and how to list them."""
    candidates = known_model_ids(provider)
    candidates += more_ids
    close = difflib.get_close_matches(model.lower(), candidates, n=3, cutoff=0.6)
    listing = "run 'agentcost models' to list known models"
    return f"did you mean: {', '.join(close)}? {listing}" if close else listing
