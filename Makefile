# Thin wrapper: every target calls a script under scripts/.
.PHONY: run test stop install lint

run:
	bash scripts/run.sh

test:
	bash scripts/test.sh

stop:
	bash scripts/stop.sh

install:
	bash scripts/install.sh

lint:
	bash scripts/install.sh && .venv/bin/ruff check app jobs scripts tests && .venv/bin/mypy app jobs
