#!/usr/bin/env bash
# Set up and run the whole test suite: a fresh virtualenv in .venv, the project with its test extras,
# then lint, types and tests. Run from the repository root: bash scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
# Every package at the version pinned in constraints.txt (what a user installs), each file checked against its
# sha256 in requirements.lock: CI installs exactly those bytes or fails. Then the project, with no more deps.
# The lock holds the fast extra's numba too: tests/bots/test_bots_compiled.py fails (never skips) without it.
.venv/bin/python -m pip install --quiet --require-hashes -r requirements.lock
.venv/bin/python -m pip install --quiet --no-deps -e .
# Compile the strong bot's numba kernels once (about 12 s of CPU; cached in src/estimation/bots/__pycache__),
# so that no test, server worker or browser test waits for the compiler in the middle of a game.
.venv/bin/python -c "from estimation.bots.search import compiled_kernels; assert compiled_kernels()"
# The server tests run on SQLite and on PostgreSQL; tests/server/conftest.py starts a throwaway cluster from
# the installed binaries (/usr/lib/postgresql/*/bin) and FAILS when there are none. Install them here when
# we can (root, Debian); set TEST_DATABASE_URL=postgresql+asyncpg://... to use a server of your own instead.
if [ -z "${TEST_DATABASE_URL:-}" ] && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 \
    && ! command -v initdb >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing PostgreSQL for the server tests (apt-get)" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  else
    echo "warning: PostgreSQL is not installed; the PostgreSQL server tests will fail" >&2
  fi
fi
# The bus tests (tests/server/test_bus_*.py) start throwaway redis-server processes and FAIL without the
# binary. Install Debian's redis-server here when we can (root, Debian); its own service is not needed.
if ! command -v redis-server >/dev/null 2>&1 && [ ! -x /usr/bin/redis-server ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing redis-server for the bus tests (apt-get)" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
  else
    echo "warning: redis-server is not installed; the bus tests will fail" >&2
  fi
fi
# The cluster tests (tests/server/test_cluster.py) put Debian's HAProxy in front of several workers and FAIL
# without it. Install it here when we can (root, Debian); HAPROXY=/path overrides.
if [ -z "${HAPROXY:-}" ] && [ ! -x /usr/sbin/haproxy ] && ! command -v haproxy >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing haproxy for the cluster tests (apt-get)" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy >/dev/null
  else
    echo "warning: haproxy is not installed; the cluster tests will fail" >&2
  fi
fi
# The shipped alert rules are checked by promtool (tests/server/test_observability.py), which FAILS without
# it: Debian's prometheus package carries it (its service is not started by the tests).
if [ -z "${PROMTOOL:-}" ] && ! command -v promtool >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing prometheus (promtool) for the alert rules' tests (apt-get)" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus >/dev/null
  else
    echo "warning: promtool is not installed; the alert rules' tests will fail" >&2
  fi
fi
# The browser client's tests (tests/web) drive Debian's chromium through Playwright (never a downloaded
# browser) and FAIL without it. Install it here when we can (root, Debian); CHROMIUM=/path overrides.
if [ -z "${CHROMIUM:-}" ] && [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing chromium for the browser tests (apt-get)" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "warning: /usr/bin/chromium is missing; the browser tests will fail" >&2
  fi
fi
.venv/bin/ruff check src tests bench
.venv/bin/mypy src
# Two workers on the 2-core CI machine (one per core); a file's tests stay on one worker, which starts its own
# PostgreSQL cluster, server and browser.
.venv/bin/python -m pytest -q -n auto --dist loadfile "$@"
