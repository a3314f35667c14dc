"""The scenario format, part 1: the values its keys hold, as pydantic models.

Counts, money and seconds, content (``N``, a text, ``{tokens: N}``, ``{text: ...}``, ``{file: path}``),
distributions (:mod:`agentcost.scenario.dists`) and tool definitions (Anthropic, OpenAI Chat
Completions, OpenAI Responses, MCP, or ``{file: path}`` of them, and the providers' own server-tool
entries). The rounds and the top level of a
scenario file are :mod:`agentcost.scenario.format`.

Numbers follow one rule (docs/scenario.md#numbers, :func:`agentcost.infra.validate.numeral`): where
only a number fits (a count, a size, an amount), ``1e3``, ``1.5e3`` and ``9k`` / ``1.5M`` are read as
the number they plainly mean; where a content value may be a size or a text, a text that looks like a
number (``"1500"``, ``1e3``, ``9k``) is refused with both spellings.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Annotated, Any, Literal, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    WithJsonSchema,
)
from pydantic.json_schema import SkipJsonSchema

from agentcost.infra.yamlread import Doc, KeyPath, Spec, closest, int_to_decimal, numeral, whole_number
from agentcost.scenario.model import MAX_BUDGET_USD, ServerToolName

MAX_COUNT = 1_000_000_000
"""Largest count a scenario may state (tokens, sizes, repeats): 500 times the largest context window,
so a larger one is surely a typo (docs/limits.md). Not in the JSON Schema: checked after the type."""


def _at_most_max_count(value: int) -> int:
    from pydantic_core import PydanticCustomError

    if value > MAX_COUNT:  # worded by yamlread like Field(le=...): "must be <= 1,000,000,000, got N"
        raise PydanticCustomError("less_than_equal", "must be <= {le}", {"le": MAX_COUNT})
    return value


def _whole(value: Any) -> Any:
    """A count written ``1e3``, ``9k`` or ``12.0`` as the int it is (the numbers rule)."""
    return whole_number(value, MAX_COUNT)


Count = Annotated[int, Field(ge=0), AfterValidator(_at_most_max_count), BeforeValidator(_whole)]
PositiveCount = Annotated[int, Field(ge=1), AfterValidator(_at_most_max_count), BeforeValidator(_whole)]
Name = Annotated[str, Field(min_length=1)]
JsonObject = dict[str, Any]

Money = Annotated[
    Decimal,
    BeforeValidator(int_to_decimal),
    Field(gt=0, le=MAX_BUDGET_USD),
    WithJsonSchema({"type": "number", "exclusiveMinimum": 0, "maximum": int(MAX_BUDGET_USD)}),
]


MAX_SECONDS = Decimal(1_000_000_000)  # about 32 years: longer waits are surely typos

Seconds = Annotated[
    Decimal,
    BeforeValidator(int_to_decimal),
    Field(ge=0, le=MAX_SECONDS),
    WithJsonSchema({"type": "number", "minimum": 0, "maximum": int(MAX_SECONDS)}),
]


class TokensContent(Spec):
    """A stated size in tokens, for text you do not want to write out."""

    tokens: Count = Field(description="Size in tokens.")


class TextContent(Spec):
    """Text written out in the scenario."""

    text: str = Field(description="The text itself.")


class FileContent(Spec):
    """Text read from a UTF-8 file."""

    file: Name = Field(description="Path of a UTF-8 text file, relative to the scenario file.")


# --- distributions (agentcost.scenario.dists): a count or size the user is unsure of

DIST_KEYS = ("fixed", "uniform", "triangular", "pert", "lognormal", "empirical")
MAX_EMPIRICAL_VALUES = 1_000_000
DIST_FORMS = (
    "{fixed: N}, {uniform: [min, max]}, {triangular: [min, mode, max]}, {pert: [min, mode, max]}, "
    "{lognormal: {median: M, p90: P}} or {empirical: [values...] or {file: path}}"
)
Size = Annotated[int, Field(ge=0, le=1_000_000_000), BeforeValidator(_whole)]
Positive = Annotated[
    Decimal,
    BeforeValidator(int_to_decimal),
    Field(gt=0, le=1_000_000_000),
    WithJsonSchema({"type": "number", "exclusiveMinimum": 0, "maximum": 1_000_000_000}),
]


class FixedDist(Spec):
    """Always this value (a distribution that is not one: for what-ifs and tests)."""

    fixed: Size = Field(description="The value.")


class UniformDist(Spec):
    """Every whole number from min to max equally likely."""

    uniform: Annotated[list[Size], Field(min_length=2, max_length=2)] = Field(description="[min, max].")


class TriangularDist(Spec):
    """The triangle distribution from min to max, peaking at the most likely value."""

    triangular: Annotated[list[Size], Field(min_length=3, max_length=3)] = Field(
        description="[min, most likely, max]."
    )


class PertDist(Spec):
    """Beta-PERT: like triangular, smoother, mean (min + 4 x most likely + max) / 6."""

    pert: Annotated[list[Size], Field(min_length=3, max_length=3)] = Field(
        description="[min, most likely, max]."
    )


class LognormalParams(Spec):
    """A lognormal distribution's median and 90th percentile."""

    median: Positive = Field(description="Half the runs are below this.")
    p90: Positive = Field(description="Nine runs in ten are below this (above the median).")


class LognormalDist(Spec):
    """Long-tailed: given by its median and 90th percentile; unbounded above."""

    lognormal: LognormalParams = Field(description="{median: M, p90: P}.")


class EmpiricalDist(Spec):
    """Observed values (e.g. last week's step counts), each equally likely."""

    empirical: Annotated[list[Size], Field(min_length=1, max_length=MAX_EMPIRICAL_VALUES)] | FileContent = (
        Field(description="The values, or {file: path} of a text file with one value per line.")
    )


def dist_kind(value: Any) -> str | None:
    if isinstance(value, dict) and len(value) == 1:
        key = next(iter(value))
        return key if key in DIST_KEYS else None
    return None


DistValue = Annotated[
    Annotated[FixedDist, Tag("fixed")]
    | Annotated[UniformDist, Tag("uniform")]
    | Annotated[TriangularDist, Tag("triangular")]
    | Annotated[PertDist, Tag("pert")]
    | Annotated[LognormalDist, Tag("lognormal")]
    | Annotated[EmpiricalDist, Tag("empirical")],
    Discriminator(dist_kind, custom_error_type="distribution", custom_error_message="bad distribution"),
]
AnyDist = FixedDist | UniformDist | TriangularDist | PertDist | LognormalDist | EmpiricalDist


def _count_kind(value: Any) -> str:
    """A mapping is a distribution; anything else is checked (and explained) as a whole number."""
    return "dist" if isinstance(value, dict) else "~int"


_COUNT = Discriminator(_count_kind, custom_error_type="count", custom_error_message="bad count")
CountValue = Annotated[
    Annotated[Count, Tag("~int"), Field(description="A whole number >= 0.")]
    | Annotated[DistValue, Tag("dist")],
    _COUNT,
]
PositiveCountValue = Annotated[
    Annotated[PositiveCount, Tag("~int"), Field(description="A whole number >= 1.")]
    | Annotated[DistValue, Tag("dist")],
    _COUNT,
]


def _not_a_number(text: str) -> str:
    """A content text that looks like a number (``"1500"``, ``1e3``, ``9k``, ``1:30``) is refused:
    a size or a text? The message shows both spellings."""
    if numeral(text) is not None:
        from pydantic_core import PydanticCustomError

        raise PydanticCustomError("numeral", "not a number", {"text": text, "where": "content"})
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


ContentValue = Annotated[
    Annotated[Count, Tag("~int"), Field(description="A size in tokens.")]
    | Annotated[str, AfterValidator(_not_a_number), Tag("~str"), Field(description="The text itself.")]
    | Annotated[TokensContent, Tag("tokens")]
    | Annotated[TextContent, Tag("text")]
    | Annotated[FileContent, Tag("file")]
    | Annotated[DistValue, Tag("dist")],
    Discriminator(_content_kind, custom_error_type="content", custom_error_message="bad content"),
]

CONTENT_FORMS = "an integer (tokens), a text, or one of {tokens: N}, {text: ...}, {file: path}"


_DEFER = (
    "Deferred loading (tool search): until a round loads the tool, only a short stub of it is sent "
    "(tool_search_stub tokens)."
)


class AnthropicTool(Spec):
    """A tool definition in Anthropic Messages API format."""

    name: Name = Field(description="The tool's name, as the model calls it.")
    description: str | None = Field(default="", description="What the tool does, as the model reads it.")
    input_schema: JsonObject = Field(description="JSON Schema of the tool's input.")
    type: Literal["custom"] | None = Field(default=None, description="Anthropic's tool type: custom.")
    cache_control: JsonObject | None = Field(
        default=None, description="Anthropic cache breakpoint (ignored: caching is set by `caching`)."
    )
    strict: bool | None = Field(default=None, description="Strict tool use (does not change the count).")
    defer_loading: bool | None = Field(default=None, description=_DEFER)


class OpenAIFunction(Spec):
    """The ``function`` part of an OpenAI Chat Completions tool."""

    name: Name = Field(description="The function's name, as the model calls it.")
    description: str | None = Field(default="", description="What the function does, as the model reads it.")
    parameters: JsonObject | None = Field(
        default=None, description="JSON Schema of the arguments (default: an object with no properties)."
    )
    strict: bool | None = Field(default=None, description="Structured outputs for the arguments.")
    defer_loading: bool | None = Field(default=None, description=_DEFER)


class OpenAIChatTool(Spec):
    """A tool definition in OpenAI Chat Completions format."""

    type: Literal["function"] = Field(description="Always function.")
    function: OpenAIFunction = Field(description="The function the model can call.")
    defer_loading: bool | None = Field(default=None, description=_DEFER)


class OpenAIResponsesTool(Spec):
    """A tool definition in OpenAI Responses API format."""

    type: Literal["function"] = Field(description="Always function.")
    name: Name = Field(description="The function's name, as the model calls it.")
    description: str | None = Field(default="", description="What the function does, as the model reads it.")
    parameters: JsonObject | None = Field(
        default=None, description="JSON Schema of the arguments (default: an object with no properties)."
    )
    strict: bool | None = Field(default=None, description="Structured outputs for the arguments.")
    defer_loading: bool | None = Field(default=None, description=_DEFER)


class MCPTool(Spec):
    """A tool as an MCP server lists it (tools/list)."""

    name: Name = Field(description="The tool's name, as the model calls it.")
    title: str | None = Field(default=None, description="Display name (not sent to the model).")
    description: str | None = Field(default="", description="What the tool does, as the model reads it.")
    inputSchema: JsonObject = Field(description="JSON Schema of the tool's input.")
    outputSchema: JsonObject | None = Field(default=None, description="JSON Schema of the output (unused).")
    annotations: JsonObject | None = Field(default=None, description="MCP tool annotations (unused).")
    meta: JsonObject | None = Field(default=None, alias="_meta", description="MCP metadata (unused).")
    icons: list[Any] | None = Field(default=None, description="MCP icons (unused).")
    defer_loading: bool | None = Field(default=None, description=_DEFER)


_Item = TypeVar("_Item", bound=tuple[Any, Any])

MAX_PATTERNS = 100
"""Most glob patterns one ``include`` or ``exclude`` list of a tools-file entry may hold."""
Pattern = Annotated[str, Field(min_length=1, max_length=200)]


class ToolFile(Spec):
    """Tool definitions read from a JSON or YAML file."""

    file: Name = Field(
        description="Path, relative to the scenario file, of a JSON or YAML file holding a list of "
        "tool definitions (any format), an MCP tools/list result {tools: [...]}, a JSON-RPC "
        "response {result: {tools: [...]}}, or one tool definition."
    )
    defer_loading: bool | None = Field(
        default=None,
        description="Defer every tool in the file (a tool's own defer_loading wins): " + _DEFER,
    )
    include: Annotated[list[Pattern], Field(min_length=1, max_length=MAX_PATTERNS)] | None = Field(
        default=None,
        description="Keep only the file's tools whose name matches one of these glob patterns "
        "(fnmatch: *, ?, [abc]; case-sensitive), like OpenAI's allowed_tools. A pattern that "
        "matches no tool in the file is an error.",
    )
    exclude: Annotated[list[Pattern], Field(min_length=1, max_length=MAX_PATTERNS)] | None = Field(
        default=None,
        description="Leave out the file's tools whose name matches one of these glob patterns "
        "(applied after include). A pattern that matches no tool in the file is an error.",
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


class ProviderTool(Spec):
    """A server tool in its provider's own format: Anthropic (``{type: web_search_20250305, name:
    web_search, max_uses: 5}``, ``web_fetch_*``, ``code_execution_*``) or OpenAI Responses (``{type:
    web_search}``, ``web_search_preview``, ``{type: code_interpreter}``). The provider runs it inside a
    response; its uses are rounds' ``server_tools``. Its other options are accepted and ignored."""

    type: Annotated[str, Field(pattern=_PROVIDER_TYPE)] = Field(
        description="web_search_YYYYMMDD, web_fetch_YYYYMMDD, code_execution_YYYYMMDD (Anthropic); "
        "web_search, web_search_preview, code_interpreter (OpenAI Responses)."
    )
    name: Name | None = Field(default=None, description="The tool's name (Anthropic: e.g. web_search).")
    max_uses: PositiveCount | None = Field(
        default=None, description="Anthropic: most uses in one request (rounds' uses are checked against it)."
    )
    allowed_domains: list[str] | None = Field(default=None, description=_IGNORED)
    blocked_domains: list[str] | None = Field(default=None, description=_IGNORED)
    user_location: JsonObject | None = Field(default=None, description=_IGNORED)
    cache_control: JsonObject | None = Field(default=None, description=_IGNORED)
    citations: JsonObject | None = Field(default=None, description=_IGNORED)
    max_content_tokens: PositiveCount | None = Field(default=None, description=_IGNORED)
    defer_loading: bool | None = Field(default=None, description=_IGNORED)
    strict: bool | None = Field(default=None, description=_IGNORED)
    allowed_callers: list[str] | None = Field(default=None, description=_IGNORED)
    search_context_size: str | None = Field(default=None, description=_IGNORED)
    filters: JsonObject | None = Field(default=None, description=_IGNORED)
    container: str | JsonObject | None = Field(default=None, description=_IGNORED)


class OtherProviderTool(BaseModel):
    """Another tool type of a provider (OpenAI file_search, Anthropic bash_20250124, ...), or an
    unknown one: refused by agentcost.scenario.servers with what to write instead. Not in the schema."""

    model_config = ConfigDict(extra="allow", strict=True)

    type: str


class GeminiTool(BaseModel):
    """Gemini server tools: ``{google_search: {}}``, ``{url_context: {}}``, ``{code_execution: {}}``
    (one or more in one item). Their uses are rounds' ``server_tools``."""

    model_config = ConfigDict(
        extra="allow", strict=True, json_schema_extra={"additionalProperties": False, "minProperties": 1}
    )

    google_search: JsonObject | None = Field(default=None, description="Grounding with Google Search.")
    googleSearch: JsonObject | None = Field(default=None, description="google_search, camelCase.")
    google_search_retrieval: JsonObject | None = Field(
        default=None, description="Grounding with Google Search (Gemini 1.5)."
    )
    googleSearchRetrieval: JsonObject | None = Field(
        default=None, description="google_search_retrieval, camelCase."
    )
    url_context: JsonObject | None = Field(default=None, description="URL context (a web fetch).")
    urlContext: JsonObject | None = Field(default=None, description="url_context, camelCase.")
    code_execution: JsonObject | None = Field(default=None, description="Code execution.")
    codeExecution: JsonObject | None = Field(default=None, description="code_execution, camelCase.")


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
    return _tool_kind(value)


_TOOL_MEMBERS = (
    Annotated[AnthropicTool, Tag("~anthropic")]
    | Annotated[OpenAIChatTool, Tag("~openai-chat")]
    | Annotated[OpenAIResponsesTool, Tag("~openai-responses")]
    | Annotated[MCPTool, Tag("~mcp")]
    | Annotated[ProviderTool, Tag("~provider")]
    | Annotated[GeminiTool, Tag("~gemini")]
    | Annotated[SkipJsonSchema[OtherProviderTool], Tag("~other")]
)
_TOOL_ERROR: dict[str, Any] = {"custom_error_type": "tool", "custom_error_message": "bad tool"}
ToolSpec = Annotated[_TOOL_MEMBERS, Discriminator(_tool_kind, **_TOOL_ERROR)]
ToolItem = Annotated[
    _TOOL_MEMBERS | Annotated[ToolFile, Tag("~file")],
    Discriminator(tool_item_kind, **_TOOL_ERROR),
]
ServerToolModel = ProviderTool | GeminiTool | OtherProviderTool
AnyToolModel = AnthropicTool | OpenAIChatTool | OpenAIResponsesTool | MCPTool | ServerToolModel
ClientToolModel = AnthropicTool | OpenAIChatTool | OpenAIResponsesTool | MCPTool


class ToolsListResult(Spec):
    """An MCP tools/list result."""

    tools: list[ToolSpec] = Field(description="The tools.")
    nextCursor: str | None = Field(default=None, description="Pagination cursor (unused).")
    meta: JsonObject | None = Field(default=None, alias="_meta", description="MCP metadata (unused).")


class JsonRpcToolsList(Spec):
    """A JSON-RPC response carrying an MCP tools/list result."""

    jsonrpc: str | None = Field(default=None, description="JSON-RPC version.")
    id: int | str | None = Field(default=None, description="Request id.")
    result: ToolsListResult = Field(description="The tools/list result.")


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
