"""The tools for models over REST: their schemas (OpenAI function calling) and running one on a namespace."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import Field, ValidationError
from pydantic_core import to_jsonable_python

from app.api.access import AnyKey, Engines, ReadAccess, authorize
from app.api.errors import _field_path
from app.api.responses import ToolList, ToolResult
from app.api.schemas import Strict
from app.domain.inputs import InputError
from app.memory.errors import NotFoundError
from app.tools import TOOLS

router = APIRouter(tags=["tools"])


class ToolCall(Strict):
    arguments: dict[str, Any] = Field(
        default_factory=dict, description="the tool's arguments, as its `parameters` schema describes them"
    )


@router.get("/v1/tools", response_model=ToolList)
def list_tools(caller: AnyKey) -> dict[str, Any]:
    """The seven tools in the OpenAI function-calling format: name, a description written for a model,
    and `parameters` (JSON Schema). Run one with POST /v1/namespaces/{ns}/tools/{name}."""
    return {"tools": [tool.function_spec() for tool in TOOLS.values()]}


@router.post("/v1/namespaces/{ns}/tools/{name}", response_model=ToolResult)
def run_tool(access: ReadAccess, name: str, runtime: Engines, call: ToolCall | None = None) -> JSONResponse:
    """Run a tool on the namespace: `result` is exactly what the REST route it wraps answers. Each
    tool needs its own role (save_memory_note: writer; the others: reader). Unknown tool: 404; bad
    arguments: 422 naming `arguments.<field>`."""
    tool = TOOLS.get(name)
    if tool is None:
        raise NotFoundError("name", f"no tool {name!r}; GET /v1/tools lists them")
    authorize(access.caller, access.namespace, tool.role)
    try:
        arguments = tool.arguments.model_validate((call or ToolCall()).arguments)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = _field_path(("arguments", *first.get("loc", ())))
        raise InputError(field, first.get("msg", "invalid")) from None
    try:
        result = tool.run(access, runtime, arguments)
    except InputError as exc:  # the route's own checks name its fields; here they are arguments
        raise InputError(f"arguments.{exc.field}", exc.message) from None
    # Encoded as the wrapped routes' responses are (pydantic's JSON mode: a UTC time ends in "Z"), so
    # `result` is what the route answers.
    return JSONResponse({"tool": name, "result": to_jsonable_python(result)})
