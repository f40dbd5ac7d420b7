"""The websocket load generator (benchmarks/ws_browser.py) sends events the app handles: each name resolves to a
handler through Reflex's own lookup, with the payload keys the handler takes, and each field it waits for exists.
Renaming a handler or a field breaks this test, not the benchmark silently."""

from __future__ import annotations

import pytest
import reflex as rx

from benchmarks import ws_browser
from marketplace import marketplace  # noqa: F401 - registers every page's states, as the server does


def _state(full_name: str) -> type[rx.State]:
    """The state class a full name points at, walked from the root as Reflex dispatches an event."""
    root = rx.State.get_root_state()
    parts = tuple(full_name.split(".")[1:])
    return root.get_class_substate(parts) if parts else root


@pytest.mark.parametrize("key", sorted(ws_browser.EVENTS))
def test_each_event_name_resolves_to_the_handler_the_page_calls(key: str):
    name = ws_browser.event_name(ws_browser.EVENTS[key])
    state_path, _, handler_name = name.rpartition(".")
    state = _state(state_path)
    assert state.get_full_name() == state_path
    assert handler_name in state.event_handlers
    assert state.event_handlers[handler_name].fn is ws_browser.EVENTS[key].fn


def test_payloads_carry_the_handlers_arguments():
    keys = ws_browser.PAYLOAD_KEYS
    assert keys["set_search"] == keys["set_category"] == ["value"]
    assert keys["submit_review"] == ["form"]
    assert keys["payment_succeeded"] == ["payment_intent_id"]
    assert set(keys["hydrate_and_load"]) >= {"hashes"}
    browser = ws_browser.Browser(site=None, session="s", address="198.18.0.1", http=None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="takes no"):
        browser._event("set_search", {"text": "typo"})
    sent = browser._event("set_search", {"value": "inv"}, {"agent_id": "a1", "order": "o 1"})
    assert sent["router_data"]["asPath"] == "/?order=o+1"


def test_the_fields_it_waits_for_are_state_fields():
    waited = [value for name, value in vars(ws_browser).items() if name.isupper() and isinstance(value, tuple)]
    assert len(waited) >= 10
    for state_path, field in waited:
        assert field.removesuffix("_rx_state_") in _state(state_path).vars, (state_path, field)
