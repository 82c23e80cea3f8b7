"""The read-only Cypher endpoint's body (`POST …/cypher`, the graph_query tool).

Layers of one concept (one file name): `app/api/analytics.py` (the routes);
`app/operations/analytics.py` (the body the route and the graph_query tool share)."""

from __future__ import annotations

from typing import Any

from app.analytics.admission import CypherBusy
from app.analytics.cypher_surface import CypherFailed, CypherForbidden, CypherOutOfMemory, CypherTimeout
from app.analytics.guard import CypherRefused
from app.operations.access import Access
from app.operations.errors import ApiError
from app.operations.schemas import CypherBody
from app.runtime import Runtime


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
