"""Tool definitions in any format a scenario takes -> :class:`~agentcost.scenario.model.ToolDef`.

The formats: Anthropic Messages, OpenAI Chat Completions, OpenAI Responses and MCP (tools/list);
:func:`tool_file_models` finds the tools in a tool file (server-tool entries among them are read by
:mod:`agentcost.scenario.servers`).
"""

from __future__ import annotations

from typing import Any

from agentcost.infra.spec import ListOf
from agentcost.infra.yamlread import Doc, KeyPath, shown, validate
from agentcost.scenario.format import ERROR_HINTS
from agentcost.scenario.model import ToolDef
from agentcost.scenario.values import (
    TOOL,
    AnthropicTool,
    AnyToolModel,
    ClientToolModel,
    JsonRpcToolsList,
    OpenAIChatTool,
    OpenAIResponsesTool,
    ToolsListResult,
)

_TOOL_LIST = ListOf(TOOL)


def tool_file_models(doc: Doc) -> list[tuple[AnyToolModel, KeyPath]]:
    """The tools in a tool file, each with its key path in that file."""
    value = doc.value
    if isinstance(value, list):
        tools: list[AnyToolModel] = validate(_TOOL_LIST, doc, value, (), ERROR_HINTS)
        return [(tool, (i,)) for i, tool in enumerate(tools)]
    if isinstance(value, dict) and "tools" in value:
        listed = validate(ToolsListResult, doc, value, (), ERROR_HINTS)
        return [(tool, ("tools", i)) for i, tool in enumerate(listed.tools)]
    if isinstance(value, dict) and "result" in value:
        response = validate(JsonRpcToolsList, doc, value, (), ERROR_HINTS)
        return [(tool, ("result", "tools", i)) for i, tool in enumerate(response.result.tools)]
    if isinstance(value, dict):
        tool: AnyToolModel = validate(TOOL, doc, value, (), ERROR_HINTS)
        return [(tool, ())]
    raise doc.error(
        (),
        f"expected tool definitions, got {shown(value, quote=False)}",
        "a list of tools, {tools: [...]}, {result: {tools: [...]}} or one tool",
    )


def _parameters(schema: dict[str, Any] | None) -> dict[str, Any]:
    """OpenAI's parameters may be left out: a function without arguments."""
    return schema if schema is not None else {"type": "object", "properties": {}}


def tool_def(model: ClientToolModel, line: int | None, defer: bool | None = None) -> ToolDef:
    """The tool; ``defer`` is the tool file's defer_loading, for tools that do not set their own."""
    own = model.defer_loading
    if isinstance(model, OpenAIChatTool) and own is None:
        own = model.function.defer_loading
    deferred = bool(own if own is not None else defer)
    if isinstance(model, AnthropicTool):
        return ToolDef(
            model.name, model.description or "", model.input_schema, line, deferred, bool(model.strict)
        )
    if isinstance(model, OpenAIChatTool):
        function = model.function
        schema = _parameters(function.parameters)
        return ToolDef(
            function.name, function.description or "", schema, line, deferred, bool(function.strict)
        )
    if isinstance(model, OpenAIResponsesTool):
        schema = _parameters(model.parameters)
        return ToolDef(model.name, model.description or "", schema, line, deferred, bool(model.strict))
    return ToolDef(model.name, model.description or "", model.inputSchema, line, deferred)
