"""Export a sentence-transformers model folder to ONNX once, for `app/embedding/encoder.py` to run.

Why: ONNX Runtime embeds the same vectors (largest difference to sentence-transformers ~3e-7, checked
on every export) 3x faster for a single query (3 ms vs 10 ms here) and ~1.5x faster in batches, and
its threads do not spin against Neo4j's on a 2-core machine the way torch's do (a query embedding took
45 ms under load with torch, 6 ms with ONNX Runtime).

Precision (EMBEDDING_PRECISION): `int8` (the default) stores the export's weights as 8-bit integers
(linear layers with one scale per output channel, run as integer matrix products; the token,
position and type embedding tables) with ONNX Runtime's dynamic quantization (activations are
quantized on the fly, so no calibration data is needed). On this 2-core machine it embeds about
twice as fast (chat turns ~315 -> ~650 per second; LongMemEval's ingest 20.5 -> 30.0 turns/s), its
vectors keep a cosine of ~0.99 to the exact ones (mean 0.991, min 0.98 over 2,000 benchmark turns),
and recall on the evaluation sets moved within noise (docs/benchmarks.md, "Embedding precision").
One property to know: an activation's scale is taken over the whole batch, so a text's int8 vector
varies a little with the texts embedded beside it (cosine ~0.99 between a text embedded alone and in
a batch; the same batch always gives the same vectors, so a retried write stores what it stored).
Per-row weight-only 8-bit (MatMulNBits) avoids that but ran no faster than fp32 here. `fp32` keeps
the exact model, batch-independent.

An export is a folder named by a digest of the model folder (file names and contents), of the
precision and of this module's format, so a changed model is exported again and a reinstalled one
is not:

    <cache>/<model name>-<precision>-<digest>/model.onnx      the transformer, dynamic batch and sequence axes
    <cache>/<model name>-<precision>-<digest>/tokenizer.json  its fast tokenizer
    <cache>/<model name>-<precision>-<digest>/embedding.json  pooling, max sequence length, dimension,
                                                              inputs, precision, prompts, model digest

Prompts: a model trained with prefixes (e5: "query: " / "passage: ") declares them in its
`config_sentence_transformers.json`; the export records the `query` and `passage` ones (empty when
the model has none, as MiniLM) and `Embedder.embed_queries` / `embed_passages` prepend them. The
model digest (of the model folder's files, prompts included; not of the precision, whose vectors
stay at cosine ~0.99 and mix within noise) is the embedding identity stored with the vectors
(`VectorStore.bind`, app/stores/vectors/base.py).

The export needs torch and sentence-transformers (installed with the project); running it does not.
Run it ahead of time (the Docker image does) with `python -m app.embedding.onnx_export`; otherwise the
first process to need it exports (~5 s) and the others wait for its atomic rename.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from app.domain.embedding_identity import Precision

EXPORT_FORMAT = "onnx-4"  # bump when the files or their meaning change
ONNX_OPSET = 17
SUPPORTED_POOLING = ("mean", "cls", "max")
# The export is checked against sentence-transformers on these (English, Chinese, long, short).
PROBE_TEXTS = (
    "What car does Alice drive?",
    "我上周五去了哪里？",
    "ok",
    "I had sushi for dinner with my sister Anna last Friday; the place was tiny but clean and a bit overpriced, "
    "and we talked about her new job at Globex and the trip to Kyoto she is planning for March.",
)
# The least cosine between the export's vector of a probe and sentence-transformers' own: the exact
# export agrees to rounding; the quantized one is checked to stay close (measured 0.989-0.993 on the
# sentences, 0.956 on "ok": the fewer the tokens, the less the quantization noise averages out).
MIN_PROBE_COSINE: dict[str, float] = {"fp32": 0.9999, "int8": 0.93}


class EmbeddingModelError(RuntimeError):
    pass


@dataclass(frozen=True)
class ExportedModel:
    folder: Path
    pooling: str
    max_seq_length: int
    dimension: int
    do_lower_case: bool
    input_names: tuple[str, ...]
    precision: Precision
    query_prompt: str
    passage_prompt: str
    model_digest: str

    @property
    def onnx_path(self) -> Path:
        return self.folder / "model.onnx"

    @property
    def tokenizer_path(self) -> Path:
        return self.folder / "tokenizer.json"

    @classmethod
    def read(cls, folder: Path) -> ExportedModel:
        meta = json.loads((folder / "embedding.json").read_text())
        return cls(
            folder=folder,
            pooling=meta["pooling"],
            max_seq_length=int(meta["max_seq_length"]),
            dimension=int(meta["dimension"]),
            do_lower_case=bool(meta["do_lower_case"]),
            input_names=tuple(meta["input_names"]),
            precision=meta["precision"],
            query_prompt=meta["prompts"]["query"],
            passage_prompt=meta["prompts"]["passage"],
            model_digest=meta["model_digest"],
        )


def export_folder(model_path: Path, cache_dir: Path, precision: Precision = "int8") -> Path:
    digest = hashlib.sha256(f"{EXPORT_FORMAT}:{precision}:{model_digest(model_path)}".encode())
    return cache_dir / f"{model_path.name}-{precision}-{digest.hexdigest()[:16]}"


def model_digest(model_path: Path) -> str:
    """A digest of the model folder's file names and contents (weights, tokenizer, prompts)."""
    stats = {p: p.stat() for p in sorted(model_path.rglob("*")) if p.is_file()}
    state = tuple((str(p.relative_to(model_path)), stat.st_size, stat.st_mtime_ns) for p, stat in stats.items())
    return _content_digest(model_path, state)


@functools.lru_cache(maxsize=8)
def _content_digest(model_path: Path, state: tuple[tuple[str, int, int], ...]) -> str:
    """A digest of the model folder's file names and contents, not of their times: reinstalling the
    same model package must not export it again. `state` (names, sizes, times) keys the cache, so
    the files are read once per process while they stay unchanged (~0.1 s for MiniLM)."""
    digest = hashlib.sha256()
    for name, _, _ in state:
        with (model_path / name).open("rb") as file:
            digest.update(f"{name}\0".encode() + hashlib.file_digest(file, "sha256").digest())
    return digest.hexdigest()


def ensure_exported(model_path: Path, cache_dir: Path, precision: Precision = "int8") -> ExportedModel:
    """The model's export, made now if the cache does not hold it yet."""
    if precision not in MIN_PROBE_COSINE:
        raise EmbeddingModelError(f"EMBEDDING_PRECISION={precision!r} is not one of {', '.join(MIN_PROBE_COSINE)}")
    folder = export_folder(model_path, cache_dir, precision)
    if not (folder / "embedding.json").is_file():
        export(model_path, folder, precision)
    return ExportedModel.read(folder)


def export(model_path: Path, folder: Path, precision: Precision = "int8") -> None:
    """Export into a private temporary folder, check it, then rename it into place (atomic: a
    concurrent exporter's identical result is simply kept)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import torch
    from sentence_transformers import SentenceTransformer

    with published_folder(folder, folder / "embedding.json") as staging:
        # Eager attention exports as plain operators that run faster in ONNX Runtime on long texts
        # than the traced scaled-dot-product path (25 vs 17 texts/s at 100-300 words, measured).
        model = SentenceTransformer(str(model_path), device="cpu", model_kwargs={"attn_implementation": "eager"})
        meta = _describe(model)
        transformer: Any = model[0]
        tokenizer: Any = transformer.tokenizer
        if not getattr(tokenizer, "is_fast", False):
            raise EmbeddingModelError(f"{model_path}: only models with a fast (tokenizer.json) tokenizer are supported")
        tokenizer.backend_tokenizer.save(str(staging / "tokenizer.json"))
        sample = tokenizer(list(PROBE_TEXTS[:2]), padding=True, return_tensors="pt")
        input_names = [name for name in ("input_ids", "attention_mask", "token_type_ids") if name in sample]
        wrapper = _hidden_states_module(transformer.auto_model, input_names).eval()
        axes = {name: {0: "batch", 1: "sequence"} for name in [*input_names, "last_hidden_state"]}
        with torch.inference_mode(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the exporter's notes on tracing; the check below is what counts
            torch.onnx.export(
                wrapper,
                tuple(sample[name] for name in input_names),
                str(staging / "model.onnx"),
                input_names=input_names,
                output_names=["last_hidden_state"],
                dynamic_axes=axes,
                opset_version=ONNX_OPSET,
                dynamo=False,  # the TorchScript exporter: no onnxscript needed, dynamic axes as given
            )
        if precision == "int8":
            _quantize(staging / "model.onnx")
        meta["input_names"] = input_names
        meta["precision"] = precision
        meta["model_digest"] = model_digest(model_path)[:16]
        (staging / "embedding.json").write_text(json.dumps(meta, indent=2))
        _check(model, ExportedModel.read(staging))


@contextmanager
def published_folder(folder: Path, finished: Path) -> Iterator[Path]:
    """A private staging folder beside `folder`, renamed into place when the block ends without an
    error (atomic: of two concurrent writers' identical results, the first is kept; `finished`, a
    file of the complete folder, tells a lost race from a failure). Removed in any case."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    try:
        yield staging
        staging.chmod(0o755)
        try:
            staging.rename(folder)
        except OSError:
            if not finished.is_file():  # lost a race only if the winner finished
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _quantize(onnx_path: Path) -> None:
    """Replace the model at `onnx_path` by its int8 dynamic quantization (see the module's notes)."""
    import logging

    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantized = onnx_path.with_suffix(".int8.onnx")
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # its advice to pre-process the model first: measured, no gain here
    try:
        quantize_dynamic(str(onnx_path), str(quantized), weight_type=QuantType.QInt8, per_channel=True)
    finally:
        root.setLevel(level)
    quantized.replace(onnx_path)


def _describe(model: Any) -> dict[str, Any]:
    transformer, pooling = model[0], model[1] if len(model) > 1 else None
    mode = getattr(pooling, "pooling_mode", "")
    if isinstance(mode, list | tuple) and len(mode) == 1:  # several modes concatenated are not supported
        mode = mode[0]
    mode = str(getattr(mode, "value", mode))
    if mode not in SUPPORTED_POOLING:
        raise EmbeddingModelError(f"pooling {mode!r} is not supported (supported: {', '.join(SUPPORTED_POOLING)})")
    dimension = model.get_embedding_dimension()
    if not dimension:
        raise EmbeddingModelError("the model does not declare its embedding dimension")
    return {
        "format": EXPORT_FORMAT,
        "pooling": mode,
        "max_seq_length": int(model.max_seq_length),
        "dimension": int(dimension),
        "do_lower_case": bool(getattr(transformer, "do_lower_case", False)),
        "prompts": {kind: str((model.prompts or {}).get(kind, "")) for kind in ("query", "passage")},
    }


def _check(model: Any, exported: ExportedModel) -> None:
    """The exported model must embed the probes as sentence-transformers does."""
    import numpy as np

    from app.embedding.encoder import OnnxEncoder

    expected = model.encode(list(PROBE_TEXTS), normalize_embeddings=True, convert_to_numpy=True)
    actual = OnnxEncoder(exported, threads=1).encode(list(PROBE_TEXTS))
    cosines = (np.asarray(expected) * actual).sum(axis=1)
    if float(cosines.min()) < MIN_PROBE_COSINE[exported.precision]:
        raise EmbeddingModelError(
            f"the {exported.precision} ONNX export embeds differently from the model (cosines {cosines.tolist()})"
        )


def _hidden_states_module(auto_model: Any, input_names: list[str]) -> Any:
    import torch

    class HiddenStates(torch.nn.Module):
        """The transformer with positional inputs (the exporter passes them in this order)."""

        def __init__(self) -> None:
            super().__init__()
            self.model = auto_model

        def forward(self, *inputs: Any) -> Any:
            return self.model(**dict(zip(input_names, inputs, strict=True))).last_hidden_state

    return HiddenStates()


def main() -> None:
    from app.embedding.encoder import resolve_model_path
    from app.settings import get_settings

    settings = get_settings()
    for model in settings.embedding_models:  # the default pair's two, or the one set
        model_path = resolve_model_path(model, settings.model_cache_dir)
        exported = ensure_exported(model_path, settings.model_cache_dir, settings.embedding_precision)
        print(json.dumps(asdict(exported) | {"folder": str(exported.folder)}))


if __name__ == "__main__":
    main()
