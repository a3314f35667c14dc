"""Server tools in a scenario: the providers' own entries in ``tools``, and rounds of server tools only.

A server tool (web search, web fetch, code execution) is run by the provider inside one response;
its uses, fees and results are a round's ``server_tools`` (:class:`~agentcost.scenario.model.ServerToolUse`).
Two ways of writing one are read here:

* **in ``tools``**, as the provider's API takes it: Anthropic ``{type: web_search_20250305, name:
  web_search, max_uses: 5, allowed_domains: [...]}`` (also ``web_fetch_*``, ``code_execution_*``),
  OpenAI Responses ``{type: web_search}`` (``web_search_preview``, ``code_interpreter``), Gemini
  ``{google_search: {}}`` (``url_context``, ``code_execution``). Each becomes a
  :class:`~agentcost.scenario.model.ServerToolDef`: not a tool the rounds call, and no definition
  tokens (no provider publishes their size; the token notes say so). A round's ``server_tools`` must
  then name a declared tool, and stay within its ``max_uses``. The providers' other built-in tools
  (OpenAI ``file_search``, Anthropic ``bash_*``, Gemini ``google_maps``, ...) are refused with what
  to write instead (:func:`declared`).
* **as a round of server tools only** (``- server_tools: [...]``, no call): the model searches,
  then goes on in the *same* response, so such a round is no request of its own. Its server tools
  join those of the next round's response (:class:`Waiting`); one response is one request, plus
  Anthropic's ``pause_turn`` continuations when its uses pass the iteration cap
  (:mod:`agentcost.tokens.mechanics`).
"""

from __future__ import annotations

import re
from dataclasses import field, replace

from agentcost.errors import InputError
from agentcost.infra.record import record
from agentcost.infra.yamlread import Doc, KeyPath, closest, key_text
from agentcost.scenario.model import Round, ServerToolDef, ServerToolName, ServerToolUse
from agentcost.scenario.values import (
    ANTHROPIC_SERVER_TYPE,
    GEMINI_OTHER_KEYS,
    GEMINI_SERVER_KEYS,
    OPENAI_SERVER_TYPE,
    GeminiTool,
    OtherProviderTool,
    ProviderTool,
)

_ANTHROPIC = re.compile(ANTHROPIC_SERVER_TYPE)
_OPENAI = re.compile(OPENAI_SERVER_TYPE)
_ANTHROPIC_DEFINED = re.compile(r"[a-z][a-z0-9_]{0,60}_[0-9]{8}")  # bash_20250124, memory_20250818, ...
_TOOL_SEARCH = re.compile(r"tool_search_tool_[a-z0-9_]{1,60}")
_PLAIN = re.compile(r"[A-Za-z0-9_.-]{1,80}")  # a type shown in a message as written
_FUNCTION = "a function tool {type: function, name: ..., parameters: {...}}"
_MCP_HINT = (
    "list the server's tools (its tools/list result) in a tool file and give it as '- file: tools.json'"
)
_OPENAI_OTHER: dict[str, tuple[str, str]] = {
    "file_search": (
        "OpenAI file_search is not modelled (agentcost has no fact for its per-call fee)",
        f"remove it; to count what it retrieves, give {_FUNCTION} and rounds that call it with result: N",
    ),
    "mcp": ("OpenAI's remote MCP tool is not read here", _MCP_HINT),
}
_OPENAI_BUILT_IN = ("image_generation", "computer_use_preview", "computer_use", "local_shell", "shell")
_GEMINI_OTHER: dict[str, tuple[str, str]] = {
    "function_declarations": (
        "Gemini function_declarations are not read here",
        "give each declaration as a tool item of its own: {type: function, name: ..., description: "
        "..., parameters: {...}}",
    ),
    "google_maps": ("Grounding with Google Maps is not modelled (no fact for its fee)", "remove it"),
}
_CAMEL = {
    "functionDeclarations": "function_declarations",
    "googleMaps": "google_maps",
    "fileSearch": "file_search",
    "computerUse": "computer_use",
    "enterpriseWebSearch": "enterprise_web_search",
}
SERVER_TYPES_HINT = (
    "server tools: web_search_YYYYMMDD, web_fetch_YYYYMMDD, code_execution_YYYYMMDD (Anthropic), "
    "web_search, web_search_preview, code_interpreter (OpenAI); a client tool is type: function "
    "(OpenAI) or has name and input_schema (Anthropic)"
)


def declared(
    model: ProviderTool | GeminiTool | OtherProviderTool, doc: Doc, path: KeyPath, line: int | None
) -> list[ServerToolDef]:
    """The server tools of one provider entry of ``tools`` (written at ``path`` of ``doc``); an entry
    agentcost cannot model is an error at its key, saying what to write instead."""
    if isinstance(model, GeminiTool):
        return _gemini(model, doc, path, line)
    if isinstance(model, ProviderTool):
        return [_server(model, doc, path, line)]
    kind = model.type
    where = (*path, "type")
    if kind in _OPENAI_OTHER:
        raise doc.error(where, *_OPENAI_OTHER[kind])
    if kind in _OPENAI_BUILT_IN:
        message = f"OpenAI's built-in {kind} tool is not modelled"
        raise doc.error(where, message, f"remove it, or give {_FUNCTION}")
    if kind == "mcp_toolset":
        raise doc.error(where, "Anthropic's MCP connector (mcp_toolset) is not read here", _MCP_HINT)
    if _TOOL_SEARCH.fullmatch(kind):
        raise doc.error(
            where,
            f"{kind} is Anthropic's tool search tool",
            "agentcost adds the tool search itself when tools have defer_loading: true; remove this item",
        )
    if _ANTHROPIC_DEFINED.fullmatch(kind):
        raise doc.error(
            where,
            f"{kind} is an Anthropic-defined client tool whose hidden definition agentcost does not know",
            "write it as a custom tool: {name: ..., description: ..., input_schema: {...}}",
        )
    known = ("function", "custom", "web_search", "web_search_preview", "code_interpreter", *_OPENAI_OTHER)
    close = closest(kind, known)
    hint = SERVER_TYPES_HINT + (f"; did you mean {close!r}?" if close else "")
    named = f" {kind!r}" if doc.quotes and _PLAIN.fullmatch(kind) else ""
    raise doc.error(where, f"unknown tool type{named}", hint)


def _server(model: ProviderTool, doc: Doc, path: KeyPath, line: int | None) -> ServerToolDef:
    """An Anthropic or OpenAI server tool (its type matched the discriminator's pattern)."""
    kind = model.type
    tool: ServerToolName = "code_execution"
    if _ANTHROPIC.fullmatch(kind):
        if kind.startswith(("web_search", "web_fetch")):
            tool = "web_search" if kind.startswith("web_search") else "web_fetch"
        return ServerToolDef(tool, kind, model.name or tool, line, model.max_uses)
    if model.max_uses is not None:
        raise doc.error(
            (*path, "max_uses"),
            "max_uses is Anthropic's key",
            f"OpenAI's {kind} tool has no cap on uses; remove it",
        )
    if kind != "code_interpreter":
        tool = "web_search"
    return ServerToolDef(tool, kind, model.name or kind, line)


def _gemini(model: GeminiTool, doc: Doc, path: KeyPath, line: int | None) -> list[ServerToolDef]:
    out: list[ServerToolDef] = []
    given = [f.key for f in GeminiTool.fields if f.name in model.fields_set]
    for key in [*given, *model.extra]:
        tool = GEMINI_SERVER_KEYS.get(key)
        if tool is not None:
            out.append(ServerToolDef(tool, key, key, line))
            continue
        assert key in GEMINI_OTHER_KEYS  # the discriminator lets no other key through
        snake = _CAMEL.get(key, key)
        message, hint = _GEMINI_OTHER.get(snake, (f"Gemini's {snake} tool is not modelled", "remove it"))
        raise doc.error((*path, key), message, hint)
    return out


def server_only(item_keys: set[str], server_tools: object) -> bool:
    """Whether a rounds item runs server tools only: it has ``server_tools`` (not empty) and none of
    a call's keys (``tool``, ``calls``, ``input``, ``call_tokens``, ``result``, ``subagent``)."""
    calls = {"tool", "calls", "input", "call_tokens", "result", "subagent"}
    return bool(server_tools) and not (item_keys & calls)


def check_server_only(doc: Doc, path: KeyPath, item_keys: set[str]) -> None:
    """A round of server tools only has nothing else: its response is the next round's."""
    for key in sorted(item_keys - {"server_tools"}):
        hint = (
            "write uses: N on the server tool instead"
            if key == "repeat"
            else f"its server tools run inside the next round's response: give {key} on that round"
        )
        raise doc.error((*path, key), f"a round of server tools only cannot have {key}", hint)


@record(frozen=False)
class Waiting:
    """Server tools of rounds of server tools only, waiting for the response they run in: the next
    tool round's or chat turn's."""

    uses: list[ServerToolUse] = field(default_factory=list)
    first: KeyPath | None = None  # the first of those rounds

    def add(self, uses: tuple[ServerToolUse, ...], path: KeyPath) -> None:
        self.uses.extend(uses)
        self.first = self.first or path

    def into(self, round_: Round) -> Round:
        """``round_`` with the waiting server tools run first in its response; nothing waits after."""
        if not self.uses:
            return round_
        merged = replace(round_, server_tools=(*self.uses, *round_.server_tools))
        self.uses, self.first = [], None
        return merged

    def check_spread(self, doc: Doc, path: KeyPath, repeat: int, uncertain: bool) -> None:
        """The next item must be one round with fixed sizes: a drawn run copies an item's round."""
        if self.first is None or (repeat == 1 and not uncertain):
            return
        if uncertain:
            problem = "has a distribution"
            hint = (
                "give it fixed sizes, or put these server_tools on it (each response it stands for runs them)"
            )
        else:
            problem = f"repeats {repeat:,} times"
            hint = f"split off its first response: the same round with repeat: 1, then repeat: {repeat - 1:,}"
        message = (
            f"the server tools of {key_text(self.first)} run in this round's first response, but it {problem}"
        )
        raise doc.error(path, message, hint)

    def check_done(self, doc: Doc) -> None:
        """Nothing may wait at the end: the final answer's response runs no server tools (yet)."""
        if self.first is None:
            return
        raise doc.error(
            (*self.first, "server_tools"),
            "a round of server tools only runs inside the next response, but no tool round or chat "
            "turn follows",
            "the final answer's response cannot run server tools in version 1; see "
            "docs/scenario.md#rounds-of-server-tools-only",
        )


def check_uses(doc: Doc, path: KeyPath, round_: Round, defs: tuple[ServerToolDef, ...]) -> None:
    """A response's uses of a declared tool within its ``max_uses`` (Anthropic: per request)."""
    for d in defs:
        if d.max_uses is None:
            continue
        used = sum(u.uses for u in round_.server_tools if u.tool == d.tool)
        if used > d.max_uses:
            raise doc.error(
                (*path, "server_tools"),
                f"{used:,} {d.tool} uses in one response, but tools declares max_uses: {d.max_uses:,}"
                + (f" (line {d.line})" if d.line is not None else ""),
                "the API refuses uses past max_uses, unbilled; lower uses, or raise max_uses",
            )


def check_declared(doc: Doc, path: KeyPath, tool: ServerToolName, defs: tuple[ServerToolDef, ...]) -> None:
    """When ``tools`` declares server tools, a round may use only those."""
    if defs and all(d.tool != tool for d in defs):
        kinds = ", ".join(dict.fromkeys(d.kind for d in defs))
        raise doc.error(
            (*path, "tool"),
            f"{tool} is not among the server tools in tools ({kinds})",
            "declare it in tools too, or use a declared one",
        )


def called_server_tool(name: str, defs: tuple[ServerToolDef, ...]) -> ServerToolDef | None:
    """The declared server tool a round names as its (client) ``tool``, if any: a trap."""
    return next((d for d in defs if name in (d.name, d.tool)), None)


def server_call_error(doc: Doc, path: KeyPath, d: ServerToolDef) -> InputError:
    at = f", line {d.line}" if d.line is not None else ""
    return doc.error(
        (*path, "tool"),
        f"{d.name} is a server tool ({d.kind} in tools{at}): the provider runs it, the model never calls it",
        f"give its uses as server_tools: [{{tool: {d.tool}, uses: N, result: TOKENS}}] on the round whose "
        "response runs it, or on a round of its own with no tool",
    )
