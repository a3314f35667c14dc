"""Loading subagents: a tool call that hands work to another agent loop, inline or by a scenario file.

A round's call may carry ``subagent: {file: researcher.yaml}`` (another scenario file, a path relative
to the file that names it) or ``subagent: {model: ..., task: ..., rounds: [...], final: ...}`` (an
inline scenario: the same keys as a scenario file, ``version`` optional). The subagent has its own
model, system prompt, tools, caching and rounds; its requests are billed on its own model. Only its
final answer goes back to the parent: the call's tool result is the subagent's ``final`` content (text
counted with the parent's rules, a stated count used as is; the subagent's output framing and
``final_thinking`` stay in the subagent's bill). A ``result`` on such a call is an error.

Loading (:func:`load_subagent`) is called by the scenario builder for each ``subagent:`` value.
Subagents may name subagents down to :data:`MAX_SUBAGENT_DEPTH` levels below the top scenario; a
chain of scenario files that comes back to one of its own files is an error naming the chain
(``a.yaml -> b.yaml -> a.yaml``). ``--set`` overrides apply to the top scenario only. A subagent
file must be inside the directories the run allows (:func:`agentcost.infra.policy.confine`).

Estimating them is :mod:`agentcost.loop.subagents`.
"""

from __future__ import annotations

import contextvars
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

from agentcost.errors import InputError
from agentcost.infra.policy import OutsideRoots, confine
from agentcost.infra.record import record
from agentcost.infra.yamlread import Doc, KeyPath, Unreadable, key_text, parse
from agentcost.scenario.model import SCENARIO_VERSION, Scenario

MAX_SUBAGENT_DEPTH = 5
"""Most levels of subagents below the top scenario (a subagent of a subagent is level 2)."""


class FromDoc(Protocol):
    """Builds the scenario in a parsed document, the files it names read by ``read_text``
    (:func:`agentcost.scenario.load.scenario_from_doc`, passed in by the builder)."""

    def __call__(self, doc: Doc, read_text: Callable[[Path], str], *, depth: int) -> Scenario: ...


@record
class _Chain:
    """Where loading is: the scenario files from the top down to the one being read, and its depth."""

    files: tuple[Path, ...] = ()
    depth: int = 0


_CHAIN: contextvars.ContextVar[_Chain | None] = contextvars.ContextVar("agentcost_subagents", default=None)


def top_file(default: Path) -> Path:
    """The top scenario file of the load in progress: ``default`` (the file being built) unless a
    subagent is being loaded."""
    chain = _CHAIN.get()
    return chain.files[0] if chain is not None and chain.files else default


def _same(a: Path, b: Path) -> bool:
    return os.path.abspath(a) == os.path.abspath(b)  # unlike resolve(), never touches the file system


def _chain_text(files: tuple[Path, ...]) -> str:
    return " -> ".join(str(f) for f in files)


@contextmanager
def _entered(chain: _Chain) -> Iterator[None]:
    token = _CHAIN.set(chain)
    try:
        yield
    finally:
        _CHAIN.reset(token)


def load_subagent(
    value: Any,
    *,
    parent_path: Path,
    line: int | None,
    reader: Callable[[Path], str],
    from_doc: FromDoc,
    depth: int | None = None,
    stack: tuple[Path, ...] | None = None,
    doc: Doc | None = None,
    at: KeyPath = (),
) -> Scenario:
    """The subagent a call names: ``value`` is the plain ``subagent:`` mapping, ``{file: path}`` or an
    inline scenario.

    ``parent_path`` is the file the value is written in (a relative ``file`` is resolved against its
    directory), ``line`` the line of the ``subagent:`` key, ``reader`` the scenario reader's text
    reader (it raises the reader's own unreadable-file error), ``from_doc`` what builds the
    subagent's scenario from its parsed document. ``depth`` is the subagent's level (1: a
    subagent of the top scenario) and ``stack`` the scenario files from the top down to
    ``parent_path``; both default to what the loading in progress knows (so that the reader need not
    carry them). ``doc`` and ``at`` (the parent's parsed file and the key path of the ``subagent``
    value in it) give errors inside an inline subagent their own lines and full key paths.
    """
    chain = _CHAIN.get() or _Chain()
    files = stack if stack is not None else chain.files
    if not files or not _same(files[-1], parent_path):
        files = (*files, parent_path)
    level = depth if depth is not None else chain.depth + 1

    def fail(where: KeyPath, message: str, hint: str | None = None) -> InputError:
        if doc is not None:  # the parent's own error: its line for the key, the full key path
            return doc.error((*at, *where), message, hint)
        return InputError(message, file=parent_path, line=line, key=key_text(("subagent", *where)), hint=hint)

    if level > MAX_SUBAGENT_DEPTH:
        raise fail(
            (),
            f"subagents nested more than {MAX_SUBAGENT_DEPTH} levels deep ({_chain_text(files)})",
            "a subagent of a subagent is level 2; flatten the chain",
        )
    if not isinstance(value, dict):
        raise fail((), "expected {file: path} or an inline scenario mapping")
    if set(value) == {"file"}:
        if doc is not None and doc.in_memory:  # a mapping given in memory: no file, no line
            named_at = doc.where(at)
        else:
            named_at = f"{parent_path}:{line}" if line is not None else str(parent_path)
        quotes = doc is None or doc.quotes
        return _from_file(
            value["file"], parent_path, named_at, fail, reader, from_doc, _Chain(files, level), quotes=quotes
        )
    return _inline(value, parent_path, line, reader, from_doc, _Chain(files, level), doc, at)


def _from_file(
    name: Any,
    parent_path: Path,
    named_at: str,
    fail: Callable[[KeyPath, str, str | None], InputError],
    reader: Callable[[Path], str],
    from_doc: FromDoc,
    chain: _Chain,
    *,
    quotes: bool,
) -> Scenario:
    """The subagent in file ``name``, written in ``parent_path`` (whose text errors may quote: ``quotes``).
    A subagent file is a file named inside another: errors never quote its text (docs/security.md)."""
    if not isinstance(name, str) or not name:
        raise fail(("file",), "expected a path (text)", None)
    path = parent_path.parent / name
    if any(_same(path, f) for f in chain.files):
        cycle = (*chain.files, path)
        raise fail(
            ("file",),
            f"subagent cycle: {_chain_text(cycle)}",
            "a subagent cannot run a scenario that is already running it",
        )
    try:
        real = confine(path, parent_path, chain.files[0] if chain.files else parent_path)
    except OutsideRoots as e:
        raise fail(("file",), e.text(quotes=quotes), e.hint) from None
    try:
        text = reader(real)
    except Unreadable as e:
        raise fail(
            ("file",), f"cannot read {path if quotes else 'the file named here'}: {e.reason}", None
        ) from None
    doc = parse(Doc(path, hint=f"subagent file named at {named_at}", quotes=False), text)
    with _entered(replace(chain, files=(*chain.files, path))):
        return from_doc(doc, reader, depth=chain.depth)


def _inline(
    value: dict[str, Any],
    parent_path: Path,
    line: int | None,
    reader: Callable[[Path], str],
    from_doc: FromDoc,
    chain: _Chain,
    parent_doc: Doc | None,
    at: KeyPath,
) -> Scenario:
    doc = _inline_doc(parent_path, parent_doc, at, line)
    if "version" not in value:
        value = {"version": SCENARIO_VERSION, **value}
    doc.value = value
    with _entered(chain):  # a version written inline must be a supported one: checked as in a file
        return from_doc(doc, reader, depth=chain.depth)


@record(frozen=False)
class _InlineDoc(Doc):
    """An inline subagent's part of its parent's file: the parent's lines, and key paths from the
    parent's root in messages."""

    prefix: tuple[str | int, ...] = ()

    def error(self, path: KeyPath, message: str, hint: str | None = None) -> InputError:
        err = super().error(path, message, hint)
        err.key = key_text((*self.prefix, *path), quotes=self.quotes) or None
        return err

    def where(self, path: KeyPath) -> str:
        return key_text((*self.prefix, *path), quotes=self.quotes) if self.in_memory else super().where(path)


def _inline_doc(path: Path, parent: Doc | None, at: KeyPath, line: int | None) -> Doc:
    lines: dict[KeyPath, int] = {}
    if parent is not None:
        n = len(at)
        lines = {p[n:]: ln for p, ln in parent.lines.items() if p[:n] == at}
    if () not in lines and line is not None:
        lines[()] = line
    prefix = (*getattr(parent, "prefix", ()), *at) or ("subagent",)  # an inline doc inside an inline doc
    in_memory = parent is not None and parent.in_memory
    quotes = parent is None or parent.quotes  # an inline subagent is part of its parent's file
    return _InlineDoc(path, lines=lines, prefix=prefix, in_memory=in_memory, quotes=quotes)
