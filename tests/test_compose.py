"""docker-compose.yml cannot run here (no Docker engine); check what it declares."""

import importlib
import re
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
SETTINGS_VARIABLES = {
    "NEO4J_URI", "NEO4J_USER", "NEO4J_PASSWORD", "QDRANT_URL", "QDRANT_API_KEY", "REDIS_URL",
    "EMBEDDING_MODEL", "HIPPOGRAPH_DATA_DIR", "HIPPOGRAPH_HOST", "HIPPOGRAPH_PORT", "HIPPOGRAPH_ADMIN_KEY",
    "HIPPOGRAPH_LLM_BASE_URL", "HIPPOGRAPH_LLM_API_KEY", "HIPPOGRAPH_LLM_MODEL", "HIPPOGRAPH_WORKER_METRICS_PORT",
}  # fmt: skip
# Secrets a deployment must set: compose refuses to start without them (`${VAR:?message}`).
REQUIRED_SECRETS = {"NEO4J_PASSWORD", "REDIS_PASSWORD", "QDRANT_API_KEY", "HIPPOGRAPH_ADMIN_KEY"}


def _compose() -> dict:
    return yaml.safe_load((REPO / "docker-compose.yml").read_text())


def _required(value: str, variable: str) -> bool:
    """`value` is `${variable:?message}` (or holds it): compose stops when the variable is unset or empty."""
    return re.search(r"\$\{" + variable + r":\?[^}]+\}", value) is not None


def test_engines_use_the_pinned_images_and_volumes_and_only_the_api_is_published() -> None:
    services = _compose()["services"]
    assert services["neo4j"]["image"] == "neo4j:5.26-community"
    assert services["qdrant"]["image"].startswith("qdrant/qdrant")
    assert services["redis"]["image"] == "redis:7"
    published = {name: service["ports"] for name, service in services.items() if service.get("ports")}
    assert published == {"api": ["8000:8000"]}
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
    assert env["HIPPOGRAPH_HOST"] == "0.0.0.0"  # the default is loopback, unreachable from outside the container
    assert env["REDIS_URL"].startswith("redis://:${REDIS_PASSWORD:?") and env["REDIS_URL"].endswith("@redis:6379/0")
    for variable in ("NEO4J_PASSWORD", "QDRANT_API_KEY", "HIPPOGRAPH_ADMIN_KEY"):
        assert _required(env[variable], variable), variable
    assert _required(env["REDIS_URL"], "REDIS_PASSWORD")
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


def test_every_engine_requires_its_secret_and_its_healthcheck_still_works_with_it() -> None:
    services = _compose()["services"]
    neo4j, qdrant, redis = services["neo4j"], services["qdrant"], services["redis"]
    assert _required(neo4j["environment"]["NEO4J_AUTH"], "NEO4J_PASSWORD")
    assert _required(qdrant["environment"]["QDRANT__SERVICE__API_KEY"], "QDRANT_API_KEY")
    command = redis["command"]
    assert command[0] == "redis-server" and "--requirepass" in command
    assert _required(command[command.index("--requirepass") + 1], "REDIS_PASSWORD")
    # redis-cli takes the password from REDISCLI_AUTH; without it the ping answers NOAUTH, not PONG.
    assert _required(redis["environment"]["REDISCLI_AUTH"], "REDIS_PASSWORD")
    assert "redis-cli ping" in redis["healthcheck"]["test"][1] and "PONG" in redis["healthcheck"]["test"][1]
    # Neo4j's HTTP discovery page and Qdrant's port answer without credentials.
    assert "7474" in neo4j["healthcheck"]["test"][1] and "6333" in qdrant["healthcheck"]["test"][1]


def test_no_secret_has_a_default_and_env_example_lists_them() -> None:
    text = (REPO / "docker-compose.yml").read_text()
    for variable in REQUIRED_SECRETS:
        assert f"${{{variable}:-" not in text and f"${{{variable}}}" not in text, variable
        assert _required(text, variable), variable
    example = (REPO / ".env.example").read_text()
    listed = set(re.findall(r"^([A-Z][A-Z0-9_]*)=", example, flags=re.MULTILINE))
    assert listed >= REQUIRED_SECRETS
    # every variable compose reads from the environment is listed
    assert set(re.findall(r"\$\{([A-Z][A-Z0-9_]*)[:}]", text)) <= listed
    assert ".env" in (REPO / ".gitignore").read_text().split()
