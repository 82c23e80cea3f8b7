"""Fault drills on a real API process (`python -m app`, as `make run` serves it: the API with its
embedded Celery worker and beat) and a PRIVATE Redis (`scripts/redis_local.py` on a free port, AOF
`appendfsync everysec` as it configures it; never the shared test engines). Neo4j is the suite's
(never stopped); each drill writes a namespace of its own.

- Redis SIGKILLed mid-load (a crash, not a clean shutdown) and started again on its data folder:
  while it is down every route answers its usual answer or 503 naming redis, never another 5xx;
  after it returns, queued writes complete without restarting the API, and every acknowledged (202)
  turn exists exactly once as a Dialogue node.
- The API process SIGKILLed mid-ingest and started again: pending turns resume (after their claims
  lapse) and every acknowledged turn lands exactly once.
- Power loss, simulated: the API and Redis SIGKILLed together and Redis's AOF cut back by ~1 s;
  what was acknowledged before the cut lands exactly once, the last second's turns at most once.

Each takes 1–3 minutes (process start-up, claims of 60 s, beat's `resume_pending` every minute).
"""

from __future__ import annotations

import contextlib
import http.client
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis

from app.memory.hot_window import HotWindow
from tests.conftest import REPO, Services, admin_headers, assert_each_turn_once, free_port, run_script, terminate
from tests.test_engine_outage import SEED_NODE_ID, _v1_operations

BATCH = 10
START_DEADLINE_S = 120.0
DRAIN_DEADLINE_S = 300.0
PENDING_RESUME_AFTER_S = 30


@dataclass
class PrivateRedis:
    port: int
    data_dir: Path

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        run_script("redis_local.py", "start", "--port", str(self.port), "--dir", str(self.data_dir))

    def kill(self) -> None:
        """SIGKILL: a crash, no final AOF rewrite or fsync (the durability statement's case)."""
        pid = int((self.data_dir / "redis.pid").read_text().strip())
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        (self.data_dir / "redis.pid").unlink(missing_ok=True)

    def stop(self) -> None:
        run_script("redis_local.py", "stop", "--port", str(self.port), "--dir", str(self.data_dir))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with contextlib.suppress(FileNotFoundError):  # a zombie is not alive
        return "\nState:\tZ" not in Path(f"/proc/{pid}/status").read_text()
    return False


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    found = PrivateRedis(free_port(), tmp_path / "redis")
    found.start()
    try:
        yield found
    finally:
        found.stop()


@dataclass
class ApiProcess:
    """`python -m app` on a free port; started and SIGKILLed by the drill."""

    env: dict[str, str]
    port: int
    log: Path
    process: subprocess.Popen[bytes] | None = None
    admin_key: str = field(default_factory=lambda: secrets.token_urlsafe(24))

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        env = {**self.env, "HIPPOGRAPH_PORT": str(self.port), "HIPPOGRAPH_ADMIN_KEY": self.admin_key}
        with self.log.open("ab") as log:
            self.process = subprocess.Popen([sys.executable, "-m", "app"], cwd=REPO, env=env, stdout=log,
                                            stderr=subprocess.STDOUT)  # fmt: skip
        deadline = time.monotonic() + START_DEADLINE_S
        while time.monotonic() < deadline:
            assert self.process.poll() is None, f"the API exited:\n{self.log_tail()}"
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.url}/readyz", timeout=5).status_code == 200:
                    return
            time.sleep(0.5)
        pytest.fail(f"the API did not become ready:\n{self.log_tail()}", pytrace=False)

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process is not None:
            terminate(self.process, timeout_s=30)

    def client(self, timeout: float = 30) -> httpx.Client:
        return httpx.Client(base_url=self.url, headers=admin_headers(self.admin_key), timeout=timeout)

    def log_tail(self, lines: int = 40) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])


@pytest.fixture
def api_process(services: Services, private_redis: PrivateRedis, tmp_path: Path) -> Iterator[ApiProcess]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HIPPOGRAPH_", "NEO4J_", "REDIS_"))}
    env.update({"NEO4J_URI": services.neo4j_uri, "NEO4J_USER": services.neo4j_user,
                "NEO4J_PASSWORD": services.neo4j_password, "REDIS_URL": private_redis.url,
                "HIPPOGRAPH_DATA_DIR": str(tmp_path / "data"), "HIPPOGRAPH_LOG_FORMAT": "text",
                "PYTHONUNBUFFERED": "1"})  # fmt: skip
    process = ApiProcess(env, free_port(), tmp_path / "api.log")
    try:
        yield process
    finally:
        process.stop()


def _batch(n: int) -> list[dict[str, Any]]:
    return [{"session_id": f"s{n % 3}", "turn_id": f"b{n}:{i}", "speaker": "Alice",
             "text": f"Batch {n} note {i}: I moved to city {n * BATCH + i}.",
             "timestamp": f"2024-05-{1 + n % 28:02d}T10:{i:02d}:00+00:00"} for i in range(BATCH)]  # fmt: skip


class Poster:
    """Posts a batch every 0.2 s until stopped; keeps what was acknowledged and what was refused."""

    def __init__(self, api: ApiProcess, namespace: str) -> None:
        self.api, self.namespace = api, namespace
        self.acknowledged: list[str] = []
        self.batch_ids: list[str] = []
        self.refused: list[str] = []  # 503s and connection errors (the process was down)
        self.unexpected: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="drill-poster", daemon=True)

    def __enter__(self) -> Poster:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=90)

    def wait_for(self, turns: int, deadline_s: float = 60) -> None:
        deadline = time.monotonic() + deadline_s
        while len(self.acknowledged) < turns and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(self.acknowledged) >= turns, (self.acknowledged[-3:], self.refused[-3:], self.unexpected[:3])

    def _run(self) -> None:
        n = 0
        with self.api.client() as client:
            while not self._stop.is_set():
                try:
                    answer = client.post(f"/v1/namespaces/{self.namespace}/turns", json={"turns": _batch(n)})
                except httpx.HTTPError as error:
                    self.refused.append(f"{type(error).__name__}")
                else:
                    if answer.status_code == 202:
                        self.acknowledged.extend(turn["node_id"] for turn in answer.json()["turns"])
                        self.batch_ids.append(answer.json()["batch_id"])
                    elif answer.status_code == 503:
                        self.refused.append(answer.json()["error"]["message"])
                    else:  # never a 500
                        self.unexpected.append(f"{answer.status_code} {answer.text[:300]}")
                n += 1
                time.sleep(0.2)


def _drain(redis_url: str, namespace: str) -> list[str]:
    client = redis.Redis.from_url(redis_url)
    try:
        pending = HotWindow(client).pending_keys
        deadline = time.monotonic() + DRAIN_DEADLINE_S
        while pending(namespace) and time.monotonic() < deadline:
            time.sleep(1)
        return pending(namespace)
    finally:
        client.close()


def _assert_each_once(
    services: Services, namespace: str, acknowledged: list[str], may_be_missing: list[str] | None = None
) -> set[str]:
    from neo4j import GraphDatabase

    with GraphDatabase.driver(services.neo4j_uri, auth=(services.neo4j_user, services.neo4j_password)) as driver:
        return assert_each_turn_once(driver, namespace, acknowledged, may_be_missing or [])


def test_redis_killed_mid_load_answers_503_and_loses_nothing(
    services: Services, private_redis: PrivateRedis, api_process: ApiProcess, namespace: str
) -> None:
    # A task that met the crash and could not queue its retry (the broker was the crashed Redis)
    # leaves its turns under the API's claim, for `resume_pending` after this (10 min by default).
    api_process.env["HIPPOGRAPH_PENDING_RESUME_AFTER"] = str(PENDING_RESUME_AFTER_S)
    api_process.start()
    probe = f"{namespace}-probe"  # every route is called on it during the outage (deletes included)
    with api_process.client() as client:
        for ns in (namespace, probe):
            assert client.put(f"/v1/namespaces/{ns}").status_code == 201
        seeded = client.post(f"/v1/namespaces/{probe}/memories", json={"type": "Knowledge", "label": "seed",
                             "content": "The drill's seed", "id": SEED_NODE_ID})  # fmt: skip
        assert seeded.status_code == 201, seeded.text
        raw_bodies = {"/v1/namespaces/{ns}/import": client.get(f"/v1/namespaces/{probe}/export").content}
        batch = client.post(f"/v1/namespaces/{probe}/turns", json={"turns": _batch(0)})
        assert batch.status_code == 202, batch.text
        operations = _v1_operations(client, probe, raw_bodies, batch.json()["batch_id"])  # type: ignore[arg-type]
        with Poster(api_process, namespace) as poster:
            poster.wait_for(5 * BATCH)
            private_redis.kill()
            try:
                answers: dict[str, int] = {}
                for operation in operations:
                    request = {k: v for k, v in operation.items() if k != "what"}
                    response = client.request(**request)
                    what = operation["what"]
                    answers[what] = response.status_code
                    assert response.status_code < 500 or response.status_code == 503, (what, response.text[:300])
                    if response.status_code == 503:
                        body = response.json()
                        assert body["error"]["code"] == "engine_unavailable" and body["engine"] == "redis", body
                # What needs Redis says so: the write path, recall (the hot window), batches, dead letters.
                for needs_redis in ("POST /v1/namespaces/{ns}/turns", "POST /v1/namespaces/{ns}/recall",
                                    "GET /v1/namespaces/{ns}/batches/{batch_id}",
                                    "GET /v1/namespaces/{ns}/dead-letters"):  # fmt: skip
                    assert answers[needs_redis] == 503, (needs_redis, answers)
                ready = client.get("/readyz")
                assert ready.status_code == 503 and ready.json()["checks"]["redis"]["status"] == "down", ready.text
                time.sleep(5)  # batches keep coming and are refused
            finally:
                private_redis.start()
            acknowledged_before = len(poster.acknowledged)
            deadline = time.monotonic() + 60
            while len(poster.acknowledged) < acknowledged_before + 3 * BATCH and time.monotonic() < deadline:
                time.sleep(0.2)  # the API takes writes again without a restart
        assert poster.unexpected == []
        assert any("redis" in refused for refused in poster.refused), poster.refused[:5]
        assert len(poster.acknowledged) >= acknowledged_before + 3 * BATCH, "no write acknowledged after Redis returned"
    pending = _drain(private_redis.url, namespace)
    assert pending == [], f"{len(pending)} turns still pending:\n{api_process.log_tail()}"
    _assert_each_once(services, namespace, poster.acknowledged)


def test_api_killed_mid_ingest_resumes_pending_turns_exactly_once(
    services: Services, private_redis: PrivateRedis, api_process: ApiProcess, namespace: str
) -> None:
    # A batch the killed worker had prefetched keeps its queued claim this long (10 min by default).
    api_process.env["HIPPOGRAPH_PENDING_RESUME_AFTER"] = str(PENDING_RESUME_AFTER_S)
    api_process.start()
    with api_process.client() as client:
        assert client.put(f"/v1/namespaces/{namespace}").status_code == 201
    with Poster(api_process, namespace) as poster:
        poster.wait_for(8 * BATCH)
        client = redis.Redis.from_url(private_redis.url)
        try:  # mid-ingest: turns acknowledged and not yet written
            deadline = time.monotonic() + 30
            while not HotWindow(client).pending_keys(namespace) and time.monotonic() < deadline:
                time.sleep(0.05)
            api_process.kill()
            pending_at_kill = len(HotWindow(client).pending_keys(namespace))
        finally:
            client.close()
        time.sleep(2)  # posts meet a dead process
    assert poster.unexpected == []
    assert pending_at_kill > 0, "the kill did not land mid-ingest"
    api_process.start()  # the same data folder and port: its start-up resume and beat bring the turns back
    pending = _drain(private_redis.url, namespace)
    assert pending == [], f"{len(pending)} turns still pending:\n{api_process.log_tail()}"
    _assert_each_once(services, namespace, poster.acknowledged)
    # Not asserted: that every batch the kill interrupted reads done. A batch whose turns resume_pending
    # writes does (jobs/celery_tasks.py resume_namespace); one whose turns a running task took over and wrote,
    # while its own task waited and died with the process, stays "running" until the broker re-delivers
    # its task (the visibility timeout, an hour): seen in this drill under a loaded suite (issue 37).


def _aof_tail(redis_dir: Path) -> Path:
    """The append-only file Redis is appending to (Redis 7's multi-part AOF: the newest incr file)."""
    files = sorted((redis_dir / "appendonlydir").glob("*.incr.aof"), key=lambda p: int(p.name.split(".")[-3]))
    assert files, f"no AOF in {redis_dir}"
    return files[-1]


def test_power_loss_loses_at_most_the_last_second_and_duplicates_nothing(
    services: Services, private_redis: PrivateRedis, api_process: ApiProcess, namespace: str
) -> None:
    """The power-loss row, simulated: the API process (with its worker) and Redis are SIGKILLed
    together mid-ingest, and Redis's AOF is cut back to where it stood ~1 s earlier (what
    `appendfsync everysec` can leave on disk after a machine crash; Redis loads a file cut
    mid-command, `aof-load-truncated`). Neo4j is not killed: its commits are on disk at commit.
    Then both start again, nobody intervenes, and: every turn acknowledged before the cut exists
    exactly once; a turn acknowledged in the lost second exists at most once; nothing else exists."""
    api_process.env["HIPPOGRAPH_PENDING_RESUME_AFTER"] = str(PENDING_RESUME_AFTER_S)
    api_process.start()
    with api_process.client() as client:
        assert client.put(f"/v1/namespaces/{namespace}").status_code == 201
    samples: list[tuple[float, int, Path, int]] = []  # (time, turns acknowledged, AOF file, its size)
    with Poster(api_process, namespace) as poster:
        poster.wait_for(6 * BATCH)
        client = redis.Redis.from_url(private_redis.url)
        try:
            deadline = time.monotonic() + 30
            while not HotWindow(client).pending_keys(namespace) and time.monotonic() < deadline:
                time.sleep(0.05)
            for _ in range(20):  # 2 s of samples; acknowledged first: those turns are in the file's size
                acknowledged = len(poster.acknowledged)
                tail = _aof_tail(private_redis.data_dir)
                samples.append((time.monotonic(), acknowledged, tail, tail.stat().st_size))
                time.sleep(0.1)
            private_redis.kill()  # dead before its file is cut
            api_process.kill()
            killed_at = time.monotonic()
        finally:
            client.close()
        poster.stop()
    at, kept, tail, size = max((s for s in samples if s[0] <= killed_at - 1.0), key=lambda s: s[0])
    assert tail == _aof_tail(private_redis.data_dir), "the AOF was rewritten during the drill"
    assert tail.stat().st_size > size, "nothing was written in the last second: no loss simulated"
    with tail.open("r+b") as aof:
        aof.truncate(size)
    assert poster.unexpected == []
    assert len(poster.acknowledged) > kept, "nothing acknowledged in the lost second"

    private_redis.start()
    api_process.start()  # the same data folder: start-up resume, then the beat's
    pending = _drain(private_redis.url, namespace)
    assert pending == [], f"{len(pending)} turns still pending:\n{api_process.log_tail()}"
    safe, last_second = poster.acknowledged[:kept], poster.acknowledged[kept:]
    written = _assert_each_once(services, namespace, poster.acknowledged, may_be_missing=last_second)
    print(
        f"power-loss drill: {len(safe)} turns safe, {len(last_second)} acknowledged in the lost second "
        f"({len(set(last_second) - set(written))} of them lost), cut {killed_at - at:.1f} s before the crash"
    )


def test_an_idle_keep_alive_connection_outlives_a_clients_idle_expiry(api_process: ApiProcess) -> None:
    # uvicorn's own 5 s equals httpx's idle expiry: a client reusing a connection as the server closed
    # it got a reset (28 ReadErrors in a scripts/load.py run). The server now keeps it longer.
    api_process.start()
    connection = http.client.HTTPConnection("127.0.0.1", api_process.port, timeout=30)
    try:
        connection.request("GET", "/readyz")
        first = connection.getresponse()
        first.read()
        assert first.status == 200 and first.getheader("connection") != "close"
        time.sleep(7)  # past both 5 s expiries
        connection.request("GET", "/readyz")  # on the same socket: a closed one raises RemoteDisconnected
        second = connection.getresponse()
        second.read()
        assert second.status == 200
    finally:
        connection.close()
