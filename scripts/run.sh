#!/usr/bin/env bash
# `make run`: migrate, load demo data and serve the app (pages, /api, websocket) on one port.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/env.sh
source scripts/env.sh
export PORT="${PORT:-3000}"
export PUBLIC_URL="${PUBLIC_URL:-http://localhost:$PORT}"
# Demo mode (role switcher, demo data, dev mailbox, the development SECRET_KEY accepted) is for this local run:
# on unless DEMO_MODE says otherwise (`DEMO_MODE=0 make run`) or APP_ENV is set to anything but local.
if [ -z "${DEMO_MODE:-}" ]; then
  if [ "${APP_ENV:-local}" = "local" ]; then DEMO_MODE=1; else DEMO_MODE=0; fi
fi
export DEMO_MODE

CHILDREN=()
trap 'kill "${CHILDREN[@]}" 2>/dev/null' EXIT
trap 'exit 143' TERM INT

python -m marketplace.migrate
# Demo data (accounts with published passwords) only with demo mode, unless DEMO_DATA says otherwise.
case "${DEMO_MODE,,}" in 1|true|yes|on) DEMO_DATA="${DEMO_DATA:-1}" ;; *) DEMO_DATA="${DEMO_DATA:-0}" ;; esac
if [ "$DEMO_DATA" = "1" ]; then
  python -m marketplace.services.demo
fi
if [ -z "${SMTP_URL:-}" ]; then
  # No SMTP relay configured: a local catcher keeps the mail (shown to admins at /dev/mail in demo mode).
  MAIL_PORT="${MAIL_CATCHER_PORT:-1025}"
  export SMTP_URL="smtp://127.0.0.1:$MAIL_PORT" DEV_MAILBOX_FILE="${DEV_MAILBOX_FILE:-$PWD/data/dev-mailbox.jsonl}"
  python -m dev.mail_catcher --port "$MAIL_PORT" --mailbox "$DEV_MAILBOX_FILE" &
  CHILDREN+=($!)
fi
if [ -z "${CLAMD_SOCKET:-}" ]; then
  # No ClamAV daemon configured: one of our own, with an offline signature database built by sigtool (the EICAR
  # test signature) under data/clamav/ (CLAMAV_DIR; dev/clamav.py). Production: freshclam's databases
  # (docs/deploy.md).
  CLAMAV_DIR="${CLAMAV_DIR:-$PWD/data/clamav}"
  export CLAMD_SOCKET="$CLAMAV_DIR/clamd.sock"
  python -m dev.clamav --dir "$CLAMAV_DIR" &
  CHILDREN+=($!)
  python - "$CLAMD_SOCKET" <<'PY'
import socket, sys, time
deadline = time.monotonic() + 60
while True:
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(sys.argv[1]); s.sendall(b"zPING\0")
            if s.recv(8).startswith(b"PONG"):
                break
    except OSError:
        pass
    if time.monotonic() > deadline:
        sys.exit("clamd did not start")
    time.sleep(0.1)
PY
fi
if [ -z "${STRIPE_SECRET_KEY:-}" ]; then
  # No Stripe keys: payments go to the local stand-in (localstripe + our compatibility layer), whose objects
  # (connected accounts, payouts...) persist in a state file next to the app's data.
  STANDIN_PORT="${STRIPE_STANDIN_PORT:-8420}"
  STANDIN_STATE="${STRIPE_STANDIN_STATE:-data/stripe-standin.pickle}"
  mkdir -p "$(dirname "$STANDIN_STATE")"
  export STRIPE_API_BASE="http://127.0.0.1:$STANDIN_PORT" STRIPE_SECRET_KEY=sk_test_standin \
         STRIPE_PUBLISHABLE_KEY=pk_test_standin STRIPE_WEBHOOK_SECRET=whsec_local_standin
  standin() {  # the stand-in in the background, with the given extra options, once it answers
    python -m dev.stripe_standin --port "$STANDIN_PORT" --quiet --state-file "$STANDIN_STATE" "$@" &
    STANDIN_PID=$!
    CHILDREN+=("$STANDIN_PID")
    python - "$STRIPE_API_BASE/_standin/health" <<'PY'
import sys, time, httpx
deadline = time.monotonic() + 30
while True:
    try:
        if httpx.get(sys.argv[1], timeout=1).status_code == 200:
            break
    except httpx.HTTPError:
        pass
    if time.monotonic() > deadline:
        sys.exit("stripe stand-in did not start")
    time.sleep(0.1)
PY
  }
  if [ "$DEMO_DATA" = "1" ]; then
    # The demo vendor's connected account with a payout history, and the demo customer's subscriptions and
    # refund (dev/stripe_standin/seed_demo.py, seed_billing.py), seeded before the app serves: the stand-in runs
    # without its webhook endpoint meanwhile (the seed applies those events itself, as the app's handlers do;
    # delivering them to an app that is not up yet would only make each test-clock step wait for retries).
    standin
    python -m dev.stripe_standin.seed_demo --api-base "$STRIPE_API_BASE"
    kill "$STANDIN_PID" && wait "$STANDIN_PID" || true  # it writes its state file as it stops
  fi
  standin --webhook-url "$PUBLIC_URL/api/stripe/webhook" --webhook-secret "$STRIPE_WEBHOOK_SECRET"
fi
echo "==> serving on $PUBLIC_URL"
reflex run --env prod --single-port --loglevel warning
