"""Plain values as Python source: the generated data modules (``facts_data.py``, ``families_data.py``).

agentcost's data files (``facts.yaml``, ``tokens/families.yaml``) are edited by hand and reviewed as
YAML, but a run reads them as Python: each has a module generated from it at development time, so a
run loads bytecode instead of parsing YAML (~25 ms of PyYAML per cold process). :func:`module_text`
writes such a module deterministically (the values in their file's order, one record per line) and
:func:`write_main` is the ``--write-data`` command that regenerates one. A test compares every
generated module with its YAML (``tests/test_data_modules.py``).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Sequence
from datetime import date, datetime
from pathlib import Path

from agentcost.infra.record import record


@record
class Assignment:
    """One module-level name of a generated module: ``name: annotation = value``, its containers
    opened one element per line down to ``depth`` (deeper ones stay on one line)."""

    name: str
    annotation: str
    value: object
    depth: int = 2


def literal(value: object, *, depth: int = 0, indent: int = 0) -> str:
    """``value`` (None, bool, int, finite float, str, date, list, tuple, dict) as a Python expression
    that evaluates to an equal value of the same types; containers above ``depth`` levels are opened
    one element per line, each with a trailing comma."""
    if value is None or isinstance(value, bool | int):
        return repr(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise TypeError(f"no Python literal for {value!r}")
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, datetime):
        raise TypeError(f"no data-module literal for a datetime ({value!r}): write a date")
    if isinstance(value, date):
        return f"date({value.year}, {value.month}, {value.day})"
    if isinstance(value, dict):
        items = [f"{literal(k)}: {literal(v, depth=depth - 1, indent=indent + 4)}" for k, v in value.items()]
        return _container("{", items, "}", depth=depth, indent=indent)
    if isinstance(value, list):
        items = [literal(v, depth=depth - 1, indent=indent + 4) for v in value]
        return _container("[", items, "]", depth=depth, indent=indent)
    if isinstance(value, tuple):
        items = [literal(v, depth=depth - 1, indent=indent + 4) for v in value]
        if len(items) == 1 and depth <= 0:
            return f"({items[0]},)"
        return _container("(", items, ")", depth=depth, indent=indent)
    raise TypeError(f"no data-module literal for {type(value).__name__} {value!r}")


def _string(text: str) -> str:
    if '"' not in text and "\\" not in text and text.isprintable():
        return f'"{text}"'
    return repr(text)


def _container(opening: str, items: Sequence[str], closing: str, *, depth: int, indent: int) -> str:
    if depth <= 0 or not items:
        return opening + ", ".join(items) + closing
    pad = " " * (indent + 4)
    return opening + "\n" + "".join(f"{pad}{item},\n" for item in items) + " " * indent + closing


def _uses_date(value: object) -> bool:
    if isinstance(value, date):
        return True
    if isinstance(value, dict):
        return any(_uses_date(k) or _uses_date(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(_uses_date(v) for v in value)
    return False


def module_text(*, source: str, command: str, purpose: str, assignments: Sequence[Assignment]) -> str:
    """The text of a generated module: a docstring naming its ``source`` file and the ``command``
    that wrote it, then each assignment. The same values give the same text, byte for byte."""
    imports = []
    if any(_uses_date(a.value) for a in assignments):
        imports.append("from datetime import date")
    if any("Any" in a.annotation for a in assignments):
        imports.append("from typing import Any")
    lines = [
        f'"""Generated from {source} by ``{command}``; do not edit.',
        "",
        purpose,
        f"To change a value, edit {source} and run that command again.",
        '"""',
        "",
        "from __future__ import annotations",
        *([""] if imports else []),
        *imports,
    ]
    for a in assignments:
        lines += ["", f"{a.name}: {a.annotation} = {literal(a.value, depth=a.depth)}"]
    return "\n".join(lines) + "\n"


def write_main(argv: Sequence[str], target: Path, text: Callable[[], str], command: str) -> int:
    """``<command>``: write ``target`` from ``text()`` when it differs; 2 on other arguments."""
    if list(argv) != ["--write-data"]:
        print(f"usage: {command}", file=sys.stderr)
        return 2
    new = text()
    if target.exists() and target.read_text(encoding="utf-8") == new:
        print(f"{target} is up to date")
        return 0
    with target.open("w", encoding="utf-8", newline="\n") as out:
        out.write(new)
    print(f"wrote {target}")
    return 0
