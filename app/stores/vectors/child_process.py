"""A vector store run in a child process of its own, called through a pipe.

Why: Qdrant Edge holds Python's interpreter lock for the whole of each call, and the embedded run
hosts the API and the Celery worker in one process. Under many writers its searches (each new
node's SEMANTIC neighbours) held the lock a quarter of the time, and an index build (`optimize`)
for 5-9 s at a stretch, while no request thread could run (docs/benchmarks.md, "Many small
writers"). In a child process the engine has an interpreter of its own; a thread of the API that
waits for its answer waits on a pipe, which releases the lock.

The child owns the store (it is the only process that opens the engine's folder) and serves one
call at a time, in the order the parent's lock hands them over. Batch searches go over in chunks,
so a recall's single search is not queued behind a whole write batch. If the child dies, calls
raise `EngineUnavailable("vectors")`.

Off by default (`HIPPOGRAPH_VECTOR_PROCESS`): under scripts/load.py the one child serving every
thread's calls in turn (both worker threads' batches, the background vector work, recall) made the
write path's vector stage 2-3x slower and recall's p95 higher than the engine in-process. A child
that owned the whole SEMANTIC-link step (fewer, larger round trips), or several readers, might
change that; not measured.
"""

from __future__ import annotations

import multiprocessing
import signal
import threading
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from typing import Any

from app.domain.embedding_identity import EmbeddingIdentity
from app.errors import EngineUnavailable
from app.stores.vectors.base import NamedSearch, PayloadMatch, VectorHit, VectorRecord, VectorStore

# Searches per round trip: a recall's search waits for at most one chunk of a write batch's searches.
SEARCHES_PER_CALL = 16
# Seconds to wait for the child to close the store and exit before it is killed.
CLOSE_TIMEOUT_S = 30.0


def _serve(connection: Connection, open_store: Callable[[], VectorStore]) -> None:
    """The child's loop: open the store, then answer (method name, args) with (ok, value)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the process group: the parent closes us
    try:
        store = open_store()
    except Exception as exc:
        connection.send((False, _portable(exc)))
        return
    connection.send((True, None))
    while True:
        try:
            name, args = connection.recv()
        except EOFError:  # the parent is gone
            store.close()
            return
        try:
            value = store.location if name == "_location" else getattr(store, name)(*args)  # a property
            connection.send((True, value))
        except Exception as exc:
            connection.send((False, _portable(exc)))
        if name == "close":
            return


def _portable(exc: Exception) -> Exception:
    """`exc` if it survives pickling (the store's own errors do), else a RuntimeError naming it."""
    import pickle

    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:
        return RuntimeError(f"{type(exc).__name__}: {exc}")
    return exc


class ChildProcessVectorStore(VectorStore):
    """The store `open_store()` builds, living in a child process (spawned, so nothing of this
    process's threads or connections is copied). `open_store` must be picklable: a class and its
    arguments (`functools.partial`)."""

    def __init__(
        self, open_store: Callable[[], VectorStore], dimension: int, backend: str, paired: bool = False
    ) -> None:
        super().__init__(dimension, paired)
        self.backend = backend
        context = multiprocessing.get_context("spawn")
        self._connection, child_end = context.Pipe()
        self._process = context.Process(
            target=_serve, args=(child_end, open_store), name="hippograph-vectors", daemon=True
        )
        self._process.start()
        child_end.close()
        self._lock = threading.Lock()
        self._closed = False
        with self._lock:
            self._answer()  # the store's own opening error (e.g. a dimension mismatch) is raised here

    def _answer(self) -> Any:
        try:
            ok, value = self._connection.recv()
        except (EOFError, OSError) as exc:
            raise EngineUnavailable("vectors", f"the vector process exited ({self._process.exitcode})") from exc
        if not ok:
            raise value
        return value

    def _call(self, name: str, *args: Any) -> Any:
        with self._lock:
            return self._round_trip(name, args)

    def _round_trip(self, name: str, args: tuple[Any, ...]) -> Any:
        """One call to the child; the caller holds the lock."""
        if self._closed:
            raise EngineUnavailable("vectors", "the vector store is closed")
        try:
            self._connection.send((name, args))
        except (BrokenPipeError, OSError) as exc:
            raise EngineUnavailable("vectors", f"the vector process exited ({self._process.exitcode})") from exc
        return self._answer()

    @property
    def location(self) -> str:
        return str(self._call("_location"))

    def stored_identity(self) -> EmbeddingIdentity | None:
        identity: EmbeddingIdentity | None = self._call("stored_identity")
        return identity

    def record_identity(self, identity: EmbeddingIdentity, complete: bool = True) -> None:
        self._call("record_identity", identity, complete)

    def is_complete(self) -> bool:
        return bool(self._call("is_complete"))

    def is_empty(self) -> bool:
        return bool(self._call("is_empty"))

    def upsert(self, namespace: str, records: Sequence[VectorRecord]) -> None:
        self._call("upsert", namespace, list(records))

    def _query(self, namespace: str, searches: Sequence[NamedSearch], limit: int) -> list[list[VectorHit]]:
        found: list[list[VectorHit]] = []
        for start in range(0, len(searches), SEARCHES_PER_CALL):
            found.extend(self._call("_query", namespace, list(searches[start : start + SEARCHES_PER_CALL]), limit))
        return found

    def vectors_of(self, namespace: str, node_ids: Sequence[str]) -> dict[str, list[float]]:
        return dict(self._call("vectors_of", namespace, list(node_ids)))

    def delete(self, namespace: str, node_ids: Sequence[str]) -> None:
        self._call("delete", namespace, list(node_ids))

    def delete_namespace(self, namespace: str) -> None:
        self._call("delete_namespace", namespace)

    def count(self, namespace: str, match: PayloadMatch | None = None) -> int:
        return int(self._call("count", namespace, match))

    def any_point(self, namespace: str, match: PayloadMatch | None = None) -> bool:
        return bool(self._call("any_point", namespace, match))

    def optimize(self) -> bool:
        return bool(self._call("optimize"))

    def ping(self) -> None:
        """A round trip when no call is in flight; else the child is busy serving (an index build
        takes seconds), and alive is the answer: readiness must not fail while it works."""
        if self._lock.acquire(blocking=False):
            try:
                self._round_trip("ping", ())
            finally:
                self._lock.release()
        elif not self._process.is_alive():
            raise EngineUnavailable("vectors", f"the vector process exited ({self._process.exitcode})")

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            try:
                self._connection.send(("close", ()))
                self._answer()
            except (BrokenPipeError, OSError, EngineUnavailable):
                pass  # already gone
            finally:
                self._connection.close()
                self._process.join(CLOSE_TIMEOUT_S)
                if self._process.is_alive():
                    self._process.kill()
                    self._process.join()
