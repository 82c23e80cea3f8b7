"""The one API error (`ApiError`: raised by route bodies and tools, answered in the standard error
body by app/api/errors.py's handlers) and that body (`error_response`, also MCP's).

Layers of one concept (one file name): `app/errors.py` (engine errors any layer raises);
`app/memory/errors.py` (the memory operations' errors); `app/operations/errors.py` (`ApiError` and
the one error body); `app/api/errors.py` (the handlers answering every error in that shape)."""

from __future__ import annotations

import uuid
from typing import Any

from fastapi.responses import JSONResponse
from starlette.requests import Request

REQUEST_ID_HEADER = "X-Request-ID"


class ApiError(Exception):
    """Raise from a route to answer with the standard error body."""

    def __init__(
        self,
        status_code: int,
        code: str,
        message: str,
        field: str | None = None,
        retry_after_s: int | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(message)
        self.status_code, self.code, self.message, self.field, self.extra = (
            status_code,
            code,
            message,
            field,
            extra,
        )
        self.retry_after_s = retry_after_s  # sent as `Retry-After` (429, 503)


def request_id(request: Request) -> str:
    return getattr(request.state, "request_id", None) or str(uuid.uuid4())


def error_response(
    request: Request, status_code: int, code: str, message: str, field: str | None = None, **extra: Any
) -> JSONResponse:
    error: dict[str, Any] = {"code": code, "message": message}
    if field is not None:
        error["field"] = field
    rid = request_id(request)
    return JSONResponse(
        {"error": error, "request_id": rid, **extra},
        status_code=status_code,
        headers={REQUEST_ID_HEADER: rid},
    )
