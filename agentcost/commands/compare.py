"""One scenario on several models -> :class:`CompareReport`: ``agentcost compare`` as a library.

``expand_models`` turns what the user wrote (names, globs such as ``claude-sonnet-*``, provider
selectors such as ``anthropic/*`` or ``openai/gpt-5*``, a ``--models`` file) into model ids (a glob
keeps chat models only: :func:`is_chat_model`; ``select_models`` also says which it skipped);
``compare_models`` estimates the scenario on each with :func:`~agentcost.loop.estimate.estimate_scenario`
(so every row's total is the one ``estimate --model`` gives) and derives the comparison: cost per
request, ratio to the cheapest, whether every request fits the context window (a what-if: a row
that does not fit is marked, never a tripped gate). Token counts are
shared through ``agentcost.tokens.count.DEFAULT_MEMO``: each distinct text is tokenized once per encoding,
not once per model. Renderers live in ``agentcost.render.compare``.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcost.commands.batch import share
from agentcost.errors import InputError, UnfitModel
from agentcost.infra.record import record
from agentcost.loop.estimate import estimate_scenario
from agentcost.report.build import build_report
from agentcost.report.compare import CompareReport as CompareReport  # the api module's import of it
from agentcost.report.compare import CompareRow, UnfitRow
from agentcost.report.estimate import REPORT_VERSION, Report, joined_price_label, unit_cost
from agentcost.report.gates import Gate, budget_gate, context_gate
from agentcost.report.notes import labelled_caveats
from agentcost.report.outcome import PER_TASK_NOTE
from agentcost.scenario.model import Scenario

if TYPE_CHECKING:
    from agentcost.prices.pricing import ModelPrices
    from agentcost.prices.user import UserPrices

RATIO_PLACES = Decimal("0.01")  # ratio to the cheapest, rounded half-up: 1.00, 3.42
PER_REQUEST_PLACES = Decimal("1E-10")  # dollars per request, rounded half-up to 10 places
_GLOB = "*?["


# --------------------------------------------------------------------------------------------
# Model selectors
# --------------------------------------------------------------------------------------------


MAX_SELECTORS = 1_000
"""Most model selectors one compare takes (options and --models file together; docs/limits.md)."""


# genai-prices has no "kind" field: a model is known by what it is priced for and by its name.
# Output priced per audio or image token means the model generates audio or images (realtime,
# gpt-audio, live, image models); the words catch those genai-prices prices per text token only
# (gpt-4o-mini-tts, gpt-4o-transcribe, gpt-image-1, gpt-5-image, gpt-4o-audio-preview) and
# embedding/moderation models. Models genai-prices cannot price per input and output token
# (tts-1, whisper-1, text-embedding-*) are not listed at all.
NOT_CHAT_UNITS = frozenset({"output_audio_mtok", "output_image_mtok"})


def is_chat_model(prices: ModelPrices) -> bool:
    """Whether a model generates text from a prompt (chat or completion), the kind ``compare`` can
    put side by side: not one that bills audio or image output (``NOT_CHAT_UNITS``), nor one the
    price catalog classes as speech, transcription, realtime, image, embedding or moderation
    (:func:`agentcost.prices.catalog.not_chat_kind`, the rule ``models`` uses)."""
    from agentcost.prices.catalog import not_chat_kind

    if prices.table is not None and any(u.key in NOT_CHAT_UNITS for u in prices.table.units):
        return False
    return not_chat_kind(prices.model_id, prices.name) is None


@record
class ModelSelection:
    """The models selectors chose (``provider/model_id``, in order) and those globs skipped
    because they are not chat models (``provider/model_id``, in order; none of them chosen)."""

    models: list[str]
    skipped: list[str]


def expand_models(
    selectors: Sequence[str],
    *,
    as_of: datetime,
    models_file: Path | None = None,
    user_prices: UserPrices | None = None,
    service_tier: str | None = None,
) -> list[str]:
    """The models of :func:`select_models` (the ones it skipped left out)."""
    return select_models(
        selectors, as_of=as_of, models_file=models_file, user_prices=user_prices, service_tier=service_tier
    ).models


def select_models(
    selectors: Sequence[str],
    *,
    as_of: datetime,
    models_file: Path | None = None,
    user_prices: UserPrices | None = None,
    service_tier: str | None = None,
) -> ModelSelection:
    """Model selectors -> the models to compare, a row each, in the order given: a name as typed
    (``grok-4``, ``us.anthropic.claude-...``: the row shows it so, beside the price row it
    resolves to), a glob's matches as ``provider/model_id`` (a model already chosen is not added
    again); the same selector twice is one.

    ``user_prices`` adds the models of a ``--prices`` file. With a ``service_tier`` other than
    standard, a glob keeps only the models that offer it (a model named outright is checked when it
    is estimated, and refused there if it does not offer the tier).

    A selector is a model name (``gpt-5``, ``openai/gpt-5``, any name ``estimate --model`` takes), a
    glob over model ids (``claude-sonnet-*``) or a provider selector (``anthropic/*``,
    ``openai/gpt-5*``); a glob keeps the chat models it matches (:func:`is_chat_model`) and lists
    the others in ``skipped``, while a model named outright is always chosen. ``models_file`` adds
    the selectors of a file after ``selectors``: a YAML list, or one selector per line with ``#``
    comments. An unknown name, a glob that matches nothing or only models that are not chat models
    is an :class:`InputError` with suggestions.
    """
    from agentcost.prices.lookup import resolve_model, unquoted

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
    found: list[str] = []  # a row each: a name as typed, a glob's match as provider/model_id
    rows: set[str] = set()  # the provider/model_id of every model chosen so far
    skipped: list[str] = []
    for selector, line in entries:
        try:
            if any(c in selector for c in _GLOB):  # a line of a --models file is never quoted
                named = repr(selector.strip()) if line is None else "the glob on this line"
                ids, others = _glob(selector.strip(), as_of, user_prices, service_tier, named)
                skipped.extend(model for model in others if model not in skipped)
                matched = [model for model in ids if model not in rows]  # a glob adds what is not chosen
                found.extend(matched)
                rows.update(matched)
            else:  # a name typed is a row of its own, shown as typed, even if another names its model
                prices = resolve_model(selector, as_of=as_of, user_prices=user_prices)
                name = selector.strip()
                if name not in found:
                    found.append(name)
                    rows.add(f"{prices.provider}/{prices.model_id}")
        except InputError as err:
            if line is None:  # a --model option
                raise InputError(err.message, key="model", hint=err.hint) from None
            err = unquoted(err)  # a --models file is data, never quoted (docs/security.md): the kind alone
            raise InputError(err.message, file=models_file, line=line, hint=err.hint) from None
    return ModelSelection(found, [model for model in skipped if model not in rows])


def _glob(
    selector: str,
    as_of: datetime,
    user_prices: UserPrices | None = None,
    service_tier: str | None = None,
    named: str | None = None,
) -> tuple[list[str], list[str]]:
    """The chat models ``selector`` matches and the other models it matches; errors name the
    selector as ``named`` (default: quoted)."""
    named = repr(selector) if named is None else named
    from agentcost.prices.genai import check_provider, known_model_ids
    from agentcost.prices.listing import list_models

    head, slash, rest = selector.partition("/")
    provider, pattern = (check_provider(head, key="model"), rest) if slash else ("", selector)
    # list_models takes the glob as it is, filtered by provider with "provider/"
    matched = list_models(
        as_of=as_of, pattern=f"{provider}/{pattern}" if slash else pattern, user_prices=user_prices
    )
    if matched and service_tier not in (None, "standard"):
        offering = [m for m in matched if service_tier in m.service_tiers]
        if not offering:
            raise InputError(
                f"no model matching {named} offers the {service_tier} service tier",
                key="service_tier",
                hint="drop --service-tier, or compare other models",
            )
        matched = offering
    if matched:
        chat = [f"{m.provider}/{m.model_id}" for m in matched if is_chat_model(m)]
        others = [f"{m.provider}/{m.model_id}" for m in matched if not is_chat_model(m)]
        if not chat:
            raise InputError(
                f"{named} matches no chat models, only {_few(others)}",
                hint="name a model with --model to compare it anyway",
            )
        return chat, others
    candidates = known_model_ids(provider or None)
    stem = pattern.strip(_GLOB) or pattern
    close = difflib.get_close_matches(stem.lower(), candidates, n=3, cutoff=0.5)
    listing = "run 'agentcost models' to list known models"
    hint = f"did you mean: {', '.join(close)}? {listing}" if close else listing
    raise InputError(f"no known model matches {named}", hint=hint)


def _few(models: Sequence[str], shown: int = 4, *, count: bool = True) -> str:
    """``gpt-4o-transcribe, gpt-realtime, ... (21 in all)``: the ids of a few of ``models``."""
    ids = [m.rpartition("/")[2] for m in models]
    if len(ids) <= shown:
        return ", ".join(ids)
    return ", ".join(ids[:shown]) + ", ..." + (f" ({len(ids)} in all)" if count else "")


def skipped_note(skipped: Sequence[str]) -> str | None:
    """The one line saying which models globs skipped (None when none were)."""
    if not skipped:
        return None
    noun = "model that is not a chat model" if len(skipped) == 1 else "models that are not chat models"
    shown = _few(skipped, count=False)
    return f"skipped {len(skipped)} {noun}: {shown} (name one with --model to compare it anyway)"


_SCALAR_KINDS = {
    "tag:yaml.org,2002:int": "a number",
    "tag:yaml.org,2002:float": "a number",
    "tag:yaml.org,2002:bool": "a boolean",
    "tag:yaml.org,2002:null": "nothing (null)",
    "tag:yaml.org,2002:timestamp": "a date",
}


def read_models_file(path: Path) -> list[tuple[str, int]]:
    """The selectors in a ``--models`` file, each with its 1-based line.

    A YAML list of names (``- gpt-5``, or ``[gpt-5, claude-sonnet-4-5]``), or plain lines: one name
    or glob per line, blank lines and ``#`` comments ignored.
    """
    import yaml

    from agentcost.infra.yamlread import Unreadable, compose, read_text

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
                scalar = isinstance(item, yaml.ScalarNode)  # the file's text is never quoted: its kind
                shown = (
                    _SCALAR_KINDS.get(item.tag, "a tagged value") if scalar else "a nested list or mapping"
                )
                if scalar and item.tag == "tag:yaml.org,2002:str":
                    shown = "an empty text"
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


def compare_models(
    scenario: Scenario,
    models: Sequence[str],
    *,
    as_of: datetime,
    service_tier: str | None = None,
    user_prices: UserPrices | None = None,
    per: str = "run",
    budget_usd: Decimal | None = None,
    at_time: bool | None = None,
) -> CompareReport:
    """Estimate ``scenario`` on each of ``models`` (names as ``estimate --model`` takes them).

    A row per name, shown as given (two names of one model are two rows, each beside its price
    row). A model the scenario cannot run on (:class:`~agentcost.errors.UnfitModel`: a server tool
    it lacks, a service tier it does not offer) is listed in ``unfit`` with the reason, and the
    others are compared; when no model can run it, that first reason is the error.
    ``service_tier`` (``--service-tier``) replaces the scenario's for every model; ``user_prices``
    is a ``--prices`` file; ``budget_usd`` (``--budget``) replaces the scenario's
    ``limits.budget_usd``, and each row is judged against the budget. ``per="task"`` (``--per
    task``) ranks the models by the expected cost per completed task of the scenario's ``outcome``
    (per run without one: the warnings say so), and the budget is judged per task too. ``at_time``:
    whether ``as_of``'s time picks time-of-day prices
    (:attr:`~agentcost.loop.options.PricingOptions.at_time`).
    """
    if not models:
        raise InputError("no models to compare", key="model", hint="e.g. --model gpt-5")
    reports: list[tuple[str, Report]] = []
    unfit: list[tuple[str, UnfitModel]] = []
    for model in models:
        try:
            est = estimate_scenario(
                scenario,
                as_of=as_of,
                model=model,
                service_tier=service_tier,
                user_prices=user_prices,
                budget_usd=budget_usd,
                at_time=at_time,
            )
        except UnfitModel as err:
            unfit.append((model, err))
            continue
        reports.append((model, build_report(est, per=per)))
    if not reports:
        raise unfit[0][1]
    reports.sort(key=lambda item: (unit_cost(item[1], per), item[1].model_id, item[1].provider, item[0]))
    cheapest = unit_cost(reports[0][1], per)
    rows = tuple(_row(model, report, cheapest, per) for model, report in reports)
    # the window is said in its column; the per-task note once, below
    warnings = [
        f"{r.model}: {w}"
        for r in rows
        for w in r.report.warnings
        if w not in (_over_window(r), PER_TASK_NOTE)
    ]
    if per == "task" and scenario.outcome is None:
        warnings.append(PER_TASK_NOTE)
    first = rows[0].report
    budget = first.budget
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
        price_sources=joined_price_label([r.report for r in rows], dated=False),
        per=per,
        notes=labelled_caveats([(r.model, r.report) for r in rows]),
        unfit=tuple(_unfit_row(model, err, as_of, user_prices) for model, err in unfit),
        budget_usd=None if budget is None else budget.limit_usd,
        budget_source=None if budget is None else budget.source,
    )


def _unfit_row(model: str, err: UnfitModel, as_of: datetime, user_prices: UserPrices | None) -> UnfitRow:
    """The row of a model the scenario cannot run on: the reason and hint of its error, and the
    price row its name resolves to (at the standard tier: a tier it lacks is the reason)."""
    from agentcost.prices.lookup import resolve_model

    try:
        prices = resolve_model(model, as_of=as_of, user_prices=user_prices)
        row: str | None = f"{prices.provider}/{prices.model_id}"
    except InputError:
        row = None
    return UnfitRow(
        model=model,
        price_row=row,
        reason=err.message,
        hint=err.hint,
        file=None if err.file is None else str(err.file),
        line=err.line,
    )


def _over_window(row: CompareRow) -> str | None:
    """The estimate's warning that a request exceeds the window (agentcost.report.estimate words
    it): left out of the comparison's warnings, where the row's context column says it."""
    if row.fits_context is not False or row.context_window is None:
        return None
    return (
        f"largest request ({row.max_input_tokens:,} input tokens) exceeds the context window of"
        f" {row.model_id} ({row.context_window:,})"
    )


def _row(model: str, report: Report, cheapest: Decimal, per: str = "run") -> CompareRow:
    t = report.totals
    window = report.context_window
    unit = unit_cost(report, per)
    ratio: Decimal | None
    if cheapest > 0:
        ratio = (unit / cheapest).quantize(RATIO_PLACES, rounding=ROUND_HALF_UP)
    else:
        ratio = Decimal("1.00") if unit == 0 else None
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
        cost_usd=unit,
        cost_per_request_usd=per_request,
        ratio_to_cheapest=ratio,
        cheapest=unit == cheapest,
        context_window=window,
        max_input_tokens=report.max_input_tokens,
        fits_context=None if window is None else report.max_input_tokens <= window,
        approximate=report.approximate,
        encoding=report.encoding,
        caching_mode=report.caching_mode,
        report=report,
        cost_per_run_usd=t.cost_usd,
        cost_per_task_usd=unit_cost(report, "task"),
        budget=report.budget,
        over_by_usd=None if report.budget is None else -report.budget.headroom_usd,
    )


def compare_gates(report: CompareReport) -> tuple[Gate, ...]:
    """Each model's budget check (``limits.budget_usd`` or ``--budget``: exit 1 when a model is
    over it, as ``estimate`` gates its one model), then each model's context-window check
    (pointing at the scenario file); none where unknown.

    The context check never trips: a comparison is a what-if, so a model whose window is too small
    is a row marked as not fitting (``fits_context``), not a failed run. ``estimate`` keeps its
    context gate. A model the scenario cannot run on is a row marked unfit, never a gate."""
    budgets = []
    for row in report.rows:
        gate = budget_gate(row.report)
        if gate is not None:  # "PATH: MODEL: over budget: estimated $X > $Y (limits.budget_usd)"
            path = f"{report.scenario_path}: "
            rest = gate.message.removeprefix(path)
            budgets.append(replace(gate, message=f"{path}{row.model}: {rest}"))
    gates = (context_gate(row.report) for row in report.rows)
    return (*budgets, *(replace(g, tripped=False) for g in gates if g is not None))
