"""MCP over streamable HTTP, mounted at `/mcp/` in the API process.

The `BearerAuthentication` middleware has already refused a request without a valid key (401), so a
tool call here carries a known key: it is forwarded, with the request id, to the REST tool route of
this same app (in process, through ASGI), which checks the key's role as for any REST call. The
namespace is the key's own; the bootstrap admin key (every namespace) names one in the
`X-Hippograph-Namespace` header. Stateless: each POST is answered on its own (JSON, no SSE stream),
so any number of API processes can serve the same clients.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from mcp.server import ServerRequestContext
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from app.domain.keys import Caller
from app.mcp.server import Target, build_server
from app.operations.errors import REQUEST_ID_HEADER, error_response
from hippograph.mcp import NAMESPACE_HEADER


def target_of(ctx: ServerRequestContext[Any, Any], client: httpx.AsyncClient) -> Target:
    """The caller's key and namespace, read from the HTTP request the MCP message came in."""
    request = ctx.request
    if not isinstance(request, Request):  # only messages that came over HTTP reach this server
        raise RuntimeError("an MCP message without its HTTP request")
    caller: Caller = request.state.caller
    headers = {"Authorization": request.headers["authorization"]}
    if request_id := getattr(request.state, "request_id", None):
        headers[REQUEST_ID_HEADER] = request_id
    named = request.headers.get(NAMESPACE_HEADER)
    if caller.namespace is not None and named not in (None, caller.namespace):
        return Target(client, headers, no_namespace=_error(
            f"this key is for namespace {caller.namespace!r}; {NAMESPACE_HEADER} names {named!r}"))  # fmt: skip
    namespace = caller.namespace or named
    if namespace is None:
        return Target(client, headers, no_namespace=_error(
            f"the bootstrap admin key holds every namespace: name one in the {NAMESPACE_HEADER} header"))  # fmt: skip
    return Target(client, headers, namespace)


def _error(message: str) -> dict[str, Any]:
    return {"error": {"code": "invalid_request", "message": message, "field": NAMESPACE_HEADER}}


class McpEndpoint:
    """The ASGI app mounted at `/mcp`. Its session manager runs inside the API's lifespan
    (`running`), a new one each time the app starts (a manager runs only once)."""

    def __init__(self) -> None:
        self._manager: StreamableHTTPSessionManager | None = None

    @asynccontextmanager
    async def running(self, app: ASGIApp, version: str = "") -> AsyncIterator[None]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(
            transport=transport, base_url="http://hippograph.internal", timeout=None
        ) as client:
            server = build_server(lambda ctx: target_of(ctx, client), version)
            manager = StreamableHTTPSessionManager(app=server, stateless=True, json_response=True)
            async with manager.run():
                self._manager = manager
                try:
                    yield
                finally:
                    self._manager = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._manager is None:
            response = error_response(Request(scope), 503, "not_ready", "the MCP endpoint is starting or stopping")
            await response(scope, receive, send)
            return
        await self._manager.handle_request(scope, receive, send)
