"""Pages send what changed: the dashboard keeps the lists a visit shows again, `/agents` its filter options.

Reflex sends a delta for every field set, equal or not. These drive the real handlers on a state tree as a tab has
it (the reads against the test database) and read the delta Reflex would send after each visit: an unchanged list
is not in it, a changed one is, and a tab whose user changed never keeps the previous user's lists.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from reflex.state import State

import marketplace.marketplace  # noqa: F401  (registers every page's state)
from marketplace.models import User
from marketplace.services import auth, favorites
from marketplace.state.catalog import BrowseState
from marketplace.state.changes import assign, reset_changed
from marketplace.state.dashboard import DashboardState
from marketplace.state.session import SessionEvents, SessionState
from tests.factories import make_agent, make_purchase, make_user

LISTS = ("purchases", "orders", "favorites", "agents_owned", "completed_orders", "total_spent")


class Tab:
    """One browser tab's state tree; `signed_in` is who the session cookie says (SessionEvents.load's part)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.root = State(_reflex_internal_init=True)  # type: ignore[call-arg]
        self.viewer: User | None = None  # whom the tab's session cookie belongs to

        def token(_state: object) -> str | None:
            return "session-token" if self.viewer is not None else None

        for state in (DashboardState, BrowseState, SessionEvents):
            monkeypatch.setattr(state, "_token", token)
        monkeypatch.setattr(auth, "user_for_token", lambda _token: self.viewer)

    def state(self, cls: type) -> Any:
        return self.root.get_substate(cls.get_full_name().split(".")[1:])

    def sign_in(self, user: User | None) -> None:
        self.viewer = user
        self.state(SessionState)._apply(user)

    def deltas(self, cls: type, handler: str, **payload: Any) -> list[dict[str, Any]]:
        """Run a handler as Reflex does (a delta at each yield and at the end); each delta's fields of `cls`,
        names without Reflex's marker."""
        state = self.state(cls)
        self.root._clean()
        sent: list[dict[str, Any]] = []

        def take() -> None:
            delta = self.root.get_delta().get(cls.get_full_name(), {})
            sent.append({key.removesuffix("_rx_state_"): value for key, value in delta.items()})
            self.root._clean()

        async def run() -> None:
            result = cls.event_handlers[handler].fn(state, **payload)
            if hasattr(result, "__aiter__"):
                async for _ in result:
                    take()
            elif asyncio.iscoroutine(result):
                await result
            take()

        asyncio.run(run())
        return sent

    def visit_dashboard(self) -> list[dict[str, Any]]:
        dashboard = self.state(DashboardState)
        if not dashboard.time_zone:  # the browser's answer to the first visit's question
            self.deltas(DashboardState, "on_load")
            return self.deltas(DashboardState, "load_data", zone_name="Europe/Berlin")
        return self.deltas(DashboardState, "on_load")


@pytest.fixture
def tab(monkeypatch: pytest.MonkeyPatch) -> Iterator[Tab]:
    yield Tab(monkeypatch)


def _sent(deltas: list[dict[str, Any]]) -> set[str]:
    return {name for delta in deltas for name in delta}


def test_a_second_visit_sends_none_of_the_unchanged_lists(tab: Tab):
    buyer = make_user()
    make_purchase(buyer, make_agent())
    tab.sign_in(buyer)
    first = tab.visit_dashboard()
    assert {"purchases", "agents_owned"} <= _sent(first)
    assert len(tab.state(DashboardState).purchases) == 1

    again = tab.visit_dashboard()
    assert _sent(again) & set(LISTS) == set()
    assert again[0] == {"loading": True} and again[-1] == {"loading": False}
    assert len(tab.state(DashboardState).purchases) == 1


def test_a_list_that_changed_is_sent_on_the_next_visit(tab: Tab):
    buyer = make_user()
    make_purchase(buyer, make_agent())
    tab.sign_in(buyer)
    tab.visit_dashboard()

    liked = make_agent()
    favorites.add_favorite(actor=buyer, agent_id=liked.id)
    make_purchase(buyer, bought := make_agent())
    again = tab.visit_dashboard()
    assert {"favorites", "purchases", "orders", "agents_owned", "total_spent"} <= _sent(again)
    dashboard = tab.state(DashboardState)
    assert [f.id for f in dashboard.favorites] == [liked.id]
    assert bought.id in {p.agent_id for p in dashboard.purchases}


def test_another_user_in_the_same_tab_never_sees_the_previous_lists(tab: Tab):
    first_user, second_user = make_user(), make_user()
    make_purchase(first_user, make_agent())
    favorites.add_favorite(actor=first_user, agent_id=make_agent().id)
    tab.sign_in(first_user)
    tab.visit_dashboard()

    tab.sign_in(second_user)  # signed out and in again as someone else, in the same tab
    deltas = tab.visit_dashboard()
    # The first delta (the page loading) already empties them, before the second user's reads are done.
    assert deltas[0]["purchases"] == [] and deltas[0]["favorites"] == []
    dashboard = tab.state(DashboardState)
    assert (dashboard.purchases, dashboard.favorites, dashboard.agents_owned) == ([], [], 0)

    tab.sign_in(None)  # signed out: nothing of anyone's stays
    tab.sign_in(first_user)
    tab.visit_dashboard()
    tab.sign_in(None)
    signed_out = tab.visit_dashboard()
    assert signed_out[0]["purchases"] == [] and signed_out[0]["favorites"] == []
    assert (dashboard.purchases, dashboard.favorites) == ([], [])


def test_signing_out_or_another_user_on_any_page_forgets_the_lists(tab: Tab):
    """The tab's states outlive its page loads, and each page load's hydrate sends them: the lists go when the user
    signs out or another user is found signed in, not only on the next dashboard visit."""
    buyer = make_user()
    make_purchase(buyer, make_agent())
    tab.sign_in(buyer)
    tab.visit_dashboard()
    dashboard = tab.state(DashboardState)
    tab.deltas(SessionEvents, "logout")
    assert (dashboard.purchases, dashboard.orders, dashboard.total_spent) == ([], [], "$0.00")

    tab.sign_in(buyer)
    tab.visit_dashboard()
    assert dashboard.purchases != []
    tab.viewer = make_user()  # another sign-in in the browser; this tab's next page load finds it
    tab.deltas(SessionEvents, "load")
    assert (dashboard.purchases, dashboard.orders) == ([], [])
    again = tab.visit_dashboard()
    assert again[0].get("purchases") is None  # emptied before: nothing of the first user's to empty again
    assert dashboard.purchases == []


def test_a_session_that_ended_between_visits_empties_the_lists(tab: Tab):
    buyer = make_user()
    make_purchase(buyer, make_agent())
    tab.sign_in(buyer)
    tab.visit_dashboard()
    tab.viewer = None  # the cookie's session ended; the session state has not heard yet
    deltas = tab.visit_dashboard()
    assert any(delta.get("purchases") == [] for delta in deltas)
    assert tab.state(DashboardState).purchases == []


def test_the_first_visit_asks_the_browsers_time_zone_and_the_next_ones_do_not(tab: Tab):
    tab.sign_in(make_user())
    dashboard = tab.state(DashboardState)
    assert dashboard.time_zone == ""
    tab.visit_dashboard()
    assert dashboard.time_zone == "Europe/Berlin"
    assert tab.deltas(DashboardState, "on_load")[-1].get("time_zone") is None


def test_agents_sends_its_filter_options_only_when_they_change(tab: Tab):
    make_agent()
    tab.sign_in(make_user())
    first = tab.deltas(BrowseState, "on_load")
    assert "cards" in _sent(first)
    again = tab.deltas(BrowseState, "on_load")
    assert _sent(again) & {"category_options", "price_options", "rating_options", "cards", "search", "page"} == set()
    make_agent(price_cents=0)  # a free agent: the price filter's counts change
    changed = tab.deltas(BrowseState, "on_load")
    assert sum("price_options" in delta for delta in changed) == 1
    assert "cards" in _sent(changed)


def test_assign_and_reset_changed_set_only_what_differs(tab: Tab):
    dashboard = tab.state(DashboardState)
    tab.root._clean()
    assert assign(dashboard, tab="purchases", total_spent="$1.00") == ["total_spent"]
    assert dashboard.dirty_vars == {"total_spent"}
    tab.root._clean()
    reset_changed(dashboard, keep=())
    assert dashboard.dirty_vars == {"total_spent"} and dashboard.total_spent == "$0.00"
