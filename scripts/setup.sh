#!/usr/bin/env bash
# Installs what the app needs, idempotently: a virtualenv with pinned Python requirements, bun, and in
# development axe-core (the browser tests inject its axe.min.js into pages to check their accessibility), the
# stripe npm package (its published types, for dev/stripe_types.py) and Debian's clamav-daemon and clamav (the
# security scans' ClamAV daemon and sigtool).
#   scripts/setup.sh          development (`make setup`, for `make run` and `make test`): requirements-dev.txt,
#                             i.e. the runtime requirements plus test tools, local stand-ins and linters
#   scripts/setup.sh runtime  production: requirements.txt only, in a virtualenv that holds nothing else
# VENV_DIR picks the virtualenv (default .venv). Quick when nothing changed: the virtualenv keeps a copy of what
# it was installed from (the mode and both files' content) and installs again only when that differs.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
VENV="${VENV_DIR:-.venv}"
MODE="${1:-dev}"
case "$MODE" in
  dev) FILES=(requirements.txt requirements-dev.txt) ;;
  runtime) FILES=(requirements.txt) ;;
  *) echo "usage: $0 [dev|runtime]" >&2; exit 2 ;;
esac
WANTED="$(printf '# %s\n' "$MODE"; cat "${FILES[@]}")"
STAMP="$VENV/.requirements.installed"
installed() { cat "$STAMP" 2>/dev/null || true; }

if [ "$MODE" = runtime ] && [ -e "$VENV" ] && [ "$(installed)" != "$WANTED" ]; then
  # pip never removes what a requirements file no longer names: start from an empty virtualenv.
  echo "==> emptying $VENV (runtime requirements changed)"
  rm -rf "$VENV"
fi
if [ ! -x "$VENV/bin/python" ]; then
  echo "==> creating virtualenv $VENV"
  "$PYTHON" -m venv "$VENV"
fi
if [ "$(installed)" != "$WANTED" ]; then
  echo "==> installing pinned Python requirements (${FILES[-1]})"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "${FILES[-1]}"
  printf '%s\n' "$WANTED" > "$STAMP"
fi
if [ ! -x .tools/node_modules/.bin/bun ]; then
  echo "==> installing bun (npm package) into .tools"
  mkdir -p .tools
  (cd .tools && npm install --silent --no-audit --no-fund --prefix . bun@1.4.5 >/dev/null)
fi
if [ "$MODE" = dev ] && { ! command -v sigtool >/dev/null || [ ! -x /usr/sbin/clamd ]; }; then
  # The security scans speak to ClamAV's daemon; `make run` and the tests start their own with an offline
  # signature database built by sigtool (dev/clamav.py). Production: docs/deploy.md.
  echo "==> installing clamav-daemon and clamav (Debian packages)"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq clamav-daemon clamav >/dev/null
fi
AXE_CORE=4.14.1
if [ "$MODE" = dev ] && ! grep -qs "\"version\": \"$AXE_CORE\"" .tools/node_modules/axe-core/package.json; then
  echo "==> installing axe-core $AXE_CORE (npm package, for the browser tests) into .tools"
  mkdir -p .tools
  (cd .tools && npm install --silent --no-audit --no-fund --save-exact --prefix . "axe-core@$AXE_CORE" >/dev/null)
fi
# The official stripe npm package whose API version is the one the pinned Python SDK sends (its
# cjs/apiVersion.js; the SDK's stripe/_api_version.py): dev/stripe_types.py turns its TypeScript definitions into
# dev/stripe_types.json, which the tests hold the Stripe stand-in to (dev/stripe_standin/README.md).
STRIPE_NPM=23.1.0
if [ "$MODE" = dev ] && ! grep -qs "\"version\": \"$STRIPE_NPM\"" .tools/node_modules/stripe/package.json; then
  echo "==> installing stripe $STRIPE_NPM (npm package, its published types for dev/stripe_types.py) into .tools"
  mkdir -p .tools
  (cd .tools && npm install --silent --no-audit --no-fund --save-exact --prefix . "stripe@$STRIPE_NPM" >/dev/null)
fi
