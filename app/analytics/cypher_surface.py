"""The analysts' read-only Cypher endpoint: plan check, bounded run, JSON rows.

A query (the caller's text, or a named one of the analytics catalogue) runs in five steps:
1. `$namespace` is bound by the server (a caller's `params.namespace` is refused), and the text may
   hold no planner hint (`guard.check_text`);
2. it waits for a slot (`admission.AnalystSlots`: so many at once per API process and per namespace);
3. Neo4j plans it (`EXPLAIN`, READ session) and the guard checks the plan (`guard.check_plan`);
4. it runs in a READ transaction (Neo4j itself refuses writes) with a server-side timeout, under
   Neo4j's transaction memory limit (`db.memory.transaction.max`), streamed a few records per pull;
5. each record becomes JSON as it arrives (`values.ValueConverter`, which checks again that every
   node returned is a memory of the namespace); reading stops after `limit` rows or before the
   answer's rows would pass `max_bytes` of JSON (`truncated`, `truncated_reason`).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from app.analytics.admission import AnalystSlots
from app.analytics.guard import CypherRefused, check_plan, check_text
from app.analytics.named_queries import AnalyticsCatalog
from app.analytics.values import ValueConverter
from app.domain.inputs import InputError
from app.domain.keys import Viewer
from app.stores.graph import GraphStore, UserQueryError
from app.stores.queries.cypher_endpoint_queries import CypherEndpointQueries

MAX_ROWS = 10_000
# Records Neo4j produces per pull: a query stopped at the byte cap had at most these made ahead.
FETCH_SIZE = 50


class CypherTimeout(Exception):
    """The query ran longer than the endpoint's timeout."""


class CypherFailed(Exception):
    """Neo4j refused the query (syntax, types, a missing parameter); the message is Neo4j's."""


class CypherOutOfMemory(Exception):
    """Neo4j stopped the query at a memory limit (the transaction's, or the heap's)."""


class CypherForbidden(Exception):
    """The caller may not read everything the endpoint can reach (private memories of others)."""


@dataclass
class CypherSurface:
    graph: GraphStore
    catalog: AnalyticsCatalog
    timeout_s: float = 5.0
    default_limit: int = 1_000
    max_bytes: int = 8 * 1024 * 1024
    slots: AnalystSlots = field(default_factory=lambda: AnalystSlots(1, 1, 2.0, 5.0))

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
        `CypherRefused`, `CypherTimeout`, `CypherFailed`, `CypherOutOfMemory`, `CypherForbidden`,
        `admission.CypherBusy` or `InputError`."""
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
        check_text(text)
        self._check_viewer(namespace, viewer)
        with self.slots.slot(namespace):
            query_type, columns, rows, reason = self._plan_and_read(namespace, text, bound, rows_wanted)
        return {
            "columns": columns,
            "rows": rows,
            "truncated": reason is not None,
            "truncated_reason": reason,
            "took_ms": round((time.perf_counter() - started) * 1000, 3),
            "query_type": query_type,
            "limit": rows_wanted,
            "max_bytes": self.max_bytes,
            **({"name": name} if name is not None else {}),
        }

    def _plan_and_read(
        self, namespace: str, text: str, bound: dict[str, Any], rows_wanted: int
    ) -> tuple[str | None, list[str], list[dict[str, Any]], str | None]:
        """(query type, columns, rows as JSON, why rows were left out or None)."""
        try:
            query_type, plan, database = self.graph.explain(text, bound)
        except UserQueryError as exc:
            raise CypherFailed(exc.message) from exc
        if database not in (None, self.graph.database):
            raise CypherRefused(f"the query reads database {database!r}; only the memory graph may be read")
        check_plan(query_type, plan)

        converter = ValueConverter(namespace)
        rows: list[dict[str, Any]] = []
        size = 2  # the JSON array's brackets
        reason: str | None = None

        def take(columns: list[str], values: list[Any]) -> bool:
            nonlocal size, reason
            if len(rows) == rows_wanted:
                reason = "limit"
                return False
            row = dict(zip(columns, converter.convert(values), strict=True))
            row_bytes = len(json.dumps(row, ensure_ascii=False, default=str).encode()) + 1
            if size + row_bytes > self.max_bytes:
                reason = "max_bytes"
                return False
            rows.append(row)
            size += row_bytes
            return True

        try:
            columns = self.graph.read_user_query(text, bound, self.timeout_s, take, min(rows_wanted + 1, FETCH_SIZE))
        except UserQueryError as exc:
            if exc.timed_out:
                raise CypherTimeout(f"the query ran longer than {self.timeout_s:g} s and was stopped") from exc
            if exc.out_of_memory:
                raise CypherOutOfMemory(
                    "the query needed more memory than Neo4j allows one transaction (db.memory.transaction.max; "
                    f"all of them: db.memory.transaction.total.max) and was stopped: {exc.message}"
                ) from exc
            if "AccessMode" in exc.code or "Forbidden" in exc.code:
                raise CypherRefused(exc.message) from exc
            raise CypherFailed(exc.message) from exc
        if pending := converter.pending_ends():
            found = CypherEndpointQueries(self.graph).end_ids(namespace=namespace, element_ids=pending)
            converter.fill_ends({row["element_id"]: row["id"] for row in found})
        return query_type, columns, rows, reason

    def _check_viewer(self, namespace: str, viewer: Viewer | None) -> None:
        """The endpoint reads every memory of the namespace: a viewer that may not see other agents'
        private memories is refused while the namespace holds any."""
        if viewer is None or viewer.sees_private:
            return
        hidden = CypherEndpointQueries(self.graph).hidden_private(namespace=namespace, agent_id=viewer.agent_id)
        if hidden[0]["hidden"]:
            raise CypherForbidden(
                "the namespace holds private memories of other agents, which any Cypher query could read; "
                "the Cypher endpoint needs a key that sees them (an admin of the namespace)"
            )
