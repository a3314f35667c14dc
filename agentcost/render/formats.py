"""The output formats a report can be written in: the ``--format`` choices, without a renderer.

Kept apart from :mod:`agentcost.render.output` (which imports Rich) so that the CLI can declare its
options, and print ``--help``, without loading any renderer.
"""

from __future__ import annotations

from enum import StrEnum


class Format(StrEnum):
    table = "table"
    json = "json"
    markdown = "markdown"
    csv = "csv"
    svg = "svg"
