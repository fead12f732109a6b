# The two commands of the README: `make serve` runs the service, `make test` the tests.
# Each first runs scripts/setup.sh, which installs whatever a fresh machine lacks.

.PHONY: serve serve-balanced test test-cluster setup lint bench lock

setup:
	./scripts/setup.sh

serve: setup
	.venv/bin/cardtable serve

# The suites that exercise the store, the fan-out and several processes run a second time
# on a real Redis Cluster (3 masters, 3 replicas, started by the tests: tests/cluster.py).
CLUSTER_SUITES = tests/server/test_store.py tests/server/test_store_route.py \
	tests/server/test_multi_process.py \
	tests/server/test_reconnect.py tests/server/test_failover.py tests/server/test_archive.py \
	tests/server/test_lobby_migration.py tests/server/test_seeks_processes.py \
	tests/server/test_tournaments_multi.py \
	tests/cli/test_balance.py \
	tests/trust/test_chaos.py tests/trust/test_idempotency.py tests/trust/test_expiry.py \
	tests/bench/test_load_smoke.py

# Hypothesis runs derandomised here (tests/conftest.py, "ci" profile): the same examples on
# every machine. A bare `pytest` explores new ones and keeps the failing ones in .hypothesis/.
test: setup
	.venv/bin/ruff check .
	.venv/bin/mypy
	HYPOTHESIS_PROFILE=ci .venv/bin/pytest
	HYPOTHESIS_PROFILE=ci .venv/bin/pytest --redis=cluster $(CLUSTER_SUITES)

test-cluster: setup
	HYPOTHESIS_PROFILE=ci .venv/bin/pytest --redis=cluster $(CLUSTER_SUITES)

# N server processes behind HAProxy (docs/protocol.md §6): make serve-balanced N=3. HAProxy
# listens where CARDTABLE_HOST and CARDTABLE_PORT say (default 127.0.0.1:8000), the
# processes on the ports after it.
N ?= 2
serve-balanced: setup
	.venv/bin/cardtable balance --processes $(N)

lint: setup
	.venv/bin/ruff check .
	.venv/bin/mypy

bench: setup
	.venv/bin/python bench/engine.py

# Rewrite the Python lockfiles from pyproject.toml (README, "Dependencies"): kept pins stay
# unless pyproject.toml needs another version; `make lock LOCK_ARGS=--upgrade` takes the
# newest versions its bounds allow; `LOCK_ARGS="-P uvicorn"` upgrades just one package.
# requirements/dev.txt holds the `dev` and `ml` extras (the tests of engine/envs need both).
PIP_COMPILE = .venv/bin/pip-compile --quiet --generate-hashes --allow-unsafe --strip-extras \
	--no-emit-index-url --no-emit-find-links --all-build-deps --no-header $(LOCK_ARGS)

lock:
	[ -x .venv/bin/pip-compile ] || ./scripts/setup.sh
	$(PIP_COMPILE) -o requirements/service.txt pyproject.toml
	$(PIP_COMPILE) --extra dev --extra ml -c requirements/service.txt -o requirements/dev.txt pyproject.toml
	./scripts/setup.sh
