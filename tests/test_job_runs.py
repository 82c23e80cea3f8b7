"""The background jobs' log per namespace (app/stores/job_runs.py): what a job run records, read back
through `GET /v1/namespaces/{ns}/jobs/runs`, the client and the CLI, on the real engines."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import redis

from app.memory.errors import NotFoundError
from app.memory.forgetting import DecayReport
from app.memory.learning import FlushReport
from app.stores.job_runs import MAX_REASON, JobRun, JobRunLog, counts_of
from hippograph.client import Hippograph
from jobs.celery_tasks import ActivityReport, ResumeReport, decay, flush_activity, prune
from jobs.engines import use_runtime
from tests.conftest import TEST_ADMIN_KEY, bearer
from tests.test_cli import run_cli

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


# -- the entries (pure) ------------------------------------------------------------------------------


def test_counts_are_the_whole_number_fields_of_a_report_nested_ones_dotted() -> None:
    assert counts_of(DecayReport(nodes=3, edges=2, soft_forgotten=1)) == {"nodes": 3, "edges": 2, "soft_forgotten": 1}
    activity = ActivityReport(accesses=4, learning=FlushReport(pairs=3, reinforced=1, created=2))
    assert counts_of(activity) == {"accesses": 4, "learning.pairs": 3, "learning.reinforced": 1, "learning.created": 2}
    assert counts_of(ResumeReport(turns=0, error="ConnectionError: down")) == {"turns": 0}


def test_a_run_is_ok_unless_it_raised_or_its_report_says_why_not() -> None:
    done = JobRun.finished("decay", T0, T0 + timedelta(milliseconds=1500), DecayReport(5, 0, 1))
    assert (done.outcome, done.error, done.duration_ms) == ("ok", None, 1500.0)
    assert json.loads(done.to_json()) == {
        "job": "decay", "started_at": "2026-12-01T12:00:00+00:00", "finished_at": "2026-12-01T12:00:01.500000+00:00",
        "duration_ms": 1500.0, "outcome": "ok", "error": None, "counts": {"nodes": 5, "edges": 0, "soft_forgotten": 1},
    }  # fmt: skip
    gave_up = JobRun.finished("resume_pending", T0, T0, ResumeReport(0, "ConnectionError: down"))
    assert (gave_up.outcome, gave_up.error, gave_up.counts) == ("error", "ConnectionError: down", {"turns": 0})
    raised = JobRun.failed("prune", T0, T0, NotFoundError("namespace", "x" * 1000 + "\nmore"))
    assert raised.outcome == "error" and raised.counts == {}
    assert raised.error == ("NotFoundError: " + "x" * 1000)[:200]
    long = JobRun.finished("resume_pending", T0, T0, ResumeReport(0, "y" * 1000))
    assert long.error == "y" * MAX_REASON


# -- recorded by the jobs, read through the API -----------------------------------------------------


@pytest.fixture
def jobs_on(runtime: Any) -> Iterator[None]:
    """The tasks run in this process on the test runtime (as in the embedded run)."""
    use_runtime(runtime)
    yield
    use_runtime(None)


def _save(api: Any, namespace: str, label: str) -> str:
    body = {"type": "Knowledge", "label": label, "content": f"Alice mentioned {label}"}
    response = api.post(f"/v1/namespaces/{namespace}/memories", json=body)
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


def test_each_job_run_on_a_namespace_is_read_back_newest_first(api: Any, namespace: str, jobs_on: None) -> None:
    assert api.put(f"/v1/namespaces/{namespace}").status_code == 201
    for label in ("tea", "bikes", "Berlin"):
        _save(api, namespace, label)
    before = datetime.now(UTC)
    decayed = decay(namespace)[namespace]
    flushed = flush_activity(namespace)[namespace]
    pruned = prune(namespace)[namespace]
    key = api.post("/v1/keys", json={"namespace": namespace, "role": "reader", "agent_id": "viewer"}).json()["key"]

    answer = api.get(f"/v1/namespaces/{namespace}/jobs/runs", headers=bearer(key))  # a reader may look
    assert answer.status_code == 200, answer.text
    runs = answer.json()["items"]
    assert [run["job"] for run in runs] == ["prune", "flush_activity", "decay"]
    assert all(run["outcome"] == "ok" and run["error"] is None for run in runs)
    assert runs[2]["counts"] == decayed and decayed["nodes"] == 3
    learning = {f"learning.{name}": value for name, value in flushed["learning"].items()}
    assert runs[1]["counts"] == {"accesses": flushed["accesses"], **learning}
    assert runs[0]["counts"] == pruned and pruned["before"] == 3
    for run in runs:
        started, finished = datetime.fromisoformat(run["started_at"]), datetime.fromisoformat(run["finished_at"])
        assert before <= started <= finished <= datetime.now(UTC)
        assert run["duration_ms"] == pytest.approx((finished - started).total_seconds() * 1000, abs=0.01)

    only = api.get(f"/v1/namespaces/{namespace}/jobs/runs", params={"job": "decay", "limit": 5}).json()["items"]
    assert [run["job"] for run in only] == ["decay"]
    assert len(api.get(f"/v1/namespaces/{namespace}/jobs/runs", params={"limit": 2}).json()["items"]) == 2
    # Another namespace's runs are its own.
    assert api.put(f"/v1/namespaces/{namespace}-other").status_code == 201
    assert api.get(f"/v1/namespaces/{namespace}-other/jobs/runs").json() == {"items": []}


def test_a_failing_job_records_an_error_entry_and_still_fails(api: Any, namespace: str, jobs_on: None) -> None:
    # The prune of a namespace that is gone (erased between the job listing it and working on it).
    with pytest.raises(NotFoundError):
        prune(namespace)
    assert api.put(f"/v1/namespaces/{namespace}").status_code == 201
    [run] = api.get(f"/v1/namespaces/{namespace}/jobs/runs").json()["items"]
    assert (run["job"], run["outcome"], run["counts"]) == ("prune", "error", {})
    assert run["error"] == f"NotFoundError: namespace {namespace!r} does not exist"


def test_each_jobs_log_is_capped_and_a_busy_job_never_hides_another(runtime: Any, namespace: str) -> None:
    log = JobRunLog(runtime.redis, kept=3)
    log.record(namespace, JobRun.finished("prune", T0, T0, DecayReport(0, 0, 0)))
    for minute in range(1, 8):  # a job that runs every minute
        at = T0 + timedelta(minutes=minute)
        assert log.record(namespace, JobRun.finished("flush_activity", at, at, DecayReport(minute, 0, 0)))
    key = f"hg:{{{namespace}}}:jobs:runs:flush_activity"
    assert runtime.redis.llen(key) == 3 and runtime.redis.ttl(key) == -1  # capped, no expiry
    runs = log.recent(namespace, 10)
    assert [(run["job"], run["counts"].get("nodes")) for run in runs] == [
        ("flush_activity", 7), ("flush_activity", 6), ("flush_activity", 5), ("prune", 0)
    ]  # fmt: skip
    assert [run["counts"]["nodes"] for run in log.recent(namespace, 2)] == [7, 6]
    assert log.recent(f"{namespace}-none", 10) == []


def test_recording_never_makes_a_job_fail_when_redis_is_unreachable(unused_port: int) -> None:
    down = redis.Redis(host="127.0.0.1", port=unused_port, socket_connect_timeout=0.5)  # nothing listens there
    assert JobRunLog(down).record("ns", JobRun.finished("decay", T0, T0, DecayReport(1, 0, 0))) is False


def test_the_route_refuses_bad_parameters_and_unknown_namespaces(api: Any, namespace: str) -> None:
    assert api.get(f"/v1/namespaces/{namespace}/jobs/runs").status_code == 404
    assert api.put(f"/v1/namespaces/{namespace}").status_code == 201
    for params, field in (({"limit": 0}, "limit"), ({"limit": 201}, "limit"), ({"job": "no such:job"}, "job")):
        answer = api.get(f"/v1/namespaces/{namespace}/jobs/runs", params=params)
        assert answer.status_code == 422 and field in answer.text, (params, answer.text)


def test_the_client_and_the_cli_list_the_runs(live_api: str, namespace: str, runtime: Any, jobs_on: None) -> None:
    with Hippograph(live_api, TEST_ADMIN_KEY, namespace=namespace) as hg:
        hg.put_namespace()
        hg.save_memory(type="Knowledge", label="tea", content="Bob drinks tea")
        decay(namespace)
        [run] = hg.list_job_runs(limit=5).items
        assert (run.job, run.outcome, run.counts["nodes"]) == ("decay", "ok", 1)
    listed = run_cli(live_api, namespace, "jobs", "runs", "--json")
    assert listed.returncode == 0, listed.stderr
    assert [(r["job"], r["outcome"], r["counts"]) for r in json.loads(listed.stdout)] == [
        ("decay", "ok", {"nodes": 1, "edges": 0, "soft_forgotten": 0})
    ]
    table = run_cli(live_api, namespace, "jobs", "runs")
    assert table.returncode == 0 and "decay" in table.stdout and "job runs" in table.stdout
