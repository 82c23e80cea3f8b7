"""The FastAPI application factory."""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.routing import APIRoute

from app.api import (
    analytics,
    context,
    dead_letters,
    entities,
    forget,
    health,
    jobs,
    keys,
    memories,
    metrics,
    recall,
    runs,
    tasks,
    tools,
    turns,
)
from app.api.access import declare_bearer_scheme, document_access
from app.api.auth import BearerAuthentication
from app.api.body_limit import BodyLimits
from app.api.docs import mount_docs
from app.api.errors import install_error_handlers
from app.api.explorer import mount_explorer
from app.api.rate_limit import RateLimits, role_limits
from app.mcp.http import McpEndpoint
from app.observability.middleware import RequestObservation
from app.runtime import Runtime
from app.settings import Settings, get_settings
from jobs.host import ingest_queue, open_runtime


def operation_id(route: APIRoute) -> str:
    """A route's OpenAPI operation id: its function's name (`save_memory`), unique app-wide."""
    return route.name


def create_app(settings: Settings | None = None, runtime: Runtime | None = None) -> FastAPI:
    """Build the API. Pass `runtime` to share already-open engines (tests); else they open at start-up."""
    mcp = McpEndpoint()
    settings = settings or (runtime.settings if runtime is not None else get_settings())

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        owned = runtime is None
        app.state.runtime = runtime or open_runtime(settings)
        app.state.ingest_queue = ingest_queue(app.state.runtime)
        # What start-up allocated lives as long as the app: out of the collector's sight (settings
        # `gc_freeze`). Garbage is collected first, so none of it is frozen; at shut-down the objects
        # are handed back (a process that starts apps one after another would keep every closed one).
        freeze = settings.gc_freeze
        if freeze:
            gc.collect()
            gc.freeze()
        try:
            async with mcp.running(app, app.version):  # the MCP session manager lives as long as the app
                yield
        finally:
            if freeze:
                gc.unfreeze()
            if owned:
                app.state.runtime.close()

    app = FastAPI(title="Hippograph", version="0.1.0", lifespan=lifespan, generate_unique_id_function=operation_id,
                  docs_url=None, redoc_url=None)  # served by mount_docs, with local assets
    # Added first, so it runs inside the request-id middleware that install_error_handlers adds.
    app.add_middleware(RateLimits, limits=role_limits(settings))  # counts the caller BearerAuthentication found
    app.add_middleware(BearerAuthentication)
    # Outside the authentication: a body too large is refused before the key is even looked up.
    app.add_middleware(BodyLimits, max_body_bytes=settings.max_body_bytes,
                       max_batch_body_bytes=settings.max_batch_body_bytes)  # fmt: skip
    install_error_handlers(app)
    routers = [
        health.router,
        metrics.router,
        memories.router,
        entities.router,
        turns.router,
        dead_letters.router,
        forget.router,
        jobs.router,
        recall.router,
        tasks.router,
        keys.router,
        keys.identity_router,
        analytics.router,
        tools.router,
        runs.router,
        context.router,
    ]
    document_access(routers)
    for router in routers:
        app.include_router(router)
    # Outermost of ours: times the whole request and reads the request id and caller the inner ones set.
    app.add_middleware(RequestObservation, routes=[route for router in routers for route in router.routes])
    mount_docs(app)  # /docs and /redoc, their assets from a package (no CDN)
    mount_explorer(app)  # the static memory explorer page (it calls the read routes above)
    app.mount("/mcp", mcp)  # the tools over MCP (streamable HTTP); BearerAuthentication guards it
    declare_bearer_scheme(app)
    return app
