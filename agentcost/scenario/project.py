"""Project file (YAML, version 1) -> :class:`Project`: the scenarios a team runs, how often, and budgets.

A project file (``agentcost.yml`` by convention) lists scenario files with, for each, an optional
label, how many times a day it runs (for cost per day and per 30-day month), a per-run budget and
``--set`` style overrides; and optionally a budget for the total of one run of every scenario::

    version: 1
    name: Support agents
    budget_usd: 0.50
    scenarios:
      - path: bugfix.yaml          # relative to the project file
        runs_per_day: 200
        budget_usd: 0.05
        set: ["limits.max_rounds=12"]

It is read the way scenario files are (``agentcost.scenario.load``): composed with PyYAML keeping line
numbers, numbers with a fraction become ``Decimal`` from their text, validated by the Spec mappings
below (:mod:`agentcost.infra.spec`), and every problem is one :class:`~agentcost.errors.InputError`
naming the file, the 1-based line and the key path. The scenario files themselves are read later, by
``load_scenario``; here they are only checked to be readable and inside the directories the run allows
(:func:`agentcost.infra.policy.confine`), so that a wrong path points at the project file's line.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

import yaml

from agentcost.errors import InputError
from agentcost.infra.files import is_stdin
from agentcost.infra.policy import OutsideRoots, confine
from agentcost.infra.record import record
from agentcost.infra.spec import (
    Before,
    Bounds,
    Check,
    Dec,
    Invalid,
    ListOf,
    Lit,
    Model,
    Nullable,
    Schema,
    Str,
    Tagged,
    field,
)
from agentcost.infra.spec import json_schema as spec_json_schema
from agentcost.infra.validate import int_to_decimal
from agentcost.infra.yamlread import (
    Doc,
    KeyPath,
    OverrideError,
    Reader,
    Spec,
    Unreadable,
    compose,
    parse,
    parse_override,
    shown,
    text_reader,
    validate,
)
from agentcost.scenario.dists import median
from agentcost.scenario.model import Dist
from agentcost.scenario.values import DIST, MONEY, NAME, AnyDist, build_dist

__all__ = [
    "DEFAULT_PROJECT_FILE",
    "PROJECT_VERSION",
    "Project",
    "ProjectEntry",
    "Reader",
    "is_project_file",
    "json_schema",
    "load_project",
    "load_targets",
]

PROJECT_VERSION = 1
DEFAULT_PROJECT_FILE = "agentcost.yml"
MAX_RUNS_PER_DAY = Decimal(1_000_000_000)  # more is surely a typo, and keeps Decimal sums exact


# --------------------------------------------------------------------------------------------
# The format
# --------------------------------------------------------------------------------------------


def _at_most_max_runs(value: Decimal) -> Decimal:
    if value > MAX_RUNS_PER_DAY:
        raise Invalid("too_many_runs", f"must be <= {MAX_RUNS_PER_DAY:,}, got {value}")
    return value


RUNS_PER_DAY = Schema(
    Check(Bounds(Before(int_to_decimal, Dec()), ge=0), _at_most_max_runs),
    {"type": "number", "minimum": 0, "maximum": int(MAX_RUNS_PER_DAY)},
)


def _runs_kind(value: Any) -> str:
    """A mapping is a distribution of the day's runs; anything else is checked as a number."""
    return "dist" if isinstance(value, dict) else "~number"


RUNS_PER_DAY_VALUE = Tagged(_runs_kind, {"~number": RUNS_PER_DAY, "dist": DIST})
"""Runs a day: a number >= 0 (decimals allowed), or a distribution of each day's whole runs
(:mod:`agentcost.scenario.dists`, the scenarios' syntax), drawn day by day under ``--simulate``."""


class ProjectScenarioSpec(Spec):
    """One scenario of the project."""

    path: str = field(NAME, "The scenario file, relative to the project file.")
    name: str | None = field(
        Nullable(Str()), "A label for the report (default: the scenario's name).", default=None
    )
    runs_per_day: Decimal | AnyDist | None = field(
        Nullable(RUNS_PER_DAY_VALUE),
        "How many times a day the scenario runs: a number (decimals allowed), or a distribution of each"
        " day's runs (its median without --simulate; drawn day by day with it).",
        default=None,
    )
    budget_usd: Decimal | None = field(
        Nullable(MONEY),
        "Per-run budget in US dollars; overrides the scenario's limits.budget_usd.",
        default=None,
    )
    set_: list[str] | None = field(
        Nullable(ListOf(NAME)),
        "Overrides of scenario fields, PATH=VALUE as for --set (applied before --set).",
        default=None,
        alias="set",
    )


class ProjectFile(Spec, title="agentcost project"):
    """An agentcost project: the scenarios to estimate together."""

    version: Literal[1] = field(Lit(1), "Format version of this file: 1.")
    name: str | None = field(Nullable(Str()), "A short name for the project.", default=None)
    description: str | None = field(Nullable(Str()), "What the project is.", default=None)
    budget_usd: Decimal | None = field(
        Nullable(MONEY), "Budget in US dollars for the total of one run of every scenario.", default=None
    )
    monthly_budget_usd: Decimal | None = field(
        Nullable(MONEY),
        "Budget in US dollars for a 30-day month of every scenario at its runs_per_day.",
        default=None,
    )
    scenarios: list[ProjectScenarioSpec] = field(
        ListOf(Model(ProjectScenarioSpec)), "The scenario files, in report order."
    )


def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of project files, for editors (docs/project.schema.json)."""
    return spec_json_schema(ProjectFile)


# --------------------------------------------------------------------------------------------
# The loaded project
# --------------------------------------------------------------------------------------------


@record
class ProjectEntry:
    """One scenario to estimate. ``*_line`` fields are 1-based lines in the project file."""

    path: Path  # the scenario file (the project file's folder joined with what was written)
    name: str | None = None
    runs_per_day: Decimal | None = None  # a distribution's median (agentcost.scenario.dists.median)
    budget_usd: Decimal | None = None
    overrides: tuple[str, ...] = ()  # the entry's set: texts, applied before --set
    line: int | None = None
    budget_line: int | None = None
    override_lines: tuple[int | None, ...] = ()  # the line of each of ``overrides``
    runs_dist: Dist | None = None  # runs_per_day written as a distribution of each day's runs


@record
class Project:
    """Scenarios estimated together: from a project file, or scenario files given on the command line
    (``path`` None, no budget, no runs per day)."""

    path: Path | None
    entries: tuple[ProjectEntry, ...]
    name: str | None = None
    description: str | None = None
    budget_usd: Decimal | None = None
    budget_line: int | None = None
    version: int = PROJECT_VERSION
    monthly_budget_usd: Decimal | None = None  # for 30 days of every scenario at its runs_per_day
    monthly_budget_line: int | None = None


# --------------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------------


def is_project_file(path: Path | str, *, reader: Reader | None = None) -> bool:
    """Whether ``path`` is a project file: YAML whose top level is a mapping with a ``scenarios:`` key.

    Never raises: a file that cannot be read or parsed is "not a project file" (reading it as a
    scenario then reports what is wrong with it).
    """
    try:
        text = text_reader(reader)(Path(path))
        if cannot_be_project(text.encode("utf-8", "surrogatepass")):
            return False  # answered without the YAML parser
        root = compose(text)
    except (Unreadable, yaml.YAMLError, RecursionError, OSError, ValueError):
        return False
    return _is_project_node(root)


_YAML_BREAKS = (b"\r", b"\xc2\x85", b"\xe2\x80\xa8", b"\xe2\x80\xa9")  # CR, NEL, LS, PS in UTF-8


def cannot_be_project(data: bytes) -> bool:
    """True when a file of these bytes is certainly not a project file, i.e. its top level cannot
    have a ``scenarios`` key; False when unsure (then the full check answers).

    A YAML key is the text of the file, but for escapes (``\\x73``), which need a backslash, and
    line folding, which adds a space or a line break. So without the word ``scenarios`` and without
    a backslash, no key can be ``scenarios``. Lines whose first character after spaces and tabs is
    ``#`` are left out: such a line is a comment, or, inside a quoted or block scalar, content
    whose ``#`` the key would hold. Lines are only split that way at ``\\n`` (``\\r\\n``): a file
    with another YAML line break is unsure. Bytes that are not UTF-8 make the full check say "not a
    project" too, so they need no care.
    """
    if b"scenarios" not in data and b"\\" not in data:
        return True
    if any(b in data.replace(b"\r\n", b"\n") for b in _YAML_BREAKS):
        return False
    for line in data.split(b"\n"):
        if (b"scenarios" in line or b"\\" in line) and not line.lstrip(b" \t").startswith(b"#"):
            return False
    return True


def load_project(path: Path | str, *, reader: Reader | None = None) -> Project:
    """Read and validate a project file, and check that the scenario files it names can be read.

    Raises :class:`InputError` (``file:line: key: message (hint)``) for anything wrong.
    """
    path = Path(path)
    try:
        text = text_reader(reader)(path)
    except Unreadable as e:
        raise InputError(e.reason, file=path, line=e.line) from None
    doc = parse(Doc(path), text)
    _check_top_level(doc)
    spec = validate(ProjectFile, doc, doc.value, ())
    if not spec.scenarios:
        raise doc.error(("scenarios",), "must list at least one scenario", "e.g. '- path: bugfix.yaml'")
    entries = tuple(_entry(doc, i, item, reader) for i, item in enumerate(spec.scenarios))
    return Project(
        path=path,
        entries=entries,
        name=spec.name,
        description=spec.description,
        budget_usd=spec.budget_usd,
        budget_line=doc.lines.get(("budget_usd",)),
        monthly_budget_usd=spec.monthly_budget_usd,
        monthly_budget_line=doc.lines.get(("monthly_budget_usd",)),
    )


def load_targets(paths: Sequence[Path | str], *, reader: Reader | None = None) -> Project:
    """What ``agentcost estimate PATH...`` estimates: one project file, or any number of scenario files.

    A project file cannot be mixed with other files (its budget and runs per day would not apply to
    them); scenario files are checked when they are loaded.
    """
    if not paths:
        raise InputError("no scenario files given", hint="e.g. agentcost estimate scenarios/*.yaml")
    found = [Path(p) for p in paths]
    projects = [p for p in found if is_project_file(p, reader=reader)]
    if projects and len(found) > 1:
        raise InputError(
            "a project file cannot be combined with other files",
            file=projects[0],
            hint="list every scenario in the project file, or give only scenario files",
        )
    if projects:
        return load_project(projects[0], reader=reader)
    return Project(path=None, entries=tuple(ProjectEntry(path=p) for p in found))


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


def _is_project_node(root: yaml.Node | None) -> bool:
    return isinstance(root, yaml.MappingNode) and any(
        isinstance(key, yaml.ScalarNode) and key.value == "scenarios" for key, _ in root.value
    )


def _check_top_level(doc: Doc) -> None:
    if not isinstance(doc.value, dict):
        raise doc.error(
            (), f"expected a mapping of project keys at the top level, got {shown(doc.value, quote=False)}"
        )
    version = doc.value.get("version")
    if "version" not in doc.value:
        raise doc.error(
            ("version",), "required key is missing", f"add 'version: {PROJECT_VERSION}' at the top"
        )
    if type(version) is not int:
        raise doc.error(
            ("version",), f"expected an integer, got {shown(version)}", f"supported: {PROJECT_VERSION}"
        )
    if version != PROJECT_VERSION:
        raise doc.error(("version",), f"unsupported version {version}", f"supported: {PROJECT_VERSION}")
    if "scenarios" not in doc.value:
        raise doc.error(
            ("scenarios",),
            "required key is missing",
            "a project file lists its scenario files: 'scenarios: [{path: bugfix.yaml}]'",
        )


def _sibling_hint(path: Path) -> str | None:
    """``did you mean 'bugfix.yaml'?`` from the YAML files next to a scenario file that is not there."""
    try:
        names = [p.name for p in path.parent.iterdir() if p.suffix.lower() in (".yaml", ".yml")]
    except OSError:
        return None
    close = difflib.get_close_matches(path.name, names, n=1, cutoff=0.6)
    return f"did you mean {str(path.with_name(close[0]))!r}?" if close else None


def _entry(doc: Doc, i: int, item: ProjectScenarioSpec, reader: Reader | None) -> ProjectEntry:
    at = ("scenarios", i)
    scenario_path = doc.path.parent / item.path
    if is_stdin(scenario_path):  # a file named "-" beside the project, never standard input
        scenario_path = Path(os.path.abspath(scenario_path))
    try:
        real = confine(scenario_path, doc.path)
    except OutsideRoots as e:
        raise doc.error((*at, "path"), e.message, e.hint) from None
    try:
        text = text_reader(reader)(real)
    except Unreadable as e:
        hint = _sibling_hint(scenario_path) if reader is None and e.reason == "file not found" else None
        raise doc.error((*at, "path"), f"cannot read {scenario_path}: {e.reason}", hint) from None
    try:
        nested = _is_project_node(compose(text))
    except (yaml.YAMLError, RecursionError):
        nested = False  # load_scenario reports it, with its own line
    if nested:
        raise doc.error(
            (*at, "path"), f"{scenario_path} is a project file, not a scenario", "projects cannot nest"
        )
    overrides = tuple(item.set_ or ())
    for j, override in enumerate(overrides):
        try:
            parse_override(override, j, scenario_path)  # its syntax; its effect is checked on loading
        except OverrideError as e:
            raise doc.error((*at, "set", j), e.message, e.hint) from None
    runs, dist = item.runs_per_day, None
    if isinstance(runs, AnyDist):
        dist = build_dist(doc, runs, (*at, "runs_per_day"), 0, _no_file(doc, at))
        runs = Decimal(median(dist))
    return ProjectEntry(
        path=scenario_path,
        name=item.name,
        runs_per_day=runs,
        runs_dist=dist,
        budget_usd=item.budget_usd,
        overrides=overrides,
        line=doc.line(at),
        budget_line=doc.lines.get((*at, "budget_usd")),
        override_lines=tuple(doc.line((*at, "set", j)) for j in range(len(overrides))),
    )


def _no_file(doc: Doc, at: tuple[str | int, ...]) -> Callable[[str, KeyPath], list[int]]:
    """``empirical: {file: ...}`` in a project: refused (the values are written inline)."""

    def refuse(_name: str, path: KeyPath) -> list[int]:
        raise doc.error(
            (*path, "file"), "a project file lists the values inline", "e.g. empirical: [150, 200, 260]"
        )

    return refuse


if __name__ == "__main__":  # python -m agentcost.scenario.project > docs/project.schema.json
    import json

    print(json.dumps(json_schema(), indent=2))
