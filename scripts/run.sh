#!/usr/bin/env bash
# `make run`: install, start local Neo4j and Redis, serve the API (embedded vector tier, in-process
# Celery worker and beat). Honours HIPPOGRAPH_PORT, HIPPOGRAPH_DATA_DIR, HIPPOGRAPH_ADMIN_KEY and
# the other settings in README.md. `make stop` stops the engines.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
.venv/bin/python scripts/neo4j_local.py start
.venv/bin/python scripts/redis_local.py start
exec .venv/bin/python -m app
