"""The access a call runs under: one namespace and the authenticated caller (app/api/access.py
builds it from the route's declared role).

Layers of one concept (one file name): `app/api/access.py` (the role each route needs, as FastAPI
dependencies); `app/operations/access.py` (the `Access` a call runs under)."""

from __future__ import annotations

from dataclasses import dataclass

from app.domain.keys import Caller, Viewer
from app.operations.errors import ApiError


@dataclass(frozen=True)
class Access:
    """An authorized call on one namespace."""

    namespace: str
    caller: Caller

    @property
    def viewer(self) -> Viewer:
        return self.caller.viewer(self.namespace)

    def writing_agent(self, requested: str | None, field: str = "agent_id") -> str:
        """The agent a write is recorded under: the key's own. Only the bootstrap admin may write
        (or ask) as another agent; any other key naming a different agent is refused."""
        if requested is None or requested == self.caller.agent_id:
            return self.caller.agent_id
        if self.caller.is_bootstrap:
            return requested
        raise ApiError(
            403, "forbidden", f"{field}: this key belongs to agent {self.caller.agent_id!r}, not {requested!r}", field
        )
