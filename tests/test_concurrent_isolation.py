"""Two tenants, 8 threads each, writing and recalling similar texts at once over HTTP for 60 s
(HIPPOGRAPH_ISOLATION_SECONDS): no answer may hold a card, node id or summary of the other tenant."""

from __future__ import annotations

import os
import random
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import httpx

from scripts.harness import served_api

THREADS_PER_TENANT = 8
SECONDS = float(os.environ.get("HIPPOGRAPH_ISOLATION_SECONDS", "60"))
TOPICS = ["the Phoenix launch", "the quarterly budget", "the database migration", "the offsite in Lisbon"]


@dataclass
class Tenant:
    name: str
    marker: str
    key: str = ""
    answers: list[dict] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _work(base_url: str, tenant: Tenant, thread: int, deadline: float) -> None:
    rng = random.Random(f"{tenant.name}-{thread}")
    headers = {"Authorization": f"Bearer {tenant.key}"}
    with httpx.Client(base_url=base_url, headers=headers, timeout=60) as client:
        turn = 0
        while time.monotonic() < deadline:
            topic = rng.choice(TOPICS)
            if rng.random() < 0.5:
                turn += 1
                text = f"Status of {topic}: we agreed on step {turn} ({tenant.marker})."
                body = {"turns": [{"session_id": f"{tenant.marker}-t{thread}", "turn_id": str(turn),
                                   "speaker": "Alice", "text": text}]}  # fmt: skip
                response = client.post(f"/v1/namespaces/{tenant.name}/turns", json=body)
            else:
                body = {"query": f"What is the status of {topic}?", "top_k": 10, "mode": "global"}
                response = client.post(f"/v1/namespaces/{tenant.name}/recall", json=body)
                if response.status_code == 200:
                    items = response.json()["items"]
                    with tenant.lock:
                        tenant.answers.append({"items": items})
                    if items and rng.random() < 0.3:  # read a card's node too
                        node = client.get(f"/v1/namespaces/{tenant.name}/nodes/{items[0]['id']}")
                        with tenant.lock:
                            tenant.answers.append({"node": node.json()})
            with tenant.lock:
                tenant.statuses[response.status_code] = tenant.statuses.get(response.status_code, 0) + 1


def test_two_tenants_writing_and_recalling_at_once_never_see_each_other(runtime, worker, cypher, namespace) -> None:  # type: ignore[no-untyped-def]
    tenants = [Tenant(f"{namespace}-{side}", f"tenant{side}{uuid.uuid4().hex[:8]}") for side in "ab"]
    # Isolation under concurrency, not rate limiting (tests/test_rate_limit.py): 8 threads share a key.
    unlimited = runtime.settings.model_copy(update={"rate_limit_reader": "", "rate_limit_writer": ""})
    with served_api(runtime, settings=unlimited) as admin:
        for tenant in tenants:
            assert admin.put(f"/v1/namespaces/{tenant.name}").status_code == 201
            created = admin.post("/v1/keys", json={"namespace": tenant.name, "role": "writer", "agent_id": "bot"})
            tenant.key = created.json()["key"]
        deadline = time.monotonic() + SECONDS
        with ThreadPoolExecutor(2 * THREADS_PER_TENANT) as pool:
            futures = [
                pool.submit(_work, str(admin.base_url), tenant, thread, deadline)
                for tenant in tenants
                for thread in range(THREADS_PER_TENANT)
            ]
            for future in futures:
                future.result()

    ids = {
        tenant.name: {
            row["id"] for row in cypher("MATCH (m:Memory {namespace: $ns}) RETURN m.id AS id", ns=tenant.name)
        }
        for tenant in tenants
    }
    for tenant, other in (tenants, tenants[::-1]):
        assert set(tenant.statuses) <= {200, 202}, tenant.statuses
        recalls = [answer for answer in tenant.answers if "items" in answer]
        assert len(recalls) >= 20 and sum(len(answer["items"]) for answer in recalls) > 0
        foreign = ids[other.name] - ids[tenant.name]
        assert foreign, "the other tenant wrote nothing"
        for answer in tenant.answers:
            text = repr(answer)
            assert other.marker not in text, text[:500]
            for item in answer.get("items", []):
                assert item["id"] not in foreign, item
            if "node" in answer:
                assert answer["node"].get("namespace") in (None, tenant.name), answer["node"]
