"""Who may do what: every `/v1` route declares the role it needs on its namespace through one of
the dependencies below (the caller was authenticated by `app/api/auth.py`).

Roles include each other: reader < writer < admin. A key holds one role on one namespace; the
bootstrap admin key holds admin on every namespace. Refusals are 403 in the one error shape, saying
what is missing. The role each route needs is also written into OpenAPI (`x-required-role`).

Layers of one concept (one file name): `app/api/access.py` (the role each route needs, as FastAPI
dependencies); `app/operations/access.py` (the `Access` a call runs under)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Path, Request
from fastapi.dependencies.models import Dependant
from fastapi.dependencies.utils import get_flat_params
from fastapi.routing import APIRoute

from app.api.errors import error_responses
from app.domain.inputs import NAMESPACE_RULE, check_namespace
from app.domain.keys import Caller, Role
from app.memory.ingest_queue import IngestQueue
from app.operations.access import Access
from app.operations.errors import ApiError
from app.runtime import Runtime

NamespacePath = Annotated[str, Path(description=NAMESPACE_RULE)]


def caller_of(request: Request) -> Caller:
    caller: Caller | None = getattr(request.state, "caller", None)
    if caller is None:  # only reachable if a /v1 route were mounted outside the authentication
        raise ApiError(401, "unauthorized", "missing API key: send 'Authorization: Bearer <key>'")
    return caller


def authorize(caller: Caller, namespace: str, role: Role) -> Access:
    held = caller.role_on(namespace)
    if held is None:
        raise ApiError(
            403, "forbidden", f"this key is for namespace {caller.namespace!r}; it has no role on {namespace!r}"
        )
    if not held.includes(role):
        raise ApiError(
            403, "forbidden", f"this route needs the role {role.value!r} on {namespace!r}; the key is a {held.value!r}"
        )
    return Access(namespace, caller)


# Each is `async def` although it does no I/O: FastAPI runs a plain `def` dependency in its thread
# pool, a hop per dependency per request.
async def reader_access(request: Request, ns: NamespacePath) -> Access:
    return authorize(caller_of(request), check_namespace(ns), Role.READER)


async def writer_access(request: Request, ns: NamespacePath) -> Access:
    return authorize(caller_of(request), check_namespace(ns), Role.WRITER)


async def admin_access(request: Request, ns: NamespacePath) -> Access:
    return authorize(caller_of(request), check_namespace(ns), Role.ADMIN)


async def any_key(request: Request) -> Caller:
    """Routes outside a namespace (`/v1/keys`): any valid key; the route scopes what it shows."""
    return caller_of(request)


async def admin_key(request: Request) -> Caller:
    """Routes outside a namespace that only admins call (creating and revoking keys); the route
    then checks the namespace concerned."""
    caller = caller_of(request)
    if caller.role is not Role.ADMIN:
        raise ApiError(403, "forbidden", f"this route needs an admin key; the key is a {caller.role.value!r}")
    return caller


async def runtime_of(request: Request) -> Runtime:
    runtime: Runtime = request.app.state.runtime
    return runtime


ReadAccess = Annotated[Access, Depends(reader_access)]
WriteAccess = Annotated[Access, Depends(writer_access)]
AdminAccess = Annotated[Access, Depends(admin_access)]
AnyKey = Annotated[Caller, Depends(any_key)]
AdminKey = Annotated[Caller, Depends(admin_key)]
Engines = Annotated[Runtime, Depends(runtime_of)]


async def ingest_queue_of(request: Request) -> IngestQueue:
    queue: IngestQueue = request.app.state.ingest_queue
    return queue


IngestTasks = Annotated[IngestQueue, Depends(ingest_queue_of)]

REQUIRED_ROLES = {
    reader_access: Role.READER,
    writer_access: Role.WRITER,
    admin_access: Role.ADMIN,
    admin_key: Role.ADMIN,
}


def required_role(route: APIRoute) -> str | None:
    """The role a route's access dependency asks for ("reader", "writer", "admin"), "key" for routes
    any key may call, None for open routes."""

    def walk(dependant: Dependant) -> str | None:
        for sub in dependant.dependencies:
            if sub.call in REQUIRED_ROLES:
                return REQUIRED_ROLES[sub.call].value  # type: ignore[index]
            if sub.call is any_key:
                return "key"
            found = walk(sub)
            if found:
                return found
        return None

    return walk(route.dependant)


def document_access(routers: Iterable[APIRouter]) -> None:
    """Write into OpenAPI what each route's dependencies imply, so the document can never disagree
    with the code: the role (`x-required-role`, the bearer scheme, 401/403) derived from the access
    dependency, 429 for a route that needs a key, 422 for a route that takes parameters or a body,
    413 for one that takes a body, 503 for a `/v1` route (it reaches the engines, if only to look
    the key up); every one in the one error shape. A route declares its own further errors
    (`responses=error_responses(404)`). Call it on the routers before they are included (FastAPI
    builds the response models at inclusion)."""
    for router in routers:
        for route in router.routes:
            if not isinstance(route, APIRoute):
                continue
            statuses: list[int] = []
            if (role := required_role(route)) is not None:
                extra: dict[str, Any] = dict(route.openapi_extra or {})
                extra["x-required-role"] = role
                extra["security"] = [{"bearer": []}]
                route.openapi_extra = extra
                statuses += [401] if role == "key" else [401, 403]  # any valid key passes `any_key`
                statuses.append(429)  # app/api/rate_limit.py
            if takes_input(route):
                statuses.append(422)
            if takes_body(route):
                statuses.append(413)
            if route.path.startswith("/v1"):
                statuses.append(503)
            route.responses = {**error_responses(*statuses), **route.responses}


def takes_input(route: APIRoute) -> bool:
    """Whether a request can be refused as invalid (422): the route or its dependencies read path,
    query, header or cookie parameters, or a body (read by FastAPI, or raw by the route)."""
    return takes_body(route) or bool(get_flat_params(route.dependant))


def takes_body(route: APIRoute) -> bool:
    """Whether the route reads a body (FastAPI's, or raw by the route): it may answer 413."""
    return route.body_field is not None or "requestBody" in (route.openapi_extra or {})


def declare_bearer_scheme(app: FastAPI) -> None:
    """The `bearer` security scheme the operations above refer to."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = generate()
            schemes = schema.setdefault("components", {}).setdefault("securitySchemes", {})
            schemes["bearer"] = {"type": "http", "scheme": "bearer", "description": "an API key (POST /v1/keys)"}
        return app.openapi_schema or {}

    app.openapi = openapi  # type: ignore[method-assign]
