"""The tools for models over MCP (the official `mcp` package): streamable HTTP at `/mcp/` in the API
process (`http.py`), running the MCP server of `server.py`, which serves the tools by calling the REST
tool routes (`GET /v1/tools`, `POST /v1/namespaces/{ns}/tools/{name}`) with the caller's key, so the
tools have one definition and keys and roles are checked by the service, once. Over stdio,
`hippograph mcp` (the light client: clients/python/hippograph/mcp/stdio.py) proxies each message to
this endpoint, without the `mcp` package."""
