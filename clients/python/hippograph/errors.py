"""One exception class per error code of the API, under `HippographError`.

The service answers every error as `{"error": {"code", "message", "field"?}, "request_id"}`
(app/api/errors.py); `error_from_response` turns that into the class of its code, or of its status
when the code is one this client does not know.
"""

from __future__ import annotations

import json
from typing import Any

import httpx


class HippographError(Exception):
    """An error answered by the service (or, with `status` None, no answer at all)."""

    status: int | None = None
    code: str = "error"

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str | None = None,
        field: str | None = None,
        request_id: str | None = None,
        body: dict[str, Any] | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status
        if code is not None:
            self.code = code
        self.field = field
        self.request_id = request_id
        self.body = body or {}
        self.retry_after = retry_after

    def __str__(self) -> str:
        where = f" ({self.status} {self.code})" if self.status is not None else f" ({self.code})"
        return f"{self.message}{where}"


class ConnectionFailed(HippographError):
    """The service could not be reached (refused, DNS, timeout before an answer)."""

    code = "connection_failed"


class BadRequest(HippographError):
    status, code = 400, "bad_request"


class Unauthorized(HippographError):
    """Missing, unknown, revoked or expired API key."""

    status, code = 401, "unauthorized"


class Forbidden(HippographError):
    """The key has no role on the namespace, or too small a role."""

    status, code = 403, "forbidden"


class NotFound(HippographError):
    status, code = 404, "not_found"


class MethodNotAllowed(HippographError):
    status, code = 405, "method_not_allowed"


class Conflict(HippographError):
    status, code = 409, "conflict"


class InvalidRequest(HippographError):
    """The request was refused as invalid; `field` names what was wrong."""

    status, code = 422, "invalid_request"


class CypherRefused(InvalidRequest):
    """The Cypher guard refused the query (a write, or a read not tied to the namespace)."""

    code = "cypher_refused"


class CypherTimeout(InvalidRequest):
    code = "cypher_timeout"


class CypherError(InvalidRequest):
    """Neo4j refused the query (syntax, types)."""

    code = "cypher_error"


class RateLimited(HippographError):
    """429: the key sent more requests than its role may; nothing was done, so any call may be sent
    again after `retry_after` (the client does so by itself first)."""

    status, code = 429, "rate_limited"


class CypherBusy(RateLimited):
    """Too many analytics queries are running; retry after `retry_after`."""

    code = "cypher_busy"


class InternalError(HippographError):
    status, code = 500, "internal_error"


class Unavailable(HippographError):
    """503: try again later (the client retries idempotent calls by itself first)."""

    status, code = 503, "unavailable"


class EngineUnavailable(Unavailable):
    """An engine (neo4j, redis, vectors) is down; `engine` names it."""

    code = "engine_unavailable"

    @property
    def engine(self) -> str | None:
        value = self.body.get("engine")
        return str(value) if value is not None else None


class NotReady(Unavailable):
    code = "not_ready"


class IngestFailed(Unavailable):
    """The write tracks of a batch sent with `wait` failed."""

    code = "ingest_failed"


class Timeout(HippographError):
    """504: the service gave up waiting (e.g. for the write tracks of a batch sent with `wait`)."""

    status, code = 504, "timeout"


BY_CODE: dict[str, type[HippographError]] = {
    cls.code: cls
    for cls in (
        BadRequest, Unauthorized, Forbidden, NotFound, MethodNotAllowed, Conflict, InvalidRequest, CypherRefused,
        CypherTimeout, CypherError, RateLimited, CypherBusy, InternalError, EngineUnavailable, NotReady, IngestFailed,
        Timeout,
    )
}  # fmt: skip
BY_STATUS: dict[int, type[HippographError]] = {
    400: BadRequest, 401: Unauthorized, 403: Forbidden, 404: NotFound, 405: MethodNotAllowed, 409: Conflict,
    422: InvalidRequest, 429: RateLimited, 500: InternalError, 503: Unavailable, 504: Timeout,
}  # fmt: skip


def parse_retry_after(value: str | None) -> float | None:
    """Seconds of a `Retry-After` header (delta-seconds; an HTTP date counts from now)."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    from datetime import UTC, datetime
    from email.utils import parsedate_to_datetime

    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def error_from_response(response: httpx.Response) -> HippographError:
    try:
        body = response.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        body = None
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):  # not the service's shape (a proxy's page, say)
        error = {"code": None, "message": response.text[:300] or response.reason_phrase}
    code = error.get("code")
    cls = BY_CODE.get(str(code)) or BY_STATUS.get(response.status_code) or HippographError
    return cls(
        str(error.get("message") or response.reason_phrase),
        status=response.status_code,
        code=str(code) if code else None,
        field=error.get("field"),
        request_id=(body.get("request_id") if isinstance(body, dict) else None)
        or response.headers.get("X-Request-ID"),
        body=body if isinstance(body, dict) else None,
        retry_after=parse_retry_after(response.headers.get("Retry-After")),
    )
