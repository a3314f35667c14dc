"""agentcost: estimate what an LLM tool-using agent loop will cost before it runs.

The library API (``agentcost.estimate``, ``agentcost.load_scenario``, ``agentcost.compare``,
``agentcost.caps``) lives in :mod:`agentcost.api`; its names are imported on first use, so
``import agentcost`` stays instant.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = [
    "CapsResult",
    "CompareResult",
    "EstimateResult",
    "InputError",
    "Scenario",
    "__version__",
    "caps",
    "compare",
    "estimate",
    "load_scenario",
]

if TYPE_CHECKING:
    from agentcost.api import (
        CapsResult,
        CompareResult,
        EstimateResult,
        caps,
        compare,
        estimate,
        load_scenario,
    )
    from agentcost.errors import InputError
    from agentcost.scenario.model import Scenario

_HOMES = {
    "CapsResult": "agentcost.api",
    "caps": "agentcost.api",
    "CompareResult": "agentcost.api",
    "EstimateResult": "agentcost.api",
    "compare": "agentcost.api",
    "estimate": "agentcost.api",
    "load_scenario": "agentcost.api",
    "InputError": "agentcost.errors",
    "Scenario": "agentcost.scenario.model",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'agentcost' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
