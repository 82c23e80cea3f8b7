import gc

from fastapi.testclient import TestClient

from app.api.main import create_app
from app.runtime import Runtime
from tests.conftest import checked


def test_healthz_and_readyz_report_every_engine_ok(settings, embedder) -> None:
    runtime = Runtime.open(settings, embedder=embedder)
    try:
        with checked(TestClient(create_app(runtime=runtime))) as client:
            assert client.get("/healthz").json() == {"status": "ok"}
            response = client.get("/readyz")
            assert response.status_code == 200, response.text
            body = response.json()
            assert body["status"] == "ok"
            assert body["checks"] == {name: {"status": "ok"} for name in ("neo4j", "redis", "vectors")}
            assert response.headers["X-Request-ID"]
    finally:
        runtime.close()


def test_start_up_objects_are_kept_out_of_the_collector(settings, embedder) -> None:
    runtime = Runtime.open(settings.model_copy(update={"gc_freeze": True}), embedder=embedder)
    gc.unfreeze()
    try:
        with TestClient(create_app(runtime=runtime)):
            frozen = gc.get_freeze_count()
            # the runtime's objects (the embedder's among them) are frozen; few are left to collect
            assert frozen > 10_000 and len(gc.get_objects()) < frozen
        assert gc.get_freeze_count() == 0  # handed back at shut-down
    finally:
        runtime.close()


def test_a_host_of_several_apps_can_leave_the_collector_alone(settings, embedder) -> None:
    runtime = Runtime.open(settings.model_copy(update={"gc_freeze": False}), embedder=embedder)
    gc.unfreeze()
    try:
        with TestClient(create_app(runtime=runtime)):
            assert gc.get_freeze_count() == 0
    finally:
        runtime.close()


def test_unknown_route_uses_the_error_shape(settings, embedder) -> None:
    runtime = Runtime.open(settings, embedder=embedder)
    try:
        with checked(TestClient(create_app(runtime=runtime))) as client:
            response = client.get("/nope", headers={"X-Request-ID": "req-123"})
            assert response.status_code == 404
            assert response.json() == {
                "error": {"code": "not_found", "message": "Not Found"},
                "request_id": "req-123",
            }
    finally:
        runtime.close()


def test_readyz_names_redis_when_it_is_unreachable(settings, embedder, unused_port) -> None:
    broken = settings.model_copy(update={"redis_url": f"redis://127.0.0.1:{unused_port}/0"})
    runtime = Runtime.open(broken, embedder=embedder)
    try:
        with checked(TestClient(create_app(runtime=runtime))) as client:
            response = client.get("/readyz")
            assert response.status_code == 503
            body = response.json()
            assert body["error"]["code"] == "not_ready"
            assert body["error"]["message"].startswith("redis down:")
            assert body["checks"]["redis"]["status"] == "down" and body["checks"]["redis"]["reason"]
            assert body["checks"]["neo4j"] == {"status": "ok"}
    finally:
        runtime.close()
