"""Dense-only turn retrieval on the project's LoCoMo dev set (4 English + 2 Chinese samples), per model.

No engines: each sample's turns ('speaker: text') are embedded as passages, each question as a
query, turns ranked by cosine. Evidence recall at 5 / 10 / 20 and MRR of the first evidence turn,
per language. A rough stand-in for the eval's 'dense' baseline, not the product's fused recall.

usage: OMP_NUM_THREADS=1 venv/bin/python dense_locomo.py MODEL [MODEL ...]
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import bench  # noqa: E402

DEV = Path("/work/main/tests/data/locomo/hippograph_dev.json")


def evaluate(model) -> dict[str, dict[str, float]]:
    samples = json.loads(DEV.read_text())
    per_lang: dict[str, list[tuple[float, float, float, float]]] = {}
    for sample in samples:
        lang = "zh" if "-zh-" in sample["sample_id"] else "en"
        conv = sample["conversation"]
        turns = [t for key, value in conv.items() if key.startswith("session_") and isinstance(value, list) for t in value]
        ids = [t["dia_id"] for t in turns]
        P = model.passage([f"{t['speaker']}: {t['text']}" for t in turns])
        qa = [q for q in sample["qa"] if q.get("evidence")]
        Q = model.query([q["question"] for q in qa])
        S = Q @ P.T
        for row, q in enumerate(qa):
            order = [ids[i] for i in np.argsort(-S[row], kind="stable")]
            evidence = set(q["evidence"]) & set(ids)
            if not evidence:
                continue
            rank = min(order.index(e) for e in evidence) + 1
            recall = [len(evidence & set(order[:k])) / len(evidence) for k in (5, 10, 20)]
            per_lang.setdefault(lang, []).append((*recall, 1 / rank))
    out = {}
    for lang, rows in sorted(per_lang.items()):
        arr = np.array(rows)
        out[lang] = dict(zip(("R@5", "R@10", "R@20", "MRR"), np.round(arr.mean(0), 3).tolist()), n=len(rows))
    return out


def main() -> None:
    for name in sys.argv[1:]:
        model = bench.load(name, 1)
        t = time.perf_counter()
        result = evaluate(model)
        print(json.dumps({"model": name, "seconds": round(time.perf_counter() - t, 1), **result}))


if __name__ == "__main__":
    main()
