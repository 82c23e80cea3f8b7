#!/usr/bin/env python3
"""Benchmark the memory explorer's first paint of a neighbourhood on the 100k-node namespace that
scripts/bench_recall.py loads (run it first; this script only reads, on the same engines and ports).

For sample nodes of each kind — the most activated concepts and people (the hubs: a speaker's Person
node has a REFERENCE from each of its turns), the busiest sessions' episodes, facts with a history —
it times `GET …/related?edges=true&fanout=<limit>` (depth 2, 50 nodes, the page's defaults: the page
bounds each node's expansion to `limit` neighbours) from a client, then opens the same neighbourhood in
the page in headless Chromium and reads the page's own first-paint time (both reads, Cytoscape's
layout and the first frame drawn). `--fanout 0` times the API read without a fan-out (every path
ranked, as before the page bounded it; the page itself always bounds). Prints Markdown tables.

    .venv/bin/python scripts/bench_explorer.py [--samples 5] [--depth 2] [--limit 50] [--fanout 0]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_recall import BENCH_NEO4J_PORT, BENCH_REDIS_PORT, NAMESPACE  # noqa: E402
from harness import add_engine_arguments, local_engines, served_api  # noqa: E402
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402

from app.runtime import Runtime  # noqa: E402


def sample_nodes(client: object, samples: int) -> dict[str, list[str]]:
    """Node ids per kind, from the analytics catalogue (no Cypher of this script's own)."""

    def rows(name: str, **params: object) -> list[dict[str, object]]:
        body = {"name": name, "params": {**params, "limit": samples}, "limit": samples}
        response = client.post(f"/v1/namespaces/{NAMESPACE}/cypher", json=body)  # type: ignore[attr-defined]
        response.raise_for_status()
        return list(response.json()["rows"])

    facts = [row for row in rows("fact_history", limit=500) if row["superseded_by"]]
    return {
        "person (hub)": [str(r["id"]) for r in rows("most_activated_concepts", types=["Person"])],
        "concept": [str(r["id"]) for r in rows("most_activated_concepts", types=["Concept"])],
        "episode": [str(r["episode_id"]) for r in rows("busiest_sessions")],
        "superseded fact": [str(r["id"]) for r in facts[:samples]],
    }


def browser() -> webdriver.Chrome:
    os.environ["SE_OFFLINE"] = "true"
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1600,1000"):
        options.add_argument(argument)
    return webdriver.Chrome(options=options, service=Service(executable_path=shutil.which("chromedriver")))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=5, help="nodes per kind")
    parser.add_argument("--depth", type=int, default=2)
    parser.add_argument("--limit", type=int, default=50)
    parser.add_argument("--fanout", type=int, default=None, help="the API read's fan-out (default: the limit, as "
                        "the page; 0: none)")  # fmt: skip
    add_engine_arguments(parser)
    args = parser.parse_args()
    with local_engines("bench-recall", BENCH_NEO4J_PORT, BENCH_REDIS_PORT, args) as settings:
        runtime = Runtime.open(settings)
        try:
            with served_api(runtime) as client:
                measure(client, args)
        finally:
            runtime.close()


def measure(client: object, args: argparse.Namespace) -> None:
    shown = client.get(f"/v1/namespaces/{NAMESPACE}")  # type: ignore[attr-defined]
    if shown.status_code != 200:
        sys.exit(f"namespace {NAMESPACE!r} is not loaded: run scripts/bench_recall.py first")
    print(f"namespace {NAMESPACE!r}: {shown.json()['total']:,} nodes; depth {args.depth}, at most {args.limit} nodes")
    kinds = sample_nodes(client, args.samples)
    key = client.headers["Authorization"].removeprefix("Bearer ")  # type: ignore[attr-defined]
    driver = browser()
    try:
        driver.get(f"{client.base_url}/explorer/")  # type: ignore[attr-defined]
        driver.execute_script(f"sessionStorage.setItem('hippograph.key', {key!r});"
                              f"sessionStorage.setItem('hippograph.namespace', {NAMESPACE!r});")  # fmt: skip
        driver.refresh()
        driver.execute_script(f"document.getElementById('depth').value = '{args.depth}';"
                              f"document.getElementById('limit').value = '{args.limit}';")  # fmt: skip
        params = {"depth": args.depth, "limit": args.limit, "edges": True}
        if args.fanout != 0:
            params["fanout"] = args.fanout or args.limit
        print(f"API reads: related?{'&'.join(f'{k}={v}' for k, v in params.items())}")
        print("\n| kind | samples | nodes drawn (mean) | edges (mean) | API related p50 / max, ms | "
              "first paint p50 / max, ms |\n|---|---:|---:|---:|---:|---:|")  # fmt: skip
        for kind, ids in kinds.items():
            api_ms, paint_ms, nodes, edges = [], [], [], []
            for node_id in ids:
                started = time.perf_counter()
                answer = client.get(f"/v1/namespaces/{NAMESPACE}/nodes/{node_id}/related",  # type: ignore[attr-defined]
                                    params=params)  # fmt: skip
                api_ms.append((time.perf_counter() - started) * 1000)
                answer.raise_for_status()
                failed = driver.execute_async_script(
                    "const done = arguments[arguments.length - 1];"
                    "window.hippographExplorer.open(arguments[0]).then(() => done(null), (e) => done(String(e)));",
                    node_id,
                )
                if failed:
                    refusal = driver.find_element("id", "refusal").text
                    sys.exit(f"the page could not open {node_id}: {failed} (the page says: {refusal!r})")
                paint_ms.append(float(driver.find_element("id", "graph").get_attribute("data-paint-ms") or "nan"))
                nodes.append(int(driver.find_element("id", "graph-stats").get_attribute("data-nodes") or 0))
                edges.append(int(driver.find_element("id", "graph-stats").get_attribute("data-edges") or 0))
            if ids:
                print(f"| {kind} | {len(ids)} | {statistics.mean(nodes):.0f} | {statistics.mean(edges):.0f} | "
                      f"{statistics.median(api_ms):.0f} / {max(api_ms):.0f} | "
                      f"{statistics.median(paint_ms):.0f} / {max(paint_ms):.0f} |")  # fmt: skip
    finally:
        driver.quit()
    print(f"\nmachine: 1-min load average {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
