"""Reading Neo4j's plan of one of the product's named queries (cypher/*.cypher), for tests that pin
how a query reaches its rows (an index seek on its namespace, no scan of every namespace, no sort)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.analytics.guard import operator_name


def explained(runtime: Any, name: str, **params: Any) -> list[tuple[str, str]]:
    """The operators of the plan of query `name` (EXPLAIN: nothing runs), as (operator, details),
    named as the Cypher guard names them (`NodeUniqueIndexSeek(Locking)@neo4j` -> `NodeUniqueIndexSeek`)."""
    _, summary, _ = runtime.graph.driver.execute_query(f"EXPLAIN {runtime.graph.queries[name]}", params)
    return operators(summary.plan)


def operators(plan: Mapping[str, Any]) -> list[tuple[str, str]]:
    own = (operator_name(plan), str(plan.get("args", {}).get("Details", "")))
    return [own, *(op for child in plan.get("children", []) for op in operators(child))]
