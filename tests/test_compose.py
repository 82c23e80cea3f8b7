"""docker-compose.yml cannot run here (no Docker engine); check what it declares."""

import importlib
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
SETTINGS_VARIABLES = {
    "NEO4J_URI", "NEO4J_USER", "NEO4J_PASSWORD", "QDRANT_URL", "REDIS_URL",
    "EMBEDDING_MODEL", "HIPPOGRAPH_DATA_DIR", "HIPPOGRAPH_PORT", "HIPPOGRAPH_ADMIN_KEY",
    "HIPPOGRAPH_LLM_BASE_URL", "HIPPOGRAPH_LLM_API_KEY", "HIPPOGRAPH_LLM_MODEL",
}  # fmt: skip


def _compose() -> dict:
    return yaml.safe_load((REPO / "docker-compose.yml").read_text())


def test_engines_use_the_pinned_images_ports_and_volumes() -> None:
    services = _compose()["services"]
    assert services["neo4j"]["image"] == "neo4j:5.26-community"
    assert services["qdrant"]["image"].startswith("qdrant/qdrant")
    assert services["redis"]["image"] == "redis:7"
    assert "7687:7687" in services["neo4j"]["ports"]
    assert "6333:6333" in services["qdrant"]["ports"]
    assert "6379:6379" in services["redis"]["ports"]
    for name in ("neo4j", "qdrant", "redis", "api", "worker"):
        assert "test" in services[name]["healthcheck"], name
    for name in ("neo4j", "qdrant", "redis"):
        assert services[name]["volumes"], name


def test_api_worker_and_beat_share_one_image_and_the_same_settings() -> None:
    services = _compose()["services"]
    assert services["api"]["build"] == "."
    assert (REPO / "Dockerfile").is_file()
    images = {services[name]["image"] for name in ("api", "worker", "beat")}
    assert images == {"hippograph:latest"}
    environments = [services[name]["environment"] for name in ("api", "worker", "beat")]
    assert environments[0] == environments[1] == environments[2]
    assert set(environments[0]) == SETTINGS_VARIABLES
    env = environments[0]
    assert env["NEO4J_URI"] == "bolt://neo4j:7687"
    assert env["QDRANT_URL"] == "http://qdrant:6333"  # a server: the api hosts no worker
    assert env["REDIS_URL"].startswith("redis://redis:6379")
    assert "8000:8000" in services["api"]["ports"]
    for name in ("api", "worker", "beat"):
        assert set(services[name]["depends_on"]) == {"neo4j", "qdrant", "redis"}
        assert all(d["condition"] == "service_healthy" for d in services[name]["depends_on"].values())


def test_service_commands_name_real_entry_points() -> None:
    services = _compose()["services"]
    assert services["api"]["command"] == ["python", "-m", "app"]
    assert services["worker"]["command"][:4] == ["celery", "-A", "jobs.celery_app", "worker"]
    assert services["beat"]["command"][:4] == ["celery", "-A", "jobs.celery_app", "beat"]
    assert importlib.import_module("jobs.celery_app").celery_app.main == "hippograph"
    assert importlib.import_module("app.__main__").main is not None
    neo4j_password = services["neo4j"]["environment"]["NEO4J_AUTH"].split("/", 1)[1]
    assert neo4j_password == services["api"]["environment"]["NEO4J_PASSWORD"]
