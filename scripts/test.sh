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
.venv/bin/python -m pip install --quiet -e '.[test]'
.venv/bin/ruff check src tests bench
.venv/bin/mypy src
.venv/bin/python -m pytest -q "$@"
