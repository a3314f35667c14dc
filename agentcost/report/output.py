"""One report, many renderers: pick the renderer for a report kind and a format, write the result.

Each report kind (a single estimate, several scenarios, a comparison, a diff) registers a
``Renderers`` bundle; ``render`` dispatches on the report's type and the chosen ``Format``. Writing
(``--output`` atomically, ``--summary`` to GitHub's step summary, ``::error`` annotations) lives
here too, so every command behaves the same.
"""

from __future__ import annotations

import io
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console, Group, RenderableType

if TYPE_CHECKING:
    from agentcost.gates import Gate


class Format(StrEnum):
    table = "table"
    json = "json"
    markdown = "markdown"
    csv = "csv"
    svg = "svg"


@dataclass(frozen=True)
class Renderers:
    """How one report kind is shown. Every function is pure: report in, text or renderable out."""

    kind: str  # the JSON envelope's "kind"
    body: Callable[[Any], dict[str, Any]]  # JSON fields of this kind (the envelope adds the rest)
    rich: Callable[[Any], RenderableType]
    markdown: Callable[[Any], str]
    csv: Callable[[Any], str]
    total: Callable[[Any], Decimal]  # what --quiet prints
    chart: Callable[[Any], RenderableType] | None = None


_REGISTRY: dict[type, Renderers] = {}


def register(report_type: type, renderers: Renderers) -> None:
    _REGISTRY[report_type] = renderers


def renderers_for(report: object) -> Renderers:
    _register_builtin()
    try:
        return _REGISTRY[type(report)]
    except KeyError:
        raise TypeError(f"no renderers registered for {type(report).__name__}") from None


def _register_builtin() -> None:
    if _REGISTRY:
        return
    from agentcost.report import Report
    from agentcost.report.chart import render_chart
    from agentcost.report.csvfmt import render_csv
    from agentcost.report.jsonfmt import report_dict
    from agentcost.report.markdown import render_markdown
    from agentcost.report.table import render_table

    register(
        Report,
        Renderers(
            kind="estimate",
            body=report_dict,
            rich=render_table,
            markdown=render_markdown,
            csv=render_csv,
            total=lambda r: r.totals.cost_usd,
            chart=render_chart,
        ),
    )
    for module in (
        "agentcost.report.batch",
        "agentcost.report.compare",
        "agentcost.report.diff",
        "agentcost.report.insights",  # estimate --explain
        "agentcost.report.simulation",  # estimate --simulate
        "agentcost.report.replay",
    ):
        _register_module(module)


def _register_module(name: str) -> None:
    """Other report kinds register themselves from their module's ``RENDERERS`` (type, Renderers)."""
    import importlib

    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as err:
        if err.name == name:
            return
        raise
    report_type, renderers = module.RENDERERS
    register(report_type, renderers)


def renderable(report: object, *, chart: bool = False) -> RenderableType:
    r = renderers_for(report)
    parts: list[RenderableType] = [r.rich(report)]
    if chart and r.chart is not None:
        parts.append(r.chart(report))
    return Group(*parts) if len(parts) > 1 else parts[0]


def render_text(
    report: object,
    fmt: Format,
    *,
    gates: Sequence[Gate] = (),
    chart: bool = False,
    width: int = 110,
) -> str:
    """The report as text in ``fmt`` (for the table: plain text without colours)."""
    from agentcost.report.jsonfmt import dumps, envelope

    r = renderers_for(report)
    if fmt is Format.json:
        return dumps(envelope(r.kind, r.body(report), gates))
    if fmt is Format.markdown:
        return r.markdown(report)
    if fmt is Format.csv:
        return r.csv(report)
    console = Console(
        file=io.StringIO(),
        width=width,
        record=True,
        force_terminal=fmt is Format.svg,
        color_system="truecolor" if fmt is Format.svg else None,
    )
    console.print(renderable(report, chart=chart or fmt is Format.svg))
    if fmt is Format.svg:
        return console.export_svg(title="agentcost")
    return console.export_text()


def quiet_total(report: object) -> str:
    """``--quiet``: the total in dollars as one exact decimal number, nothing else."""
    from agentcost.report.fmt import exact

    return exact(renderers_for(report).total(report)) + "\n"


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that readers see the old file or the new one, never half."""
    directory = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def append_step_summary(markdown: str) -> Path | None:
    """Append to ``$GITHUB_STEP_SUMMARY`` when it is set; return the file written, if any."""
    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if not target:
        return None
    path = Path(target)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(markdown if markdown.endswith("\n") else markdown + "\n")
    return path


def _escape_data(text: str) -> str:
    # GitHub workflow-command escaping for the message part
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(gate: Gate) -> str:
    """A GitHub Actions ``::error`` line for a tripped gate, pointing at the scenario file."""
    props = []
    if gate.file is not None:
        props.append(f"file={_escape_property(gate.file)}")
        if gate.line is not None:
            props.append(f"line={gate.line}")
    props.append(f"title={_escape_property('agentcost ' + gate.name.replace('_', ' '))}")
    return f"::error {','.join(props)}::{_escape_data(gate.message)}"
