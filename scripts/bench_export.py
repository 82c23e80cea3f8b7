#!/usr/bin/env python3
"""Benchmark the streamed export (`GET /v1/namespaces/{ns}/export`): throughput and peak memory.

Bulk-loads a synthetic namespace with the loaders of cypher/bench.cypher (as scripts/bench_forgetting.py
does: N nodes, N-1 edges) in steps up to each size, then reads the export the way the route sends it
(`Transfer.export`, chunk by chunk, discarded) in JSON and in GraphML, and prints per size:
  MB/s, nodes/s  - a run without tracing;
  peak MiB       - tracemalloc's peak of Python allocations during a second run (the driver's rows included);
  whole MiB      - for contrast, the peak of building the same JSON in memory (`snapshot_to_json` of
                   `Transfer.snapshot`): what an unstreamed export needed.
The streamed peak must stay flat as N grows; the whole one grows with N.

Starts its own Neo4j and Redis (scripts/harness.py) unless --neo4j-uri/--redis-url are given; the
namespace `bench-export` is erased at the end unless --keep.

    .venv/bin/python scripts/bench_export.py [--nodes 20000 100000] [--neo4j-uri bolt://...]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from app.domain.inputs import namespace_term  # noqa: E402
from app.domain.model import Importance, NodeType  # noqa: E402
from app.domain.snapshot import snapshot_to_json  # noqa: E402
from app.memory.namespaces import Namespaces  # noqa: E402
from app.memory.transfer import Transfer  # noqa: E402
from app.stores.graph import GraphStore  # noqa: E402
from app.stores.hot import connect_redis  # noqa: E402
from app.stores.queries.bench_queries import BenchQueries  # noqa: E402
from app.stores.queries.namespace_queries import NamespaceQueries  # noqa: E402
from app.stores.vectors.qdrant_edge import EdgeVectorStore  # noqa: E402
from scripts.harness import add_engine_arguments, local_engines  # noqa: E402

NAMESPACE = "bench-export"
LOAD_BATCH = 50_000
MIB = 1 << 20


def drained(chunks: Iterable[str]) -> int:
    """Bytes sent, as the response would encode them; nothing is kept."""
    return sum(len(chunk.encode("utf-8")) for chunk in chunks)


def peak_mib(work: Callable[[], object]) -> float:
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1] / MIB
    finally:
        tracemalloc.stop()


def load(graph: GraphStore, start: int, end: int) -> None:
    bench, term, now = BenchQueries(graph), namespace_term(NAMESPACE), datetime.now(UTC)
    types, levels = [t.value for t in NodeType], [level.value for level in Importance]
    for first in range(start, end, LOAD_BATCH):
        last = min(end, first + LOAD_BATCH)
        bench.load_nodes(namespace=NAMESPACE, namespace_term=term, start=first, end=last, types=types, levels=levels,
                         now=now, spread_hours=2000)  # fmt: skip
        bench.load_edges(namespace=NAMESPACE, start=first, end=last, types=types)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, nargs="+", default=[20_000, 100_000])
    parser.add_argument("--no-whole", action="store_true", help="skip the in-memory contrast")
    add_engine_arguments(parser)
    args = parser.parse_args()
    with local_engines("bench-export", neo4j_port=17693, redis_port=16393, args=args) as settings:
        graph = GraphStore.connect(settings)
        graph.apply_schema()
        with tempfile.TemporaryDirectory() as vector_dir:
            vectors = EdgeVectorStore(Path(vector_dir) / "shard", 384)
            namespaces = Namespaces(graph, vectors, connect_redis(settings))
            try:
                run(graph, namespaces, sorted(args.nodes), not args.no_whole)
            finally:
                if not args.keep and NamespaceQueries(graph).get(namespace=NAMESPACE):
                    namespaces.delete(NAMESPACE)
                vectors.close()
                graph.close()


def run(graph: GraphStore, namespaces: Namespaces, sizes: list[int], whole: bool) -> None:
    if NamespaceQueries(graph).get(namespace=NAMESPACE):
        namespaces.delete(NAMESPACE)
    namespaces.put(NAMESPACE)
    transfer = Transfer(graph, None, namespaces)  # type: ignore[arg-type]  # export only: no embedding
    print(f"Neo4j {graph.server_version()}; Python {sys.version.split()[0]}", flush=True)
    print("\n| nodes | edges | format | MB | seconds | MB/s | nodes/s | peak MiB (streamed) | peak MiB (whole) |")
    print("|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    loaded = 0
    for n in sizes:
        load(graph, loaded, n)
        loaded = n
        for fmt in ("json", "graphml"):
            start = time.perf_counter()
            size = drained(transfer.export(NAMESPACE, fmt))  # type: ignore[arg-type]
            seconds = time.perf_counter() - start
            streamed = peak_mib(lambda fmt=fmt: drained(transfer.export(NAMESPACE, fmt)))  # type: ignore[arg-type]
            in_memory = (
                f"{peak_mib(lambda: snapshot_to_json(transfer.snapshot(NAMESPACE))):.1f}"
                if whole and fmt == "json"
                else "-"
            )
            print(f"| {n:,} | {n - 1:,} | {fmt} | {size / 1e6:.1f} | {seconds:.1f} | {size / 1e6 / seconds:.1f} "
                  f"| {n / seconds:,.0f} | {streamed:.1f} | {in_memory} |", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
