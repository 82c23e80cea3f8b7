# Thin wrapper: every target calls a script under scripts/.
.PHONY: run test test-fast stop install lint

run:
	bash scripts/run.sh

test:
	bash scripts/test.sh

# Everything but the whole-system drills (tests/conftest.py DRILLS); `make test` runs them too.
test-fast:
	bash scripts/test.sh -m "not drill"

stop:
	bash scripts/stop.sh

install:
	bash scripts/install.sh

lint:
	bash scripts/install.sh && .venv/bin/ruff check app jobs scripts tests clients/python && .venv/bin/mypy app jobs clients/python/hippograph
