"""The Redis store: hot window, counters, locks and the Celery broker share one server."""

from __future__ import annotations

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
