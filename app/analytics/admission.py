"""How many analysts' queries run at once: at most `total` in this API process and `per_namespace`
for one namespace. A query waits up to `wait_s` for a slot, then is refused (`CypherBusy`, 429 with
Retry-After): heavy analytics share Neo4j's few cores with recall and writes, so they queue among
themselves instead of crowding the engine."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager


class CypherBusy(Exception):
    """No slot freed within the wait; `retry_after_s` is when one surely will (a query's timeout)."""

    def __init__(self, message: str, retry_after_s: int) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class AnalystSlots:
    def __init__(self, total: int, per_namespace: int, wait_s: float, retry_after_s: float) -> None:
        self.total, self.per_namespace, self.wait_s = total, per_namespace, wait_s
        self.retry_after_s = max(1, math.ceil(retry_after_s))
        self._running = 0
        self._by_namespace: dict[str, int] = {}
        self._changed = threading.Condition()

    @contextmanager
    def slot(self, namespace: str) -> Iterator[None]:
        """Hold a slot for `namespace` while the block runs; `CypherBusy` when none frees in time."""
        deadline = time.monotonic() + self.wait_s
        with self._changed:
            while self._running >= self.total or self._by_namespace.get(namespace, 0) >= self.per_namespace:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise CypherBusy(
                        f"{self._running} analytics queries are running (at most {self.total}, "
                        f"{self.per_namespace} per namespace: HIPPOGRAPH_CYPHER_CONCURRENCY, "
                        f"HIPPOGRAPH_CYPHER_NAMESPACE_CONCURRENCY); none finished within {self.wait_s:g} s; "
                        f"retry after {self.retry_after_s} s",
                        self.retry_after_s,
                    )
                self._changed.wait(remaining)
            self._running += 1
            self._by_namespace[namespace] = self._by_namespace.get(namespace, 0) + 1
        try:
            yield
        finally:
            with self._changed:
                self._running -= 1
                if (left := self._by_namespace[namespace] - 1) > 0:
                    self._by_namespace[namespace] = left
                else:
                    del self._by_namespace[namespace]
                self._changed.notify_all()
