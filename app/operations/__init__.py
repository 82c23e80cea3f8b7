"""What a request does, below its transport: the bodies the REST routes (app/api), the tools
(app/tools) and MCP share, the access they run under (`access.py`), the request models
(`schemas.py`) and the one API error (`errors.py`). Nothing here imports app/api, app/tools or
app/mcp: they import this, so a tool runs exactly what its route runs without depending on the route."""
