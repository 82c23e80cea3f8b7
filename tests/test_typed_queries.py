"""The typed query classes (app/stores/queries/) run on the store, each call its own transaction, and
inside a `write_transaction`, all calls in it; a batched query refuses a transaction. Real Neo4j."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from app.stores.graph import GraphTx
from app.stores.queries.namespace_queries import NamespaceQueries


class Rollback(Exception):
    pass


def _upsert(queries: NamespaceQueries, namespace: str) -> bool:
    [row] = queries.upsert(
        namespace=namespace, now=datetime.now(UTC), capacity=None, low_water_ratio=None,
        default_capacity=1000, default_low_water_ratio=0.5,
    )  # fmt: skip
    return row["created"]


def test_on_the_store_each_call_commits(runtime, namespace: str) -> None:  # type: ignore[no-untyped-def]
    queries = NamespaceQueries(runtime.graph)
    assert queries.get(namespace=namespace) == []
    try:
        assert _upsert(queries, namespace) is True
        [row] = queries.get(namespace=namespace)  # a read in a transaction of its own sees the write
        assert row["namespace"]["name"] == namespace and row["namespace"]["capacity"] == 1000
        assert queries.count_memories(namespace=namespace) == [{"count": 0}]
    finally:
        runtime.namespaces.delete(namespace)


def test_in_a_transaction_the_calls_share_it(runtime, namespace: str) -> None:  # type: ignore[no-untyped-def]
    seen: list[int] = []

    def work(tx: GraphTx) -> None:
        queries = NamespaceQueries(tx)
        _upsert(queries, namespace)
        seen.append(len(queries.get(namespace=namespace)))  # its own uncommitted write
        raise Rollback

    with pytest.raises(Rollback):
        runtime.graph.write_transaction(work)
    assert seen == [1]
    assert NamespaceQueries(runtime.graph).get(namespace=namespace) == []  # rolled back


def test_a_batched_query_refuses_a_transaction(runtime, namespace: str) -> None:  # type: ignore[no-untyped-def]
    def work(tx: GraphTx) -> None:
        NamespaceQueries(tx).delete_memories(namespace=namespace)

    with pytest.raises(TypeError, match="namespace.delete_memories commits in batches"):
        runtime.graph.write_transaction(work)
