"""The provisioning scripts themselves, on real processes: Neo4j survives a restart with its data
(reusing the cached jars) and the API's readiness follows it down and back up without a restart."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import redis
from fastapi.testclient import TestClient
from redis.backoff import NoBackoff
from redis.retry import Retry

from app.api.main import create_app
from app.runtime import Runtime
from app.stores.graph import GraphStore
from tests.conftest import REPO, admin_headers, make_settings, run_script


def _readyz_until(client: TestClient, status: int, deadline_s: float = 30) -> dict:
    end = time.monotonic() + deadline_s
    while True:
        response = client.get("/readyz")
        if response.status_code == status or time.monotonic() > end:
            assert response.status_code == status, response.text
            return response.json()
        time.sleep(0.5)


def test_neo4j_restart_keeps_data_and_readiness_recovers(services, tmp_path: Path, embedder, unused_port) -> None:
    home = tmp_path / "neo4j"
    port = str(unused_port)
    script = ("--port", port, "--home", str(home), "--heap", "512m", "--pagecache", "64m")
    settings = make_settings(services, tmp_path, NEO4J_URI=f"bolt://127.0.0.1:{port}", NEO4J_PASSWORD="")
    runtime = Runtime.open(settings, embedder=embedder)
    marker = uuid.uuid4().hex
    try:
        with TestClient(create_app(runtime=runtime), headers=admin_headers()) as client:
            down = _readyz_until(client, 503)
            assert down["checks"]["neo4j"]["status"] == "down"
            assert down["error"]["message"].startswith("neo4j down:")
            assert down["checks"]["redis"] == {"status": "ok"}

            started = run_script("neo4j_local.py", "start", *script)
            assert f"Neo4j ready on bolt://127.0.0.1:{port} (Neo4j Kernel 5.26." in started
            _readyz_until(client, 200)
            # Test-only Cypher that writes a marker; the product's queries live in cypher/.
            runtime.graph.driver.execute_query("CREATE (:RestartMarker {id: $id})", {"id": marker})

            assert run_script("neo4j_local.py", "stop", *script) == "Neo4j stopped"
            assert _readyz_until(client, 503)["checks"]["neo4j"]["status"] == "down"

            restarted = run_script("neo4j_local.py", "start", *script)
            assert "fetching" not in restarted  # the cached jars are reused
            _readyz_until(client, 200)
            records, _, _ = runtime.graph.driver.execute_query(
                "MATCH (m:RestartMarker {id: $id}) RETURN count(m) AS n", {"id": marker}
            )
            assert records[0]["n"] == 1
            assert run_script("neo4j_local.py", "version", *script).startswith("Neo4j Kernel 5.26.")
    finally:
        runtime.close()
        subprocess.run([sys.executable, str(REPO / "scripts" / "neo4j_local.py"), "stop", *script], cwd=REPO)
    status = subprocess.run([sys.executable, str(REPO / "scripts" / "neo4j_local.py"), "status", *script],
                            capture_output=True, text=True, cwd=REPO)  # fmt: skip
    assert status.returncode == 1 and "not running" in status.stdout
    # A test engine stays small on disk (the suite starts one per worker and per drill): no 256 MiB
    # preallocated transaction log per database.
    assert _size_mib(home) < 64, sorted((path.stat().st_size, str(path)) for path in home.rglob("*"))[-3:]


def _size_mib(folder: Path) -> float:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file()) / 1024**2


def test_neo4j_script_without_java_fails_clearly(tmp_path: Path, unused_port) -> None:
    env = {**os.environ, "JAVA_HOME": str(tmp_path / "no-java")}
    result = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "neo4j_local.py"), "start", "--port", str(unused_port),
         "--home", str(tmp_path / "home")],
        capture_output=True, text=True, env=env, cwd=REPO,
    )  # fmt: skip
    assert result.returncode == 2
    assert "Java 17 or 21 is required" in result.stderr


def test_redis_script_starts_reports_and_keeps_data(tmp_path: Path, unused_port) -> None:
    args = ("--port", str(unused_port), "--dir", str(tmp_path / "redis"))
    assert "Redis ready" in run_script("redis_local.py", "start", *args)
    try:
        client = redis.Redis(port=unused_port)
        client.set("persisted", "yes")
        client.close()
        assert run_script("redis_local.py", "stop", *args) == "Redis stopped"
        run_script("redis_local.py", "start", *args)
        assert redis.Redis(port=unused_port).get("persisted") == b"yes"
        assert run_script("redis_local.py", "version", *args).startswith("Redis 7.")
    finally:
        run_script("redis_local.py", "stop", *args)


def test_redis_is_ready_only_once_its_append_only_file_is_loaded(tmp_path: Path, unused_port) -> None:
    """Finding (scripts/load.py after a long run): `start` said ready when the port opened, while
    Redis was still loading a large append-only file and answered every command with LOADING."""
    args = ("--port", str(unused_port), "--dir", str(tmp_path / "redis"))
    keys = 5_000_000  # loads for seconds
    run_script("redis_local.py", "start", *args)
    try:
        client = redis.Redis(port=unused_port)
        for start in range(0, keys, 50_000):
            client.mset({f"key:{i}": i for i in range(start, start + 50_000)})
        deadline = time.monotonic() + 120
        while client.info("persistence")["aof_rewrite_in_progress"] and time.monotonic() < deadline:
            time.sleep(0.1)  # Redis may have begun a rewrite of its own as the file grew
        client.close()
        run_script("redis_local.py", "stop", *args)
        run_script("redis_local.py", "start", *args)
        # The first command after "ready" is served (no retries: redis-py retries a LOADING answer).
        assert redis.Redis(port=unused_port, retry=Retry(NoBackoff(), 0)).dbsize() == keys
    finally:
        run_script("redis_local.py", "stop", *args)


def test_graph_store_reports_the_server_it_talks_to(settings) -> None:
    store = GraphStore.connect(settings)
    try:
        assert "5.26" in store.server_version()
    finally:
        store.close()
