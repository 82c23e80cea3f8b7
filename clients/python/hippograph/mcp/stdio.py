"""MCP over stdio (`hippograph mcp`): the tools of a running Hippograph API, called over HTTP with one
API key on one namespace: the key's own, or, for the bootstrap admin key, the one `--namespace` names.

Before serving, it asks the API who the key is (`GET /v1/me`): an unreachable URL, a refused key or a
namespace the key does not hold ends it with one line on stderr (an MCP client shows it in its log)
instead of a bridge that fails on the first call.
"""

from __future__ import annotations

import anyio
import httpx
from mcp.server.stdio import stdio_server

from hippograph import __version__
from hippograph._retry import NO_RETRY
from hippograph.client import Hippograph
from hippograph.errors import ConnectionFailed, HippographError
from hippograph.mcp.server import Target, build_server

# A recall or a Cypher query can take a while on a large namespace; the API bounds its own work.
REQUEST_TIMEOUT_S = 120.0
CHECK_TIMEOUT_S = 10.0


class BridgeRefused(Exception):
    """Why the bridge cannot start, in one line."""


def checked_namespace(base_url: str, api_key: str, namespace: str | None) -> str:
    """The namespace the tools work on, once the API has answered and accepted the key."""
    try:
        with Hippograph(base_url, api_key, timeout=CHECK_TIMEOUT_S, retry=NO_RETRY) as hg:
            identity = hg.me()
    except ConnectionFailed:
        raise BridgeRefused(f"cannot reach the Hippograph API at {base_url} (set --url or HIPPOGRAPH_URL)") from None
    except HippographError as error:
        raise BridgeRefused(f"the Hippograph API at {base_url} refused the key: {error.message}") from None
    if identity.namespace is None:
        if not namespace:
            raise BridgeRefused("this key (the bootstrap admin) holds every namespace: name one with --namespace")
        return namespace
    if namespace and namespace != identity.namespace:
        raise BridgeRefused(f"this key is for namespace {identity.namespace!r}, not {namespace!r}")
    return identity.namespace


def serve_stdio(namespace: str, base_url: str, api_key: str) -> None:
    """Serve the tools on stdin/stdout until the client closes them. Keys and roles are checked by
    the service at `base_url` on every call; the tools listed are those the key's role may run."""
    anyio.run(_serve, namespace, base_url, api_key)


async def _serve(namespace: str, base_url: str, api_key: str) -> None:
    headers = {"Authorization": f"Bearer {api_key}"}
    async with httpx.AsyncClient(base_url=base_url, headers=headers, timeout=REQUEST_TIMEOUT_S) as client:
        target = Target(client, namespace=namespace)
        server = build_server(lambda ctx: target, __version__)
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
