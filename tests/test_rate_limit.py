"""Requests per API key are limited by the key's role, counted in Redis (issue 20): over the limit a
key gets 429 in the one error shape with Retry-After; other keys and the bootstrap key go on."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from limits import parse

from app.api.rate_limit import role_limits
from app.domain.keys import Role
from tests.conftest import admin_headers, bearer, checked, make_settings


def test_role_limits_read_the_settings(services: Any, tmp_path: Any) -> None:
    settings = make_settings(services, tmp_path, HIPPOGRAPH_RATE_LIMIT_READER="3/minute",
                             HIPPOGRAPH_RATE_LIMIT_WRITER="10 per second", HIPPOGRAPH_RATE_LIMIT_ADMIN=" ")  # fmt: skip
    assert role_limits(settings) == {Role.READER: parse("3/minute"), Role.WRITER: parse("10/second")}


def test_an_unreadable_limit_is_refused_at_start(services: Any, tmp_path: Any) -> None:
    with pytest.raises(ValueError, match="HIPPOGRAPH_RATE_LIMIT_READER"):
        make_settings(services, tmp_path, HIPPOGRAPH_RATE_LIMIT_READER="three a minute")


@pytest.fixture
def limited_api(services: Any, runtime: Any, tmp_path: Any) -> Iterator[Any]:
    """The API with 3 requests a minute for readers."""
    from fastapi.testclient import TestClient

    from app.api.main import create_app

    settings = make_settings(services, tmp_path, HIPPOGRAPH_RATE_LIMIT_READER="3/minute")
    with checked(TestClient(create_app(settings, runtime=runtime), headers=admin_headers())) as client:
        yield client


def new_key(api: Any, namespace: str, role: str) -> dict[str, str]:
    answer = api.post("/v1/keys", json={"namespace": namespace, "role": role, "agent_id": f"{role}-agent"})
    assert answer.status_code == 201, answer.text
    return bearer(answer.json()["key"])


def test_a_key_over_its_roles_limit_gets_429_and_others_go_on(limited_api: Any, namespace: str) -> None:
    api = limited_api
    assert api.put(f"/v1/namespaces/{namespace}").status_code == 201
    reader, other_reader, writer = (new_key(api, namespace, role) for role in ("reader", "reader", "writer"))
    url = f"/v1/namespaces/{namespace}"
    assert [api.get(url, headers=reader).status_code for _ in range(3)] == [200, 200, 200]
    refused = api.get(url, headers=reader)
    assert refused.status_code == 429, refused.text
    assert refused.json()["error"]["code"] == "rate_limited"
    assert "3 per 1 minute" in refused.json()["error"]["message"]
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert refused.headers["X-Request-ID"] == refused.json()["request_id"]
    assert api.get(url, headers=other_reader).status_code == 200  # counted per key
    assert [api.get(url, headers=writer).status_code for _ in range(5)] == [200] * 5  # the writer role: 600/minute
    assert [api.get(url).status_code for _ in range(5)] == [200] * 5  # the bootstrap key: not limited


def test_when_redis_cannot_count_requests_go_through_and_the_limiter_rests(unused_port: int) -> None:
    import time

    from limits.storage import RedisStorage
    from limits.strategies import MovingWindowRateLimiter

    from app.api.rate_limit import PAUSE_AFTER_ERROR_S, RateLimits

    middleware = RateLimits(app=None, limits={Role.READER: parse("1/minute")})  # type: ignore[arg-type]
    nobody = RedisStorage(f"redis://127.0.0.1:{unused_port}/0", wrap_exceptions=True, socket_connect_timeout=1)
    before = time.monotonic()
    assert middleware._retry_after(MovingWindowRateLimiter(nobody), parse("1/minute"), "k1") is None
    assert middleware._paused_until >= before + PAUSE_AFTER_ERROR_S
