#!/usr/bin/env bash
# `make test`: lint, unit + API tests on SQLite (and on PostgreSQL when TEST_DATABASE_URL is set),
# then the browser tests against one shared build of the app.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/env.sh
source scripts/env.sh
export PYTHONDONTWRITEBYTECODE=1

echo "==> ruff"
ruff check .

echo "==> unit and API tests (SQLite)"
env -u TEST_DATABASE_URL python -m pytest tests/unit tests/api -q -p no:cacheprovider

if [ -n "${TEST_DATABASE_URL:-}" ]; then
  echo "==> unit and API tests (PostgreSQL)"
  python -m pytest tests/unit tests/api -q -p no:cacheprovider
fi

echo "==> browser tests"
env -u TEST_DATABASE_URL python -m pytest tests/e2e -q -p no:cacheprovider
