"""The project-file sniff: a file that cannot be a project file (no ``scenarios`` key can be in it)
is answered without the YAML parser; the sniff is never wrong against the full check."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcost.scenario import project
from agentcost.scenario.project import cannot_be_project
from agentcost.scenario.project import is_project_file as full_check

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"


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
        if cannot_be_project(data):
            certain += 1
            assert not _full(data), path
    assert certain * 2 > len(files)  # most scenario files are answered without the YAML parser
    assert not cannot_be_project((SCENARIOS / "agentcost.yml").read_bytes())
    assert cannot_be_project((SCENARIOS / "bugfix.yaml").read_bytes())


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
    assert cannot_be_project(data) is sure
    assert _full(data) is project


_PIECES = ["scenarios", "scen", "arios", "\\x73", "\\", "#", ":", " ", "\t", "\n", "\r", "\u2028", "\u0085"]
_PIECES += ['"', "'", "{", "}", "[", "]", "?", "|", "-", ",", "a", "version: 1"]


@settings(max_examples=int(os.environ.get("AGENTCOST_FUZZ_EXAMPLES") or 60), deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(_PIECES), max_size=24))
def test_the_sniff_is_never_wrong(pieces: list[str]) -> None:
    data = "".join(pieces).encode()
    if cannot_be_project(data):
        assert not _full(data)


def test_a_scenario_is_answered_without_the_yaml_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(text: str) -> object:
        raise AssertionError("the YAML parser ran")

    monkeypatch.setattr(project, "compose", refused)
    assert full_check(SCENARIOS / "bugfix.yaml") is False
    monkeypatch.undo()
    assert full_check(SCENARIOS / "agentcost.yml") is True
