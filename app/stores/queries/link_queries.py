"""Typed calls of cypher/link.cypher (app/stores/queries/__init__.py)."""

from __future__ import annotations

from typing import Any, TypedDict, cast

from app.stores.queries.runner import Queries


class NewLink(TypedDict):
    """A relationship to create (`app/memory/records.link_row`): its type, oriented ends, properties."""

    type: str
    source_id: str
    target_id: str
    properties: dict[str, Any]


class CreateRow(TypedDict):
    type: str
    source_id: str
    target_id: str
    created: bool


class LinkRow(TypedDict):
    type: str
    source_id: str
    target_id: str
    properties: dict[str, Any]


class LinkQueries(Queries):
    def create(self, *, namespace: str, links: list[NewLink]) -> list[CreateRow]:
        return cast("list[CreateRow]", self._write("link.create", namespace=namespace, links=links))

    def get(self, *, namespace: str, source_id: str, type: str, target_id: str) -> list[LinkRow]:
        return cast(
            "list[LinkRow]",
            self._write("link.get", namespace=namespace, source_id=source_id, type=type, target_id=target_id),
        )

    def of_node(self, *, namespace: str, id: str) -> list[LinkRow]:
        return cast("list[LinkRow]", self._read("link.of_node", namespace=namespace, id=id))
