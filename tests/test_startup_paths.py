"""What a run that cannot replay skips: the o200k_base warm-up for an edited scenario, the project
schema for a file that cannot be a project, and Typer's pydantic coercion (agentcost.cli_coerce)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from enum import Enum
from pathlib import Path
from typing import Any

import pytest
import typer.main
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcost import cli_coerce
from agentcost.scenario import cache
from agentcost.scenario.load import read_scenario
from agentcost.scenario.project import is_project_file as full_check

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"


# -- the o200k_base warm-up --------------------------------------------------------------------


@pytest.fixture
def warm_ups(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The calls of the console script's warm-up hook (agentcost.scenario.cache.on_miss)."""
    calls: list[int] = []
    monkeypatch.setattr(cache, "on_miss", lambda: calls.append(1))
    return calls


@pytest.fixture
def bugfix(tmp_path: Path) -> Path:
    shutil.copytree(SCENARIOS / "bugfix", tmp_path / "bugfix")
    shutil.copy(SCENARIOS / "bugfix.yaml", tmp_path / "bugfix.yaml")
    return tmp_path / "bugfix.yaml"


def _edit(path: Path, n: int) -> None:
    with path.open("a", encoding="utf-8") as f:
        f.write(f"# edit {n}\n")


def test_a_new_file_warms_up_an_edited_one_does_not(bugfix: Path, warm_ups: list[int]) -> None:
    first = cache.load_scenario(bugfix)
    assert len(warm_ups) == 1  # never loaded from this path: its texts are probably not counted
    assert cache.load_scenario(bugfix) == first
    assert len(warm_ups) == 1  # the scenario itself is cached: nothing to validate
    _edit(bugfix, 1)
    edited = cache.load_scenario(bugfix)
    assert len(warm_ups) == 1  # a miss, but a known path: its counts are cached
    assert edited == read_scenario(bugfix) == first  # a comment changes nothing
    _edit(bugfix, 2)
    cache.load_scenario(bugfix, overrides=["model=gpt-4.1"])
    assert len(warm_ups) == 1  # the path, whatever the overrides


def test_a_changed_file_the_scenario_reads_warms_up(bugfix: Path, warm_ups: list[int]) -> None:
    cache.load_scenario(bugfix)
    system = bugfix.parent / "bugfix" / "system.md"
    system.write_text(system.read_text(encoding="utf-8") + "One more rule.\n", encoding="utf-8")
    assert cache.load_scenario(bugfix) == read_scenario(bugfix)
    assert len(warm_ups) == 2  # its entry is spoilt: the new text is not counted


def test_another_path_or_no_cache_warms_up(
    bugfix: Path, warm_ups: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    cache.load_scenario(bugfix)
    other = bugfix.with_name("copy.yaml")
    shutil.copy(bugfix, other)
    assert cache.load_scenario(other) == read_scenario(other)
    assert len(warm_ups) == 2
    monkeypatch.setenv("AGENTCOST_CACHE", "off")  # nothing known: warm up, as before
    cache.load_scenario(bugfix)
    assert len(warm_ups) == 3


def test_a_failed_load_marks_nothing(bugfix: Path, warm_ups: list[int]) -> None:
    good = bugfix.read_text(encoding="utf-8")
    bugfix.write_text(good.replace("version: 1", "version: 7"), encoding="utf-8")
    with pytest.raises(Exception, match="version"):
        cache.load_scenario(bugfix)
    bugfix.write_text(good, encoding="utf-8")
    cache.load_scenario(bugfix)
    assert len(warm_ups) == 2  # the file was never loaded: still a new one


# -- the project-file sniff --------------------------------------------------------------------


def _full(data: bytes) -> bool:
    return full_check(Path("sniffed.yaml"), reader=lambda _path: data)


def _shipped() -> Iterator[Path]:
    for folder in (SCENARIOS, ROOT / "tests"):
        for path in sorted(folder.rglob("*")):
            if path.suffix in (".yaml", ".yml") and path.is_file() and path.stat().st_size < 1_000_000:
                yield path


def test_the_sniff_agrees_with_the_full_check_on_every_yaml_file_here() -> None:
    files = list(_shipped())
    certain = 0
    for path in files:
        data = path.read_bytes()
        if cache.cannot_be_project(data):
            certain += 1
            assert not _full(data), path
    assert certain * 2 > len(files)  # most scenario files are answered without the YAML parser
    assert not cache.cannot_be_project((SCENARIOS / "agentcost.yml").read_bytes())
    assert cache.cannot_be_project((SCENARIOS / "bugfix.yaml").read_bytes())


ODD = [
    # (file, the sniff is sure it is no project, the full check says it is one)
    (b"version: 1\nmodel: gpt-4.1\n", True, False),
    (b"# a comment about scenarios\nversion: 1\n", True, False),
    (b"  # scenarios: [a.yaml]\r\nversion: 1\r\n", True, False),
    (b"scenarios: [a.yaml]\n", False, True),
    (b"{version: 1, scenarios: [a.yaml]}\n", False, True),
    (b'"scen\\x61rios": [a.yaml]\n', False, True),  # an escape: no word, but a backslash
    (b'"\\u0073cenarios": [a.yaml]\n', False, True),
    (b'? "scen\\\n  arios"\n: [a.yaml]\n', False, True),  # an escaped line break
    (b"? |-\n  scenarios\n: [a.yaml]\n", False, True),  # a block scalar key
    (b"# note\xe2\x80\xa8scenarios: [a.yaml]\n", False, True),  # LS ends the comment
    (b"# note\rscenarios: [a.yaml]\n", False, True),  # so does a lone CR
    (b"system: |\n  # scenarios\nversion: 1\n", True, False),
    (b"tools: scenarios/x.yaml\n", False, False),  # unsure: the full check answers
    (b"\xff\xfe scenarios", False, False),  # not UTF-8
]


@pytest.mark.parametrize(("data", "sure", "project"), ODD)
def test_the_sniff_on_odd_files(data: bytes, sure: bool, project: bool) -> None:
    assert cache.cannot_be_project(data) is sure
    assert _full(data) is project


_PIECES = ["scenarios", "scen", "arios", "\\x73", "\\", "#", ":", " ", "\t", "\n", "\r", "\u2028", "\u0085"]
_PIECES += ['"', "'", "{", "}", "[", "]", "?", "|", "-", ",", "a", "version: 1"]


@settings(max_examples=int(os.environ.get("AGENTCOST_FUZZ_EXAMPLES") or 60), deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(_PIECES), max_size=24))
def test_the_sniff_is_never_wrong(pieces: list[str]) -> None:
    data = "".join(pieces).encode()
    if cache.cannot_be_project(data):
        assert not _full(data)


def test_a_scenario_is_answered_without_the_project_schema(
    bugfix: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refused(path: Any) -> bool:
        raise AssertionError("the full check ran")

    monkeypatch.setattr(cache, "_is_project", refused)
    assert cache.is_project_file(bugfix) is False
    monkeypatch.setenv("AGENTCOST_CACHE", "off")
    assert cache.is_project_file(bugfix) is False
    monkeypatch.undo()
    assert cache.is_project_file(SCENARIOS / "agentcost.yml") is True


# -- Typer's coercion without pydantic -----------------------------------------------------------


def _commands(command: Any) -> Iterator[Any]:
    yield command
    for sub in getattr(command, "commands", {}).values():
        yield from _commands(sub)


def _outcome(runtime: Any, value: Any, param: Any, ctx: Any) -> tuple[str, type, Any]:
    try:
        result = runtime.coerce(value, param=param, ctx=ctx)
    except Exception as e:  # the error's type and words are compared
        return ("error", type(e), str(e))
    return ("value", type(result), result)


SAMPLES: list[Any] = ["", " ", "0", "1", "7", " 7", "-3", "05", "1.5", "1_000", "99999999999999999999"]
SAMPLES += ["abc", "x.yaml", "a\x00b", "-", "/no/such/dir/x.yaml", "true", " Yes ", "OFF", "2", "None"]
SAMPLES += [b"x.yaml", 3, True, 1.5, Path("p.yaml")]


def test_every_option_coerces_as_typer_does(monkeypatch: pytest.MonkeyPatch) -> None:
    from typer import _coercion, core
    from typer._click import Context

    from agentcost.cli import app

    typer_own = _coercion.build_runtime_param
    monkeypatch.setattr(cli_coerce, "_INSTALLED", {})  # as in a new process (restored after)
    monkeypatch.setattr(core, "build_runtime_param", typer_own)
    assert cli_coerce.install()
    assert cli_coerce.install()  # once
    fast = core.build_runtime_param
    assert fast is not typer_own
    fast_kinds = compared = 0
    for command in _commands(typer.main.get_command(app)):
        ctx = Context(command)
        for param in command.params:
            descriptor = getattr(param, "type_descriptor", None)
            if descriptor is None:
                continue
            ours, theirs = fast(descriptor), typer_own(descriptor)
            fast_kinds += type(ours) is not type(theirs)
            values = [*SAMPLES, param.default]
            for choice in descriptor.choices or ():
                values += [choice, choice.value, str(choice.value).upper(), choice.name]
            if param.multiple or param.nargs == -1:
                values = [None, (), *[tuple(values[i : i + 2]) for i in range(len(values))]]
            for value in values:
                compared += 1
                assert _outcome(ours, value, param, ctx) == _outcome(theirs, value, param, ctx), (
                    command.name,
                    param.name,
                    value,
                )
    assert fast_kinds > 100  # every option agentcost has is of a kind coerced here
    assert compared > 2000


class _Colour(Enum):
    RED = "red"


@pytest.mark.parametrize(
    ("annotation", "fast"),
    [
        (str, True),
        (int, True),
        (bool, True),
        (Path, True),
        (_Colour, True),
        (list[Path], True),
        (float, False),
        (tuple[int, int], False),
        (list[float], False),
        (bytes, False),
    ],
)
def test_other_kinds_are_left_to_typer(annotation: Any, fast: bool) -> None:
    from typer import _param_types
    from typer.models import OptionInfo

    assert (cli_coerce.coercer(annotation, OptionInfo(), _param_types) is not None) is fast
    assert cli_coerce.coercer(annotation, OptionInfo(parser=str), _param_types) is None
