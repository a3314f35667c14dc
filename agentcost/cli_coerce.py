"""Typer's option coercion for agentcost's simple option types, without a pydantic model per option.

typer 0.29 coerces each option's value through a pydantic ``TypeAdapter`` built for it as the command
line is parsed (``typer._coercion.build_runtime_param`` -> ``typer._adapters.try_build_adapter``):
about 0.06 s for ``estimate``'s options, on every run that is not replayed. The kinds of option
agentcost has (``str``, ``bool``, ``int`` with a minimum, ``Path``, an ``Enum`` or ``Literal``
choice, and lists of those) are coerced here the way those adapters do it, for the values that are
plainly valid: a text for ``str``, digits for ``int``, pydantic's words for ``bool``, choices and
paths by Typer's own ``coerce_cli_choice`` and ``coerce_cli_path``. Anything else, an invalid value
above all, goes to Typer's own coercion, so every error is Typer's, word for word.

:func:`install` puts it in place only for a Typer that works this way (it has ``typer._adapters``
and the private functions used here); with any other it changes nothing.
``tests/test_startup_paths.py`` runs both ways on every option of every command and compares them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, Literal, cast, get_args, get_origin

_UNSURE: Any = object()  # the fast way cannot tell: Typer's own coercion answers
_DIGITS = re.compile(r"[0-9]{1,18}")
_TRUE = frozenset({"1", "on", "t", "true", "y", "yes"})  # pydantic's words for a bool, lower-cased
_FALSE = frozenset({"0", "off", "f", "false", "n", "no"})

Coercer = Callable[[Any, Any, Any], Any]  # (value, param, ctx) -> the coerced value, or _UNSURE

_INSTALLED: dict[str, Any] = {}  # "build": what typer.core now calls, once installed


def install() -> bool:
    """Coerce agentcost's simple options without pydantic from now on; False (and nothing changed)
    when this Typer does not build an adapter per option the way 0.29 does."""
    if _INSTALLED:
        return True
    import importlib.util

    try:
        if importlib.util.find_spec("typer._adapters") is None:  # found, not imported: it loads pydantic
            return False
        from typer import _coercion, _param_types, core
    except ImportError:
        return False
    original = getattr(_coercion, "build_runtime_param", None)
    base = getattr(_coercion, "RuntimeParam", None)
    needed = ("coerce_cli_choice", "coerce_cli_path")
    if original is None or base is None or not all(hasattr(_param_types, n) for n in needed):
        return False
    if getattr(core, "build_runtime_param", None) is not original:  # not Typer's own: leave it be
        return False
    runtime = _runtime_class(base)
    own: Callable[[Any], Any] = cast("Callable[[Any], Any]", original)  # checked: not None

    def build_runtime_param(descriptor: Any) -> Any:
        fast = None
        if getattr(descriptor, "file_annotation", None) is None:
            fast = coercer(descriptor.annotation, descriptor.parameter_info, _param_types)
        if fast is None:
            return own(descriptor)
        return runtime(
            annotation=descriptor.annotation,
            parameter_info=descriptor.parameter_info,
            fast=fast,
            descriptor=descriptor,
        )

    _INSTALLED["build"] = build_runtime_param
    core.build_runtime_param = build_runtime_param  # type: ignore[attr-defined]  # not exported
    return True


def typer_own(descriptor: Any) -> Any:
    """Typer's own runtime parameter for a type descriptor (the one :func:`install` replaced)."""
    from typer import _coercion

    return _coercion.build_runtime_param(descriptor)


def _runtime_class(base: Any) -> Any:
    """A subclass of Typer's ``RuntimeParam``: its ``coerce`` (empty values, many values) and our
    ``_coerce_value``."""

    @dataclass(frozen=True)
    class FastRuntimeParam(base):  # type: ignore[misc]
        fast: Any = None
        descriptor: Any = None

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            try:
                result = self.fast(value, param, ctx)
            except Exception:  # an invalid value: Typer's own coercion words (or raises) it
                result = _UNSURE
            if result is _UNSURE:
                return typer_own(self.descriptor)._coerce_value(value, param=param, ctx=ctx)
            return result

    return FastRuntimeParam


def coercer(annotation: Any, info: Any, param_types: Any) -> Coercer | None:
    """The fast coercion of one annotation, or None: Typer's own coercion for every value."""
    if getattr(info, "parser", None) is not None or getattr(info, "click_type", None) is not None:
        return None
    origin = get_origin(annotation)
    if origin is list:
        args = get_args(annotation)
        inner = coercer(args[0], info, param_types) if len(args) == 1 else None
        return None if inner is None else _each(inner)
    if origin is Literal or (isinstance(annotation, type) and issubclass(annotation, Enum)):
        choices = list(get_args(annotation) if origin is Literal else annotation)
        return _choice(choices, bool(info.case_sensitive), param_types)
    if origin is not None:
        return None
    if annotation is str:
        return _text
    if annotation is bool:
        return _flag
    if annotation is int:
        if getattr(info, "clamp", None):
            return None
        return _whole(info.min, info.max)
    if annotation is Path and getattr(info, "path_type", None) is None:
        return _path(info, param_types)
    return None


def _each(inner: Coercer) -> Coercer:
    def each(value: Any, param: Any, ctx: Any) -> Any:
        out = []
        for item in value if isinstance(value, (list, tuple)) else [value]:
            coerced = inner(item, param, ctx)
            if coerced is _UNSURE:
                return _UNSURE
            out.append(coerced)
        return out

    return each


def _choice(choices: list[Any], case_sensitive: bool, param_types: Any) -> Coercer:
    def choice(value: Any, param: Any, ctx: Any) -> Any:
        return param_types.coerce_cli_choice(value, choices=choices, case_sensitive=case_sensitive, ctx=ctx)

    return choice


def _text(value: Any, param: Any, ctx: Any) -> Any:
    return value if type(value) is str else _UNSURE


def _flag(value: Any, param: Any, ctx: Any) -> Any:
    if type(value) is bool:
        return value
    if type(value) is not str:
        return _UNSURE
    word = value.strip().lower()
    if word in _TRUE:
        return True
    if word in _FALSE or not word:  # Typer reads an empty value as False
        return False
    return _UNSURE


def _whole(low: float | None, high: float | None) -> Coercer:
    def whole(value: Any, param: Any, ctx: Any) -> Any:
        if type(value) is str and _DIGITS.fullmatch(value):
            value = int(value)
        if type(value) is not int:
            return _UNSURE
        if (low is not None and value < low) or (high is not None and value > high):
            return _UNSURE  # out of range: Typer words the error
        return value

    return whole


def _path(info: Any, param_types: Any) -> Coercer:
    def path(value: Any, param: Any, ctx: Any) -> Any:
        if type(value) is str:
            value = Path(value)  # what pydantic's Path validation makes of a text
        elif not isinstance(value, Path):
            return _UNSURE
        return param_types.coerce_cli_path(value, info, path_type=Path, param=param, ctx=ctx)

    return path
