"""The tools for models over REST: their schemas (OpenAI function calling) and running one on a namespace."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path
from fastapi.encoders import jsonable_encoder
from fastapi.responses import JSONResponse
from pydantic import ValidationError

from app.api.access import AnyKey, Engines, ReadAccess, authorize
from app.api.bodies import JsonBodyRoute
from app.api.errors import error_responses, field_path
from app.domain.inputs import InputError
from app.memory.errors import NotFoundError
from app.operations.schemas import ToolCall
from app.tools import ADMIN_TOOLS, TOOLS
from hippograph.responses import ToolList, ToolResult

router = APIRouter(tags=["tools"], route_class=JsonBodyRoute)


ToolName = Annotated[str, Path(description="one of the tools GET /v1/tools lists, e.g. recall_memory")]


@router.get("/v1/tools", response_model=ToolList)
def list_tools(caller: AnyKey) -> dict[str, Any]:
    """The tools this key's role may run, in the OpenAI function-calling format: name, a description
    written for a model, and `parameters` (JSON Schema); all seven to a writer or admin, the six that
    only read to a reader (no `save_memory_note`), and `forget_memories` to an admin as well. Run one
    with POST /v1/namespaces/{ns}/tools/{name}."""
    tools = [*TOOLS.values(), *ADMIN_TOOLS.values()]
    return {"tools": [tool.function_spec() for tool in tools if caller.role.includes(tool.role)]}


@router.post("/v1/namespaces/{ns}/tools/{name}", response_model=ToolResult, responses=error_responses(404))
def run_tool(access: ReadAccess, name: ToolName, runtime: Engines, call: ToolCall | None = None) -> JSONResponse:
    """Run a tool on the namespace: `result` is exactly what the REST route it wraps answers. Each
    tool needs its own role (save_memory_note: writer; the others: reader). Unknown tool: 404; bad
    arguments: 422 naming `arguments.<field>`."""
    tool = TOOLS.get(name) or ADMIN_TOOLS.get(name)
    if tool is None:
        raise NotFoundError("name", f"no tool {name!r}; GET /v1/tools lists them")
    authorize(access.caller, access.namespace, tool.role)
    try:
        arguments = tool.arguments.model_validate((call or ToolCall()).arguments)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = field_path(("arguments", *first.get("loc", ())))
        raise InputError(field, first.get("msg", "invalid")) from None
    try:
        result = tool.run(access, runtime, arguments)
    except InputError as exc:  # the route's own checks name its fields; here they are arguments
        raise InputError(f"arguments.{exc.field}", exc.message) from None
    # Encoded as the wrapped routes' response models encode (clients/python/hippograph/responses.py: times by
    # `isoformat()`), so `result` is what the route answers.
    return JSONResponse({"tool": name, "result": jsonable_encoder(result)})
