"""Circuit-breaker run states in Redis: one JSON string per run, `hg:{<namespace>}:run:<run id>:<agent
id>` (run ids hold no ':', so the key is unambiguous), expiring `ttl_s` after its last change. The
JSON is `app/context/breaker.py`'s `RunState`; `app/context/runs.py` gives it its meaning.

Layers of one concept (one file name): `app/context/runs.py` (runs and their breaker);
`app/stores/runs.py` (run states in Redis); `app/api/runs.py` (the routes)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import redis

from app.stores.hot import namespace_key

T = TypeVar("T")


class RunRecords:
    def __init__(self, client: redis.Redis, ttl_s: int) -> None:
        self.client = client
        self.ttl_s = ttl_s

    @staticmethod
    def _key(namespace: str, agent_id: str, run_id: str) -> str:
        return namespace_key(namespace, "run", run_id, agent_id)

    def read(self, namespace: str, agent_id: str, run_id: str) -> str | None:
        found: Any = self.client.get(self._key(namespace, agent_id, run_id))
        return None if found is None else str(found)

    def update(
        self, namespace: str, agent_id: str, run_id: str, change: Callable[[str | None], tuple[str | None, T]]
    ) -> T:
        """Read the record, let `change` compute its new text (None: leave it as it is) and a result,
        and write it, atomically: WATCH/MULTI, run again from a fresh read when another writer changed
        the record in between (concurrent steps of one run never lose an update)."""
        key = self._key(namespace, agent_id, run_id)

        results: list[T] = []

        def work(pipe: redis.client.Pipeline) -> None:
            results.clear()  # a run again after a WatchError starts afresh
            current: Any = pipe.get(key)  # immediate mode: the key is watched
            new, result = change(None if current is None else str(current))
            results.append(result)
            pipe.multi()
            if new is not None:
                pipe.set(key, new, ex=self.ttl_s)

        self.client.transaction(work, key)
        return results[0]
