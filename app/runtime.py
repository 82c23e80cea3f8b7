"""The engines one process holds open, built from the settings and closed together."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import redis

from app.embedding import Embedder
from app.readiness import EngineStatus, probe_engines
from app.settings import Settings
from app.stores.graph import GraphStore
from app.stores.hot import connect_redis
from app.stores.vectors import VectorStore, open_vector_store

if TYPE_CHECKING:
    from jobs.embedded import EmbeddedJobs


@dataclass
class Runtime:
    settings: Settings
    graph: GraphStore
    redis: redis.Redis
    embedder: Embedder
    vectors: VectorStore
    jobs: EmbeddedJobs | None = field(default=None)

    @classmethod
    def open(
        cls, settings: Settings, host_jobs: bool | None = None, embedder: Embedder | None = None
    ) -> Runtime:
        """Open every engine. `host_jobs` defaults to the embedded run (no Qdrant server); pass an
        `embedder` to share one already loaded."""
        embedder = embedder or Embedder.from_settings(settings)
        runtime = cls(
            settings=settings,
            graph=GraphStore.connect(settings),
            redis=connect_redis(settings),
            embedder=embedder,
            vectors=open_vector_store(settings, embedder.dimension),
        )
        if settings.embedded_vectors if host_jobs is None else host_jobs:
            from jobs.celery_app import celery_app
            from jobs.embedded import EmbeddedJobs

            runtime.jobs = EmbeddedJobs(celery_app, settings)
            runtime.jobs.start()
        return runtime

    def readiness(self) -> dict[str, EngineStatus]:
        timeout = self.settings.readiness_timeout_s
        return probe_engines(
            {
                "neo4j": lambda: self.graph.ping(timeout_s=timeout),
                "redis": self.redis.ping,
                "vectors": self.vectors.ping,
            },
            timeout_s=timeout,
        )

    def close(self) -> None:
        if self.jobs is not None:
            self.jobs.stop()
        self.vectors.close()
        self.redis.close()
        self.graph.close()
