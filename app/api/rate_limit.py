"""Requests per API key, limited by the key's role (HIPPOGRAPH_RATE_LIMIT_READER / _WRITER / _ADMIN,
e.g. "600/minute"; empty: no limit). Moving-window counters live in Redis (the `limits` library),
so every API process shares them. Over the limit: 429 `rate_limited` in the one error shape, with
`Retry-After`. The bootstrap admin key is not limited (the operator's key; the tests share it).

If Redis cannot count, the request goes through (logged), and the limiter rests for
`PAUSE_AFTER_ERROR_S` so that a Redis outage does not add a connection timeout to every request:
limits protect the service, they must not take it down with Redis."""

from __future__ import annotations

import logging
import math
import time

from limits import RateLimitItem, parse
from limits.errors import StorageError
from limits.storage import RedisStorage
from limits.strategies import MovingWindowRateLimiter
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from app.domain.keys import Caller, Role
from app.operations.errors import error_response
from app.settings import Settings

log = logging.getLogger(__name__)
PAUSE_AFTER_ERROR_S = 5.0
KEY_PREFIX = "hg:ratelimit"


def role_limits(settings: Settings) -> dict[Role, RateLimitItem]:
    """The limit of each role that has one."""
    texts = {
        Role.READER: settings.rate_limit_reader,
        Role.WRITER: settings.rate_limit_writer,
        Role.ADMIN: settings.rate_limit_admin,
    }
    return {role: parse(text) for role, text in texts.items() if text.strip()}


class RateLimits:
    def __init__(self, app: ASGIApp, limits: dict[Role, RateLimitItem]) -> None:
        self.app = app
        self.limits = limits
        self._limiter: MovingWindowRateLimiter | None = None
        self._paused_until = 0.0

    def _limiter_of(self, scope: Scope) -> MovingWindowRateLimiter:
        """Counting in the runtime's Redis (its connection pool), made at the first limited request."""
        if self._limiter is None:
            runtime = scope["app"].state.runtime
            storage = RedisStorage(runtime.settings.redis_url, connection_pool=runtime.redis.connection_pool,
                                   key_prefix=KEY_PREFIX, wrap_exceptions=True)  # fmt: skip
            self._limiter = MovingWindowRateLimiter(storage)
        return self._limiter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        caller: Caller | None = scope.get("state", {}).get("caller") if scope["type"] == "http" else None
        limit = self.limits.get(caller.role) if caller is not None and not caller.is_bootstrap else None
        if caller is not None and limit is not None and time.monotonic() >= self._paused_until:
            limiter = self._limiter_of(scope)
            retry_after = await run_in_threadpool(self._retry_after, limiter, limit, caller.key_id)
            if retry_after is not None:
                message = f"this key may send {limit} requests (role {caller.role.value}); retry after {retry_after} s"
                response = error_response(Request(scope), 429, "rate_limited", message)
                response.headers["Retry-After"] = str(retry_after)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def _retry_after(self, limiter: MovingWindowRateLimiter, limit: RateLimitItem, key_id: str) -> int | None:
        """None: the request is counted and may go on; else the seconds until the window has room."""
        try:
            if limiter.hit(limit, key_id):
                return None
            reset = limiter.get_window_stats(limit, key_id).reset_time
        except StorageError as exc:
            log.warning("rate limits not counted for %.0f s: %s", PAUSE_AFTER_ERROR_S, exc)
            self._paused_until = time.monotonic() + PAUSE_AFTER_ERROR_S
            return None
        return max(1, math.ceil(reset - time.time()))
