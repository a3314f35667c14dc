"""``--set PATH=VALUE``: overrides applied to a scenario's plain values before they are validated.

The paths follow the scenario format (:mod:`agentcost.scenario.format`): a key a model does not know
is an error, ``[N]`` and ``[*]`` select list items, and a key of a content value replaces the whole
value. Parsing the texts is :func:`agentcost.infra.yamlread.parse_override`.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from typing import Any, Literal, NoReturn

from agentcost.infra.record import record
from agentcost.infra.yamlread import (
    Doc,
    KeyPath,
    Override,
    OverrideError,
    Spec,
    allowed_hint,
    joined,
    key_text,
    parse_override,
    quoted,
    shown,
)
from agentcost.scenario.format import (
    CacheTTLSpec,
    CallSpec,
    ChatTurnSpec,
    ContextEditingSpec,
    DefaultsSpec,
    LimitsSpec,
    OutcomeSpec,
    PacingSpec,
    RetriesSpec,
    RoundSpec,
    ScenarioFile,
    ServerToolSpec,
    TrimSpec,
    round_kind,
)
from agentcost.scenario.values import (
    AnthropicTool,
    FileContent,
    GeminiTool,
    MCPTool,
    McpTools,
    OpenAIChatTool,
    OpenAIFunction,
    OpenAIResponsesTool,
    OtherProviderTool,
    ProviderTool,
    TextContent,
    TokensContent,
    ToolFile,
    tool_item_kind,
)


@record
class _Items:
    """A list whose items hold ``item``."""

    item: _Level


_Level = type[Spec] | _Items | Literal["content", "tool", "round", "any"]
"""What a value holds, as far as overrides care: a mapping whose keys a model knows, a list, a
content value, a tool definition or a round (their model depends on their keys: a tool round or a
chat turn), or anything else (a plain value or free JSON such as ``input``; validation checks it)."""

_CHILDREN: dict[tuple[type[Spec], str], _Level] = {
    (ScenarioFile, "system"): "content",
    (ScenarioFile, "tools"): _Items("tool"),
    (ScenarioFile, "task"): "content",
    (ScenarioFile, "defaults"): DefaultsSpec,
    (ScenarioFile, "rounds"): _Items("round"),
    (ScenarioFile, "final"): "content",
    (ScenarioFile, "limits"): LimitsSpec,
    (ScenarioFile, "pacing"): PacingSpec,
    (ScenarioFile, "cache_ttl"): CacheTTLSpec,
    (DefaultsSpec, "result"): "content",
    (DefaultsSpec, "text"): "content",
    (DefaultsSpec, "server_tools"): _Items(ServerToolSpec),
    (RoundSpec, "result"): "content",
    (RoundSpec, "text"): "content",
    (RoundSpec, "server_tools"): _Items(ServerToolSpec),
    (RoundSpec, "calls"): _Items(CallSpec),
    (CallSpec, "result"): "content",
    (ScenarioFile, "retries"): RetriesSpec,
    (RetriesSpec, "error"): "content",
    (ScenarioFile, "trim"): TrimSpec,
    (ScenarioFile, "outcome"): OutcomeSpec,
    (ScenarioFile, "context_editing"): ContextEditingSpec,
    (ChatTurnSpec, "reply"): "content",
    (ChatTurnSpec, "user"): "content",
    (ChatTurnSpec, "server_tools"): _Items(ServerToolSpec),
    (ServerToolSpec, "result"): "content",
    (OpenAIChatTool, "function"): OpenAIFunction,
}
"""The keys whose value is more than "anything" (a test checks that every model field is here or
needs no entry)."""

_CONTENT_KEYS = [*TokensContent.allowed_keys(), *TextContent.allowed_keys(), *FileContent.allowed_keys()]

_TOOL_MODELS: dict[str | None, type[Spec]] = {
    "~anthropic": AnthropicTool,
    "~openai-chat": OpenAIChatTool,
    "~openai-responses": OpenAIResponsesTool,
    "~mcp": MCPTool,
    "~file": ToolFile,
    "~mcp-config": McpTools,
    "~provider": ProviderTool,
    "~gemini": GeminiTool,  # Gemini's tool keys, and a provider's other tools: refused when built
    "~other": OtherProviderTool,
}


_ROUND_MODELS: dict[str, type[Spec]] = {"~tool": RoundSpec, "~chat": ChatTurnSpec}


class _Setter:
    """Applies one override to a scenario's plain values (``doc.value``), step by step.

    A key that does not exist yet is created (as a mapping, when more steps follow); ``[*]`` goes
    through every item; setting a key of a content value replaces the whole content value.
    """

    def __init__(self, doc: Doc, override: Override) -> None:
        self.doc = doc
        self.override = override
        self.steps = override.steps

    def run(self) -> None:
        first = self.steps[0]
        assert isinstance(first, str)  # the path syntax starts with a key
        self.mapping(self.doc.value, ScenarioFile, (), 0, first)

    def apply(self, parent: Any, slot: str | int, level: _Level, at: KeyPath, n: int) -> None:
        """Apply ``steps[n:]`` to ``parent[slot]``, the value at key path ``at``, which holds ``level``."""
        if n == len(self.steps):
            parent[slot] = copy.deepcopy(self.override.value)
            self.doc.overrides[at] = self.override
            return
        value = parent.get(slot) if isinstance(parent, dict) else parent[slot]
        step = self.steps[n]
        if not isinstance(step, str):
            self.items(value, level, at, n, step)
            return
        if level == "content":  # X.tokens, X.text or X.file replaces X, whatever it was
            self.check_key(_CONTENT_KEYS, n)
            value = parent[slot] = {}
        elif isinstance(level, _Items):
            where = self.written(n)
            self.fail(n, f"{where} is a list", f"select its items with {where}[N] or {where}[*]")
        elif value is None:
            value = parent[slot] = {}
        self.mapping(value, level, at, n, step)

    def mapping(self, value: Any, level: _Level, at: KeyPath, n: int, key: str) -> None:
        """Step ``n`` is ``key`` of ``value``."""
        if not isinstance(value, dict):
            self.fail(n, f"{self.written(n)} is not a mapping: it is {shown(value)}")
        model = (
            _TOOL_MODELS[tool_item_kind(value)]
            if level == "tool"
            else _ROUND_MODELS[round_kind(value)]
            if level == "round"
            else level
        )
        child: _Level = "any"
        if isinstance(model, type) and not model.extra_allowed:  # keys known: check this one
            tool_file = f"{self.written(n)} names a tool file; --set cannot change the tools in it"
            self.check_key(model.allowed_keys(), n, tool_file if model is ToolFile else None)
            child = _CHILDREN.get((model, key), "any")
        self.apply(value, key, child, (*at, key), n + 1)

    def items(self, value: Any, level: _Level, at: KeyPath, n: int, step: int | None) -> None:
        """Step ``n`` is ``[step]`` (``[*]`` for None) of ``value``."""
        where = self.written(n)
        if value is None and isinstance(level, _Items):
            value = []  # no items: [*] changes nothing, [N] is out of range
        if not isinstance(value, list):
            what = "not set" if value is None else shown(value)
            self.fail(n, f"{where} is not a list: it is {what}", "[N] and [*] select the items of a list")
        indices: Iterable[int] = range(len(value))
        if step is not None:
            index = step + len(value) if step < 0 else step
            if not 0 <= index < len(value):
                self.fail(
                    n + 1,
                    f"index {step} is out of range: {where} has {_items(len(value))}",
                    _index_hint(where, len(value)),
                )
            indices = [index]
        item = level.item if isinstance(level, _Items) else "any"
        for index in indices:
            self.apply(value, index, item, (*at, index), n + 1)

    def check_key(self, allowed: Sequence[str], n: int, hint: str | None = None) -> None:
        key = str(self.steps[n])
        if key not in allowed:
            where = f" in {self.written(n)}" if n else ""
            self.fail(n + 1, f"unknown key {quoted(key)}{where}", joined(allowed_hint(key, allowed), hint))

    def written(self, n: int) -> str:
        """The path as written, up to step ``n`` (excluded)."""
        return key_text(self.steps[:n])

    def fail(self, n: int, message: str, hint: str | None = None) -> NoReturn:
        """Raise an error about the path up to step ``n`` (excluded)."""
        raise OverrideError(
            message, file=self.doc.file, override=self.override.text, key=self.written(n), hint=hint
        )


def _items(count: int) -> str:
    return "no items" if count == 0 else f"{count} item" + ("s" if count != 1 else "")


def _index_hint(where: str, count: int) -> str | None:
    if count == 0:
        return None
    hint = f"{where}[0] to {where}[{count - 1}], or {where}[-1] for the last"
    return hint + ("; a round with repeat is one item" if where == "rounds" else "")


def apply_overrides(doc: Doc, overrides: Sequence[str]) -> None:
    """Apply the texts of ``--set PATH=VALUE`` options to ``doc.value``, in order.

    Raises :class:`OverrideError` for a wrong path or a path that does not fit the file."""
    for index, override in enumerate(overrides):
        _Setter(doc, parse_override(override, index, doc.file)).run()
