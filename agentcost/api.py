"""The public Python API: the CLI's own pipeline (scenario -> tokens -> prices -> loop -> report).

``import agentcost`` exposes these names lazily; nothing heavy is imported until one is used::

    import agentcost

    result = agentcost.estimate("scenarios/bugfix.yaml", as_of="2026-11-30")
    result.total_cost_usd          # Decimal('0.0312129'), what `agentcost estimate -q` prints
    result.to_json()               # the text `agentcost estimate --format json` prints

A scenario is a path, a mapping (the parsed YAML; the files it names are read relative to
``base_dir``) or a :class:`~agentcost.scenario.model.Scenario` from :func:`load_scenario`. Options are
keyword-only; ``as_of`` takes a date, an aware or naive datetime (naive means UTC), an ISO text or
``None`` (today, UTC). Bad input raises :class:`~agentcost.errors.InputError`, whose text is the line
the CLI prints, except that an option is named as its keyword argument (``as_of: not a usable date:
'soon'``) where the CLI names its flag (``--as-of``).

Files named inside a scenario are read only from its directory and its git work tree, as by the
CLI; ``allow_paths=`` adds directories (``--allow-path``) and ``max_input_bytes=`` bounds the text
one call may tokenize (``--max-input-bytes``; docs/limits.md).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcost.errors import InputError
from agentcost.loop.options import as_of_datetime

if TYPE_CHECKING:
    from agentcost.commands.compare import CompareReport
    from agentcost.loop.estimate import Estimate
    from agentcost.prices.user import UserPrices
    from agentcost.report.estimate import Report, RequestLine, Totals
    from agentcost.report.gates import Gate
    from agentcost.scenario.model import Scenario

    PathLike = str | os.PathLike[str]
    ScenarioInput = PathLike | Mapping[str, Any] | Scenario
    DateInput = date | datetime | str | None

MAPPING_NAME = "<mapping>.yaml"
"""The file name a scenario given as a mapping is reported under (inside ``base_dir``)."""


@dataclass(frozen=True)
class EstimateResult:
    """One scenario's estimate: the report every renderer reads, and the gates it was checked against."""

    report: Report
    estimate: Estimate
    gates: tuple[Gate, ...]

    @property
    def total_cost_usd(self) -> Decimal:
        """What the task costs, subagents included: the figure ``agentcost estimate -q`` prints (the
        same exact value, written without trailing zeros)."""
        from agentcost.report.fmt import exact

        return Decimal(exact(self.report.totals.cost_usd))

    @property
    def requests(self) -> tuple[RequestLine, ...]:
        """The ledger: one line per billed request, in order."""
        return self.report.requests

    @property
    def totals(self) -> Totals:
        return self.report.totals

    @property
    def passed(self) -> bool:
        """No gate tripped (budget, context window): the CLI would exit 0."""
        return not any(g.tripped for g in self.gates)

    def to_json(self) -> str:
        """The JSON report, byte for byte what ``--format json`` prints (docs/json.md)."""
        return _json(self.report, self.gates)


@dataclass(frozen=True)
class CompareResult:
    """One scenario on several models, cheapest first: what ``agentcost compare`` shows."""

    report: CompareReport
    gates: tuple[Gate, ...]

    @property
    def costs_usd(self) -> dict[str, Decimal]:
        """Each model's total, by model id, in the report's order (cheapest first)."""
        from agentcost.report.fmt import exact

        return {row.report.model_id: Decimal(exact(row.report.totals.cost_usd)) for row in self.report.rows}

    @property
    def passed(self) -> bool:
        return not any(g.tripped for g in self.gates)

    def to_json(self) -> str:
        return _json(self.report, self.gates)


def load_scenario(
    scenario: PathLike | Mapping[str, Any],
    *,
    overrides: Sequence[str] = (),
    base_dir: PathLike | None = None,
    allow_paths: Sequence[PathLike] = (),
    max_input_bytes: int | None = None,
) -> Scenario:
    """Read and validate a scenario file (or a parsed mapping), with ``--set``-style ``overrides``.
    ``allow_paths``: more directories the files it names may be in (``--allow-path``)."""
    if isinstance(overrides, str):
        raise TypeError("overrides is a sequence of PATH=VALUE texts, not one text")
    from agentcost.scenario.load import read_scenario as load

    with _policy(allow_paths, max_input_bytes):
        if isinstance(scenario, Mapping):
            path, reader = _mapping_source(scenario, base_dir)
            return load(path, overrides=tuple(overrides), reader=reader)
        if base_dir is not None:
            scenario = Path(base_dir, scenario)
        return load(Path(scenario), overrides=tuple(overrides), reader=_uncached_under_allowed_roots())


def estimate(
    scenario: ScenarioInput,
    *,
    as_of: DateInput = None,
    model: str | None = None,
    budget_usd: Decimal | int | str | None = None,
    overrides: Sequence[str] = (),
    service_tier: str | None = None,
    prices: PathLike | None = None,
    base_dir: PathLike | None = None,
    allow_paths: Sequence[PathLike] = (),
    max_input_bytes: int | None = None,
) -> EstimateResult:
    """Estimate one scenario: what ``agentcost estimate SCENARIO`` computes.

    ``model`` replaces the scenario's model, ``budget_usd`` its budget (``--budget``), ``service_tier``
    its tier; ``prices`` is a price file (``--prices``); ``overrides`` are ``PATH=VALUE`` texts
    (``--set``), applied before validation; ``allow_paths`` and ``max_input_bytes`` as
    ``--allow-path`` and ``--max-input-bytes``.
    """
    from agentcost.loop.estimate import estimate_scenario
    from agentcost.loop.options import PricingOptions
    from agentcost.report.estimate import build_report
    from agentcost.report.gates import estimate_gates

    with _policy(allow_paths, max_input_bytes):
        loaded = _scenario(scenario, overrides, base_dir)
        when, budget = as_of_datetime(as_of), _usd(budget_usd, "budget_usd")
        pricing = PricingOptions(
            when, service_tier=service_tier, user_prices=_user_prices(prices), model=model
        )
        est = estimate_scenario(loaded, options=pricing, budget_usd=budget)
    report = build_report(est)
    return EstimateResult(report, est, estimate_gates(report))


def compare(
    scenario: ScenarioInput,
    models: Sequence[str],
    *,
    as_of: DateInput = None,
    overrides: Sequence[str] = (),
    service_tier: str | None = None,
    prices: PathLike | None = None,
    base_dir: PathLike | None = None,
    allow_paths: Sequence[PathLike] = (),
    max_input_bytes: int | None = None,
) -> CompareResult:
    """Estimate one scenario on each of ``models`` (names, ``provider/model`` or globs, as ``-m`` takes)."""
    if isinstance(models, str):
        raise TypeError("models is a sequence of model names, not one name")
    from agentcost.commands.compare import compare_gates, compare_models, expand_models

    with _policy(allow_paths, max_input_bytes):
        loaded = _scenario(scenario, overrides, base_dir)
        when = as_of_datetime(as_of)
        user_prices = _user_prices(prices)
        names = expand_models(models, as_of=when, user_prices=user_prices, service_tier=service_tier)
        report = compare_models(loaded, names, as_of=when, service_tier=service_tier, user_prices=user_prices)
    return CompareResult(report, tuple(compare_gates(report)))


# ---------------------------------------------------------------------------------------------
# Inputs


@contextmanager
def _policy(allow_paths: Sequence[PathLike], max_input_bytes: int | None) -> Iterator[None]:
    """The call's input policy: the one in force (a caller's, or the default) with ``allow_paths``
    added and ``max_input_bytes`` in place of its budget."""
    from agentcost.infra.policy import InputPolicy, current_policy, using_policy

    if isinstance(allow_paths, str | os.PathLike):
        raise TypeError("allow_paths is a sequence of directories, not one directory")
    if not allow_paths and max_input_bytes is None:
        yield
        return
    for given in allow_paths:
        if not os.path.isdir(given):
            raise InputError(f"not a directory: {os.fspath(given)}", key="allow_paths")
    if max_input_bytes is not None and (type(max_input_bytes) is not int or max_input_bytes < 1):
        raise InputError(
            f"must be a whole number of 1 or more, got {max_input_bytes!r}", key="max_input_bytes"
        )
    base = current_policy()
    roots = base.allowed_roots + tuple(Path(os.path.realpath(given)) for given in allow_paths)
    most = base.max_input_bytes if max_input_bytes is None else max_input_bytes
    with using_policy(InputPolicy(roots, most)):
        yield


def _scenario(scenario: ScenarioInput, overrides: Sequence[str], base_dir: PathLike | None) -> Scenario:
    from agentcost.scenario.model import Scenario

    if isinstance(scenario, Scenario):
        if overrides:
            raise TypeError("overrides apply while a scenario is read: pass a path or a mapping")
        return scenario
    return load_scenario(scenario, overrides=overrides, base_dir=base_dir)


def _uncached_under_allowed_roots() -> Any:
    """The plain file reader (no scenario cache: an entry does not record the directories its load
    was allowed to read) when the policy allows more directories; else None, the cached load."""
    from agentcost.infra.files import read_file
    from agentcost.infra.policy import current_policy

    return read_file if current_policy().allowed_roots else None


def _mapping_source(scenario: Mapping[str, Any], base_dir: PathLike | None) -> tuple[Path, Any]:
    """A virtual file holding the mapping as YAML, and a reader that serves it (others from disk)."""
    import yaml

    from agentcost.infra.files import read_file

    try:
        text = yaml.safe_dump(dict(scenario), sort_keys=False, allow_unicode=True)
    except yaml.YAMLError as err:
        raise TypeError(f"the scenario mapping holds a value YAML cannot represent: {err}") from None
    path = Path(base_dir if base_dir is not None else ".", MAPPING_NAME)
    absolute = os.path.abspath(path)  # readers are handed absolute paths
    data = text.encode("utf-8")

    def reader(file: Path) -> bytes:
        return data if os.path.abspath(file) == absolute else read_file(file)

    return path, reader


def _usd(value: Decimal | int | str | None, key: str) -> Decimal | None:
    if value is None:
        return None
    if isinstance(value, float):
        raise TypeError(f"{key}: give a Decimal, an int or a text ('0.05'), not a float")
    try:
        amount = Decimal(value)
    except InvalidOperation:
        raise InputError(f"not a dollar amount: {value!r}", key=key, hint="e.g. '0.05'") from None
    if not amount.is_finite() or amount <= 0:
        raise InputError(f"must be a dollar amount above 0, got {value!r}", key=key)
    return amount


def _user_prices(path: PathLike | None) -> UserPrices | None:
    if path is None:
        return None
    from agentcost.prices.user import load_user_prices

    return load_user_prices(Path(path))


def _json(report: object, gates: Sequence[Gate]) -> str:
    from agentcost.render.output import Format, render_text

    return render_text(report, Format.json, gates=gates)
