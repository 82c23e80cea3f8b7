"""Real engines for the suite, found in this order:

1. `NEO4J_URI` / `REDIS_URL` / `QDRANT_URL` from the environment;
2. testcontainers, when a Docker engine answers;
3. otherwise the local services, started through `scripts/neo4j_local.py` and `scripts/redis_local.py`
   on test ports with their own data folder, and stopped at the end.

Neo4j is one for the run (started by the controlling process, shared by the pytest-xdist workers);
Redis is one per worker.

A service that cannot be had fails the tests that need it; nothing is skipped for a missing engine.
Qdrant has no local server here: without `QDRANT_URL` or Docker the qdrant-client backend is tested
in qdrant-client's local mode, and the default backend (Qdrant Edge) is always embedded (in a child
process of the runtime, as the embedded run uses it; tests/test_vectors.py also in-process).
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from fastapi.testclient import TestClient

REPO = Path(__file__).resolve().parents[1]
# Under pytest-xdist each worker (gw0, gw1, ...) starts a Redis of its own, on its own port and data
# folder: no worker sees another's locks, queues or hot windows. Neo4j is one for the whole run,
# started by the controlling process (`pytest_sessionstart` below): the workers keep apart by
# namespace, as tenants do, and the engine compiles each query and warms its JIT once instead of once
# a worker (`make test-fast` 321 -> 282 s, the JVMs' CPU 343 -> 204 s). The beat jobs that visit
# every namespace (resume_pending, flush_activity) read what lives in their worker's own Redis.
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
WORKER_INDEX = int(WORKER[2:]) if WORKER.startswith("gw") else 0
TEST_SERVICES_DIR = REPO / "data" / "test-services" / (WORKER or "main")
SHARED_SERVICES_DIR = REPO / "data" / "test-services" / "shared"
TEST_NEO4J_PORT = 17687
TEST_REDIS_PORT = 16379 + 100 * WORKER_INDEX
# Set by the controlling process for its workers: the file that says whether the shared Neo4j it is
# starting (beside the workers' collection) is ready, or why not.
NEO4J_STARTUP_ENV = "HIPPOGRAPH_TEST_NEO4J_STARTUP"
NEO4J_STARTUP_WAIT_S = 300
# The suite's own Neo4j engines compile with the JVM's quick (C1) compiler only: its optimizing (C2)
# compiler cost more CPU than it won back in a run of minutes (`make test-fast` 368 -> 285 s on 2
# cores). The fault drills start theirs as `make run` does, without it.
TEST_NEO4J_JVM_OPTION = "--jvm-option=-XX:TieredStopAtLevel=1"
# The bootstrap admin key of every runtime the suite opens; the `api` client sends it by default.
TEST_ADMIN_KEY = "hg_test_bootstrap_admin_key"


@dataclass
class Services:
    neo4j_uri: str
    neo4j_user: str
    neo4j_password: str
    redis_url: str
    qdrant_url: str | None
    versions: dict[str, str] = field(default_factory=dict)


def docker_available() -> bool:
    try:
        import docker

        docker.from_env(timeout=3).ping()
        return True
    except Exception:
        return False


def _script(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(REPO / "scripts" / script), *args], capture_output=True, text=True, cwd=REPO
    )


def run_script(script: str, *args: str) -> str:
    result = _script(script, *args)
    if result.returncode != 0:
        pytest.fail(f"{script} {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}", pytrace=False)
    return result.stdout.strip()


@pytest.fixture(scope="session")
def services(request: pytest.FixtureRequest) -> Iterator[Services]:
    with contextlib.ExitStack() as stack:
        use_docker = not os.environ.get("REDIS_URL") and docker_available()
        neo4j_uri, user, password = _neo4j()
        redis_url = _redis(stack, use_docker)
        qdrant_url = os.environ.get("QDRANT_URL") or (_qdrant_container(stack) if use_docker else None)
        found = Services(neo4j_uri, user, password, redis_url, qdrant_url)
        found.versions = _engine_versions(found)
        request.config.stash[SERVICES_KEY] = found
        yield found


SERVICES_KEY = pytest.StashKey[Services]()

# The whole-system drills: processes killed, engines stopped or frozen, load, a browser, a generated
# client. `make test` runs them with the rest, first and longest first (see below); `make test-fast`
# (`-m "not drill"`) leaves them out.
DRILLS = (
    "tests/test_fault_drills.py",  # engines frozen or killed under load (~7 min)
    "tests/test_process_drills.py",  # the API process and Redis SIGKILLed (~6 min)
    "tests/test_engine_outage.py",  # a private Neo4j stopped per test
    "tests/test_local_services.py",  # the engine scripts start, stop and restart servers
    "tests/test_worker_crash.py",  # a Celery worker SIGKILLed mid-batch
    "tests/test_load_script.py::test_short_load_run_loses_nothing_and_leaks_nothing",
    "tests/test_worker_metrics.py",  # a standalone worker process
    "tests/test_generated_client.py",  # a client generated from /openapi.json and installed
    "tests/test_packaging.py",  # both distributions built, installed in fresh environments, served
    "tests/test_typescript_client.py::test_npm_ci_build_and_test_pass_against_the_live_api",  # npm ci, tsc, node --test
    "tests/test_explorer.py::test_the_explorer_shows_recall_graph_decay_and_history_in_a_browser",
    "tests/test_explorer.py::test_a_reader_explores_a_namespace_holding_private_memories_in_a_browser",
    "tests/test_api_docs.py::test_docs_and_redoc_render_in_a_browser_with_no_request_leaving_the_machine",
    "tests/test_data_folder.py::test_a_second_start_names_the_holder_and_stop_stops_the_api",  # API processes
    "tests/test_cli.py::test_ingest_killed_halfway_then_rerun_has_every_turn_once",  # the CLI SIGKILLed mid-ingest
    "tests/test_concurrent_isolation.py",  # two tenants' 16 threads writing and recalling for 60 s
    # exports for 20 s while a writer and the worker ingest (the race of issue 20)
    "tests/test_transfer.py::test_an_export_during_ingestion_is_consistent_and_imports",
    # every operation fuzzed against the OpenAPI document (~1,200 requests, ~70 s), and the hostile
    # Cypher and import lane; the checks themselves are tested in the fast lane
    "tests/test_schemathesis.py::test_every_operation_answers_within_its_documented_contract",
    "tests/test_schemathesis.py::test_the_fuzz_lane_hostile_cypher_and_imports_answer_within_the_contract",
)


# The longest of the other files (total seconds in a `make test-fast` log, `--durations=0`), longest
# first. Order only: sent to the workers first, they no longer leave one worker running alone at the
# end (the last ~30 s of a fast run were mostly idle). A file missing here just runs later. Files that
# hold a drill (test_cli.py ~120 s, test_explorer.py, test_transfer.py, test_schemathesis.py) already come
# first with it.
LONG_FILES = (
    "tests/test_client.py",
    "tests/test_embedding.py",  # reference comparisons with sentence-transformers
    "tests/test_write_path.py",
    "tests/test_batches.py",
    "tests/test_vectors.py",
    "tests/test_entity_resolution.py",
    "tests/test_mcp.py",
    "tests/test_access.py",
)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "drill: a whole-system drill (left out by `make test-fast`)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the drills, and run the longest files first: the drills (longest first: mostly waiting on
    claims, beat intervals, engine restarts), then LONG_FILES. Under xdist (a file to a worker, in
    this order: scripts/test.sh passes --no-loadscope-reorder) the other workers fill a long file's
    time with short ones, instead of all waiting on one long file at the end."""
    first = [nodeid.split("::", 1)[0] for nodeid in DRILLS] + list(LONG_FILES)
    for item in items:
        if item.nodeid.startswith(DRILLS):
            item.add_marker(pytest.mark.drill)

    def rank(item: pytest.Item) -> int:
        path = item.nodeid.split("::", 1)[0]
        return first.index(path) if path in first else len(first)

    items.sort(key=rank)  # stable: the other files keep their order


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """The run's one Neo4j, unless NEO4J_URI names one: started here, in the controlling process,
    before pytest-xdist starts its workers, which find it through NEO4J_URI. A local engine starts in
    the background while the workers collect; `_neo4j` waits for it."""
    config = session.config
    if hasattr(config, "workerinput") or config.option.collectonly or os.environ.get("NEO4J_URI"):
        return
    if docker_available():
        from testcontainers.community.neo4j import Neo4jContainer

        container = Neo4jContainer("neo4j:5.26-community", password="hippograph-test").start()
        config.stash[SHARED_NEO4J_KEY] = container.stop
        os.environ.update(NEO4J_URI=container.get_connection_url(), NEO4J_USER=container.username,
                          NEO4J_PASSWORD=container.password)  # fmt: skip
        return
    home, startup = SHARED_SERVICES_DIR / "neo4j", SHARED_SERVICES_DIR / "neo4j-startup"
    startup.unlink(missing_ok=True)
    starting = threading.Thread(target=_start_local_neo4j, args=(home, startup), daemon=True)
    starting.start()

    def stop() -> None:
        starting.join()
        _script("neo4j_local.py", "stop", "--port", str(TEST_NEO4J_PORT), "--home", str(home))

    config.stash[SHARED_NEO4J_KEY] = stop
    os.environ.update({"NEO4J_URI": f"bolt://127.0.0.1:{TEST_NEO4J_PORT}", "NEO4J_USER": "neo4j",
                       "NEO4J_PASSWORD": "", NEO4J_STARTUP_ENV: str(startup)})  # fmt: skip


def pytest_sessionfinish(session: pytest.Session) -> None:
    stop = session.config.stash.get(SHARED_NEO4J_KEY, None)
    if stop is not None:
        stop()


SHARED_NEO4J_KEY = pytest.StashKey[Callable[[], None]]()


def _start_local_neo4j(home: Path, startup: Path) -> None:
    """A fresh database each run (an engine a killed run left behind is stopped first): operations
    over every namespace then cost what this run wrote, not what every earlier run did."""
    _script("neo4j_local.py", "stop", "--port", str(TEST_NEO4J_PORT), "--home", str(home))
    shutil.rmtree(home, ignore_errors=True)
    result = _script("neo4j_local.py", "start", "--port", str(TEST_NEO4J_PORT), "--home", str(home),
                     "--heap", "1536m", "--pagecache", "512m", TEST_NEO4J_JVM_OPTION)  # fmt: skip
    outcome = "ready" if result.returncode == 0 else f"failed:\n{result.stdout}\n{result.stderr}"
    startup.parent.mkdir(parents=True, exist_ok=True)
    startup.write_text(outcome)


def _neo4j() -> tuple[str, str, str]:
    """The run's Neo4j (`pytest_sessionstart`), once it answers."""
    if startup := os.environ.get(NEO4J_STARTUP_ENV):
        waited = Path(startup)
        deadline = time.monotonic() + NEO4J_STARTUP_WAIT_S
        while not waited.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        outcome = waited.read_text() if waited.exists() else f"not ready within {NEO4J_STARTUP_WAIT_S} s"
        if outcome != "ready":
            pytest.fail(f"the suite's Neo4j did not start: {outcome}", pytrace=False)
    return os.environ["NEO4J_URI"], os.environ.get("NEO4J_USER", "neo4j"), os.environ.get("NEO4J_PASSWORD", "")


def _redis(stack: contextlib.ExitStack, use_docker: bool) -> str:
    if url := os.environ.get("REDIS_URL"):
        return url
    if use_docker:
        from testcontainers.community.redis import RedisContainer

        container = stack.enter_context(RedisContainer("redis:7"))
        return f"redis://{container.get_container_host_ip()}:{container.get_exposed_port(6379)}/0"
    data_dir = TEST_SERVICES_DIR / "redis"
    run_script("redis_local.py", "start", "--port", str(TEST_REDIS_PORT), "--dir", str(data_dir))
    stack.callback(run_script, "redis_local.py", "stop", "--port", str(TEST_REDIS_PORT), "--dir", str(data_dir))
    return f"redis://127.0.0.1:{TEST_REDIS_PORT}/0"


def _qdrant_container(stack: contextlib.ExitStack) -> str:
    from testcontainers.community.qdrant import QdrantContainer

    container = stack.enter_context(QdrantContainer("qdrant/qdrant:v1.16.2"))
    return f"http://{container.rest_host_address}"


def _engine_versions(found: Services) -> dict[str, str]:
    import redis

    from app.stores.graph import GraphStore

    store = GraphStore.connect(make_settings(found, REPO / "data"))
    client = redis.Redis.from_url(found.redis_url)
    try:
        return {
            "neo4j": f"{found.neo4j_uri}  {store.server_version()}",
            "redis": f"{found.redis_url}  Redis {client.info('server')['redis_version']}",
            "qdrant": found.qdrant_url or "qdrant-client local mode + Qdrant Edge (embedded)",
        }
    finally:
        store.close()
        client.close()


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:  # type: ignore[no-untyped-def]
    found = config.stash.get(SERVICES_KEY, None)
    if found is not None:
        terminalreporter.section("engines used")
        for name, version in found.versions.items():
            terminalreporter.write_line(f"{name:<7} {version}")


def make_settings(found: Services, data_dir: Path, **overrides: str):  # type: ignore[no-untyped-def]
    from app.settings import Settings

    values = {
        "NEO4J_URI": found.neo4j_uri,
        "NEO4J_USER": found.neo4j_user,
        "NEO4J_PASSWORD": found.neo4j_password,
        "REDIS_URL": found.redis_url,
        "HIPPOGRAPH_DATA_DIR": str(data_dir),
        "HIPPOGRAPH_ADMIN_KEY": TEST_ADMIN_KEY,
        # Tests start and stop many apps in one process: a full collection at each start cost ~45 CPU-s
        # over the fast lane (tests/test_health_api.py checks the freeze itself).
        "HIPPOGRAPH_GC_FREEZE": "0",
        **overrides,
    }
    return Settings(**values)


@pytest.fixture
def settings(services: Services, tmp_path: Path):  # type: ignore[no-untyped-def]
    """Settings for the real engines, with a private data folder (so a private embedded vector shard)."""
    return make_settings(services, tmp_path)


@pytest.fixture(scope="session")
def embedder():  # type: ignore[no-untyped-def]
    from app.embedding.encoder import Embedder
    from app.settings import Settings

    return Embedder.from_settings(Settings())


@pytest.fixture
def namespace() -> str:
    """A namespace of its own for each test, so no test sees another's data."""
    return f"t-{uuid.uuid4().hex[:12]}"


def free_port() -> int:
    """A loopback port nothing listens on (now)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def unused_port() -> int:
    return free_port()


@pytest.fixture(scope="session")
def shared_runtime(services, embedder, celery_configured, tmp_path_factory) -> Iterator:  # type: ignore[no-untyped-def]
    """One Runtime for every test of this process that does not need its own (opening one costs ~1 s:
    schema, rule files, warm-up, a vector shard). Tests keep apart by namespace; a test that changes
    one of its objects does so with `monkeypatch`, so the change ends with the test."""
    from app.runtime import Runtime

    settings = make_settings(services, tmp_path_factory.mktemp("runtime"))
    opened = Runtime.open(settings, embedder=embedder)
    yield opened
    opened.close()


@pytest.fixture
def runtime(shared_runtime):  # type: ignore[no-untyped-def]
    """The engines and memory operations (the process's shared Runtime); no background worker. A test
    that needs other settings opens a Runtime of its own from `settings`."""
    return shared_runtime


@pytest.fixture(scope="session")
def shared_api(shared_runtime) -> Iterator:  # type: ignore[no-untyped-def]
    from fastapi.testclient import TestClient

    from app.api.main import create_app

    with checked(TestClient(create_app(runtime=shared_runtime), headers=admin_headers())) as client:
        yield client


@pytest.fixture
def api(shared_api):  # type: ignore[no-untyped-def]
    """A client of the app on the shared Runtime, sending the bootstrap admin key by default."""
    return shared_api


@pytest.fixture
def live_api(runtime, unused_port: int) -> Iterator[str]:  # type: ignore[no-untyped-def]
    """The API served over real HTTP by uvicorn (in a thread, on the test runtime); yields its base
    URL. For clients that must talk HTTP: the Python client, MCP over streamable HTTP, the CLI."""
    import threading
    import time

    import uvicorn

    from app.api.main import create_app

    config = uvicorn.Config(
        create_app(runtime=runtime), host="127.0.0.1", port=unused_port, log_config=None, access_log=False
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="live-api", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            pytest.fail("the live API did not start", pytrace=False)
        time.sleep(0.02)
    yield f"http://127.0.0.1:{config.port}"
    server.should_exit = True
    thread.join(timeout=30)


def terminate(process: subprocess.Popen, timeout_s: float = 60) -> None:  # type: ignore[type-arg]
    """Stop a process the test started: SIGTERM (a clean shut-down), SIGKILL if it outlasts `timeout_s`."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=30)


def checked(client: TestClient) -> TestClient:
    """`client` (of the app) checking every response it receives against what /openapi.json declares
    for it (tests/response_contract.py): each request of the suite is also a contract test."""
    client.event_hooks["response"].append(response_contract().check)
    return client


@functools.cache
def response_contract():  # type: ignore[no-untyped-def]
    """The contract of /openapi.json, built once per test process (~1 s each time): the document is
    the same for every app `create_app` builds, whatever its settings or runtime
    (tests/test_openapi_contract.py checks that)."""
    from app.api.main import create_app
    from app.settings import Settings
    from tests.response_contract import ResponseContract

    return ResponseContract(create_app(Settings(HIPPOGRAPH_ADMIN_KEY=TEST_ADMIN_KEY)).openapi())


def bearer(key: str) -> dict[str, str]:
    """The headers that send `key`."""
    return {"Authorization": f"Bearer {key}"}


def admin_headers(key: str = TEST_ADMIN_KEY) -> dict[str, str]:
    return bearer(key)


@pytest.fixture
def worker(runtime) -> Iterator:  # type: ignore[no-untyped-def]
    """A Celery worker in this process, on the runtime's engines (the embedded run)."""
    from jobs.celery_app import celery_app
    from jobs.embedded import EmbeddedJobs

    # Other tests leave turns pending on purpose (no worker ran), and their tasks queued in this
    # process's queue: they are not this worker's to run or resume (they would move the counters and
    # logs the test reads).
    celery_app.control.purge()
    jobs = EmbeddedJobs(runtime, resume_pending=False)
    # Its beat starts afresh, as on a data folder of its own: the shared runtime's folder keeps the
    # last test's schedule, whose overdue jobs (resume_pending) would run at once, beside the test's.
    # The schedule is a shelve: its files carry the dbm module's suffixes (dbm.dumb: .dat/.dir/.bak).
    from celery.beat import PersistentScheduler

    for suffix in PersistentScheduler.known_suffixes:
        (runtime.settings.data_dir / f"celerybeat-schedule{suffix}").unlink(missing_ok=True)
    jobs.start()
    yield jobs
    jobs.stop()


@pytest.fixture
def cypher(runtime):  # type: ignore[no-untyped-def]
    """Test-only Cypher for checking what the product wrote (the product's queries live in cypher/)."""

    def run(query: str, **params: object) -> list[dict]:
        from app.stores.graph import to_native

        records, _, _ = runtime.graph.driver.execute_query(query, params)
        return [to_native(r.data()) for r in records]

    return run


@pytest.fixture(scope="session")
def celery_configured(services: Services) -> None:
    """Point the project's Celery app at this run's Redis, with a queue of its own so that no worker
    consumes another run's messages (the app reads REDIS_URL once, at import)."""
    from jobs.celery_app import celery_app

    celery_app.conf.broker_url = services.redis_url
    celery_app.conf.result_backend = services.redis_url
    celery_app.conf.task_default_queue = f"test-{uuid.uuid4().hex[:12]}"


def assert_each_turn_once(
    driver: Any, namespace: str, acknowledged: list[str], may_be_missing: Collection[str] = ()
) -> set[str]:
    """Every acknowledged turn is one Dialogue node with one Episode parent (those `may_be_missing`
    at most one), and nothing else was written (the fault drills' loss and duplication check);
    returns the ids written."""
    rows = driver.execute_query(
        "MATCH (d:Dialogue {namespace: $ns}) OPTIONAL MATCH (e:Episode)-[h:HIERARCHY]->(d) "
        "RETURN d.id AS id, count(h) AS parents",
        {"ns": namespace},
    ).records
    written = {row["id"]: row["parents"] for row in rows}
    assert len(rows) == len(written)  # one node per id
    missing = set(acknowledged) - set(written) - set(may_be_missing)
    assert not missing, f"{len(missing)} acknowledged turns missing, e.g. {sorted(missing)[:3]}"
    assert set(written) <= set(acknowledged)  # nothing else
    assert set(written.values()) == {1}  # its structure once
    return set(written)
