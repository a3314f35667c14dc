"""The one exception type for bad user input.

Library code raises :class:`InputError`; only ``cli/`` turns it into exit code 2.
Anything else that escapes is a bug and shows a traceback.
"""

from __future__ import annotations

import re
from pathlib import Path

from agentcost.infra.text import plain

__all__ = ["InputError", "UnfitModel", "one_line"]


_ASCII_SPACE = re.compile("[ \t\n\r\x0b\x0c]+")


def one_line(text: str) -> str:
    """``text`` as one line of plain text: each run of ASCII whitespace (newlines too) becomes one
    space, and anything else unprintable (NUL, ESC, bidi overrides, NEL, U+2028...) is shown escaped
    (``\\x00``, ``\\x85``) as :func:`agentcost.infra.text.plain` shows it, so that nothing a file or an
    option holds can break the line, send commands to the terminal or start a GitHub workflow
    command, and a name with a NEL in it is shown as it is, not with a space (issue 28)."""
    return plain(" ".join(part for part in _ASCII_SPACE.split(text) if part))


class InputError(Exception):
    """Bad input from the user: a scenario file, an option value, a model name.

    ``str(error)`` is one line: ``FILE:LINE: KEY: MESSAGE (HINT)``, leaving out the parts that are unknown.
    """

    def __init__(
        self,
        message: str,
        *,
        file: Path | str | None = None,
        line: int | None = None,
        key: str | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = Path(file) if file is not None else None
        self.line = line
        self.key = key
        self.hint = hint

    def located(
        self, *, file: Path | str | None = None, line: int | None = None, key: str | None = None
    ) -> InputError:
        """Return a copy that fills in the location parts this error does not know yet."""
        return InputError(
            self.message,
            file=self.file if self.file is not None else file,
            line=self.line if self.line is not None else line,
            key=self.key if self.key is not None else key,
            hint=self.hint,
        )

    def __str__(self) -> str:
        where = ""
        if self.file is not None:
            where = str(self.file)
            if self.line is not None:
                where += f":{self.line}"
            where += ": "
        key = f"{self.key}: " if self.key else ""
        hint = f" ({self.hint})" if self.hint else ""
        return one_line(f"{where}{key}{self.message}{hint}")  # always one line


class UnfitModel(InputError):
    """Input that is sound but that one model cannot run: a server tool the scenario uses and the
    model lacks, a service tier it does not offer. ``estimate`` reports it as any bad input (exit 2);
    ``compare`` marks that model's row with it and compares the others."""

    def located(
        self, *, file: Path | str | None = None, line: int | None = None, key: str | None = None
    ) -> InputError:
        err = super().located(file=file, line=line, key=key)
        return UnfitModel(err.message, file=err.file, line=err.line, key=err.key, hint=err.hint)
