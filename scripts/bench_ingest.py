#!/usr/bin/env python3
"""Benchmark the write path: ingest N conversation turns (default 10,000) through the HTTP API with
`wait: true` and report turns per second and the time split by stage.

Starts its own Neo4j and Redis (separate ports and data folders) unless --neo4j-uri/--redis-url are
given, serves the API with uvicorn in this process (embedded vector tier, in-process worker: the
`make run` shape), and posts synthetic multi-session conversations in English and Chinese (facts
that change, relative times, chit-chat) in batches. First, another process ingests --warmup turns
(default 10,000) into another namespace, untimed: a freshly started Neo4j spends most of its CPU
compiling its own code for a while (that cold figure is printed too), so the measured run is the
sustained rate of a server that has been up. --warmup 0 measures from a cold start.
--sentences N makes each turn N of those sentences (default 1), so that turns of several sentences
get their sentence points (a vector per sentence, app/domain/passages.sentence_passages), as real
conversation turns do.

    .venv/bin/python scripts/bench_ingest.py [--turns 10000] [--batch 200] [--warmup 10000] [--sentences 1] [--keep]
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from app.memory.ingest import BACKGROUND_STAGE  # noqa: E402
from app.runtime import Runtime  # noqa: E402
from app.settings import Settings  # noqa: E402
from jobs.host import open_runtime  # noqa: E402
from scripts.harness import add_engine_arguments, fresh_namespace, local_engines, served_api  # noqa: E402

BENCH_NEO4J_PORT = 17691
BENCH_REDIS_PORT = 16391
NAMESPACE = "bench-ingest"
WARMUP_NAMESPACE = "bench-ingest-warmup"

EN = [
    "My car is a {car}.",
    "I moved to {city} last month.",
    "I went to {city} last Friday.",
    "I work at {company} as a {job}.",
    "My favorite color is {color}.",
    "Two weeks ago I ran a {distance} race.",
    "Thanks, that sounds good!",
    "Can you remind me what we discussed about the {topic} project?",
    "The {topic} meeting went fine, we agreed to ship next Wednesday.",
    "I really like {food}, especially on weekends.",
]
ZH = [
    "我的车是{car}。",
    "我住在{zcity}。",
    "上周五我去了{zcity}。",
    "我在{zcompany}工作。",
    "我最喜欢的颜色是{zcolor}。",
    "好的，谢谢！",
    "三天前我们讨论了{topic}项目的进度。",
    "下周三我要去{zcity}出差。",
]
VALUES = {
    "car": ["Model Y", "Civic", "Golf", "Tesla Model 3", "Prius"],
    "city": ["Berlin", "Munich", "Paris", "Lisbon", "Tokyo"],
    "zcity": ["北京", "上海", "成都", "杭州", "深圳"],
    "company": ["Acme", "Globex", "Initech"],
    "zcompany": ["阿里巴巴", "腾讯", "字节跳动"],
    "job": ["teacher", "nurse", "engineer"],
    "color": ["blue", "green", "red"],
    "zcolor": ["蓝色", "绿色", "红色"],
    "distance": ["5k", "10k", "half marathon"],
    "topic": ["Apollo", "Hermes", "Zeus"],
    "food": ["sushi", "pasta", "dumplings"],
}


def synthetic_turns(n: int, turns_per_session: int = 50, seed: int = 7, sentences: int = 1) -> list[dict]:
    rng = random.Random(seed)
    start = datetime(2024, 1, 1, 9, tzinfo=UTC)
    turns = []
    for i in range(n):
        session = i // turns_per_session
        speaker = ["Alice", "Bob", "王伟", "李娜"][session % 4]
        templates = ZH if speaker in {"王伟", "李娜"} else EN
        said = [rng.choice(templates).format(**{key: rng.choice(options) for key, options in VALUES.items()})
                for _ in range(sentences)]  # fmt: skip
        text = ("" if templates is ZH else " ").join(said)
        at = start + timedelta(days=session, minutes=i % turns_per_session)
        turns.append({"session_id": f"session-{session}", "turn_id": f"D{session}:{i % turns_per_session}",
                      "speaker": speaker, "text": text, "timestamp": at.isoformat()})  # fmt: skip
    return turns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=10_000)
    parser.add_argument("--batch", type=int, default=200, help="turns per request (at most 1000)")
    parser.add_argument("--warmup", type=int, default=10_000, help="untimed turns first, in another process")
    parser.add_argument("--namespace", default=NAMESPACE)
    parser.add_argument("--sentences", type=int, default=1, help="sentences per turn")
    add_engine_arguments(parser)
    args = parser.parse_args()
    with local_engines("bench-ingest", BENCH_NEO4J_PORT, BENCH_REDIS_PORT, args) as settings:
        if args.warmup:
            warm_up(settings, args)
        runtime = open_runtime(settings, host_jobs=True)
        try:
            run(runtime, args.namespace, args.turns, args.batch, args.warmup, args.sentences)
        finally:
            runtime.close()


def warm_up(settings: Settings, args: argparse.Namespace) -> None:
    """Ingest --warmup turns into another namespace from another process (its own vector folder),
    as an API process that ran before this one would have: a freshly started Neo4j spends most of
    its CPU compiling its own code paths as they first run (its JIT compilers took ~55 CPU-seconds
    in the first 10,000 turns here, ~5 s per 10,000 turns from the third on)."""
    engines = ["--neo4j-uri", settings.neo4j_uri, "--redis-url", settings.redis_url]
    command = [sys.executable, __file__, "--turns", str(args.warmup), "--batch", str(args.batch), "--warmup", "0",
               "--namespace", WARMUP_NAMESPACE, "--sentences", str(args.sentences), *engines]  # fmt: skip
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    measured = next(line for line in output.splitlines() if " turns/s (" in line)
    print(f"warm-up, not counted (another process, namespace {WARMUP_NAMESPACE}): {measured.split(' (')[0]}")


def run(runtime: Runtime, namespace: str, n: int, batch_size: int, warmup: int, sentences: int = 1) -> None:
    with served_api(runtime) as client:
        fresh_namespace(client, namespace)
        seconds, stages, totals = ingest(client, namespace, synthetic_turns(n, sentences=sentences), batch_size)
        counts = client.get(f"/v1/namespaces/{namespace}").json()
    print()
    print(f"{n:,} turns in {seconds:.1f} s: {n / seconds:.1f} turns/s (batches of {batch_size}, wait=true, LLM off, "
          f"{sentences} sentence(s) per turn, after {warmup:,} turns of warm-up)")  # fmt: skip
    print()
    print("| stage | seconds | share |")
    print("|---|---:|---:|")
    background = stages.pop(BACKGROUND_STAGE, 0.0)
    for stage, spent in stages.most_common():
        print(f"| {stage} | {spent:.1f} | {spent / seconds:.0%} |")
    print(f"| HTTP, hot window, queue | {max(0.0, seconds - sum(stages.values())):.1f} | |")
    print(f"| {BACKGROUND_STAGE}: beside the stages above | {background:.1f} | |")
    print()
    print("created: " + ", ".join(f"{k} {v:,}" for k, v in sorted(totals.items()) if k != "turns"))
    print(
        "graph: "
        + ", ".join(f"{t} {c:,}" for t, c in sorted(counts["counts"].items()))
        + f"; vectors {counts['vectors']:,}"
    )


def ingest(
    client: httpx.Client, namespace: str, turns: list[dict], batch_size: int
) -> tuple[float, Counter[str], Counter[str]]:
    """Post `turns` in batches with wait; returns the seconds, the seconds by stage and the created counts."""
    stages: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    start = time.perf_counter()
    for offset in range(0, len(turns), batch_size):
        response = client.post(f"/v1/namespaces/{namespace}/turns",
                               json={"turns": turns[offset : offset + batch_size], "wait": True})  # fmt: skip
        response.raise_for_status()
        report = response.json()["report"]
        stages.update(report.pop("seconds_by_stage"))
        totals.update({k: v for k, v in report.items() if isinstance(v, int)})
        done = min(len(turns), offset + batch_size)
        if done % (batch_size * 10) == 0 or done == len(turns):
            print(f"  {namespace}: {done:>6} turns  {done / (time.perf_counter() - start):7.1f} turns/s", flush=True)
    return time.perf_counter() - start, stages, totals


if __name__ == "__main__":
    main()
