"""The Approvals tab: agents waiting for review (new ones and revisions of live ones), approved and rejected.

Pending items come from services/admin/moderation.list_pending, the other two sub-tabs from
services/admin/catalog.list_agents(status=...). All three load when the tab opens, so every sub-tab label
carries its count; each list shows a page and grows with Show more.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import reflex as rx

from marketplace.services import images, money
from marketplace.services.admin import catalog, moderation
from marketplace.services.errors import DomainError
from marketplace.state.admin.page import AdminState, admin_failed
from marketplace.state.display import format_day, format_day_time, time_zone

LOG = logging.getLogger(__name__)
PAGE = 20
SUBTABS = ("pending", "approved", "rejected")
APPROVE_FAILED = "Failed to approve agent."
REJECT_FAILED = "Failed to reject agent."
# services/vendor/revisions.DRAFT_FIELDS (+ tags) as the wizard labels them
FIELD_LABELS = {"name": "Name", "short_description": "Short description", "description": "Description",
                "price_cents": "Price", "category_id": "Category", "demo_url": "Demo URL", "image_url": "Image URL",
                "tags": "Tags"}


@dataclass
class PendingCard:
    agent_id: str
    is_revision: bool
    name: str
    price: str
    short_description: str
    description: str
    category: str
    demo_url: str
    image_url: str
    submitted: str
    submitted_at: str
    file_count: int
    vendor_id: str
    vendor_username: str
    vendor_email: str
    tags: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)  # revisions: labels of what differs from the live listing
    files_added: list[str] = field(default_factory=list)
    files_removed: list[str] = field(default_factory=list)


@dataclass
class ReviewedCard:
    id: str
    name: str
    price: str
    category: str
    vendor: str
    date: str  # of the decision
    reason: str


def _price(cents: int) -> str:
    """'$22.00 per month' (prices are monthly, spec section 9), or 'Free'."""
    return money.price_label(cents, per="month")


def _pending_card(item: moderation.PendingItem, zone_name: str) -> PendingCard:
    zone = time_zone(zone_name)
    vendor = item.vendor
    return PendingCard(
        agent_id=item.agent_id, is_revision=item.kind == "revision", name=item.name, price=_price(item.price_cents),
        short_description=item.short_description, description=item.description,
        category=item.category_name or "Uncategorized", demo_url=item.demo_url or "",
        image_url=images.displayable_image_url(item.image_url),
        submitted=format_day(item.submitted_at, zone), submitted_at=format_day_time(item.submitted_at, zone),
        file_count=item.file_count, vendor_id=vendor.id if vendor else "",
        vendor_username=vendor.username if vendor else "Unknown", vendor_email=vendor.email if vendor else "",
        tags=list(item.tags), changed=[FIELD_LABELS.get(name, name) for name in item.changed_fields],
        files_added=list(item.files_added), files_removed=list(item.files_removed),
    )


def _reviewed_card(row: catalog.AdminAgentRow, zone_name: str) -> ReviewedCard:
    decided = row.reviewed_at or row.created_at  # demo and older rows may lack the decision time
    return ReviewedCard(
        id=row.id, name=row.name, price=_price(row.price_cents), category=row.category_name or "Uncategorized",
        vendor=row.vendor_username or "Unknown", date=format_day(decided, time_zone(zone_name)),
        reason=row.rejection_reason or "",
    )


class ApprovalsState(AdminState):
    loading: bool = True
    subtab: str = "pending"
    pending: list[PendingCard] = []
    pending_total: int = 0
    approved: list[ReviewedCard] = []
    approved_total: int = 0
    rejected: list[ReviewedCard] = []
    rejected_total: int = 0
    details_id: str = ""  # agent whose details dialog is open
    reject_id: str = ""  # agent the Reject Agent dialog is open for
    reject_name: str = ""
    reason: str = ""
    busy: str = ""  # agent being decided

    @rx.event
    def on_open(self) -> Iterator[Any]:
        """The tab opened: read the three lists."""
        self.loading = True
        yield
        yield self._refresh()

    def _refresh(self) -> Any:
        """The first page of each list again (after a decision too); the failure toast, if any, to send."""
        user = self.current_user()
        try:
            items, self.pending_total = moderation.list_pending(actor=user, limit=PAGE)
            approved, self.approved_total = catalog.list_agents(actor=user, limit=PAGE, status="approved")
            rejected, self.rejected_total = catalog.list_agents(actor=user, limit=PAGE, status="rejected")
        except DomainError as error:
            self.loading = False
            return admin_failed(error)
        self.pending = [_pending_card(item, self.time_zone) for item in items]
        self.approved = [_reviewed_card(row, self.time_zone) for row in approved]
        self.rejected = [_reviewed_card(row, self.time_zone) for row in rejected]
        self.loading = False
        return None

    @rx.event
    def set_subtab(self, value: str) -> None:
        if value in SUBTABS:
            self.subtab = value

    @rx.event
    def load_more(self, which: str) -> Any:
        """The next page of one list, appended (rows that moved meanwhile are not shown twice)."""
        user = self.current_user()
        try:
            if which == "pending":
                items, self.pending_total = moderation.list_pending(actor=user, limit=PAGE, offset=len(self.pending))
                known = {card.agent_id for card in self.pending}
                fresh = [_pending_card(i, self.time_zone) for i in items if i.agent_id not in known]
                self.pending = self.pending + fresh
            elif which == "approved":
                self.approved, self.approved_total = self._more_reviewed(self.approved, "approved")
            elif which == "rejected":
                self.rejected, self.rejected_total = self._more_reviewed(self.rejected, "rejected")
        except DomainError as error:
            return admin_failed(error)
        return None

    def _more_reviewed(self, shown: list[ReviewedCard], status: str) -> tuple[list[ReviewedCard], int]:
        rows, total = catalog.list_agents(actor=self.current_user(), limit=PAGE, offset=len(shown), status=status)
        known = {card.id for card in shown}
        return shown + [_reviewed_card(r, self.time_zone) for r in rows if r.id not in known], total

    @rx.event
    def show_details(self, agent_id: str) -> None:
        self.details_id = agent_id

    @rx.event
    def details_open_change(self, is_open: bool) -> None:
        if not is_open:
            self.details_id = ""

    @rx.event
    def approve(self, agent_id: str) -> Iterator[Any]:
        if self.busy:
            return
        self.busy = agent_id
        yield
        try:
            moderation.approve(actor=self.current_user(), agent_id=agent_id)
        except Exception as error:  # a refusal (e.g. 409: no files) shows its reason; anything else is logged
            if not isinstance(error, DomainError):
                LOG.exception("approve agent failed")
            yield from self._after(admin_failed(error, APPROVE_FAILED))
            return
        self.details_id = ""
        yield from self._after(rx.toast("Agent approved", description="The agent has been approved and is now live."))

    # --- the Reject Agent dialog ------------------------------------------------------------------------------

    @rx.event
    def open_reject(self, agent_id: str, name: str) -> None:
        self.reject_id, self.reject_name, self.reason = agent_id, name, ""

    @rx.event
    def reject_open_change(self, is_open: bool) -> None:
        """Closed by Cancel, Escape or the overlay: the reason goes with it (spec section 4)."""
        if not is_open and not self.busy:
            self.reject_id = self.reject_name = self.reason = ""

    @rx.event
    def set_reason(self, value: str) -> None:
        self.reason = value

    @rx.event
    def reject(self, form: dict | None = None) -> Iterator[Any]:
        """Reject Agent: the reason is trimmed and sent as absent when empty (spec section 5)."""
        agent_id = self.reject_id
        if self.busy or not agent_id:
            return
        if form and isinstance(form.get("reason"), str):
            self.reason = form["reason"]  # what the box held, even if its last change event is still on its way
        self.busy = agent_id
        yield
        reason = self.reason.strip() or None
        try:
            moderation.reject(actor=self.current_user(), agent_id=agent_id, rejection_reason=reason)
        except Exception as error:  # a refusal (e.g. a reason too long) shows its reason; anything else is logged
            if not isinstance(error, DomainError):
                LOG.exception("reject agent failed")
            self.busy = ""
            yield admin_failed(error, REJECT_FAILED)
            if isinstance(error, DomainError) and error.field == "rejectionReason":
                return  # the dialog stays open with the reason, to shorten it
            self.reject_id = self.reject_name = self.reason = ""
            self.refresh_counts_quietly()
            yield self._refresh()
            return
        self.reject_id = self.reject_name = self.reason = self.details_id = ""
        yield from self._after(rx.toast("Agent rejected",
                                        description="The agent has been rejected and vendor has been notified."))

    def _after(self, feedback: Any) -> Iterator[Any]:
        """Both outcomes read the lists again: a failed decision usually means the agent changed meanwhile."""
        self.busy = ""
        self.refresh_counts_quietly()  # the shell's tab labels and summary cards
        yield feedback
        yield self._refresh()
