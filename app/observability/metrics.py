"""Prometheus metrics of one process, in a registry of their own.

Why prometheus-client and not OpenTelemetry: one small dependency, the text exposition format is the
contract (any Prometheus-compatible scraper reads it), and no collector process is needed.

The registry belongs to the `Runtime` (not the global default), so several runtimes in one process
(the tests) never register the same time series twice. In the embedded run the API, the Celery
worker and beat share the runtime and so this registry; a standalone worker process has its own,
which nothing serves (its task outcomes stay in that process).

No metric carries a namespace label unless `HIPPOGRAPH_METRICS_NAMESPACES=1` (namespace names can
be customer names); then the recall and ingest metrics do. No metric carries memory content.

Layers of one concept (one file name): `app/observability/metrics.py` (the metrics);
`app/api/metrics.py` (`GET /metrics`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from prometheus_client import CONTENT_TYPE_PLAIN_0_0_4, CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

CONTENT_TYPE = CONTENT_TYPE_PLAIN_0_0_4  # what generate_latest writes
# Seconds: a recall stage takes ~1-20 ms, a request up to seconds (turns with wait), jobs longer.
FAST_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
SLOW_BUCKETS = (0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 10.0, 30.0, 60.0, 300.0, 900.0, 3600.0)
RECALL_STAGES = {"hot": "hot_ms", "cold": "cold_ms", "fusion": "fusion_ms", "total": "total_ms"}
UNMATCHED = "unmatched"


class QueueDepth(Collector):
    """`hippograph_queue_depth`, as last read (at scrape time, `Runtime.refresh_metrics`). None when
    the broker could not be read: the gauge is then absent, and the scrape still answers."""

    def __init__(self) -> None:
        self.value: int | None = None

    def collect(self) -> Iterable[Metric]:
        if self.value is not None:
            yield GaugeMetricFamily(
                "hippograph_queue_depth", "Tasks waiting in the Celery queue (length of its Redis list)", self.value
            )


class Metrics:
    """Every metric object of the process and the few calls that record into them."""

    def __init__(self, namespaces: bool = False) -> None:
        self.registry = CollectorRegistry()
        self.namespaces = namespaces
        ns: list[str] = ["namespace"] if namespaces else []
        r = self.registry
        self.http_requests = Counter(
            "hippograph_http_requests",
            "HTTP requests by route template, method and status",
            ["method", "route", "status"],
            registry=r,
        )
        self.http_duration = Histogram(
            "hippograph_http_request_duration_seconds",
            "HTTP request latency by route template",
            ["method", "route"],
            buckets=FAST_BUCKETS,
            registry=r,
        )
        self.recall_stage = Histogram(
            "hippograph_recall_stage_seconds",
            "Recall stage latency: hot, cold, fusion, total",
            ["stage", *ns],
            buckets=FAST_BUCKETS,
            registry=r,
        )
        self.recall_cards = Counter("hippograph_recall_cards", "Memory cards returned by recalls", ns, registry=r)
        self.ingest_turns = Counter("hippograph_ingest_turns", "Turns the write tracks ran on", ns, registry=r)
        self.ingest_stage = Histogram(
            "hippograph_ingest_stage_seconds",
            "Write-track stage time per ingested batch",
            ["stage", *ns],
            buckets=SLOW_BUCKETS,
            registry=r,
        )
        self.task_outcomes = Counter(
            "hippograph_task_outcomes", "Celery task outcomes: success, retry, failure", ["task", "outcome"], registry=r
        )
        self.job_runs = Counter(
            "hippograph_job_runs", "Periodic job runs that did work (held the lock)", ["job"], registry=r
        )
        self.job_duration = Histogram(
            "hippograph_job_duration_seconds", "Periodic job run time", ["job"], buckets=SLOW_BUCKETS, registry=r
        )
        self.job_items = Counter(
            "hippograph_job_items", "What periodic jobs processed (see docs/architecture.md)", ["job"], registry=r
        )
        self.queue_depth = QueueDepth()
        self.registry.register(self.queue_depth)
        self.engine_up = Gauge(
            "hippograph_engine_up", "1 when the engine answered its last probe", ["engine"], registry=r
        )

    def _ns(self, namespace: str) -> dict[str, str]:
        return {"namespace": namespace} if self.namespaces else {}

    def observe_request(self, method: str, route: str, status: int, seconds: float) -> None:
        self.http_requests.labels(method, route, str(status)).inc()
        self.http_duration.labels(method, route).observe(seconds)

    def observe_recall(self, namespace: str, stats: Mapping[str, Any], cards: int) -> None:
        """From `Recall.recall`'s stats (milliseconds)."""
        extra = self._ns(namespace)
        for stage, key in RECALL_STAGES.items():
            if (ms := stats.get(key)) is not None:
                self.recall_stage.labels(stage=stage, **extra).observe(ms / 1000)
        _child(self.recall_cards, extra).inc(cards)

    def observe_ingest(self, namespace: str, turns: int, seconds_by_stage: Mapping[str, float]) -> None:
        extra = self._ns(namespace)
        _child(self.ingest_turns, extra).inc(turns)
        for stage, seconds in seconds_by_stage.items():
            self.ingest_stage.labels(stage=stage, **extra).observe(seconds)

    def observe_task(self, task: str, outcome: str) -> None:
        self.task_outcomes.labels(task, outcome).inc()

    def observe_job(self, job: str, seconds: float, items: int) -> None:
        self.job_runs.labels(job).inc()
        self.job_duration.labels(job).observe(seconds)
        self.job_items.labels(job).inc(items)

    def observe_engines(self, up: Mapping[str, bool]) -> None:
        for engine, ok in up.items():
            self.engine_up.labels(engine).set(1.0 if ok else 0.0)

    def observe_queue_depth(self, depth: int | None) -> None:
        self.queue_depth.value = depth

    def exposition(self) -> bytes:
        return generate_latest(self.registry)


def _child(metric: Any, labels: Mapping[str, str]) -> Any:
    """The labelled child, or the metric itself when it has no labels (namespaces off)."""
    return metric.labels(**labels) if labels else metric
