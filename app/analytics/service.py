"""The analysts' read-only Cypher endpoint: plan check, bounded run, JSON rows.

A query (the caller's text, or a named one of the analytics catalogue) runs in four steps:
1. `$namespace` is bound by the server (a caller's `params.namespace` is refused);
2. Neo4j plans it (`EXPLAIN`, READ session) and the guard checks the plan (`guard.check_plan`);
3. it runs in a READ transaction (Neo4j itself refuses writes) with a server-side timeout, reading
   at most `limit` + 1 records (`truncated` says there were more);
4. the values become JSON (`values.ValueConverter`), which checks again that every node returned
   is a memory of the namespace.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from app.analytics.catalog import AnalyticsCatalog
from app.analytics.guard import CypherRefused, check_plan
from app.analytics.values import ValueConverter
from app.domain.inputs import InputError
from app.domain.keys import Viewer
from app.stores.graph import GraphStore, UserQueryError

MAX_ROWS = 10_000


class CypherTimeout(Exception):
    """The query ran longer than the endpoint's timeout."""


class CypherFailed(Exception):
    """Neo4j refused the query (syntax, types, a missing parameter); the message is Neo4j's."""


class CypherForbidden(Exception):
    """The caller may not read everything the endpoint can reach (private memories of others)."""


@dataclass
class CypherSurface:
    graph: GraphStore
    catalog: AnalyticsCatalog
    timeout_s: float = 5.0
    default_limit: int = 1_000

    def catalogue(self) -> list[dict[str, Any]]:
        """Each analytics query's name, description and parameters (name, type, default, description)."""
        return [query.describe() for query in self.catalog]

    def run(
        self,
        namespace: str,
        query: str | None = None,
        name: str | None = None,
        params: dict[str, Any] | None = None,
        limit: int | None = None,
        viewer: Viewer | None = None,
    ) -> dict[str, Any]:
        """Columns, rows as JSON, whether rows were left out, and the time taken. Raises
        `CypherRefused`, `CypherTimeout`, `CypherFailed`, `CypherForbidden` or `InputError`."""
        started = time.perf_counter()
        given = dict(params or {})
        if "namespace" in given:
            raise InputError("params.namespace", "is bound by the server to the namespace of the path; leave it out")
        if (query is None) == (name is None):
            raise InputError("query", "give either `query` or `name`")
        if name is not None:
            named = self.catalog[name]
            text, bound = named.text, named.bind(given)
        else:
            text, bound = str(query), given
        bound["namespace"] = namespace
        rows_wanted = min(limit or self.default_limit, MAX_ROWS)
        self._check_viewer(namespace, viewer)

        try:
            query_type, plan, database = self.graph.explain(text, bound)
        except UserQueryError as exc:
            raise CypherFailed(exc.message) from exc
        if database not in (None, self.graph.database):
            raise CypherRefused(f"the query reads database {database!r}; only the memory graph may be read")
        check_plan(query_type, plan)
        try:
            columns, records, truncated = self.graph.read_user_query(text, bound, self.timeout_s, rows_wanted)
        except UserQueryError as exc:
            if exc.timed_out:
                raise CypherTimeout(f"the query ran longer than {self.timeout_s:g} s and was stopped") from exc
            if "AccessMode" in exc.code or "Forbidden" in exc.code:
                raise CypherRefused(exc.message) from exc
            raise CypherFailed(exc.message) from exc

        converter = ValueConverter(namespace)
        rows = [dict(zip(columns, converter.convert(record), strict=True)) for record in records]
        if pending := converter.pending_ends():
            found = self.graph.read("cypher_endpoint.end_ids", namespace=namespace, element_ids=pending)
            converter.fill_ends({row["element_id"]: row["id"] for row in found})
        return {
            "columns": columns,
            "rows": rows,
            "truncated": truncated,
            "took_ms": round((time.perf_counter() - started) * 1000, 3),
            "query_type": query_type,
            "limit": rows_wanted,
            **({"name": name} if name is not None else {}),
        }

    def _check_viewer(self, namespace: str, viewer: Viewer | None) -> None:
        """The endpoint reads every memory of the namespace: a viewer that may not see other agents'
        private memories is refused while the namespace holds any."""
        if viewer is None or viewer.sees_private:
            return
        hidden = self.graph.read("cypher_endpoint.hidden_private", namespace=namespace, agent_id=viewer.agent_id)
        if hidden[0]["hidden"]:
            raise CypherForbidden(
                "the namespace holds private memories of other agents, which any Cypher query could read; "
                "the Cypher endpoint needs a key that sees them (an admin of the namespace)"
            )
