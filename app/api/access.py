"""The one place a request's namespace is checked. API keys and roles will be enforced here."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Path, Request

from app.domain.inputs import check_namespace
from app.runtime import Runtime


# Both are `async def` although they do no I/O: FastAPI runs a plain `def` dependency in its thread
# pool, a hop per dependency per request.
async def namespace_access(ns: Annotated[str, Path(description="1-64 letters, digits, '-', '_', '.'")]) -> str:
    """Validates the name (an InputError answers 422 naming `namespace`)."""
    return check_namespace(ns)


async def runtime_of(request: Request) -> Runtime:
    runtime: Runtime = request.app.state.runtime
    return runtime


Namespace = Annotated[str, Depends(namespace_access)]
Engines = Annotated[Runtime, Depends(runtime_of)]
