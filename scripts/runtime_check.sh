#!/usr/bin/env bash
# The runtime requirements are enough to run the app in production: a virtualenv with requirements.txt only
# (.venv-runtime, kept while the file does not change), the app started as docs/deploy.md starts it
# (scripts/run.sh with APP_ENV=production, demo mode off, PostgreSQL, real-looking SMTP and Stripe settings, so no
# local stand-in starts), then `/`, `/agents` and `GET /api/agents` must answer 200 and a demo route 404.
# Needs TEST_DATABASE_URL (PostgreSQL): the app gets a database of its own beside it, `<name>_runtime`, made empty.
# Run by `make test` (scripts/test.sh) when TEST_DATABASE_URL is PostgreSQL; alone: `scripts/test.sh runtime`.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ "${TEST_DATABASE_URL:-}" != postgresql* ]]; then
  echo "runtime check: TEST_DATABASE_URL must be a PostgreSQL URL" >&2
  exit 2
fi
STARTED=$SECONDS
export VENV_DIR=.venv-runtime
bash scripts/setup.sh runtime
# Only the runtime virtualenv: the development one (on PATH when `make test` runs this) must not stand in.
PATH="$(printf '%s' "$PATH" | tr ':' '\n' | grep -vxF "$PWD/.venv/bin" | paste -sd: -)"
unset VIRTUAL_ENV
# shellcheck source=scripts/env.sh
source scripts/env.sh  # .venv-runtime/bin first on PATH: every `python` and `reflex` below is the runtime one
VENV_SECONDS=$((SECONDS - STARTED))

DATABASE_URL="$(python - "$TEST_DATABASE_URL" <<'PY'
import sys
from urllib.parse import urlsplit

import psycopg
from psycopg import sql

base = urlsplit(sys.argv[1])
name = f"{base.path.lstrip('/') or 'postgres'}_runtime"
with psycopg.connect(sys.argv[1], autocommit=True) as conn:
    conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
    conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
print(base._replace(path=f"/{name}").geturl())
PY
)"
free_port() { python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
PORT="$(free_port)"
TMP="$(mktemp -d)"
LOG="$TMP/app.log"
APP_PID=""
stop() {
  if [ -n "$APP_PID" ] && kill -0 "$APP_PID" 2>/dev/null; then
    kill -TERM -- "-$APP_PID" 2>/dev/null || true  # its process group: run.sh, reflex and the server's workers
    for _ in $(seq 100); do kill -0 "$APP_PID" 2>/dev/null || break; sleep 0.2; done
    kill -KILL -- "-$APP_PID" 2>/dev/null || true
  fi
  rm -rf "$TMP"
}
trap stop EXIT

# Only what production sets (docs/deploy.md); nothing here reaches SMTP or Stripe while the pages load.
env -u REDIS_URL -u STRIPE_API_BASE -u DEV_MAILBOX_FILE -u QUEUE_IMMEDIATE \
  APP_ENV=production DEMO_MODE=0 DEMO_DATA=0 \
  SECRET_KEY="$(python -c 'import secrets; print(secrets.token_urlsafe(48))')" \
  PORT="$PORT" PUBLIC_URL="http://localhost:$PORT" DATABASE_URL="$DATABASE_URL" \
  STORAGE_BACKEND=local STORAGE_DIR="$TMP/files" QUEUE_FILE="$TMP/queue.db" \
  SMTP_URL="smtp://127.0.0.1:$(free_port)" \
  STRIPE_SECRET_KEY=sk_test_runtime_check STRIPE_PUBLISHABLE_KEY=pk_test_runtime_check \
  STRIPE_WEBHOOK_SECRET=whsec_runtime_check \
  setsid bash scripts/run.sh >"$LOG" 2>&1 &
APP_PID=$!

if ! python - "http://localhost:$PORT" "$APP_PID" <<'PY'
import os
import sys
import time

import httpx

base, pid = sys.argv[1], int(sys.argv[2])
started = time.monotonic()
deadline = started + 600  # each start migrates and builds the frontend
while True:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        sys.exit("the app exited before answering /ping")
    try:
        if httpx.get(f"{base}/ping", timeout=2).status_code == 200:
            break
    except httpx.HTTPError:
        pass
    if time.monotonic() > deadline:
        sys.exit("the app did not answer /ping")
    time.sleep(0.5)
print(f"    /ping answered {time.monotonic() - started:.0f}s after the start (migrations, frontend build)")
checks = {"/": 200, "/agents": 200, "/api/agents": 200, "/api/dev/mail": 404}  # demo routes are off
failed = []
for path, expected in checks.items():
    status = httpx.get(f"{base}{path}", timeout=60).status_code
    print(f"    GET {path}: {status}")
    if status != expected:
        failed.append(f"GET {path} answered {status}, not {expected}")
agents = httpx.get(f"{base}/api/agents", timeout=60).json()
if not isinstance(agents, list):
    failed.append(f"GET /api/agents is not a list of agents: {str(agents)[:200]}")
sys.exit("; ".join(failed) or None)
PY
then
  echo "runtime check failed; the app's log:" >&2
  tail -n 60 "$LOG" >&2
  exit 1
fi
echo "==> runtime check passed in $((SECONDS - STARTED))s (runtime virtualenv ready in ${VENV_SECONDS}s)"
