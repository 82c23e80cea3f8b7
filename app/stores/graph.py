"""The Neo4j store: one driver per process, queries only by name from `cypher/`.

Results come back as plain Python values (neo4j.time types become `datetime`/`date`).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any, TypeVar

import neo4j

from app.errors import EngineUnavailable
from app.settings import Settings
from app.stores import bolt_datetimes
from app.stores.cypher import CypherQueries

T = TypeVar("T")


_PLAIN_TYPES = frozenset({str, int, float, bool, type(None), bytes})


def to_native(value: Any) -> Any:
    """neo4j.time values to Python's, graph entities to their property maps; lists and maps
    recursively. A list or map is copied only when something in it changes: this runs over every
    value of every result (a recall reads ~80 card maps), so each value is looked at once, with
    the plain ones (nearly all) recognised by their exact type."""
    kind = type(value)
    if kind in _PLAIN_TYPES:
        return value
    if kind is dict:
        return _with_native_items(value, value.items(), dict)
    if kind is list:
        return _with_native_items(value, enumerate(value), list)
    if isinstance(value, neo4j.graph.Node | neo4j.graph.Relationship):
        return {k: to_native(v) for k, v in value.items()}
    if isinstance(value, neo4j.graph.Path):
        return [to_native(entity) for entity in value]
    if hasattr(value, "to_native") and value.__class__.__module__.startswith("neo4j.time"):
        return value.to_native()
    return value


def parse_datetime(text: str | None) -> datetime | None:
    """A Neo4j DateTime rendered by Cypher's `toString()`: ISO 8601 with an offset, and a zone name
    in brackets when it has one ("2024-05-15T10:00+02:00[Europe/Berlin]"; the offset is kept)."""
    if text is None:
        return None
    return datetime.fromisoformat(text.split("[", 1)[0])


def _with_native_items(container: Any, items: Iterable[tuple[Any, Any]], copy: Callable[[Any], Any]) -> Any:
    """`container` (a dict or list, `items` its key/index and value pairs) with its values through
    `to_native`; a copy, made at the first value that changes, or the container itself."""
    changed = None
    for key, item in items:
        if type(item) not in _PLAIN_TYPES and (native := to_native(item)) is not item:
            changed = changed if changed is not None else copy(container)
            changed[key] = native
    return container if changed is None else changed


def _rows(result: neo4j.Result | neo4j.EagerResult) -> list[dict[str, Any]]:
    # Not `record.data()` (every value through the driver's exporter: ~12 ms for 125 card rows), nor
    # `dict(record)` (~9 us a row, 3x zipping the keys read once).
    if isinstance(result, neo4j.EagerResult):
        keys, records = tuple(result.keys), result.records
    else:
        records = list(result)
        keys = result.keys()
    return [to_native(dict(zip(keys, record, strict=True))) for record in records]


class GraphTx:
    """Named queries inside one managed transaction (all or nothing)."""

    def __init__(self, tx: neo4j.ManagedTransaction, queries: CypherQueries) -> None:
        self._tx = tx
        self._queries = queries

    def run(self, name: str, **params: Any) -> list[dict[str, Any]]:
        return _rows(self._tx.run(self._queries[name], params))  # type: ignore[arg-type]


# A read on a pooled connection the server has dropped (a restart) is run once more on a new one.
_RECONNECT_ERRORS = (neo4j.exceptions.ServiceUnavailable, neo4j.exceptions.SessionExpired)

# Tries of an auto-commit read that meets a transient error, and the longest pause (s) after try n is n times this.
_TRANSIENT_READ_ATTEMPTS = 3
_TRANSIENT_READ_BACKOFF_S = 0.05
# A schema statement refused because another process created the same rule a moment before (only an
# equivalent one: `IF NOT EXISTS` already passes over a rule of that name, so nothing else is hidden).
_SCHEMA_MADE_BY_ANOTHER = "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists"


def retry_transient_read(exc: neo4j.exceptions.TransientError, attempt: int) -> bool:
    """Whether a read that failed with `exc` on try `attempt` is tried again: a retryable transient
    error (the driver's own classification, e.g. `Transaction.Outdated`, `DeadlockDetected`), not a
    stopped transaction (a timeout is an answer: 503), while tries are left."""
    return attempt < _TRANSIENT_READ_ATTEMPTS and exc.is_retryable() and not _is_timeout(exc.code or "")


def _back_off_or_raise(exc: neo4j.exceptions.TransientError, attempt: int) -> None:
    """Raise `exc` unless try `attempt` is retried (`retry_transient_read`); else wait a jittered
    while first, out of step with the writers it collided with."""
    if not retry_transient_read(exc, attempt):
        raise exc
    time.sleep(random.uniform(0, _TRANSIENT_READ_BACKOFF_S * attempt))

# Driver errors that mean Neo4j cannot serve now, not that the query is wrong: no server answers or
# the connection dropped (ServiceUnavailable and its Read/Write/Routing/IncompleteCommit subclasses,
# SessionExpired), no pooled connection within the acquisition timeout, and the transient errors of a
# database that is stopped, starting or (in a cluster) not the writer.
UNAVAILABLE_ERRORS: tuple[type[Exception], ...] = (
    neo4j.exceptions.ServiceUnavailable,
    neo4j.exceptions.SessionExpired,
    neo4j.exceptions.ConnectionAcquisitionTimeoutError,
    neo4j.exceptions.DatabaseUnavailable,
    neo4j.exceptions.NotALeader,
    neo4j.exceptions.ForbiddenOnReadOnlyDatabase,
)


@contextmanager
def neo4j_unavailable() -> Iterator[None]:
    """Turns `UNAVAILABLE_ERRORS`, and a transaction stopped by its timeout, into
    `EngineUnavailable("neo4j")` (503, and a Celery retry). Every `GraphStore` method that talks to
    Neo4j runs inside it: `with neo4j_unavailable():`, or as a decorator, `@neo4j_unavailable()`.
    Not inside a managed transaction (`GraphTx.run`): the driver retries the transaction on these
    errors, so they must reach it unwrapped."""
    try:
        yield
    except UNAVAILABLE_ERRORS as exc:
        raise EngineUnavailable.wrapping("neo4j", exc) from exc
    except (neo4j.exceptions.ClientError, neo4j.exceptions.TransientError) as exc:
        if _is_timeout(exc.code or ""):  # stopped by its timeout: Neo4j is too busy to answer in time
            raise EngineUnavailable.wrapping("neo4j", exc) from exc
        raise


class UserQueryError(Exception):
    """Neo4j refused or stopped an analyst's query (syntax, missing parameter, access mode, timeout);
    `code` is Neo4j's status code, `message` its text. Not an engine failure."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    @property
    def timed_out(self) -> bool:
        return _is_timeout(self.code)

    @property
    def out_of_memory(self) -> bool:
        return _is_memory(self.code)


def _is_timeout(code: str) -> bool:
    """Neo4j's status code of a transaction stopped by its timeout (or terminated)."""
    return "TimedOut" in code or "Terminated" in code


@contextmanager
def user_query_errors() -> Iterator[None]:
    """Neo4j's errors about an analyst's query as `UserQueryError` (engine failures pass through)."""
    try:
        yield
    except neo4j.exceptions.ClientError as exc:
        raise UserQueryError(exc.code or "", exc.message or str(exc)) from exc
    except neo4j.exceptions.TransientError as exc:
        if _is_timeout(exc.code or "") or _is_memory(exc.code or ""):
            raise UserQueryError(exc.code or "", exc.message or str(exc)) from exc
        raise
    except neo4j.exceptions.DatabaseError as exc:
        # Neo4j failed the query itself (allShortestPaths between a node and itself), not the engine;
        # or its parser's tokenizer did ("/* x" at the end: an unknown error saying "Lexical error").
        code, message = exc.code or "", exc.message or str(exc)
        if code == "Neo.DatabaseError.Statement.ExecutionFailed" or (
            code == "Neo.DatabaseError.General.UnknownError" and "Lexical error" in message
        ):
            raise UserQueryError(code, message) from exc
        raise


def _is_memory(code: str) -> bool:
    """Neo4j's status code of a query stopped by a memory limit (the transaction's, the pool's, or the
    heap's: `Neo.TransientError.General.MemoryPoolOutOfMemoryError`, `…OutOfMemoryError`, …)."""
    return "Memory" in code


# Seconds to get a connection (pooled, or new: connect, handshake, HELLO); then
# ConnectionAcquisitionTimeoutError, a 503.
ACQUISITION_TIMEOUT_S = 3.0
# A pooled connection idle this long is checked before use (a RESET round trip, ~0.2 ms).
LIVENESS_CHECK_S = 2.0
# How long the driver starts new tries of a managed write transaction after a retryable error (a
# deadlock, a dropped connection): it rides out a Neo4j restart of a few seconds. Worst case for a
# write on a hung server: one read timeout (4 s), then no new try (measured: 3-5 s, reads <= 7 s).
TRANSACTION_RETRY_S = 2.0


class GraphStore:
    def __init__(
        self,
        driver: neo4j.Driver,
        queries: CypherQueries,
        database: str = "neo4j",
        query_timeout_s: float | None = None,
    ) -> None:
        self.driver = driver
        self.queries = queries
        self.database = database
        # Neo4j stops a read or write transaction that runs longer (HIPPOGRAPH_NEO4J_QUERY_TIMEOUT);
        # `neo4j_unavailable` turns that into EngineUnavailable (503, a Celery retry).
        self.query_timeout_s = query_timeout_s

    @classmethod
    def connect(cls, settings: Settings, queries: CypherQueries | None = None) -> GraphStore:
        bolt_datetimes.install()  # before the driver opens connections (see the module)
        driver = neo4j.GraphDatabase.driver(
            settings.neo4j_uri,
            auth=settings.neo4j_auth,
            # Deadlines, so a request never waits on a Neo4j that is down or hung (SIGSTOPped: its
            # port still accepts TCP, nothing answers) beyond a few seconds (docs/operations.md,
            # "Deadlines: a hung Neo4j"). Connect and Bolt handshake within the readiness timeout; a new or pooled
            # connection within ACQUISITION_TIMEOUT_S (the driver's deadline covers the handshake and
            # HELLO); a pooled connection idle for LIVENESS_CHECK_S is checked (RESET) within that
            # deadline before use. A query already sent is bounded by the socket read timeout the
            # server hints (2 x `server.bolt.connection_keep_alive`, set to 2 s by
            # scripts/neo4j_local.py; the server sends keep-alives while a long query runs). The
            # driver reconnects by itself once the server is back.
            connection_timeout=settings.readiness_timeout_s,
            connection_acquisition_timeout=ACQUISITION_TIMEOUT_S,
            liveness_check_timeout=LIVENESS_CHECK_S,
            max_transaction_retry_time=TRANSACTION_RETRY_S,
            # Server notifications (e.g. "relationship type does not exist yet" on a fresh database)
            # would be logged as warnings for every query; they are not actionable at run time.
            notifications_min_severity=neo4j.NotificationMinimumSeverity.OFF,
        )
        return cls(driver, queries or CypherQueries.load(), settings.neo4j_database, settings.neo4j_query_timeout_s)

    @neo4j_unavailable()
    def read(self, name: str, timeout_s: float | None = None, **params: Any) -> list[dict[str, Any]]:
        """A read in an auto-commit transaction: one round trip (a managed one also sends BEGIN and
        COMMIT, ~1.4 ms more per recall query, measured). The driver retries only managed
        transactions, so this one retries what they would: reads are idempotent, so a dropped
        connection gets one more try, and a transient error (a read outdated by a concurrent write,
        seen under 16 threads writing and recalling) up to `_TRANSIENT_READ_ATTEMPTS` tries."""
        query = neo4j.Query(self.queries[name], timeout=timeout_s or self.query_timeout_s)  # type: ignore[arg-type]
        reconnected = False
        for attempt in range(1, _TRANSIENT_READ_ATTEMPTS + 1):
            try:
                return self._auto_commit_read(query, params)
            except _RECONNECT_ERRORS:
                if reconnected:
                    raise
                reconnected = True
            except neo4j.exceptions.TransientError as exc:
                _back_off_or_raise(exc, attempt)
        return self._auto_commit_read(query, params)  # after a reconnect on the last attempt

    def _auto_commit_read(self, query: neo4j.Query, params: dict[str, Any]) -> list[dict[str, Any]]:
        with self.driver.session(database=self.database, default_access_mode=neo4j.READ_ACCESS) as session:
            return _rows(session.run(query, params))

    @neo4j_unavailable()
    def write(self, name: str, **params: Any) -> list[dict[str, Any]]:
        result = self.driver.execute_query(
            neo4j.Query(self.queries[name], timeout=self.query_timeout_s),  # type: ignore[arg-type]
            params,
            routing_=neo4j.RoutingControl.WRITE,
            database_=self.database,
        )
        return _rows(result)

    @neo4j_unavailable()
    def write_transaction(self, work: Callable[[GraphTx], T], timeout_s: float | None = None) -> T:
        """Run `work` in one write transaction, retried as a whole on transient errors; `timeout_s`
        instead of the store's (0: none)."""
        timed = neo4j.unit_of_work(timeout=self.query_timeout_s if timeout_s is None else timeout_s)
        with self.driver.session(database=self.database) as session:
            return session.execute_write(timed(lambda tx: work(GraphTx(tx, self.queries))))

    @neo4j_unavailable()
    def run_batched(self, name: str, **params: Any) -> list[dict[str, Any]]:
        """For queries with `CALL { … } IN TRANSACTIONS`, which need an auto-commit transaction. No
        timeout: each inner transaction is small, the whole (erasing a 1M-node namespace) takes minutes."""
        with self.driver.session(database=self.database) as session:
            return _rows(session.run(self.queries[name], params))  # type: ignore[arg-type]

    @neo4j_unavailable()
    def apply_schema(self) -> None:
        """Create the constraints and indexes of `cypher/schema.cypher` (idempotent). Two processes
        starting at once on a new database can deadlock on the schema lock (seen: two eval scripts);
        each statement is idempotent, so a retryable transient error is tried again. And both may
        pass `IF NOT EXISTS` before either commits: the second is refused with "an equivalent index
        (constraint) already exists", which is what it asked for."""
        with self.driver.session(database=self.database) as session:
            for name in self.queries.names("schema."):
                for attempt in range(1, _TRANSIENT_READ_ATTEMPTS + 1):
                    try:
                        session.run(self.queries[name]).consume()  # type: ignore[arg-type]
                        break
                    except neo4j.exceptions.TransientError as exc:
                        _back_off_or_raise(exc, attempt)
                    except neo4j.exceptions.ClientError as exc:
                        if exc.code != _SCHEMA_MADE_BY_ANOTHER:
                            raise
                        break

    @neo4j_unavailable()
    def ping(self, timeout_s: float) -> None:
        # A bare session run: no managed-transaction retries, so a down server is reported at once.
        with self.driver.session(database=self.database, default_access_mode=neo4j.READ_ACCESS) as session:
            session.run(neo4j.Query(self.queries["health.ping"], timeout=timeout_s)).consume()  # type: ignore[arg-type]

    @neo4j_unavailable()
    def explain(self, text: str, params: dict[str, Any]) -> tuple[str | None, dict[str, Any], str | None]:
        """An analyst's query planned, not run (`EXPLAIN`, in a READ session): Neo4j's query type
        ("r", "rw", "w", "s"), its plan tree and the database it was planned for. For the
        Cypher endpoint's guard (app/analytics/guard.py); `UserQueryError` when Neo4j refuses it."""
        session = self.driver.session(database=self.database, default_access_mode=neo4j.READ_ACCESS)
        with user_query_errors(), session:
            summary = session.run(neo4j.Query("EXPLAIN " + text), params).consume()  # type: ignore[arg-type]
        return summary.query_type, dict(summary.plan or {}), summary.database

    @neo4j_unavailable()
    def read_user_query(
        self,
        text: str,
        params: dict[str, Any],
        timeout_s: float,
        take: Callable[[list[str], list[Any]], bool],
        fetch_size: int,
    ) -> list[str]:
        """An analyst's query in a READ transaction (Neo4j refuses writes) with a server-side timeout.
        Each record goes to `take(columns, values)` as it arrives; reading stops when `take` answers
        False, and the transaction is rolled back, never committed. Neo4j streams `fetch_size`
        records per pull, so a query stopped early never had more than that many produced ahead."""
        session = self.driver.session(
            database=self.database, default_access_mode=neo4j.READ_ACCESS, fetch_size=fetch_size
        )
        with user_query_errors(), session, session.begin_transaction(timeout=timeout_s) as tx:
            result = tx.run(text, params)  # type: ignore[arg-type]
            keys = list(result.keys())
            for record in result:
                if not take(keys, list(record.values())):
                    break
            tx.rollback()
        return keys

    def server_version(self) -> str:
        row = self.read("health.server_version")[0]
        return f"{row['name']} {row['version']} {row['edition']}"

    def close(self) -> None:
        self.driver.close()
