#!/usr/bin/env bash
# `make run`: install, then scripts/supervise.py: start local Neo4j and Redis, serve the API (embedded
# vector tier, in-process Celery worker and beat), and start again an engine that dies. Honours
# HIPPOGRAPH_PORT, HIPPOGRAPH_DATA_DIR, HIPPOGRAPH_ADMIN_KEY and the other settings in README.md.
# `make stop` stops the engines.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
exec .venv/bin/python scripts/supervise.py
