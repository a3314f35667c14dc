"""Scenario file (YAML, version 1) -> :class:`~agentcost.scenario.model.Scenario`.

The format is defined once, by the Spec mappings of :mod:`.values` and :mod:`.format` (strict types, no
unknown keys; the engine is :mod:`agentcost.infra.spec`): they validate the file, they are what the
builder reads, and they generate the published JSON Schema (:func:`json_schema`).

Reading (:func:`read_scenario`) goes in five steps, each raising :class:`~agentcost.errors.InputError`
with the file, the 1-based line and the key path of the problem:

1. read the bytes as UTF-8 and compose them with PyYAML (nodes keep their line numbers);
2. build plain Python values from the nodes ourselves, recording the line of every key path and
   refusing duplicate keys; numbers with a fraction become ``Decimal`` from the scalar's text, so a
   ``float`` never exists;
3. apply the ``--set PATH=VALUE`` overrides to those plain values, in order (an error about a value
   an override set names the override instead of a line: :class:`OverrideError`;
   :mod:`agentcost.scenario.overrides`);
4. validate the plain values with the format's Spec mappings and turn the first error (by line) into one
   readable message;
5. read the files the scenario names (each once), normalise the tool definitions, apply
   ``defaults`` and unroll ``repeat`` (:mod:`agentcost.scenario.build`; subagents:
   :mod:`agentcost.scenario.subagents`).

The text the load holds (files, texts, call inputs and tool definitions as JSON) is counted as it
grows, and the load stops once it passes the run's input budget (:mod:`agentcost.scenario.budget`).

Every file (the scenario and the files it names) is read through a :data:`Reader`: from disk by
default, or e.g. from a git revision (:func:`agentcost.infra.gitread.git_reader`).

Steps 1, 2 and 4 and the parsing of overrides are :mod:`agentcost.infra.yamlread`, shared with the other
file formats.

:func:`read_mapping` does the same for a scenario given in memory as a mapping (the Python API): its
values are checked and made plain (:func:`agentcost.infra.yamlread.mapping_doc`) in place of steps 1
and 2, and its errors name key paths (``rounds[1].tool: ...``), never a file or a line; the files
it names are read relative to a ``base_dir``, as if it were a file there.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from decimal import ROUND_HALF_UP
from pathlib import Path
from typing import Any

from agentcost.errors import InputError
from agentcost.infra.yamlread import (
    Doc,
    KeyPath,
    Reader,
    Unreadable,
    mapping_doc,
    parse,
    shown,
    text_reader,
    validate,
)
from agentcost.scenario.budget import LoadBudget, current_load, loading
from agentcost.scenario.build import ScenarioBuilder
from agentcost.scenario.format import ERROR_HINTS, RoundSpec, ScenarioFile, json_schema
from agentcost.scenario.model import MAX_CALLS, MAX_ROUNDS, SCENARIO_VERSION, Round, Scenario
from agentcost.scenario.overrides import apply_overrides

__all__ = ["MAPPING_NAME", "read_mapping", "read_scenario", "scenario_from_doc"]

_SUPPORTED_VERSIONS = (SCENARIO_VERSION,)

MAPPING_NAME = "<mapping>"
"""The name of the virtual file a scenario given as a mapping is in (in its ``base_dir``): its
``Scenario.path``, the name reports give it. No error names it."""


def read_scenario(
    path: Path | str, *, overrides: Sequence[str] = (), reader: Reader | None = None, quotes: bool = True
) -> Scenario:
    """Read, validate and unroll a scenario file.

    ``overrides`` are the texts of ``--set PATH=VALUE`` options, applied in order to the values read
    from the file before they are checked (see docs/scenario.md). ``reader`` reads the scenario and
    every file it names (default: from disk). The user's files are never modified.

    Raises :class:`InputError` (one line: ``file:line: key: message (hint)``) for anything wrong
    with the file or with the files it names, and :class:`OverrideError` (``file: --set
    PATH=VALUE: message (hint)``) for a wrong override or a wrong value set by one.

    ``quotes``: whether errors may echo the file's values and keys (:attr:`Doc.quotes`): True for
    a file the command line names, False for one named inside another file (a project's ``path:``
    entries: docs/security.md).
    """
    if isinstance(overrides, str):
        raise TypeError("overrides is a sequence of PATH=VALUE texts, not one text")
    path = Path(path)
    budget = LoadBudget(path)  # the text the load holds, subagents' too (agentcost.scenario.budget)
    read_text = budget.reader(text_reader(reader))
    with loading(budget):
        try:
            text = read_text(path)
        except Unreadable as e:
            raise InputError(e.reason, file=path, line=e.line) from None
        doc = parse(Doc(path, quotes=quotes), text)
        return _read_doc(doc, overrides, budget, read_text)


def read_mapping(
    value: Mapping[str, Any],
    *,
    base_dir: Path | str,
    overrides: Sequence[str] = (),
    reader: Reader | None = None,
) -> Scenario:
    """Validate and unroll a scenario given in memory: ``value`` is what a scenario file holds, parsed
    (e.g. by ``yaml.safe_load``; a ``float`` is read as the ``Decimal`` of its shortest text).

    The files it names (tools files, ``{file: ...}`` texts, subagent scenario files) are read by
    ``reader`` relative to ``base_dir``, and only where a file in ``base_dir`` could name them
    (:func:`agentcost.infra.policy.confine`); ``overrides`` as for :func:`read_scenario`.

    Raises :class:`InputError` located by key path, without a file or a line, for anything wrong
    with ``value`` (``rounds[1].tool: unknown tool 'Grep' (...)``); an error inside a file it names
    has that file's name and line, as in :func:`read_scenario`."""
    if isinstance(overrides, str):
        raise TypeError("overrides is a sequence of PATH=VALUE texts, not one text")
    path = Path(base_dir, MAPPING_NAME)
    budget = LoadBudget(None)
    read_text = budget.reader(text_reader(reader))
    with loading(budget):
        return _read_doc(mapping_doc(value, path), overrides, budget, read_text)


def _read_doc(
    doc: Doc, overrides: Sequence[str], budget: LoadBudget, read_text: Callable[[Path], str]
) -> Scenario:
    """Steps 3 to 5 of :func:`read_scenario` (inside ``loading(budget)``), on the parsed ``doc``."""
    _check_top_level(doc)
    apply_overrides(doc, overrides)
    if overrides:
        _check_top_level(doc)  # again: an override may have set the version
    spec = validate(ScenarioFile, doc, doc.value, (), ERROR_HINTS)
    budget.inputs(_call_inputs(spec))  # before the builder makes a JSON text of each
    scenario = ScenarioBuilder(doc, spec, read_text, scenario_from_doc).scenario(tuple(overrides))
    budget.built(scenario)
    _check_rounds_in_all(doc, scenario)
    return scenario


def _call_inputs(spec: ScenarioFile) -> Iterator[dict[str, Any]]:
    """The ``input`` of every call written in the file, as the builder turns each into a JSON text
    of its own: once per call written (a repeated round's once; an alias's each time it is used)."""
    for item in spec.rounds or []:
        if isinstance(item, RoundSpec):
            for call in item.calls if item.calls is not None else (item,):
                if call.input is not None:
                    yield call.input


def _runs(scenario: Scenario) -> list[tuple[Round, int]]:
    """Each distinct round the run makes (none past ``limits.max_rounds``) and how often: the rounds
    of a ``repeat`` are one shared Round, so this is a step per round, not per call made."""
    made: dict[int, tuple[Round, int]] = {}
    for r in scenario.rounds[: scenario.limits.max_rounds]:  # [:None] is all of them
        made[id(r)] = (r, made[id(r)][1] + 1 if id(r) in made else 1)
    return list(made.values())


def _failed_requests(scenario: Scenario) -> int:
    """Failed attempts a run makes, each a request of its own: the failing calls (``retries.count``,
    else ``retries.share`` of the tool rounds, rounded half up) times ``retries.attempts - 1``."""
    retries = scenario.retries
    failing = retries.count
    if not failing and retries.share:
        tool_rounds = sum(1 for r in scenario.rounds if r.calls)
        failing = int((retries.share * tool_rounds).to_integral_value(rounding=ROUND_HALF_UP))
    return failing * retries.failed_per_call


def _in_all(scenario: Scenario, memo: dict[int, tuple[int, int]]) -> tuple[int, int]:
    """(rounds, tool calls) a run makes: its own, its failed attempts (:func:`_failed_requests`, each
    a request of its own) and those of every subagent run it starts (a repeated round starts its subagent each
    time). Each scenario is counted once (``memo``)."""
    if id(scenario) not in memo:
        own = min(len(scenario.rounds), scenario.limits.max_rounds or MAX_ROUNDS)
        n_rounds = own + _failed_requests(scenario)
        n_calls = 0
        for r, times in _runs(scenario):
            n_calls += len(r.calls) * times
            for call in r.calls:
                if call.subagent is not None:
                    sub_rounds, sub_calls = _in_all(call.subagent, memo)
                    n_rounds, n_calls = n_rounds + sub_rounds * times, n_calls + sub_calls * times
        memo[id(scenario)] = (n_rounds, n_calls)
    return memo[id(scenario)]


def _check_rounds_in_all(doc: Doc, scenario: Scenario) -> None:
    """At most MAX_ROUNDS rounds and MAX_CALLS tool calls in all, failed calls, parallel calls and
    subagents' included: they multiply (1,000 rounds starting a 1,000-round subagent are a million;
    100,000 repeats of 2,000 parallel calls are 200 million calls), and the work grows with them.
    The error points at the biggest contributor."""
    memo: dict[int, tuple[int, int]] = {}
    rounds, calls = _in_all(scenario, memo)
    if rounds <= MAX_ROUNDS and calls <= MAX_CALLS:
        return
    which = 0 if rounds > MAX_ROUNDS else 1  # rounds, else calls
    parts: dict[tuple[str, int | None], int] = {}  # what each subagent, or each round's calls, adds
    for r, times in _runs(scenario):
        if which == 1:
            parts["round", r.line] = parts.get(("round", r.line), 0) + len(r.calls) * times
        for call in r.calls:
            if call.subagent is not None:
                key = ("subagent", call.subagent_line)
                parts[key] = parts.get(key, 0) + memo[id(call.subagent)][which] * times
    kind, line = max(parts, key=lambda at: parts[at], default=("retries", None))
    added = parts.get((kind, line), 0)
    at: KeyPath
    if which == 0:
        counted = (
            f"more than {MAX_ROUNDS:,} rounds in all, counting failed calls and subagents' rounds: {rounds:,}"
        )
        failed = _failed_requests(scenario)
        if failed and failed >= added:
            if scenario.retries.failed_per_call > 1:
                raise doc.error(
                    ("retries", "attempts"),
                    f"{counted}, {failed:,} of them failed attempts",
                    "each failed attempt is a request of its own; give fewer attempts or failing calls",
                )
            raise doc.error(
                ("retries", "count"),
                f"{counted}, {failed:,} of them failed calls",
                "each failed call is a request of its own; give fewer, or retries.share",
            )
    else:
        counted = (
            f"more than {MAX_CALLS:,} tool calls in all, counting parallel calls and subagents': {calls:,}"
        )
    if kind == "round":
        at = next(
            (p for p, n in doc.lines.items() if n == line and len(p) == 2 and p[0] == "rounds"), ("rounds",)
        )
        raise doc.error(
            at,
            f"{counted}, {added:,} of them made by this round",
            "each repeat makes all of the round's calls again; lower repeat or the parallel calls",
        )
    at = next((p for p, n in doc.lines.items() if n == line and p and p[-1] == "subagent"), ("rounds",))
    raise doc.error(
        at,
        f"{counted}, {added:,} of them in the runs of this subagent",
        "a round starts its subagent each time it runs, repeats too; lower repeat, the subagent's "
        "rounds or limits.max_rounds",
    )


def scenario_from_doc(doc: Doc, read_text: Callable[[Path], str], *, depth: int = 0) -> Scenario:
    """The scenario in an already parsed document (a subagent's: :mod:`agentcost.scenario.subagents`): its top
    level checked, validated and read, the files it names read by ``read_text``."""
    _check_top_level(doc)
    spec = validate(ScenarioFile, doc, doc.value, (), ERROR_HINTS)
    budget = current_load() or LoadBudget(doc.file)
    budget.inputs(_call_inputs(spec))
    scenario = ScenarioBuilder(doc, spec, read_text, scenario_from_doc, depth=depth).scenario(())
    budget.built(scenario)
    return scenario


def _check_top_level(doc: Doc) -> None:
    """The top level is a mapping with a supported version (checked before anything else)."""
    if not isinstance(doc.value, dict):
        raise doc.error(
            (), f"expected a mapping of scenario keys at the top level, got {shown(doc.value, quote=False)}"
        )
    supported = ", ".join(str(v) for v in _SUPPORTED_VERSIONS)
    if "version" not in doc.value:
        raise doc.error(("version",), "required key is missing", f"add 'version: {supported}' at the top")
    version = doc.value["version"]
    if type(version) is not int:
        got = shown(version, quote=doc.quotes)
        raise doc.error(("version",), f"expected an integer, got {got}", f"supported: {supported}")
    if version not in _SUPPORTED_VERSIONS:
        got = shown(version, quote=doc.quotes)
        raise doc.error(("version",), f"unsupported version {got}", f"supported: {supported}")


if __name__ == "__main__":  # python -m agentcost.scenario.load > docs/scenario.schema.json
    print(json.dumps(json_schema(), indent=2))  # the same text as `agentcost schema`
