#!/usr/bin/env bash
# `make stop`: stop the API that `make run` serves (its supervisor's pid file), then the local engines it
# started (their data stays on disk).
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/python scripts/supervise.py --stop
.venv/bin/python scripts/neo4j_local.py stop
.venv/bin/python scripts/redis_local.py stop
