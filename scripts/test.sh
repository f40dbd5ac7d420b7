#!/usr/bin/env bash
# `make test`: lint (ruff, import contracts, mypy), unit + API tests on SQLite (and on PostgreSQL when TEST_DATABASE_URL
# is set), then the browser tests against one shared build of the app.
# With TEST_DATABASE_URL on PostgreSQL it also proves the runtime requirements alone run the app in production
# mode (scripts/runtime_check.sh). `scripts/test.sh unit` (`make test-unit`) stops after the unit + API tests;
# `scripts/test.sh e2e` (`make test-e2e`) runs the browser tests only; `scripts/test.sh runtime` the runtime check.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/env.sh
source scripts/env.sh
export PYTHONDONTWRITEBYTECODE=1
PART="${1:-all}"

redis_answers() {  # the local Redis (CI's machine runs one)
  python -c "import redis,sys; sys.exit(0 if redis.Redis(socket_timeout=1).ping() else 1)" 2>/dev/null
}
case "$PART" in all|unit|e2e|runtime) ;; *) echo "usage: $0 [all|unit|e2e|runtime]" >&2; exit 2 ;; esac
[ "$PART" = runtime ] && exec bash scripts/runtime_check.sh

if [ "$PART" != e2e ]; then
  echo "==> ruff"
  ruff check .
  echo "==> import contracts (lint-imports; pyproject.toml [tool.importlinter])"
  lint-imports --no-cache --no-logo
  echo "==> types (mypy; pyproject.toml [tool.mypy], cache in .mypy_cache/)"
  mypy

  # Tests marked `redis` (workers sharing state through Redis) run where a Redis answers, each database's run on
  # its own Redis database so that the two runs side by side never touch each other's keys.
  UNIT_MARKS="not e2e"
  redis_answers || UNIT_MARKS="not e2e and not redis"
  UNIT=(python -m pytest tests/unit tests/api -q -p no:cacheprovider -m "$UNIT_MARKS")
  if [ -n "${TEST_DATABASE_URL:-}" ]; then
    # Both databases at once: each run waits on its database most of the time, so on two cores they overlap
    # well. The PostgreSQL run's output is shown when it ends.
    echo "==> unit and API tests (SQLite and PostgreSQL side by side)"
    PG_LOG="$(mktemp)"
    TEST_REDIS_URL=redis://127.0.0.1:6379/5 "${UNIT[@]}" >"$PG_LOG" 2>&1 &
    PG_PID=$!
    SQLITE_STATUS=0
    env -u TEST_DATABASE_URL "${UNIT[@]}" || SQLITE_STATUS=$?
    PG_STATUS=0
    wait "$PG_PID" || PG_STATUS=$?
    echo "==> unit and API tests (PostgreSQL)"
    cat "$PG_LOG"
    rm -f "$PG_LOG"
    if [ "$SQLITE_STATUS" -ne 0 ] || [ "$PG_STATUS" -ne 0 ]; then
      echo "unit and API tests failed (SQLite: $SQLITE_STATUS, PostgreSQL: $PG_STATUS)" >&2
      exit 1
    fi
  else
    echo "==> unit and API tests (SQLite)"
    env -u TEST_DATABASE_URL "${UNIT[@]}"
  fi
fi
[ "$PART" = unit ] && exit 0

if [ "$PART" = all ] && [[ "${TEST_DATABASE_URL:-}" == postgresql* ]]; then
  echo "==> runtime requirements only: the app in production mode on PostgreSQL (.venv-runtime)"
  bash scripts/runtime_check.sh
fi

if [ -n "${TEST_DATABASE_URL:-}" ]; then
  # The production-like set-up: PostgreSQL, and Redis-backed state (several workers) when Redis answers.
  export E2E_DATABASE_URL="$TEST_DATABASE_URL"
  if redis_answers; then
    export E2E_REDIS_URL="redis://127.0.0.1:6379"
  fi
fi
# The scale-out test (two app processes sharing the database, Redis and files) needs PostgreSQL and Redis: it
# runs in this production-like phase only.
MARKS="e2e and not scale_out"
if [[ "${E2E_DATABASE_URL:-}" == postgresql* ]] && [ -n "${E2E_REDIS_URL:-}" ]; then
  MARKS="e2e"
fi
echo "==> browser tests (database: ${E2E_DATABASE_URL:-SQLite}, state: ${E2E_REDIS_URL:-in memory}; -m \"$MARKS\")"
# A browser test that fails is run once more, and the summary prints its first failure in full ("rerun test
# summary info"); a test that fails twice fails the suite. The ones that passed on the second try are open bugs,
# not noise: read them in the summary. Causes found and fixed (issue 35): toasts missed after a stall (recorded as
# they appear, `expect_toast`); the loop watch blaming a state for interpreter-lock and CPU contention
# (marketplace/loop_watch.py); a cold worker's first hydrate paying its one-time costs on the loop
# (marketplace/warm_up.py); a tab's Redis lock left by a cancelled event, which kept the next page from hydrating
# for 30 s (marketplace/state_lock.py). A failure's report shows the page's navigations, console and socket
# frames, and who held the tab's lock (tests/e2e/conftest.py). With PostgreSQL and Redis the suite passed a full
# run without this retry on a quiet host; with the CPU made busy two failures are still open: the vendor
# application's submit click sent no event, and the wizard's Next click after the tags left it on step 1. Both
# are a click whose press takes the focus from a field (which sends its value) and whose release comes after the
# answer: the wizard's reproduced at will that way (press, wait for the answer, release), still lost when Next does
# not move, so not the layout alone; the cause is open. The retry stays until it is fixed.
env -u TEST_DATABASE_URL python -m pytest tests/e2e -q -p no:cacheprovider -m "$MARKS" --reruns 1 --rerun-show-tracebacks
