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
# With Redis, a worker keeps a tab's state in memory (holding the tab's Redis lock) across the tab's events for
# REFLEX_OPLOCK_HOLD_TIME (5 s), instead of locking, loading and pickling
# it back for every event; another worker that wants the tab (a page reconnected elsewhere) breaks the lease at
# once and sees every change (tests/unit/test_state_lease.py). No state is written from outside a tab's own
# events here (no `app.modify_state`, no background events). A worker killed without SIGTERM loses its tabs'
# changes since their last write-back (at most the hold time; pages rebuild from the database on load).
export REFLEX_OPLOCK_ENABLED="${REFLEX_OPLOCK_ENABLED:-true}"
# Pinned: Reflex's default is half the lock expiry, which rxconfig.py raises to 30 s for the write-back's sake.
export REFLEX_OPLOCK_HOLD_TIME="${REFLEX_OPLOCK_HOLD_TIME:-5s}"
