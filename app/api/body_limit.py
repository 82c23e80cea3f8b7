"""Request bodies larger than the limit are refused with 413 before they are read or parsed.

`HIPPOGRAPH_MAX_BODY_BYTES` holds for every request; `HIPPOGRAPH_MAX_BATCH_BODY_BYTES` for the two
routes that carry batches (POST …/turns, POST …/import). A `Content-Length` above the limit is
answered at once, without reading a byte; a body streamed without one (chunked) is counted as it
arrives by Starlette's `RequestBodyLimitMiddleware`, whose 413 the error handlers answer in the one
error shape (`body_too_large`, naming `body`; app/api/errors.py).
"""

from __future__ import annotations

import re

from starlette.datastructures import Headers
from starlette.middleware.body_limit import RequestBodyLimitMiddleware
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from app.api.errors import too_large_response

BATCH_ROUTES = re.compile(r"/v1/namespaces/[^/]+/(?:turns|import)")


class BodyLimits:
    def __init__(self, app: ASGIApp, max_body_bytes: int, max_batch_body_bytes: int) -> None:
        self.default = (max_body_bytes, RequestBodyLimitMiddleware(app, max_body_bytes))
        self.batch = (max_batch_body_bytes, RequestBodyLimitMiddleware(app, max_batch_body_bytes))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        is_batch = scope["type"] == "http" and scope["method"] == "POST" and BATCH_ROUTES.fullmatch(scope["path"])
        limit, limited = self.batch if is_batch else self.default
        if scope["type"] == "http":
            length = Headers(scope=scope).get("content-length", "")
            if length.isdigit() and int(length) > limit:
                await too_large_response(Request(scope), limit)(scope, receive, send)
                return
        await limited(scope, receive, send)
