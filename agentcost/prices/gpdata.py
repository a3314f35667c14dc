"""genai-prices' bundled price data, offline and loaded lazily: :func:`light_genai_prices`, :func:`snapshot`.

genai-prices is imported lazily (it costs ~170 ms), and without its online price updater
(:func:`light_genai_prices`). The modules that find models in the data build on this one
(:mod:`agentcost.prices.catalog`, :mod:`agentcost.prices.locate`).
"""

from __future__ import annotations

from typing import Any

PRICE_SOURCE_NAME = "genai-prices"
# The providers `agentcost models` lists first (and alone without a filter): the makers agentcost
# started with, whose counting rules are exact or measured.
MAIN_PROVIDERS = ("anthropic", "openai", "google")


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


def snapshot() -> Any:
    """genai-prices' bundled price data (its ``DataSnapshot``)."""
    light_genai_prices()
    from genai_prices import data_snapshot

    return data_snapshot.get_snapshot()
