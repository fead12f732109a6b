#!/bin/sh
# A virtualenv with the service's locked dependencies on another interpreter, for
# measuring the server as it is deployed: the Dockerfile's python:3.11-slim is built with
# --enable-optimizations --with-lto (profile-guided and link-time optimized), a pyenv
# build by default with neither. Debian's python3.11 package is an optimized build.
#
#   bench/deploy_venv.sh [PYTHON] [FOLDER]     (defaults: /usr/bin/python3.11 .venv-deploy)
#   .venv/bin/python -m bench.peers.run --server-python .venv/bin/python .venv-deploy/bin/python
set -eu
PY=${1:-/usr/bin/python3.11}
DIR=${2:-.venv-deploy}
cd "$(dirname "$0")/.."
"$PY" -m venv "$DIR"
# --no-deps: exactly the locked set. redis-py needs async-timeout on Python < 3.11.3
# (Debian 12's is 3.11.2); the lock, made on a later 3.11, does not list it.
"$DIR/bin/pip" install -q --no-deps --require-hashes -r requirements/service.txt
if ! "$DIR/bin/python" -c 'import sys; sys.exit(sys.version_info < (3, 11, 3))'; then
  "$DIR/bin/pip" install -q --no-deps async-timeout==5.0.1
fi
"$DIR/bin/python" -c 'import sys, uvloop, redis, starlette; print("ready:", sys.version.split()[0], sys.executable)'
