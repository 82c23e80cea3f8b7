"""Which embedding model made a set of vectors, and the precision its export runs at: plain values
the settings, the vector stores and the embedder share (kept out of `app/embedding/` so that the
settings do not import the embedder that reads them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

# EMBEDDING_PRECISION: how the ONNX export stores its weights (app/embedding/onnx_export.py).
Precision = Literal["int8", "fp32"]


@dataclass(frozen=True)
class EmbeddingIdentity:
    """Which model made a set of vectors, stored with them: two models of the same dimension must
    never be mixed in one index (app/stores/vectors/base.py, `VectorStore.bind`)."""

    model: str  # EMBEDDING_MODEL as configured: a packaged model's name or a folder
    digest: str  # the export's model digest (weights, tokenizer, prompts)

    def __str__(self) -> str:
        return f"{self.model} (model digest {self.digest})"

    def as_dict(self) -> dict[str, str]:
        return {"model": self.model, "digest": self.digest}

    @classmethod
    def from_dict(cls, data: Any) -> EmbeddingIdentity | None:
        if isinstance(data, dict) and isinstance(data.get("model"), str) and isinstance(data.get("digest"), str):
            return cls(data["model"], data["digest"])
        return None
