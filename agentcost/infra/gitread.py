"""Files as they are at a git revision: the base side of ``agentcost diff --base-ref REF``.

:func:`git_reader` returns a :data:`~agentcost.infra.files.Reader`, so that
``load_scenario(path, reader=git_reader("origin/main"))`` reads the scenario, and every file it
names, as committed at that revision instead of from the working tree::

    git -C <repo root> cat-file blob <commit>:<path relative to the repo root>

Each file is bounded as a file on disk is (:data:`~agentcost.infra.files.MAX_FILE_BYTES`): its
size is asked first (``git cat-file -s``) and a blob over the limit is refused
(:class:`~agentcost.infra.files.FileTooLarge`) before git hands a byte of it over.

The repository is the one holding the first file read (normally the scenario), unless
``repo_root`` is given. A file that is not at the revision raises ``FileNotFoundError("file not
found at REF")``, which the loader reports like a missing file; a revision that does not exist,
a directory outside any repository, or git missing are :class:`~agentcost.errors.InputError`.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from agentcost.errors import InputError
from agentcost.infra.files import MAX_FILE_BYTES, FileTooLarge

if TYPE_CHECKING:
    from agentcost.infra.files import Reader

__all__ = ["GitReader", "commit_of", "git_reader"]

_FETCH_HINT = (
    "check the name with 'git branch -a' or 'git log --oneline'; in CI, fetch it first "
    "(e.g. actions/checkout with fetch-depth: 0)"
)


def git_reader(ref: str, repo_root: Path | None = None, limit: int = MAX_FILE_BYTES) -> Reader:
    """A reader of files as they are at the git revision ``ref`` (a branch, tag or commit), each
    at most ``limit`` bytes."""
    return GitReader(ref, repo_root, limit)


class GitReader:
    """Reads files at one git revision with ``git cat-file``; each file is read once, and only when
    its size is within ``limit``."""

    def __init__(self, ref: str, repo_root: Path | None = None, limit: int = MAX_FILE_BYTES) -> None:
        if not ref.strip() or ref.startswith("-"):
            raise InputError(f"not a git revision: {ref!r}", hint="e.g. main, origin/main, v1.2 or a commit")
        self.ref = ref
        self.root = Path(os.path.realpath(repo_root)) if repo_root is not None else None
        self.commit: str | None = None  # ref resolved once, so every file comes from the same commit
        self.files: dict[Path, bytes | OSError] = {}
        self.limit = limit

    def __call__(self, path: Path) -> bytes:
        if path not in self.files:
            try:
                self.files[path] = self.show(path)
            except OSError as e:
                self.files[path] = e
        found = self.files[path]
        if isinstance(found, OSError):
            raise found
        return found

    def show(self, path: Path) -> bytes:
        root = self.repo_root(path)
        commit = self.resolve(root)
        # the directory's real path, as git gives the root's; the file itself may be a symlink
        real = Path(os.path.realpath(path.parent)) / path.name
        try:
            name = real.relative_to(root).as_posix()
        except ValueError:
            raise FileNotFoundError(
                f"file not found at {self.ref}: it is outside the git repository {root}"
            ) from None
        spec = f"{commit}:{name}"
        kind = self.git(root, "cat-file", "-t", spec)
        if kind.returncode != 0:
            raise FileNotFoundError(f"file not found at {self.ref}")
        kind_name = kind.stdout.decode().strip()
        if kind_name == "tree":
            raise IsADirectoryError(f"is a directory at {self.ref}, not a file")
        if kind_name != "blob":
            raise OSError(f"not a file at {self.ref} (a git {kind_name})")
        sized = self.git(root, "cat-file", "-s", spec)
        size = sized.stdout.decode().strip()
        if sized.returncode != 0 or not size.isdigit():
            raise OSError(f"git cat-file -s {spec} failed: {_first_line(sized.stderr)}")
        if int(size) > self.limit:  # refused before git hands any of it over
            raise FileTooLarge(int(size), self.limit)
        shown = self.git(root, "cat-file", "blob", spec)
        if shown.returncode != 0:
            raise OSError(f"git cat-file blob {spec} failed: {_first_line(shown.stderr)}")
        if len(shown.stdout) > self.limit:  # cannot happen for a blob of that size; still bounded
            raise FileTooLarge(len(shown.stdout), self.limit)
        return shown.stdout

    def repo_root(self, path: Path) -> Path:
        """The repository's top directory: given, or found from the first file's directory."""
        if self.root is None:
            start = path.parent
            while not start.is_dir() and start != start.parent:  # a directory only at the revision
                start = start.parent
            found = self.git(start, "rev-parse", "--show-toplevel")
            if found.returncode != 0:
                raise InputError(
                    f"cannot read files at git revision {self.ref!r}: no git repository at {start}",
                    hint=f"{_first_line(found.stderr)}; run agentcost in a git checkout, "
                    "or give the base scenario as a file",
                )
            self.root = Path(os.fsdecode(found.stdout.strip()))
        return self.root

    def resolve(self, root: Path) -> str:
        """The commit ``ref`` names."""
        if self.commit is None:
            found = self.git(root, "rev-parse", "--verify", "--quiet", f"{self.ref}^{{commit}}")
            if found.returncode != 0:
                raise InputError(f"unknown git revision {self.ref!r} in {root}", hint=_FETCH_HINT)
            self.commit = found.stdout.decode().strip()
        return self.commit

    def git(self, where: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
        try:
            return subprocess.run(
                ["git", "-C", str(where), *args], capture_output=True, stdin=subprocess.DEVNULL, check=False
            )
        except FileNotFoundError:
            raise InputError(
                f"cannot read files at git revision {self.ref!r}: git is not installed (or not on PATH)",
                hint="install git, or give the base scenario as a file",
            ) from None


def commit_of(root: str, ref: str) -> str | None:
    """The commit ``ref`` names in the repository at ``root`` now, or None (no git, no such ref)."""
    try:
        found = subprocess.run(
            ["git", "-C", root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"],
            capture_output=True,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except OSError:
        return None
    return found.stdout.decode().strip() if found.returncode == 0 else None


def _first_line(data: bytes) -> str:
    lines = data.decode(errors="replace").strip().splitlines()
    return lines[0] if lines else "no message"
