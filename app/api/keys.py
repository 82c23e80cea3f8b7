"""v1 routes of API keys: create (shown once), list (never the secret), revoke; and `GET /v1/me`, the
calling key itself (clients take their namespace from it).

Layers of one concept (one file name): `app/domain/keys.py` (roles, callers and viewers, pure);
`app/auth/keys.py` (API keys over the graph); `app/api/keys.py` (the key routes)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Path, status
from starlette.concurrency import run_in_threadpool

from app.api.access import AdminKey, AnyKey, Engines, authorize
from app.api.bodies import JsonBodyRoute
from app.api.errors import error_responses
from app.domain.inputs import InputError, check_namespace
from app.domain.keys import BOOTSTRAP_KEY_ID, Role
from app.memory.errors import NotFoundError
from app.operations.schemas import KeyBody
from hippograph.responses import CreatedKey, KeyIdentity, KeyList, KeyRevoked

router = APIRouter(prefix="/v1/keys", tags=["keys"], route_class=JsonBodyRoute)
identity_router = APIRouter(tags=["keys"], route_class=JsonBodyRoute)


@identity_router.get("/v1/me", response_model=KeyIdentity)
async def who_am_i(caller: AnyKey) -> dict[str, Any]:
    """The calling key: its id, role, namespace (null for the bootstrap admin, which holds every
    namespace) and agent. The client, the `hippograph` command and the MCP bridge take the namespace
    from here when none is named."""
    return {"key_id": caller.key_id, "namespace": caller.namespace, "role": caller.role,
            "agent_id": caller.agent_id, "expires_at": caller.expires_at}  # fmt: skip


@router.post("", status_code=status.HTTP_201_CREATED, response_model=CreatedKey, responses=error_responses(404))
async def create_key(body: KeyBody, caller: AdminKey, runtime: Engines) -> dict[str, Any]:
    """A new key with one role on one namespace, bound to an agent (admin of that namespace, or the
    bootstrap admin). The answer's `key` is shown this once; only its hash is stored."""
    namespace = check_namespace(body.namespace)
    authorize(caller, namespace, Role.ADMIN)
    if body.expires_at is not None and body.expires_at <= datetime.now(UTC):
        raise InputError("expires_at", "must be in the future")
    await run_in_threadpool(runtime.namespaces.require, namespace)
    record, key = await run_in_threadpool(
        runtime.keys.create, namespace, body.role, body.agent_id, body.label, body.expires_at
    )
    return {**record, "key": key}


@router.get("", response_model=KeyList)
async def list_keys(caller: AnyKey, runtime: Engines) -> dict[str, Any]:
    """Keys, never their secrets: every key for the bootstrap admin, the namespace's keys for an
    admin of it, and a reader's or writer's own key."""
    if caller.is_bootstrap:
        items = await run_in_threadpool(runtime.keys.listing, None)
    else:
        assert caller.namespace is not None
        items = await run_in_threadpool(runtime.keys.listing, caller.namespace)
        if not caller.may(Role.ADMIN, caller.namespace):
            items = [item for item in items if item["id"] == caller.key_id]
    return {"items": items}


@router.delete("/{key_id}", response_model=KeyRevoked, responses=error_responses(404))
async def revoke_key(
    key_id: Annotated[str, Path(description="the key's id (from POST or GET /v1/keys)")],
    caller: AdminKey,
    runtime: Engines,
) -> dict[str, Any]:
    """Revoke a key (admin of its namespace, or the bootstrap admin): refused at once by this
    process, and by other API processes within their key cache's TTL (HIPPOGRAPH_KEY_CACHE_SECONDS)."""
    if key_id == BOOTSTRAP_KEY_ID:
        raise InputError("key_id", "the bootstrap key is changed through HIPPOGRAPH_ADMIN_KEY, not revoked")
    record = await run_in_threadpool(runtime.keys.get, key_id)
    if record is None:
        raise NotFoundError("key_id", f"key {key_id!r} does not exist")
    authorize(caller, record["namespace"], Role.ADMIN)
    await run_in_threadpool(runtime.keys.revoke, key_id)
    return {"revoked": key_id}
