"""Typed calls of cypher/cypher_endpoint.cypher (app/stores/queries/__init__.py)."""

from __future__ import annotations

from typing import TypedDict, cast

from app.stores.queries.runner import Queries


class EndIdsRow(TypedDict):
    element_id: str
    id: str


class HiddenPrivateRow(TypedDict):
    hidden: int


class CypherEndpointQueries(Queries):
    def end_ids(self, *, namespace: str, element_ids: list[str]) -> list[EndIdsRow]:
        return cast(
            "list[EndIdsRow]", self._read("cypher_endpoint.end_ids", namespace=namespace, element_ids=element_ids)
        )

    def hidden_private(self, *, namespace: str, agent_id: str | None) -> list[HiddenPrivateRow]:
        return cast(
            "list[HiddenPrivateRow]",
            self._read("cypher_endpoint.hidden_private", namespace=namespace, agent_id=agent_id),
        )
