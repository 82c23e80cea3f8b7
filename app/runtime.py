"""The engines one process holds open and the memory operations built on them."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import neo4j.exceptions
import redis

from app.analytics.admission import AnalystSlots
from app.analytics.cypher_surface import CypherSurface
from app.analytics.named_queries import AnalyticsCatalog
from app.auth.bootstrap import bootstrap_admin_key
from app.auth.keys import ApiKeys
from app.context.builder import ContextBuilder
from app.context.runs import Runs
from app.context.tokens import TokenCounter
from app.domain.importance import ImportanceRules
from app.embedding.encoder import Embedder
from app.errors import EngineUnavailable
from app.extract.inference import InferenceRules
from app.extract.llm import LlmFactExtractor
from app.memory.activity import AccessLog
from app.memory.batch_writer import BatchWriter
from app.memory.batches import Batches
from app.memory.dead_letters import DeadLetters
from app.memory.entity_merge import EntityMerges
from app.memory.erasure import Erasure
from app.memory.forgetting import Forgetting
from app.memory.hot_window import HotWindow
from app.memory.ingest import Ingestor
from app.memory.learning import HebbianLearning
from app.memory.migrations import migrate
from app.memory.namespaces import Namespaces
from app.memory.nodes import MemoryNodes
from app.memory.semantic import SemanticIndexer, SemanticLinking
from app.memory.suspension import Suspensions
from app.memory.tasks import Tasks
from app.memory.transfer import Transfer
from app.observability.metrics import Metrics
from app.readiness import EngineStatus, probe_engines, probe_engines_async
from app.recall.listing import MemoryListing
from app.recall.neighbourhood import Neighbourhood
from app.recall.service import Recall
from app.settings import Settings
from app.stores.batches import BatchRecords
from app.stores.graph import GraphStore
from app.stores.hot import connect_redis
from app.stores.job_runs import JobRunLog
from app.stores.runs import RunRecords
from app.stores.suspension_files import SuspensionFiles
from app.stores.vectors import VectorStore, open_vector_store


class HostedJobs(Protocol):
    """The job system a runtime hosts in its process (jobs/embedded.py), stopped with it."""

    def stop(self) -> None: ...

log = logging.getLogger(__name__)


@dataclass
class Runtime:
    settings: Settings
    graph: GraphStore
    redis: redis.Redis
    embedder: Embedder
    vectors: VectorStore
    jobs: HostedJobs | None = field(default=None)
    _schema_applied: bool = field(default=False, repr=False)
    _schema_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        # The process's metrics (its own registry): the API, and in the embedded run the jobs too.
        self.metrics = Metrics(namespaces=self.settings.metrics_namespaces)
        self.namespaces = Namespaces(self.graph, self.vectors, self.redis)
        self.keys = ApiKeys(self.graph, bootstrap_admin_key(self.settings), self.settings.key_cache_ttl_s)
        self.importance_rules = ImportanceRules.load()
        self.semantic = SemanticIndexer(
            self.graph,
            self.vectors,
            self.embedder,
            SemanticLinking(self.settings.semantic_threshold, self.settings.semantic_max_neighbours),
            self.settings.embed_passages,
        )
        self.nodes = MemoryNodes(
            self.graph,
            self.vectors,
            self.semantic,
            self.importance_rules,
            recent_window_minutes=self.settings.recent_window_minutes,
        )
        self.entity_merges = EntityMerges(self.graph, self.vectors, self.semantic, self.nodes)
        self.tasks = Tasks(self.graph, self.nodes)
        self.suspensions = Suspensions(
            self.graph, self.tasks, SuspensionFiles(self.settings.suspension_dir), self.settings.suspension_max_nodes
        )
        self.forgetting = Forgetting(self.graph, self.vectors, self.namespaces)
        self.learning = HebbianLearning(self.graph, self.redis)
        self.accesses = AccessLog(self.graph, self.redis)
        self.transfer = Transfer(self.graph, self.semantic, self.namespaces)
        self.hot_window = HotWindow(self.redis)
        self.batches = Batches(BatchRecords(self.redis, self.settings.batch_ttl_s))
        self.runs = Runs.from_settings(RunRecords(self.redis, self.settings.breaker_run_ttl_s), self.settings)
        self.ingestor = Ingestor(self.graph, self.semantic, self.importance_rules, InferenceRules.load())
        self.dead_letters = DeadLetters(self.redis, self.hot_window)
        self.job_runs = JobRunLog(self.redis)  # each namespace's recent job runs
        self.erasure = Erasure(self.graph, self.vectors, self.semantic, self.redis, self.hot_window, self.dead_letters)
        self.batch_writer = BatchWriter(self.ingestor, self.hot_window, self.dead_letters, erasure=self.erasure)
        self.recall = Recall(
            self.graph,
            self.vectors,
            self.embedder,
            self.hot_window,
            self.accesses,
            self.learning,
            observer=self.metrics,
        )
        self.neighbourhood = Neighbourhood(self.graph)
        self.tokens = TokenCounter(self.embedder.encoder.exported.tokenizer_path, self.embedder.counted_by)
        self.context = ContextBuilder(self.recall, self.graph, self.neighbourhood, self.runs, self.tokens)
        self.listing = MemoryListing(self.graph)
        self.cypher_surface = CypherSurface(
            self.graph,
            AnalyticsCatalog.load(),
            self.settings.cypher_timeout_s,
            self.settings.cypher_default_rows,
            self.settings.cypher_max_bytes,
            AnalystSlots(
                self.settings.cypher_concurrency,
                self.settings.cypher_namespace_concurrency,
                self.settings.cypher_queue_s,
                self.settings.cypher_timeout_s,
            ),
        )
        self.llm: LlmFactExtractor | None = None
        if self.settings.llm_base_url:
            api_key = self.settings.llm_api_key
            self.llm = LlmFactExtractor(
                self.settings.llm_base_url,
                self.settings.llm_model,
                api_key.get_secret_value() if api_key else None,
                self.settings.llm_timeout_s,
            )

    @classmethod
    def open(cls, settings: Settings, embedder: Embedder | None = None) -> Runtime:
        """Open every engine; pass an `embedder` to share one already loaded. Starts even when Neo4j is
        down (readiness says so). The job system is not started here (app/ does not import jobs/):
        `jobs/host.py` opens a runtime that hosts it (the embedded run)."""
        embedder = embedder or Embedder.from_settings(settings)
        runtime = cls(
            settings=settings,
            graph=GraphStore.connect(settings),
            redis=connect_redis(settings),
            embedder=embedder,
            vectors=open_vector_store(settings, embedder.dimension, embedder.identity, embedder.paired),
        )
        try:
            runtime.ensure_schema()
        except (EngineUnavailable, neo4j.exceptions.DriverError) as exc:
            log.warning("Neo4j unavailable at start-up (%s); the schema is applied once it answers", exc)
        else:
            try:
                runtime.recall.warm_up()
            except Exception as exc:  # an optimisation only: never a reason not to start
                log.warning("recall warm-up skipped: %s", exc)
        return runtime

    def ensure_schema(self) -> None:
        """Apply `cypher/schema.cypher` and the data migrations once per process (idempotent in Neo4j
        as well)."""
        if self._schema_applied:
            return
        with self._schema_lock:
            if not self._schema_applied:
                self.graph.apply_schema()
                migrate(self.graph)
                self._schema_applied = True

    def _probe_neo4j(self) -> None:
        self.graph.ping(timeout_s=self.settings.readiness_timeout_s)
        self.ensure_schema()

    def _probes(self) -> dict[str, Callable[[], object]]:
        return {"neo4j": self._probe_neo4j, "redis": self.redis.ping, "vectors": self.vectors.ping}

    def readiness(self) -> dict[str, EngineStatus]:
        statuses = probe_engines(self._probes(), timeout_s=self.settings.readiness_timeout_s, owner=self)
        self.metrics.observe_engines({name: status.ok for name, status in statuses.items()})
        return statuses

    async def readiness_async(self) -> dict[str, EngineStatus]:
        """`readiness` without a worker thread (`/readyz`: answers while requests hold them all)."""
        statuses = await probe_engines_async(self._probes(), self.settings.readiness_timeout_s, owner=self)
        self.metrics.observe_engines({name: status.ok for name, status in statuses.items()})
        return statuses

    def refresh_metrics(self, queue_depth: Callable[[], int]) -> None:
        """Before a `/metrics` scrape: engine availability and the task queue's length
        (`queue_depth`), read together within the readiness timeout, so a scrape never waits longer;
        a queue that cannot be read leaves its gauge out."""
        depth: list[int] = []
        probes = {**self._probes(), "queue": lambda: depth.append(queue_depth())}
        statuses = probe_engines(probes, timeout_s=self.settings.readiness_timeout_s, owner=self)
        read = statuses.pop("queue")
        self.metrics.observe_engines({name: status.ok for name, status in statuses.items()})
        self.metrics.observe_queue_depth(depth[0] if read.ok and depth else None)

    def close(self) -> None:
        if self.jobs is not None:
            self.jobs.stop()
        self.recall.close()
        self.semantic.close()
        if self.llm is not None:
            self.llm.close()
        self.vectors.close()
        self.redis.close()
        self.graph.close()
