"""A tiny stdio MCP server for the tests (tests/test_mcp.py), built with the official MCP Python SDK:
three tools with known schemas. It writes a line to standard error on start (agentcost must not show
it)."""

import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("agentcost-test-server")


@server.tool(description="Read a text file of the project and return its contents.")
def read_file(path: str, max_bytes: int = 65536) -> str:
    return path


@server.tool(description="Search the project's files for a regular expression.")
def grep(pattern: str, glob: str = "**/*", ignore_case: bool = False) -> list[str]:
    return [pattern]


@server.tool(description="Run the project's test suite and return the failures.")
def run_tests(selector: str | None = None) -> str:
    return "ok"


if __name__ == "__main__":
    print("test server: starting (this goes to stderr)", file=sys.stderr)
    server.run("stdio")
