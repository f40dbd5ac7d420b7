#!/usr/bin/env bash
# `make run`: migrate, load demo data and serve the app (pages, /api, websocket) on one port.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/env.sh
source scripts/env.sh
export PORT="${PORT:-3000}"
export PUBLIC_URL="${PUBLIC_URL:-http://localhost:$PORT}"

python -m marketplace.migrate
if [ "${DEMO_DATA:-1}" = "1" ]; then
  python -m marketplace.services.demo
fi
if [ -z "${STRIPE_SECRET_KEY:-}" ]; then
  # No Stripe keys: payments go to the local stand-in (localstripe + our compatibility layer).
  STANDIN_PORT="${STRIPE_STANDIN_PORT:-8420}"
  export STRIPE_API_BASE="http://127.0.0.1:$STANDIN_PORT" STRIPE_SECRET_KEY=sk_test_standin \
         STRIPE_PUBLISHABLE_KEY=pk_test_standin STRIPE_WEBHOOK_SECRET=whsec_local_standin
  python -m dev.stripe_standin --port "$STANDIN_PORT" --quiet \
    --webhook-url "$PUBLIC_URL/api/stripe/webhook" --webhook-secret "$STRIPE_WEBHOOK_SECRET" &
  STANDIN_PID=$!
  trap 'kill "$STANDIN_PID" 2>/dev/null' EXIT
  trap 'exit 143' TERM INT
fi
echo "==> serving on $PUBLIC_URL"
reflex run --env prod --single-port --loglevel warning
