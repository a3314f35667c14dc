"""MCP (Model Context Protocol): what an MCP server's tools cost an agent (``agentcost mcp
footprint``), and agentcost as an MCP server (``agentcost mcp serve``).

:mod:`agentcost.scenario.mcpconfig` reads the client configs (Claude Code, Claude Desktop, Cursor, VS
Code) and tools/list files (a scenario's ``tools: - mcp:`` entry reads them too);
:mod:`~agentcost.mcp.tools` finds each server's tools/list (a file, the cache, or a launch through the
official MCP Python SDK, :mod:`~agentcost.mcp.launch`); :mod:`~agentcost.mcp.footprint` counts and
prices them into :class:`agentcost.report.mcp.McpFootprint`; :mod:`~agentcost.mcp.serve` is the server.
Only ``launch`` and ``serve`` import the SDK (the ``mcp`` extra), when they run.
"""
