"""One scenario on several models -> :class:`CompareReport`: ``agentcost compare`` as a library.

``expand_models`` turns what the user wrote (names, globs such as ``claude-sonnet-*``, provider
selectors such as ``anthropic/*`` or ``openai/gpt-5*``, a ``--models`` file) into model ids;
``compare_models`` estimates the scenario on each with :func:`~agentcost.loop.estimate.estimate_scenario`
(so every row's total is the one ``estimate --model`` gives) and derives the comparison: cost per
request, ratio to the cheapest, whether every request fits the context window. Token counts are
shared through ``agentcost.tokens.count.DEFAULT_MEMO``: each distinct text is tokenized once per encoding,
not once per model. Renderers live in ``agentcost.render.compare``.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcost.commands.batch import share
from agentcost.errors import InputError
from agentcost.loop.estimate import estimate_scenario
from agentcost.report.estimate import REPORT_VERSION, Report, build_report, joined_price_label
from agentcost.report.gates import Gate, context_gate
from agentcost.scenario.model import Scenario

if TYPE_CHECKING:
    from agentcost.prices.user import UserPrices

RATIO_PLACES = Decimal("0.01")  # ratio to the cheapest, rounded half-up: 1.00, 3.42
PER_REQUEST_PLACES = Decimal("1E-10")  # dollars per request, rounded half-up to 10 places
_GLOB = "*?["


# --------------------------------------------------------------------------------------------
# Model selectors
# --------------------------------------------------------------------------------------------


MAX_SELECTORS = 1_000
"""Most model selectors one compare takes (options and --models file together; docs/limits.md)."""


def expand_models(
    selectors: Sequence[str],
    *,
    as_of: datetime,
    models_file: Path | None = None,
    user_prices: UserPrices | None = None,
    service_tier: str | None = None,
) -> list[str]:
    """Model selectors -> ``provider/model_id`` strings, in the order given, without duplicates.

    ``user_prices`` adds the models of a ``--prices`` file. With a ``service_tier`` other than
    standard, a glob keeps only the models that offer it (a model named outright is checked when it
    is estimated, and refused there if it does not offer the tier).

    A selector is a model name (``gpt-5``, ``openai/gpt-5``, any name ``estimate --model`` takes), a
    glob over model ids (``claude-sonnet-*``) or a provider selector (``anthropic/*``,
    ``openai/gpt-5*``). ``models_file`` adds the selectors of a file after ``selectors``: a YAML list,
    or one selector per line with ``#`` comments. An unknown name or a glob that matches nothing is
    an :class:`InputError` with suggestions.
    """
    from agentcost.prices.lookup import resolve_model

    entries: list[tuple[str, int | None]] = [(s, None) for s in selectors]
    if models_file is not None:
        entries += read_models_file(models_file)
    if not entries:
        raise InputError("no models to compare", key="model", hint="e.g. --model gpt-5 --model 'anthropic/*'")
    firsts: dict[str, int | None] = {}  # the same selector again selects the same models
    for selector, line in entries:
        firsts.setdefault(selector, line)
    entries = list(firsts.items())
    if len(entries) > MAX_SELECTORS:
        where = entries[MAX_SELECTORS][1]
        raise InputError(
            f"more than {MAX_SELECTORS:,} model selectors",
            file=models_file if where is not None else None,
            line=where,
            key=None if where is not None else "model",
            hint="globs such as 'anthropic/*' select many models in one line",
        )
    found: list[str] = []
    for selector, line in entries:
        try:
            if any(c in selector for c in _GLOB):
                ids = _glob(selector.strip(), as_of, user_prices, service_tier)
            else:
                prices = resolve_model(selector, as_of=as_of, user_prices=user_prices)
                ids = [f"{prices.provider}/{prices.model_id}"]
        except InputError as err:
            if line is None:  # a --model option
                raise InputError(err.message, key="model", hint=err.hint) from None
            raise InputError(err.message, file=models_file, line=line, hint=err.hint) from None
        found.extend(model for model in ids if model not in found)
    return found


def _glob(
    selector: str, as_of: datetime, user_prices: UserPrices | None = None, service_tier: str | None = None
) -> list[str]:
    from agentcost.prices.genai import SUPPORTED_PROVIDERS, known_model_ids
    from agentcost.prices.listing import list_models

    provider, slash, pattern = selector.rpartition("/")
    provider = provider.strip().lower()
    if slash and provider not in SUPPORTED_PROVIDERS:
        raise InputError(
            f"unsupported provider {provider!r} in {selector!r}",
            hint="supported providers: " + ", ".join(SUPPORTED_PROVIDERS),
        )
    # list_models takes the glob as it is, filtered by provider with "provider/"
    matched = list_models(
        as_of=as_of, pattern=f"{provider}/{pattern}" if slash else pattern, user_prices=user_prices
    )
    if matched and service_tier not in (None, "standard"):
        offering = [m for m in matched if service_tier in m.service_tiers]
        if not offering:
            raise InputError(
                f"no model matching {selector!r} offers the {service_tier} service tier",
                key="service_tier",
                hint="drop --service-tier, or compare other models",
            )
        matched = offering
    if matched:
        return [f"{m.provider}/{m.model_id}" for m in matched]
    candidates = known_model_ids(provider or None)
    stem = pattern.strip(_GLOB) or pattern
    close = difflib.get_close_matches(stem.lower(), candidates, n=3, cutoff=0.5)
    listing = "run 'agentcost models' to list known models"
    hint = f"did you mean: {', '.join(close)}? {listing}" if close else listing
    raise InputError(f"no known model matches {selector!r}", hint=hint)


def read_models_file(path: Path) -> list[tuple[str, int]]:
    """The selectors in a ``--models`` file, each with its 1-based line.

    A YAML list of names (``- gpt-5``, or ``[gpt-5, claude-sonnet-4-5]``), or plain lines: one name
    or glob per line, blank lines and ``#`` comments ignored.
    """
    import yaml

    from agentcost.infra.yamlread import Unreadable, bounded, compose, read_text

    try:
        text = read_text(path)
    except Unreadable as e:
        raise InputError(e.reason, file=path, line=e.line, key="models_file") from None
    try:
        root: Any = compose(text)
    except yaml.YAMLError:
        root = None  # not YAML: read as lines
    entries: list[tuple[str, int]] = []
    if isinstance(root, yaml.SequenceNode):
        for item in root.value:
            line = item.start_mark.line + 1
            if not isinstance(item, yaml.ScalarNode) or item.tag != "tag:yaml.org,2002:str" or not item.value:
                scalar = isinstance(item, yaml.ScalarNode)
                shown = bounded(str(item.value)) if scalar else "a nested list or mapping"
                raise InputError(
                    f"expected a model name, got {shown}",
                    file=path,
                    line=line,
                    hint="a YAML list of model names, or one name per line",
                )
            entries.append((str(item.value).strip(), line))
    else:
        for number, raw in enumerate(text.splitlines(), start=1):
            name = raw.split("#", 1)[0].strip()
            if name.startswith("- "):  # a list item YAML could not read as a list
                name = name[2:].strip()
            if name:
                entries.append((name, number))
    if not entries:
        raise InputError(
            "the file names no models", file=path, key="models_file", hint="one model name per line"
        )
    return entries


# --------------------------------------------------------------------------------------------
# The comparison
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CompareRow:
    model: str  # as given (provider/model_id from expand_models)
    model_id: str
    model_name: str
    provider: str
    requests: int
    input_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    output_tokens: int
    cached_share: Decimal | None  # cache reads / input tokens, rounded to 4 places
    cost_usd: Decimal  # exactly estimate_scenario(scenario, model=model).ledger.totals.cost_usd
    cost_per_request_usd: Decimal  # cost / requests, rounded half-up to 10 places
    ratio_to_cheapest: Decimal | None  # cost / cheapest cost, rounded to 2 places (None: cheapest is $0)
    cheapest: bool
    context_window: int | None
    max_input_tokens: int
    fits_context: bool | None  # every request within the window; None when the window is unknown
    approximate: bool
    encoding: str
    caching_mode: str
    report: Report


@dataclass(frozen=True)
class CompareReport:
    version: int
    scenario_path: str
    scenario_name: str | None
    rows: tuple[CompareRow, ...]  # by cost, cheapest first (ties by model id)
    approximate: bool  # some model's counts are approximate
    price_source: str
    price_version: str
    as_of: str
    warnings: tuple[str, ...]
    price_label: str = ""  # every row's price source (and service tier), one line

    @property
    def cheapest(self) -> CompareRow:
        return self.rows[0]


def compare_models(
    scenario: Scenario,
    models: Sequence[str],
    *,
    as_of: datetime,
    service_tier: str | None = None,
    user_prices: UserPrices | None = None,
) -> CompareReport:
    """Estimate ``scenario`` on each of ``models`` (names as ``estimate --model`` takes them).

    Two names of the same model (``gpt-5``, ``openai/gpt-5``) give one row. ``service_tier``
    (``--service-tier``) replaces the scenario's for every model; ``user_prices`` is a ``--prices``
    file.
    """
    if not models:
        raise InputError("no models to compare", key="model", hint="e.g. --model gpt-5")
    reports: list[tuple[str, Report]] = []
    seen: set[tuple[str, str]] = set()
    for model in models:
        est = estimate_scenario(
            scenario, as_of=as_of, model=model, service_tier=service_tier, user_prices=user_prices
        )
        report = build_report(est)
        if (report.provider, report.model_id) in seen:
            continue
        seen.add((report.provider, report.model_id))
        reports.append((model, report))
    reports.sort(key=lambda item: (item[1].totals.cost_usd, item[1].model_id, item[1].provider))
    cheapest = reports[0][1].totals.cost_usd
    rows = tuple(_row(model, report, cheapest) for model, report in reports)
    warnings = [f"{r.model_id}: {w}" for r in rows for w in r.report.warnings]
    first = rows[0].report
    return CompareReport(
        version=REPORT_VERSION,
        scenario_path=str(scenario.path),
        scenario_name=scenario.name,
        rows=rows,
        approximate=any(r.approximate for r in rows),
        price_source=first.price_source,
        price_version=first.price_version,
        as_of=first.as_of,
        warnings=tuple(warnings),
        price_label=joined_price_label([r.report for r in rows]),
    )


def _row(model: str, report: Report, cheapest: Decimal) -> CompareRow:
    t = report.totals
    window = report.context_window
    ratio: Decimal | None
    if cheapest > 0:
        ratio = (t.cost_usd / cheapest).quantize(RATIO_PLACES, rounding=ROUND_HALF_UP)
    else:
        ratio = Decimal("1.00") if t.cost_usd == 0 else None
    per_request = (
        (t.cost_usd / t.requests).quantize(PER_REQUEST_PLACES, rounding=ROUND_HALF_UP)
        if t.requests
        else Decimal(0)
    )
    return CompareRow(
        model=model,
        model_id=report.model_id,
        model_name=report.model_name,
        provider=report.provider,
        requests=t.requests,
        input_tokens=t.input_tokens,
        cache_read_tokens=t.cache_read_tokens,
        cache_write_tokens=t.cache_write_tokens,
        output_tokens=t.output_tokens,
        cached_share=share(t.cache_read_tokens, t.input_tokens),
        cost_usd=t.cost_usd,
        cost_per_request_usd=per_request,
        ratio_to_cheapest=ratio,
        cheapest=t.cost_usd == cheapest,
        context_window=window,
        max_input_tokens=report.max_input_tokens,
        fits_context=None if window is None else report.max_input_tokens <= window,
        approximate=report.approximate,
        encoding=report.encoding,
        caching_mode=report.caching_mode,
        report=report,
    )


def compare_gates(report: CompareReport) -> tuple[Gate, ...]:
    """The context-window gate of each model (pointing at the scenario file); none where unknown."""
    return tuple(g for g in (context_gate(row.report) for row in report.rows) if g is not None)
