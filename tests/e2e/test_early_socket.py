"""The event websocket is opened by the HTML (marketplace/early_socket.py) and Reflex adopts it: one
connection per cold load, made while the document is still being parsed, and it carries the page's events."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import open_page
from tests.e2e.helpers import sign_in

pytestmark = pytest.mark.e2e

# Records each real connection to the event endpoint: when it was dialled (document.readyState) and its token.
RECORD_SOCKETS = """
(() => {
  const Native = window.WebSocket;
  window.__eventSockets = [];
  window.WebSocket = function (href, protocols) {
    if (String(href).includes("/_event")) {
      window.__eventSockets.push({state: document.readyState, token: new URL(href).searchParams.get("token")});
    }
    return protocols === undefined ? new Native(href) : new Native(href, protocols);
  };
  window.WebSocket.prototype = Native.prototype;
  Object.assign(window.WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
})();
"""


def _sockets(page: Page) -> list[dict[str, str]]:
    return page.evaluate("window.__eventSockets")


@pytest.mark.parametrize("path", ["/agents", "/agents/does-not-exist"])
def test_a_cold_load_dials_the_event_socket_once_while_the_html_is_parsed(page: Page, path: str) -> None:
    """`/agents/...` has no prerendered page (the frame is the fallback HTML): the script is in that HTML too."""
    page.add_init_script(RECORD_SOCKETS)
    open_page(page, path)
    expect(page.locator("#hydrated")).to_be_attached()
    token = page.evaluate("sessionStorage.getItem('token')")
    assert _sockets(page) == [{"state": "loading", "token": token}]


def test_the_adopted_socket_carries_a_signed_in_session(page: Page) -> None:
    """A full load of a signed-in page: the session's token is already saved, the early socket uses it and the
    server's answer to the page's first event (the user's dashboard) arrives on it."""
    page.add_init_script(RECORD_SOCKETS)
    sign_in(page, "customer", "customer123")
    open_page(page, "/dashboard")
    expect(page.locator("#purchase-grid, #purchases-empty").first).to_be_visible()
    expect(page.locator("#summary-agents-value")).not_to_be_empty()
    token = page.evaluate("sessionStorage.getItem('token')")
    assert _sockets(page) == [{"state": "loading", "token": token}]


def test_a_duplicated_tab_gets_its_own_session_and_both_tabs_keep_working(page: Page) -> None:
    """Duplicating a tab copies its sessionStorage, token included: the copy's early socket connects with the
    original's token, the server answers `new_token` on it before Reflex has adopted it, and the replayed message
    must still reach Reflex, or both tabs would share one state."""
    open_page(page, "/agents?category=marketing")
    expect(page.locator("#result-count")).to_have_text("3 agents found")
    original = page.evaluate("sessionStorage.getItem('token')")

    copy = page.context.new_page()
    copy.add_init_script(RECORD_SOCKETS)
    copy.add_init_script(f"""if (!sessionStorage.getItem("duplicated")) {{
        sessionStorage.setItem("duplicated", "1");
        sessionStorage.setItem("token", {original!r});
    }}""")
    open_page(copy, "/agents")
    assert _sockets(copy) == [{"state": "loading", "token": original}]
    copy.wait_for_function("token => sessionStorage.getItem('token') !== token", arg=original)
    copy.fill("#agent-search", "blog")
    expect(copy.locator("#agents-grid .agent-name").first).to_have_text("BlogSmith")

    expect(page.locator("#result-count")).to_have_text("3 agents found")
    expect(page.locator("#category-filter")).to_have_text(re.compile(r"^Marketing \(\d+\)$"))
    page.click("#clear-filters-top")
    expect(page.locator("#category-filter")).to_have_text("All categories")
    expect(copy.locator("#agents-grid .agent-name").first).to_have_text("BlogSmith")
    assert page.evaluate("sessionStorage.getItem('token')") == original
