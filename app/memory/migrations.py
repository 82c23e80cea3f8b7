"""Data migrations of existing databases, run at start-up right after the schema (the schema itself
is `cypher/schema.cypher`). Each runs until it completes once; a marker node then skips it."""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from app.domain.inputs import namespace_term
from app.stores.graph import GraphStore

log = logging.getLogger(__name__)

NAMESPACE_TERM = "namespace_term"


def migrate(graph: GraphStore) -> None:
    if not graph.read("migrate.completed", migration=NAMESPACE_TERM):
        add_namespace_terms(graph)
        graph.write("migrate.mark_completed", migration=NAMESPACE_TERM, now=datetime.now(UTC))


def add_namespace_terms(graph: GraphStore) -> None:
    """Give nodes written before `namespace_term` existed their term, so the full-text seeds of
    recall (which require it) find them again."""
    namespaces = [row["namespace"] for row in graph.read("migrate.namespaces_without_term")]
    for namespace in namespaces:
        log.info("adding namespace_term to the nodes of namespace %r", namespace)
        graph.run_batched("migrate.set_namespace_term", namespace=namespace, namespace_term=namespace_term(namespace))
