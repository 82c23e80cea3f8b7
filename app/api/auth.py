"""Authentication of every `/v1` request, before its body is read: `Authorization: Bearer <key>`.

A pure ASGI middleware (no per-request task or body buffering): it answers 401 for a missing or
unknown key and 503 when the key store cannot be reached, and puts the `Caller` on the request's
state. What the caller may do on which namespace is decided per route (`app/api/access.py`).
Health probes, `/metrics`, OpenAPI and the docs stay open.
"""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from app.api.errors import engine_unavailable_response
from app.errors import EngineUnavailable
from app.operations.errors import error_response

PROTECTED_PREFIXES = ("/v1/", "/mcp")


def is_protected(path: str) -> bool:
    return path == "/v1" or path.startswith(PROTECTED_PREFIXES)


def bearer_key(authorization: str | None) -> str | None:
    """The key of an `Authorization: Bearer <key>` header (scheme case-insensitive), else None."""
    if not authorization:
        return None
    scheme, _, key = authorization.strip().partition(" ")
    key = key.strip()
    return key if scheme.lower() == "bearer" and key else None


class BearerAuthentication:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not is_protected(scope["path"]):
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        key = bearer_key(Headers(scope=scope).get("authorization"))
        if key is None:
            await _refuse(request, "missing API key: send 'Authorization: Bearer <key>'")(scope, receive, send)
            return
        keys = request.app.state.runtime.keys
        try:
            caller = keys.cached(key) or await run_in_threadpool(keys.look_up, key)
        except EngineUnavailable as exc:
            await engine_unavailable_response(request, exc)(scope, receive, send)
            return
        if caller is None:
            await _refuse(request, "unknown, revoked or expired API key")(scope, receive, send)
            return
        scope.setdefault("state", {})["caller"] = caller
        await self.app(scope, receive, send)


def _refuse(request: Request, message: str):  # type: ignore[no-untyped-def]
    response = error_response(request, 401, "unauthorized", message)
    response.headers["WWW-Authenticate"] = 'Bearer realm="hippograph"'
    return response
