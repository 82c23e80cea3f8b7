"""Fault drill on real engines: Neo4j stopped mid-load and started again; every acknowledged turn
lands exactly once, and nothing is restarted (not the API, not the worker).

The drill runs on a PRIVATE Neo4j (tests/test_engine_outage.py's `private_neo4j`: never the shared
test engines), the suite's Redis and its own Celery queue, with the embedded worker and beat. The
ingest retry window is cut to 0, so a task gives up at its first outage error (as it would after 15
minutes of a longer outage): those turns come back only through the `resume_pending` beat job.
It takes a few minutes (two Neo4j starts, and beat's first `resume_pending` run after 60 s).
"""

from __future__ import annotations

import secrets
import threading
import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from app.api.main import create_app
from app.runtime import Runtime
from jobs.embedded import EmbeddedJobs
from tests.conftest import Services, admin_headers, assert_each_turn_once, make_settings
from tests.test_engine_outage import PrivateNeo4j, private_neo4j  # noqa: F401  (the fixture)

BATCH = 10
DRAIN_DEADLINE_S = 300.0


def _batch(n: int) -> list[dict[str, Any]]:
    return [{"session_id": f"s{n % 3}", "turn_id": f"b{n}:{i}", "speaker": "Alice",
             "text": f"Batch {n} note {i}: I moved to city {n * BATCH + i}.",
             "timestamp": f"2024-05-{1 + n % 28:02d}T10:{i:02d}:00+00:00"} for i in range(BATCH)]  # fmt: skip


def test_neo4j_stopped_mid_load_loses_and_duplicates_nothing_without_a_restart(
    services: Services, private_neo4j: PrivateNeo4j, tmp_path: Path, embedder, celery_configured, namespace: str  # noqa: F811
) -> None:
    found = Services(private_neo4j.uri, private_neo4j.user, private_neo4j.password, services.redis_url,
                     services.qdrant_url)  # fmt: skip
    settings = make_settings(found, tmp_path / "data", HIPPOGRAPH_ADMIN_KEY=secrets.token_urlsafe(24),
                             HIPPOGRAPH_INGEST_RETRY_WINDOW="0")  # fmt: skip
    runtime = Runtime.open(settings, host_jobs=False, embedder=embedder)
    jobs = EmbeddedJobs(runtime, resume_pending=False)  # only the beat job may bring turns back
    jobs.start()
    acknowledged: list[str] = []
    batches: list[str] = []
    refused: list[int] = []
    unexpected: list[str] = []
    stop_posting = threading.Event()
    headers = admin_headers(settings.admin_key.get_secret_value())
    try:
        with TestClient(create_app(runtime=runtime), headers=headers) as api:
            assert api.put(f"/v1/namespaces/{namespace}").status_code == 201

            def post_batches() -> None:
                n = 0
                while not stop_posting.is_set():
                    answer = api.post(f"/v1/namespaces/{namespace}/turns", json={"turns": _batch(n)})
                    if answer.status_code == 202:
                        acknowledged.extend(turn["node_id"] for turn in answer.json()["turns"])
                        batches.append(answer.json()["status_url"])
                    elif answer.status_code == 503:
                        refused.append(n)
                    else:  # never a 500
                        unexpected.append(f"{answer.status_code} {answer.text[:300]}")
                    n += 1
                    time.sleep(0.2)

            poster = threading.Thread(target=post_batches, name="drill-poster", daemon=True)
            poster.start()
            deadline = time.monotonic() + 60
            while len(acknowledged) < 5 * BATCH and time.monotonic() < deadline:
                time.sleep(0.1)
            private_neo4j.stop()
            time.sleep(10)  # the tasks of the batches in flight give up
            private_neo4j.start()
            time.sleep(3)
            stop_posting.set()
            poster.join(timeout=60)
            assert refused, "no request met the outage"
            assert unexpected == []

            pending = runtime.hot_window.pending_keys
            deadline = time.monotonic() + DRAIN_DEADLINE_S
            while pending(namespace) and time.monotonic() < deadline:
                time.sleep(1)
            assert pending(namespace) == [], f"{len(pending(namespace))} turns still pending"
            statuses = [api.get(url).json()["status"] for url in batches]
            # Some tasks gave up during the outage: their turns came back through resume_pending.
            assert "failed" in statuses and set(statuses) <= {"done", "failed"}, statuses

        assert_each_turn_once(runtime.graph.driver, namespace, acknowledged)
        assert runtime.dead_letters.list(namespace) == []  # an outage is never a dead letter
    finally:
        stop_posting.set()
        jobs.stop()
        runtime.close()
