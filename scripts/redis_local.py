#!/usr/bin/env python3
"""The system redis-server (Debian's package) on a chosen port, without systemd.

    python scripts/redis_local.py start [--port 6379] [--dir DIR]
    python scripts/redis_local.py status|version|stop [--port/--dir as above]

Defaults come from the settings: the port of REDIS_URL and HIPPOGRAPH_DATA_DIR/redis.
`scripts/install.sh` installs the package when it is missing.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
from pathlib import Path

from localsvc import fail, load_settings, log_tail, port_open, read_pid, report_running, stop_pid, wait_until


def report_version(port: int) -> str:
    import redis

    client = redis.Redis(host="127.0.0.1", port=port, socket_connect_timeout=2)
    try:
        return f"Redis {client.info('server')['redis_version']}"
    finally:
        client.close()


def answers(port: int) -> bool:
    """Redis takes commands: the port is open and it is not loading its append-only file (a PING
    then answers LOADING, and so would every command)."""
    import redis

    if not port_open(port):
        return False
    client = redis.Redis(host="127.0.0.1", port=port, socket_connect_timeout=2)
    try:
        return bool(client.ping())
    except (redis.exceptions.BusyLoadingError, redis.exceptions.ConnectionError):
        return False
    finally:
        client.close()


def start(data_dir: Path, port: int, timeout_s: float) -> None:
    pid_file = data_dir / "redis.pid"
    if read_pid(pid_file) is not None and port_open(port):
        print(f"Redis already running on 127.0.0.1:{port} ({report_version(port)})")
        return
    if port_open(port):
        fail(f"port {port} is already in use by another process", 4)
    server = shutil.which("redis-server")
    if not server:
        fail("redis-server not found: run scripts/install.sh (installs Debian's redis-server)", 2)
    data_dir.mkdir(parents=True, exist_ok=True)
    log_file = data_dir / "redis.log"
    result = subprocess.run(
        [server, "--port", str(port), "--bind", "127.0.0.1", "--daemonize", "yes",
         "--dir", str(data_dir), "--logfile", str(log_file), "--pidfile", str(pid_file),
         "--appendonly", "yes", "--appendfsync", "everysec", "--save", ""],
        capture_output=True, text=True,
    )  # fmt: skip
    if result.returncode != 0:
        fail(f"redis-server failed to start: {result.stderr or result.stdout}\n{log_tail(log_file)}", 5)
    if not wait_until(lambda: answers(port), timeout_s, lambda: True):
        fail(f"Redis did not become ready within {timeout_s:g} s:\n{log_tail(log_file)}", 5)
    print(f"Redis ready on 127.0.0.1:{port} ({report_version(port)}), data in {data_dir}")


def main() -> None:
    settings = load_settings()
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["start", "stop", "status", "version"])
    parser.add_argument("--port", type=int, default=settings.redis_port)
    parser.add_argument("--dir", type=Path, default=settings.data_dir / "redis")
    parser.add_argument("--timeout", type=float, default=120, help="seconds to wait (a large AOF loads first)")
    args = parser.parse_args()
    data_dir = args.dir.resolve()
    pid_file = data_dir / "redis.pid"

    if args.command == "start":
        start(data_dir, args.port, args.timeout)
    elif args.command == "stop":
        print("Redis stopped" if stop_pid(pid_file, "Redis", timeout_s=20) else "Redis was not running")
    else:
        address = f"127.0.0.1:{args.port}"
        report_running(args.command, "Redis", pid_file, args.port, address, lambda: report_version(args.port))


if __name__ == "__main__":
    main()
