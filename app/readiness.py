"""Readiness: probe each engine concurrently, each within a deadline, and say what is down."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor, wait
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


def probe_engines(probes: Mapping[str, Callable[[], object]], timeout_s: float) -> dict[str, EngineStatus]:
    futures = {name: _PROBE_POOL.submit(probe) for name, probe in probes.items()}
    wait(futures.values(), timeout=timeout_s)
    statuses: dict[str, EngineStatus] = {}
    for name, future in futures.items():
        if not future.done():
            statuses[name] = EngineStatus(False, f"no answer within {timeout_s:g} s")
        elif (error := future.exception()) is not None:
            statuses[name] = EngineStatus(False, _short(error))
        else:
            statuses[name] = EngineStatus(True)
    return statuses


def _short(error: BaseException) -> str:
    if isinstance(error, EngineUnavailable):  # the store's wrapper: report what the driver said
        return error.reason
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return f"{type(error).__name__}: {text}"[:200]
