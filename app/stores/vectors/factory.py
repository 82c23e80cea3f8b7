"""Pick the vector backend from the settings: a Qdrant server when QDRANT_URL is set, else Edge (in a
child process of its own unless HIPPOGRAPH_VECTOR_PROCESS is false)."""

from __future__ import annotations

import functools

from app.settings import Settings
from app.stores.vectors.base import VectorStore


def open_vector_store(settings: Settings, dimension: int) -> VectorStore:
    if settings.qdrant_url:
        from qdrant_client import QdrantClient

        from app.stores.vectors.qdrant_server import QdrantClientVectorStore

        api_key = settings.qdrant_api_key.get_secret_value() if settings.qdrant_api_key else None
        client = QdrantClient(url=settings.qdrant_url, api_key=api_key, timeout=10)
        return QdrantClientVectorStore(client, settings.qdrant_collection, dimension)

    from app.stores.vectors.qdrant_edge import EdgeVectorStore

    if not settings.vector_process:
        return EdgeVectorStore(settings.vector_dir, dimension)
    from app.stores.vectors.child_process import ChildProcessVectorStore

    opener = functools.partial(EdgeVectorStore, settings.vector_dir, dimension)
    return ChildProcessVectorStore(opener, dimension, EdgeVectorStore.backend)
