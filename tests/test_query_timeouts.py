"""Every read and write of the service runs under a Neo4j transaction timeout
(HIPPOGRAPH_NEO4J_QUERY_TIMEOUT): a query that runs longer is stopped by the server and answers
503 engine_unavailable (a Celery retry), never hangs or 500s (issue 20)."""

from __future__ import annotations

from typing import Any

import pytest

from app.errors import EngineUnavailable
from app.stores.cypher import CypherQueries
from app.stores.graph import GraphStore, GraphTx
from tests.conftest import make_settings

# Counts to a billion: far longer than the timeouts below, and touches no data.
SLOW = "UNWIND range(1, 1000000000) AS x WITH x WHERE x < 0 RETURN count(x) AS n"


@pytest.fixture
def slow_graph(services: Any, tmp_path: Any) -> Any:
    settings = make_settings(services, tmp_path, HIPPOGRAPH_NEO4J_QUERY_TIMEOUT="0.5")
    store = GraphStore.connect(settings, CypherQueries({"test.slow": SLOW, "test.fast": "RETURN 1 AS n"}))
    yield store
    store.close()


def test_the_timeout_comes_from_the_settings(slow_graph: GraphStore) -> None:
    assert slow_graph.query_timeout_s == 0.5
    assert slow_graph.read("test.fast") == [{"n": 1}]


@pytest.mark.parametrize("call", ["read", "write", "write_transaction"])
def test_a_query_over_the_timeout_is_stopped_and_engine_unavailable(slow_graph: GraphStore, call: str) -> None:
    import time

    started = time.monotonic()
    with pytest.raises(EngineUnavailable) as caught:
        if call == "write_transaction":
            slow_graph.write_transaction(lambda tx: GraphTx.run(tx, "test.slow"))
        else:
            getattr(slow_graph, call)("test.slow")
    assert caught.value.engine == "neo4j"
    assert time.monotonic() - started < 15  # stopped by the server, not run to the end
