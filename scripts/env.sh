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
