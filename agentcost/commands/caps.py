"""``agentcost caps SCENARIO`` as a library: runtime caps for an agent SDK, from the tail of the
scenario's simulated runs -> :class:`agentcost.report.caps.CapsReport`.

:func:`caps` is the one entry point (the CLI's ``caps`` command and any other caller, e.g. an MCP
tool, use it): load and estimate the scenario, simulate it as ``estimate --simulate N --seed S``
does (:mod:`agentcost.loop.caps`), read the caps at the statistic, build the report.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from agentcost.errors import InputError
from agentcost.scenario.model import Scenario  # dataclasses only: light

if TYPE_CHECKING:
    from agentcost.prices.user import UserPrices
    from agentcost.report.caps import CapsReport

DEFAULT_RUNS = 10_000
"""Runs simulated unless asked otherwise: ``estimate --at``'s default, 100 runs past p99."""
DEFAULT_AT = "p99"
DEFAULT_SEED = 0  # estimate --simulate's default seed: the same runs, the same percentiles


def caps(
    scenario: Path | str | Scenario,
    *,
    at: str = DEFAULT_AT,
    runs: int = DEFAULT_RUNS,
    seed: int = DEFAULT_SEED,
    margin: str | None = None,
    as_of: datetime | str | None = None,
    model: str | None = None,
    overrides: Sequence[str] = (),
    service_tier: str | None = None,
    user_prices: UserPrices | None = None,
    at_time: bool | None = None,
) -> CapsReport:
    """Caps for ``scenario`` (a file, or a :class:`Scenario` read already, ``overrides`` then
    applied by its reader) at ``at`` (``p99``, ``p95``, ``max``) of ``runs`` runs drawn with
    ``seed``, ``margin`` percent added (``"20"``, ``"20%"``; None: none). ``as_of`` (None: today,
    UTC; an ISO text with a time, or ``at_time``, picks time-of-day prices), ``model``,
    ``overrides`` (``--set``), ``service_tier``, ``user_prices`` price the scenario as ``estimate``
    does. Bad input raises :class:`InputError`."""
    from agentcost.loop.caps import cap_label, caps_of_runs, parse_margin
    from agentcost.loop.estimate import estimate_scenario
    from agentcost.loop.options import as_of_datetime, has_time
    from agentcost.report.build import build_report
    from agentcost.report.caps import CapsReport
    from agentcost.scenario.load import read_scenario

    label = cap_label(at)
    extra = parse_margin(margin)
    if not 0 <= seed < 2**63:
        raise InputError(f"must be a whole number from 0 to 2**63 - 1, got {seed}", key="--seed")
    if isinstance(scenario, Scenario):  # read already (the Python API: a mapping, or load_scenario's)
        loaded = scenario
    else:
        loaded = read_scenario(Path(scenario), overrides=tuple(overrides))
    est = estimate_scenario(
        loaded,
        as_of=as_of_datetime(as_of),
        model=model,
        service_tier=service_tier,
        user_prices=user_prices,
        compare=False,  # the baselines of parallel calls and routing: no cap reads them
        at_time=has_time(as_of) if at_time is None else at_time,
    )
    found = caps_of_runs(est, runs, seed=seed, label=label, margin=extra)
    return CapsReport(build_report(est, overrun=False), found)


__all__ = ["DEFAULT_AT", "DEFAULT_RUNS", "DEFAULT_SEED", "caps"]
