"""How far a run trusts its input: where named files may be, and how much text it may tokenize.

CI runs agentcost on files a stranger's pull request controls (docs/security.md). The policy is set
once per run, by the CLI from ``--allow-path`` and ``--max-input-bytes`` or by the Python API from its
keyword arguments, and read wherever a file named inside another file is opened or text is about to
be tokenized. A context variable, so that threads and nested runs see the policy they were given.

Confinement (:func:`confine`): a file named inside an input file (``{file: ...}``, a tools file, a
subagent, an ``empirical`` file, a project's ``path:``) must resolve, symlinks followed, inside the
directory of the file naming it, the directory of the load's top file (the one the command line or
the caller gave), the project root (the git work tree holding that top file: the nearest directory
above it with a ``.git`` entry, found without running git) or one of the policy's
``allowed_roots``. Files given on the command line itself are trusted: the CI workflow wrote them;
but in CI (:func:`in_ci`) one that a symlink leads out of the working tree is not
(:func:`leaves_tree`): the workflow wrote its name, the pull request may have made it a symlink.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from agentcost.infra.files import confine_reads
from agentcost.infra.record import record

__all__ = [
    "ALLOW_OPTION",
    "DEFAULT_MAX_INPUT_BYTES",
    "InputPolicy",
    "OutsideRoots",
    "confine",
    "current_policy",
    "in_ci",
    "leaves_tree",
    "project_root",
    "using_policy",
]

ALLOW_OPTION = "--allow-path"

DEFAULT_MAX_INPUT_BYTES = 64 * 1024 * 1024
"""Characters of text that may reach the tokenizer in one run (after aliases, includes and repeats)."""


@record
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


class OutsideRoots(Exception):
    """A named file that resolves outside every allowed directory: ``message`` and ``hint`` for the
    error at the key that names it."""

    def __init__(self, shown: Path | str, real: str) -> None:
        self.shown = str(shown)
        self.real = real
        self.message = f"{self.shown} resolves to {real}, outside the allowed directories"
        self.hint = (
            "a file named in an input file must be inside that file's directory, the directory of the "
            f"file given on the command line or its git work tree; pass {ALLOW_OPTION} DIR to allow another"
        )
        super().__init__(self.message)

    def text(self, *, quotes: bool = True) -> str:
        """The message for a path written in a file whose text may be quoted (``quotes``), else the
        same without the path or where it resolves (docs/security.md: a file named inside another)."""
        return self.message if quotes else "the path written here resolves outside the allowed directories"


def project_root(path: Path | str) -> Path | None:
    """The git work tree holding the file ``path``: the nearest directory above its real path with a
    ``.git`` entry (a directory, or a file in a worktree or submodule); None outside any."""
    return _work_tree(os.path.dirname(os.path.realpath(path)))


def _work_tree(here: str) -> Path | None:
    """The nearest directory from the real directory ``here`` up with a ``.git`` entry, or None."""
    while True:
        if os.path.lexists(os.path.join(here, ".git")):
            return Path(here)
        up = os.path.dirname(here)
        if up == here:
            return None
        here = up


def _inside(real: str, root: str) -> bool:
    real, root = os.path.normcase(real), os.path.normcase(root)
    return real == root or real.startswith(root if root.endswith(os.sep) else root + os.sep)


def confine(target: Path, naming_file: Path, top: Path | None = None) -> Path:
    """The real path of ``target``, a file named inside ``naming_file`` during a load whose top file
    is ``top`` (default: ``naming_file``), if it is inside a directory the policy allows (see the
    module's docstring); else :class:`OutsideRoots`. A path the file system cannot take (a NUL in
    it) comes back as it is, for the reader to refuse.

    The check is recorded with the real path (:func:`agentcost.infra.files.confine_reads`): reading
    that path opens it by a walk over directory descriptors and repeats the check on the real path
    the walk reached, so that a directory swapped for a symlink in between cannot lead the read
    outside."""
    try:
        real = os.path.realpath(target)
        top = naming_file if top is None else top
        near = (
            os.path.realpath(os.path.dirname(os.path.abspath(naming_file))),
            os.path.realpath(os.path.dirname(os.path.abspath(top))),
        )
    except ValueError:
        return target
    far: list[str] = []  # the project root and --allow-path: looked up only when needed

    def allowed(path: str) -> bool:
        if any(_inside(path, root) for root in near):
            return True
        if not far:
            found = project_root(top)
            far.extend([str(found)] if found is not None else [])
            far.extend(os.path.realpath(root) for root in current_policy().allowed_roots)
            far.append("")  # looked up: an empty root contains nothing
        return any(_inside(path, root) for root in far if root)

    try:
        if not allowed(real):
            raise OutsideRoots(target, real)
    except ValueError:
        return target

    def check(opened: str) -> str | None:
        if allowed(opened):
            return None
        refusal = OutsideRoots(target, opened)
        return f"it resolves to {opened} when opened, outside the allowed directories ({refusal.hint})"

    confine_reads(real, check)
    return Path(real)


def in_ci() -> bool:
    """Whether the run is in CI: ``CI`` set in the environment to anything but nothing, ``0`` or
    ``false`` (GitHub Actions, GitLab CI and most others set ``CI=true``)."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false")


def leaves_tree(path: Path | str) -> str | None:
    """The real path of ``path``, a file or directory the command line names, when a symlink leads it
    out of the working tree: as written it is inside the working directory or the git work tree
    holding it, and its real path is inside neither, nor inside any of the policy's
    ``allowed_roots``. None otherwise (it stays inside, or was written outside: the workflow named
    that place itself)."""
    try:
        cwd = os.path.realpath(os.getcwd())
        written, real = os.path.abspath(path), os.path.realpath(path)
    except (OSError, ValueError):  # no working directory, a NUL in the path: the reader says so
        return None
    tree = _work_tree(cwd)
    roots = [cwd] if tree is None else [cwd, str(tree)]
    if not any(_inside(written, root) for root in roots):
        return None
    roots += [os.path.realpath(root) for root in current_policy().allowed_roots]
    return None if any(_inside(real, root) for root in roots) else real
