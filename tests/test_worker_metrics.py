"""A standalone Celery worker (prefork, as docker-compose runs it) serves its metrics on
HIPPOGRAPH_WORKER_METRICS_PORT: tasks run in a pool child, the main process serves their sum."""

from __future__ import annotations

import time
import urllib.request
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from tests.conftest import terminate
from tests.test_batches import TURNS
from tests.test_worker_crash import _start_worker


def _scrape(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float] | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
            text = response.read().decode("utf-8")
    except OSError:
        return None
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def _until(condition, timeout_s: float, what: str, log: Path):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while not (result := condition()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}; worker log:\n{log.read_text()[-4000:]}")
        time.sleep(0.1)
    return result


def test_a_standalone_worker_serves_task_ingest_and_job_metrics(
    api, settings, namespace: str, unused_port: int, tmp_path: Path
) -> None:
    from jobs.celery_app import celery_app
    from jobs.celery_tasks import flush_activity

    api.put(f"/v1/namespaces/{namespace}")
    log = tmp_path / "worker.log"
    worker = _start_worker(
        settings, celery_app.conf.task_default_queue, tmp_path / "worker", log,
        pool=("--pool", "prefork", "--concurrency", "1"),
        env={"HIPPOGRAPH_WORKER_METRICS_PORT": str(unused_port), "HIPPOGRAPH_METRICS_NAMESPACES": "1"},
    )  # fmt: skip
    try:
        _until(lambda: _scrape(unused_port) is not None, 60, "the worker's metrics endpoint", log)
        assert not [key for key in _scrape(unused_port) or {} if key[0].startswith("hippograph_")]  # nothing ran yet
        urls = [
            api.post(f"/v1/namespaces/{namespace}/turns", json={"turns": turns}).json()["status_url"]
            for turns in (TURNS, [{**TURNS[0], "turn_id": "s1:3"}])
        ]
        for url in urls:
            _until(lambda url=url: api.get(url).json()["status"] == "done", 180, f"batch {url}", log)
        # disable_sync_subtasks: an in-process worker of an earlier test marks this process as a worker.
        flush_activity.delay(namespace).get(timeout=120, disable_sync_subtasks=False)

        ns = (("namespace", namespace),)
        # Celery sends task_success after storing the result waited for: the outcome may come a moment later.
        flushed = ("hippograph_task_outcomes_total", (("outcome", "success"), ("task", "hippograph.flush_activity")))
        metrics = _until(
            lambda: (m := _scrape(unused_port)) and ("hippograph_job_runs_total", (("job", "flush_activity"),)) in m
            and flushed in m and m, 30, "the job's metrics", log,
        )  # fmt: skip
        assert metrics[("hippograph_ingest_turns_total", ns)] == 3
        # This namespace's stages only: the worker also runs what earlier tests of this process left queued.
        stages = {
            labels
            for name, labels in metrics
            if name == "hippograph_ingest_stage_seconds_count" and ("namespace", namespace) in labels
        }
        # Each stage once per task run that wrote turns: two, or one when a task took the other batch's
        # turns over while they were queued behind it (a loaded machine).
        counts = {metrics[("hippograph_ingest_stage_seconds_count", labels)] for labels in stages}
        assert stages and counts <= {1, 2}, counts
        outcome = "hippograph_task_outcomes_total"
        assert metrics[(outcome, (("outcome", "success"), ("task", "hippograph.ingest_turns")))] >= 2
        assert metrics[(outcome, (("outcome", "success"), ("task", "hippograph.flush_activity")))] >= 1
        assert metrics[("hippograph_job_runs_total", (("job", "flush_activity"),))] == 1
        assert metrics[("hippograph_job_duration_seconds_count", (("job", "flush_activity"),))] == 1
    finally:
        terminate(worker)
