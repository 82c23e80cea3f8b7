#!/usr/bin/env bash
# `make test`: install, lint, then the whole suite against real engines. tests/conftest.py uses
# NEO4J_URI / REDIS_URL / QDRANT_URL when set, testcontainers when a Docker engine answers, and
# otherwise starts local Neo4j and Redis through scripts/neo4j_local.py and scripts/redis_local.py.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
.venv/bin/ruff check app jobs scripts tests
.venv/bin/mypy app jobs
.venv/bin/python -m pytest "$@"
