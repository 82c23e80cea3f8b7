from pathlib import Path

import pytest
from pydantic import ValidationError

from app.settings import PACKAGED_PAIR, Settings


def test_defaults_point_at_local_engines_and_embedded_vectors(monkeypatch: pytest.MonkeyPatch) -> None:
    # The defaults, whatever engines this shell points the suite at (NEO4J_URI, REDIS_URL, ...).
    for field in Settings.model_fields.values():
        if field.alias:
            monkeypatch.delenv(field.alias, raising=False)
    settings = Settings()
    assert settings.neo4j_uri == "bolt://127.0.0.1:7687"
    assert settings.redis_url == "redis://127.0.0.1:6379/0"
    assert settings.port == 8000
    assert settings.host == "127.0.0.1"  # loopback unless told otherwise (the Docker image sets 0.0.0.0)
    assert settings.embedding_model == PACKAGED_PAIR  # English and Chinese: app/domain/vector_pair.py
    assert settings.embedding_models == ("multilingual-e5-small", "all-MiniLM-L6-v2")  # what install exports
    assert settings.embedding_precision == "int8"
    assert settings.embedded_vectors is True
    assert settings.vector_dir == Path("data") / "vectors"
    assert settings.neo4j_auth is None  # empty password: the local server runs without auth
    assert settings.model_cache_dir == Path.home() / ".cache" / "hippograph" / "models"


def test_environment_is_read_by_the_documented_names(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("NEO4J_URI", "bolt://db.example:7699")
    monkeypatch.setenv("NEO4J_USER", "alice")
    monkeypatch.setenv("NEO4J_PASSWORD", "s3cret")
    monkeypatch.setenv("QDRANT_URL", "http://qdrant:6333")
    monkeypatch.setenv("REDIS_URL", "redis://cache:6390/2")
    monkeypatch.setenv("EMBEDDING_MODEL", "/models/minilm")
    monkeypatch.setenv("EMBEDDING_PRECISION", "fp32")
    monkeypatch.setenv("HIPPOGRAPH_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("HIPPOGRAPH_PORT", "9123")
    monkeypatch.setenv("HIPPOGRAPH_ADMIN_KEY", "admin-key")
    monkeypatch.setenv("HIPPOGRAPH_MODEL_CACHE", str(tmp_path / "models"))
    settings = Settings()
    assert settings.model_cache_dir == tmp_path / "models"
    assert settings.neo4j_auth == ("alice", "s3cret")
    assert settings.neo4j_port == 7699
    assert settings.redis_port == 6390
    assert settings.embedded_vectors is False
    assert settings.qdrant_url == "http://qdrant:6333"
    assert settings.embedding_model == "/models/minilm" and settings.embedding_models == ("/models/minilm",)
    assert settings.embedding_precision == "fp32"
    assert settings.data_dir == tmp_path
    assert settings.vector_dir == tmp_path / "vectors"
    assert settings.port == 9123
    assert settings.admin_key is not None and settings.admin_key.get_secret_value() == "admin-key"


def test_qdrant_path_overrides_the_default_vector_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("QDRANT_PATH", str(tmp_path / "shard"))
    assert Settings().vector_dir == tmp_path / "shard"


def test_a_bad_port_is_rejected_naming_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HIPPOGRAPH_PORT", "70000")
    with pytest.raises(ValidationError, match="HIPPOGRAPH_PORT"):
        Settings()
