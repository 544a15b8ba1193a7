#!/usr/bin/env bash
# Makes ./.venv with Teahouse and its test tools installed, and a redis-server on PATH.
# Idempotent: a second run only checks. Used by `make serve` and `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
stamp=.venv/.teahouse-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -e '.[test]'
  touch "$stamp"
fi

if [ "${1:-}" = "--with-redis" ]; then
  # The integration tests need redis-server (and redis-cli for the cluster tests); the
  # balancer tests put Debian's haproxy in front of real nodes; the browser tests drive
  # Debian's chromium (never a browser build downloaded by Playwright).
  missing=()
  command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
  command -v redis-cli >/dev/null 2>&1 || missing+=(redis-tools)
  command -v haproxy >/dev/null 2>&1 || missing+=(haproxy)
  [ -x /usr/bin/chromium ] || missing+=(chromium)
  if [ ${#missing[@]} -gt 0 ]; then
    echo "${missing[*]} missing: installing with apt-get" >&2
    export DEBIAN_FRONTEND=noninteractive
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
fi
