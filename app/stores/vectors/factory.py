"""Pick the vector backend from the settings: a Qdrant server when QDRANT_URL is set, else Edge (in a
child process of its own with HIPPOGRAPH_VECTOR_PROCESS).

Each embedding model has its own store. The configured one (QDRANT_COLLECTION, or the embedded
engine's folder) holds the vectors of the model it was first filled by; `app/reembed.py` fills a
store for another model beside it (`<collection>__<digest>`, `<folder>__<digest>`, the model
digest's first 16 hex digits). A process opens the configured store when its model made it, else
the complete one made for its model, else refuses (`VectorStore.bind`). Switching models is thus a
restart with the other EMBEDDING_MODEL, and switching back one with the previous. A store of pairs
(`paired`, the default embedder's) has other named vectors than a single model's: opening one with
the other layout is refused the same way (EmbeddingMismatchError), before any identity is read.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING

from app.domain.embedding_identity import EmbeddingIdentity
from app.settings import Settings
from app.stores.vectors.base import EmbeddingMismatchError, VectorStore, mismatch

if TYPE_CHECKING:
    from qdrant_client import QdrantClient


def open_vector_store(
    settings: Settings, dimension: int, identity: EmbeddingIdentity, paired: bool = False
) -> VectorStore:
    """The store of `identity`'s vectors (see the module's notes); EmbeddingMismatchError when none is."""
    try:
        store = _open(settings, dimension, None, paired)
    except EmbeddingMismatchError as exc:  # the configured store has the other layout
        if not rebuild_exists(settings, identity):
            if (stored := configured_identity(settings)) is None:
                raise
            location = f"collection {settings.qdrant_collection}" if settings.qdrant_url else str(settings.vector_dir)
            raise mismatch(location, str(stored), identity, stored.model) from exc
    else:
        try:
            store.bind(identity)
            return store
        except EmbeddingMismatchError:
            if not rebuild_exists(settings, identity):
                store.close()
                raise
        store.close()
    rebuilt = _open(settings, dimension, identity, paired)
    try:
        rebuilt.bind(identity)
    except EmbeddingMismatchError:
        rebuilt.close()
        raise
    return rebuilt


def open_rebuild_store(
    settings: Settings, dimension: int, identity: EmbeddingIdentity, paired: bool = False
) -> VectorStore:
    """The store `app/reembed.py` fills for `identity` (created, and marked incomplete, when new).
    It never opens the configured store, which the running service may own (the embedded engine)."""
    created = not rebuild_exists(settings, identity)
    store = _open(settings, dimension, identity, paired)
    if created or store.stored_identity() is None:
        store.record_identity(identity, complete=False)
    return store


def rebuild_exists(settings: Settings, identity: EmbeddingIdentity) -> bool:
    if settings.qdrant_url:
        client = _client(settings)
        try:
            return bool(client.collection_exists(rebuild_name(settings.qdrant_collection, identity)))
        finally:
            client.close()
    folder = _rebuild_folder(settings.vector_dir, identity)
    return folder.is_dir() and any(folder.iterdir())


def rebuild_name(name: str, identity: EmbeddingIdentity) -> str:
    return f"{name}__{identity.digest[:16]}"


def configured_identity(settings: Settings) -> EmbeddingIdentity | None:
    """The identity recorded in the configured store, read without opening the embedded engine's
    shard (the running service may own it)."""
    if settings.qdrant_url:
        from app.stores.vectors.qdrant_server import IDENTITY_KEY

        client = _client(settings)
        try:
            if not client.collection_exists(settings.qdrant_collection):
                return None
            metadata = client.get_collection(settings.qdrant_collection).config.metadata or {}
            return EmbeddingIdentity.from_dict(metadata.get(IDENTITY_KEY))
        finally:
            client.close()
    from app.stores.vectors.qdrant_edge import read_marker

    return EmbeddingIdentity.from_dict(read_marker(settings.vector_dir))


def _open(settings: Settings, dimension: int, rebuild_for: EmbeddingIdentity | None, paired: bool) -> VectorStore:
    if settings.qdrant_url:
        from app.stores.vectors.qdrant_server import QdrantClientVectorStore

        name = settings.qdrant_collection
        client = _client(settings)
        try:
            return QdrantClientVectorStore(
                client, rebuild_name(name, rebuild_for) if rebuild_for else name, dimension, paired
            )
        except EmbeddingMismatchError:
            client.close()
            raise

    from app.stores.vectors.qdrant_edge import EdgeVectorStore

    path = _rebuild_folder(settings.vector_dir, rebuild_for) if rebuild_for else settings.vector_dir
    if not settings.vector_process:
        return EdgeVectorStore(path, dimension, paired)
    from app.stores.vectors.child_process import ChildProcessVectorStore

    opener = functools.partial(EdgeVectorStore, path, dimension, paired)
    return ChildProcessVectorStore(opener, dimension, EdgeVectorStore.backend, paired)


def _rebuild_folder(path: Path, identity: EmbeddingIdentity) -> Path:
    return path.with_name(rebuild_name(path.name, identity))


def _client(settings: Settings) -> QdrantClient:
    from qdrant_client import QdrantClient

    api_key = settings.qdrant_api_key.get_secret_value() if settings.qdrant_api_key else None
    return QdrantClient(url=settings.qdrant_url, api_key=api_key, timeout=10)
