"""Reading Neo4j's plan of one of the product's named queries (cypher/*.cypher), for tests that pin
how a query reaches its rows (an index seek on its namespace, no scan of every namespace)."""

from __future__ import annotations

from typing import Any

from app.stores.cypher import CypherQueries


def explained(runtime: Any, name: str, **params: Any) -> list[tuple[str, str]]:
    """The operators of the plan of query `name` (EXPLAIN: nothing runs), as (operator, details)."""
    _, summary, _ = runtime.graph.driver.execute_query(f"EXPLAIN {CypherQueries.load()[name]}", params)
    return operators(summary.plan)


def operators(plan: dict[str, Any]) -> list[tuple[str, str]]:
    own = (plan["operatorType"].split("@")[0], str(plan.get("args", {}).get("Details", "")))
    return [own, *(op for child in plan.get("children", []) for op in operators(child))]
