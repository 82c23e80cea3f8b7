import re
from pathlib import Path

import pytest

from app.stores.cypher import CYPHER_DIR, CypherQueries, UnknownQueryError


def test_named_queries_are_parsed_with_their_file_prefix(tmp_path: Path) -> None:
    (tmp_path / "things.cypher").write_text(
        "// header comment\n\n// name: one\n// what it does\nMATCH (n) RETURN n;\n\n// name: two\nRETURN $x AS x\n",
        encoding="utf-8",
    )
    queries = CypherQueries.load(tmp_path)
    assert queries.names() == ["things.one", "things.two"]
    assert queries["things.one"] == "MATCH (n) RETURN n"
    assert queries["things.two"] == "RETURN $x AS x"
    with pytest.raises(UnknownQueryError):
        queries["things.three"]


def test_duplicate_and_empty_queries_are_refused(tmp_path: Path) -> None:
    (tmp_path / "a.cypher").write_text("// name: q\nRETURN 1\n// name: q\nRETURN 2\n")
    with pytest.raises(ValueError, match="duplicate query name a.q"):
        CypherQueries.load(tmp_path)
    (tmp_path / "a.cypher").write_text("// name: q\n// only a comment\n")
    with pytest.raises(ValueError, match="query q is empty"):
        CypherQueries.load(tmp_path)


def test_project_queries_never_format_values_into_text() -> None:
    queries = CypherQueries.load(CYPHER_DIR)
    assert "health.ping" in queries.names()
    for name in queries.names():
        text = queries[name]
        # Python format fields or string concatenation would mean values are spliced into Cypher.
        assert not re.search(r"\{[a-z_]+\}|%s|\+\s*'", text), name
