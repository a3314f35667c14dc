"""The input budget: how much text one scenario load may hold and one count may tokenize (issue 13).

A scenario of a few MB can make agentcost build and tokenize gigabytes of text: a 1 MB string used
through YAML aliases as every call's ``input`` (each call's input becomes a JSON text of its own),
tool definitions sharing an aliased description (each definition is tokenized as its own JSON
text), a subagent file named by many calls (it is loaded once per call), many different files. The
run's :class:`~agentcost.infra.policy.InputPolicy` bounds it: ``max_input_bytes`` characters
(64 MiB by default; ``--max-input-bytes``, ``max_input_bytes=``), checked twice, each time before
anything is tokenized, with exit 2 and one line naming the scenario file, the total and the limit:

* while a scenario is loaded (:class:`LoadBudget`, run by :mod:`agentcost.scenario.load`): the text
  the load holds, as it grows. Every file read (a file whose text equals one read before is kept
  once), every text built from the files (counted once per object: a text used through aliases is
  one object, a subagent file loaded by three calls makes three), each call's input as the JSON text
  built for it (once per call written, measured before it is built) and each tool definition as the
  JSON text it will be tokenized as. The load stops as soon as the total passes the limit, so the
  memory it takes stays near the limit whatever the file does.
* when a scenario is counted (:func:`check_tokenized`, run by :func:`agentcost.tokens.count.count_tokens`):
  the characters the counting will tokenize, each distinct text once (the token memo tokenizes a
  text once however often it occurs; a repeated round is one round), tool definitions as their JSON
  text, subagents included. This covers scenarios that did not come through the loader (the
  Python API's own :class:`~agentcost.scenario.model.Scenario` objects).

Both are sums of lengths, never copies: a JSON text's length is worked out from its parts
(:func:`json_length`). Standard library only (a cached run imports this without pydantic).
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from decimal import Decimal
from pathlib import Path
from typing import Any

from agentcost.errors import InputError
from agentcost.infra.policy import current_policy
from agentcost.scenario.model import Content, Round, Scenario, ToolDef

__all__ = [
    "BUDGET_OPTION",
    "LoadBudget",
    "check_text",
    "check_tokenized",
    "current_load",
    "json_length",
    "loading",
    "round_texts",
    "tokenized_chars",
    "tool_json_length",
]

BUDGET_OPTION = "--max-input-bytes"
_RAISE = f"raise the limit with {BUDGET_OPTION} N"

# --------------------------------------------------------------------------------------------
# Lengths of JSON texts, without building them
# --------------------------------------------------------------------------------------------


def _str_length(text: str, ensure_ascii: bool) -> int:
    """``len(json.dumps(text, ensure_ascii=ensure_ascii))``; no copy for printable text."""
    if (text.isascii() or not ensure_ascii) and text.isprintable():  # escapes: only " and \
        return len(text) + 2 + text.count('"') + text.count("\\")
    return len(json.dumps(text, ensure_ascii=ensure_ascii))  # control characters, or \u escapes


def _key_length(key: Any, ensure_ascii: bool, size: Callable[[Any], int]) -> int:
    """A mapping key's JSON text: a key that is not text is written as ``str(key)`` (``dump_json``
    with a Decimal) or as JSON writes it (``7``, ``true``, ``null``): the same length either way. Not
    remembered by id: ``str(key)`` is a new object each time."""
    return size(key) if isinstance(key, str) else _str_length(str(key), ensure_ascii)


def json_length(
    value: Any,
    *,
    separators: tuple[str, str] = (",", ":"),
    ensure_ascii: bool = False,
    lengths: dict[int, int] | None = None,
) -> int:
    """``len(dump_json(value, separators=..., ensure_ascii=...))`` (:mod:`agentcost.infra.jsontext`)
    without building the text: the values from a scenario file (mappings, lists, text, numbers,
    ``Decimal``, booleans, None). ``lengths`` remembers the length of each text object by its id, so
    that a text met again (an alias) is not measured again; its objects must stay alive meanwhile."""
    comma, colon = len(separators[0]), len(separators[1])
    known: dict[int, int] = {} if lengths is None else lengths

    def size(v: Any) -> int:
        if isinstance(v, str):
            n = known.get(id(v))
            if n is None:
                n = known[id(v)] = _str_length(v, ensure_ascii)
            return n
        if v is None or v is True:
            return 4
        if v is False:
            return 5
        if isinstance(v, int | Decimal):
            return len(str(v))
        if isinstance(v, float):
            return len(json.dumps(v))
        if isinstance(v, dict):
            inner = sum(_key_length(k, ensure_ascii, size) + colon + size(x) for k, x in v.items())
            return 2 + inner + comma * max(len(v) - 1, 0)
        if isinstance(v, list | tuple):
            return 2 + sum(size(x) for x in v) + comma * max(len(v) - 1, 0)
        return len(str(v))  # not a file's value: never reached by the loader's JSON

    return size(value)


_TOOL_LENGTHS: dict[int, tuple[weakref.ref[ToolDef], int]] = {}  # by id, while the tool lives


def tool_json_length(tool: ToolDef, lengths: dict[int, int] | None = None) -> int:
    """The length of a tool definition's JSON text as the counting rules tokenize it (Anthropic's
    form, the longest: ``{"name": ..., "description": ..., "input_schema": ...}``, ASCII only).
    Measured once per tool object (a scenario's tools are checked each time it is counted)."""
    known = _TOOL_LENGTHS.get(id(tool))
    if known is not None and known[0]() is tool:
        return known[1]
    shape = {"name": tool.name, "description": tool.description, "input_schema": tool.input_schema}
    n = json_length(shape, separators=(", ", ": "), ensure_ascii=True, lengths=lengths)
    key = id(tool)
    _TOOL_LENGTHS[key] = (weakref.ref(tool, lambda _: _TOOL_LENGTHS.pop(key, None)), n)
    return n


# --------------------------------------------------------------------------------------------
# What counting tokenizes
# --------------------------------------------------------------------------------------------


def _text(content: Content | None) -> str | None:
    return content.text if content is not None and content.text else None


def round_texts(round_: Round) -> Iterator[str]:
    """The texts of a round that counting tokenizes: its text, the user's message, each call's
    tool name, input and result, and the server tools' results."""
    if text := _text(round_.text):
        yield text
    if text := _text(round_.user):
        yield text
    for call in round_.calls:
        yield call.tool
        if text := _text(call.input):
            yield text
        if text := _text(call.result):
            yield text
    for server in round_.server_tools:
        if text := _text(server.result):
            yield text


def _own_texts(scenario: Scenario) -> Iterator[str]:
    """The texts of ``scenario`` itself (not its subagents'), each distinct round once."""
    for content in (scenario.system, scenario.task, scenario.final, scenario.retries.error):
        if text := _text(content):
            yield text
    seen: set[int] = set()
    for round_ in scenario.rounds:
        if id(round_) not in seen:
            seen.add(id(round_))
            yield from round_texts(round_)


def _subagents(scenario: Scenario) -> Iterator[Scenario]:
    seen: set[int] = set()
    for round_ in scenario.rounds:
        if id(round_) in seen:
            continue
        seen.add(id(round_))
        for call in round_.calls:
            if call.subagent is not None:
                yield call.subagent


def tokenized_chars(scenario: Scenario) -> int:
    """Characters of the text that counting ``scenario`` and its subagents tokenizes: each distinct
    text once, each distinct tool definition as its JSON text (:func:`tool_json_length`)."""
    texts: set[str] = set()
    tools: set[tuple[str, str, int]] = set()
    lengths: dict[int, int] = {}
    total = 0
    done: set[int] = set()
    todo = [scenario]
    while todo:
        s = todo.pop()
        if id(s) in done:
            continue
        done.add(id(s))
        for text in _own_texts(s):
            if text not in texts:
                texts.add(text)
                total += len(text)
        for tool in s.tools:
            n = tool_json_length(tool, lengths)
            key = (tool.name, tool.description, n)
            if key not in tools:
                tools.add(key)
                total += n
        todo.extend(_subagents(s))
    return total


def check_text(total: int, *, file: Path | str | None, counted: str) -> None:
    """Refuse (:class:`InputError`) ``total`` characters of text to tokenize when they are more than
    the run's policy allows: the one message of the text budget for every input (scenarios, traces),
    naming ``file`` and saying what was ``counted``."""
    limit = current_policy().max_input_bytes
    if total > limit:
        raise InputError(
            f"{total:,} characters of text to tokenize, over the limit of {limit:,}",
            file=file,
            hint=f"{counted}; {_RAISE}",
        )


def check_tokenized(scenario: Scenario) -> None:
    """Refuse (:class:`InputError`) a scenario whose counting would tokenize more characters than
    the run's policy allows (:func:`tokenized_chars`)."""
    check_text(
        tokenized_chars(scenario),
        file=scenario.path,
        counted="each distinct text once, tool definitions as JSON text, subagents included",
    )


# --------------------------------------------------------------------------------------------
# What a load holds
# --------------------------------------------------------------------------------------------


class LoadBudget:
    """The text one scenario load holds, and its limit (see the module docstring).

    The loader calls :meth:`reader` to wrap its file reader, :meth:`inputs` before building a
    scenario (or a subagent's) with the ``input`` values of its calls, and :meth:`built` after. Any
    of them raises :class:`InputError` once the total passes the limit."""

    def __init__(self, path: Path | None, limit: int | None = None) -> None:
        self.path = path  # the file its messages name (None: a scenario mapping given in memory)
        self.limit = current_policy().max_input_bytes if limit is None else limit
        self.total = 0
        self._held: dict[int, object] = {}  # the objects counted, by id (kept alive: ids stay unique)
        self._files: dict[str, str] = {}  # each distinct file text, kept once
        self._lengths: dict[int, int] = {}  # json_length's lengths of text objects, by id
        self._inputs: list[Any] = []  # the input values measured (a subagent's spec goes away)

    def _add(self, n: int) -> None:
        self.total += n
        if self.total > self.limit:
            raise InputError(
                f"more than {self.limit:,} characters of text to load and tokenize: {self.total:,} so far",
                file=self.path,
                hint="files read, texts, and call inputs and tool definitions as JSON text, each time "
                f"one is built; {_RAISE}",
            )

    def _hold(self, value: object, n: int) -> None:
        if id(value) not in self._held:
            self._held[id(value)] = value
            self._add(n)

    def reader(self, read_text: Callable[[Path], str]) -> Callable[[Path], str]:
        """``read_text``, counting each file's text; a text equal to one read before (a copy, a
        hard link) is replaced by that one, so that it is held once."""

        def read(path: Path) -> str:
            text = read_text(path)
            kept = self._files.setdefault(text, text)
            self._hold(kept, len(kept))
            return kept

        return read

    def inputs(self, values: Iterable[Any]) -> None:
        """Count the JSON texts the builder is about to make of these call inputs (one per call
        written, an alias's too), before it makes them."""
        for value in values:
            self._inputs.append(value)  # alive until the load ends: _lengths goes by the ids in it
            self._add(json_length(value, lengths=self._lengths))

    def built(self, scenario: Scenario) -> None:
        """Count the texts of a scenario just built (not its subagents': each is counted when it is
        built) that are not counted yet, and its tool definitions; call inputs were counted by
        :meth:`inputs`."""
        for content in (scenario.system, scenario.task, scenario.final, scenario.retries.error):
            if text := _text(content):
                self._hold(text, len(text))
        seen: set[int] = set()
        for round_ in scenario.rounds:
            if id(round_) in seen:
                continue
            seen.add(id(round_))
            for content in (round_.text, round_.user, *(s.result for s in round_.server_tools)):
                if text := _text(content):
                    self._hold(text, len(text))
            for call in round_.calls:  # tool names: short, and never copied (not counted here)
                if text := _text(call.result):
                    self._hold(text, len(text))
        for tool in scenario.tools:
            self._hold(tool, tool_json_length(tool, self._lengths))


_LOAD: ContextVar[LoadBudget | None] = ContextVar("agentcost_load_budget", default=None)


def current_load() -> LoadBudget | None:
    """The budget of the scenario load in progress (None outside one)."""
    return _LOAD.get()


@contextmanager
def loading(budget: LoadBudget) -> Iterator[LoadBudget]:
    """Make ``budget`` the one of the load in progress (subagents' builds find it here)."""
    token = _LOAD.set(budget)
    try:
        yield budget
    finally:
        _LOAD.reset(token)
