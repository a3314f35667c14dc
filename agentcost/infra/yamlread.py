"""Reading agentcost's YAML (and JSON) input files with line numbers, within limits.

Shared by every file format agentcost reads (scenarios, projects, user prices, ``--models`` files):

* :data:`Reader`, :func:`read_text`, :func:`text_reader`: the bytes of a file (from disk, or e.g. from
  a git revision) as UTF-8 text, or :class:`Unreadable` with the reason; a file over
  :data:`MAX_FILE_BYTES` is refused by its size before it is read (:mod:`agentcost.infra.files`);
* :func:`parse`: compose the text with PyYAML (:data:`Loader`) and build plain Python values in a
  :class:`~agentcost.infra.doc.Doc`, recording the line of every key path and refusing duplicate
  keys; numbers with a fraction become ``Decimal`` from the scalar's text, so a ``float`` never
  exists. A file that would expand (through YAML aliases) to more than :data:`MAX_VALUES` values, or
  is nested more than :data:`MAX_DEPTH` levels deep, is refused before any value is built
  (docs/limits.md);
* :func:`parse_override`: ``--set PATH=VALUE`` texts, parsed (their errors are
  :class:`~agentcost.infra.doc.OverrideError`);
* :func:`mapping_doc`: a mapping given in memory (the Python API) as the plain values :func:`parse`
  builds (a ``float`` becomes the ``Decimal`` of its shortest text), in a Doc whose errors name
  key paths, never a file or a line.

Validation is :mod:`agentcost.infra.validate` (:func:`validate`, ...) with the shapes of
:mod:`agentcost.infra.spec`. Their names, and those of :mod:`agentcost.infra.doc`, are importable from
here too.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, NoReturn

import yaml

from agentcost.errors import InputError
from agentcost.infra.doc import Doc, KeyPath, Override, OverrideError, Step, bounded, joined, key_text
from agentcost.infra.files import (
    LIMITS_DOC,
    MAX_FILE_BYTES,
    FileTooLarge,
    Reader,
    Unreadable,
    read_file,
    read_text,
    text_reader,
)
from agentcost.infra.validate import (
    ErrorHints,
    Spec,
    allowed_hint,
    closest,
    int_to_decimal,
    numeral,
    numeral_problem,
    quoted,
    shown,
    validate,
    whole_number,
)

# With the names of agentcost.infra.files, .doc and .validate it uses: the file formats
# (agentcost.scenario.*) import them all from here.
__all__ = [
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "MAX_VALUES",
    "Doc",
    "ErrorHints",
    "FileTooLarge",
    "KeyPath",
    "Loader",
    "Override",
    "OverrideError",
    "Reader",
    "Spec",
    "Unreadable",
    "allowed_hint",
    "bounded",
    "check_plain",
    "closest",
    "compose",
    "int_to_decimal",
    "joined",
    "key_text",
    "mapping_doc",
    "numeral",
    "parse",
    "parse_override",
    "quoted",
    "read_file",
    "read_text",
    "shown",
    "text_reader",
    "unquoted_problem",
    "validate",
    "whole_number",
]

MAX_VALUES = 2_000_000
"""Most values (mappings, lists and scalars) one file may expand to: YAML aliases can multiply them."""
MAX_DEPTH = 100
"""Most levels of mappings and lists inside one another in one file (the top mapping is level 1)."""

Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""The PyYAML loader that composes files: the C one when PyYAML has it."""
_YAML = "tag:yaml.org,2002:"
_COMPOSE_DEPTH = 1_000
"""Deepest nesting handed to PyYAML's composer. The C composer recurses once per level on the C stack,
unbounded by Python's recursion limit, and some builds of libyaml set no limit of their own: 100,000
levels crash the process. :data:`MAX_DEPTH` is then checked, with its place, on the composed nodes."""
_OPENS = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
_CLOSES = (yaml.SequenceEndEvent, yaml.MappingEndEvent)


def compose(text: str) -> yaml.Node | None:
    """``yaml.compose(text)`` that cannot overflow the C stack: a text deep enough to risk it is refused
    with the ``maximum nesting depth`` error libyaml gives (a :class:`yaml.MarkedYAMLError`).

    Each level of nesting needs an indicator (``[ { - : ?``), so a text with few of them is composed
    at once; any other is first read as an event stream (iterative, no recursion) to measure it."""
    if sum(map(text.count, "[{-:?")) > _COMPOSE_DEPTH:
        depth = 0
        for event in yaml.parse(text, Loader=Loader):
            if isinstance(event, _OPENS):
                depth += 1
                if depth > _COMPOSE_DEPTH:
                    error = yaml.MarkedYAMLError(problem="maximum nesting depth exceeded")
                    error.problem_mark = event.start_mark  # type: ignore[assignment]  # the C Mark has the same fields
                    raise error
            elif isinstance(event, _CLOSES):
                depth -= 1
    return yaml.compose(text, Loader=Loader)


_CONSTRUCTOR = yaml.constructor.SafeConstructor()


# --------------------------------------------------------------------------------------------
# Reading files and building plain values with line numbers
# --------------------------------------------------------------------------------------------


class _Builder:
    """Builds plain values from composed YAML nodes, recording the line of every key path."""

    def __init__(self, doc: Doc, *, json_scalars: bool) -> None:
        self.doc = doc
        self.json_scalars = json_scalars  # plain scalars follow JSON rules (for .json files)
        self.count = 0
        self.open_nodes: set[int] = set()
        self.deepest: yaml.Node = yaml.ScalarNode(_YAML + "null", "")  # the node built last

    def fail(self, node: yaml.Node, message: str, hint: str | None = None, *, key: KeyPath = ()) -> NoReturn:
        line = node.start_mark.line + 1
        hint = "; ".join(part for part in (hint, self.doc.hint) if part) or None
        raise InputError(
            message,
            file=self.doc.path,
            line=line,
            key=key_text(key, quotes=self.doc.quotes) or None,
            hint=hint,
        )

    def build(self, node: yaml.Node, path: KeyPath) -> Any:
        self.count += 1
        self.deepest = node
        if self.count > MAX_VALUES:  # never, after _check_nodes: a second line of defence
            self.fail(node, f"the file expands to more than {MAX_VALUES:,} values", LIMITS_DOC, key=path)
        self.doc.lines.setdefault(path, node.start_mark.line + 1)
        self.check_tag(node, path)
        if isinstance(node, yaml.ScalarNode):
            return self.scalar(node, path)
        if id(node) in self.open_nodes:
            self.fail(node, "a YAML alias refers to a node that contains it", key=path)
        self.open_nodes.add(id(node))
        try:
            if isinstance(node, yaml.SequenceNode):
                return [self.build(item, (*path, i)) for i, item in enumerate(node.value)]
            if isinstance(node, yaml.MappingNode):
                return self.mapping(node, path)
            self.fail(node, f"unsupported YAML node {type(node).__name__}")
        finally:
            self.open_nodes.discard(id(node))

    def mapping(self, node: yaml.MappingNode, path: KeyPath) -> dict[str, Any]:
        result: dict[str, Any] = {}
        merged: list[yaml.Node] = []
        for key_node, value_node in node.value:
            if key_node.tag == _YAML + "merge":
                merged.append(value_node)
                continue
            key = self.key(key_node, path)
            key_path = (*path, key)
            if key in result:
                first = self.doc.lines[key_path]
                self.fail(key_node, "duplicate key", f"first at line {first}", key=key_path)
            self.doc.lines[key_path] = key_node.start_mark.line + 1
            result[key] = self.build(value_node, key_path)
        for source in merged:
            for key, value in self.merge_source(source, path).items():
                result.setdefault(key, value)  # keys written in the mapping win over merged ones
        return result

    def merge_source(self, node: yaml.Node, path: KeyPath) -> dict[str, Any]:
        sources = node.value if isinstance(node, yaml.SequenceNode) else [node]
        result: dict[str, Any] = {}
        self.check_tag(node, path)
        for source in sources:
            if not isinstance(source, yaml.MappingNode):
                self.fail(source, "a YAML merge (<<) needs a mapping or a list of mappings", key=path)
            self.check_tag(source, path)
            for key, value in self.mapping(source, path).items():
                result.setdefault(key, value)
        return result

    def key(self, node: yaml.Node, path: KeyPath) -> str:
        self.check_tag(node, path)
        if isinstance(node, yaml.ScalarNode) and node.tag == _YAML + "str":
            return str(node.value)
        shown = self.text(str(node.value)) if isinstance(node, yaml.ScalarNode) else "a " + _node_kind(node)
        self.fail(node, f"a key must be text, got {shown}", "quote it", key=path)

    def text(self, text: str) -> str:
        """A scalar's text as a message about this file shows it: bounded and escaped, or (for a
        file whose values are never echoed) its length only."""
        return bounded(text) if self.doc.quotes else shown(text, quote=False)

    def check_tag(self, node: yaml.Node, path: KeyPath) -> None:
        """Refuse a node with a tag other than the standard one of its kind (``!!python/...``,
        ``!local``, ``!!binary``, ``!!set``...): agentcost reads plain data."""
        if node.tag in _TAGS[type(node)]:
            return
        if not self.doc.quotes:
            self.fail(node, "unsupported YAML tag", "remove the tag", key=path)
        tag = node.tag
        shown_tag = "!!" + tag.removeprefix(_YAML) if tag.startswith(_YAML) else tag
        self.fail(node, f"unsupported YAML tag {bounded(shown_tag)}", "remove the tag", key=path)

    def scalar(self, node: yaml.ScalarNode, path: KeyPath) -> Any:
        tag, text = node.tag, str(node.value)
        if self.json_scalars and not node.style:
            return self.json_scalar(node, path)
        if tag in (_YAML + "str", "!"):
            return text
        if tag == _YAML + "null":
            return None
        if tag == _YAML + "bool":
            return _CONSTRUCTOR.construct_yaml_bool(node)
        if tag == _YAML + "int":
            if _NOT_DECIMAL.match(text):  # 010, 0x10, 0b10, 1:30: YAML 1.1 only, or not plain digits
                self.fail(node, *numeral_problem(text, "yaml", quote=self.doc.quotes), key=path)
            try:
                return _CONSTRUCTOR.construct_yaml_int(node)
            except ValueError:
                self.fail(node, f"not an integer: {self.text(text)}", _digits_hint(text), key=path)
        if tag == _YAML + "float":
            if ":" in text:  # 1:30.5, base 60 in YAML 1.1
                self.fail(node, *numeral_problem(text, "yaml", quote=self.doc.quotes), key=path)
            return self.decimal(node, text.replace("_", ""), path)
        return text  # a timestamp (the only other tag check_tag allows): a date stays the text written

    def json_scalar(self, node: yaml.ScalarNode, path: KeyPath) -> Any:
        try:
            return json.loads(node.value, parse_float=Decimal, parse_constant=_no_constant)
        except ValueError:
            text = str(node.value)
            self.fail(
                node, f"not a JSON value: {self.text(text)}", _digits_hint(text) or "quote strings", key=path
            )

    def decimal(self, node: yaml.ScalarNode, text: str, path: KeyPath) -> Decimal:
        try:
            value = Decimal(text)
        except InvalidOperation:
            value = Decimal("NaN")  # .inf, .nan
        if not value.is_finite():
            self.fail(node, f"not a finite number: {self.text(str(node.value))}", key=path)
        return value


_TAGS: dict[type[yaml.Node], tuple[str, ...]] = {
    yaml.ScalarNode: (*(_YAML + t for t in ("str", "null", "bool", "int", "float", "timestamp")), "!"),
    yaml.SequenceNode: (_YAML + "seq",),
    yaml.MappingNode: (_YAML + "map",),
}
"""The tags a node of each kind may have: the standard ones (a tag such as ``!!str`` may be written)."""
_NOT_DECIMAL = re.compile(r"[-+]?(?:0[0-9a-zA-Z_]|[0-9_]*:)")
"""The text of a YAML 1.1 integer that is not plain decimal digits: a leading 0 (octal, hexadecimal,
binary) or a ``:`` (base 60). The numbers rule refuses them (docs/scenario.md#numbers)."""


def _max_digits() -> int:
    """Most digits Python reads as an integer (0: no limit)."""
    import sys

    return sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else 0


def _digits_hint(text: str) -> str | None:
    """Why a long run of digits is not a number: Python reads at most :func:`_max_digits`."""
    most = _max_digits()
    if most and sum(c.isdigit() for c in text) > most:
        return f"a number is read with at most {most:,} digits"
    return None


def _node_kind(node: yaml.Node) -> str:
    return "mapping" if isinstance(node, yaml.MappingNode) else "list"


def _no_constant(name: str) -> NoReturn:
    raise ValueError(name)


_TOO_DEEP = f"the file is nested too deeply: more than {MAX_DEPTH} levels of mappings and lists"
_DEEP_HINT = f"flatten it; {LIMITS_DOC}"


def parse(doc: Doc, text: str) -> Doc:
    """Compose ``text`` and build ``doc.value`` and ``doc.lines`` (YAML, or JSON for .json files).

    A file nested more than :data:`MAX_DEPTH` levels deep or expanding to more than
    :data:`MAX_VALUES` values is refused from the composed nodes, before a value is built."""
    is_json = doc.path.suffix.lower() == ".json"
    try:
        root = compose(text)
    except yaml.YAMLError as e:
        if "maximum nesting depth" in str(getattr(e, "problem", "")):  # libyaml stops at 1,000 levels
            mark = getattr(e, "problem_mark", None)
            line = mark.line + 1 if mark is not None else None
            raise InputError(_TOO_DEEP, file=doc.path, line=line, hint=joined(_DEEP_HINT, doc.hint)) from None
        if is_json:
            return _parse_json(doc, text)
        raise _yaml_error(doc, text, e) from None
    except RecursionError:  # the pure-Python composer recurses per level
        raise InputError(_TOO_DEEP, file=doc.path, hint=joined(_DEEP_HINT, doc.hint)) from None
    if root is None:
        raise InputError("the file is empty", file=doc.path, line=1, hint=doc.hint)
    _check_nodes(doc, root)
    builder = _Builder(doc, json_scalars=is_json)
    try:
        doc.value = builder.build(root, ())
    except RecursionError:  # not expected below MAX_DEPTH levels: a second line of defence
        line = builder.deepest.start_mark.line + 1
        raise InputError(_TOO_DEEP, file=doc.path, line=line, hint=joined(_DEEP_HINT, doc.hint)) from None
    return doc


def _parse_json(doc: Doc, text: str) -> Doc:
    """JSON that YAML could not read: values without line numbers."""
    try:
        doc.value = json.loads(text, parse_float=Decimal, parse_constant=_no_constant)
    except json.JSONDecodeError as e:
        raise InputError(f"invalid JSON: {e.msg}", file=doc.path, line=e.lineno, hint=doc.hint) from None
    except RecursionError:
        raise InputError(_TOO_DEEP, file=doc.path, hint=joined(_DEEP_HINT, doc.hint)) from None
    except ValueError as e:  # a number of more digits than Python reads, NaN
        raise InputError(f"invalid JSON: {_json_value_error(e)}", file=doc.path, hint=doc.hint) from None
    problem = check_plain(doc.value)
    if problem is not None:
        where, message, hint = problem
        raise InputError(
            message,
            file=doc.path,
            key=key_text(where, quotes=doc.quotes) or None,
            hint=joined(hint, doc.hint),
        )
    return doc


def _json_value_error(error: ValueError) -> str:
    """What ``json.loads`` could not read, other than bad syntax."""
    if "digits" in str(error):
        return f"a number has more than {_max_digits():,} digits"
    return f"{bounded(str(error))} is not a JSON value"


# --------------------------------------------------------------------------------------------
# Limits: nesting depth and expanded size, measured before any value is built
# --------------------------------------------------------------------------------------------

_MERGE = _YAML + "merge"
_Child = tuple[str | int, int, yaml.Node]  # (key or index, line of the key or item, node)


def _children(node: yaml.Node, seen: set[int] | None = None) -> list[_Child]:
    """The nodes the builder builds right under ``node``: list items, mapping values, and the values
    of mappings merged in with ``<<`` (which are built at the level of the mapping's own values)."""
    if isinstance(node, yaml.SequenceNode):
        return [(i, item.start_mark.line + 1, item) for i, item in enumerate(node.value)]
    if not isinstance(node, yaml.MappingNode):
        return []
    seen = (seen or set()) | {id(node)}
    children: list[_Child] = []
    for key, value in node.value:
        if key.tag != _MERGE:
            name = str(key.value) if isinstance(key, yaml.ScalarNode) else "?"
            children.append((name, key.start_mark.line + 1, value))
            continue
        for source in value.value if isinstance(value, yaml.SequenceNode) else [value]:
            if isinstance(source, yaml.MappingNode) and id(source) not in seen:  # a merge cycle adds nothing
                children.extend(_children(source, seen))
    return children


def _check_nodes(doc: Doc, root: yaml.Node) -> None:
    """Refuse a composed file nested over :data:`MAX_DEPTH` levels deep or expanding to more than
    :data:`MAX_VALUES` values, pointing at where.

    Each node is measured once, iteratively and bottom-up (a node that aliases refer to is shared:
    measured once, counted wherever it is used), so a "billion laughs" file of a few lines is refused
    as fast as it is read. A cycle (an alias inside its own anchor) is left to the builder's message."""
    size: dict[int, int] = {}  # values the node expands to, capped at MAX_VALUES + 1
    height: dict[int, int] = {}  # levels of mappings and lists from the node down (a scalar: 0)
    kids: dict[int, list[_Child]] = {}
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            below = kids[key]
            size[key] = min(1 + sum(size.get(id(c), 1) for _, _, c in below), MAX_VALUES + 1)
            deepest = max((height.get(id(c), 0) for _, _, c in below), default=0)
            height[key] = 0 if isinstance(node, yaml.ScalarNode) else 1 + deepest
            continue
        if key in kids:
            continue  # measured already, or an ancestor (a cycle)
        kids[key] = _children(node)
        stack.append((node, True))
        stack.extend((c, False) for _, _, c in kids[key] if id(c) not in kids)

    node, line = root, root.start_mark.line + 1
    path: KeyPath = ()
    if height[id(root)] > MAX_DEPTH:  # down the deepest branch to the first level over the limit
        for _ in range(MAX_DEPTH):
            step, line, node = max(kids[id(node)], key=lambda c: height.get(id(c[2]), 0))
            path = path or (step,)  # the top-level key: the whole path would be a hundred steps long
        raise InputError(
            _TOO_DEEP,
            file=doc.path,
            line=line,
            key=key_text(path, quotes=doc.quotes) or None,
            hint=joined(_DEEP_HINT, doc.hint),
        )
    if size[id(root)] > MAX_VALUES:  # down to the smallest part that is over the limit on its own
        while True:
            over = [c for c in kids[id(node)] if size.get(id(c[2]), 1) > MAX_VALUES]
            if not over:
                break
            step, line, node = over[0]
            path = (*path, step)
        if len(kids) <= MAX_VALUES:  # fewer nodes than values: aliases multiplied them
            hint = "each YAML alias repeats all that its anchor holds, so aliases of aliases multiply"
        else:
            hint = "split the file"
        raise InputError(
            f"expands to more than {MAX_VALUES:,} values, the limit for one file",
            file=doc.path,
            line=line,
            key=key_text(path, quotes=doc.quotes) or None,
            hint=joined(hint, LIMITS_DOC, doc.hint),
        )


def check_plain(value: Any, *, values: bool = True) -> tuple[KeyPath, str, str] | None:
    """For values not read from YAML (e.g. by ``json.loads``): (key path, message, hint) when
    ``value`` is nested more than :data:`MAX_DEPTH` levels deep or (with ``values``) holds more than
    :data:`MAX_VALUES` values, else None. Iterative: never a ``RecursionError``."""
    if not isinstance(value, dict | list):
        return None
    count = 1
    stack: list[tuple[Any, KeyPath, int]] = [(value, (), 1)]  # (container, its top-level key, level)
    while stack:
        item, top, level = stack.pop()
        children = item.values() if isinstance(item, dict) else item
        count += len(children)
        if values and count > MAX_VALUES:
            return top, f"holds more than {MAX_VALUES:,} values, the limit for one file", LIMITS_DOC
        nested: list[tuple[Any, KeyPath]]
        if level == 1:
            steps: Iterable[str | int] = item.keys() if isinstance(item, dict) else range(len(item))
            nested = [(c, (k,)) for k, c in zip(steps, children, strict=True) if isinstance(c, dict | list)]
        else:
            nested = [(c, top) for c in children if isinstance(c, dict | list)]
        if nested and level >= MAX_DEPTH:
            return top, _TOO_DEEP, _DEEP_HINT
        stack.extend((c, at, level + 1) for c, at in nested)
    return None


# --------------------------------------------------------------------------------------------
# A mapping given in memory (the Python API)
# --------------------------------------------------------------------------------------------

_PLAIN_KINDS = "text, a number, true/false, None, a list or a mapping"


def mapping_doc(value: Mapping[Any, Any], path: Path) -> Doc:
    """``value``, a mapping given in memory, as a :class:`Doc` of the plain values :func:`parse`
    builds from a file: mappings with text keys (dicts), lists (from lists and tuples), text,
    ``int``, ``bool``, ``None`` and finite ``Decimal`` numbers. A ``float`` becomes the ``Decimal`` of
    its shortest text (``0.1`` is ``Decimal('0.1')``, as ``0.1`` written in a file), so no binary
    fraction reaches an amount. ``path`` is the virtual file the paths it names are relative to (in
    ``base_dir``); no message names it (:attr:`Doc.in_memory`).

    Raises :class:`InputError` located by key path (``rounds[1].result: ...``) for a value of another
    type, a number that is not finite (NaN, infinity), a key that is not text, a mapping or list that
    contains itself, and the limits on files: :data:`MAX_DEPTH` levels, :data:`MAX_VALUES` values."""
    doc = Doc(path, in_memory=True)
    count = 0
    open_ids: set[int] = set()

    def plain_value(item: Any, at: KeyPath, level: int) -> Any:
        nonlocal count
        count += 1
        if count > MAX_VALUES:
            raise doc.error(
                at[:1], f"holds more than {MAX_VALUES:,} values, the limit for one file", LIMITS_DOC
            )
        if item is None or isinstance(item, bool | int | str):  # bool before int: both are kept as they are
            return item
        if isinstance(item, float | Decimal):
            number = Decimal(str(item)) if isinstance(item, float) else item
            if not number.is_finite():
                raise doc.error(at, f"not a finite number: {item!r}")
            return number
        if not isinstance(item, Mapping | list | tuple):
            raise doc.error(at, f"expected {_PLAIN_KINDS}, got a value of type {type(item).__name__}")
        if id(item) in open_ids:
            raise doc.error(at, "the value contains itself")
        if level > MAX_DEPTH:
            raise doc.error(at[:1], _TOO_DEEP, _DEEP_HINT)
        open_ids.add(id(item))
        try:
            if isinstance(item, Mapping):
                built: dict[str, Any] = {}
                for key, child in item.items():
                    if not isinstance(key, str):
                        raise doc.error(at, f"a key must be text, got {shown(key)}")
                    built[key] = plain_value(child, (*at, key), level + 1)
                return built
            return [plain_value(child, (*at, i), level + 1) for i, child in enumerate(item)]
        finally:
            open_ids.discard(id(item))

    doc.value = plain_value(value, (), 1)
    return doc


def _line_text(text: str, line: int | None) -> str:
    lines = text.splitlines()
    return lines[line - 1] if line is not None and 0 < line <= len(lines) else ""


def unquoted_problem(problem: str) -> str:
    """A YAML parser's message about a file whose text is never quoted, without what it quotes of
    the file (the pure-Python parser quotes aliases, anchors and tags: ``found undefined alias
    'x'``); a single quoted character (``found unknown escape character 'q'``) is kept."""
    return re.sub(r"'[^']{2,}'", "'...'", problem)


def _yaml_error(doc: Doc, text: str, e: yaml.YAMLError) -> InputError:
    line: int | None = None
    hint: str | None = None
    if isinstance(e, yaml.MarkedYAMLError):
        mark = e.problem_mark or e.context_mark
        line = mark.line + 1 if mark is not None else None
        message, hint = str(e.problem or e.context), e.context if e.problem else None
        if "\t" in _line_text(text, line):
            hint = "indent with spaces: YAML does not allow tabs there"
    elif isinstance(e, yaml.reader.ReaderError):
        line = text.count("\n", 0, e.position) + 1
        message = f"character {chr(e.character)!r} is not allowed in YAML ({e.reason})"
    else:
        message = str(e)
    if not doc.quotes:
        message = unquoted_problem(message)
    hint = "; ".join(part for part in (hint, doc.hint) if part) or None
    return InputError(f"YAML syntax error: {bounded(message, 200)}", file=doc.path, line=line, hint=hint)


# --------------------------------------------------------------------------------------------
# Overrides: --set PATH=VALUE, parsed (applying them is up to each format)
# --------------------------------------------------------------------------------------------


_STEP = re.compile(r"\[(-?\d+|\*)\]|\.([^.\[\]]+)")  # [N], [*], or .KEY
_SET_HINT = "write --set PATH=VALUE, e.g. --set limits.max_rounds=40"
_PATH_HINT = "keys joined by '.', list items as [N], [-1] or [*], e.g. rounds[*].result.tokens"
_VALUE_HINT = "VALUE is read as YAML, as if written after 'KEY: ' in the file; quote it if it is text"


def parse_override(text: str, index: int, file: Path | None) -> Override:
    """The ``index``-th ``--set PATH=VALUE`` ``text`` given for ``file`` (None: a mapping given in
    memory), parsed (not applied), or :class:`OverrideError`."""

    def fail(message: str, hint: str | None, key: str | None = None) -> NoReturn:
        raise OverrideError(message, file=file, override=text, key=key, hint=hint)

    path, equals, value_text = text.partition("=")
    path = path.strip()
    if not equals:
        fail("no '=' between the path and the value", _SET_HINT)
    if not path:
        fail("the path before '=' is empty", _SET_HINT)
    steps: list[Step] = []
    dotted, position = "." + path, 0  # with a dot before the first key too
    while position < len(dotted):
        match = _STEP.match(dotted, position)
        if match is None or not (steps or match.group(2)):
            if not steps:
                fail(f"not a key path: {quoted(path)} does not start with a key", _PATH_HINT, path)
            fail(
                f"not a key path: {quoted(dotted[position:])} cannot follow {quoted(dotted[1:position])}",
                _PATH_HINT,
                path,
            )
        steps.append(_step(match))
        position = match.end()
    try:
        # indented, so that a value on several lines cannot add keys next to the one it sets
        value = parse(Doc(Path("--set")), "value: " + value_text.replace("\n", "\n  ")).value["value"]
    except InputError as e:
        fail(e.message, joined(e.hint, _VALUE_HINT), path)
    return Override(text, path, tuple(steps), value, index)


def _step(match: re.Match[str]) -> Step:
    index, key = match.groups()
    if index is None:
        return key
    return None if index == "*" else int(index)
