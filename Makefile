# The two commands of the README: `make serve` runs the service, `make test` the tests.
# Each first runs scripts/setup.sh, which installs whatever a fresh machine lacks.

.PHONY: serve test setup lint bench

setup:
	./scripts/setup.sh

serve: setup
	.venv/bin/einauge serve

test: setup
	.venv/bin/ruff check .
	.venv/bin/pytest

lint: setup
	.venv/bin/ruff check .

bench: setup
	.venv/bin/python bench/engine.py
