"""The MCP server of the tools (`server.py`, shared with the API's streamable HTTP transport in app/mcp/http.py)
and the stdio bridge `hippograph mcp` (`stdio.py`)."""
