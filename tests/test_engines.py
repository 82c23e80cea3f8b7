"""Round trips against the real engines: Cypher over Bolt, a Redis key."""

import threading
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone

import neo4j
import pytest

from app.stores.graph import GraphStore, parse_datetime
from app.stores.hot import connect_redis
from app.stores.queries.migration_queries import MigrationQueries


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


@pytest.mark.parametrize(
    "value",
    [
        datetime(2024, 5, 15, 10, 0, tzinfo=UTC),
        datetime(2024, 5, 15, 10, 0, 1, 123456, tzinfo=timezone(timedelta(hours=8))),
        datetime(2024, 3, 31, 3, 30, 59, tzinfo=timezone(timedelta(hours=-5, minutes=-30))),
    ],
)
def test_a_datetime_rendered_by_cypher_parses_back_to_the_same_time_and_offset(cypher, value: datetime) -> None:
    """Recall reads card times as `toString()` text (see cypher/recall.cypher `cards`)."""
    row = cypher("RETURN toString($value) AS text, $value AS stored", value=value)[0]
    parsed = parse_datetime(row["text"])
    assert parsed == value == row["stored"]
    assert parsed is not None and parsed.utcoffset() == value.utcoffset()


def test_a_datetime_with_a_zone_name_keeps_its_offset() -> None:
    # What toString() renders for a DateTime stored with a named zone.
    parsed = parse_datetime("2024-03-31T03:30+02:00[Europe/Berlin]")
    assert parsed == datetime(2024, 3, 31, 3, 30, tzinfo=timezone(timedelta(hours=2)))
    assert parse_datetime(None) is None


def test_processes_applying_the_schema_at_once_all_start(settings) -> None:
    """Both may pass `IF NOT EXISTS` before either commits; the later one is refused with "an
    equivalent index already exists", which is what it asked for (seen: four test workers sharing one
    Neo4j). Here an index is dropped and four stores apply the schema at once, a few times over."""
    stores = [GraphStore.connect(settings) for _ in range(4)]
    try:
        for _ in range(5):
            stores[0].driver.execute_query("DROP INDEX memory_importance IF EXISTS")
            _at_once(stores, GraphStore.apply_schema)
            records, _, _ = stores[0].driver.execute_query("SHOW INDEXES YIELD name WHERE name = 'memory_importance'")
            assert len(records) == 1
    finally:
        stores[0].apply_schema()
        for store in stores:
            store.close()


def test_processes_finishing_a_migration_at_once_record_it_once(settings) -> None:
    """`migrate` runs at every start-up; processes starting at once may all find a migration not yet
    done and all mark it (the `migration_name` constraint makes the MERGE lock the name)."""
    name = f"test-{uuid.uuid4().hex[:12]}"
    stores = [GraphStore.connect(settings) for _ in range(4)]
    stores[0].apply_schema()  # as every start-up does before `migrate`
    try:
        _at_once(stores, lambda store: MigrationQueries(store).mark_completed(migration=name, now=datetime.now(UTC)))
        records, _, _ = stores[0].driver.execute_query("MATCH (m:Migration {name: $name}) RETURN m", name=name)
        assert len(records) == 1
    finally:
        stores[0].driver.execute_query("MATCH (m:Migration {name: $name}) DELETE m", name=name)
        for store in stores:
            store.close()


def _at_once(stores: list[GraphStore], action: Callable[[GraphStore], object]) -> None:
    """`action` on every store, in a thread each, released together; none may raise or hang."""
    start, failures = threading.Barrier(len(stores)), []

    def run(store: GraphStore) -> None:
        start.wait()
        try:
            action(store)
        except Exception as exc:  # noqa: BLE001 - the test reports what was raised
            failures.append(exc)

    threads = [threading.Thread(target=run, args=(store,)) for store in stores]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert failures == [] and not any(thread.is_alive() for thread in threads)
