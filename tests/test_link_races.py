"""Relationship creation under concurrency, on a real Neo4j: `link.create` is called by several
writers at once (write tasks, deferred SEMANTIC linking, Hebbian flushes), and the docs promise one
relationship per pair and type."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

from app.domain.model import RelType
from app.memory.records import create_links, link_row

NODES = 40
WRITERS = 8
ROUNDS = 5


def test_concurrent_writers_of_the_same_links_store_each_pair_once(runtime, api, cypher, namespace: str) -> None:
    api.put(f"/v1/namespaces/{namespace}")
    cypher(
        "UNWIND range(0, $n - 1) AS i CREATE (:Memory:Knowledge {namespace: $ns, id: 'k' + toString(i)})",
        ns=namespace, n=NODES,
    )  # fmt: skip
    now = datetime.now(UTC)
    pairs = [(f"k{i}", f"k{j}") for i in range(NODES) for j in range(i + 1, min(NODES, i + 4))]

    def write(writer: int) -> int:
        # Each writer states every pair, half of them the other way round (SEMANTIC is symmetric).
        rows = [link_row(RelType.SEMANTIC, *(pair if (n + writer) % 2 else pair[::-1]), 0.8, now)
                for n, pair in enumerate(pairs)]  # fmt: skip
        created = runtime.graph.write_transaction(lambda tx: create_links(tx, namespace, rows))
        return sum(1 for row in created if row["created"])

    for _ in range(ROUNDS):
        cypher("MATCH (:Memory {namespace: $ns})-[r:SEMANTIC]-() DELETE r", ns=namespace)
        with ThreadPoolExecutor(WRITERS) as pool:
            created = sum(pool.map(write, range(WRITERS)))
        stored = cypher(
            "MATCH (a:Memory {namespace: $ns})-[r:SEMANTIC]->(b) RETURN a.id AS a, b.id AS b, count(r) AS n",
            ns=namespace,
        )
        assert sorted((row["a"], row["b"]) for row in stored) == sorted(tuple(sorted(p)) for p in pairs)  # oriented
        assert all(row["n"] == 1 for row in stored), [row for row in stored if row["n"] > 1]
        assert created == len(pairs)  # each pair counted as created by exactly one writer
