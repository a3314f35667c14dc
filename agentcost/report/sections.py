"""An estimate's report with sections: ``--simulate`` (:class:`SimulatedReport`), ``--explain``
(:class:`ExplainedReport`) and the tool definitions' footprint (:class:`FootprintReport`).

Each is the estimate's report plus what the loop stage computed for the section: a
:class:`Simulation` (:func:`agentcost.loop.simulate.simulate`), :class:`Insights`
(:func:`agentcost.loop.insights.explain`) or a :class:`Footprint`
(:func:`agentcost.loop.footprint.footprint`, run here by :func:`with_footprint`). Those frozen data
types are carried unchanged and re-exported here: they are the renderers' vocabulary
(:mod:`agentcost.render.simulation`, :mod:`agentcost.render.insights`,
:mod:`agentcost.render.footprint` format them and compute nothing).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from agentcost.loop.footprint import Footprint, ToolFootprint
from agentcost.loop.insights import Checks, Insights, Lever, Steps, StopRules
from agentcost.loop.simulate import Simulation, Stat
from agentcost.report.estimate import Report

if TYPE_CHECKING:
    from agentcost.loop.estimate import Estimate


@dataclass(frozen=True)
class SimulatedReport:
    """``agentcost estimate --simulate N``: the estimate and the simulation of its distributions."""

    report: Report
    simulation: Simulation
    at: str | None = None  # --at: the statistic the budget gate reads

    @property
    def total_usd(self) -> Decimal:
        """The run's cost the output's total reports: the ``--at`` statistic, else the mean."""
        return self.simulation.cost_at(self.at) if self.at is not None else self.simulation.cost.mean


@dataclass(frozen=True)
class ExplainedReport:
    """``agentcost estimate --explain``: the estimate (simulated with ``--simulate``) and its insights."""

    report: Report | SimulatedReport
    insights: Insights


@dataclass(frozen=True)
class FootprintReport:
    """An explained report (:class:`ExplainedReport`) and its tool definitions' footprint."""

    report: Any  # the explained report
    footprint: Footprint


def with_footprint(report: Any, est: Estimate) -> Any:
    """``report`` (an explained estimate) with the footprint of ``est``'s tool definitions, or as it
    is when the scenario defines no tool."""
    from agentcost.loop.footprint import footprint

    found = footprint(est)
    return report if found is None else FootprintReport(report, found)


__all__ = [
    "Checks",
    "ExplainedReport",
    "Footprint",
    "FootprintReport",
    "Insights",
    "Lever",
    "SimulatedReport",
    "Simulation",
    "Stat",
    "Steps",
    "StopRules",
    "ToolFootprint",
    "with_footprint",
]
