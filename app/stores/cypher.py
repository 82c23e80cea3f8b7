"""Named Cypher queries loaded from `cypher/*.cypher`.

File format: each query starts with a `// name: <query>` line; comment lines after it document it;
the query runs until the next `// name:` line. A query's full name is `<file stem>.<query>`, e.g.
`health.ping`. Queries are parameterized; no value is ever formatted into their text.
"""

from __future__ import annotations

import re
from pathlib import Path

CYPHER_DIR = Path(__file__).resolve().parents[2] / "cypher"
_HEADER = re.compile(r"^//\s*name:\s*([A-Za-z_][A-Za-z0-9_]*)\s*$")


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
    parsed: list[tuple[str, str]] = []
    name: str | None = None
    body: list[str] = []

    def close() -> None:
        if name is not None:
            text = "\n".join(line for line in body if not line.lstrip().startswith("//")).strip()
            if not text:
                raise ValueError(f"query {name} is empty")
            parsed.append((name, text.rstrip(";").strip()))

    for line in source.splitlines():
        match = _HEADER.match(line.strip())
        if match:
            close()
            name, body = match.group(1), []
        elif name is not None:
            body.append(line)
    close()
    return parsed
