"""Named Cypher queries loaded from `cypher/*.cypher`.

File format: each query starts with a `// name: <query>` line; comment lines after it document it;
the query runs until the next `// name:` (or `// fragment:`) line. A query's full name is
`<file stem>.<query>`, e.g. `health.ping`. Queries are parameterized; no value is ever formatted
into their text.

A `// fragment: <name>` block is a piece of Cypher that several queries of the same file share (so
it has one copy); a line `// include: <name>` in a query stands for it. Fragments are not queries.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path


def _cypher_dir() -> Path:
    """`cypher/` of the source tree; in an installed wheel (`pip install .`), the copy the wheel puts
    under `<prefix>/share/hippograph/cypher` (pyproject.toml, `data-files`)."""
    source = Path(__file__).resolve().parents[2] / "cypher"
    return source if source.is_dir() else Path(sys.prefix) / "share" / "hippograph" / "cypher"


CYPHER_DIR = _cypher_dir()
_HEADER = re.compile(r"^//\s*(name|fragment):\s*([A-Za-z_][A-Za-z0-9_]*)\s*$")
_INCLUDE = re.compile(r"^\s*//\s*include:\s*([A-Za-z_][A-Za-z0-9_]*)\s*$")


class UnknownQueryError(KeyError):
    pass


class CypherQueries:
    """All named queries of one directory, in file order."""

    def __init__(self, queries: dict[str, str]) -> None:
        self._queries = queries

    @classmethod
    def load(cls, directory: Path = CYPHER_DIR) -> CypherQueries:
        queries: dict[str, str] = {}
        for path in sorted(directory.glob("*.cypher")):
            for name, text in _parse(path.read_text(encoding="utf-8")):
                full_name = f"{path.stem}.{name}"
                if full_name in queries:
                    raise ValueError(f"duplicate query name {full_name} in {path}")
                queries[full_name] = text
        return cls(queries)

    def __getitem__(self, name: str) -> str:
        try:
            return self._queries[name]
        except KeyError:
            raise UnknownQueryError(name) from None

    def names(self, prefix: str = "") -> list[str]:
        return [name for name in self._queries if name.startswith(prefix)]


def _parse(source: str) -> list[tuple[str, str]]:
    blocks: list[tuple[str, str, list[str]]] = []  # (kind, name, lines)
    for line in source.splitlines():
        match = _HEADER.match(line.strip())
        if match:
            blocks.append((match.group(1), match.group(2), []))
        elif blocks:
            blocks[-1][2].append(line)
    fragments = {name: lines for kind, name, lines in blocks if kind == "fragment"}

    def expand(name: str, lines: list[str]) -> list[str]:
        expanded: list[str] = []
        for line in lines:
            include = _INCLUDE.match(line)
            if include is None:
                expanded.append(line)
            elif include.group(1) in fragments:  # a fragment may include another
                expanded.extend(expand(name, fragments[include.group(1)]))
            else:
                raise ValueError(f"query {name} includes unknown fragment {include.group(1)}")
        return expanded

    parsed: list[tuple[str, str]] = []
    for kind, name, lines in blocks:
        if kind == "fragment":
            continue
        text = "\n".join(line for line in expand(name, lines) if not line.lstrip().startswith("//")).strip()
        if not text:
            raise ValueError(f"query {name} is empty")
        parsed.append((name, text.rstrip(";").strip()))
    return parsed
