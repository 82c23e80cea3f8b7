"""Resident memory of the configured embedder (EMBEDDING_MODEL), in a fresh process: after loading
it, after embedding English texts, after embedding Chinese texts and queries in both languages
(the default pair loads multilingual-e5-small only then). Run once per model, each in its own process:

    .venv/bin/python scripts/bench_embedder_memory.py                       # the default pair
    EMBEDDING_MODEL=all-MiniLM-L6-v2 .venv/bin/python scripts/bench_embedder_memory.py
    EMBEDDING_MODEL=multilingual-e5-small .venv/bin/python scripts/bench_embedder_memory.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

ENGLISH = [
    f"Alice told Bob about trip number {i}: the train to Lyon left late and the hotel was full." for i in range(200)
]
CHINESE = [f"王磊说第{i}次出差的时候，去杭州的高铁晚点了，酒店也订满了。" for i in range(200)]


def resident_mb() -> float:
    line = next(line for line in Path("/proc/self/status").read_text().splitlines() if line.startswith("VmRSS"))
    return int(line.split()[1]) / 1024


def main() -> None:
    from app.embedding.encoder import Embedder
    from app.settings import Settings

    settings = Settings()
    start = resident_mb()
    embedder = Embedder.from_settings(settings)
    loaded = resident_mb()
    embedder.embed_passages(ENGLISH)  # (an English query is embedded by MiniLM alone where no memory is Chinese)
    english = resident_mb()
    embedder.embed_passages(CHINESE)
    embedder.embed_queries(CHINESE[:20] + ENGLISH[:20])
    chinese = resident_mb()
    print(f"EMBEDDING_MODEL={settings.embedding_model}")
    print(
        f"  resident MB: imports {start:,.0f}, embedder loaded {loaded:,.0f}, after 200 English texts "
        f"{english:,.0f}, after 200 Chinese texts {chinese:,.0f}"
    )


if __name__ == "__main__":
    main()
