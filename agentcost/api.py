"""The public Python API: the CLI's own pipeline (scenario -> tokens -> prices -> loop -> report).

``import agentcost`` exposes these names lazily; nothing heavy is imported until one is used::

    import agentcost

    result = agentcost.estimate("scenarios/bugfix.yaml", as_of="2026-11-30")
    result.total_cost_usd          # a Decimal: what `agentcost estimate -q` prints (docs/api.md)
    result.to_json()               # the text `agentcost estimate --format json` prints

A scenario is a path, a mapping (the parsed YAML; the files it names are read relative to
``base_dir``) or a :class:`~agentcost.scenario.model.Scenario` from :func:`load_scenario`. Options are
keyword-only; ``as_of`` takes a date, an aware or naive datetime (naive means UTC), an ISO text or
``None`` (today, UTC); an amount of money takes a ``Decimal``, an ``int``, a text (``"0.05"``) or a
``float`` (read as its shortest text: ``0.1`` is ``Decimal('0.1')``). Bad input raises
:class:`~agentcost.errors.InputError`, whose text is the line the CLI prints, except that an option
is named as its keyword argument (``as_of: not a usable date: 'soon'``) where the CLI names its flag
(``--as-of``), and that an error in a mapping is located by its key path alone (``rounds[1].tool:
...``): it is in no file.

Files named inside a scenario are read only from its directory (``base_dir`` for a mapping) and its
git work tree, as by the CLI; ``allow_paths=`` adds directories (``--allow-path``) and
``max_input_bytes=`` bounds the text one call may tokenize (``--max-input-bytes``; docs/limits.md).

The results (:class:`EstimateResult`, :class:`CompareResult` and their rows) are small frozen
dataclasses of exact figures; docs/api.md is the guide. Every annotation here names a type this
module holds, so ``typing.get_type_hints`` works on each public function and method.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import field
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcost.errors import InputError
from agentcost.infra.record import record
from agentcost.loop.options import as_of_datetime, has_time
from agentcost.scenario.model import Scenario  # dataclasses only: light

if TYPE_CHECKING:
    from agentcost.commands.compare import CompareReport
    from agentcost.prices.user import UserPrices
    from agentcost.report.estimate import Report
    from agentcost.report.gates import Gate as ReportGate

__all__ = [
    "CapsResult",
    "CompareResult",
    "DateInput",
    "EstimateResult",
    "Gate",
    "ModelCost",
    "MoneyInput",
    "PathLike",
    "Request",
    "ScenarioInput",
    "Totals",
    "caps",
    "compare",
    "estimate",
    "load_scenario",
]

PathLike = str | os.PathLike[str]
"""A file or directory: a text or a :class:`pathlib.Path`."""
ScenarioInput = PathLike | Mapping[str, Any] | Scenario
"""A scenario file, a parsed scenario mapping, or a :class:`Scenario` from :func:`load_scenario`."""
DateInput = date | datetime | str | None
"""A price date: a date, a datetime (naive means UTC), an ISO text, or None for today (UTC)."""
MoneyInput = Decimal | int | float | str
"""An amount in US dollars: a ``Decimal``, an ``int``, a text (``"0.05"``) or a ``float`` (read as
its shortest text, ``Decimal(str(x))``); never a bool, NaN or infinity."""


# ---------------------------------------------------------------------------------------------
# Results


@record
class Request:
    """One billed request of the scenario's own loop, as a line of ``agentcost estimate``'s table."""

    index: int
    """1-based, in the order the requests are made."""
    kind: str
    """``"tool_use"`` (the response calls tools), ``"reply"`` (a chat turn's answer) or ``"final"``."""
    label: str
    """What the model did, as the table's column shows it: ``"Bash"``, ``"Read, Grep"``,
    ``"final answer"``, with ``(failed, retried)`` or ``(cache expired)`` where they apply."""
    input_tokens: int
    """Every input token of the request, cache reads and writes included."""
    cache_read_tokens: int
    cache_write_tokens: int
    output_tokens: int
    cost_usd: Decimal
    """The request's own cost, exact."""
    subagents_cost_usd: Decimal
    """What the subagents this response's calls started cost (not part of ``cost_usd``)."""


@record
class Totals:
    """The whole run, subagents' requests included."""

    requests: int
    input_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    output_tokens: int
    cost_usd: Decimal


@record
class Gate:
    """One check the CLI's exit code follows: ``"budget"`` or ``"context_window"``."""

    name: str
    tripped: bool
    message: str
    """One line with the figures, as the CLI prints it."""


@record
class EstimateResult:
    """One scenario's estimate: what ``agentcost estimate`` shows, as exact figures.

    ``total_cost_usd`` is the figure ``agentcost estimate -q`` prints; ``passed`` is False when a gate
    tripped (over the budget, or a request over the model's context window: the CLI exits 1)."""

    total_cost_usd: Decimal
    passed: bool
    model: str
    """The model id the run was priced on."""
    as_of: datetime
    """The moment (UTC) whose prices apply."""
    requests: tuple[Request, ...]
    """The scenario's own requests, in order (a subagent's are in ``totals``)."""
    totals: Totals
    gates: tuple[Gate, ...]
    _report: Any = field(repr=False, compare=False)  # internal: agentcost.report.estimate.Report
    _gates: Any = field(repr=False, compare=False)  # internal: the report's gates, for the renderers

    @property
    def report(self) -> Any:
        """The internal report the CLI's renderers read (``agentcost.report.estimate.Report``), kept
        for code written against it: not part of the documented API, and it may change."""
        return self._report

    def to_json(self) -> str:
        """The JSON report, byte for byte what ``agentcost estimate --format json`` prints (docs/json.md)."""
        return _json(self._report, self._gates)

    def to_dict(self) -> dict[str, Any]:
        """The JSON report, parsed (amounts are texts in it, as ``"0.05"``)."""
        parsed: dict[str, Any] = json.loads(self.to_json(), parse_float=Decimal)
        return parsed


@record
class ModelCost:
    """One model's row of a comparison."""

    model: str
    """The model id."""
    provider: str
    requests: int
    input_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    output_tokens: int
    cost_usd: Decimal
    """One run's total, exact (subagents included)."""
    fits_context: bool | None
    """Every request within the model's context window (None: the window is unknown)."""


@record
class CompareResult:
    """One scenario on several models, cheapest first: what ``agentcost compare`` shows."""

    rows: tuple[ModelCost, ...]
    """Cheapest first (ties by model id)."""
    passed: bool
    gates: tuple[Gate, ...]
    _report: Any = field(repr=False, compare=False)  # internal: agentcost.commands.compare.CompareReport
    _gates: Any = field(repr=False, compare=False)

    @property
    def costs_usd(self) -> dict[str, Decimal]:
        """Each model's total, by model id, cheapest first."""
        return {row.model: row.cost_usd for row in self.rows}

    @property
    def report(self) -> Any:
        """The internal report (``agentcost.commands.compare.CompareReport``), kept for code written
        against it: not part of the documented API, and it may change."""
        return self._report

    def to_json(self) -> str:
        """The JSON report, byte for byte what ``agentcost compare --format json`` prints."""
        return _json(self._report, self._gates)

    def to_dict(self) -> dict[str, Any]:
        """The JSON report, parsed."""
        parsed: dict[str, Any] = json.loads(self.to_json(), parse_float=Decimal)
        return parsed


@record
class CapsResult:
    """Runtime caps from the tail of the scenario's simulated runs: what ``agentcost caps`` prints."""

    max_turns: int
    """Model requests a run may make (Claude Agent SDK and OpenAI Agents SDK ``max_turns``)."""
    max_budget_usd: Decimal
    """Dollars a run may spend, rounded up to the cent (Claude Agent SDK ``max_budget_usd``)."""
    max_tokens: int
    """Output tokens of one request, thinking included, rounded up to a multiple of 256."""
    recursion_limit: int
    """LangGraph's ``recursion_limit`` for a ReAct agent making ``max_turns`` requests."""
    at: str
    """The statistic of the runs the caps are read at (``"p99"``, ``"max"``)."""
    runs: int
    """Runs simulated (1 when the scenario has no distribution)."""
    _report: Any = field(repr=False, compare=False)  # internal: agentcost.report.caps.CapsReport

    def to_json(self) -> str:
        """The JSON report, byte for byte what ``agentcost caps --format json`` prints."""
        return _json(self._report, ())

    def to_dict(self) -> dict[str, Any]:
        """The JSON report, parsed."""
        parsed: dict[str, Any] = json.loads(self.to_json(), parse_float=Decimal)
        return parsed


# ---------------------------------------------------------------------------------------------
# The API


def load_scenario(
    scenario: PathLike | Mapping[str, Any],
    *,
    overrides: Sequence[str] = (),
    base_dir: PathLike | None = None,
    allow_paths: Sequence[PathLike] = (),
    max_input_bytes: int | None = None,
) -> Scenario:
    """Read and validate a scenario file (or a parsed mapping), with ``--set``-style ``overrides``.

    A relative path is taken relative to ``base_dir`` when it is given; a mapping's files are read
    relative to ``base_dir`` (default: the working directory). ``allow_paths``: more directories the
    files it names may be in (``--allow-path``)."""
    if isinstance(overrides, str):
        raise TypeError("overrides is a sequence of PATH=VALUE texts, not one text")
    from agentcost.scenario.load import read_mapping, read_scenario

    with _policy(allow_paths, max_input_bytes):
        if isinstance(scenario, Mapping):
            base = Path(base_dir) if base_dir is not None else Path(".")
            return read_mapping(scenario, base_dir=base, overrides=tuple(overrides))
        if base_dir is not None:
            scenario = Path(base_dir, scenario)
        return read_scenario(Path(scenario), overrides=tuple(overrides))


def estimate(
    scenario: ScenarioInput,
    *,
    as_of: DateInput = None,
    model: str | None = None,
    budget_usd: MoneyInput | None = None,
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
    from agentcost.report.build import build_report
    from agentcost.report.gates import estimate_gates

    budget = _usd(budget_usd, "budget_usd")  # before any work: a wrong amount is the caller's typo
    with _policy(allow_paths, max_input_bytes):
        loaded = _scenario(scenario, overrides, base_dir)
        when = as_of_datetime(as_of)
        pricing = PricingOptions(
            when,
            service_tier=service_tier,
            user_prices=_user_prices(prices),
            model=model,
            at_time=has_time(as_of),
        )
        est = estimate_scenario(loaded, options=pricing, budget_usd=budget)
    report = build_report(est)
    return _estimate_result(report, estimate_gates(report))


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
        report = compare_models(
            loaded,
            names,
            as_of=when,
            service_tier=service_tier,
            user_prices=user_prices,
            at_time=has_time(as_of),
        )
    return _compare_result(report, tuple(compare_gates(report)))


def caps(
    scenario: ScenarioInput,
    *,
    at: str | None = None,
    runs: int | None = None,
    seed: int | None = None,
    margin: Decimal | int | str | None = None,
    as_of: DateInput = None,
    model: str | None = None,
    overrides: Sequence[str] = (),
    service_tier: str | None = None,
    prices: PathLike | None = None,
    base_dir: PathLike | None = None,
    allow_paths: Sequence[PathLike] = (),
    max_input_bytes: int | None = None,
) -> CapsResult:
    """Runtime caps for one scenario: what ``agentcost caps SCENARIO`` computes.

    ``at``: the statistic of the simulated runs (``"p99"``, ``"p95"``, ``"max"``; None: ``"p99"``);
    ``runs`` and ``seed`` as ``--simulate`` and ``--seed`` (None: 10,000 runs, seed 0, the CLI's
    defaults; the same draws as ``estimate --simulate``);
    ``margin``: percent added before rounding up (``20`` or ``"20%"``); the rest as for
    :func:`estimate`.
    """
    from agentcost.commands.caps import DEFAULT_AT, DEFAULT_RUNS, DEFAULT_SEED
    from agentcost.commands.caps import caps as build_caps

    with _policy(allow_paths, max_input_bytes):
        loaded = _scenario(scenario, overrides, base_dir)
        report = build_caps(
            loaded,
            at=DEFAULT_AT if at is None else at,
            runs=DEFAULT_RUNS if runs is None else runs,
            seed=DEFAULT_SEED if seed is None else seed,
            margin=None if margin is None else str(margin),
            as_of=as_of_datetime(as_of),
            model=model,
            service_tier=service_tier,
            user_prices=_user_prices(prices),
            at_time=has_time(as_of),
        )
    return CapsResult(
        max_turns=report.max_turns,
        max_budget_usd=_money(report.max_budget_usd),
        max_tokens=report.max_tokens,
        recursion_limit=report.langgraph_recursion_limit,
        at=report.runs.label,
        runs=report.runs.runs,
        _report=report,
    )


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
    if isinstance(scenario, Scenario):
        if overrides:
            raise TypeError("overrides apply while a scenario is read: pass a path or a mapping")
        return scenario
    return load_scenario(scenario, overrides=overrides, base_dir=base_dir)


def _usd(value: MoneyInput | None, key: str) -> Decimal | None:
    """An amount of money given to keyword ``key``: above 0 and finite; a float read as its shortest
    text (``0.01`` -> ``Decimal('0.01')``, not the binary fraction's 59 decimal places)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, Decimal | int | float | str):
        raise InputError(
            f"expected a dollar amount, got {type(value).__name__} {value!r}",
            key=key,
            hint="give a Decimal, an int, a float or a text such as '0.05'",
        )
    try:
        amount = Decimal(str(value)) if isinstance(value, float) else Decimal(value)
    except InvalidOperation:
        raise InputError(f"not a dollar amount: {value!r}", key=key, hint="e.g. '0.05'") from None
    if not amount.is_finite():
        raise InputError(f"not a finite amount: {value!r}", key=key, hint="e.g. '0.05'")
    if amount <= 0:
        raise InputError(f"must be a dollar amount above 0, got {value!r}", key=key)
    return amount


def _user_prices(path: PathLike | None) -> UserPrices | None:
    if path is None:
        return None
    from agentcost.prices.user import load_user_prices

    return load_user_prices(Path(path))


# ---------------------------------------------------------------------------------------------
# Results, from the reports the renderers read


def _money(amount: Decimal) -> Decimal:
    """``amount`` as the JSON report writes it (exact, without trailing zeros): ``str()`` of it is
    the JSON's text."""
    from agentcost.report.fmt import exact

    return Decimal(exact(amount))


def _gates(gates: Sequence[ReportGate]) -> tuple[Gate, ...]:
    return tuple(Gate(g.name, g.tripped, g.message) for g in gates)


def _estimate_result(report: Report, gates: tuple[ReportGate, ...]) -> EstimateResult:
    t = report.totals
    return EstimateResult(
        total_cost_usd=_money(t.cost_usd),
        passed=not any(g.tripped for g in gates),
        model=report.model_id,
        as_of=datetime.fromisoformat(report.as_of),
        requests=tuple(
            Request(
                index=line.index,
                kind=line.kind,
                label=line.label,
                input_tokens=line.input_tokens,
                cache_read_tokens=line.cache_read_tokens,
                cache_write_tokens=line.cache_write_tokens,
                output_tokens=line.output_tokens,
                cost_usd=_money(line.cost_usd),
                subagents_cost_usd=_money(sum((s.cost_usd for s in line.subagents), Decimal(0))),
            )
            for line in report.requests
        ),
        totals=Totals(
            t.requests,
            t.input_tokens,
            t.cache_read_tokens,
            t.cache_write_tokens,
            t.output_tokens,
            _money(t.cost_usd),
        ),
        gates=_gates(gates),
        _report=report,
        _gates=gates,
    )


def _compare_result(report: CompareReport, gates: tuple[ReportGate, ...]) -> CompareResult:
    rows = tuple(
        ModelCost(
            model=row.report.model_id,
            provider=row.provider,
            requests=row.requests,
            input_tokens=row.input_tokens,
            cache_read_tokens=row.cache_read_tokens,
            cache_write_tokens=row.cache_write_tokens,
            output_tokens=row.output_tokens,
            cost_usd=_money(row.report.totals.cost_usd),
            fits_context=row.fits_context,
        )
        for row in report.rows
    )
    passed = not any(g.tripped for g in gates)
    return CompareResult(rows, passed, _gates(gates), _report=report, _gates=gates)


def _json(report: object, gates: Sequence[ReportGate]) -> str:
    from agentcost.render.output import Format, render_text

    return render_text(report, Format.json, gates=gates)
