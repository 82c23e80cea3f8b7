"""A worker process killed mid-batch loses and duplicates nothing (real engines, a real Celery worker).

The turns are posted through the API of this process; a separate `celery worker` process (its own
embedded vector folder, the same Neo4j and Redis) runs the ingest task and is killed with SIGKILL
once the task has committed its first stage. A second worker then receives the unacknowledged task
again (late acks; the visibility timeout is set to a few seconds here) and completes it. The result
must equal an uninterrupted ingest of the same turns: the same nodes and relationships by type, each
exactly once, and the same number of vectors.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from app.domain.turns import Turn
from app.errors import EngineUnavailable
from app.memory.ingest import SequencedTurn
from app.stores.vectors.factory import open_vector_store

REPO = Path(__file__).resolve().parents[1]
VISIBILITY_TIMEOUT_S = 3

TEMPLATES = [
    "My car is a {car}.",
    "I went to {city} last Friday.",
    "I moved to {city}.",
    "Thanks, that sounds good!",
    "The {topic} meeting went fine, we agreed to ship next Wednesday.",
    "我的车是{zcar}。",
    "上周五我去了{zcity}。",
]
CARS, CITIES, TOPICS = ["Model Y", "Civic", "Golf"], ["Berlin", "Munich", "Paris", "Lisbon"], ["Apollo", "Zeus"]
ZCITIES = ["北京", "上海", "成都"]


def _turns(sessions: int = 6, per_session: int = 40) -> list[dict]:
    start = datetime(2024, 5, 1, 9, tzinfo=UTC)
    turns = []
    for s in range(sessions):
        for i in range(per_session):
            n = s * per_session + i
            text = TEMPLATES[n % len(TEMPLATES)].format(
                car=CARS[n % 3], city=CITIES[n % 4], topic=TOPICS[n % 2], zcar=CARS[(n + 1) % 3], zcity=ZCITIES[n % 3]
            )
            # No two texts alike: identical vectors tie in the SEMANTIC neighbour search, and ties are
            # broken by point id, which differs between the two namespaces compared.
            text = f"{text} (#{n})"
            at = start + timedelta(days=3 * s, minutes=i)
            speaker = "王伟" if "我" in text else "Alice"
            turns.append(
                {
                    "session_id": f"s{s}",
                    "turn_id": f"s{s}:{i}",
                    "speaker": speaker,
                    "text": text,
                    "timestamp": at.isoformat(),
                }  # fmt: skip
            )
    return turns


def _turn(row: dict) -> Turn:
    timestamp = datetime.fromisoformat(row["timestamp"])
    return Turn(row["session_id"], row["turn_id"], row["speaker"], row["text"], timestamp)


def _start_worker(  # type: ignore[no-untyped-def]
    settings, queue: str, data_dir: Path, log: Path, pool: tuple[str, ...] = ("--pool", "solo"),
    env: dict[str, str] | None = None,
) -> subprocess.Popen:
    env = {
        **os.environ,
        "NEO4J_URI": settings.neo4j_uri,
        "NEO4J_USER": settings.neo4j_user,
        "NEO4J_PASSWORD": settings.neo4j_password.get_secret_value(),
        "REDIS_URL": settings.redis_url,
        "HIPPOGRAPH_DATA_DIR": str(data_dir),
        "HIPPOGRAPH_TASK_VISIBILITY_TIMEOUT": str(VISIBILITY_TIMEOUT_S),
        "HF_HUB_OFFLINE": "1",
        **(env or {}),
    }
    env.pop("QDRANT_URL", None)  # the worker owns an embedded vector folder of its own
    command = [sys.executable, "-m", "celery", "-A", "jobs.celery_app", "worker", "-Q", queue, *pool,
               "--without-heartbeat", "--without-mingle", "--without-gossip", "--loglevel", "INFO",
               "-n", f"crash-test-{time.monotonic_ns()}@localhost"]  # fmt: skip
    with log.open("a") as out:
        return subprocess.Popen(command, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT)


def _wait_for(condition: Callable[[], bool], timeout_s: float, what: str, log: Path) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}; worker log:\n{log.read_text()[-4000:]}")
        time.sleep(0.05)


def _counts(cypher, ns: str) -> dict[str, list]:  # type: ignore[no-untyped-def]
    return {
        "labels": cypher(
            "MATCH (m:Memory {namespace: $ns}) UNWIND labels(m) AS label RETURN label, count(*) AS n ORDER BY label",
            ns=ns,
        ),
        "relationships": cypher(
            "MATCH (:Memory {namespace: $ns})-[r]->() RETURN type(r) AS type, count(*) AS n ORDER BY type", ns=ns
        ),
    }


def _duplicates(cypher, ns: str) -> list:  # type: ignore[no-untyped-def]
    nodes = cypher("MATCH (m:Memory {namespace: $ns}) WITH m.id AS id, count(*) AS n WHERE n > 1 RETURN id", ns=ns)
    relationships = cypher(
        "MATCH (a:Memory {namespace: $ns})-[r]->(b) WITH a, b, type(r) AS type, count(*) AS n WHERE n > 1 "
        "RETURN a.id AS a, b.id AS b, type",
        ns=ns,
    )
    return nodes + relationships


def test_a_worker_killed_mid_batch_leaves_exactly_one_copy_of_everything(
    api, runtime, settings, cypher, namespace, tmp_path
) -> None:
    from jobs.celery_app import celery_app

    queue = celery_app.conf.task_default_queue
    turns = _turns()
    api.put(f"/v1/namespaces/{namespace}")
    worker_dir, log = tmp_path / "worker", tmp_path / "worker.log"
    worker = _start_worker(settings, queue, worker_dir, log)
    try:
        answer = api.post(f"/v1/namespaces/{namespace}/turns", json={"turns": turns, "wait": False})
        assert answer.status_code == 202, answer.text
        keys = [_turn(t).key for t in turns]

        def dialogues() -> int:
            return cypher("MATCH (d:Dialogue {namespace: $ns}) RETURN count(d) AS n", ns=namespace)[0]["n"]

        # Kill it once the first stage (every Dialogue, one transaction) is committed.
        _wait_for(lambda: dialogues() > 0, 120, "the first stage", log)
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=30)
        assert dialogues() == len(turns)
        # Killed mid-batch: the task had not finished, so every turn is still pending.
        assert len(runtime.hot_window.pending(namespace, keys)) == len(turns)

        # The same turns written uninterrupted, in this process, as the task writes them: the links
        # after the whole batch.
        reference = f"{namespace}-uninterrupted"
        api.put(f"/v1/namespaces/{reference}")
        batch = [SequencedTurn(_turn(t), i) for i, t in enumerate(turns)]
        now = datetime.now(UTC)
        # Retried on a 503 as the ingest task is (it is idempotent): on a loaded machine a connection
        # right after the kill once took over the driver's 3 s acquisition deadline.
        for attempt in range(3):
            try:
                written = runtime.ingestor.ingest(reference, batch, now, link=False)
                break
            except EngineUnavailable:
                if attempt == 2:
                    raise
                time.sleep(2)
        runtime.semantic.link(reference, written.unlinked, now)

        worker = _start_worker(settings, queue, worker_dir, log)
        _wait_for(lambda: not runtime.hot_window.pending(namespace, keys), 300, "the re-delivered task", log)
        # Then the batch's SEMANTIC links, in the task it queued behind it. Not "a link_semantic task
        # succeeded" in the log: an earlier test may leave one of its own queued in the run's queue.
        _wait_for(lambda: _counts(cypher, namespace) == _counts(cypher, reference), 300,
                  "the batch's SEMANTIC links", log)  # fmt: skip
    finally:
        worker.send_signal(signal.SIGTERM)  # warm shutdown: releases the vector folder
        worker.wait(timeout=60)

    assert _duplicates(cypher, namespace) == []
    assert _counts(cypher, namespace) == _counts(cypher, reference)
    worker_settings = settings.model_copy(update={"data_dir": worker_dir})
    embedder = runtime.embedder
    worker_vectors = open_vector_store(worker_settings, embedder.dimension, embedder.identity, embedder.paired)
    try:
        assert worker_vectors.count(namespace) == runtime.vectors.count(reference) > len(turns)
    finally:
        worker_vectors.close()
    # Its own batch's task (an earlier test may leave a task queued in the run's queue: it runs too).
    assert log.read_text().count(f"ingest_turns[{answer.json()['batch_id']}] succeeded") == 1
