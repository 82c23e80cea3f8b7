"""Data migrations of existing databases, run at start-up right after the schema (the schema itself
is `cypher/schema.cypher`). Each runs until it completes once; a marker node then skips it."""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from app.domain.inputs import namespace_term
from app.memory.entities import entity_key
from app.stores.graph import GraphStore
from app.stores.queries.migration_queries import MigrationQueries, NameKey

log = logging.getLogger(__name__)

NAMESPACE_TERM = "namespace_term"
ENTITY_NAME_KEYS = "entity_name_keys"
_NAME_KEY_PAGE = 5000


def migrate(graph: GraphStore) -> None:
    queries = MigrationQueries(graph)
    if not queries.completed(migration=NAMESPACE_TERM):
        add_namespace_terms(graph)
        queries.mark_completed(migration=NAMESPACE_TERM, now=datetime.now(UTC))
    if not queries.completed(migration=ENTITY_NAME_KEYS):
        add_entity_name_keys(graph)
        queries.mark_completed(migration=ENTITY_NAME_KEYS, now=datetime.now(UTC))


def add_entity_name_keys(graph: GraphStore) -> int:
    """Give Person and Concept nodes saved before entity resolution their `name_key`, so a speaker or
    a saved memory of the same name resolves to them (app/memory/entities.py); returns how many."""
    queries, done = MigrationQueries(graph), 0
    while rows := queries.entities_without_name_key(limit=_NAME_KEY_PAGE):
        keyed = [NameKey(namespace=r["namespace"], id=r["id"], name_key=entity_key(r["label"] or "")) for r in rows]
        queries.set_name_keys(rows=keyed)
        done += len(keyed)
    if done:
        log.info("added name_key to %d Person/Concept nodes", done)
    return done


def add_namespace_terms(graph: GraphStore) -> None:
    """Give nodes written before `namespace_term` existed their term, so the full-text seeds of
    recall (which require it) find them again."""
    queries = MigrationQueries(graph)
    for namespace in [row["namespace"] for row in queries.namespaces_without_term()]:
        log.info("adding namespace_term to the nodes of namespace %r", namespace)
        queries.set_namespace_term(namespace=namespace, namespace_term=namespace_term(namespace))
