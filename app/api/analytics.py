"""The analysts' read-only Cypher endpoint and its catalogue of named analytics queries.

Layers of one concept (one file name): `app/api/analytics.py` (the routes);
`app/operations/analytics.py` (the body the route and the graph_query tool share)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from app.api.access import Engines, ReadAccess
from app.api.bodies import JsonBodyRoute
from app.api.errors import error_responses
from app.operations.analytics import query_graph
from app.operations.schemas import CypherBody
from hippograph.responses import AnalyticsQueries, CypherResult

router = APIRouter(prefix="/v1/namespaces", tags=["analytics"], route_class=JsonBodyRoute)


@router.post("/{ns}/cypher", response_model=CypherResult, responses=error_responses(404))
def run_cypher(access: ReadAccess, body: CypherBody, runtime: Engines) -> dict[str, Any]:
    """Run a read-only Cypher query (or a named analytics query) on the namespace. The server binds
    `$namespace`; Neo4j's plan must tie every read to it before any other predicate (docs/architecture.md,
    "Cypher"). Rows: nodes as property maps with `_labels`, relationships with `_type`, `_start`, `_end`;
    at most `limit` rows and HIPPOGRAPH_CYPHER_MAX_BYTES of them (`truncated_reason`)."""
    return query_graph(access, runtime, body)


@router.get("/{ns}/cypher/queries", response_model=AnalyticsQueries)
def analytics_queries(access: ReadAccess, runtime: Engines) -> dict[str, Any]:
    """The named analytics queries: name, description, parameters (name, type, default, description)."""
    return {"queries": runtime.cypher_surface.catalogue()}
