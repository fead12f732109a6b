#!/usr/bin/env bash
# One idempotent set-up for a fresh Debian machine: system packages, the Python virtual
# environment with the locked packages and the project installed, and the built web client. Both README commands
# (make serve, make test) run it first, so neither needs anything installed by hand.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v redis-server >/dev/null 2>&1 || need_apt+=(redis-server)
# HAProxy: `cardtable balance` (N server processes behind one port) and its test.
command -v haproxy >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ] || need_apt+=(haproxy)
[ -x /usr/bin/chromium ] || need_apt+=(chromium)
# nginx: the front-proxy example (deploy/nginx/) run in front of the service by its test.
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need_apt+=(nginx)
if [ "${#need_apt[@]}" -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  echo "setup: installing Debian packages: ${need_apt[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
# The exact versions of the lockfile (requirements/dev.txt: the service's packages and the
# test tools, each with its hashes), then the project itself without resolving anything
# again. After pyproject.toml changes, `make lock` rewrites the lockfile.
stamp=.venv/.installed
if [ ! -f "$stamp" ] || [ requirements/dev.txt -nt "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  .venv/bin/pip install -q --require-hashes -r requirements/dev.txt
  .venv/bin/pip install -q --no-deps --no-build-isolation -e .
  if ! .venv/bin/pip check >/dev/null; then
    .venv/bin/pip check || true
    echo "setup: requirements/*.txt do not satisfy pyproject.toml: run \`make lock\`" >&2
    exit 1
  fi
  touch "$stamp"
fi

if [ -f client-web/package.json ]; then
  (
    cd client-web
    if [ ! -d node_modules ] || [ package-lock.json -nt node_modules ]; then
      npm ci --no-audit --no-fund --loglevel=error
    fi
    npm run --silent build
  )
fi
