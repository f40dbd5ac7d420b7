# Sourced by the Makefile's recipes: project-local tools first, Reflex kept offline and quiet.
# VENV_DIR (default .venv, relative to the project) picks the virtualenv, as for scripts/setup.sh.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
case "${VENV_DIR:-.venv}" in
  /*) _VENV_BIN="$VENV_DIR/bin" ;;
  *) _VENV_BIN="$ROOT/${VENV_DIR:-.venv}/bin" ;;
esac
export PATH="$_VENV_BIN:$ROOT/.tools/node_modules/.bin:$PATH"
unset _VENV_BIN
export REFLEX_USE_SYSTEM_BUN=1
export REFLEX_TELEMETRY_ENABLED=false
export REFLEX_CHECK_LATEST_VERSION=false
if [ -z "${NPM_CONFIG_REGISTRY:-}" ]; then
  NPM_CONFIG_REGISTRY="$(npm config get registry 2>/dev/null)"
  export NPM_CONFIG_REGISTRY
fi
# Without Redis (SQLite runs) Reflex keeps states on disk. Its default 2 s write debounce makes the writer task
# wake for every queued tab and list and stat the whole states folder each time (a third of the worker's GIL
# time at 40 browsers, benchmarks/README.md "Websocket load"); written at once, the folder is swept hourly.
export REFLEX_STATE_MANAGER_DISK_DEBOUNCE="${REFLEX_STATE_MANAGER_DISK_DEBOUNCE:-0}"
