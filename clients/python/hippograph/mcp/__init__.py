"""MCP for the light client: the stdio bridge `hippograph mcp` (`stdio.py`), a proxy to the MCP
endpoint the API serves over streamable HTTP (app/mcp/http.py, the MCP server of app/mcp/server.py)."""

# The header naming the namespace for the bootstrap admin key (every other key implies its own):
# read by the API's MCP endpoint, sent by the bridge.
NAMESPACE_HEADER = "X-Hippograph-Namespace"
