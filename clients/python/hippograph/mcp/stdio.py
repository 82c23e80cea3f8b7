"""MCP over stdio (`hippograph mcp --namespace NS`): the seven tools of a
running Hippograph API, called over HTTP with one API key on one namespace."""

from __future__ import annotations

import anyio
import httpx
from mcp.server.stdio import stdio_server

from hippograph.mcp.server import Target, build_server

# A recall or a Cypher query can take a while on a large namespace; the API bounds its own work.
REQUEST_TIMEOUT_S = 120.0


def serve_stdio(namespace: str, base_url: str, api_key: str) -> None:
    """Serve the tools on stdin/stdout until the client closes them. Keys and roles are checked by
    the service at `base_url` on every call."""
    anyio.run(_serve, namespace, base_url, api_key)


async def _serve(namespace: str, base_url: str, api_key: str) -> None:
    headers = {"Authorization": f"Bearer {api_key}"}
    async with httpx.AsyncClient(base_url=base_url, headers=headers, timeout=REQUEST_TIMEOUT_S) as client:
        target = Target(client, namespace=namespace)
        server = build_server(lambda ctx: target)
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
