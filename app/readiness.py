"""Readiness: probe each engine concurrently, each within a deadline, and say what is down.

A probe of a hung engine (SIGSTOPped: its port accepts, nothing answers) runs until the driver's own
deadline, longer than the readiness one: the answer does not wait for it, and the next readiness call
joins that probe instead of starting another (one probe in flight per engine), so a hung engine never
piles probes up in the pool. `probe_engines_async` waits without a worker thread: `/readyz` answers
within its deadline even when every thread of the API's pool is held by a request waiting on the hung
engine.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass

from app.errors import EngineUnavailable


@dataclass(frozen=True)
class EngineStatus:
    ok: bool
    reason: str | None = None

    def as_dict(self) -> dict[str, str]:
        return {"status": "ok"} if self.ok else {"status": "down", "reason": self.reason or "unknown"}


# One pool for all probes: a probe stuck past its deadline keeps its thread, not a new one per request.
_PROBE_POOL = ThreadPoolExecutor(max_workers=6, thread_name_prefix="readiness")
# The probe in flight per (owner, engine): joined by later calls until it ends.
_IN_FLIGHT: dict[tuple[int, str], Future[object]] = {}
_IN_FLIGHT_LOCK = threading.Lock()


def _submit(probes: Mapping[str, Callable[[], object]], owner: object) -> dict[str, Future[object]]:
    futures: dict[str, Future[object]] = {}
    with _IN_FLIGHT_LOCK:
        for name, probe in probes.items():
            key = (id(owner), name)
            running = _IN_FLIGHT.get(key)
            if running is None or running.done():
                running = _PROBE_POOL.submit(probe)
                _IN_FLIGHT[key] = running
            futures[name] = running
    return futures


def _statuses(futures: Mapping[str, Future[object]], timeout_s: float) -> dict[str, EngineStatus]:
    statuses: dict[str, EngineStatus] = {}
    for name, future in futures.items():
        if not future.done():
            statuses[name] = EngineStatus(False, f"no answer within {timeout_s:g} s")
        elif (error := future.exception()) is not None:
            statuses[name] = EngineStatus(False, _short(error))
        else:
            statuses[name] = EngineStatus(True)
    return statuses


def probe_engines(
    probes: Mapping[str, Callable[[], object]], timeout_s: float, owner: object = None
) -> dict[str, EngineStatus]:
    """Each probe's outcome within `timeout_s` (blocking the calling thread that long at most).
    `owner`: whose engines (a runtime), so two runtimes in one process do not share probes."""
    futures = _submit(probes, owner)
    wait(futures.values(), timeout=timeout_s)
    return _statuses(futures, timeout_s)


async def probe_engines_async(
    probes: Mapping[str, Callable[[], object]], timeout_s: float, owner: object = None
) -> dict[str, EngineStatus]:
    """`probe_engines` for the event loop: waits without holding a thread."""
    futures = _submit(probes, owner)
    await asyncio.wait([asyncio.wrap_future(f) for f in futures.values()], timeout=timeout_s)
    return _statuses(futures, timeout_s)


def _short(error: BaseException) -> str:
    if isinstance(error, EngineUnavailable):  # the store's wrapper: report what the driver said
        return error.reason
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return f"{type(error).__name__}: {text}"[:200]
