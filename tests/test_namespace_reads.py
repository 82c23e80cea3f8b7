"""A namespace's value read at most every ttl seconds (app/recall/namespace_reads.py): exact cases on a
clock the test moves."""

from __future__ import annotations

from app.recall import namespace_reads
from app.recall.namespace_reads import NamespaceReads


def test_a_value_is_read_again_only_when_its_time_is_up() -> None:
    now = [100.0]
    reads: list[str] = []

    def read(namespace: str) -> str:
        reads.append(namespace)
        return f"{namespace}@{now[0]:g}"

    kept = NamespaceReads(read, 10.0, clock=lambda: now[0])
    assert kept.get("a") == "a@100" and kept.get("b") == "b@100"
    now[0] = 109.9
    assert kept.get("a") == "a@100" and reads == ["a", "b"]  # within 10 s: the first read's answer
    now[0] = 110.0
    assert kept.get("a") == "a@110" and reads == ["a", "b", "a"]  # its time is up at 10 s exactly


def test_more_namespaces_than_kept_drop_every_kept_value(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(namespace_reads, "NAMESPACES_KEPT", 2)
    reads: list[str] = []
    kept = NamespaceReads(lambda namespace: reads.append(namespace) or namespace, 60.0, clock=lambda: 0.0)
    for namespace in ("a", "b", "c", "a", "c"):
        kept.get(namespace)
    assert reads == ["a", "b", "c", "a"]  # c dropped a and b; then a is read again, c is still kept
