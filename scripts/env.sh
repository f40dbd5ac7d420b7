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
# Reflex's opportunistic lock (a worker keeps a tab's state and Redis lock across the tab's events for
# REFLEX_OPLOCK_HOLD_TIME instead of locking, loading and saving per event) is off. Measured
# (benchmarks/README.md "Websocket load"): with one worker saturated by 200 browsers it cost more than it saved
# (24 against 22 ms of CPU per step); only at 40 browsers did it pay (state handling 5.5 -> 2.1 ms per step).
# Off is also Reflex's default, the path its users run most. With it on, three of four runs of the whole browser
# suite had failed a test whose page update never came; with it off, one run of two did (scripts/test.sh), so
# the lock is not shown to be their cause. `true` turns it on (tests/unit/test_state_lease.py keeps it working
# across workers).
export REFLEX_OPLOCK_ENABLED="${REFLEX_OPLOCK_ENABLED:-false}"
# Pinned for when it is on: Reflex's default is half the lock expiry, which rxconfig.py raises to 30 s.
export REFLEX_OPLOCK_HOLD_TIME="${REFLEX_OPLOCK_HOLD_TIME:-5s}"
