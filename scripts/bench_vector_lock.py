#!/usr/bin/env python3
"""How long the embedded vector engine keeps other threads of the process waiting.

Qdrant Edge (qdrant-edge-py) holds Python's interpreter lock for the whole of each call, and the
embedded run hosts the API and the Celery worker in one process: while a write batch searches the
SEMANTIC neighbours of its new nodes, no request thread runs. `EdgeVectorStore` therefore sends
batches to the engine in small calls. This prints, for a batch search of --queries vectors over
--points random points (unindexed, as between two `optimize` runs), the batch's time and the longest
and mean gap a second thread saw between two of its 1 ms ticks (the time it waited for the lock),
once through `search_many` (small calls) and once as a single engine call (what it did before).

    .venv/bin/python scripts/bench_vector_lock.py [--points 30000] [--queries 200]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from app.stores.vectors import qdrant_edge  # noqa: E402
from app.stores.vectors.base import VectorRecord  # noqa: E402


def waits_during(work: object) -> tuple[float, float, float]:
    """Seconds `work()` took, and the longest and mean gap (ms) between a second thread's ticks."""
    gaps: list[float] = []
    done = threading.Event()

    def tick() -> None:
        last = time.perf_counter()
        while not done.is_set():
            time.sleep(0.001)
            now = time.perf_counter()
            gaps.append((now - last) * 1000)
            last = now

    ticker = threading.Thread(target=tick)
    ticker.start()
    started = time.perf_counter()
    work()  # type: ignore[operator]
    took = time.perf_counter() - started
    done.set()
    ticker.join()
    return took, max(gaps), sum(gaps) / len(gaps)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--points", type=int, default=30_000)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as folder:
        store = qdrant_edge.EdgeVectorStore(Path(folder) / "vectors", 384)
        vectors = rng.standard_normal((args.points, 384)).astype("float32")
        for start in range(0, args.points, 1000):
            store.upsert(
                "bench",
                [VectorRecord(f"n{i}", vectors[i].tolist()) for i in range(start, min(args.points, start + 1000))],
            )
        queries = rng.standard_normal((args.queries, 384)).astype("float32").tolist()
        small = qdrant_edge._QUERIES_PER_CALL
        for label, per_call in ((f"{small} queries a call", small), ("one call", args.queries)):
            qdrant_edge._QUERIES_PER_CALL = per_call
            took, longest, mean = waits_during(lambda: store.search_many("bench", queries, 10))
            print(
                f"{label:>20}: batch {took * 1000:7.0f} ms,"
                f" other thread waited up to {longest:6.1f} ms (mean {mean:5.1f} ms)"
            )
        qdrant_edge._QUERIES_PER_CALL = small
        store.close()


if __name__ == "__main__":
    main()
