"""When to retry a call and how long to wait: pure, shared by the sync and async clients."""

from __future__ import annotations

from dataclasses import dataclass

from hippograph.errors import ConnectionFailed, HippographError, RateLimited, Unavailable


@dataclass(frozen=True)
class RetryPolicy:
    """Idempotent calls answered 503 (or that could not connect), and any call answered 429 (refused
    before anything was done), are sent again up to `max_retries` times. The n-th retry (n = 0, 1,
    ...) waits `backoff_base * 2**n` seconds, at most `backoff_max`, and never less than the
    answer's `Retry-After`; no single wait exceeds `max_wait`."""

    max_retries: int = 3
    backoff_base: float = 0.5
    backoff_max: float = 8.0
    max_wait: float = 30.0

    def delay(self, retry: int, retry_after: float | None = None) -> float:
        backoff = min(self.backoff_max, self.backoff_base * 2**retry)
        if retry_after is not None:
            backoff = max(backoff, retry_after)
        return min(backoff, self.max_wait)

    def should_retry(self, error: HippographError, retry: int, idempotent: bool) -> bool:
        if retry >= self.max_retries:
            return False
        return isinstance(error, RateLimited) or (idempotent and isinstance(error, Unavailable | ConnectionFailed))


NO_RETRY = RetryPolicy(max_retries=0)
