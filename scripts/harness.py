"""What the benchmark and evaluation scripts share: their own engines and the API served in-process.

    with local_engines("bench-recall", neo4j_port=17692, redis_port=16392) as settings:
        runtime = open_runtime(settings, host_jobs=True)
        with served_api(runtime) as client:
            client.post(...)

Each script starts its own Neo4j and Redis (own ports and data folders under data/) unless it is
given --neo4j-uri / --redis-url, so a benchmark never touches the test or `make run` engines.
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import httpx  # noqa: E402
import uvicorn  # noqa: E402

from app.api.main import create_app  # noqa: E402
from app.auth.bootstrap import bootstrap_admin_key  # noqa: E402
from app.evaluation.ablation import ABLATIONS  # noqa: E402
from app.runtime import Runtime  # noqa: E402
from app.settings import Settings  # noqa: E402


def service_script(script: str, *args: str) -> None:
    subprocess.run([sys.executable, str(REPO / "scripts" / script), *args], check=True)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def add_engine_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--neo4j-uri", help="use this Neo4j instead of starting one")
    parser.add_argument("--redis-url", help="use this Redis instead of starting one")
    parser.add_argument("--heap", default="2g", help="Neo4j heap when the script starts it")
    parser.add_argument("--pagecache", default="1g", help="Neo4j page cache when the script starts it")
    parser.add_argument("--keep", action="store_true", help="leave the engines the script started running")


def add_recall_arguments(parser: argparse.ArgumentParser) -> None:
    """The eval scripts' switches for controlled measurements (docs/benchmarks.md, "Ablations")."""
    names = "; ".join(f"{name}: {what}" for name, what in ABLATIONS.items())
    parser.add_argument("--ablate", action="append", default=[], choices=sorted(ABLATIONS), metavar="NAME",
                        help=f"switch one recall mechanism off (repeatable): {names}")  # fmt: skip
    parser.add_argument("--namespace-prefix", default="eval",  # fmt: skip
                        help="namespaces are <prefix>-<dataset>-<id>: concurrent runs on one Neo4j need their own")
    parser.add_argument("--use-turns", type=int, default=0, metavar="N",
                        help="a simulated period of use before the questions: up to N of the namespace's turns, "
                        "evenly spread, each asked as a recall query (top 10), then the activity flush "
                        "(accesses and Hebbian co-activations) applied")  # fmt: skip


def simulate_use(client: httpx.Client, runtime: Runtime, namespace: str, texts: Sequence[str], now: datetime,
                 limit: int) -> int:  # fmt: skip
    """Recall with up to `limit` of `texts` (evenly spread) as queries, as agents do while they work,
    then apply what the flush job applies (accesses, co-activations -> ASSOCIATION edges) at once.
    Returns the number of recalls."""
    if limit <= 0 or not texts:
        return 0
    step = max(1, len(texts) // limit)
    queries = [text for text in texts[::step] if text.strip()][:limit]
    for query in queries:
        response = client.post(f"/v1/namespaces/{namespace}/recall",
                               json={"query": query[:2000], "top_k": 10, "now": now.isoformat()})  # fmt: skip
        response.raise_for_status()
    runtime.accesses.flush(namespace, now)
    runtime.learning.flush(namespace, now)
    return len(queries)


@contextmanager
def local_engines(name: str, neo4j_port: int, redis_port: int, args: argparse.Namespace) -> Iterator[Settings]:
    """Settings for this script's engines (started here unless given), with a temporary data folder
    for the embedded vector tier; the engines stop afterwards unless --keep."""
    home = REPO / "data" / name
    neo4j_args = ("--port", str(neo4j_port), "--home", str(home / "neo4j"))
    redis_args = ("--port", str(redis_port), "--dir", str(home / "redis"))
    if not args.neo4j_uri:
        service_script("neo4j_local.py", "start", *neo4j_args, "--heap", args.heap, "--pagecache", args.pagecache)
    if not args.redis_url:
        service_script("redis_local.py", "start", *redis_args)
    try:
        with tempfile.TemporaryDirectory() as data_dir:
            redis_url = args.redis_url or f"redis://127.0.0.1:{redis_port}/0"
            from jobs.celery_app import celery_app

            celery_app.conf.broker_url = celery_app.conf.result_backend = redis_url
            yield Settings(
                NEO4J_URI=args.neo4j_uri or f"bolt://127.0.0.1:{neo4j_port}",
                REDIS_URL=redis_url,
                HIPPOGRAPH_DATA_DIR=data_dir,
            )
    finally:
        if not args.keep:
            if not args.neo4j_uri:
                service_script("neo4j_local.py", "stop", *neo4j_args)
            if not args.redis_url:
                service_script("redis_local.py", "stop", *redis_args)


def admin_headers(settings: Settings) -> dict[str, str]:
    """The bootstrap admin key's header: the scripts act for the operator on their own engines."""
    return {"Authorization": f"Bearer {bootstrap_admin_key(settings)}"}


@contextmanager
def served_api(runtime: Runtime, timeout_s: float = 600.0, settings: Settings | None = None) -> Iterator[httpx.Client]:
    """The API over HTTP on a free local port (uvicorn in a thread), and a client for it; `settings`
    overrides the runtime's for the app itself (its limits)."""
    port = free_port()
    app = create_app(settings=settings, runtime=runtime)
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        headers = admin_headers(runtime.settings)
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=timeout_s, headers=headers) as client:
            yield client
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def git_commit() -> str | None:
    """The checkout's commit (with "-dirty" when it has uncommitted changes), for a report to name."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True,
                              check=True).stdout.strip()  # fmt: skip
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO,
                               capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("-dirty" if dirty else "")


def warn_of_other_namespaces(client: httpx.Client, prefix: str) -> None:
    """Say so when the engines hold namespaces this run does not own (a `--keep` run's, another
    prefix's): the full-text index scores a term by its frequency over every namespace (Lucene's
    IDF), so their texts move this run's full-text ranks and its figures (measured: LoCoMo dev in
    Chinese R@10 0.790 on a fresh database, 0.782 beside a kept copy of the same conversations)."""
    others = sorted(item["name"] for item in client.get("/v1/namespaces").json()["items"]
                    if not str(item["name"]).startswith(prefix))  # fmt: skip
    if others:
        print(f"warning: the engines hold {len(others)} other namespace(s) ({', '.join(others[:5])}"
              f"{', …' if len(others) > 5 else ''}); full-text scores count their texts too: "
              "remove them (or the data folder) for figures comparable with a fresh run", flush=True)  # fmt: skip


def fresh_namespace(client: httpx.Client, namespace: str) -> None:
    """Create `namespace` empty (erasing a previous run's)."""
    if client.get(f"/v1/namespaces/{namespace}").status_code == 200:
        client.delete(f"/v1/namespaces/{namespace}").raise_for_status()
    client.put(f"/v1/namespaces/{namespace}").raise_for_status()
