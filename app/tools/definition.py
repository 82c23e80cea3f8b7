"""What a tool is: a name, a description written for a model, an arguments model whose JSON schema
is the tool's `parameters`, the role it needs, and a run function that calls the very code path of
the REST route it wraps (so a tool answers exactly what the route answers)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from app.domain.keys import Role
from app.operations.access import Access
from app.runtime import Runtime


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    arguments: type[BaseModel]
    role: Role
    run: Callable[[Access, Runtime, Any], dict[str, Any]]

    def parameters(self) -> dict[str, Any]:
        """The arguments' JSON Schema (draft 2020-12), self-contained: no `$ref`, no `$defs`. The model's
        own docstring is for developers; the tool's description speaks to the model."""
        schema = inline_refs(self.arguments.model_json_schema())
        schema.pop("description", None)
        schema.pop("title", None)
        return schema

    def function_spec(self) -> dict[str, Any]:
        """The tool in the OpenAI function-calling format."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters()},
        }


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with every local `$ref` replaced by the definition it names (keywords written next to
    the `$ref`, such as a description, are kept; the definition's own docstring is not: the field's
    description says what it means here). Tool schemas hold no recursive models."""
    definitions = schema.get("$defs", {})

    def resolve(node: Any) -> Any:
        if isinstance(node, list):
            return [resolve(item) for item in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            name = str(node["$ref"]).removeprefix("#/$defs/")
            if name not in definitions:
                raise ValueError(f"unresolvable $ref {node['$ref']!r}")
            merged = {key: value for key, value in copy.deepcopy(definitions[name]).items() if key != "description"}
            merged.update({key: value for key, value in node.items() if key != "$ref"})
            return resolve(merged)
        return {key: resolve(value) for key, value in node.items() if key != "$defs"}

    resolved: dict[str, Any] = resolve(schema)
    return resolved
