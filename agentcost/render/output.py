"""One report, many renderers: pick the renderer for a report kind and a format, write the result.

Each report kind (a single estimate, several scenarios, a comparison, a diff) registers a
``Renderers`` bundle; ``render`` dispatches on the report's type and the chosen ``Format``. Writing
(``--output`` atomically, ``--summary`` to GitHub's step summary, ``::error`` annotations) lives
here too, so every command behaves the same.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from rich.console import Console, Group, RenderableType

from agentcost.infra.record import record
from agentcost.render.formats import (
    Format as Format,
)  # re-exported: the renderers and their format, one import

if TYPE_CHECKING:
    from agentcost.report.gates import Gate


@record
class Renderers:
    """How one report kind is shown. Every function is pure: report in, text or renderable out."""

    kind: str  # the JSON envelope's "kind"
    body: Callable[[Any], Mapping[str, Any]]  # JSON fields of this kind (the envelope adds the rest)
    rich: Callable[[Any], RenderableType]
    markdown: Callable[[Any], str]
    csv: Callable[[Any], str]
    total: Callable[[Any], Decimal]  # what --quiet prints: the figure the gate uses
    chart: Callable[[Any], RenderableType] | None = None  # --chart, in the terminal
    svg: Callable[[Any], str] | None = None  # --format svg: a chart as an SVG document
    verbose: Callable[[Any], RenderableType] | None = None  # --verbose: ``rich`` with every detail
    warnings: Callable[[Any], Sequence[str]] | None = None  # the CLI prints them on stderr (table)


_REGISTRY: dict[type, Renderers] = {}


def register(report_type: type, renderers: Renderers) -> None:
    _REGISTRY[report_type] = renderers


# Report kinds other than the plain estimate: the module whose ``RENDERERS`` hold the kind's
# renderers, imported on first use, so that rendering an estimate imports none of the others
# (batch, diff and replay pull in project files, git and trace parsers).
_MODULES = {
    "BatchReport": "agentcost.render.batch",
    "CompareReport": "agentcost.render.compare",
    "DiffReport": "agentcost.render.diff",
    "ExplainedReport": "agentcost.render.insights",  # estimate --explain
    "FootprintReport": "agentcost.render.footprint",  # estimate --explain, with tool definitions
    "SimulatedReport": "agentcost.render.simulation",  # estimate --simulate
    "ReplayReport": "agentcost.render.replay",
    "McpFootprint": "agentcost.render.mcp",  # agentcost mcp footprint
    "CapsReport": "agentcost.render.caps",
}

# The charts of those kinds (agentcost.render.chart for --chart, agentcost.render.svg for --format
# svg), added to a kind's renderers where its module leaves them out.
_CHARTS = {
    "BatchReport": ("batch_chart", "batch_svg"),
    "CompareReport": ("compare_chart", "compare_svg"),
    "DiffReport": ("diff_chart", "diff_svg"),
    "ReplayReport": (None, "replay_svg"),
}


def renderers_for(report: object) -> Renderers:
    kind = type(report)
    if kind not in _REGISTRY:
        if kind.__name__ == "Report" and kind.__module__ == "agentcost.report.estimate":
            _register_estimate(kind)
        elif kind.__name__ in _MODULES:
            _register_module(_MODULES[kind.__name__])
    try:
        return _REGISTRY[kind]
    except KeyError:
        raise TypeError(f"no renderers registered for {kind.__name__}") from None


def with_section(
    inner: Callable[[Any], Any],
    key: str,
    section: Callable[[Any], Any],
    as_dict: Callable[[Any], Mapping[str, Any]],
    as_rich: Callable[[Any], RenderableType],
    as_markdown: Callable[[Any], str],
    *,
    csv: Callable[[Any], str] | None = None,
    total: Callable[[Any], Decimal] | None = None,
    kind: str = "estimate",
    svg: Callable[[Any], str] | None = None,
) -> Renderers:
    """The renderers of a report that is another report (``inner(report)``) plus a section
    (``section(report)``: estimate --explain, --simulate): the inner report's output, then the
    section's; its JSON is the inner report's with the section under ``key``; CSV and ``--quiet``
    the inner report's unless ``csv``, ``total`` or ``svg`` (its chart) say otherwise."""

    def base(report: Any) -> Renderers:
        return renderers_for(inner(report))

    from rich.text import Text

    def chart(report: Any) -> RenderableType:
        own = base(report).chart
        return Text("") if own is None else own(inner(report))

    def verbose(report: Any) -> RenderableType:
        own = base(report).verbose or base(report).rich
        return Group(own(inner(report)), Text(""), as_rich(section(report)))

    def inner_svg(report: Any) -> str:
        own = base(report).svg
        if own is None:
            raise TypeError(f"no SVG renderer for {type(inner(report)).__name__}")
        return own(inner(report))

    return Renderers(
        kind=kind,
        body=lambda r: {**base(r).body(inner(r)), key: as_dict(section(r))},
        rich=lambda r: Group(base(r).rich(inner(r)), Text(""), as_rich(section(r))),
        markdown=lambda r: base(r).markdown(inner(r)) + "\n" + as_markdown(section(r)),
        csv=csv if csv is not None else lambda r: base(r).csv(inner(r)),
        total=total if total is not None else lambda r: base(r).total(inner(r)),
        chart=chart,
        svg=svg if svg is not None else inner_svg,
        verbose=verbose,
        warnings=lambda r: warning_lines(inner(r)),
    )


def _lazy(module: str, name: str, **options: Any) -> Callable[[Any], Any]:
    """``module.name(report, **options)``, importing the module on the first call (one format's renderer)."""

    def call(report: Any) -> Any:
        import importlib

        return getattr(importlib.import_module(module), name)(report, **options)

    return call


def _register_estimate(report_type: type) -> None:
    register(
        report_type,
        Renderers(
            kind="estimate",
            body=_lazy("agentcost.render.jsonfmt", "report_dict"),
            rich=_lazy("agentcost.render.table", "render_table"),
            markdown=_lazy("agentcost.render.markdown", "render_markdown"),
            csv=_lazy("agentcost.render.csvfmt", "render_csv"),
            total=lambda r: r.gate_usd,  # the figure the gate reads (per task with --per task)
            chart=_lazy("agentcost.render.chart", "render_chart"),
            svg=_lazy("agentcost.render.svg", "estimate_svg"),
            verbose=_lazy("agentcost.render.table", "render_table", verbose=True),
            warnings=_lazy("agentcost.render.notes", "warning_lines"),
        ),
    )


def _register_module(name: str) -> None:
    """Other report kinds register themselves from their module's ``RENDERERS`` (type, Renderers)."""
    import importlib

    module = importlib.import_module(name)
    report_type, renderers = module.RENDERERS
    chart, svg = _CHARTS.get(report_type.__name__, (None, None))
    if renderers.chart is None and chart is not None:
        renderers = replace(renderers, chart=_lazy("agentcost.render.chart", chart))
    if renderers.svg is None and svg is not None:
        renderers = replace(renderers, svg=_lazy("agentcost.render.svg", svg))
    register(report_type, renderers)


def renderable(report: object, *, chart: bool = False, verbose: bool = False) -> RenderableType:
    r = renderers_for(report)
    parts: list[RenderableType] = [(r.verbose if verbose and r.verbose is not None else r.rich)(report)]
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
    colour: Literal["standard", "256", "truecolor"] | None = None,
    verbose: bool = False,
) -> str:
    """The report as text in ``fmt`` (for the table: plain text, or with ``colour``'s colour codes,
    :func:`guard_styled`; ``colour`` counts for the table only). Renderers show data through
    :mod:`agentcost.infra.text`; the whole text then passes its :func:`~agentcost.infra.text.guard`:
    no control or bidi character, and no line that could start a GitHub workflow command."""
    from agentcost.infra.text import guard

    r = renderers_for(report)
    if fmt is Format.svg and r.svg is not None:
        return guard(r.svg(report), "svg")  # a chart; every label from a user file escaped for XML
    if fmt is Format.json:
        from agentcost.render.jsonfmt import dumps, envelope  # the JSON definitions: JSON runs only

        return dumps(envelope(r.kind, r.body(report), gates))  # dumps guards its text
    if fmt is Format.markdown:  # under GitHub's limit for a comment, saying what it left out
        from agentcost.render.fitmd import fit_markdown

        return fit_markdown(guard(r.markdown(report), "markdown"))
    if fmt is Format.csv:
        return guard(r.csv(report), "csv")
    styled = colour is not None and fmt is Format.table
    buffer = io.StringIO()
    console = Console(
        file=buffer,
        width=width,
        record=True,
        emoji=False,  # ":x:" in a scenario name stays text (and Rich's emoji table is never loaded)
        force_terminal=fmt is Format.svg or styled,
        color_system="truecolor" if fmt is Format.svg else colour if styled else None,
        no_color=False if styled else None,
    )
    console.print(renderable(report, chart=chart or fmt is Format.svg, verbose=verbose))
    if fmt is Format.svg:
        return guard(console.export_svg(title="agentcost"), "svg")
    if styled:
        return guard_styled(buffer.getvalue())
    return guard(console.export_text(), "text")


def print_rich(
    renderable: RenderableType, *, colour: Literal["standard", "256", "truecolor"] | None = None
) -> None:
    """Print to standard output as ``Console().print`` does, in ``colour`` (``None``: none; the CLI
    decides, :mod:`agentcost.cli.colour`), through :func:`guard_styled`: a line Rich wrapped cannot
    start a workflow command in a CI log. For output written straight to the console (``agentcost
    models``, ``agentcost prices``)."""
    import sys

    console = Console(
        force_terminal=colour is not None, color_system=colour, no_color=colour is None, emoji=False
    )
    with console.capture() as captured:
        console.print(renderable)
    sys.stdout.write(guard_styled(captured.get()))


_SGR = re.compile("\x1b\\[[0-9;]*m")  # Select Graphic Rendition: the colour codes Rich writes


def guard_styled(text: str) -> str:
    """A console's output, colour codes and all, through :func:`~agentcost.infra.text.guard`: as it
    is when its colour codes are its only control characters and the text without them needs no
    escaping (renderers escaped every text from a file); otherwise that text without colours,
    guarded. So colour never changes the text, and nothing but colour codes reaches a terminal."""
    from agentcost.infra.text import guard

    visible = _SGR.sub("", text)
    safe = guard(visible, "text")
    return text if safe == visible else safe


def warning_lines(report: object) -> tuple[str, ...]:
    """The report's warnings, one line each, for standard error (the table leaves out those of a
    report whose ``warnings_apart`` is set); none for a kind without a ``warnings`` renderer."""
    own = renderers_for(report).warnings
    return () if own is None else tuple(own(report))


def quiet_total(report: object) -> str:
    """``--quiet``: the figure the gate uses, in dollars as one exact decimal number, nothing else
    (each report kind's :attr:`Renderers.total`)."""
    from agentcost.report.fmt import exact

    return exact(renderers_for(report).total(report)) + "\n"


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that readers see the old file or the new one, never half; never
    over an input of the run or anything but a regular file (:func:`agentcost.infra.writes.write_output`:
    InputError), with the mode a plain ``open()`` gives a new file, an existing file's mode kept."""
    from agentcost.infra.writes import write_output

    write_output(path, text)


def append_step_summary(markdown: str) -> Path | None:
    """Append to ``$GITHUB_STEP_SUMMARY`` when it is set; return the file written, if any. Never
    through a symlink, nor to anything but a regular file or to an input of the run
    (:func:`agentcost.infra.writes.append_output`: ``OSError``)."""
    from agentcost.infra.writes import append_output

    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if not target:
        return None
    append_output(target, markdown if markdown.endswith("\n") else markdown + "\n", "GITHUB_STEP_SUMMARY")
    return Path(target)


def annotation(gate: Gate) -> str:
    """A GitHub Actions ``::error`` line for a tripped gate (``::warning`` for a warning-level one,
    ``--warn-increase``), pointing at the scenario file; its parts
    escaped by GitHub's rules (:func:`agentcost.infra.text.workflow_data`), so that one line is one
    annotation whatever the names in it hold."""
    from agentcost.infra.text import workflow_data, workflow_property

    props = []
    if gate.file is not None:
        props.append(f"file={workflow_property(gate.file)}")
        if gate.line is not None:
            props.append(f"line={gate.line}")
    props.append(f"title={workflow_property('agentcost ' + gate.name.replace('_', ' '))}")
    level = "warning" if gate.warning else "error"
    return f"::{level} {','.join(props)}::{workflow_data(gate.message)}"
