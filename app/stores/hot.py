"""The Redis store: hot window, counters, locks and the Celery broker share one server.

Every key of a namespace starts with `hg:{<namespace>}:` (the braces make it one Redis Cluster hash
slot), so erasing a namespace's hot state is one prefix scan.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import redis
import redis.client

from app.errors import EngineUnavailable
from app.settings import Settings

# A server that does not answer, drops the connection, times out or is still loading its data
# (BusyLoadingError is a ConnectionError); a command error (ResponseError) is not one of them.
UNAVAILABLE_ERRORS = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)


class HotPipeline(redis.client.Pipeline):
    """A pipeline whose round trips raise `EngineUnavailable("redis")` when Redis is down. Queued
    commands do no I/O; `execute` (and a WATCH, run at once) does."""

    def execute(self, raise_on_error: bool = True) -> list[Any]:
        try:
            return super().execute(raise_on_error)
        except UNAVAILABLE_ERRORS as exc:
            raise EngineUnavailable.wrapping("redis", exc) from exc

    def immediate_execute_command(self, *args: Any, **options: Any) -> Any:
        try:
            return super().immediate_execute_command(*args, **options)
        except UNAVAILABLE_ERRORS as exc:
            raise EngineUnavailable.wrapping("redis", exc) from exc


class HotRedis(redis.Redis):
    """A Redis client whose commands and pipelines raise `EngineUnavailable("redis")` when Redis is down
    (503, a Celery retry), after redis-py's own retries. Every command, the scripts and `scan_iter`
    included, goes through `execute_command`."""

    def execute_command(self, *args: Any, **options: Any) -> Any:
        try:
            return super().execute_command(*args, **options)
        except UNAVAILABLE_ERRORS as exc:
            raise EngineUnavailable.wrapping("redis", exc) from exc

    def pipeline(self, transaction: bool = True, shard_hint: Any = None) -> HotPipeline:
        return HotPipeline(self.connection_pool, self.response_callbacks, transaction, shard_hint)


def connect_redis(settings: Settings) -> redis.Redis:
    return HotRedis.from_url(
        settings.redis_url,
        decode_responses=True,
        socket_connect_timeout=settings.readiness_timeout_s,
        socket_timeout=max(5.0, settings.readiness_timeout_s),
        health_check_interval=30,
    )


def namespace_key(namespace: str, *parts: str) -> str:
    return ":".join(("hg", f"{{{namespace}}}", *parts))


def delete_namespace_keys(client: redis.Redis, namespace: str) -> int:
    deleted = 0
    batch: list[str] = []
    for key in client.scan_iter(match=namespace_key(namespace, "*"), count=1000):
        batch.append(key)
        if len(batch) >= 1000:
            deleted += int(client.delete(*batch))
            batch.clear()
    if batch:
        deleted += int(client.delete(*batch))
    return deleted


_RELEASE_IF_OWNER = """
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0
"""


@contextmanager
def single_flight(client: redis.Redis, name: str, ttl_s: int) -> Iterator[bool]:
    """A Redis lock so a job runs once at a time across processes; yields whether it was acquired.
    The TTL frees the lock if its holder dies."""
    key = f"hg:lock:{name}"
    token = uuid.uuid4().hex
    acquired = bool(client.set(key, token, nx=True, ex=ttl_s))
    try:
        yield acquired
    finally:
        if acquired:
            client.eval(_RELEASE_IF_OWNER, 1, key, token)
