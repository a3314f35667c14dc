"""Reading both sides of ``agentcost diff BASE HEAD``: load and estimate them, then compare (I/O).

BASE and HEAD are two scenario files or two project files; with ``base_reader`` (e.g.
``gitread.git_reader("origin/main")``) the base side is read from somewhere else, usually the same
path at a git ref. Each scenario is estimated on both sides at the same price date, then
:func:`agentcost.commands.diff.build_diff` lines the two up.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING

from agentcost.commands.diff import NO_LIMITS, Pair, build_diff
from agentcost.errors import InputError
from agentcost.loop.estimate import Estimate, estimate_scenario
from agentcost.loop.options import PricingOptions
from agentcost.report.diff import DiffReport
from agentcost.report.gates import IncreaseLimits

if TYPE_CHECKING:
    from agentcost.infra.yamlread import Reader
    from agentcost.prices.user import UserPrices

# --------------------------------------------------------------------------------------------
# Reading both sides (I/O)
# --------------------------------------------------------------------------------------------


def diff_paths(
    base: Path | str,
    head: Path | str,
    *,
    as_of: datetime,
    overrides: Sequence[str] = (),
    base_reader: Reader | None = None,
    limits: IncreaseLimits = NO_LIMITS,
    budget_usd: Decimal | None = None,
    base_label: str | None = None,
    head_label: str | None = None,
    service_tier: str | None = None,
    user_prices: UserPrices | None = None,
) -> DiffReport:
    """``agentcost diff BASE HEAD``: estimate both sides at ``as_of`` and compare them.

    ``service_tier`` (``--service-tier``) and ``user_prices`` (``--prices``, read once from the
    working tree) price both sides alike.

    BASE and HEAD are two scenario files or two project files (scenarios are paired by their path
    relative to the project file; one on a single side is "added" or "removed"). ``base_reader``
    reads the base side instead of the file system (``--base-ref``: the CLI passes the same path
    twice and ``git_reader(REF)``); a base file the reader does not find is new on the head side,
    so its scenarios are "added". ``overrides`` (``--set``) apply to both sides, after a project
    entry's own ``set``; ``budget_usd`` (``--budget``) replaces every per-run budget.
    Raises :class:`InputError` for bad input on either side.
    """
    from agentcost.scenario.project import is_project_file

    base, head = Path(base), Path(head)
    base_missing = base_reader is not None and not _readable(base, base_reader)
    head_is_project = is_project_file(head)
    base_is_project = head_is_project if base_missing else is_project_file(base, reader=base_reader)
    if base_is_project != head_is_project:
        project, other = (base, head) if base_is_project else (head, base)
        raise InputError(
            f"cannot compare the project file {project} with the scenario file {other}",
            key="diff",
            hint="give two scenario files or two project files",
        )
    if base_label is None:
        if base_reader is not None:
            ref = getattr(base_reader, "ref", None)
            base_label = str(ref) if ref is not None else f"base {base}"
        else:
            base_label = str(base)
    if head_label is None:
        head_label = "working tree" if base_reader is not None else str(head)
    pricing = PricingOptions(as_of, service_tier=service_tier, user_prices=user_prices)
    if head_is_project:
        return _diff_projects(
            base,
            head,
            base_reader,
            base_missing,
            tuple(overrides),
            budget_usd,
            base_label=base_label,
            head_label=head_label,
            limits=limits,
            pricing=pricing,
        )
    base_est = None if base_missing else _estimate(base, base_reader, tuple(overrides), budget_usd, pricing)
    head_est = _estimate(head, None, tuple(overrides), budget_usd, pricing)
    return build_diff(
        [Pair(str(head), base_est, head_est)], base_label=base_label, head_label=head_label, limits=limits
    )


def _readable(path: Path, reader: Reader) -> bool:
    """False only when the reader says the file does not exist (e.g. not in the git revision); any
    other fault (a blob over the size limit) is the load's to report, with the file's name."""
    try:
        reader(Path(os.path.abspath(path)))  # readers take absolute paths, as load_scenario gives them
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return True


def _estimate(
    path: Path,
    reader: Reader | None,
    overrides: tuple[str, ...],
    budget_usd: Decimal | None,
    pricing: PricingOptions,
) -> Estimate:
    from agentcost.commands.batch import load_entry_scenario
    from agentcost.scenario.project import ProjectEntry

    entry = ProjectEntry(path=path)  # a file the command line names: its values may be quoted
    scenario = load_entry_scenario(entry, overrides=overrides, reader=reader, quotes=True)
    return estimate_scenario(scenario, options=pricing, budget_usd=budget_usd)


def _diff_projects(
    base: Path,
    head: Path,
    base_reader: Reader | None,
    base_missing: bool,
    overrides: tuple[str, ...],
    budget_usd: Decimal | None,
    *,
    base_label: str,
    head_label: str,
    limits: IncreaseLimits,
    pricing: PricingOptions,
) -> DiffReport:
    from agentcost.commands.batch import Batch, BatchItem, batch_gates, build_batch_report, estimate_batch
    from agentcost.scenario.project import load_project

    head_batch = estimate_batch(
        load_project(head),
        as_of=pricing.as_of,
        budget_usd=budget_usd,
        overrides=overrides,
        service_tier=pricing.service_tier,
        user_prices=pricing.user_prices,
    )
    base_batch = None
    if not base_missing:
        base_batch = estimate_batch(
            load_project(base, reader=base_reader),
            as_of=pricing.as_of,
            budget_usd=budget_usd,
            overrides=overrides,
            reader=base_reader,
            service_tier=pricing.service_tier,
            user_prices=pricing.user_prices,
        )

    def keyed(batch: Batch | None) -> dict[str, BatchItem]:
        if batch is None or batch.project.path is None:
            return {}
        folder = batch.project.path.parent
        items: dict[str, BatchItem] = {}
        for item in batch.items:
            key = _relative(item.entry.path, folder)
            n = 1
            while (label := key if n == 1 else f"{key} #{n}") in items:
                n += 1
            items[label] = item
        return items

    base_items, head_items = keyed(base_batch), keyed(head_batch)
    pairs: list[Pair] = []
    for key in [*head_items, *(k for k in base_items if k not in head_items)]:
        b, h = base_items.get(key), head_items.get(key)
        entry = h.entry if h is not None else b.entry if b is not None else None
        pairs.append(
            Pair(
                path=key,
                base=b.estimate if b is not None else None,
                head=h.estimate if h is not None else None,
                base_runs_per_day=b.entry.runs_per_day if b is not None else None,
                head_runs_per_day=h.entry.runs_per_day if h is not None else None,
                name=entry.name if entry is not None else None,
            )
        )
    return build_diff(
        pairs,
        base_label=base_label,
        head_label=head_label,
        kind="project",
        limits=limits,
        total_file=str(head),
        head_gates=batch_gates(build_batch_report(head_batch, per=limits.per)),
    )


def _relative(path: Path, folder: Path) -> str:
    try:
        return path.relative_to(folder).as_posix()
    except ValueError:
        return path.as_posix()
