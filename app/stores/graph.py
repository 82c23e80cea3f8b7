"""The Neo4j store: one driver per process, queries only by name from `cypher/`."""

from __future__ import annotations

from typing import Any

import neo4j

from app.settings import Settings
from app.stores.cypher import CypherQueries


class GraphStore:
    def __init__(self, driver: neo4j.Driver, queries: CypherQueries) -> None:
        self.driver = driver
        self.queries = queries

    @classmethod
    def connect(cls, settings: Settings, queries: CypherQueries | None = None) -> GraphStore:
        driver = neo4j.GraphDatabase.driver(
            settings.neo4j_uri,
            auth=settings.neo4j_auth,
            # Fail fast when the server is down so readiness answers promptly; the driver
            # reconnects by itself once the server is back.
            connection_timeout=settings.readiness_timeout_s,
            connection_acquisition_timeout=max(5.0, settings.readiness_timeout_s),
            max_transaction_retry_time=5.0,
        )
        return cls(driver, queries or CypherQueries.load())

    def read(self, name: str, timeout_s: float | None = None, **params: Any) -> list[dict[str, Any]]:
        query = neo4j.Query(self.queries[name], timeout=timeout_s)  # type: ignore[arg-type]
        records, _, _ = self.driver.execute_query(query, params, routing_=neo4j.RoutingControl.READ)
        return [record.data() for record in records]

    def write(self, name: str, **params: Any) -> list[dict[str, Any]]:
        records, _, _ = self.driver.execute_query(
            self.queries[name],
            params,
            routing_=neo4j.RoutingControl.WRITE,  # type: ignore[arg-type]
        )
        return [record.data() for record in records]

    def ping(self, timeout_s: float) -> None:
        # A bare session run: no managed-transaction retries, so a down server is reported at once.
        with self.driver.session(default_access_mode=neo4j.READ_ACCESS) as session:
            session.run(neo4j.Query(self.queries["health.ping"], timeout=timeout_s)).consume()

    def server_version(self) -> str:
        row = self.read("health.server_version")[0]
        return f"{row['name']} {row['version']} {row['edition']}"

    def close(self) -> None:
        self.driver.close()
