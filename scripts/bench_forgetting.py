#!/usr/bin/env python3
"""Benchmark the decay and prune jobs on one namespace of N nodes (default 1,000,000).

Starts its own local Neo4j and Redis (scripts/neo4j_local.py, scripts/redis_local.py; separate
ports and data folders, a larger Neo4j heap) unless --neo4j-uri/--redis-url are given, bulk-loads
synthetic nodes and edges, then times:
  decay  - recompute every node's activation and every learned edge's weight
  prune  - capacity = 90% of N: delete the lowest-scored nodes down to the low-water mark (81%)
and prints seconds and nodes per second. Target on a 2-core machine: each job under 60 s at 1M.

    .venv/bin/python scripts/bench_forgetting.py [--nodes 1000000] [--keep]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from app.domain.inputs import namespace_term  # noqa: E402
from app.domain.model import Importance, NodeType  # noqa: E402
from app.memory.forgetting import Forgetting  # noqa: E402
from app.memory.namespaces import Namespaces  # noqa: E402
from app.settings import Settings  # noqa: E402
from app.stores.graph import GraphStore  # noqa: E402
from app.stores.hot import connect_redis  # noqa: E402
from app.stores.queries.bench_queries import BenchQueries  # noqa: E402
from app.stores.queries.namespace_queries import NamespaceQueries  # noqa: E402
from app.stores.vectors.qdrant_edge import EdgeVectorStore  # noqa: E402

BENCH_PORT = 17690
BENCH_REDIS_PORT = 16390
BENCH_HOME = REPO / "data" / "bench" / "neo4j"
BENCH_REDIS_DIR = REPO / "data" / "bench" / "redis"
NAMESPACE = "bench-forgetting"
LOAD_BATCH = 100_000


def service_script(script: str, *args: str) -> None:
    subprocess.run([sys.executable, str(REPO / "scripts" / script), *args], check=True)


def timed(label: str, work):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    result = work()
    seconds = time.perf_counter() - start
    print(f"  {label:<28} {seconds:8.2f} s", flush=True)
    return result, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=1_000_000)
    parser.add_argument("--neo4j-uri", help="use this server instead of starting one")
    parser.add_argument("--redis-url", help="use this server instead of starting one")
    parser.add_argument("--heap", default="3g")
    parser.add_argument("--pagecache", default="2g")
    parser.add_argument("--keep", action="store_true", help="leave the benchmark Neo4j running")
    args = parser.parse_args()

    uri = args.neo4j_uri or f"bolt://127.0.0.1:{BENCH_PORT}"
    redis_url = args.redis_url or f"redis://127.0.0.1:{BENCH_REDIS_PORT}/0"
    neo4j_args = ("--port", str(BENCH_PORT), "--home", str(BENCH_HOME))
    redis_args = ("--port", str(BENCH_REDIS_PORT), "--dir", str(BENCH_REDIS_DIR))
    if not args.neo4j_uri:
        service_script("neo4j_local.py", "start", *neo4j_args, "--heap", args.heap, "--pagecache", args.pagecache)
    if not args.redis_url:
        service_script("redis_local.py", "start", *redis_args)
    settings = Settings(NEO4J_URI=uri, REDIS_URL=redis_url)
    graph = GraphStore.connect(settings)
    graph.apply_schema()
    with tempfile.TemporaryDirectory() as vector_dir:
        vectors = EdgeVectorStore(Path(vector_dir) / "shard", 384)
        namespaces = Namespaces(graph, vectors, connect_redis(settings))
        forgetting = Forgetting(graph, vectors, namespaces)
        try:
            run(graph, namespaces, forgetting, args.nodes)
        finally:
            vectors.close()
            graph.close()
            if not args.keep:
                if not args.neo4j_uri:
                    service_script("neo4j_local.py", "stop", *neo4j_args)
                if not args.redis_url:
                    service_script("redis_local.py", "stop", *redis_args)


def run(graph: GraphStore, namespaces: Namespaces, forgetting: Forgetting, n: int) -> None:
    now = datetime.now(UTC)
    print(f"Neo4j {graph.server_version()}; namespace {NAMESPACE!r} with {n:,} nodes", flush=True)
    if NamespaceQueries(graph).get(namespace=NAMESPACE):
        timed("clear previous run", lambda: namespaces.delete(NAMESPACE))
    namespaces.put(NAMESPACE, capacity=max(1, int(n * 0.9)), low_water_ratio=0.9)
    types = [t.value for t in NodeType]
    levels = [level.value for level in Importance]
    bench, term = BenchQueries(graph), namespace_term(NAMESPACE)

    def load() -> None:
        for start in range(0, n, LOAD_BATCH):
            end = min(n, start + LOAD_BATCH)
            bench.load_nodes(namespace=NAMESPACE, namespace_term=term, start=start, end=end, types=types,
                             levels=levels, now=now, spread_hours=2000)  # fmt: skip
            bench.load_edges(namespace=NAMESPACE, start=start, end=end, types=types)

    _, load_s = timed("bulk load nodes + edges", load)
    report, decay_s = timed("decay job", lambda: forgetting.decay(NAMESPACE, now))
    prune_report, prune_s = timed("prune job", lambda: forgetting.prune(NAMESPACE))
    print()
    print("| job | seconds | nodes/s | detail |")
    print("|---|---:|---:|---|")
    print(f"| load | {load_s:.1f} | {n / load_s:,.0f} | {n:,} nodes, {n - 1:,} edges |")
    print(f"| decay | {decay_s:.1f} | {n / decay_s:,.0f} | {report.nodes:,} nodes, {report.edges:,} learned edges, "
          f"{report.soft_forgotten:,} soft-forgotten |")  # fmt: skip
    print(f"| prune | {prune_s:.1f} | {n / prune_s:,.0f} | {prune_report.before:,} -> {prune_report.after:,} nodes, "
          f"{prune_report.deleted_edges:,} weak edges removed |")  # fmt: skip


if __name__ == "__main__":
    main()
