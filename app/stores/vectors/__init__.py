"""The vector tier: one interface, two real backends (Qdrant server via qdrant-client, Qdrant Edge)."""

from app.stores.vectors.base import VectorHit, VectorRecord, VectorStore
from app.stores.vectors.factory import open_vector_store

__all__ = ["VectorHit", "VectorRecord", "VectorStore", "open_vector_store"]
