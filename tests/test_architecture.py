"""The shape of the code: stage packages, data flowing one way, no import cycles, small modules.

Every import counts, function-level and ``TYPE_CHECKING`` ones included: a lazy import is still a
dependency. docs/architecture.md describes the stages these layers stand for."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import MODULES

MAX_LINES = 700

# lowest first: a module may import its own layer and those below it, never one above
LAYERS: list[tuple[str, ...]] = [
    ("agentcost.errors", "agentcost.infra"),
    ("agentcost.facts", "agentcost.facts_data"),
    ("agentcost.scenario",),
    ("agentcost.tokens",),
    ("agentcost.prices",),
    ("agentcost.loop", "agentcost.replay"),
    ("agentcost.report",),
    ("agentcost.commands",),
    ("agentcost.render",),
    # entry points; agentcost.mcp (MCP config reading, footprint, the MCP server) serves both
    ("agentcost.api", "agentcost.cli", "agentcost.mcp", "agentcost.__main__", "agentcost"),
]


def _imports(name: str, path: Path) -> set[str]:
    """The agentcost modules ``name`` imports (the module itself, or the package of a name)."""
    is_package = path.name == "__init__.py"
    targets: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    DOCSTRINGS[name] = ast.get_docstring(tree)  # read from the same parse (each module is parsed once)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = name.split(".") if is_package else name.split(".")[:-1]
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            candidates = [f"{base}.{alias.name}" for alias in node.names] or [base]
            candidates = [c if c in MODULES else base for c in candidates]
        else:
            continue
        for target in candidates:
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target and target != name and target.startswith("agentcost"):
                targets.add(target)
    return targets


DOCSTRINGS: dict[str, str | None] = {}
GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _layer(name: str) -> int:
    best = (-1, -1)  # (length of the matching prefix, layer)
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (name == prefix or name.startswith(prefix + ".")) and len(prefix) > best[0]:
                best = (len(prefix), index)
    assert best[1] >= 0, f"{name} belongs to no layer: add it to LAYERS and docs/architecture.md"
    return best[1]


def _cycles() -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(GRAPH):
        if root in index:
            continue
        work = [(root, iter(sorted(GRAPH[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(GRAPH[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_graph_sees_lazy_imports() -> None:
    """The check itself works: the CLI imports the estimate pipeline only inside a function."""
    assert "agentcost.loop.estimate" in GRAPH["agentcost.cli.estimate"]


def test_no_import_cycle() -> None:
    assert _cycles() == []


def test_imports_flow_one_way() -> None:
    upward = sorted(
        f"{name} -> {target}"
        for name, targets in GRAPH.items()
        for target in targets
        if _layer(target) > _layer(name)
    )
    assert upward == []


def test_no_module_is_too_long() -> None:
    long = {
        name: n for name, path in MODULES.items() if (n := len(path.read_text().splitlines())) > MAX_LINES
    }
    assert long == {}


# What a renderer may import besides agentcost.render and agentcost.report: pure, money-free helpers.
RENDER_MAY_IMPORT = (
    "agentcost.render",
    "agentcost.report",
    "agentcost.errors",  # the one exception type for bad input (a --template, an --output path)
    "agentcost.infra.text",  # the sanitizer every text leaving agentcost passes (escaping, no figures)
    "agentcost.infra.writes",  # writing --output files atomically (render.output.write_report)
    "agentcost.infra.record",  # the record decorator (a frozen dataclass, cheap to define)
)


def _within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def test_renderers_import_only_reports_and_formatting_helpers() -> None:
    """A renderer formats a report object; it never looks a price up, counts tokens, simulates or
    estimates (issue 27). Every import counts, lazy and TYPE_CHECKING ones too: the report stage is
    the renderers' whole vocabulary."""
    outside = sorted(
        f"{name} -> {target}"
        for name, targets in GRAPH.items()
        if _within(name, ("agentcost.render",))
        for target in targets
        if not _within(target, RENDER_MAY_IMPORT)
    )
    assert outside == []


def _report_names_imported_by_renderers() -> set[tuple[str, str, str]]:
    """(renderer, report module, name) of every ``from agentcost.report... import name``."""
    found = set()
    for name, path in MODULES.items():
        if not _within(name, ("agentcost.render",)):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and _within(node.module or "", ("agentcost.report",)):
                found.update((name, node.module or "", alias.name) for alias in node.names)
    return found


def test_renderers_call_no_function_of_an_earlier_stage_through_a_report_module() -> None:
    """A report module may re-export the data types a report carries (``ModelPrices``, ``Stat``):
    renderers read their fields. It may not hand renderers a function of an earlier stage (a price
    lookup re-exported from report/ is still a price lookup)."""
    import importlib
    import inspect

    imported = _report_names_imported_by_renderers()
    assert ("agentcost.render.prices", "agentcost.report.prices", "PriceSheet") in imported  # it sees them
    foreign = []
    for renderer, module, name in sorted(imported):
        value = getattr(importlib.import_module(module), name, None)
        if value is None and f"{module}.{name}" in MODULES:
            continue  # a module: its own imports are checked as a renderer's would be
        if inspect.isroutine(value) and not value.__module__.startswith("agentcost.report"):
            foreign.append(f"{renderer}: {module}.{name} is {value.__module__}.{name}")
    assert foreign == []


def test_every_module_opens_with_its_purpose() -> None:
    missing = [name for name in MODULES if not DOCSTRINGS[name]]
    assert missing == []
