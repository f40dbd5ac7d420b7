"""Reflex loads (and pickles back) every substate of the state an event is sent to, plus every state whose computed
vars read its fields. The session's own events, sent on every page load, must load the session and nothing of the
pages' (when every page state subclassed `SessionState`, one unpickled tab of 39 states held a worker's event loop
for over 100 ms); so must a page's own events, whose tabs are its substates."""

from __future__ import annotations

from reflex.istate.manager.redis import StateManagerRedis
from reflex.state import State

import marketplace.marketplace  # noqa: F401  (registers every page's state)
from marketplace.state.admin.page import AdminEvents, AdminState
from marketplace.state.dashboard import DashboardState
from marketplace.state.session import SessionEvents, SessionState


def _loaded_for(state: type) -> set[type]:
    """The states the Redis state manager fetches for an event sent to `state` (its own rule, not a copy)."""
    return StateManagerRedis._get_required_state_classes(object.__new__(StateManagerRedis), state, subclasses=True)


def test_a_session_event_loads_the_session_alone():
    assert _loaded_for(SessionEvents) == {SessionEvents, SessionState, State}


def test_an_admin_page_event_loads_no_tab():
    """The admin page's thirteen tabs are substates of AdminState; opening one must not unpickle the others."""
    assert _loaded_for(AdminEvents) == {AdminEvents, AdminState, State}
    own = set(AdminState.event_handlers) - set(State.event_handlers) - {"viewer", "refresh_counts_quietly"}
    assert own == set(), f"move {sorted(own)} to AdminEvents"


def test_no_page_state_computes_from_the_session_fields():
    assert SessionState._get_potentially_dirty_states() == {SessionState}


def test_the_session_state_itself_has_no_handlers():
    own = set(SessionState.event_handlers) - set(State.event_handlers) - {"viewer"}  # a helper no page sends
    assert own == set(), f"move {sorted(own)} to SessionEvents: an event on SessionState loads the whole tab"


def test_the_dashboard_form_compares_with_the_profile_it_opened_with():
    state = DashboardState(_reflex_internal_init=True)  # type: ignore[call-arg]
    state.saved_first_name, state.saved_last_name, state.saved_email = "Ada", "Lovelace", "ada@example.com"
    state.form_first_name, state.form_last_name, state.form_email = "Ada", "Lovelace", "ada@example.com"
    assert not state.profile_changed and not state.email_changing
    state.form_email = " ADA@example.com "
    assert state.profile_changed and not state.email_changing
    state.form_email = "ada@example.org"
    assert state.email_changing
