"""Round trips against the real engines: Cypher over Bolt, a Redis key."""

import uuid

import neo4j

from app.stores.graph import GraphStore
from app.stores.hot import connect_redis


def test_cypher_over_bolt_reaches_neo4j_5_26(settings) -> None:
    store = GraphStore.connect(settings)
    try:
        assert store.read("health.ping") == [{"ok": 1}]
        version = store.server_version()
        assert version.startswith("Neo4j Kernel 5.26."), version
        # The driver really talks Bolt to a server (not an in-process stand-in).
        assert store.driver.get_server_info().protocol_version >= (5, 0)
        assert isinstance(store.driver, neo4j.Driver)
    finally:
        store.close()


def test_redis_round_trips_a_key_with_expiry(settings) -> None:
    client = connect_redis(settings)
    key = f"test:{uuid.uuid4().hex}"
    try:
        assert client.set(key, "热窗口 hot window", ex=30)
        assert client.get(key) == "热窗口 hot window"
        assert 0 < client.ttl(key) <= 30
    finally:
        client.delete(key)
        client.close()
