#!/usr/bin/env python3
"""Recall latency while analysts run worst-case Cypher queries (issue 37): recall p50/p95/p99 on a
quiet service, then while 8 clients each post worst-case analytics queries back to back.

Serves the API in a child process (`python -m app`, the embedded run) on the engines of
--neo4j-uri / --redis-url, seeds a namespace through the API (--memories memories), warms recall up,
then measures --recalls sequential recalls twice: alone, and under the analyst load. Each analyst
client posts, in turn, queries that hold Neo4j as long as the endpoint allows: a CPU-bound UNWIND
stopped at the timeout, a tracked collect that runs into the transaction memory limit, a 100 KB
parameter returned 1,000 times (the byte cap), and an anchored scan of the namespace. The answers
they get (200, 422, 429) are counted. Prints a Markdown table; target: recall p95 <= 250 ms.

    .venv/bin/python scripts/bench_analyst_load.py --neo4j-uri bolt://127.0.0.1:27687 \
        --redis-url redis://127.0.0.1:26379/0 [--analysts 8] [--recalls 200] [--memories 300]
"""

from __future__ import annotations

import argparse
import collections
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parent.parent
ADMIN_KEY = "bench-analyst-" + uuid.uuid4().hex

WORST_CASE: list[tuple[str, dict[str, Any]]] = [
    ("UNWIND range(1, 300000000) AS i WITH i WHERE i % 7 = 3 RETURN count(*) AS n", {}),
    ("UNWIND range(1, 20000000) AS i WITH collect(toString(i) + $pad) AS l RETURN size(l) AS n", {"pad": "z" * 64}),
    ("UNWIND range(1, 1000) AS i RETURN i, $big AS v", {"big": "y" * 100_000}),
    ("MATCH (m:Memory {namespace: $namespace})-[*1..3]-(x) RETURN count(x) AS n", {}),
]
RECALL_QUERIES = ["what does the platform team ship", "who leads the beta", "note about travel", "Paris trip"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def serve(args: argparse.Namespace, data_dir: Path, port: int) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "NEO4J_URI": args.neo4j_uri,
        "REDIS_URL": args.redis_url,
        "HIPPOGRAPH_DATA_DIR": str(data_dir),
        "HIPPOGRAPH_PORT": str(port),
        "HIPPOGRAPH_ADMIN_KEY": ADMIN_KEY,
        "HIPPOGRAPH_LOG_FORMAT": "text",
    }
    with (data_dir / "api.log").open("wb") as log:  # the child keeps its own descriptor
        process = subprocess.Popen([sys.executable, "-m", "app"], cwd=REPO, env=env,
                                   stdout=subprocess.DEVNULL, stderr=log)  # fmt: skip
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=2).status_code == 200:
                return process
        except httpx.HTTPError:
            pass
        if process.poll() is not None:
            sys.exit(f"the API exited; see {data_dir / 'api.log'}")
        time.sleep(0.5)
    process.kill()
    sys.exit("the API did not become ready within 120 s")


def seed(client: httpx.Client, ns: str, memories: int) -> None:
    assert client.put(f"/v1/namespaces/{ns}").status_code in (200, 201)
    topics = ["the platform team ships the beta", "a trip to Paris in May", "Alice leads the design review",
              "the car is a Model Y", "budget notes for the quarter", "travel plans for the offsite"]  # fmt: skip
    for i in range(memories):
        body = {"type": "Knowledge", "label": f"note {i}", "content": f"{topics[i % len(topics)]} (note {i})"}
        response = client.post(f"/v1/namespaces/{ns}/memories", json=body)
        response.raise_for_status()


def recalls(client: httpx.Client, ns: str, count: int) -> list[float]:
    times = []
    for i in range(count):
        started = time.perf_counter()
        response = client.post(f"/v1/namespaces/{ns}/recall", json={"query": RECALL_QUERIES[i % 4], "top_k": 5})
        times.append((time.perf_counter() - started) * 1000)
        response.raise_for_status()
    return times


def analyst(base: str, ns: str, stop: threading.Event, answers: collections.Counter[str], index: int) -> None:
    with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {ADMIN_KEY}"}, timeout=60) as client:
        turn = index
        while not stop.is_set():
            query, params = WORST_CASE[turn % len(WORST_CASE)]
            turn += 1
            response = client.post(f"/v1/namespaces/{ns}/cypher", json={"query": query, "params": params})
            code = response.json().get("error", {}).get("code", "") if response.status_code != 200 else ""
            answers[f"{response.status_code} {code}".strip()] += 1
            if response.status_code == 429:
                time.sleep(0.2)


def row(label: str, times: list[float]) -> str:
    return (f"| {label} | {len(times)} | {statistics.median(times):.0f} | {percentile(times, 0.95):.0f} | "
            f"{percentile(times, 0.99):.0f} | {max(times):.0f} |")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--neo4j-uri", default=os.environ.get("NEO4J_URI", "bolt://127.0.0.1:7687"))
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    parser.add_argument("--analysts", type=int, default=8)
    parser.add_argument("--recalls", type=int, default=200)
    parser.add_argument("--memories", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=50)
    args = parser.parse_args()

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory(prefix="bench-analyst-") as tmp:
        process = serve(args, Path(tmp), port)
        try:
            headers = {"Authorization": f"Bearer {ADMIN_KEY}"}
            with httpx.Client(base_url=base, headers=headers, timeout=60) as client:
                ns = f"bench-analyst-{uuid.uuid4().hex[:8]}"
                analysts_ns = [f"{ns}-x{i}" for i in range(args.analysts)]
                seed(client, ns, args.memories)
                for other in analysts_ns:
                    seed(client, other, 20)
                recalls(client, ns, args.warmup)
                quiet = recalls(client, ns, args.recalls)

                stop = threading.Event()
                answers: collections.Counter[str] = collections.Counter()
                threads = [threading.Thread(target=analyst, args=(base, analysts_ns[i], stop, answers, i), daemon=True)
                           for i in range(args.analysts)]  # fmt: skip
                for thread in threads:
                    thread.start()
                time.sleep(2.0)  # the analysts' queries are running
                loaded = recalls(client, ns, args.recalls)
                stop.set()
                for thread in threads:
                    thread.join(timeout=30)
                for name in [ns, *analysts_ns]:
                    client.delete(f"/v1/namespaces/{name}")
        finally:
            process.terminate()
            process.wait(timeout=30)

    print(f"recall latency, ms ({args.memories} memories; {args.analysts} analyst clients, worst-case queries)\n")
    print("| phase | recalls | p50 | p95 | p99 | max |\n|---|---|---|---|---|---|")
    print(row("quiet", quiet))
    print(row(f"{args.analysts} analysts", loaded))
    print("\nanalyst answers: " + ", ".join(f"{key}: {n}" for key, n in sorted(answers.items())))
    verdict = "within" if percentile(loaded, 0.95) <= 250 else "OVER"
    print(f"recall p95 under load {percentile(loaded, 0.95):.0f} ms: {verdict} the 250 ms target")


if __name__ == "__main__":
    main()
