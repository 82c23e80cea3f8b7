"""The analysts' read-only Cypher endpoint and its catalogue of named analytics queries."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from app.analytics.admission import CypherBusy
from app.analytics.cypher_surface import CypherFailed, CypherForbidden, CypherOutOfMemory, CypherTimeout
from app.analytics.guard import CypherRefused
from app.api.access import Access, Engines, ReadAccess
from app.api.bodies import JsonBodyRoute
from app.api.errors import ApiError, error_responses
from app.api.schemas import CypherBody
from app.runtime import Runtime
from hippograph.responses import AnalyticsQueries, CypherResult

router = APIRouter(prefix="/v1/namespaces", tags=["analytics"], route_class=JsonBodyRoute)


@router.post("/{ns}/cypher", response_model=CypherResult, responses=error_responses(404))
def run_cypher(access: ReadAccess, body: CypherBody, runtime: Engines) -> dict[str, Any]:
    """Run a read-only Cypher query (or a named analytics query) on the namespace. The server binds
    `$namespace`; Neo4j's plan must tie every read to it before any other predicate (docs/architecture.md,
    "Cypher"). Rows: nodes as property maps with `_labels`, relationships with `_type`, `_start`, `_end`;
    at most `limit` rows and HIPPOGRAPH_CYPHER_MAX_BYTES of them (`truncated_reason`)."""
    return query_graph(access, runtime, body)


def query_graph(access: Access, runtime: Runtime, body: CypherBody) -> dict[str, Any]:
    """The Cypher route's body (also the graph_query tool)."""
    try:
        return runtime.cypher_surface.run(
            access.namespace, body.query, body.name, body.params, body.limit, viewer=access.viewer
        )
    except CypherRefused as exc:
        raise ApiError(422, "cypher_refused", exc.reason, field="query") from exc
    except CypherTimeout as exc:
        raise ApiError(422, "cypher_timeout", str(exc), field="query") from exc
    except CypherOutOfMemory as exc:
        raise ApiError(422, "cypher_memory", str(exc), field="query") from exc
    except CypherBusy as exc:
        raise ApiError(429, "cypher_busy", str(exc), retry_after_s=exc.retry_after_s) from exc
    except CypherFailed as exc:
        raise ApiError(422, "cypher_error", str(exc), field="query") from exc
    except CypherForbidden as exc:
        raise ApiError(403, "forbidden", str(exc)) from exc


@router.get("/{ns}/cypher/queries", response_model=AnalyticsQueries)
def analytics_queries(access: ReadAccess, runtime: Engines) -> dict[str, Any]:
    """The named analytics queries: name, description, parameters (name, type, default, description)."""
    return {"queries": runtime.cypher_surface.catalogue()}
