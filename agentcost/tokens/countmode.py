"""The run's counting mode: ``offline`` (the default: local tokenizers and rules, Claude texts on the
o200k_base × ratio path, the same figures on every supported Python), ``ctok`` (offline, Claude texts
counted with the ctok reconstruction of Claude's tokenizer, which installs only on Python >= 3.12) or
``api`` (Claude and Gemini texts counted by the provider's endpoint, :mod:`agentcost.tokens.apicount`).
Kept apart from that module so that the offline default never imports the HTTP client."""

import os

from agentcost.errors import InputError

MODE_ENV = "AGENTCOST_COUNT"
MODES = ("offline", "ctok", "api")

_mode: str | None = None


def set_mode(mode: str | None) -> None:
    """The run's counting mode (the CLI's ``--count``); None: ``AGENTCOST_COUNT`` or offline."""
    global _mode
    _mode = mode


def mode() -> str:
    """``offline`` (the default), ``ctok`` or ``api``."""
    if _mode is not None:
        return _mode
    raw = os.environ.get(MODE_ENV, "").strip().lower()
    if not raw:
        return "offline"
    if raw not in MODES:
        raise InputError(f"unknown counting mode {raw!r}", key=MODE_ENV, hint="use offline, ctok or api")
    return raw
