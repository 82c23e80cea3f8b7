#!/usr/bin/env python3
"""Load test: many small writers on one namespace, a second tenant beside it, then the checks.

    .venv/bin/python scripts/load.py [--agents 50] [--minutes 10] [--tenant-agents 10] [--workers 2]

Starts its own Neo4j and Redis (own ports and data folders) unless given --neo4j-uri/--redis-url,
then the service the way `make run` serves it: `python -m app` as its own process (uvicorn, the
embedded vector tier, the Celery worker with `--workers` threads and beat inside it). With
--qdrant-url the API process hosts no jobs: --workers standalone `celery worker` processes and a
`celery beat` run beside it (the docker-compose shape).

Each agent has its own writer key (created through the keys API with the bootstrap admin key; the
default rate limit, 600 requests a minute per key, is far above an agent's ~20) and its own
sessions, whose turns four people of its own say (--shared-speakers: the same four for every
agent). It posts a batch of 1-10 turns every 2-5 s (so 50 agents post ~80 turns/s, the second
tenant's 10 ~16: about 100 turns/s in all) and recalls now and then (--recall-every), for
--minutes. Every text carries its tenant's marker word, and every recall asks for both markers.
At the end: throughput, p50/p95/p99 per route, errors by status; the time the backlog takes to
drain (no turn pending), and the queue (the writes' SEMANTIC links included); then every
acknowledged (202) turn is looked up as a Dialogue node by its id (lost: none, duplicated: more
than one), the SEMANTIC pairs are counted (each stored once), and every recall card is checked for
the other tenant's marker.
Loopback only; bounded in time (--minutes, then --drain-timeout) and stops by itself. Exits 1
when a check fails. --json FILE writes the report as JSON too.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import signal
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import redis

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from app.stores.hot import namespace_key  # noqa: E402
from jobs.celery_app import queued_tasks  # noqa: E402
from scripts.bench_ingest import EN, VALUES  # noqa: E402
from scripts.harness import add_engine_arguments, free_port, git_commit, local_engines  # noqa: E402

LOAD_NEO4J_PORT = 17697
LOAD_REDIS_PORT = 16397
# Words no template or value contains: a card holding the other tenant's marker is a leak.
MARKERS = ("zorblaxite", "quintavorn")
SPEAKERS = ["Alice", "Bob", "Carol", "Dave"]
CHECK_CHUNK = 5000  # ids per verification query (the Cypher route returns at most 10,000 rows)
START_TIMEOUT_S = 180.0
RECALL_STAGES = ("hot_ms", "cold_ms", "fusion_ms", "total_ms")  # the recall answer's `stats` timings
CELERY_QUEUE = "celery"  # the Celery app's default queue (a Redis list)


@dataclass
class Tenant:
    namespace: str
    marker: str
    other_marker: str
    agents: int


@dataclass
class Stats:
    """What the agents saw: latencies per route, statuses, acknowledged turns, leaked cards."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    statuses: dict[str, Counter[int]] = field(default_factory=lambda: defaultdict(Counter))
    errors: Counter[str] = field(default_factory=Counter)  # transport errors (no status)
    acknowledged: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # ns -> node ids
    turns_posted: Counter[str] = field(default_factory=Counter)
    recalls: int = 0
    cards: int = 0
    # The service's own timing of each recall (its `stats`): where a slow answer spent its time.
    recall_stages: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    leaks: list[dict[str, Any]] = field(default_factory=list)

    def record(self, route: str, seconds: float, status: int) -> None:
        self.latencies[route].append(seconds)
        self.statuses[route][status] += 1


def turn_text(rng: random.Random, marker: str) -> str:
    template = rng.choice(EN)
    return f"{template.format(**{key: rng.choice(values) for key, values in VALUES.items()})} ({marker})"


async def timed(client: httpx.AsyncClient, stats: Stats, route: str, method: str, url: str,
                **kwargs: Any) -> httpx.Response | None:  # fmt: skip
    start = time.perf_counter()
    try:
        response = await client.request(method, url, **kwargs)
    except httpx.HTTPError as exc:
        stats.errors[f"{route}: {type(exc).__name__}"] += 1
        return None
    stats.record(route, time.perf_counter() - start, response.status_code)
    return response


def speaker(rng: random.Random, agent_index: int, shared: bool) -> str:
    """Who says a turn: one of four people of the agent's own (an agent serves its own users), or,
    `shared`, one of the same four for every agent (their facts change with every batch)."""
    name = rng.choice(SPEAKERS)
    return name if shared else f"{name} {agent_index}"


async def agent(index: int, tenant: Tenant, key: str, client: httpx.AsyncClient, stats: Stats, deadline: float,
                recall_every: int, seed: int, shared_speakers: bool = False) -> None:  # fmt: skip
    """Post 1-10 turns every 2-5 s in this agent's sessions (a new one every 20 batches); every
    `recall_every`-th round, recall too."""
    rng = random.Random(seed * 1000 + index)
    headers = {"Authorization": f"Bearer {key}"}
    ns = tenant.namespace
    await asyncio.sleep(rng.uniform(0, 5))  # spread the starts
    batch = 0
    clock = datetime(2025, 1, 1, tzinfo=UTC) + timedelta(days=index)
    while time.monotonic() < deadline:
        session = f"{tenant.marker}-a{index}-s{batch // 20}"
        turns = []
        for _ in range(rng.randint(1, 10)):
            clock += timedelta(seconds=rng.randint(5, 90))
            turns.append({"session_id": session, "turn_id": f"t{len(stats.acknowledged[ns])}-{rng.getrandbits(40):x}",
                          "speaker": speaker(rng, index, shared_speakers), "text": turn_text(rng, tenant.marker),
                          "timestamp": clock.isoformat()})  # fmt: skip
        response = await timed(client, stats, "POST /turns", "POST", f"/v1/namespaces/{ns}/turns",
                               json={"turns": turns}, headers=headers)  # fmt: skip
        stats.turns_posted[ns] += len(turns)
        if response is not None and response.status_code == 202:
            stats.acknowledged[ns].update(turn["node_id"] for turn in response.json()["turns"])
        batch += 1
        if recall_every and batch % recall_every == 0:
            await recall(client, stats, tenant, headers, rng)
        await asyncio.sleep(min(rng.uniform(2, 5), max(0.0, deadline - time.monotonic())))


async def recall(client: httpx.AsyncClient, stats: Stats, tenant: Tenant, headers: dict[str, str],
                 rng: random.Random) -> None:  # fmt: skip
    """A recall asking for both markers: a card holding the other tenant's is a leak."""
    query = f"{rng.choice(VALUES['topic'])} {rng.choice(VALUES['city'])} {tenant.marker} {tenant.other_marker}"
    response = await timed(client, stats, "POST /recall", "POST", f"/v1/namespaces/{tenant.namespace}/recall",
                           json={"query": query, "top_k": 10}, headers=headers)  # fmt: skip
    if response is None or response.status_code != 200:
        return
    stats.recalls += 1
    body = response.json()
    for stage in RECALL_STAGES:
        stats.recall_stages[stage].append(float(body["stats"][stage]))
    for card in body["items"]:
        stats.cards += 1
        if tenant.other_marker in json.dumps(card, ensure_ascii=False):
            stats.leaks.append({"namespace": tenant.namespace, "card": card})


# -- the service under test ------------------------------------------------------------------------


@contextmanager
def service(args: argparse.Namespace, env: dict[str, str], log_dir: Path) -> Iterator[str]:
    """`python -m app` (and, with --qdrant-url, standalone workers and beat); yields the base URL.
    Every process started here is stopped here."""
    port = free_port()
    env = {**env, "HIPPOGRAPH_PORT": str(port)}
    commands = [("api", [sys.executable, "-m", "app"])]
    if args.qdrant_url:
        celery = [sys.executable, "-m", "celery", "-A", "jobs.celery_app"]
        commands += [(f"worker-{i}", [*celery, "worker", "--loglevel", "WARNING", "--concurrency",
                                      str(args.worker_concurrency), "-n", f"load{i}@%h"])
                     for i in range(args.workers)]  # fmt: skip
        commands.append(("beat", [*celery, "beat", "--loglevel", "WARNING"]))
    processes: list[subprocess.Popen[bytes]] = []
    try:
        for name, command in commands:
            log = (log_dir / f"{name}.log").open("wb")
            processes.append(subprocess.Popen(command, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT))
        base = f"http://127.0.0.1:{port}"
        wait_ready(base, processes[0])
        yield base
    finally:
        for process in processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def wait_ready(base: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"the API process exited with {process.returncode} (see its log)")
        try:
            if httpx.get(f"{base}/readyz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise SystemExit(f"the API did not become ready within {START_TIMEOUT_S:g} s")


def service_env(
    args: argparse.Namespace, neo4j_uri: str, redis_url: str, data_dir: str, admin_key: str
) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if not name.startswith(("HIPPOGRAPH_", "QDRANT_"))}
    env.update({
        "NEO4J_URI": neo4j_uri, "REDIS_URL": redis_url, "HIPPOGRAPH_DATA_DIR": data_dir,
        "HIPPOGRAPH_ADMIN_KEY": admin_key, "HIPPOGRAPH_WORKER_CONCURRENCY": str(args.workers),
        "HIPPOGRAPH_LOG_FORMAT": "json", "PYTHONPATH": str(REPO),
    })  # fmt: skip
    if args.qdrant_url:
        env["QDRANT_URL"] = args.qdrant_url
        env["HIPPOGRAPH_WORKER_CONCURRENCY"] = str(args.worker_concurrency)
    for assignment in args.set:
        name, _, value = assignment.partition("=")
        env[name] = value
    return env


# -- set-up, run, drain, checks ------------------------------------------------------------------


def set_up(client: httpx.Client, tenants: Sequence[Tenant]) -> dict[str, list[str]]:
    """Fresh namespaces and one writer key per agent; returns the keys per namespace."""
    keys: dict[str, list[str]] = {}
    for tenant in tenants:
        ns = tenant.namespace
        if client.get(f"/v1/namespaces/{ns}").status_code == 200:
            client.delete(f"/v1/namespaces/{ns}").raise_for_status()
        client.put(f"/v1/namespaces/{ns}").raise_for_status()
        keys[ns] = []
        for index in range(tenant.agents):
            body = {"namespace": ns, "role": "writer", "agent_id": f"agent-{index}", "label": "scripts/load.py"}
            response = client.post("/v1/keys", json=body)
            response.raise_for_status()
            keys[ns].append(response.json()["key"])
    return keys


def backlog(hot: redis.Redis, tenants: Sequence[Tenant]) -> int:
    """Turns still waiting for the write tracks, in all tenants."""
    return sum(int(hot.hlen(namespace_key(t.namespace, "hot", "pending"))) for t in tenants)  # type: ignore[arg-type]


async def run_load(base: str, tenants: Sequence[Tenant], keys: dict[str, list[str]], args: argparse.Namespace,
                   hot: redis.Redis) -> tuple[Stats, list[tuple[float, int]], float]:  # fmt: skip
    stats = Stats()
    samples: list[tuple[float, int]] = []
    limits = httpx.Limits(max_connections=sum(t.agents for t in tenants) + 5)
    start = time.monotonic()
    deadline = start + args.minutes * 60
    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as client:

        async def sample() -> None:
            while time.monotonic() < deadline:
                await asyncio.sleep(5)
                pending = await asyncio.to_thread(backlog, hot, tenants)
                samples.append((time.monotonic() - start, pending))
                acked = sum(len(ids) for ids in stats.acknowledged.values())
                print(
                    f"  {time.monotonic() - start:6.0f} s  acknowledged {acked:>7,}  pending {pending:>6,}", flush=True
                )

        tasks = [agent(i, t, key, client, stats, deadline, args.recall_every, args.seed, args.shared_speakers)
                 for t in tenants for i, key in enumerate(keys[t.namespace])]  # fmt: skip
        await asyncio.gather(sample(), *tasks)
    return stats, samples, time.monotonic() - start


def drain(hot: redis.Redis, tenants: Sequence[Tenant], timeout_s: float) -> tuple[float | None, float | None]:
    """Seconds until no turn is pending any more, and until the task queue is empty too (None: not
    within `timeout_s`)."""
    start = time.monotonic()
    turns_done: float | None = None
    while time.monotonic() - start < timeout_s:
        if turns_done is None and backlog(hot, tenants) == 0:
            turns_done = time.monotonic() - start
        if turns_done is not None and queued_tasks(hot, CELERY_QUEUE) == 0:
            return turns_done, time.monotonic() - start
        time.sleep(0.5)
    return turns_done, None


def verify(client: httpx.Client, namespace: str, node_ids: set[str]) -> dict[str, int]:
    """Each acknowledged turn as Dialogue nodes by its id, through the read-only Cypher route:
    lost (none), duplicated (more than one), and Dialogue nodes nobody acknowledged."""
    ids = sorted(node_ids)
    found: dict[str, int] = {}
    for offset in range(0, len(ids), CHECK_CHUNK):
        chunk = ids[offset : offset + CHECK_CHUNK]
        query = ("MATCH (d:Memory {namespace: $namespace}) WHERE d:Dialogue AND d.id IN $ids "
                 "RETURN d.id AS id, count(*) AS n")  # fmt: skip
        response = client.post(f"/v1/namespaces/{namespace}/cypher",
                               json={"query": query, "params": {"ids": chunk}, "limit": 10_000})  # fmt: skip
        response.raise_for_status()
        found.update({row["id"]: row["n"] for row in response.json()["rows"]})
    total_query = "MATCH (d:Memory {namespace: $namespace}) WHERE d:Dialogue RETURN count(d) AS n"
    response = client.post(f"/v1/namespaces/{namespace}/cypher", json={"query": total_query})
    response.raise_for_status()
    total = int(response.json()["rows"][0]["n"])
    # The SEMANTIC links, made by `link_semantic` after the writes: there once the queue is empty,
    # and each pair once (a finding: concurrent writers stored some pairs twice).
    pairs_query = ("MATCH (a:Memory {namespace: $namespace})-[r:SEMANTIC]->(b) WITH a, b, count(r) AS n "
                   "RETURN count(*) AS pairs, sum(CASE WHEN n > 1 THEN 1 ELSE 0 END) AS duplicated")  # fmt: skip
    response = client.post(f"/v1/namespaces/{namespace}/cypher", json={"query": pairs_query})
    response.raise_for_status()
    pairs = response.json()["rows"][0]
    return {
        "acknowledged": len(ids),
        "lost": sum(1 for node_id in ids if node_id not in found),
        "duplicated": sum(1 for n in found.values() if n > 1),
        "unacknowledged_nodes": max(0, total - sum(found.values())),
        "dead_letters": len(client.get(f"/v1/namespaces/{namespace}/dead-letters").json()["dead_letters"]),
        "semantic_pairs": int(pairs["pairs"]),
        "semantic_pairs_duplicated": int(pairs["duplicated"] or 0),
    }


def percentile(values: Sequence[float], q: int) -> float:
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] if q < 100 else max(values)


def route_table(stats: Stats, seconds: float) -> list[dict[str, Any]]:
    rows = []
    for route, values in sorted(stats.latencies.items()):
        rows.append({
            "route": route, "requests": len(values), "per_s": round(len(values) / seconds, 1),
            "p50_ms": round(percentile(values, 50) * 1000, 1), "p95_ms": round(percentile(values, 95) * 1000, 1),
            "p99_ms": round(percentile(values, 99) * 1000, 1), "max_ms": round(max(values) * 1000, 1),
            "statuses": {str(status): n for status, n in sorted(stats.statuses[route].items())},
        })  # fmt: skip
    return rows


def print_report(report: dict[str, Any]) -> None:
    print()
    print(f"{report['agents']} + {report['tenant_agents']} agents, {report['seconds']:.0f} s of load, "
          f"workers {report['workers']}, commit {report['commit']}, "
          f"settings {report['settings'] or 'default'}")  # fmt: skip
    print(f"acknowledged {report['acknowledged']:,} turns ({report['turns_per_s']:.1f} turns/s); "
          f"ingested during the load {report['ingest_per_s']:.1f} turns/s; backlog at the end "
          f"{report['backlog_at_end']:,} turns, drained in {report['drain_s']} s; tasks queued at the end "
          f"{report['tasks_queued_at_end']:,}, queue empty after {report['queue_drain_s']} s")  # fmt: skip
    print()
    print("| route | requests | per s | p50 ms | p95 ms | p99 ms | max ms | statuses |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for row in report["routes"]:
        statuses = ", ".join(f"{s}: {n}" for s, n in row["statuses"].items())
        print(f"| {row['route']} | {row['requests']:,} | {row['per_s']} | {row['p50_ms']} | {row['p95_ms']} | "
              f"{row['p99_ms']} | {row['max_ms']} | {statuses} |")  # fmt: skip
    if stages := report["recall_stages_ms"]:
        print(
            "recall as the service timed it (p50 / p95 / p99 ms): "
            + "; ".join(f"{stage} {v['p50']} / {v['p95']} / {v['p99']}" for stage, v in stages.items())
        )
    print()
    for ns, check in report["checks"].items():
        print(f"{ns}: " + ", ".join(f"{k} {v:,}" for k, v in check.items()))
    print(f"recalls {report['recalls']:,}, cards {report['cards']:,}, cross-tenant cards {report['cross_tenant']}")
    if report["transport_errors"]:
        print(f"transport errors: {report['transport_errors']}")
    print("PASS" if report["passed"] else "FAIL")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agents", type=int, default=50, help="agents on the main namespace")
    parser.add_argument("--tenant-agents", type=int, default=10, help="agents on the second tenant's namespace")
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--workers", type=int, default=2,
                        help="the embedded worker's threads; with --qdrant-url: worker processes")  # fmt: skip
    parser.add_argument("--worker-concurrency", type=int, default=2, help="with --qdrant-url: each worker's pool")
    parser.add_argument("--qdrant-url", help="a Qdrant server: run standalone workers and beat")
    parser.add_argument("--recall-every", type=int, default=4, help="an agent recalls every N-th batch (0: never)")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="a setting of the service (e.g. HIPPOGRAPH_VECTOR_PROCESS=true); repeatable")  # fmt: skip
    parser.add_argument("--drain-timeout", type=float, default=600.0, help="seconds to wait for the backlog")
    parser.add_argument("--namespace", default="load", help="the tenants are <namespace>-a and <namespace>-b")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--shared-speakers", action="store_true",
                        help="every agent's turns are said by the same four people (a stress case: each fact "
                        "key's timeline grows with every batch of every agent)")  # fmt: skip
    parser.add_argument("--json", type=Path, help="also write the report here")
    add_engine_arguments(parser)
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so the service and engines stop too
    tenants = [Tenant(f"{args.namespace}-a", MARKERS[0], MARKERS[1], args.agents),
               Tenant(f"{args.namespace}-b", MARKERS[1], MARKERS[0], args.tenant_agents)]  # fmt: skip
    admin_key = secrets.token_urlsafe(32)
    with local_engines("load", LOAD_NEO4J_PORT, LOAD_REDIS_PORT, args) as settings:
        log_dir = settings.data_dir  # a temporary folder: the service's data and logs
        env = service_env(args, settings.neo4j_uri, settings.redis_url, str(log_dir), admin_key)
        hot = redis.Redis.from_url(settings.redis_url, decode_responses=True)
        if not args.redis_url:  # its own Redis: a run stopped half-way left its queue and pending turns there
            hot.flushdb()
        with (
            service(args, env, log_dir) as base,
            httpx.Client(base_url=base, timeout=120, headers={"Authorization": f"Bearer {admin_key}"}) as admin,
        ):
            keys = set_up(admin, tenants)
            print(f"load: {args.agents} + {args.tenant_agents} agents for {args.minutes:g} min against {base}",
                  flush=True)  # fmt: skip
            stats, samples, seconds = asyncio.run(run_load(base, tenants, keys, args, hot))
            at_end = backlog(hot, tenants)
            queue_at_end = queued_tasks(hot, CELERY_QUEUE)
            drain_s, queue_drain_s = drain(hot, tenants, args.drain_timeout)
            checks = {t.namespace: verify(admin, t.namespace, stats.acknowledged[t.namespace]) for t in tenants}
        logs = [path.read_text(errors="replace") for path in log_dir.glob("*.log")]
        errors_logged = sum(text.count('"level": "ERROR"') for text in logs)
    acknowledged = sum(len(ids) for ids in stats.acknowledged.values())
    report = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"), "commit": git_commit(),
        "agents": args.agents, "tenant_agents": args.tenant_agents, "workers": args.workers, "settings": args.set,
        "seconds": round(seconds, 1), "acknowledged": acknowledged, "turns_per_s": round(acknowledged / seconds, 1),
        "ingest_per_s": round((acknowledged - at_end) / seconds, 1), "backlog_at_end": at_end,
        "drain_s": None if drain_s is None else round(drain_s, 1), "backlog_samples": samples,
        "tasks_queued_at_end": queue_at_end,
        "queue_drain_s": None if queue_drain_s is None else round(queue_drain_s, 1),
        "routes": route_table(stats, seconds), "transport_errors": dict(stats.errors),
        "recalls": stats.recalls, "cards": stats.cards, "cross_tenant": len(stats.leaks), "leaks": stats.leaks[:10],
        "checks": checks, "error_log_lines": errors_logged,
        "recall_stages_ms": {stage: {f"p{q}": round(percentile(values, q), 1) for q in (50, 95, 99)}
                             for stage, values in stats.recall_stages.items() if values},
    }  # fmt: skip
    report["passed"] = (
        queue_drain_s is not None
        and not stats.leaks
        and all(c["lost"] == 0 and c["duplicated"] == 0 and c["unacknowledged_nodes"] == 0
                and c["semantic_pairs_duplicated"] == 0 for c in checks.values())  # fmt: skip
    )
    print_report(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, default=str))
    return 0 if report["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
