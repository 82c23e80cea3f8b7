"""The Redis store: hot window, counters, locks and the Celery broker share one server.

Every key of a namespace starts with `hg:{<namespace>}:` (the braces make it one Redis Cluster hash
slot), so erasing a namespace's hot state is one prefix scan.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import redis

from app.settings import Settings


def connect_redis(settings: Settings) -> redis.Redis:
    return redis.Redis.from_url(
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
