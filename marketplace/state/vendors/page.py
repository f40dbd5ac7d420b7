"""/vendor and /vendor/apply: who is looking decides the view (sign in again, apply, pending, or the tabs).

The tabs' own data is loaded by their substates when their panel mounts, so a tab costs nothing until opened.
"""

from __future__ import annotations

import json

import reflex as rx
from reflex.event import EventSpec

from marketplace.models import ApplicationStatus, VendorApplication
from marketplace.services import notifications
from marketplace.services.errors import Forbidden, Unauthorized
from marketplace.services.permissions import require_vendor
from marketplace.services.vendors import applications
from marketplace.state import blocking
from marketplace.state.display import BROWSER_TIME_ZONE_JS, format_day, logged_out_again, time_zone
from marketplace.state.session import SessionState, ViewerMixin

TABS = ("dashboard", "notifications", "webhooks")
STRIPE_RETURNS = ("return", "refresh")  # ?stripe= values the account-link flow comes back with


class VendorState(ViewerMixin, rx.State):
    """The view of the vendor area for the current user; reset on every visit."""

    mode: str = "loading"  # loading | signed_out | apply | pending | vendor
    tab: str = "dashboard"
    time_zone: str = "UTC"
    stripe_return: bool = False
    unread_notifications: int = 0
    application_business: str = ""
    application_date: str = ""
    previously_rejected: bool = False

    @rx.event
    async def on_load(self) -> EventSpec | list[EventSpec]:
        self.reset()
        query = self.router.url.query_parameters
        tab = query.get("tab", "")
        self.tab = tab if tab in TABS else "dashboard"
        self.stripe_return = query.get("stripe", "") in STRIPE_RETURNS
        if not (await self.get_state(SessionState)).signed_in:  # SessionState.load, just before, read the user
            self.mode = "signed_out"
            return logged_out_again(on_load=True)
        return rx.call_script(BROWSER_TIME_ZONE_JS, callback=VendorState.load_view)

    @rx.event
    async def load_view(self, zone_name: str) -> list[EventSpec] | None:
        self.time_zone = time_zone(zone_name).key
        user = await self.viewer()
        try:
            require_vendor(user)
        except Unauthorized:
            (await self.get_state(SessionState))._apply(None)
            self.mode = "signed_out"
            return logged_out_again(on_load=True)
        except Forbidden:
            self.show_application(await blocking.run(applications.latest_application, actor=user))
            return None
        self.unread_notifications = await blocking.run(notifications.unread_count, actor=user)
        self.mode = "vendor"
        return None

    def show_application(self, application: VendorApplication | None) -> None:
        """Pending when an application waits, else the form (with a word when the last one was turned down)."""
        status = application.status if application else ""
        self.mode = "pending" if status == ApplicationStatus.PENDING else "apply"
        self.previously_rejected = status == ApplicationStatus.REJECTED
        self.application_business = application.business_name if application else ""
        self.application_date = format_day(application.created_at, time_zone(self.time_zone)) if application else ""

    @rx.event
    def set_tab(self, tab: str) -> EventSpec | None:
        """Switch tabs and put the tab in the address, so reload and links keep it."""
        if tab not in TABS:
            return None
        self.tab = tab
        return rx.call_script(
            "(() => { const u = new URL(window.location.href);"
            f" u.searchParams.set('tab', {json.dumps(tab)}); u.searchParams.delete('stripe');"
            " window.history.replaceState(window.history.state, '', u); })()"
        )
