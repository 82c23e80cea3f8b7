"""One error shape for every 4xx/5xx: {"error": {"code", "message", "field"?}, "request_id"}.

Layers of one concept (one file name): `app/errors.py` (engine errors any layer raises);
`app/memory/errors.py` (the memory operations' errors); `app/operations/errors.py` (`ApiError` and
the one error body); `app/api/errors.py` (the handlers answering every error in that shape)."""

from __future__ import annotations

import logging
import uuid
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.datastructures import Headers, MutableHeaders
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.body_limit import MAX_BODY_SIZE_SCOPE_KEY
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.errors import EngineUnavailable
from app.memory.errors import ConflictError, InputError, NotFoundError
from app.operations.errors import REQUEST_ID_HEADER, ApiError, error_response
from hippograph.responses import ErrorBody

log = logging.getLogger(__name__)

# Seconds a client is asked to wait before retrying after a 503 for an engine that is down: the
# drivers reconnect by themselves, a restarted Neo4j or Redis answers within seconds.
ENGINE_RETRY_AFTER_S = 5


# What each error status means, as OpenAPI says it (the codes are `error.code`).
ERROR_DESCRIPTIONS: dict[int, str] = {
    401: "unauthorized: missing, unknown, revoked or expired API key",
    403: "forbidden: the key has no role on this namespace, or too small a role",
    404: "not_found: the namespace, or a node or key the request names, does not exist (`error.field` says which)",
    409: "conflict: the namespace is not in the state the request needs",
    413: "body_too_large: the request body is larger than HIPPOGRAPH_MAX_BODY_BYTES (turns and import: "
    "HIPPOGRAPH_MAX_BATCH_BODY_BYTES); refused before it is read",
    422: "invalid_request (cypher: also cypher_refused, cypher_timeout, cypher_memory, cypher_error): a field is "
    "invalid; `error.field` names it",
    429: "rate_limited: the key sent more requests than its role may (HIPPOGRAPH_RATE_LIMIT_*); cypher: also "
    "cypher_busy, too many analytics queries running (HIPPOGRAPH_CYPHER_CONCURRENCY); retry after "
    "`Retry-After` seconds",
    503: "engine_unavailable: an engine is down (`engine` names it); retry after `Retry-After` seconds "
    "(POST …/turns with `wait`: also ingest_failed, the write tracks failed)",
    504: "timeout: the write tracks did not finish in time (the turns are stored; they will still be processed)",
}
RETRY_AFTER_HEADER = {
    "Retry-After": {"description": "seconds to wait before retrying", "schema": {"type": "integer"}},
}


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses=` entries for these error statuses, each in the one error shape (`ErrorBody`)."""
    return {
        status: {
            "model": ErrorBody,
            "description": ERROR_DESCRIPTIONS[status],
            **({"headers": RETRY_AFTER_HEADER} if status in (429, 503) else {}),
        }
        for status in statuses
    }


def engine_unavailable_response(request: Request, exc: EngineUnavailable) -> JSONResponse:
    """503 `engine_unavailable` naming the engine (in the message and as `"engine"`), with `Retry-After`."""
    response = error_response(request, 503, "engine_unavailable", str(exc), engine=exc.engine)
    response.headers["Retry-After"] = str(ENGINE_RETRY_AFTER_S)
    return response


def too_large_response(request: Request, limit: int | None) -> JSONResponse:
    """413 `body_too_large` naming `body` (and the limit, when known)."""
    bound = f"the limit of {limit} bytes" if limit is not None else "the limit"
    return error_response(request, 413, "body_too_large", f"body: larger than {bound}", "body")


def field_path(location: tuple[Any, ...] | list[Any]) -> str:
    # Drop the "body"/"query"/"path" prefix; keep list indexes: turns[3].text
    parts = list(location[1:]) if location and location[0] in {"body", "query", "path"} else list(location)
    path = ""
    for part in parts:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path or "body"


class RequestIds:
    """ASGI middleware: each request's id (the caller's X-Request-ID, else a new one) in
    `request.state.request_id`, for the error bodies and the log, and on the response's header. A plain
    ASGI class, not `@app.middleware("http")`: Starlette's BaseHTTPMiddleware runs the rest of the app
    in a task of its own with streams between them, which cost every request ~1 ms on 2 cores."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = Headers(scope=scope).get(REQUEST_ID_HEADER) or str(uuid.uuid4())
        scope.setdefault("state", {})["request_id"] = request_id

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                if REQUEST_ID_HEADER not in headers:  # a response may carry its own
                    headers.append(REQUEST_ID_HEADER, request_id)
            await send(message)

        await self.app(scope, receive, send_with_id)


def install_error_handlers(app: FastAPI) -> None:
    app.add_middleware(RequestIds)

    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError) -> JSONResponse:
        response = error_response(request, exc.status_code, exc.code, exc.message, exc.field, **exc.extra)
        if exc.retry_after_s is not None:
            response.headers["Retry-After"] = str(exc.retry_after_s)
        return response

    @app.exception_handler(InputError)
    async def input_error(request: Request, exc: InputError) -> JSONResponse:
        return error_response(request, 422, "invalid_request", str(exc), exc.field)

    @app.exception_handler(NotFoundError)
    async def not_found(request: Request, exc: NotFoundError) -> JSONResponse:
        return error_response(request, 404, "not_found", f"{exc.field}: {exc.message}", exc.field)

    @app.exception_handler(ConflictError)
    async def conflict(request: Request, exc: ConflictError) -> JSONResponse:
        return error_response(request, 409, "conflict", f"{exc.field}: {exc.message}", exc.field)

    @app.exception_handler(EngineUnavailable)
    async def engine_unavailable(request: Request, exc: EngineUnavailable) -> JSONResponse:
        return engine_unavailable_response(request, exc)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0]
        field = field_path(first.get("loc", ()))
        return error_response(request, 422, "invalid_request", f"{field}: {first.get('msg', 'invalid')}", field)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 413:  # Starlette's body limit (app/api/body_limit.py), counting a streamed body
            limit = request.scope.get(MAX_BODY_SIZE_SCOPE_KEY)
            return too_large_response(request, limit if isinstance(limit, int) else None)
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return error_response(request, exc.status_code, code, str(exc.detail))

    @app.exception_handler(Exception)
    async def unexpected_error(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return error_response(request, 500, "internal_error", "internal error; see the server log")
