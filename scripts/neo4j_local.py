#!/usr/bin/env python3
"""A real Neo4j 5.26 server without Docker: fetch, start, wait, report, stop.

Maven Central publishes no Neo4j tarball, so this assembles the server from its jars
(`scripts/neo4j/pom.xml`, cached once in `.cache/neo4j/<version>/lib`) and runs its own entry point,
`org.neo4j.server.CommunityEntryPoint`, with a generated `neo4j.conf`: Bolt on loopback, auth off,
HTTP off, bounded heap and page cache, data on disk under `--home` (kept across restarts).

    python scripts/neo4j_local.py fetch
    python scripts/neo4j_local.py start [--port 7687] [--home DIR] [--heap 1g] [--pagecache 512m]
    python scripts/neo4j_local.py status|version|stop [--port/--home as above]

Defaults come from the settings: the port of NEO4J_URI and HIPPOGRAPH_DATA_DIR/neo4j.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from localsvc import (
    CACHE,
    REPO,
    fail,
    load_settings,
    log_tail,
    port_open,
    read_pid,
    report_running,
    stop_pid,
    wait_until,
)

POM = REPO / "scripts" / "neo4j" / "pom.xml"
ENTRY_POINT = "org.neo4j.server.CommunityEntryPoint"
DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1"
SUPPORTED_JAVA = {17, 21}
JVM_OPTIONS = [
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    # No -XX:+ExitOnOutOfMemoryError: an analyst's expression that outgrows the heap (values built
    # inside one expression are not counted by the transaction memory limit below) then fails alone
    # with Neo.TransientError.General.OutOfMemoryError (measured: the server answers the next query),
    # instead of stopping Neo4j for every tenant. The guard refuses the known shapes first.
    "-Dfile.encoding=UTF-8",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Dlog4j2.disable.jmx=true",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
]
# The server's Bolt keep-alive: it sends a NOOP at least this often while a query runs, and hints the
# driver (`connection.recv_timeout_seconds`, twice this: 4 s) to give up reading sooner than that from
# a server gone silent. So a hung (SIGSTOPped) Neo4j costs a request ~4 s (then 503), not the default
# 120 s; a long query keeps its connection alive. docs/operations.md, "Deadlines: a hung Neo4j".
BOLT_KEEP_ALIVE = {
    "server.bolt.connection_keep_alive": "2s",
    "server.bolt.connection_keep_alive_for_requests": "ALL",
}


def neo4j_version() -> str:
    match = re.search(r"<neo4j.version>([^<]+)</neo4j.version>", POM.read_text())
    if not match:
        fail(f"no <neo4j.version> in {POM}")
    return match.group(1)  # type: ignore[union-attr]


def lib_dir() -> Path:
    return CACHE / "neo4j" / neo4j_version() / "lib"


def java_binary() -> str:
    java_home = os.environ.get("JAVA_HOME")
    java = str(Path(java_home) / "bin" / "java") if java_home else shutil.which("java")
    if not java or not Path(java).exists():
        fail(
            "Java 17 or 21 is required to run Neo4j 5.26 and was not found (install openjdk-17-jre or set JAVA_HOME)",
            2,
        )
    out = subprocess.run([java, "-version"], capture_output=True, text=True).stderr  # type: ignore[list-item]
    match = re.search(r'version "(\d+)', out)
    major = int(match.group(1)) if match else 0
    if major not in SUPPORTED_JAVA:
        fail(f"Neo4j 5.26 runs on Java 17 or 21; {java} is Java {major or 'unknown'}", 2)
    return java  # type: ignore[return-value]


def fetch() -> Path:
    """Resolve the server jars from Maven Central once; later calls reuse the cache."""
    lib = lib_dir()
    marker = lib / ".complete"
    if marker.exists():
        return lib
    mvn = shutil.which("mvn")
    if not mvn:
        fail("Maven (mvn) is required to fetch the Neo4j server jars and was not found", 2)
    print(f"fetching Neo4j {neo4j_version()} server jars from Maven Central into {lib} ...", flush=True)
    shutil.rmtree(lib, ignore_errors=True)
    result = subprocess.run(
        [mvn, "-B", "-q", "-f", str(POM), f"{DEPENDENCY_PLUGIN}:copy-dependencies",
         f"-DoutputDirectory={lib}", "-DincludeScope=runtime"],
        capture_output=True, text=True,
    )  # fmt: skip
    jars = list(lib.glob("*.jar"))
    if result.returncode != 0 or not jars:
        fail(
            f"could not download the Neo4j jars (mvn exit {result.returncode}):\n"
            f"{(result.stdout + result.stderr)[-3000:]}",
            3,
        )
    marker.write_text(f"{len(jars)} jars\n")
    return lib


def memory_bytes(size: str) -> int:
    """`768m`, `1g`, `512k` or a number of bytes as bytes (the JVM's and Neo4j's size syntax)."""
    match = re.fullmatch(r"(\d+)([kmg]?)b?", size.strip().lower())
    if match is None:
        fail(f"cannot read the size {size!r} (use e.g. 768m or 1g)")
    return int(match.group(1)) * 1024 ** " kmg".index(match.group(2) or " ")  # type: ignore[union-attr]


def transaction_memory(heap: str) -> dict[str, str]:
    """Neo4j's transaction memory limits for a heap: one transaction at most a quarter of the heap,
    all of them together at most 60 %, so no query's tracked memory (collect, sort, DISTINCT,
    aggregation, eager buffers, transaction state) can exhaust the heap: it fails alone with a
    memory-limit error instead (the Cypher endpoint answers 422 `cypher_memory`). Recall and the
    write path run under these limits in the whole test suite (768m heap: 192m a transaction); one
    very large JSON import is a single transaction and meets the limit first (not measured)."""
    heap_bytes = memory_bytes(heap)
    return {
        "db.memory.transaction.max": f"{heap_bytes // 4 // 1024 ** 2}m",
        "db.memory.transaction.total.max": f"{heap_bytes * 6 // 10 // 1024 ** 2}m",
    }


# Transaction logs sized for a development or test engine: by default Neo4j preallocates 256 MiB per
# log file and database (512 MiB for `neo4j` + `system` before the first write) and keeps two days of
# them. The test suite starts one engine per worker plus one per fault drill, which filled a CI
# machine's disk; unpreallocated 32 MiB files, at most 128 MiB kept, bound an engine to a few hundred
# MiB. Recovery needs only the logs since the last checkpoint, which Neo4j always keeps.
SMALL_TRANSACTION_LOGS = {
    "db.tx_log.preallocate": "false",
    "db.tx_log.rotation.size": "32M",
    "db.tx_log.rotation.retention_policy": "128M size",
}


def write_config(home: Path, port: int, pagecache: str, heap: str = "1g") -> Path:
    conf_dir = home / "conf"
    conf_dir.mkdir(parents=True, exist_ok=True)
    settings = {
        "server.directories.data": home / "data",
        "server.directories.logs": home / "logs",
        "server.directories.run": home / "run",
        "server.directories.plugins": home / "plugins",
        "server.directories.import": home / "import",
        "server.directories.transaction.logs.root": home / "data" / "transactions",
        "server.default_listen_address": "127.0.0.1",
        "server.bolt.enabled": "true",
        "server.bolt.listen_address": f"127.0.0.1:{port}",
        "server.bolt.advertised_address": f"127.0.0.1:{port}",
        "server.http.enabled": "false",
        "server.https.enabled": "false",
        # Loopback only, for development and tests; docker-compose and production use auth.
        "dbms.security.auth_enabled": "false",
        "dbms.security.allow_csv_import_from_file_urls": "false",
        "server.memory.pagecache.size": pagecache,
        "dbms.usage_report.enabled": "false",
        "db.transaction.timeout": "120s",
        "db.logs.query.enabled": "OFF",
        **SMALL_TRANSACTION_LOGS,
        **BOLT_KEEP_ALIVE,
        **transaction_memory(heap),
    }
    path = conf_dir / "neo4j.conf"
    path.write_text("".join(f"{key}={value}\n" for key, value in settings.items()))
    return path


def pid_file(home: Path) -> Path:
    return home / "run" / "hippograph-neo4j.pid"


def report_version(port: int) -> str:
    """Ask the running server over Bolt (the one query path the app uses)."""
    sys.path.insert(0, str(REPO))
    from app.settings import Settings
    from app.stores.graph import GraphStore

    store = GraphStore.connect(Settings(NEO4J_URI=f"bolt://127.0.0.1:{port}", NEO4J_PASSWORD=""))
    try:
        return store.server_version()
    finally:
        store.close()


def start(home: Path, port: int, heap: str, pagecache: str, timeout_s: float) -> None:
    pids = pid_file(home)
    if read_pid(pids) is not None and port_open(port):
        print(f"Neo4j already running on bolt://127.0.0.1:{port} ({report_version(port)})")
        return
    if port_open(port):
        fail(f"port {port} is already in use by another process", 4)
    java = java_binary()
    lib = fetch()
    home.mkdir(parents=True, exist_ok=True)
    write_config(home, port, pagecache, heap)
    for folder in ("logs", "run", "plugins", "import", "data"):
        (home / folder).mkdir(exist_ok=True)
    console_log = home / "logs" / "console.log"
    command = [java, f"-Xms{heap}", f"-Xmx{heap}", *JVM_OPTIONS, "-cp", f"{lib}/*", ENTRY_POINT,
               f"--home-dir={home}", f"--config-dir={home / 'conf'}", "--console-mode"]  # fmt: skip
    with console_log.open("ab") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   start_new_session=True, cwd=home)  # fmt: skip
    pids.write_text(f"{process.pid}\n")
    started = wait_until(lambda: port_open(port) and "Started." in log_tail(console_log, 200),
                         timeout_s, lambda: process.poll() is None)  # fmt: skip
    if not started:
        if process.poll() is None:
            process.kill()
        pids.unlink(missing_ok=True)
        fail(f"Neo4j did not become ready within {timeout_s:g} s; last log lines:\n{log_tail(console_log)}", 5)
    print(f"Neo4j ready on bolt://127.0.0.1:{port} ({report_version(port)}), data in {home / 'data'}")


def main() -> None:
    settings = load_settings()
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["fetch", "start", "stop", "status", "version"])
    parser.add_argument("--port", type=int, default=settings.neo4j_port)
    parser.add_argument("--home", type=Path, default=settings.data_dir / "neo4j")
    parser.add_argument("--heap", default="1g", help="JVM heap (-Xms/-Xmx)")
    parser.add_argument("--pagecache", default="512m", help="server.memory.pagecache.size")
    parser.add_argument("--timeout", type=float, default=120, help="readiness deadline in seconds")
    args = parser.parse_args()
    home = args.home.resolve()

    if args.command == "fetch":
        print(f"Neo4j {neo4j_version()} jars in {fetch()}")
    elif args.command == "start":
        start(home, args.port, args.heap, args.pagecache, args.timeout)
    elif args.command == "stop":
        stopped = stop_pid(pid_file(home), "Neo4j")
        print("Neo4j stopped" if stopped else "Neo4j was not running")
    else:
        address = f"bolt://127.0.0.1:{args.port}"
        report_running(args.command, "Neo4j", pid_file(home), args.port, address, lambda: report_version(args.port))


if __name__ == "__main__":
    main()
