"""A Neo4j server of a test's own, never the shared test engine: for what a test must do to its engine
(pause it, stop it) or to its data (hold only its own namespaces, so the planner's statistics are
the test's). A testcontainers Neo4j when a Docker engine answers, else `scripts/neo4j_local.py` on a
free port under `home`."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import TEST_NEO4J_JVM_OPTION, Services, docker_available, free_port, run_script


@dataclass
class PrivateNeo4j:
    uri: str
    user: str
    password: str
    stop: Callable[[], None]  # paused (Docker) or stopped (local): either way it does not answer
    start: Callable[[], None]

    def services(self, shared: Services) -> Services:
        """The shared engines with this Neo4j in place of the shared one."""
        return Services(self.uri, self.user, self.password, shared.redis_url, shared.qdrant_url)


@contextlib.contextmanager
def private_neo4j_server(home: Path) -> Iterator[PrivateNeo4j]:
    if docker_available():
        from testcontainers.community.neo4j import Neo4jContainer

        # A paused server keeps its connections open without answering: the server's keep-alive
        # (sent to the driver as its read timeout hint, `connection.recv_timeout_seconds`) bounds how
        # long a request waits on one.
        container = Neo4jContainer("neo4j:5.26-community", password="hippograph-test").with_env(
            "NEO4J_server_bolt_connection__keep__alive", "2s"
        )
        with container:
            wrapped = container.get_wrapped_container()
            yield PrivateNeo4j(
                container.get_connection_url(),
                container.username,
                container.password,
                stop=wrapped.pause,
                start=wrapped.unpause,
            )
            with contextlib.suppress(Exception):  # leave it stoppable if the test failed while paused
                wrapped.unpause()
        return
    port = str(free_port())
    # fmt: off
    args = ("--port", port, "--home", str(home))
    start = lambda: run_script("neo4j_local.py", "start", *args, "--heap", "512m", "--pagecache", "64m",  # noqa: E731
                               TEST_NEO4J_JVM_OPTION)
    stop = lambda: run_script("neo4j_local.py", "stop", *args)  # noqa: E731
    # fmt: on
    start()
    try:
        yield PrivateNeo4j(f"bolt://127.0.0.1:{port}", "neo4j", "", stop=stop, start=start)
    finally:
        stop()
