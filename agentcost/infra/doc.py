"""A parsed input file (:class:`Doc`): its plain value, the line of every key path, and errors located in it.

An error about a value names the file and the value's line, or the ``--set`` override that set the
value (:class:`OverrideError`); :class:`Override` is one ``--set PATH=VALUE``, parsed. A Doc may
also hold a mapping given in memory (the Python API: :func:`agentcost.infra.yamlread.mapping_doc`):
it has no file and no lines, and its errors name the key path alone. Used by the
YAML reader (:mod:`agentcost.infra.yamlread`), by validation (:mod:`agentcost.infra.validate`) and
by every file format.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field
from pathlib import Path
from typing import Any

from agentcost.errors import InputError
from agentcost.infra.record import record
from agentcost.infra.spec import format_key
from agentcost.infra.text import plain

__all__ = [
    "HIDDEN_KEY",
    "MAX_SHOWN",
    "Doc",
    "KeyPath",
    "Override",
    "OverrideError",
    "Step",
    "bounded",
    "cut",
    "joined",
    "key_text",
]

KeyPath = tuple[str | int, ...]
"""A key path in a file: keys and list indexes from the root, e.g. ``("rounds", 3, "result")``."""


# --------------------------------------------------------------------------------------------
# A parsed file, and where its values are
# --------------------------------------------------------------------------------------------


@record(frozen=False)
class Doc:
    """A parsed YAML or JSON file: its plain value and the line of every key path in it."""

    path: Path
    value: Any = None
    lines: dict[KeyPath, int] = field(default_factory=dict)
    hint: str | None = None  # added to every error about this file
    overrides: dict[KeyPath, Override] = field(default_factory=dict)  # what --set set, by key path
    quotes: bool = True
    """Whether errors may echo this file's values and keys (bounded and escaped): True for the top
    input, the file the command line names as the scenario or project (and ``--set``); False for
    every file named inside another (subagent files, tools files) and for data files (price files):
    their values are named by type and size only, and of their keys only agentcost's own words are
    shown (:func:`key_text`), so that nothing such a file holds reaches a message."""
    in_memory: bool = False
    """Whether the value was given in memory (a mapping passed to the Python API), not read from a
    file: ``path`` is then a virtual file, in the directory the paths the value names are read
    from, that no message names; errors are located by key path alone (``rounds[1].tool: ...``)."""

    @property
    def file(self) -> Path | None:
        """The file messages name: ``path``, or None for a value given in memory."""
        return None if self.in_memory else self.path

    def line(self, path: KeyPath) -> int | None:
        """Line of ``path``, or of its nearest ancestor that has one; None for a value set by --set."""
        if self.override_at(path) is not None:
            return None
        while path not in self.lines and path:
            path = path[:-1]
        return self.lines.get(path)

    def own_line(self, path: KeyPath) -> int | None:
        """Line of ``path`` itself; None when it is not in the file or was set by --set."""
        return None if self.override_at(path) is not None else self.lines.get(path)

    def override_at(self, path: KeyPath) -> Override | None:
        """The override that set ``path`` or one of its ancestors (the last applied, if several)."""
        found = [self.overrides[path[:n]] for n in range(len(path), 0, -1) if path[:n] in self.overrides]
        return max(found, key=lambda override: override.index, default=None)

    def override_below(self, path: KeyPath) -> Override | None:
        """The last override that set a key path inside ``path`` (which it did not set as a whole)."""
        inside = [o for at, o in self.overrides.items() if len(at) > len(path) and at[: len(path)] == path]
        return max(inside, key=lambda override: override.index, default=None) if path else None

    def where(self, path: KeyPath) -> str:
        """``file:line`` of ``path`` (its key path for a value given in memory; and the last override
        that changed something in it), or the override that set it."""
        override = self.override_at(path)
        if override is not None:
            return f"--set {override.text}"
        if self.in_memory:  # no file, no lines: the key path
            where = key_text(path, quotes=self.quotes) or "the top level"
        else:
            line = self.line(path)
            where = f"{self.path}:{line}" if line is not None else str(self.path)
        below = self.override_below(path)
        return where + (f", changed by --set {below.text}" if below is not None else "")

    def error(self, path: KeyPath, message: str, hint: str | None = None) -> InputError:
        hint = joined(hint, self.hint)
        key = key_text(path, quotes=self.quotes) or None
        override = self.override_at(path)
        if override is not None:  # the file is not to blame: name the override instead of a line
            if key != override.path:
                message = f"{key}: {message}"
            return OverrideError(message, file=self.file, override=override.text, key=key, hint=hint)
        below = self.override_below(path)
        if below is not None:
            hint = joined(hint, f"after --set {below.text}")
        return InputError(message, file=self.file, line=self.line(path), key=key, hint=hint)


def joined(*hints: str | None) -> str | None:
    """The hints that are given, joined by ``"; "`` (None if there are none)."""
    return "; ".join(hint for hint in hints if hint) or None


HIDDEN_KEY = "<key>"
"""How a key path shows a key of a file whose text is never quoted, when the key is not one of
agentcost's own words (an unknown key, a key of a tool's JSON Schema...)."""


def key_text(path: Sequence[str | int | None], *, quotes: bool = True) -> str:
    """``("rounds", 3, "result")`` -> ``rounds[3].result``; None (in an override's path) is ``[*]``.

    A key of more than :data:`MAX_SHOWN` characters, or with a character
    that is not printable, is shown bounded and escaped (:func:`bounded`). Without ``quotes`` (a
    file whose text is never quoted: :attr:`Doc.quotes`), a key that is not a key of one of
    agentcost's formats is shown as :data:`HIDDEN_KEY`."""
    text = ""
    for part in path:
        if part is None or isinstance(part, int):
            text += "[*]" if part is None else f"[{part}]"
        else:
            part = bounded(part) if quotes or format_key(part) else HIDDEN_KEY
            text += f".{part}" if text else part
    return text


# --------------------------------------------------------------------------------------------
# Values in messages: bounded and escaped
# --------------------------------------------------------------------------------------------

MAX_SHOWN = 40
"""Most characters of a value a message shows (escapes included; then ``...`` and its length)."""


def cut(text: str, limit: int) -> tuple[str, bool]:
    """``text`` escaped as :func:`agentcost.infra.text.plain` escapes it (control characters, bidi
    overrides...), cut to at most ``limit`` characters with room for ``...`` when it does not fit;
    and whether it was cut."""
    if len(text) <= limit and text.isprintable():
        return text, False
    pieces = [plain(char) for char in text[: limit + 1]]
    size = sum(map(len, pieces))
    if len(text) <= limit and size <= limit:
        return "".join(pieces), False
    while pieces and size > limit - 3:
        size -= len(pieces.pop())
    return "".join(pieces), True


def bounded(text: str, limit: int = MAX_SHOWN) -> str:
    """``text`` as a message shows it: escaped (control characters, bidi overrides and other
    characters that are not printable as ``\\x1b``, ``\\u202e``) and, when longer than ``limit``
    characters, cut to its start, ``...`` and its length: ``abc... (5,000 characters)``.

    The one rule for echoing what a user wrote (values, keys, names); the text of a file the user
    does not write (a tools file, a trace, a price file...) is never echoed: see
    :func:`agentcost.infra.validate.shown`."""
    head, was_cut = cut(text, limit)
    return f"{head}... ({len(text):,} characters)" if was_cut else head


# --------------------------------------------------------------------------------------------
# Overrides: --set PATH=VALUE, parsed, and errors that name one
# --------------------------------------------------------------------------------------------


class OverrideError(InputError):
    """An :class:`InputError` in a ``--set`` override, or about a value that one set.

    ``key`` is the key path, as for any error; ``str()`` names the override where an error in the
    file names its line: ``FILE: --set PATH=VALUE: MESSAGE (HINT)``.
    """

    def __init__(
        self,
        message: str,
        *,
        file: Path | str | None,
        override: str,
        key: str | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message, file=file, key=key, hint=hint)
        self.override = override  # the text of the --set option

    def located(
        self, *, file: Path | str | None = None, line: int | None = None, key: str | None = None
    ) -> InputError:
        """A copy with the unknown parts filled in, never a line: the value is not in a file."""
        return OverrideError(
            self.message,
            file=self.file if self.file is not None else file,
            override=self.override,
            key=self.key if self.key is not None else key,
            hint=self.hint,
        )

    def __str__(self) -> str:
        shown = self.override if len(self.override) <= 80 else self.override[:77] + "..."
        return str(InputError(self.message, file=self.file, key=f"--set {shown}", hint=self.hint))


Step = str | int | None
"""One step of an override's path: a key, a list index, or None for ``[*]`` (every item)."""


@record
class Override:
    """One ``--set PATH=VALUE``, parsed."""

    text: str  # as given
    path: str  # PATH as given
    steps: tuple[Step, ...]
    value: Any
    index: int  # its place among the overrides: where two set the same value, the later wins
