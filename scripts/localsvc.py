"""Helpers shared by the local service scripts (Neo4j, Redis): processes, pid files, ports."""

from __future__ import annotations

import os
import signal
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CACHE = REPO / ".cache"


def fail(message: str, code: int = 1) -> None:
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(code)


def port_open(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex((host, port)) == 0


def read_pid(pid_file: Path) -> int | None:
    try:
        pid = int(pid_file.read_text().strip())
    except (FileNotFoundError, ValueError):
        return None
    return pid if pid_alive(pid) else None


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie child of ours still "exists"; reap it so it reads as gone.
    try:
        waited, _ = os.waitpid(pid, os.WNOHANG)
        return waited == 0
    except ChildProcessError:
        return True


def wait_until(ready: Callable[[], bool], deadline_s: float, alive: Callable[[], bool]) -> bool:
    """Poll `ready` until it holds; False when the deadline passes or the process dies."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if ready():
            return True
        if not alive():
            return False
        time.sleep(0.25)
    return False


def stop_pid(pid_file: Path, name: str, timeout_s: float = 60) -> bool:
    """SIGTERM (a clean shutdown), then SIGKILL after the timeout. False if nothing ran."""
    pid = read_pid(pid_file)
    if pid is None:
        pid_file.unlink(missing_ok=True)
        return False
    os.kill(pid, signal.SIGTERM)
    if not wait_until(lambda: not pid_alive(pid), timeout_s, lambda: True):
        print(f"{name} did not stop within {timeout_s:g} s; killing pid {pid}", file=sys.stderr)
        os.kill(pid, signal.SIGKILL)
        wait_until(lambda: not pid_alive(pid), 10, lambda: True)
    pid_file.unlink(missing_ok=True)
    return True


def log_tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except FileNotFoundError:
        return "(no log)"


def load_settings():  # type: ignore[no-untyped-def]
    """The app's settings (the one reader of the environment) for the scripts' defaults."""
    sys.path.insert(0, str(REPO))
    from app.settings import Settings

    return Settings()


def report_running(
    command: str, name: str, pid_file: Path, port: int, address: str, version: Callable[[], str]
) -> None:
    """`status` / `version`: print what runs, or exit 1 when nothing does."""
    if read_pid(pid_file) is None or not port_open(port):
        print(f"{name} is not running ({pid_file.parent})")
        raise SystemExit(1)
    reported = version()
    print(reported if command == "version" else f"{name} running on {address} ({reported})")
