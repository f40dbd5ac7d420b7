"""/admin: who may look (admins only), which tab is open, and the figures the summary cards and tab labels show.

Each tab's own data is loaded by its substate when its panel mounts. Tabs are addressed by `?tab=`; switching
tabs navigates (a history entry per tab), so Back returns to the previous tab and on_load shows it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import reflex as rx
from reflex.event import EventSpec

from marketplace.models import User
from marketplace.services import money, refunds
from marketplace.services.admin import applications, moderation, people, reports
from marketplace.services.admin import catalog as admin_catalog
from marketplace.services.admin import sales as admin_sales
from marketplace.services.errors import DomainError, Forbidden, Unauthorized
from marketplace.services.permissions import require_admin
from marketplace.state import blocking
from marketplace.state.display import BROWSER_TIME_ZONE_JS, REDIRECT_TO_SIGN_IN, logged_out_again, time_zone
from marketplace.state.service_calls import Shown
from marketplace.state.session import SessionState, ViewerMixin, toast_on_load

LOG = logging.getLogger(__name__)

TABS = ("overview", "customers", "vendors", "agents", "vendor-applications", "agent-approvals", "reports",
        "refunds", "license-keys", "analytics", "stats", "sales", "audit")
ADMIN_ONLY_TITLE = "Unauthorized"
ADMIN_ONLY_MESSAGE = "Admin access required. Redirecting..."
# The browser's time zone and the tab in its address now. An on_load can arrive late (its router data is that of
# the navigation that queued it, and Back can overtake it), so the tab the page shows comes from the live address.
VIEW_JS = f"[{BROWSER_TIME_ZONE_JS}, new URLSearchParams(window.location.search).get('tab') || '']"


def admin_only(*, on_load: bool = False) -> list[EventSpec]:
    """Not an admin: say so, then sign in (as someone else) after 500 ms."""
    toast = (toast_on_load(ADMIN_ONLY_TITLE, ADMIN_ONLY_MESSAGE, error=True) if on_load
             else rx.toast.error(ADMIN_ONLY_TITLE, description=ADMIN_ONLY_MESSAGE))
    return [toast, rx.call_script(REDIRECT_TO_SIGN_IN)]


def _sentence(text: str) -> str:
    text = text.strip()
    return text if not text or text.endswith((".", "!", "?")) else f"{text}."


def failure_text(error: Exception, failure: str) -> str:
    """The spec's message (e.g. 'Failed to approve agent.'), followed by the service's reason when it gave one
    (e.g. 'An agent without files cannot be approved.'); anything else (a bug, the database) adds nothing."""
    reason = _sentence(error.message) if isinstance(error, DomainError) else ""
    return f"{failure} {reason}".strip()


def admin_failed(error: Exception, failure: str = "") -> EventSpec | list[EventSpec]:
    """The toast for a failed admin action: signed out and not-admin have their own redirects; anything else
    is 'Error' with the spec's message for the action and the service's reason (unexpected causes logged)."""
    if isinstance(error, Unauthorized):
        return logged_out_again()
    if isinstance(error, Forbidden):
        return admin_only()
    if not isinstance(error, DomainError):
        LOG.error("admin action failed", exc_info=error)
    return rx.toast.error("Error", description=failure_text(error, failure))


@dataclass(frozen=True)
class AdminToast:
    """The failures of an admin call, for `service_calls.attempt`, as `admin_failed` shows them. `unexpected`:
    also catch what is not a refusal (logged); without it, it propagates."""

    failure: str = ""  # the spec's message for the action, e.g. 'Failed to approve agent.'
    unexpected: bool = False

    def shown(self, error: Exception) -> Shown | None:
        if not isinstance(error, DomainError) and not self.unexpected:
            return None
        events = admin_failed(error, self.failure)
        return Shown(events if isinstance(events, list) else [events], failure_text(error, self.failure),
                     signed_out=isinstance(error, Unauthorized))


Counts = tuple[int, int, int, int, int, int, int, int, int]


def _counts(user: User | None) -> Counts:
    """The summary cards and the Applications / Approvals / Approved Agents / Reports / Refunds counts, all from the
    services (role vendor implies isVendorApproved, services/users.py, so all vendors are the active ones)."""
    return (people.list_customers(actor=user, limit=1)[1], people.list_vendors(actor=user, limit=1)[1],
            admin_catalog.list_agents(actor=user, limit=1)[1],
            admin_catalog.list_agents(actor=user, limit=1, status="approved")[1],
            admin_sales.summary(actor=user).admin_earnings_cents,
            applications.list_applications(actor=user, limit=1)[1], moderation.list_pending(actor=user, limit=1)[1],
            reports.list_reports(actor=user, status="pending", limit=1)[1], refunds.requested_count(actor=user))


class AdminState(ViewerMixin, rx.State):
    """The admin area for the current user. Tab substates inherit from it and refresh its counts after writes."""

    mode: str = "loading"  # loading | denied | admin
    viewer_id: str = ""  # the user id the admin check passed for
    tab: str = "overview"
    time_zone: str = "UTC"
    total_customers: int = 0
    active_vendors: int = 0
    total_agents: int = 0
    approved_agents: int = 0
    admin_earnings: str = "$0.00"
    pending_applications: int = 0
    pending_agents: int = 0
    pending_reports: int = 0
    requested_refunds: int = 0

    def _show_counts(self, counts: Counts) -> None:
        (self.total_customers, self.active_vendors, self.total_agents, self.approved_agents, earnings,
         self.pending_applications, self.pending_agents, self.pending_reports, self.requested_refunds) = counts
        self.admin_earnings = money.format_amount(earnings, "usd")

    async def refresh_counts_quietly(self) -> None:
        """After a write: the counts follow, and a failure to read them never hides the write's own toast."""
        try:
            self._show_counts(await blocking.run(_counts, await self.viewer()))
        except Exception:
            LOG.exception("admin counts not refreshed")


class AdminEvents(AdminState):
    """The page's own handlers, in a leaf: an event sent to `AdminState` would load (and pickle back) every tab's
    state, since Reflex fetches all substates of an event's state; here it loads this, its parents and nothing else."""

    @rx.event
    async def on_load(self) -> EventSpec | list[EventSpec]:
        tab = self.router.url.query_parameters.get("tab", "")
        self.tab = tab if tab in TABS else "overview"
        session = await self.get_state(SessionState)  # SessionState.load, just before, read the user
        if not session.signed_in:
            self.mode, self.viewer_id = "denied", ""
            return admin_only(on_load=True)
        if self.viewer_id != session.user_id:  # someone else (or nobody yet) passed the check: start over
            self.mode = "loading"
        return rx.call_script(VIEW_JS, callback=AdminEvents.load_view)

    @rx.event
    async def load_view(self, view: list[str]) -> list[EventSpec] | None:
        zone_name, tab = [*view, "", ""][:2] if isinstance(view, list) else ("", "")
        self.time_zone = time_zone(zone_name).key
        self.tab = tab if tab in TABS else "overview"
        user = await self.viewer()
        try:
            require_admin(user)
            self._show_counts(await blocking.run(_counts, user))
        except (Unauthorized, Forbidden):  # a callback: the toaster is mounted, the toast can go straight out
            self.mode, self.viewer_id = "denied", ""
            return admin_only()
        self.viewer_id = user.id if user else ""
        self.mode = "admin"
        return None

    @rx.event
    def set_tab(self, tab: str) -> EventSpec | None:
        """Open a tab by navigating to its address: a history entry per tab, so Back works."""
        if tab not in TABS:
            return None
        self.tab = tab
        return rx.redirect(f"/admin?tab={tab}")
