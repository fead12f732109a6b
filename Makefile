# The two commands of the README: `make serve` runs the service, `make test` the tests.
# Each first runs scripts/setup.sh, which installs whatever a fresh machine lacks.

.PHONY: serve test setup lint bench lock

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

# Rewrite the Python lockfiles from pyproject.toml (README, "Dependencies"): kept pins stay
# unless pyproject.toml needs another version; `make lock LOCK_ARGS=--upgrade` takes the
# newest versions its bounds allow; `LOCK_ARGS="-P uvicorn"` upgrades just one package.
PIP_COMPILE = .venv/bin/pip-compile --quiet --generate-hashes --allow-unsafe --strip-extras \
	--no-emit-index-url --no-emit-find-links --all-build-deps --no-header $(LOCK_ARGS)

lock:
	[ -x .venv/bin/pip-compile ] || ./scripts/setup.sh
	$(PIP_COMPILE) -o requirements/service.txt pyproject.toml
	$(PIP_COMPILE) --extra dev -c requirements/service.txt -o requirements/dev.txt pyproject.toml
	./scripts/setup.sh
