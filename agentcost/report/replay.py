"""The report of ``agentcost replay FILE``: a recorded run, request by request, priced.

:func:`agentcost.replay.replay` builds the :class:`ReplayReport` (the replay stage sits beside the
loop stage: recorded runs -> a trace -> a ledger); its data types are carried unchanged and
re-exported here as the renderers' vocabulary (:mod:`agentcost.render.replay` formats them).
"""

from __future__ import annotations

from agentcost.replay import FORMATS
from agentcost.replay.trace import ReplayReport, ReplayRequest

LOG_FORMATS: tuple[str, ...] = FORMATS
"""The log formats ``replay`` reads (its report's ``format``), in the order it tries them."""

__all__ = ["LOG_FORMATS", "ReplayReport", "ReplayRequest"]
