"""A value of each namespace read at most every so many seconds (what the read path looks up before
every query but changes rarely: a namespace's Chinese speakers, whether it holds other languages)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")
NAMESPACES_KEPT = 1024  # more namespaces than this: every kept value is dropped, and read again


class NamespaceReads(Generic[T]):
    """`read(namespace)`, its answer used for `ttl_s` seconds, for at most NAMESPACES_KEPT namespaces."""

    def __init__(self, read: Callable[[str], T], ttl_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._read, self._ttl_s, self._clock = read, ttl_s, clock
        self._kept: dict[str, tuple[float, T]] = {}

    def get(self, namespace: str) -> T:
        now = self._clock()
        kept = self._kept.get(namespace)
        if kept is not None and kept[0] > now:
            return kept[1]
        value = self._read(namespace)
        if len(self._kept) >= NAMESPACES_KEPT:
            self._kept.clear()
        self._kept[namespace] = (now + self._ttl_s, value)
        return value
