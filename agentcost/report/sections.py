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

from decimal import Decimal
from typing import TYPE_CHECKING, Any

from agentcost.infra.record import record
from agentcost.loop.carry import Block, Carried, Split
from agentcost.loop.footprint import Footprint, ToolFootprint
from agentcost.loop.insights import Checks, Insights, Lever, Steps, StopRules
from agentcost.loop.simulate import Simulation, Stat
from agentcost.report.estimate import Judged, Report

if TYPE_CHECKING:
    from agentcost.loop.estimate import Estimate


@record
class SimulatedReport:
    """``agentcost estimate --simulate N``: the estimate and the simulation of its distributions."""

    report: Report
    simulation: Simulation
    at: str | None = None  # --at: the statistic the budget gate reads

    @property
    def total_usd(self) -> Decimal:
        """The figure the budget gate reads (``--quiet`` prints it): the ``--at`` statistic of the
        runs, else the estimate's (:attr:`Report.gate_usd`, at the medians), never the mean."""
        return self.report.gate_usd


def judged_at(report: Report, simulation: Simulation, at: str | None) -> Report:
    """``report`` with its budget judged at ``at`` (``--at p99``) of ``simulation``'s runs: the
    verdict, the headroom and the figure the budget line and the gate read (:class:`Judged`), so
    that what is printed is what the exit code says. As it is without ``at`` or a budget."""
    b = report.budget
    if at is None or b is None:
        return report
    from dataclasses import replace

    cost = simulation.cost_at(at)
    judged = Judged(at, cost, simulation.runs)
    budget = replace(b, over=cost > b.limit_usd, headroom_usd=b.limit_usd - cost, per="run", judged=judged)
    return replace(report, budget=budget)


@record
class ExplainedReport:
    """``agentcost estimate --explain``: the estimate (simulated with ``--simulate``) and its insights."""

    report: Report | SimulatedReport
    insights: Insights


@record
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
    "Block",
    "Carried",
    "Checks",
    "ExplainedReport",
    "Footprint",
    "FootprintReport",
    "Insights",
    "Lever",
    "SimulatedReport",
    "Simulation",
    "Split",
    "Stat",
    "Steps",
    "StopRules",
    "ToolFootprint",
    "judged_at",
    "with_footprint",
]
