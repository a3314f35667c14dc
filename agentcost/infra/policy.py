"""How far a run trusts its input: where named files may be, and how much text it may tokenize.

CI runs agentcost on files a stranger's pull request controls (docs/security.md). The policy is set
once per run, by the CLI from ``--allow-path`` and ``--max-input-bytes`` or by the Python API from its
keyword arguments, and read wherever a file named inside another file is opened or text is about to
be tokenized. A context variable, so that threads and nested runs see the policy they were given.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

DEFAULT_MAX_INPUT_BYTES = 64 * 1024 * 1024
"""Characters of text that may reach the tokenizer in one run (after aliases, includes and repeats)."""


@dataclass(frozen=True)
class InputPolicy:
    """``allowed_roots``: directories (besides the naming file's own and the project root) that files
    named inside input files may resolve into; ``max_input_bytes``: see :data:`DEFAULT_MAX_INPUT_BYTES`."""

    allowed_roots: tuple[Path, ...] = ()
    max_input_bytes: int = DEFAULT_MAX_INPUT_BYTES


_DEFAULT = InputPolicy()  # frozen: safe to share
_POLICY: ContextVar[InputPolicy | None] = ContextVar("agentcost_input_policy", default=None)


def current_policy() -> InputPolicy:
    """The policy of the run in progress (the default one outside :func:`using_policy`)."""
    return _POLICY.get() or _DEFAULT


@contextmanager
def using_policy(policy: InputPolicy) -> Iterator[InputPolicy]:
    """Run the body under ``policy``; the previous one is restored after."""
    token = _POLICY.set(policy)
    try:
        yield policy
    finally:
        _POLICY.reset(token)
