"""``agentcost diff --comment github|gitlab``: the report as a pull/merge-request comment body.

The body is the Markdown report under a hidden marker (``<!-- agentcost-cost-report -->``, by which
a workflow finds its own comment to update it) and a hidden ``<!-- agentcost-changed: yes|no -->``
line; ``changed=true|false`` is also appended to ``$GITHUB_OUTPUT`` when it is set, so that a
comment step can skip a run that changed nothing (docs/ci.md#the-comment).
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import TYPE_CHECKING

from agentcost.cli.options import CommentHost
from agentcost.errors import InputError
from agentcost.render.formats import Format

if TYPE_CHECKING:
    from agentcost.cli.output import Output
    from agentcost.render.diff import DiffComment
    from agentcost.report.diff import DiffReport


def as_comment(report: DiffReport, host: CommentHost, out: Output) -> tuple[DiffComment, Output]:
    """The comment to write instead of the report, and the output options that write it (Markdown).
    Writes ``changed=`` to ``$GITHUB_OUTPUT`` when that is set. InputError: another ``--format``, or
    an output file that cannot be appended to."""
    from agentcost.render import output
    from agentcost.render.diff import COMMENT_RENDERERS, DiffComment

    if out.format not in (Format.table, Format.markdown):
        raise InputError(
            f"--comment prints a Markdown comment, not {out.format.value}",
            key="--comment",
            hint="leave out --format, or give --format markdown",
        )
    output.register(*COMMENT_RENDERERS)
    write_changed(report.any_change)
    shown = DiffComment(report, "gitlab" if host is CommentHost.gitlab else "github")
    return shown, replace(out, format=Format.markdown)


def write_changed(changed: bool) -> None:
    """Append ``changed=true|false`` to the file ``$GITHUB_OUTPUT`` names, when it names one: never
    through a symlink, nor to anything but a regular file or to an input of the run
    (:func:`agentcost.infra.writes.append_output`)."""
    from agentcost.infra.writes import append_output

    path = os.environ.get("GITHUB_OUTPUT")
    if not path:
        return
    try:
        append_output(path, f"changed={'true' if changed else 'false'}\n", "GITHUB_OUTPUT")
    except OSError as err:
        raise InputError(
            f"cannot append to GITHUB_OUTPUT: {err.strerror or err}",
            file=path,
            key="--comment",
            hint=getattr(err, "hint", None),
        ) from None
