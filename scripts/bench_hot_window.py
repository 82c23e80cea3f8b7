#!/usr/bin/env python3
"""Benchmark the hot window's search (`HotWindow.search`, on every recall) against the number of
turns still pending in a namespace: a write backlog makes every recall read more.

Fills a fresh namespace with --pending turns as scripts/load.py writes them (`turn_text`: templated
sentences that all carry the tenant's marker word), then times --queries searches asking for the marker
and two other words, and prints p50 / p95 / max per size. Redis only: starts its own on port 16398
unless --redis-url is given; the namespaces are deleted afterwards.

    .venv/bin/python scripts/bench_hot_window.py [--pending 1000 5000 15000] [--queries 30]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import redis

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from app.domain.turns import Turn  # noqa: E402
from app.memory.hot_window import HotWindow  # noqa: E402
from app.stores.hot import delete_namespace_keys  # noqa: E402
from scripts.bench_ingest import VALUES  # noqa: E402
from scripts.harness import service_script  # noqa: E402
from scripts.load import MARKERS, turn_text  # noqa: E402

BENCH_REDIS_PORT = 16398
MARKER = MARKERS[0]
ADD_CHUNK = 100  # turns per `HotWindow.add` call


def fill(window: HotWindow, namespace: str, pending: int, rng: random.Random) -> None:
    start = datetime(2026, 1, 1, tzinfo=UTC)
    for first in range(0, pending, ADD_CHUNK):
        turns = [
            Turn(
                session_id=f"s{index // 20}",
                turn_id=str(index),
                speaker="Alice",
                text=turn_text(rng, MARKER),
                timestamp=start + timedelta(seconds=index),
            )
            for index in range(first, min(first + ADD_CHUNK, pending))
        ]
        window.add(namespace, turns, [uuid.uuid4().hex for _ in turns])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pending", type=int, nargs="+", default=[1000, 5000, 15000])
    parser.add_argument("--queries", type=int, default=30)
    parser.add_argument("--redis-url", help="use this Redis instead of starting one")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    redis_args = ("--port", str(BENCH_REDIS_PORT), "--dir", str(REPO / "data" / "bench-hot-window" / "redis"))
    if not args.redis_url:
        service_script("redis_local.py", "start", *redis_args)
    client = redis.Redis.from_url(args.redis_url or f"redis://127.0.0.1:{BENCH_REDIS_PORT}/0", decode_responses=True)
    window = HotWindow(client)
    rng = random.Random(args.seed)
    try:
        print("| pending turns | search p50 ms | p95 ms | max ms |")
        print("|---:|---:|---:|---:|")
        for pending in args.pending:
            namespace = f"bench-hot-{uuid.uuid4().hex[:8]}"
            fill(window, namespace, pending, rng)
            took = []
            for _ in range(args.queries):
                query = f"{rng.choice(VALUES['topic'])} {rng.choice(VALUES['city'])} {MARKER}"
                start = time.perf_counter()
                window.search(namespace, query)
                took.append((time.perf_counter() - start) * 1000)
            p95 = statistics.quantiles(took, n=20, method="inclusive")[-1]
            print(f"| {pending:,} | {statistics.median(took):.1f} | {p95:.1f} | {max(took):.1f} |")
            delete_namespace_keys(client, namespace)
    finally:
        client.close()
        if not args.redis_url:
            service_script("redis_local.py", "stop", *redis_args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
