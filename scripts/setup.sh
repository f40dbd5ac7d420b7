#!/usr/bin/env bash
# Installs everything the app needs, idempotently: virtualenv + pinned requirements, bun, frontend packages.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"

if [ ! -x .venv/bin/python ]; then
  echo "==> creating virtualenv"
  "$PYTHON" -m venv .venv
fi
if ! cmp -s requirements.txt .venv/.requirements.installed; then
  echo "==> installing pinned Python requirements"
  .venv/bin/pip install --quiet --disable-pip-version-check -r requirements.txt
  cp requirements.txt .venv/.requirements.installed
fi
if [ ! -x .tools/node_modules/.bin/bun ]; then
  echo "==> installing bun (npm package) into .tools"
  mkdir -p .tools
  (cd .tools && npm install --silent --no-audit --no-fund --prefix . bun@1.4.5 >/dev/null)
fi
