"""The benchmarks in bench/ name agentcost's modules and functions as they are today.

No test runs a benchmark (they time things, and take minutes), so a renamed module or function would
go unnoticed until someone runs one: ``bench/run.py`` once imported ``build_report`` from its old
module inside a script it runs in a child process. This reads every ``from agentcost... import``
in bench/, scripts in strings included, and resolves each name.
"""

from __future__ import annotations

import importlib
import re

import pytest

from tests.conftest import ROOT

IMPORT = re.compile(r"^\s*from (agentcost[\w.]*) import \(?([\w, ]+(?: as \w+)?(?:, [\w ]+)*)\)?", re.M)


def bench_imports() -> list[tuple[str, str, str]]:
    found = []
    for path in sorted((ROOT / "bench").glob("*.py")):
        for match in IMPORT.finditer(path.read_text(encoding="utf-8")):
            for item in match[2].split(","):
                name = item.split(" as ")[0].strip()
                if name:
                    found.append((path.name, match[1], name))
    return found


def test_the_scanner_finds_the_imports_of_the_inline_scripts() -> None:
    found = bench_imports()
    assert ("run.py", "agentcost.report.build", "build_report") in found  # in a string: a child's script
    assert len({name for name, _, _ in found}) >= 5


@pytest.mark.parametrize(("bench", "module", "name"), bench_imports())
def test_every_name_a_benchmark_imports_exists(bench: str, module: str, name: str) -> None:
    imported = importlib.import_module(module)
    if not hasattr(imported, name):
        importlib.import_module(f"{module}.{name}")  # a submodule: raises if there is none
