"""The tools for models over MCP (the official `mcp` package): streamable HTTP at `/mcp/` in the API
process (app/mcp/http.py) and stdio (`hippograph mcp`, in the light client:
clients/python/hippograph/mcp/stdio.py). Both run the MCP server of clients/python/hippograph/mcp/server.py,
which serves the tools by calling the REST tool routes (`GET /v1/tools`, `POST
/v1/namespaces/{ns}/tools/{name}`) with the caller's key, so the tools have one definition and keys
and roles are checked by the service, once."""
