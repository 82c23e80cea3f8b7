#!/usr/bin/env python3
"""`make run`'s supervisor: start the local Neo4j and Redis, serve the API, and start again an engine
that dies, without a person.

    python scripts/supervise.py [--neo4j-port P] [--neo4j-home DIR] [--heap 1g] [--pagecache 512m]
                                [--redis-port P] [--redis-dir DIR]

Every `CHECK_INTERVAL_S` it looks at the pid file of each engine (`scripts/neo4j_local.py`,
`scripts/redis_local.py`): a process that is gone (killed, `-XX:+ExitOnOutOfMemoryError`, crashed)
is started again on the same data folder and port, with a growing pause between failed starts.
Meanwhile the API answers 503 naming the engine (and `/readyz` says which); its drivers reconnect by
themselves once the engine is back, so the API process is never restarted for it. A hung engine (alive,
not answering) is left alone: the API's deadlines answer 503 until it answers again.

The API (`python -m app`) runs as a child: when it exits, the supervisor exits with its code; SIGTERM
or SIGINT stop the API and leave the engines running, as before (`make stop` stops them).
Defaults come from the settings, as the engines' own scripts take them.
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

import neo4j_local
import redis_local
from localsvc import REPO, load_settings, read_pid

CHECK_INTERVAL_S = 1.0
# Pauses before starting a dead engine again after a failed start: 1 s, 2 s, ... at most this.
MAX_BACKOFF_S = 30.0


def log(message: str) -> None:
    print(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} supervise: {message}", file=sys.stderr, flush=True)


@dataclass
class Engine:
    name: str
    pid_file: Path
    start: Callable[[], None]
    restarts: int = 0
    failures: int = 0
    next_try: float = field(default=0.0)

    def ensure_running(self) -> None:
        """Start the engine again if its process is gone (and its pause after a failed start is over)."""
        if read_pid(self.pid_file) is not None or time.monotonic() < self.next_try:
            return
        log(f"{self.name} is not running (pid file {self.pid_file}); starting it again")
        began = time.monotonic()
        try:
            self.start()
        except SystemExit as exc:  # the scripts' `fail`: said why on stderr
            self.failures += 1
            pause = min(MAX_BACKOFF_S, 2.0 ** (self.failures - 1))
            self.next_try = time.monotonic() + pause
            log(f"{self.name} did not start (exit {exc.code}); trying again in {pause:g} s")
            return
        self.failures = 0
        self.restarts += 1
        log(f"{self.name} started again in {time.monotonic() - began:.1f} s (restart {self.restarts})")


def main() -> int:
    settings = load_settings()
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--neo4j-port", type=int, default=settings.neo4j_port)
    parser.add_argument("--neo4j-home", type=Path, default=settings.data_dir / "neo4j")
    parser.add_argument("--heap", default="1g", help="Neo4j's JVM heap")
    parser.add_argument("--pagecache", default="512m", help="Neo4j's page cache")
    parser.add_argument("--redis-port", type=int, default=settings.redis_port)
    parser.add_argument("--redis-dir", type=Path, default=settings.data_dir / "redis")
    parser.add_argument("--timeout", type=float, default=120, help="seconds an engine has to become ready")
    args = parser.parse_args()
    neo4j_home, redis_dir = args.neo4j_home.resolve(), args.redis_dir.resolve()

    engines = [
        Engine("neo4j", neo4j_local.pid_file(neo4j_home),
               lambda: neo4j_local.start(neo4j_home, args.neo4j_port, args.heap, args.pagecache, args.timeout)),
        Engine("redis", redis_dir / "redis.pid", lambda: redis_local.start(redis_dir, args.redis_port, args.timeout)),
    ]  # fmt: skip
    for engine in engines:  # the first start fails `make run` as before (a port taken, no Java)
        engine.start()

    api = subprocess.Popen([sys.executable, "-m", "app"], cwd=REPO)
    stopping = False

    def stop(signum: int, _frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True
        if api.poll() is None:
            api.send_signal(signal.SIGTERM)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    while api.poll() is None:
        if not stopping:
            for engine in engines:
                engine.ensure_running()
        time.sleep(CHECK_INTERVAL_S)
    code = api.wait()
    log(f"the API exited with code {code}; the engines keep running (`make stop` stops them)")
    return code


if __name__ == "__main__":
    raise SystemExit(main())
