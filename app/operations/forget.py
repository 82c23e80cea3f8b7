"""Forgetting on request's body (`POST …/forget`, the forget_memories tool).

Layers of one concept (one file name): `app/api/forget.py` (the routes); `app/operations/forget.py`
(the body the route and the forget_memories tool share)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.domain.keys import Role
from app.memory.erasure import Forgetter
from app.operations.access import Access
from app.operations.schemas import ForgetBody
from app.runtime import Runtime


def run_forget(access: Access, runtime: Runtime, body: ForgetBody) -> dict[str, Any]:
    """The body of `POST …/forget` (also the admins' `forget_memories` tool)."""
    what = body.to_domain()
    if not access.caller.is_bootstrap and access.caller.role is not Role.ADMIN:
        # A writer forgets what its own agent wrote: the filter is bound to it (403 when it names another).
        what = what.bound_to(access.writing_agent(what.agent_id))
    runtime.namespaces.require(access.namespace)
    by = Forgetter(access.caller.role.value, access.caller.agent_id, access.caller.key_id)
    return runtime.erasure.forget(access.namespace, what, by, datetime.now(UTC), dry_run=body.dry_run)
