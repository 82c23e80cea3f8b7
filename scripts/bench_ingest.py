#!/usr/bin/env python3
"""Benchmark the write path: ingest N conversation turns (default 10,000) through the HTTP API with
`wait: true` and report turns per second and the time split by stage.

Starts its own Neo4j and Redis (separate ports and data folders) unless --neo4j-uri/--redis-url are
given, serves the API with uvicorn in this process (embedded vector tier, in-process worker: the
`make run` shape), and posts synthetic multi-session conversations in English and Chinese (facts
that change, relative times, chit-chat) in batches.

    .venv/bin/python scripts/bench_ingest.py [--turns 10000] [--batch 200] [--keep]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from app.runtime import Runtime  # noqa: E402
from scripts.harness import add_engine_arguments, fresh_namespace, local_engines, served_api  # noqa: E402

BENCH_NEO4J_PORT = 17691
BENCH_REDIS_PORT = 16391
NAMESPACE = "bench-ingest"

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


def synthetic_turns(n: int, turns_per_session: int = 50, seed: int = 7) -> list[dict]:
    rng = random.Random(seed)
    start = datetime(2024, 1, 1, 9, tzinfo=UTC)
    turns = []
    for i in range(n):
        session = i // turns_per_session
        speaker = ["Alice", "Bob", "王伟", "李娜"][session % 4]
        template = rng.choice(ZH if speaker in {"王伟", "李娜"} else EN)
        text = template.format(**{key: rng.choice(options) for key, options in VALUES.items()})
        at = start + timedelta(days=session, minutes=i % turns_per_session)
        turns.append({"session_id": f"session-{session}", "turn_id": f"D{session}:{i % turns_per_session}",
                      "speaker": speaker, "text": text, "timestamp": at.isoformat()})  # fmt: skip
    return turns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=10_000)
    parser.add_argument("--batch", type=int, default=200, help="turns per request (at most 1000)")
    add_engine_arguments(parser)
    args = parser.parse_args()
    with local_engines("bench-ingest", BENCH_NEO4J_PORT, BENCH_REDIS_PORT, args) as settings:
        runtime = Runtime.open(settings, host_jobs=True)
        try:
            run(runtime, args.turns, args.batch)
        finally:
            runtime.close()


def run(runtime: Runtime, n: int, batch_size: int) -> None:
    with served_api(runtime) as client:
        fresh_namespace(client, NAMESPACE)
        turns = synthetic_turns(n)
        stages: Counter[str] = Counter()
        totals: Counter[str] = Counter()
        start = time.perf_counter()
        for offset in range(0, n, batch_size):
            response = client.post(f"/v1/namespaces/{NAMESPACE}/turns",
                                   json={"turns": turns[offset : offset + batch_size], "wait": True})  # fmt: skip
            response.raise_for_status()
            report = response.json()["report"]
            stages.update(report.pop("seconds_by_stage"))
            totals.update({k: v for k, v in report.items() if isinstance(v, int)})
            done = min(n, offset + batch_size)
            if done % (batch_size * 10) == 0 or done == n:
                print(f"  {done:>6} turns  {done / (time.perf_counter() - start):7.1f} turns/s", flush=True)
        seconds = time.perf_counter() - start
        counts = client.get(f"/v1/namespaces/{NAMESPACE}").json()
    print()
    print(f"{n:,} turns in {seconds:.1f} s: {n / seconds:.1f} turns/s (batches of {batch_size}, wait=true, LLM off)")
    print()
    print("| stage | seconds | share |")
    print("|---|---:|---:|")
    for stage, spent in stages.most_common():
        print(f"| {stage} | {spent:.1f} | {spent / seconds:.0%} |")
    print(f"| HTTP, hot window, queue | {max(0.0, seconds - sum(stages.values())):.1f} | |")
    print()
    print("created: " + ", ".join(f"{k} {v:,}" for k, v in sorted(totals.items()) if k != "turns"))
    print(
        "graph: "
        + ", ".join(f"{t} {c:,}" for t, c in sorted(counts["counts"].items()))
        + f"; vectors {counts['vectors']:,}"
    )


if __name__ == "__main__":
    main()
