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
echo "==> serving on $PUBLIC_URL"
exec reflex run --env prod --single-port --loglevel warning
