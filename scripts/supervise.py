#!/usr/bin/env python3
"""`make run`'s supervisor: start the local Neo4j and Redis, serve the API, and start again an engine
that dies, without a person.

    python scripts/supervise.py [--neo4j-port P] [--neo4j-home DIR] [--heap 1g] [--pagecache 512m]
                                [--redis-port P] [--redis-dir DIR] [--no-engines]
    python scripts/supervise.py --stop      # `make stop`'s first step: stop the API it serves

Every `CHECK_INTERVAL_S` it looks at the pid file of each engine (`scripts/neo4j_local.py`,
`scripts/redis_local.py`): a process that is gone (killed, `-XX:+ExitOnOutOfMemoryError`, crashed)
is started again on the same data folder and port, with a growing pause between failed starts.
Meanwhile the API answers 503 naming the engine (and `/readyz` says which); its drivers reconnect by
themselves once the engine is back, so the API process is never restarted for it. A hung engine (alive,
not answering) is left alone: the API's deadlines answer 503 until it answers again.

The API (`python -m app`) runs as a child: when it exits, the supervisor exits with its code; SIGTERM
or SIGINT stop the API and leave the engines running, as before (`make stop` stops them).
Defaults come from the settings, as the engines' own scripts take them.

The supervisor and its API write their pids to `$HIPPOGRAPH_DATA_DIR/supervise.pid` and `api.pid`:
`--stop` (`make stop`) stops them, and a second `make run` on the same data folder refuses at once,
naming the process that holds it (the API's embedded vector folder admits one process). With
`--no-engines` it serves the API against engines run elsewhere (NEO4J_URI, REDIS_URL) and watches none.
"""

from __future__ import annotations

import argparse
import os
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
from localsvc import REPO, fail, load_settings, read_pid, stop_pid

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


def pid_files(data_dir: Path) -> tuple[Path, Path]:
    """The supervisor's and its API's pid files."""
    return data_dir / "supervise.pid", data_dir / "api.pid"


def refuse_if_in_use(data_dir: Path) -> None:
    """Fail, naming the holder, when a supervisor or API of ours already serves from `data_dir`."""
    from app.stores.folder_users import describe

    for pid_file in pid_files(data_dir):
        pid = read_pid(pid_file)
        if pid is not None:
            fail(f"the data folder {data_dir} is in use by {describe(pid)} (its pid file: {pid_file}); "
                 "`make stop` stops it, or set HIPPOGRAPH_DATA_DIR to another folder", 3)  # fmt: skip


def stop_serving(data_dir: Path) -> int:
    """`--stop`: SIGTERM the supervisor (it stops its API and waits), then the API should it be left."""
    stopped = [stop_pid(pid_file, pid_file.stem) for pid_file in pid_files(data_dir)]
    print(f"the API of {data_dir} {'stopped' if any(stopped) else 'was not running'}")
    return 0


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
    parser.add_argument("--no-engines", action="store_true", help="engines run elsewhere: start and watch none")
    parser.add_argument("--stop", action="store_true", help="stop the supervisor and API serving this data folder")
    args = parser.parse_args()
    neo4j_home, redis_dir = args.neo4j_home.resolve(), args.redis_dir.resolve()
    data_dir = settings.data_dir.resolve()
    if args.stop:
        return stop_serving(data_dir)
    refuse_if_in_use(data_dir)

    engines = [
        Engine("neo4j", neo4j_local.pid_file(neo4j_home),
               lambda: neo4j_local.start(neo4j_home, args.neo4j_port, args.heap, args.pagecache, args.timeout)),
        Engine("redis", redis_dir / "redis.pid", lambda: redis_local.start(redis_dir, args.redis_port, args.timeout)),
    ]  # fmt: skip
    if args.no_engines:
        engines = []
    for engine in engines:  # the first start fails `make run` as before (a port taken, no Java)
        engine.start()

    data_dir.mkdir(parents=True, exist_ok=True)
    own_pid, api_pid = pid_files(data_dir)
    own_pid.write_text(f"{os.getpid()}\n")
    api = subprocess.Popen([sys.executable, "-m", "app"], cwd=REPO)
    api_pid.write_text(f"{api.pid}\n")
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
    for pid_file in (api_pid, own_pid):
        pid_file.unlink(missing_ok=True)
    log(f"the API exited with code {code}; the engines keep running (`make stop` stops them)")
    # uvicorn ends by the signal it was stopped with (code -SIGTERM): the stop we asked for is a clean exit.
    return 0 if stopping and code in (-signal.SIGTERM, -signal.SIGINT) else code


if __name__ == "__main__":
    raise SystemExit(main())
