"""The scenario format, part 1: the values its keys hold, as shapes and Spec mappings.

Counts, money and seconds, content (``N``, a text, ``{tokens: N}``, ``{text: ...}``, ``{file: path}``),
distributions (:mod:`agentcost.scenario.dists`) and tool definitions (Anthropic, OpenAI Chat
Completions, OpenAI Responses, MCP, or ``{file: path}`` of them, and the providers' own server-tool
entries). The rounds and the top level of a scenario file are :mod:`agentcost.scenario.format`; the
engine that checks them and writes their JSON Schema is :mod:`agentcost.infra.spec`.

Numbers follow one rule (docs/scenario.md#numbers, :func:`agentcost.infra.validate.numeral`): where
only a number fits (a count, a size, an amount), ``1e3``, ``1.5e3`` and ``9k`` / ``1.5M`` are read as
the number they plainly mean; where a content value may be a size or a text, a text that looks like a
number (``"1500"``, ``1e3``, ``9k``) is refused with both spellings.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any, Literal, TypeVar

from agentcost.infra.spec import (
    AnyValue,
    Before,
    Bool,
    Bounds,
    Check,
    DictOf,
    Int,
    Invalid,
    JsonObject,
    ListOf,
    Lit,
    Model,
    Nullable,
    Schema,
    Shape,
    Spec,
    Str,
    Tagged,
    Union,
    field,
)
from agentcost.infra.validate import amount
from agentcost.infra.yamlread import Doc, KeyPath, closest, key_text, numeral, whole_number
from agentcost.scenario.model import MAX_BUDGET_USD, Dist, ServerToolName

MAX_COUNT = 1_000_000_000
"""Largest count a scenario may state (tokens, sizes, repeats): 500 times the largest context window,
so a larger one is surely a typo (docs/limits.md). Not in the JSON Schema: checked after the type."""


def _at_most_max_count(value: int) -> int:
    if value > MAX_COUNT:  # worded by validate like a bound: "must be <= 1,000,000,000, got N"
        raise Invalid("less_than_equal", "must be <= {le}", {"le": MAX_COUNT})
    return value


def _whole(value: Any) -> Any:
    """A count written ``1e3``, ``9k`` or ``12.0`` as the int it is (the numbers rule)."""
    return whole_number(value, MAX_COUNT)


def _positive_whole(value: Any) -> Any:
    """:func:`_whole` of a count that is at least 1."""
    return whole_number(value, MAX_COUNT, least=1)


def _count(least: int) -> Shape:
    whole = _positive_whole if least == 1 else _whole
    return Before(whole, Check(Bounds(Int(), ge=least), _at_most_max_count))


COUNT = _count(0)
"""A whole number >= 0 (at most :data:`MAX_COUNT`)."""
POSITIVE_COUNT = _count(1)
"""A whole number >= 1 (at most :data:`MAX_COUNT`)."""
NAME = Str(min_length=1)
"""A text that is not empty (a name, a path)."""
MONEY = amount(gt=0, le=MAX_BUDGET_USD)
"""US dollars: above 0, at most :data:`~agentcost.scenario.model.MAX_BUDGET_USD`."""

MAX_SECONDS = Decimal(1_000_000_000)  # about 32 years: longer waits are surely typos
SECONDS = amount(ge=0, le=MAX_SECONDS)
"""Seconds: 0 to :data:`MAX_SECONDS`."""


class TokensContent(Spec):
    """A stated size in tokens, for text you do not want to write out."""

    tokens: int = field(COUNT, "Size in tokens.")


class TextContent(Spec):
    """Text written out in the scenario."""

    text: str = field(Str(), "The text itself.")


class FileContent(Spec):
    """Text read from a UTF-8 file."""

    file: str = field(NAME, "Path of a UTF-8 text file, relative to the scenario file.")


# --- distributions (agentcost.scenario.dists): a count or size the user is unsure of

DIST_KEYS = ("fixed", "uniform", "triangular", "pert", "lognormal", "empirical")
MAX_EMPIRICAL_VALUES = 1_000_000
DIST_FORMS = (
    "{fixed: N}, {uniform: [min, max]}, {triangular: [min, mode, max]}, {pert: [min, mode, max]}, "
    "{lognormal: {median: M, p90: P}} or {empirical: [values...] or {file: path}}"
)


def _size() -> Shape:
    return Before(_whole, Bounds(Int(), ge=0, le=1_000_000_000))


SIZE = _size()
POSITIVE = amount(gt=0, le=1_000_000_000)


class FixedDist(Spec):
    """Always this value (a distribution that is not one: for what-ifs and tests)."""

    fixed: int = field(SIZE, "The value.")


class UniformDist(Spec):
    """Every whole number from min to max equally likely."""

    uniform: list[int] = field(ListOf(SIZE, 2, 2), "[min, max].")


class TriangularDist(Spec):
    """The triangle distribution from min to max, peaking at the most likely value."""

    triangular: list[int] = field(ListOf(SIZE, 3, 3), "[min, most likely, max].")


class PertDist(Spec):
    """Beta-PERT: like triangular, smoother, mean (min + 4 x most likely + max) / 6."""

    pert: list[int] = field(ListOf(SIZE, 3, 3), "[min, most likely, max].")


class LognormalParams(Spec):
    """A lognormal distribution's median and 90th percentile."""

    median: Decimal = field(POSITIVE, "Half the runs are below this.")
    p90: Decimal = field(POSITIVE, "Nine runs in ten are below this (above the median).")


class LognormalDist(Spec):
    """Long-tailed: given by its median and 90th percentile; unbounded above."""

    lognormal: LognormalParams = field(Model(LognormalParams), "{median: M, p90: P}.")


_VALUES = ListOf(SIZE, 1, MAX_EMPIRICAL_VALUES, label="list[function-before[_whole(), constrained-int]]")


class EmpiricalDist(Spec):
    """Observed values (e.g. last week's step counts), each equally likely."""

    empirical: list[int] | FileContent = field(
        Union(_VALUES, Model(FileContent)),
        "The values, or {file: path} of a text file with one value per line.",
    )


def dist_kind(value: Any) -> str | None:
    if isinstance(value, dict) and len(value) == 1:
        key = next(iter(value))
        return key if key in DIST_KEYS else None
    return None


AnyDist = FixedDist | UniformDist | TriangularDist | PertDist | LognormalDist | EmpiricalDist
DIST = Tagged(
    dist_kind,
    {kind: Model(spec) for kind, spec in zip(DIST_KEYS, AnyDist.__args__, strict=True)},
    error=("distribution", "bad distribution"),
)
"""A distribution: one of :data:`DIST_KEYS`, each a mapping of one key."""


def _count_kind(value: Any) -> str:
    """A mapping is a distribution; anything else is checked (and explained) as a whole number."""
    return "dist" if isinstance(value, dict) else "~int"


COUNT_VALUE = Tagged(_count_kind, {"~int": Schema(COUNT, description="A whole number >= 0."), "dist": DIST})
"""A count: a whole number >= 0 or a distribution."""
POSITIVE_COUNT_VALUE = Tagged(
    _count_kind, {"~int": Schema(POSITIVE_COUNT, description="A whole number >= 1."), "dist": DIST}
)
"""A count: a whole number >= 1 or a distribution."""


def _not_a_number(text: str) -> str:
    """A content text that looks like a number (``"1500"``, ``1e3``, ``9k``, ``1:30``) is refused:
    a size or a text? The message shows both spellings."""
    if numeral(text) is not None:
        raise Invalid("numeral", "not a number", {"text": text, "where": "content"})
    return text


def _content_kind(value: Any) -> str | None:
    if type(value) is int or (
        isinstance(value, Decimal) and value.is_finite() and value == value.to_integral_value()
    ):
        return "~int"  # a whole Decimal (1.5e+3, or 1e3 in a JSON file) is a size too
    if isinstance(value, str):
        return "~str"
    if isinstance(value, dict):
        if dist_kind(value) is not None:
            return "dist"
        kinds = [key for key in ("tokens", "text", "file") if key in value]
        if len(kinds) == 1 and len(value) == 1:
            return kinds[0]
    return None


CONTENT = Tagged(
    _content_kind,
    {
        "~int": Schema(COUNT, description="A size in tokens."),
        "~str": Schema(Check(Str(), _not_a_number), description="The text itself."),
        "tokens": Model(TokensContent),
        "text": Model(TextContent),
        "file": Model(FileContent),
        "dist": DIST,
    },
    error=("content", "bad content"),
)
"""A content value: a size in tokens, a text, ``{tokens: N}``, ``{text: ...}``, ``{file: path}`` or a
distribution of sizes (built into :class:`~agentcost.scenario.model.Content`)."""
ContentValue = int | str | TokensContent | TextContent | FileContent | AnyDist
"""The validated :data:`CONTENT`."""

CONTENT_FORMS = "an integer (tokens), a text, or one of {tokens: N}, {text: ...}, {file: path}"


_DEFER = (
    "Deferred loading (tool search): until a round loads the tool, only a short stub of it is sent "
    "(tool_search_stub tokens)."
)


_OBJECT = Nullable(JsonObject)
_TEXT = Nullable(Str())
_FLAG = Nullable(Bool())


class AnthropicTool(Spec):
    """A tool definition in Anthropic Messages API format."""

    name: str = field(NAME, "The tool's name, as the model calls it.")
    description: str | None = field(_TEXT, "What the tool does, as the model reads it.", default="")
    input_schema: dict[str, Any] = field(JsonObject, "JSON Schema of the tool's input.")
    type: Literal["custom"] | None = field(
        Nullable(Lit("custom")), "Anthropic's tool type: custom.", default=None
    )
    cache_control: dict[str, Any] | None = field(
        _OBJECT, "Anthropic cache breakpoint (ignored: caching is set by `caching`).", default=None
    )
    strict: bool | None = field(
        _FLAG,
        "Strict tool use: calls always match the schema, so retries.share/count spare them.",
        default=None,
    )
    defer_loading: bool | None = field(_FLAG, _DEFER, default=None)


_PARAMETERS = "JSON Schema of the arguments (default: an object with no properties)."


class OpenAIFunction(Spec):
    """The ``function`` part of an OpenAI Chat Completions tool."""

    name: str = field(NAME, "The function's name, as the model calls it.")
    description: str | None = field(_TEXT, "What the function does, as the model reads it.", default="")
    parameters: dict[str, Any] | None = field(_OBJECT, _PARAMETERS, default=None)
    strict: bool | None = field(
        _FLAG,
        "Structured outputs: calls always match the schema, so retries.share/count spare them.",
        default=None,
    )
    defer_loading: bool | None = field(_FLAG, _DEFER, default=None)


class OpenAIChatTool(Spec):
    """A tool definition in OpenAI Chat Completions format."""

    type: Literal["function"] = field(Lit("function"), "Always function.")
    function: OpenAIFunction = field(Model(OpenAIFunction), "The function the model can call.")
    defer_loading: bool | None = field(_FLAG, _DEFER, default=None)


class OpenAIResponsesTool(Spec):
    """A tool definition in OpenAI Responses API format."""

    type: Literal["function"] = field(Lit("function"), "Always function.")
    name: str = field(NAME, "The function's name, as the model calls it.")
    description: str | None = field(_TEXT, "What the function does, as the model reads it.", default="")
    parameters: dict[str, Any] | None = field(_OBJECT, _PARAMETERS, default=None)
    strict: bool | None = field(
        _FLAG,
        "Structured outputs: calls always match the schema, so retries.share/count spare them.",
        default=None,
    )
    defer_loading: bool | None = field(_FLAG, _DEFER, default=None)


class MCPTool(Spec):
    """A tool as an MCP server lists it (tools/list)."""

    name: str = field(NAME, "The tool's name, as the model calls it.")
    title: str | None = field(_TEXT, "Display name (not sent to the model).", default=None)
    description: str | None = field(_TEXT, "What the tool does, as the model reads it.", default="")
    inputSchema: dict[str, Any] = field(JsonObject, "JSON Schema of the tool's input.")
    outputSchema: dict[str, Any] | None = field(_OBJECT, "JSON Schema of the output (unused).", default=None)
    annotations: dict[str, Any] | None = field(_OBJECT, "MCP tool annotations (unused).", default=None)
    meta: dict[str, Any] | None = field(_OBJECT, "MCP metadata (unused).", default=None, alias="_meta")
    icons: list[Any] | None = field(Nullable(ListOf(AnyValue())), "MCP icons (unused).", default=None)
    defer_loading: bool | None = field(_FLAG, _DEFER, default=None)


_Item = TypeVar("_Item", bound=tuple[Any, Any])

MAX_PATTERNS = 100
"""Most glob patterns one ``include`` or ``exclude`` list of a tools-file entry may hold."""
_PATTERNS = Nullable(ListOf(Str(min_length=1, max_length=200), 1, MAX_PATTERNS))


class ToolFile(Spec):
    """Tool definitions read from a JSON or YAML file."""

    file: str = field(
        NAME,
        "Path, relative to the scenario file, of a JSON or YAML file holding a list of "
        "tool definitions (any format), an MCP tools/list result {tools: [...]}, a JSON-RPC "
        "response {result: {tools: [...]}}, or one tool definition.",
    )
    defer_loading: bool | None = field(
        _FLAG, "Defer every tool in the file (a tool's own defer_loading wins): " + _DEFER, default=None
    )
    include: list[str] | None = field(
        _PATTERNS,
        "Keep only the file's tools whose name matches one of these glob patterns "
        "(fnmatch: *, ?, [abc]; case-sensitive), like OpenAI's allowed_tools. A pattern that "
        "matches no tool in the file is an error.",
        default=None,
    )
    exclude: list[str] | None = field(
        _PATTERNS,
        "Leave out the file's tools whose name matches one of these glob patterns "
        "(applied after include). A pattern that matches no tool in the file is an error.",
        default=None,
    )


class McpTools(Spec):
    """The tools of the MCP servers a client config declares, each server's from a tools/list file."""

    mcp: str = field(
        NAME,
        "Path, relative to the scenario file, of an MCP client config: .mcp.json (Claude Code), "
        "claude_desktop_config.json, .cursor/mcp.json or .vscode/mcp.json (docs/mcp.md). Nothing in it "
        "is started or contacted.",
    )
    servers: list[str] | None = field(
        Nullable(ListOf(NAME, 1)),
        "The config's servers whose tools are sent, in this order (default: every server of the config).",
        default=None,
    )
    tools_lists: dict[str, str] | None = field(
        Nullable(DictOf(NAME, NAME)),
        "Each server's tools/list, committed with the scenario: server name -> path, relative to the "
        "scenario file, of a JSON or YAML file ({tools: [...]} or any shape a {file: path} entry takes), "
        "e.g. the file `agentcost mcp footprint CONFIG --launch --cache-dir DIR` writes in DIR.",
        default=None,
    )
    defer_loading: bool | None = field(
        _FLAG, "Defer every tool of these servers (a tool's own defer_loading wins): " + _DEFER, default=None
    )


# --- the providers' own tool entries: server tools (agentcost.scenario.servers reads them)

ANTHROPIC_SERVER_TYPE = r"(web_search|web_fetch|code_execution)_[0-9]{8}"
"""Anthropic's versioned server tools (``web_search_20250305``, ``web_fetch_20250910``, ...)."""
OPENAI_SERVER_TYPE = r"(web_search(_preview)?(_[0-9]{4}_[0-9]{2}_[0-9]{2})?|code_interpreter)"
"""OpenAI Responses' built-in tools agentcost models (``web_search``, ``web_search_preview``, ...)."""
GEMINI_SERVER_KEYS: dict[str, ServerToolName] = {
    "google_search": "web_search",
    "googleSearch": "web_search",
    "google_search_retrieval": "web_search",
    "googleSearchRetrieval": "web_search",
    "url_context": "web_fetch",
    "urlContext": "web_fetch",
    "code_execution": "code_execution",
    "codeExecution": "code_execution",
}
"""Gemini's tool keys agentcost models, and the server tool each is (rounds' ``server_tools``)."""
GEMINI_OTHER_KEYS = (
    "function_declarations",
    "functionDeclarations",
    "google_maps",
    "googleMaps",
    "file_search",
    "fileSearch",
    "computer_use",
    "computerUse",
    "retrieval",
    "enterprise_web_search",
    "enterpriseWebSearch",
)
"""Gemini's other tool keys: refused with what to write instead (agentcost.scenario.servers)."""

_PROVIDER_TYPE = f"^({ANTHROPIC_SERVER_TYPE}|{OPENAI_SERVER_TYPE})$"


_IGNORED = "The provider's option (accepted and ignored: it does not change what agentcost counts)."


_IGNORED_TEXTS = Nullable(ListOf(Str()))


class ProviderTool(Spec):
    """A server tool in its provider's own format: Anthropic (``{type: web_search_20250305, name:
    web_search, max_uses: 5}``, ``web_fetch_*``, ``code_execution_*``) or OpenAI Responses (``{type:
    web_search}``, ``web_search_preview``, ``{type: code_interpreter}``). The provider runs it inside a
    response; its uses are rounds' ``server_tools``. Its other options are accepted and ignored."""

    type: str = field(
        Str(pattern=_PROVIDER_TYPE),
        "web_search_YYYYMMDD, web_fetch_YYYYMMDD, code_execution_YYYYMMDD (Anthropic); "
        "web_search, web_search_preview, code_interpreter (OpenAI Responses).",
    )
    name: str | None = field(Nullable(NAME), "The tool's name (Anthropic: e.g. web_search).", default=None)
    max_uses: int | None = field(
        Nullable(POSITIVE_COUNT),
        "Anthropic: most uses in one request (rounds' uses are checked against it).",
        default=None,
    )
    allowed_domains: list[str] | None = field(_IGNORED_TEXTS, _IGNORED, default=None)
    blocked_domains: list[str] | None = field(_IGNORED_TEXTS, _IGNORED, default=None)
    user_location: dict[str, Any] | None = field(_OBJECT, _IGNORED, default=None)
    cache_control: dict[str, Any] | None = field(_OBJECT, _IGNORED, default=None)
    citations: dict[str, Any] | None = field(_OBJECT, _IGNORED, default=None)
    max_content_tokens: int | None = field(Nullable(POSITIVE_COUNT), _IGNORED, default=None)
    defer_loading: bool | None = field(_FLAG, _IGNORED, default=None)
    strict: bool | None = field(_FLAG, _IGNORED, default=None)
    allowed_callers: list[str] | None = field(_IGNORED_TEXTS, _IGNORED, default=None)
    search_context_size: str | None = field(_TEXT, _IGNORED, default=None)
    filters: dict[str, Any] | None = field(_OBJECT, _IGNORED, default=None)
    container: str | dict[str, Any] | None = field(Nullable(Union(Str(), JsonObject)), _IGNORED, default=None)


class OtherProviderTool(Spec, extra_allowed=True):
    """Another tool type of a provider (OpenAI file_search, Anthropic bash_20250124, ...), or an
    unknown one: refused by agentcost.scenario.servers with what to write instead. Not in the schema."""

    type: str = field(Str(), "The tool's type.")


class GeminiTool(Spec, extra_allowed=True, schema_extra={"additionalProperties": False, "minProperties": 1}):
    """Gemini server tools: ``{google_search: {}}``, ``{url_context: {}}``, ``{code_execution: {}}``
    (one or more in one item). Their uses are rounds' ``server_tools``."""

    google_search: dict[str, Any] | None = field(_OBJECT, "Grounding with Google Search.", default=None)
    googleSearch: dict[str, Any] | None = field(_OBJECT, "google_search, camelCase.", default=None)
    google_search_retrieval: dict[str, Any] | None = field(
        _OBJECT, "Grounding with Google Search (Gemini 1.5).", default=None
    )
    googleSearchRetrieval: dict[str, Any] | None = field(
        _OBJECT, "google_search_retrieval, camelCase.", default=None
    )
    url_context: dict[str, Any] | None = field(_OBJECT, "URL context (a web fetch).", default=None)
    urlContext: dict[str, Any] | None = field(_OBJECT, "url_context, camelCase.", default=None)
    code_execution: dict[str, Any] | None = field(_OBJECT, "Code execution.", default=None)
    codeExecution: dict[str, Any] | None = field(_OBJECT, "code_execution, camelCase.", default=None)


def _is_provider_type(value: dict[str, Any]) -> bool:
    """A typed entry other than a function or custom tool: a provider's own tool (a server tool, or
    one agentcost refuses with what to write instead)."""
    kind = value.get("type")
    return isinstance(kind, str) and kind not in ("function", "custom")


def _is_gemini_tool(value: dict[str, Any]) -> bool:
    return bool(value) and all(key in GEMINI_SERVER_KEYS or key in GEMINI_OTHER_KEYS for key in value)


def _tool_kind(value: Any) -> str | None:
    if not isinstance(value, dict):
        return None
    if _is_provider_type(value):
        return "~provider" if re.fullmatch(_PROVIDER_TYPE, value["type"]) else "~other"
    if _is_gemini_tool(value):
        return "~gemini"
    if "function" in value:
        return "~openai-chat"
    if value.get("type") == "function" or "parameters" in value:
        return "~openai-responses"
    if "inputSchema" in value or ("input_schema" not in value and _looks_like_mcp(value)):
        return "~mcp"
    return "~anthropic"


def _looks_like_mcp(tool: dict[str, Any]) -> bool:
    """Whether a tool without a schema key seems meant as MCP (camelCase, e.g. a typo of inputSchema)."""
    mcp_only = ("title", "inputSchema", "outputSchema", "annotations", "_meta", "icons")
    return any(closest(key, mcp_only) for key in tool if key not in ("name", "description"))


def tool_item_kind(value: Any) -> str | None:
    if isinstance(value, dict) and "file" in value:
        return "~file"
    if isinstance(value, dict) and "mcp" in value:
        return "~mcp-config"
    return _tool_kind(value)


_TOOL_MEMBERS: dict[str, Shape] = {
    "~anthropic": Model(AnthropicTool),
    "~openai-chat": Model(OpenAIChatTool),
    "~openai-responses": Model(OpenAIResponsesTool),
    "~mcp": Model(MCPTool),
    "~provider": Model(ProviderTool),
    "~gemini": Model(GeminiTool),
    "~other": Model(OtherProviderTool),
}
_IN_SCHEMA = [tag for tag in _TOOL_MEMBERS if tag != "~other"]
_TOOL_ERROR = ("tool", "bad tool")
TOOL = Tagged(_tool_kind, _TOOL_MEMBERS, _TOOL_ERROR, _IN_SCHEMA)
"""One tool definition, in any format (a tools file's item)."""
TOOL_ITEM = Tagged(
    tool_item_kind,
    {**_TOOL_MEMBERS, "~file": Model(ToolFile), "~mcp-config": Model(McpTools)},
    _TOOL_ERROR,
    [*_IN_SCHEMA, "~file", "~mcp-config"],
)
"""An item of a scenario's ``tools``: a tool definition, ``{file: path}`` of them or ``{mcp: config}``."""
ServerToolModel = ProviderTool | GeminiTool | OtherProviderTool
AnyToolModel = AnthropicTool | OpenAIChatTool | OpenAIResponsesTool | MCPTool | ServerToolModel
ClientToolModel = AnthropicTool | OpenAIChatTool | OpenAIResponsesTool | MCPTool


class ToolsListResult(Spec):
    """An MCP tools/list result."""

    tools: list[AnyToolModel] = field(ListOf(TOOL), "The tools.")
    nextCursor: str | None = field(_TEXT, "Pagination cursor (unused).", default=None)
    meta: dict[str, Any] | None = field(_OBJECT, "MCP metadata (unused).", default=None, alias="_meta")


class JsonRpcToolsList(Spec):
    """A JSON-RPC response carrying an MCP tools/list result."""

    jsonrpc: str | None = field(_TEXT, "JSON-RPC version.", default=None)
    id: int | str | None = field(Nullable(Union(Int(), Str())), "Request id.", default=None)
    result: ToolsListResult = field(Model(ToolsListResult), "The tools/list result.")


def select_tools(entry: object, items: list[_Item], doc: Doc, path: KeyPath) -> list[_Item]:
    """The (tool model, origin) items of ``tools`` entry ``entry`` (at ``path``) that its ``include`` /
    ``exclude`` globs keep, in file order (fnmatch, case-sensitive); every item when ``entry`` is not
    a tools file or has no globs. Server tools in the file are kept whatever the globs. A pattern that
    matches no tool of the file is an error naming the file's tools (bounded and escaped)."""
    if not isinstance(entry, ToolFile) or (entry.include is None and entry.exclude is None):
        return items
    from fnmatch import fnmatchcase

    from agentcost.infra.doc import bounded
    from agentcost.infra.validate import quoted

    names = [_client_name(model) for model, _ in items]
    tools = [n for n in names if n is not None]
    for key, patterns in (("include", entry.include), ("exclude", entry.exclude)):
        for j, pattern in enumerate(patterns or ()):
            if not any(fnmatchcase(n, pattern) for n in tools):
                listed = ", ".join(bounded(n) for n in tools[:12])
                more = f", ... ({len(tools)} in all)" if len(tools) > 12 else ""
                raise doc.error(
                    (*path, key, j),
                    f"{quoted(pattern)} matches no tool in {bounded(entry.file)}",
                    f"its tools: {listed}{more}" if tools else "it defines no tool",
                )

    def kept(n: str | None) -> bool:
        if n is None:
            return True
        if entry.include is not None and not any(fnmatchcase(n, p) for p in entry.include):
            return False
        return not any(fnmatchcase(n, p) for p in entry.exclude or ())

    return [item for item, n in zip(items, names, strict=True) if kept(n)]


def _client_name(model: object) -> str | None:
    """A client tool's name in any format (None: a server tool)."""
    if isinstance(model, OpenAIChatTool):
        return model.function.name
    if isinstance(model, AnthropicTool | OpenAIResponsesTool | MCPTool):
        return model.name
    return None


def build_dist(
    doc: Doc,
    value: AnyDist,
    path: KeyPath,
    minimum: int,
    empirical_file: Callable[[str, KeyPath], list[int]],
) -> Dist:
    """The :class:`Dist` of a validated distribution written at ``path`` of ``doc`` (scenario and
    project files alike); ``empirical_file`` reads the values of ``empirical: {file: ...}``."""
    where, line = key_text(path, quotes=doc.quotes), doc.line(path)
    kind = value.fields[0].name
    assert kind is not None
    if isinstance(value, FixedDist):
        params = [value.fixed]
    elif isinstance(value, UniformDist):
        params = list(value.uniform)
    elif isinstance(value, TriangularDist | PertDist):
        params = list(value.triangular if isinstance(value, TriangularDist) else value.pert)
        if not params[0] <= params[1] <= params[2]:
            raise doc.error(
                (*path, kind),
                f"min {params[0]:,}, most likely {params[1]:,}, max {params[2]:,} are not in order",
                "write [min, most likely, max] with min <= most likely <= max",
            )
    elif isinstance(value, LognormalDist):
        ln = value.lognormal
        if ln.p90 <= ln.median:
            raise doc.error(
                (*path, "lognormal", "p90"),
                f"p90 ({ln.p90}) must be above the median ({ln.median})",
                "nine runs in ten are below p90; half are below the median",
            )
        return Dist("lognormal", (ln.median, ln.p90), where, line, minimum)
    else:
        assert isinstance(value, EmpiricalDist)
        given = value.empirical
        params = given if isinstance(given, list) else empirical_file(given.file, (*path, "empirical"))
        params = sorted(params)
    if isinstance(value, UniformDist) and params[0] > params[1]:
        raise doc.error((*path, kind), f"min {params[0]:,} is above max {params[1]:,}", "write [min, max]")
    if minimum and max(params) < minimum:
        raise doc.error((*path, kind), f"every value is below {minimum}", f"a draw is at least {minimum}")
    return Dist(kind, tuple(Decimal(p) for p in params), where, line, minimum)  # type: ignore[arg-type]
