#!/usr/bin/env bash
# Makes ./.venv with Teahouse and its Python SDK (editable installs of this checkout: the server,
# and clients/python, the SDK's own distribution the server depends on) and its test tools.
#   ./deploy/bootstrap.sh                the runtime and the test extras (pytest, mypy, Playwright...)
#   ./deploy/bootstrap.sh --runtime      the runtime dependencies only: what `make serve` needs
#   ./deploy/bootstrap.sh --with-redis   the test extras, and redis-server, haproxy, chromium on the machine
# Idempotent: a second run only checks. Used by the Makefile's targets.
set -euo pipefail
cd "$(dirname "$0")/.."

extras="[test]"; machine=""
for arg in "$@"; do
  case "$arg" in
    --runtime) extras="" ;;
    --with-redis) machine=1 ;;
    *) echo "usage: $0 [--runtime | --with-redis]" >&2; exit 2 ;;
  esac
done

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
# One stamp per mode; an install with the test extras holds the runtime too.
with_tests=.venv/.teahouse-installed
runtime_only=.venv/.teahouse-installed-runtime
fresh() { [ -f "$1" ] && [ ! pyproject.toml -nt "$1" ] && [ ! clients/python/pyproject.toml -nt "$1" ]; }
if [ -n "$extras" ]; then stamp=$with_tests; else stamp=$runtime_only; fi
if ! fresh "$stamp" && ! fresh "$with_tests"; then
  .venv/bin/python -m pip install --quiet --upgrade pip
  # Both in one command, so that the server's dependency on teahouse-client is this checkout's.
  .venv/bin/python -m pip install --quiet -e ./clients/python -e ".$extras"
  touch "$stamp"
fi

if [ -n "$machine" ]; then
  # The integration tests need redis-server (and redis-cli for the cluster tests); the
  # balancer tests put Debian's haproxy in front of real nodes; the browser tests drive
  # Debian's chromium (never a browser build downloaded by Playwright).
  missing=()
  command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
  command -v redis-cli >/dev/null 2>&1 || missing+=(redis-tools)
  command -v haproxy >/dev/null 2>&1 || missing+=(haproxy)
  [ -x /usr/bin/chromium ] || missing+=(chromium)
  # Node runs the JS SDK's tests; npm installs the pinned test packages (TypeScript, axe-core)
  command -v node >/dev/null 2>&1 || missing+=(nodejs)
  command -v npm >/dev/null 2>&1 || missing+=(npm)
  if [ ${#missing[@]} -gt 0 ]; then
    echo "${missing[*]} missing: installing with apt-get" >&2
    export DEBIAN_FRONTEND=noninteractive
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
fi
