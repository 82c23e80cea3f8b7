"""`GET /metrics`: Prometheus text format (app/observability/metrics.py). Open like the health probes
(app/api/auth.py guards `/v1` and `/mcp` only): it holds no memory content, and namespace names only
with `HIPPOGRAPH_METRICS_NAMESPACES=1`.

Layers of one concept (one file name): `app/observability/metrics.py` (the metrics);
`app/api/metrics.py` (`GET /metrics`)."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from app.observability.metrics import CONTENT_TYPE

router = APIRouter(tags=["health"])
MEDIA_TYPE = CONTENT_TYPE.split(";", 1)[0]


@router.get(
    "/metrics",
    response_class=Response,
    # The media type without its parameters (version, charset): the form OpenAPI tools match on.
    responses={200: {"description": CONTENT_TYPE, "content": {MEDIA_TYPE: {"schema": {"type": "string"}}}}},
)
def metrics(request: Request) -> Response:
    """Every metric of this process; engine availability and queue depth are read now (within the
    readiness timeout)."""
    runtime = request.app.state.runtime
    runtime.refresh_metrics(request.app.state.ingest_queue.depth)
    return Response(runtime.metrics.exposition(), media_type=CONTENT_TYPE)
