"""The engines the tasks use: the API's own runtime in the embedded run, else one per worker."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.runtime import Runtime

_runtime: Runtime | None = None
_lock = threading.Lock()


def use_runtime(runtime: Runtime | None) -> None:
    global _runtime
    _runtime = runtime


def registered_runtime() -> Runtime | None:
    """The runtime if one is registered or already opened; never opens one (for signal handlers)."""
    return _runtime


def current_runtime() -> Runtime:
    """The registered runtime; a standalone worker (QDRANT_URL set) opens its own on first use."""
    global _runtime
    with _lock:
        if _runtime is None:
            from app.runtime import Runtime
            from app.settings import get_settings

            _runtime = Runtime.open(get_settings())
        return _runtime
