"""Per request: the request metrics and one access-log line, from a pure ASGI middleware (no
per-request task or body buffering, unlike BaseHTTPMiddleware, so recall latency pays almost nothing).

Routes are named by their template (`/v1/namespaces/{ns}/recall`), never the concrete path: the
path holds namespace names and node ids, and would make a time series per node. The template is the
route the router matched (`scope["route"]`); a request answered before routing (401 from
`app/api/auth.py`) is matched here against the app's routes, and a path no route has is `unmatched`.
The request id is the one `app/api/errors.py` assigned (`request.state.request_id`, also the
`X-Request-ID` header and the error bodies' `request_id`); the agent is the `Caller` that
`app/api/auth.py` put on the request's state.

A client that goes away before its request was read whole (Starlette raises `ClientDisconnect`
where the body is read) is no server error: it is counted and logged with nginx's 499 ("client
closed request"), and nothing is answered, there being no one to answer.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Any

from starlette.requests import ClientDisconnect
from starlette.routing import BaseRoute, Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.observability.metrics import UNMATCHED, Metrics

access_log = logging.getLogger("hippograph.access")
CLIENT_CLOSED_REQUEST = 499


class RequestObservation:
    """ASGI middleware: counts and times each HTTP request, then logs it (one line)."""

    def __init__(self, app: ASGIApp, routes: Sequence[BaseRoute] = ()) -> None:
        self.app = app
        self.routes = list(routes)  # for requests answered before routing only

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500  # unless a response starts: an exception escaping the app is answered with 500

        async def send_and_note_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_and_note_status)
        except ClientDisconnect:
            status = CLIENT_CLOSED_REQUEST  # not re-raised: the server logs it as an error otherwise
        finally:
            self._observe(scope, status, time.perf_counter() - start)

    def _observe(self, scope: Scope, status: int, seconds: float) -> None:
        route, path_params = self._route(scope)
        method: str = scope["method"]
        metrics: Metrics | None = getattr(getattr(scope["app"].state, "runtime", None), "metrics", None)
        if metrics is not None:
            metrics.observe_request(method, route, status, seconds)
        if access_log.isEnabledFor(logging.INFO):
            state: dict[str, Any] = scope.get("state") or {}
            caller = state.get("caller")
            access_log.info(
                "%s %s %d",
                method,
                route,
                status,
                extra={
                    "request_id": state.get("request_id"),
                    "route": route,
                    "method": method,
                    "status": status,
                    "duration_ms": round(seconds * 1000, 2),
                    "namespace": path_params.get("ns"),
                    "agent_id": getattr(caller, "agent_id", None),
                },
            )

    def _route(self, scope: Scope) -> tuple[str, dict[str, Any]]:
        """The matched route's template and path parameters."""
        route = scope.get("route")
        if route is not None:
            return str(getattr(route, "path", UNMATCHED)), scope.get("path_params") or {}
        partial: tuple[str, dict[str, Any]] | None = None
        for candidate in self.routes:
            match, child = candidate.matches(scope)
            found = (str(getattr(candidate, "path", UNMATCHED)), child.get("path_params") or {})
            if match is Match.FULL:
                return found
            if match is Match.PARTIAL and partial is None:
                partial = found
        return partial or (UNMATCHED, {})
