"""scripts/load.py, briefly: a few agents for 20 s against the service run as `make run` runs it
(its own process), then its checks: nothing acknowledged lost or duplicated, no cross-tenant card."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from scripts.load import percentile

REPO = Path(__file__).resolve().parents[1]
# The script's service hosts its own Celery worker: a Redis database of its own keeps its queue
# away from the workers of tests running beside it on the same Redis.
LOAD_REDIS_DB = 11


def test_percentile_is_inclusive_of_the_samples() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 50) == 50.5
    assert percentile(values, 95) == 95.05
    assert percentile(values, 100) == 100.0
    assert percentile([7.0], 99) == 7.0


def test_short_load_run_loses_nothing_and_leaks_nothing(services, namespace: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    parts = urlsplit(services.redis_url)
    redis_url = urlunsplit(parts._replace(path=f"/{LOAD_REDIS_DB}"))
    report_path = tmp_path / "load.json"
    command = [sys.executable, str(REPO / "scripts" / "load.py"), "--agents", "3", "--tenant-agents", "2",
               "--minutes", str(20 / 60), "--recall-every", "2", "--drain-timeout", "120", "--namespace", namespace,
               "--neo4j-uri", services.neo4j_uri, "--redis-url", redis_url, "--json", str(report_path),
               "--set", "HIPPOGRAPH_KEEP_ALIVE_SECONDS=30"]  # fmt: skip
    if services.qdrant_url:
        command += ["--qdrant-url", services.qdrant_url, "--workers", "1"]
    env = {**os.environ, "NEO4J_USER": services.neo4j_user, "NEO4J_PASSWORD": services.neo4j_password}
    result = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=600, env=env)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    report = json.loads(report_path.read_text())
    assert report["passed"] and report["settings"] == ["HIPPOGRAPH_KEEP_ALIVE_SECONDS=30"]
    assert report["acknowledged"] > 20  # 5 agents post every 2-5 s for 20 s
    for check in report["checks"].values():
        assert check["lost"] == 0 and check["duplicated"] == 0 and check["unacknowledged_nodes"] == 0
        assert check["dead_letters"] == 0
        # The writes' SEMANTIC links, made by the tasks queued behind them, once the queue is empty.
        assert check["semantic_pairs"] > 0 and check["semantic_pairs_duplicated"] == 0
    assert sum(check["acknowledged"] for check in report["checks"].values()) == report["acknowledged"]
    assert report["recalls"] > 0 and report["cross_tenant"] == 0
    assert report["drain_s"] is not None
    routes = {row["route"]: row for row in report["routes"]}
    assert set(routes["POST /turns"]["statuses"]) == {"202"}
    assert set(routes["POST /recall"]["statuses"]) == {"200"}
    # The service's own timing of the recalls, each stage within the whole (p50 of each: one recall
    # may spend its p95 in one stage only).
    stages = report["recall_stages_ms"]
    assert set(stages) == {"hot_ms", "cold_ms", "fusion_ms", "total_ms"}
    assert max(stages[s]["p50"] for s in ("hot_ms", "cold_ms", "fusion_ms")) <= stages["total_ms"]["p50"]
